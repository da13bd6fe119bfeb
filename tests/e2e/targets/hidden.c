/*
 * A program as containers run them (tests/e2e/container.sh): N calls of
 * libhidden.so's in_lib and of libc's getpid in each of three threads -
 * the first, one made before it says it is ready, one made after - so a
 * tracer meets threads its pid namespace numbers otherwise than the
 * host.  Prints "ready PID" (PID as its own namespace says), starts on
 * SIGUSR1, and prints the calls it made.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int in_lib(int x);

static int n;
static pthread_barrier_t go;

static void work(void)
{
	int i;

	for (i = 0; i < n; i++) {
		in_lib(i);
		getpid();
	}
}

static void *early(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	work();
	return NULL;
}

static void *late(void *arg)
{
	(void)arg;
	work();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	sigset_t set;
	int sig;

	n = argc > 1 ? atoi(argv[1]) : 1000;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pthread_barrier_init(&go, NULL, 2);
	if (pthread_create(&a, NULL, early, NULL))
		return 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sigwait(&set, &sig);
	if (pthread_create(&b, NULL, late, NULL))
		return 1;
	pthread_barrier_wait(&go);
	work();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("in_lib %d getpid %d\n", 3 * n, 3 * n);
	return 0;
}
