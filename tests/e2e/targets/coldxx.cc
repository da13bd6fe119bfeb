// C++ functions with a .cold clone: g++ -O2 moves the throw of leaf(long)
// and app::check(long) into "leaf(long) [clone .cold]" and
// "app::check(long) [clone .cold]", entered by a jump.  "leaf" and "check"
// must select the functions and skip the clones.  Nothing is thrown when
// every argument is >= 0; prints the counts it made.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

__attribute__((noinline)) long leaf(long x)
{
	if (__builtin_expect(x < 0, 0))
		throw std::invalid_argument("leaf: negative");
	return x * 3 + 1;
}

namespace app {
__attribute__((noinline)) long check(long x)
{
	if (__builtin_expect(x > (1L << 40), 0))
		throw std::out_of_range("check: too large");
	return x ^ 0x5a;
}
} // namespace app

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0, caught = 0;

	for (long i = 0; i < n; i++) {
		try {
			sum += leaf(i) + app::check(i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	printf("{\"leaf(long)\": %ld, \"app::check(long)\": %ld, \"caught\": %ld, \"sum\": %ld}\n",
	       n, n, caught, sum);
	return 0;
}
