/*
 * Functions that leave by a tail call, for --returns insn: to a function
 * of the same file (crc -> crc_impl, which is not traced), to a libc
 * function through the PLT (pagesize -> sysconf) and through a pointer
 * (dispatch_ptr -> *fn).  And lockinc, whose first instruction has a LOCK
 * prefix, which the kernel will not probe.  Prints a checksum of
 * everything it computed, so that a changed run shows.
 * Usage: tails [N [ready]]  (default 1000 calls of each; with "ready" it
 * first prints "ready PID", for a tracer to attach with -p)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long crc(long x);
long crc_impl(long x, long seed);
long pagesize(long x);
long dispatch_ptr(long (*fn)(long), long x);
long square(long x);
long lockinc(void);

long counter;

/* The LOCK prefix on the first instruction: the kernel's uprobe refuses
 * such an instruction (it cannot single-step it out of line). */
__asm__(".text\n.globl lockinc\n.type lockinc,@function\nlockinc:\n"
	"\tlock incq counter(%rip)\n\tmovq counter(%rip), %rax\n\tret\n"
	".size lockinc, .-lockinc\n");

__attribute__((noinline)) long crc_impl(long x, long seed)
{
	long v = seed;
	int i;

	for (i = 0; i < 8; i++)
		v = (v << 5) ^ (v >> 3) ^ ((x >> (i * 8)) & 0xff);
	return v;
}

__attribute__((noinline)) long crc(long x)
{
	return crc_impl(x, 0x1234);	/* jmp crc_impl */
}

__attribute__((noinline)) long pagesize(long x)
{
	(void)x;
	return sysconf(_SC_PAGESIZE);	/* jmp sysconf@plt */
}

__attribute__((noinline)) long square(long x)
{
	return x * x;
}

__attribute__((noinline)) long dispatch_ptr(long (*fn)(long), long x)
{
	return fn(x);			/* jmp *%rdi */
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i, sum = 0;
	long (*volatile fn)(long) = square;
	long page = sysconf(_SC_PAGESIZE);

	if (argc > 2 && !strcmp(argv[2], "ready")) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
	}
	for (i = 0; i < n; i++) {
		sum += crc(i);
		sum += pagesize(i) - page;
		sum += dispatch_ptr(fn, i);
		sum += square(i + 1);	/* square at two depths under dispatch_ptr */
		sum += lockinc();
	}
	printf("sum=%ld counter=%ld\n", sum, counter);
	return 0;
}
