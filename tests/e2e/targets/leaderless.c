/*
 * A process whose first thread has ended: main starts a worker and calls
 * pthread_exit; the worker says it is ready once the first thread is a
 * zombie (not before: a tracer attaching then would find it alive), calls
 * work() N times on SIGUSR1, says how many, and ends the process.  A tracer attaching with
 * -p finds a zombie first thread and a live process.
 * Usage: leaderless N
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long work(long x);

static volatile long sink;
static long n = 1000;

__attribute__((noinline)) long work(long x)
{
	sink += x;
	return sink;
}

/* The first thread's state, from its stat line: 'Z' once it has ended. */
static char leader_state(void)
{
	char path[64], line[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)getpid());
	f = fopen(path, "r");
	if (!f)
		return 'X';
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	return p && p[1] && p[2] ? p[2] : '?';
}

static void *worker(void *arg)
{
	sigset_t *set = arg;
	long i;
	int sig;

	while (leader_state() != 'Z' && leader_state() != 'X')
		usleep(1000);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
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
	pthread_exit(NULL);
}
