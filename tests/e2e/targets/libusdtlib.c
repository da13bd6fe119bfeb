/* A shared library with a probe of its own (usdt:libusdtlib.so:otlib:work). */
#include <sys/sdt.h>

long usdtlib_work(long x);

static volatile long sink;

__attribute__((noinline)) long usdtlib_work(long x)
{
	sink += x;
	DTRACE_PROBE1(otlib, work, x);
	return sink;
}
