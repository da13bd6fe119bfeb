/*
 * Recursion deeper than the kernel's uretprobe nesting limit (64 return
 * probes per thread): top() -> rec(DEPTH) -> ... -> rec(1), then leaf().
 * The deepest rec calls get no return probe; the pairing must discard them
 * as unclosed and keep top and leaf exact.  Prints the call counts.
 */
#include <stdio.h>
#include <stdlib.h>

void rec(int n);
void leaf(int n);
void top(int n);

static volatile int sink;

__attribute__((noinline)) void rec(int n)
{
	if (n > 1)
		rec(n - 1);
	sink += n; /* after the call: no tail call */
}

__attribute__((noinline)) void leaf(int n)
{
	sink += n;
}

__attribute__((noinline)) void top(int depth)
{
	rec(depth);
	leaf(depth);
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 200, depth = argc > 2 ? atoi(argv[2]) : 100, i;

	for (i = 0; i < k; i++)
		top(depth);
	printf("{\"top\": %d, \"rec\": %d, \"leaf\": %d}\n", k, k * depth, k);
	return 0;
}
