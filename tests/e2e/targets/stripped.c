/*
 * Functions only a debug file names: hidden_outer and hidden_inner are
 * static, so once the program is stripped (strip --strip-all) no symbol
 * of its own says where they are; its separate debug info does.  Calls
 * hidden_outer(i % 100) N times, which calls hidden_inner(x) once, and
 * prints its counts.  Usage: stripped [N [wait]]; with "wait" it prints
 * "ready PID" and makes its calls once SIGUSR1 comes, for a tracer that
 * attaches with -p.  tests/e2e/debuginfod.sh builds it with -g.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline, noipa)) static long hidden_inner(long x)
{
	sink += x;
	return 2 * x;
}

__attribute__((noinline, noipa)) static long hidden_outer(long x)
{
	return hidden_inner(x) + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i, r = 0;

	if (argc > 2 && !strcmp(argv[2], "wait")) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		sigwait(&set, &sig);
	}
	for (i = 0; i < n; i++)
		r += hidden_outer(i % 100);
	printf("hidden_outer %ld hidden_inner %ld sum %ld\n", n, n, r);
	return 0;
}
