/*
 * One burst of calls, then none: tick() N times as fast as it goes on
 * one thread, then the program idles until told to end.  A tracer whose
 * ring overflows in the burst must still count every record it dropped,
 * although no later call writes anything after the hole.
 * Usage: burst N [wait|child]   (wait: print "ready", burst on SIGUSR1,
 * end on SIGTERM/SIGINT; child: a forked child bursts, the parent waits
 * for it; else burst at once and exit)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

long tick(long i);

static volatile long sink;

__attribute__((noinline)) long tick(long i)
{
	sink += i;
	return sink;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The calls, and what each cost (for benchmarks; tests read the count). */
static void burst(long n)
{
	long long t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		tick(i);
	printf("calls %ld %.1f ns/call\n", n, n ? (double)(now_ns() - t0) / (double)n : 0.0);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 400000;
	sigset_t set;
	int sig;

	if (argc < 3) {
		burst(n);
		return 0;
	}
	if (!strcmp(argv[2], "child")) {
		int status;
		pid_t pid = fork();

		if (!pid) {
			burst(n);
			_exit(0);
		}
		return pid < 0 || waitpid(pid, &status, 0) != pid || status;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!sigwait(&set, &sig) && sig == SIGUSR1)
		burst(n);
	return 0;
}
