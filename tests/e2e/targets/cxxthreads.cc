// Two threads of C++ work that throws: each thread parses N records,
// one in 7 of them bad, and parse() throws std::runtime_error through
// check() to the caller, which catches it and counts.  Prints what each
// thread counted: a tracer must leave exceptions and threads as they are.
// Usage: cxxthreads N
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

__attribute__((noinline)) long check(long v)
{
	if (v % 7 == 3)
		throw std::runtime_error("bad record " + std::to_string(v));
	return v * 2;
}

__attribute__((noinline)) long parse(long v)
{
	return check(v) + 1;
}

static void work(long n, long seed, long *good, long *bad)
{
	for (long i = 0; i < n; i++) {
		try {
			*good += parse(seed + i);
		} catch (const std::exception &e) {
			(*bad)++;
		}
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000, good[2] = { 0, 0 }, bad[2] = { 0, 0 };
	std::thread a(work, n, 0, &good[0], &bad[0]);
	std::thread b(work, n, 1000000, &good[1], &bad[1]);

	a.join();
	b.join();
	printf("good %ld,%ld bad %ld,%ld\n", good[0], good[1], bad[0], bad[1]);
	return 0;
}
