// C++ names to select: overloads, a template, a member function, all in a
// namespace.  Prints how many times it called each.
#include <cstdio>
#include <cstdlib>

namespace app {

static volatile long sink;

__attribute__((noinline)) int parse(int v) { sink += v; return v + 1; }
__attribute__((noinline)) int parse(double v) { sink += (long)v; return (int)v + 2; }

/* Two parameters: a name with a comma inside its parentheses. */
__attribute__((noinline)) long mix(int a, long b) { sink += a; return a + b; }

template <class T> __attribute__((noinline)) T twice(T v) { sink += (long)v; return v + v; }

struct Widget {
	int w;
	__attribute__((noinline)) int draw() { sink += w; return w; }
};

} // namespace app

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	app::Widget wd{3};

	for (int i = 0; i < n; i++) {
		app::parse(i);
		app::parse(i * 0.5);
		app::parse(i * 0.25);
		app::twice<int>(i);
		app::twice<double>(i * 1.5);
		wd.draw();
		app::mix(i, 2L * i);
	}
	printf("{\"app::parse(int)\": %d, \"app::parse(double)\": %d, \"app::twice<int>\": %d, "
	       "\"app::twice<double>\": %d, \"app::Widget::draw()\": %d}\n", n, 2 * n, n, n, n);
	return 0;
}
