// Functions that leave through a table of function pointers, in a C++
// file (exception tables: --returns insn by default).  dispatch ends in
// "lea table(%rip),%rdx; and $3,%eax; jmp *(%rdx,%rax,8)" and has no
// return instruction of its own; dispatch_null reads its table into a
// register, tests it, and jumps through it (a null entry falls back to a
// direct call); sw is a switch whose every case tail-calls.  Those three
// are followed to the functions their tables name.  hooked jumps through a
// table the program may change, apply through one it is given: their
// returns cannot be seen.  Prints the counts it made and a checksum.
// Usage: tables [N]  (default 1000 calls of each)
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

extern "C" {
typedef long (*op_fn)(long);
__attribute__((noinline)) long op_add(long x) { return x + 3; }
__attribute__((noinline)) long op_mul(long x) { return x * 5; }
__attribute__((noinline)) long op_xor(long x) { return x ^ 0x55; }
__attribute__((noinline)) long op_neg(long x) { return -x; }
__attribute__((noinline)) long fallback(long x) { return x - 1; }

__attribute__((noinline)) long dispatch(unsigned k, long x)
{
	static const op_fn table[] = { op_add, op_mul, op_xor, op_neg };

	return table[k & 3](x);
}

__attribute__((noinline)) long dispatch_null(unsigned k, long x)
{
	static const op_fn table[] = { op_add, nullptr, op_mul, nullptr };
	op_fn f = table[k & 3];

	if (!f)
		return fallback(x);
	return f(x);
}

__attribute__((noinline)) long sw(unsigned k, long x)
{
	switch (k & 7) {
	case 0: return op_add(x);
	case 1: return op_mul(x);
	case 2: return op_xor(x);
	case 3: return op_neg(x);
	case 4: return op_add(x + 1);
	case 5: return op_mul(x + 1);
	case 6: return op_xor(x + 2);
	default: return op_neg(x + 3);
	}
}

op_fn hooks[4] = { op_add, op_mul, op_xor, op_neg };	// writable: may change

__attribute__((noinline)) long hooked(unsigned k, long x)
{
	return hooks[k & 3](x);
}

__attribute__((noinline)) long apply(const op_fn *t, unsigned k, long x)
{
	return t[k & 3](x);
}
}

// Exception tables for the file, and a value nothing can fold.
__attribute__((noinline)) static long checked(long x)
{
	if (x < 0)
		throw std::invalid_argument("negative");
	return x;
}

int main(int argc, char **argv)
{
	static const op_fn given[] = { op_neg, op_xor, op_mul, op_add };
	long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;

	for (long i = 0; i < n; i++) {
		try {
			long v = checked(i);

			sum += dispatch((unsigned)i, v) + dispatch_null((unsigned)i, v) +
			       sw((unsigned)i, v) + hooked((unsigned)i, v) + apply(given, (unsigned)i, v);
		} catch (const std::exception &) {
			sum--;
		}
	}
	printf("{\"dispatch\": %ld, \"dispatch_null\": %ld, \"sw\": %ld, \"hooked\": %ld, "
	       "\"apply\": %ld, \"sum\": %ld}\n", n, n, n, n, n, sum);
	return 0;
}
