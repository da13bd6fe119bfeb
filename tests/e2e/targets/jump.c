/*
 * longjmp out of traced functions: f() sets a jump point and calls g(),
 * g() calls h(), h() longjmps back into f.  The returns of g and h never
 * happen.  Then f calls leaf() and returns normally.  Prints the counts.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

void f(int i);
void g(int i);
void h(int i);
void leaf(int i);

static jmp_buf env;
static volatile int sink;

__attribute__((noinline)) void h(int i)
{
	sink += i;
	longjmp(env, 1);
}

__attribute__((noinline)) void g(int i)
{
	h(i);
	sink += i;
}

__attribute__((noinline)) void leaf(int i)
{
	sink += i;
}

__attribute__((noinline)) void f(int i)
{
	if (!setjmp(env))
		g(i);
	leaf(i);
	sink += i;
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 500, i;

	for (i = 0; i < k; i++)
		f(i);
	printf("{\"f\": %d, \"g\": %d, \"h\": %d, \"leaf\": %d}\n", k, k, k, k);
	return 0;
}
