/*
 * A checksum of many calls, to compare a traced run with an untraced one:
 * static functions (the compiler may keep values in call-clobbered
 * registers across calls it can see into), floating point arguments and
 * results, arguments on the stack, a struct returned through memory,
 * recursion, a varargs call and flags read at a function's entry.  The same arguments always print the
 * same line.  With a second argument it first prints "ready PID" and
 * waits for SIGUSR1.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct big {
	long v[6];
};

uint64_t many(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f,
	      uint64_t g, uint64_t h);
double scale(double x, int k, float y);
struct big make_big(long s);
int rec(int n);
long vsum(int n, ...);

/*
 * cf_in and of_in read the carry and overflow flags at their entry, a
 * convention no compiler uses but hand-written code may: a tracer must
 * keep the caller's flags.  cf_via and of_via set them from their
 * argument and call in.
 */
int cf_in(void);
int of_in(void);
int cf_via(int set);
int of_via(int set);
__asm__(".text\n"
	".globl cf_in\n.type cf_in, @function\ncf_in:\n"
	"	setc %al\n	movzbl %al, %eax\n	ret\n.size cf_in, .-cf_in\n"
	".globl of_in\n.type of_in, @function\nof_in:\n"
	"	seto %al\n	movzbl %al, %eax\n	ret\n.size of_in, .-of_in\n"
	".globl cf_via\n.type cf_via, @function\ncf_via:\n"
	"	sub $8, %rsp\n	cmp $1, %edi\n	cmc\n	call cf_in\n	add $8, %rsp\n	ret\n"
	".size cf_via, .-cf_via\n"
	".globl of_via\n.type of_via, @function\nof_via:\n"
	"	sub $8, %rsp\n	mov $0x7fffffff, %eax\n	add %edi, %eax\n	call of_in\n"
	"	add $8, %rsp\n	ret\n.size of_via, .-of_via\n");

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

__attribute__((noinline)) static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

__attribute__((noinline)) uint64_t many(uint64_t a, uint64_t b, uint64_t c, uint64_t d,
					uint64_t e, uint64_t f, uint64_t g, uint64_t h)
{
	return mix(a ^ (b << 1) ^ (c << 2) ^ (d << 3), e ^ (f << 5) ^ (g << 7) ^ (h << 11));
}

__attribute__((noinline)) double scale(double x, int k, float y)
{
	return x * (double)k / 3.0 + (double)y;
}

__attribute__((noinline)) struct big make_big(long s)
{
	struct big b;
	int i;

	for (i = 0; i < 6; i++)
		b.v[i] = s * (i + 1) ^ (s >> i);
	return b;
}

__attribute__((noinline)) int rec(int n)
{
	return n <= 0 ? 1 : (rec(n - 1) * 3 + n) & 0xffff;
}

__attribute__((noinline)) long vsum(int n, ...)
{
	va_list ap;
	long s = 0;

	va_start(ap, n);
	while (n--)
		s = s * 31 + va_arg(ap, long);
	va_end(ap);
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i;
	uint64_t h = 1469598103934665603ull;
	double acc = 0;

	if (argc > 2) {
		signal(SIGUSR1, on_usr1);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		while (!go)
			pause();
	}
	for (i = 0; i < n; i++) {
		struct big b = make_big(i);
		uint64_t k = (uint64_t)i;

		h = mix(h, many(k, k + 1, k + 2, k + 3, k + 4, k + 5, k + 6, k + 7));
		acc += scale((double)(i & 1023), (int)(i & 7), (float)(i & 15) / 4.0f);
		h = mix(h, (uint64_t)(b.v[0] + b.v[5]));
		if (!(i & 63))
			h = mix(h, (uint64_t)rec((int)(i & 31)) + (uint64_t)vsum(4, i, i * 2, i * 3, 7L));
		if (!(i & 15))
			h = mix(h, (uint64_t)(cf_via((int)(i >> 4) & 1) * 2 + of_via((int)(i >> 5) & 1)));
	}
	printf("{\"calls\": %ld, \"hash\": \"%016llx\", \"acc\": %.6f}\n", n,
	       (unsigned long long)h, acc);
	return 0;
}
