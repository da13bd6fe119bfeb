/*
 * gcc -O2 splits parse's rarely taken path into parse.cold, an STT_FUNC
 * symbol entered by a jump, never by a call: a return probe there would
 * overwrite whatever is at the stack top.  Prints what it computed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long parse(const char *s, long x);

__attribute__((cold, noinline)) static void complain(const char *s, long x)
{
	fprintf(stderr, "%s %ld\n", s, x);
}

__attribute__((noinline)) long parse(const char *s, long x)
{
	long v = 0;
	const char *p;

	for (p = s; *p; p++) {
		if (__builtin_expect(*p == '!', 0)) {
			complain("bang", x);
			v -= (long)strlen(p) * x;
			continue;
		}
		v = v * 31 + *p + x;
	}
	return v;
}

int main(int argc, char **argv)
{
	long acc = 0, i;

	(void)argv;
	for (i = 0; i < 1000; i++)
		acc += parse(i % 100 == 0 ? "ab!c" : "hello", i) % 100000;
	printf("argc=%d acc=%ld\n", argc, acc);
	return 0;
}
