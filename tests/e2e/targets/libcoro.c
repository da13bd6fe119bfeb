/*
 * A coroutine library whose users never see swapcontext: coro_new()
 * makes a coroutine on a stack of its own, coro_switch() passes control
 * between coroutines (and the caller's own context, coro 0).  The program
 * that links it imports only these names.
 */
#include <stdlib.h>
#include <ucontext.h>

#define STACK (256u << 10)
#define MAX 8

int coro_new(void (*fn)(int), int arg);
void coro_switch(int from, int to);

static ucontext_t ctx[MAX];
static int ncoro = 1;	/* 0: the caller's own */

int coro_new(void (*fn)(int), int arg)
{
	int k = ncoro++;

	getcontext(&ctx[k]);
	ctx[k].uc_stack.ss_sp = malloc(STACK);
	ctx[k].uc_stack.ss_size = STACK;
	ctx[k].uc_link = &ctx[0];
	makecontext(&ctx[k], (void (*)(void))fn, 1, arg);
	return k;
}

void coro_switch(int from, int to)
{
	swapcontext(&ctx[from], &ctx[to]);
}
