/*
 * Two ucontext fibers on one thread, each on its own stack, ping-ponging
 * from inside a traced function: step() yields to the other fiber in the
 * middle of its call and returns only when resumed.  Every step() and
 * work() call returns; a tracer pairing by one stack per thread sees them
 * interleaved.  Prints what it computed.  Usage: fibers [N] (steps per fiber)
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define STACK (256u << 10)

long step(int me, long i);
long work(long x);

static ucontext_t main_ctx, fib[2];
static long n = 1000, sums[2];
static volatile long sink;

__attribute__((noinline)) long work(long x)
{
	sink += x;
	return x * 3;
}

__attribute__((noinline)) long step(int me, long i)
{
	long v = work(i);

	swapcontext(&fib[me], &fib[!me]);	/* yield inside the call */
	return v + work(i + 1);
}

static void body(int me)
{
	long i;

	for (i = 0; i < n; i++)
		sums[me] += step(me, i);
	/* The other fiber finishes its last step on its own: let it. */
	swapcontext(&fib[me], me ? &main_ctx : &fib[!me]);
}

int main(int argc, char **argv)
{
	int k;

	if (argc > 1)
		n = atol(argv[1]);
	for (k = 0; k < 2; k++) {
		getcontext(&fib[k]);
		fib[k].uc_stack.ss_sp = malloc(STACK);
		fib[k].uc_stack.ss_size = STACK;
		fib[k].uc_link = &main_ctx;
		makecontext(&fib[k], (void (*)(void))body, 1, k);
	}
	swapcontext(&main_ctx, &fib[0]);
	printf("sums=%ld,%ld\n", sums[0], sums[1]);
	return 0;
}
