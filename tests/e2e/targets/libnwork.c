/*
 * A C library a C# program calls through P/Invoke
 * (tests/e2e/targets/pinvoke.cs): nwork() from managed code, napply()
 * calling a managed delegate back, which may throw through it.
 */
long nwork(long x);
long napply(long (*cb)(long), long x);

volatile long nsink;

__attribute__((noinline)) long nwork(long x)
{
	nsink += x;
	return x * 3 + 1;
}

__attribute__((noinline)) long napply(long (*cb)(long), long x)
{
	return cb(x) + nwork(x);
}
