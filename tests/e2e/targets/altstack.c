/*
 * Coroutines made of sigaltstack(2) and setjmp/longjmp, the portable
 * trick of GNU Pth and its kind: a signal delivered on an alternate stack
 * takes a setjmp there and returns, and a longjmp later starts the
 * coroutine on that stack.  Two coroutines ping-pong from inside the
 * traced cstep(), which yields in the middle of its call.  Prints what
 * each computed.  Usage: altstack [N] (steps per coroutine)
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK (256u << 10)

long cstep(int me, long i);
long cwork(long x);

static jmp_buf main_ctx, co[2], *creating;
static void (*volatile co_entry)(void);
static long n = 1000, sums[2];
static volatile long sink;

__attribute__((noinline)) long cwork(long x)
{
	sink += x;
	return x * 3;
}

/* Keep this context in from, go on in to. */
static void co_switch(jmp_buf *from, jmp_buf *to)
{
	if (!_setjmp(*from))
		_longjmp(*to, 1);
}

__attribute__((noinline)) long cstep(int me, long i)
{
	long v = cwork(i);

	co_switch(&co[me], &co[!me]);	/* yield inside the call */
	return v + cwork(i + 1);
}

static void co_main(int me)
{
	long i;

	for (i = 0; i < n; i++)
		sums[me] += cstep(me, i);
	/* The other coroutine finishes its last step on its own: let it. */
	co_switch(&co[me], me ? &main_ctx : &co[!me]);
	abort();	/* never resumed */
}

static void co0(void) { co_main(0); }
static void co1(void) { co_main(1); }

/* On the alternate stack: keep a context there and return; a longjmp to
 * it later runs the coroutine's body on this stack. */
static void on_signal(int sig)
{
	void (*entry)(void) = co_entry;

	(void)sig;
	if (!_setjmp(*creating))
		return;
	entry();
}

static void co_create(jmp_buf *ctx, void (*entry)(void))
{
	struct sigaction sa, old_sa;
	stack_t ss = { .ss_sp = malloc(STACK), .ss_size = STACK }, old_ss;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	creating = ctx;
	co_entry = entry;
	sigaltstack(&ss, &old_ss);
	sigaction(SIGUSR1, &sa, &old_sa);
	raise(SIGUSR1);
	sigaction(SIGUSR1, &old_sa, NULL);
	ss.ss_flags = SS_DISABLE;	/* the stack is the coroutine's now */
	sigaltstack(&ss, NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atol(argv[1]);
	co_create(&co[0], co0);
	co_create(&co[1], co1);
	co_switch(&main_ctx, &co[0]);
	printf("sums=%ld,%ld\n", sums[0], sums[1]);
	return 0;
}
