/*
 * arch_defs.h - x86-64's constants for lib/arch/arch.h (whose contract
 * they follow): its names, ELF numbers, perf register numbers.
 */
#ifndef OT_ARCH_DEFS_H
#define OT_ARCH_DEFS_H

#include <elf.h>

#define OT_ARCH_NAME		"x86-64"	/* as messages name the machine */
#define OT_ARCH_EM		EM_X86_64

/* Relocation types: an address of the file (plus the addend), an ifunc's
 * resolver, a symbol's 64-bit address, a GOT slot, a PLT slot. */
#define OT_ARCH_R_RELATIVE	R_X86_64_RELATIVE
#define OT_ARCH_R_IRELATIVE	R_X86_64_IRELATIVE
#define OT_ARCH_R_ABS64		R_X86_64_64
#define OT_ARCH_R_GLOB_DAT	R_X86_64_GLOB_DAT
#define OT_ARCH_R_JUMP_SLOT	R_X86_64_JUMP_SLOT

/*
 * Registers by their perf numbers (asm/perf_regs.h, PERF_REG_X86_*):
 * ax 0, bx 1, cx 2, dx 3, si 4, di 5, bp 6, sp 7, ip 8, r8..r15 16..23.
 */
#define OT_ARCH_NREGS		24
#define OT_ARCH_REG_SP		7
#define OT_ARCH_REG_IP		8

/* The stack pointer at a function's first instruction is the CFA - 8
 * (the return address is the only thing pushed). */
#define OT_ARCH_CFA_FROM_SP	8

/* A short branch (jmp, jcc, loop, jrcxz rel8) reaches -128..+127 from
 * its 2-byte end: within 130 bytes of its start. */
#define OT_ARCH_REL8_REACH	130

#endif
