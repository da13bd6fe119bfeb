/*
 * A function with an out-of-line copy and inlined ones: main calls
 * helper directly (the compiler inlines it) and through a pointer (the
 * out-of-line copy).  Only the latter calls can reach a probe.
 */
#include <stdio.h>
#include <stdlib.h>

int helper(int v);

static volatile int sink;

int helper(int v)
{
	sink += v;
	return v + 1;
}

int main(int argc, char **argv)
{
	int (*volatile call)(int) = helper;
	int n = argc > 1 ? atoi(argv[1]) : 100, i;

	for (i = 0; i < n; i++) {
		helper(i);	/* inlined at -O2 */
		call(i);	/* the symbol's copy */
	}
	printf("{\"inlined\": %d, \"out_of_line\": %d}\n", n, n);
	return 0;
}
