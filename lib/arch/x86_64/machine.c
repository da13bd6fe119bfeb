/*
 * machine.c - x86-64 itself for lib/arch/arch.h: its perf sample registers,
 * its cycle counter, a system call made without libc.
 */
#include "arch/arch.h"

void ot_arch_sample_regs(const uint64_t *r, uint64_t *regs, uint64_t *args, uint64_t *rc,
			 uint64_t *sp)
{
	int i;

	for (i = 0; i < 8; i++) {
		regs[i] = r[i];
		regs[16 + i] = r[8 + i];	/* r8..r15 */
	}
	*rc = r[0];
	args[0] = r[5];	/* rdi */
	args[1] = r[4];	/* rsi */
	args[2] = r[3];	/* rdx */
	args[3] = r[2];	/* rcx */
	args[4] = r[8];	/* r8 */
	args[5] = r[9];	/* r9 */
	*sp = r[7];
}

uint64_t ot_arch_cycles(void)
{
	return __builtin_ia32_rdtsc();
}

long ot_arch_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}
