/*
 * A process that execs: work() K times, then exec itself (N more times)
 * or another program.  A tracer must count the calls of every program
 * the process becomes and leave each one as untraced.
 * Usage: execs N K [wait] [thread] [-- PROG ARGS...]
 *   wait: print "ready PID" and start on SIGUSR1 (the first program only)
 *   thread: each program calls and execs from a second thread, the first
 *   one calling idle() meanwhile
 *   after the last of the N re-execs, exec PROG ARGS if given, else exit 0
 * Prints "program G: S" per program (S a checksum of its calls).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long work(long x);
long idle(long x);

static volatile long sink, spun;
static long n, k;
static int argc_, rest, use_thread;
static char **argv_;

__attribute__((noinline)) long work(long x)
{
	sink += x;
	return sink * 3 + x;
}

__attribute__((noinline)) long idle(long x)
{
	spun += x;
	return spun;
}

/* work() K times, then the next program: this one again, or PROG. */
static void *run(void *unused)
{
	long i, sum = 0;
	char nbuf[32];
	int a;

	(void)unused;
	for (i = 0; i < k; i++)
		sum += work(i);
	printf("program %ld: %ld\n", n, sum);
	fflush(stdout);
	if (n > 0) {
		char **av = calloc((size_t)argc_ + 2, sizeof(*av));
		int j = 0;

		snprintf(nbuf, sizeof(nbuf), "%ld", n - 1);
		av[j++] = argv_[0];
		av[j++] = nbuf;
		av[j++] = argv_[2];
		if (use_thread)
			av[j++] = (char *)"thread";
		for (a = rest ? rest - 1 : argc_; a < argc_; a++)
			av[j++] = argv_[a];
		execv("/proc/self/exe", av);
		perror("execv");
		exit(1);
	}
	if (rest && rest < argc_) {
		execv(argv_[rest], argv_ + rest);
		perror("execv");
		exit(1);
	}
	exit(0);
}

int main(int argc, char **argv)
{
	int wait = 0, a;
	pthread_t th;

	if (argc < 3)
		return 2;
	argc_ = argc;
	argv_ = argv;
	n = atol(argv[1]);
	k = atol(argv[2]);
	for (a = 3; a < argc; a++) {
		if (!strcmp(argv[a], "wait"))
			wait = 1;
		if (!strcmp(argv[a], "thread"))
			use_thread = 1;
		if (!strcmp(argv[a], "--")) {
			rest = a + 1;
			break;
		}
	}
	if (wait) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		sigwait(&set, &sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	}
	if (!use_thread)
		run(NULL);
	if (pthread_create(&th, NULL, run, NULL))
		return 1;
	for (;;)
		idle(1);	/* the first thread calls on until the exec ends it */
}
