/*
 * A program built with AddressSanitizer (make builds it with gcc, whose
 * runtime is libasan.so, and with clang, which links its runtime in):
 * work() N times, its output buffered (a pipe), then exit - through
 * LeakSanitizer's leak check, which stops every thread with ptrace.  With
 * "leak" it leaks a block, which the check reports (exit status 23).
 * Usage: asan N [leak]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long work(long i);

static volatile long sink;
static char *volatile keep;

__attribute__((noinline)) long work(long i)
{
	sink += i * 3;
	return sink;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;

	for (i = 0; i < n; i++)
		work(i);
	printf("calls %ld sum %ld\n", n, (long)sink);
	if (argc > 2 && !strcmp(argv[2], "leak"))
		for (i = 0; i < 8; i++) {
			keep = malloc(48);
			keep[0] = 1;
			keep = NULL;	/* lost */
		}
	return 0;
}
