// A C++ exception thrown through traced frames: h() throws, g() has no
// handler, f() catches.  The returns of g and h never execute.  Prints the
// counts orbit-trace should see.
#include <cstdio>
#include <cstdlib>

extern "C" {
__attribute__((noinline)) void h(int i);
__attribute__((noinline)) void g(int i);
__attribute__((noinline)) void f(int i);
__attribute__((noinline)) void leaf(int i);
}

static volatile int sink;

void h(int i) { if (i >= 0) throw i; sink = i; }
void g(int i) { h(i); sink = i; }
void leaf(int i) { sink = i; }
void f(int i)
{
	try {
		g(i);
	} catch (int e) {
		sink = e;
	}
	leaf(i);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, caught = 0;

	for (int i = 0; i < n; i++) {
		f(i);
		caught++;
	}
	printf("{\"f\": %d, \"g\": %d, \"h\": %d, \"leaf\": %d, \"caught\": %d}\n", n, n, n, n, caught);
	return 0;
}
