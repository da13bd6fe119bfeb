/*
 * Coroutines from a linked library (libcoro.so: swapcontext inside it,
 * none in this program's imports): two ping-pong from inside the traced
 * lstep(), which yields in the middle of its call.  Prints what each
 * computed.  Usage: usecoro [N [ready]] (steps per coroutine; with ready
 * it first prints "ready PID", for a tracer to attach to).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int coro_new(void (*fn)(int), int arg);
void coro_switch(int from, int to);

long lstep(int me, long i);
long lwork(long x);

static int id[2];
static long n = 1000, sums[2];
static volatile long sink;

__attribute__((noinline)) long lwork(long x)
{
	sink += x;
	return x * 3;
}

__attribute__((noinline)) long lstep(int me, long i)
{
	long v = lwork(i);

	coro_switch(id[me], id[!me]);	/* yield inside the call */
	return v + lwork(i + 1);
}

static void body(int me)
{
	long i;

	for (i = 0; i < n; i++)
		sums[me] += lstep(me, i);
	/* The other coroutine finishes its last step on its own: let it. */
	coro_switch(id[me], me ? 0 : id[!me]);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atol(argv[1]);
	if (argc > 2) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
	}
	id[0] = coro_new(body, 0);
	id[1] = coro_new(body, 1);
	coro_switch(0, id[0]);
	printf("sums=%ld,%ld\n", sums[0], sums[1]);
	return 0;
}
