/*
 * A fiber that moves between threads with a traced call open: hop()
 * yields in its middle, and the other thread resumes the fiber, so every
 * hop() returns on another thread than the one it was called on.  A
 * tracer that keeps return addresses per thread must find them wherever
 * they went.  Prints what the fiber computed.  Usage: migrate [N]
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define STACK (256u << 10)

long hop(long i);
long leaf(long x);

static ucontext_t home[2], fiber;
static long n = 1000, sum;
static volatile int turn, cur, done;
static volatile long sink;

__attribute__((noinline)) long leaf(long x)
{
	sink += x;
	return x + 1;
}

/* Back to the thread that resumed the fiber; on, on the one that next does. */
static void yield(void)
{
	swapcontext(&fiber, &home[cur]);
}

__attribute__((noinline)) long hop(long i)
{
	long v = leaf(i);

	yield();
	return v + leaf(2 * i);
}

static void body(void)
{
	long i;

	for (i = 0; i < n; i++)
		sum += hop(i);
	done = 1;
	yield();
}

/* Thread k: resume the fiber when its turn comes, then pass the turn. */
static void *run(void *arg)
{
	int k = (int)(long)arg;

	while (!done) {
		while (turn != k && !done)
			sched_yield();
		if (done)
			break;
		cur = k;
		swapcontext(&home[k], &fiber);
		turn = !k;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	int k;

	if (argc > 1)
		n = atol(argv[1]);
	getcontext(&fiber);
	fiber.uc_stack.ss_sp = malloc(STACK);
	fiber.uc_stack.ss_size = STACK;
	fiber.uc_link = NULL;
	makecontext(&fiber, body, 0);
	for (k = 0; k < 2; k++)
		pthread_create(&th[k], NULL, run, (void *)(long)k);
	for (k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	printf("sum=%ld\n", sum);
	return 0;
}
