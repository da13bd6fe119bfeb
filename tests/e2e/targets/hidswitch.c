/*
 * A stack switch no file names (issue 30, item 1's run-time case): outer()
 * runs on the thread's stack and switches, by hand-written assembly under
 * a name no scan knows, to a fiber on a heap stack that calls inner() and
 * switches back; outer() then returns.  Prints the sum.  x86-64 only.
 * Usage: hidswitch [N] (calls of outer)
 */
#include <stdio.h>
#include <stdlib.h>

#define STACK (256u << 10)

long outer(long i);
long inner(long x);

#if defined(__x86_64__)
/* sp_trade(&save, to): as asmswitch's fiber_switch, named otherwise. */
void sp_trade(void **save, void *to);
__asm__(".text\n"
	".globl sp_trade\n"
	".type sp_trade, @function\n"
	"sp_trade:\n"
	"	pushq %rbp\n	pushq %rbx\n	pushq %r12\n"
	"	pushq %r13\n	pushq %r14\n	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n	popq %r14\n	popq %r13\n"
	"	popq %r12\n	popq %rbx\n	popq %rbp\n"
	"	ret\n"
	".size sp_trade, .-sp_trade\n");

static void *main_sp, *fib_sp;
static long arg, result;
static volatile long sink;

__attribute__((noinline)) long inner(long x)
{
	sink += x;
	return x * 3;
}

/* The fiber: one inner() per switch into it, forever. */
static void fiber_main(void)
{
	for (;;) {
		result = inner(arg);
		sp_trade(&fib_sp, main_sp);
	}
}

__attribute__((noinline)) long outer(long i)
{
	arg = i;
	sp_trade(&main_sp, fib_sp);	/* inner() runs on the fiber's stack */
	return result + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i, sum = 0;
	char *top = (char *)malloc(STACK) + STACK;
	void **sp = (void **)((unsigned long)top & ~15ul);
	int k;

	*--sp = NULL;			/* fiber_main's return address: none */
	*--sp = (void *)fiber_main;	/* where sp_trade returns */
	for (k = 0; k < 6; k++)
		*--sp = NULL;		/* rbp, rbx, r12-r15 */
	fib_sp = sp;
	for (i = 0; i < n; i++)
		sum += outer(i);
	printf("sum=%ld\n", sum);
	return 0;
}
#else
int main(void)
{
	puts("hidswitch: x86-64 only");
	return 0;
}
#endif
