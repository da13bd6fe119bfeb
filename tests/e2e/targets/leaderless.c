/*
 * A process whose first thread has ended: main starts a worker, says it
 * is ready and calls pthread_exit; the worker calls work() N times on
 * SIGUSR1, says how many, and ends the process.  A tracer attaching with
 * -p finds a zombie first thread and a live process.
 * Usage: leaderless N
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long work(long x);

static volatile long sink;
static long n = 1000;

__attribute__((noinline)) long work(long x)
{
	sink += x;
	return sink;
}

static void *worker(void *arg)
{
	sigset_t *set = arg;
	long i;
	int sig;

	sigwait(set, &sig);
	for (i = 0; i < n; i++)
		work(i);
	printf("work %ld\n", n);
	fflush(stdout);
	exit(0);
}

int main(int argc, char **argv)
{
	static sigset_t set;
	pthread_t th;

	if (argc > 1)
		n = atol(argv[1]);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&th, NULL, worker, &set))
		return 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	pthread_exit(NULL);
}
