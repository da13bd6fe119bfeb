/*
 * Known values, for -f 'NAME(argN)' and 'NAME%ret': take(n, m) is called
 * with n = i % 100 (i < N) and m = 7, and returns 3n - 50; neg(x), an int,
 * is called with x = -(i % 10) and returns x - 1.  Prints the counts, the
 * extremes and the medians the report must show.  Usage: values [N [ready]];
 * with "ready" it first prints "ready PID", for a tracer to attach with -p.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long take(long n, long m);
int neg(int x);

static volatile long sink;

__attribute__((noinline)) long take(long n, long m)
{
	sink += n * m;
	return 3 * n - 50;
}

__attribute__((noinline)) int neg(int x)
{
	sink += x;
	return x - 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i, r = 0;

	if (argc > 2 && !strcmp(argv[2], "ready")) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
	}

	for (i = 0; i < n; i++) {
		r += take(i % 100, 7);
		r += neg((int)-(i % 10));
	}
	printf("{\"take\": %ld, \"neg\": %ld, \"sum\": %ld}\n", n, n, r);
	return 0;
}
