/*
 * Fibers switched by hand-written assembly (no swapcontext, nothing a
 * tracer can see in the imports): two fibers on one thread ping-pong
 * from inside the traced astep(), which yields in the middle of its call
 * and returns when resumed on its own stack.  Prints what each computed.
 * x86-64 only.  Usage: asmswitch [N [hop]] (steps per fiber; hop: each
 * step through ahop(), which leaves by an indirect tail call - an exit no
 * scan can follow, so by default a uprobe backend gives it a return probe).
 */
#include <stdio.h>
#include <stdlib.h>

#define STACK (256u << 10)

long astep(int me, long i);
long awork(long x);

/* fiber_switch(&save, to): push the callee-saved registers, keep the
 * stack pointer in *save, take to's, pop its registers and return into
 * it.  A new fiber's stack holds six zeros and its entry point. */
#if defined(__x86_64__)
void fiber_switch(void **save, void *to);
__asm__(".text\n"
	".globl fiber_switch\n"
	".type fiber_switch, @function\n"
	"fiber_switch:\n"
	"	pushq %rbp\n	pushq %rbx\n	pushq %r12\n"
	"	pushq %r13\n	pushq %r14\n	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n	popq %r14\n	popq %r13\n"
	"	popq %r12\n	popq %rbx\n	popq %rbp\n"
	"	ret\n"
	".size fiber_switch, .-fiber_switch\n");

static void *main_sp, *fib_sp[2];
static long n = 1000, sums[2];
static volatile long sink;
static int starting, hop;

__attribute__((noinline)) long awork(long x)
{
	sink += x;
	return x * 3;
}

__attribute__((noinline)) long astep(int me, long i)
{
	long v = awork(i);

	fiber_switch(&fib_sp[me], fib_sp[!me]);	/* yield inside the call */
	return v + awork(i + 1);
}

/* astep, reached by a jump through a pointer the compiler cannot see. */
long ahop(int me, long i);
static long (*volatile hop_to)(int, long) = astep;

__attribute__((noinline)) long ahop(int me, long i)
{
	return hop_to(me, i);
}

static void fiber_main(void)
{
	int me = starting++;
	long i;

	for (i = 0; i < n; i++)
		sums[me] += hop ? ahop(me, i) : astep(me, i);
	/* The other fiber finishes its last step on its own: let it. */
	fiber_switch(&fib_sp[me], me ? main_sp : fib_sp[!me]);
	abort();	/* never resumed */
}

/* A stack whose first switch into it enters fiber_main, aligned as a
 * call would leave it. */
static void *new_fiber(void)
{
	char *top = (char *)malloc(STACK) + STACK;
	void **sp = (void **)((unsigned long)top & ~15ul);
	int k;

	*--sp = NULL;			/* fiber_main's return address: none */
	*--sp = (void *)fiber_main;	/* where fiber_switch returns */
	for (k = 0; k < 6; k++)
		*--sp = NULL;		/* rbp, rbx, r12-r15 */
	return sp;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atol(argv[1]);
	hop = argc > 2 && argv[2][0] == 'h';
	fib_sp[0] = new_fiber();
	fib_sp[1] = new_fiber();
	fiber_switch(&main_sp, fib_sp[0]);
	printf("sums=%ld,%ld\n", sums[0], sums[1]);
	return 0;
}
#else
int main(void)
{
	puts("asmswitch: x86-64 only");
	return 0;
}
#endif
