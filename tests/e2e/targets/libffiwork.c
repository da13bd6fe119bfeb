/*
 * A C library a Lua program calls through LuaJIT's FFI
 * (tests/e2e/targets/ffi.lua): ffiwork() from a loop the JIT compiles,
 * ffiapply() calling back into Lua.
 */
long ffiwork(long x);
long ffiapply(long (*cb)(long), long x);

volatile long ffisink;

__attribute__((noinline)) long ffiwork(long x)
{
	ffisink += x;
	return x * 3 + 1;
}

__attribute__((noinline)) long ffiapply(long (*cb)(long), long x)
{
	return cb(x) + ffiwork(x);
}
