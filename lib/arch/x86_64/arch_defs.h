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

/* The registers that pass integer arguments, by perf number and by name:
 * the C ABI's (System V), and Go's register ABI's (Go 1.17). */
#define OT_ARCH_NARGS		6
#define OT_ARCH_ARG_REGS_PERF	{ 5, 4, 3, 2, 16, 17 }
#define OT_ARCH_ARG_REGS	"rdi, rsi, rdx, rcx, r8, r9"
#define OT_ARCH_NGO_ARGS	9
#define OT_ARCH_GO_ARG_REGS_PERF { 0, 1, 2, 5, 4, 16, 17, 18, 19 }
#define OT_ARCH_GO_ARG_REGS	"rax, rbx, rcx, rdi, rsi, r8, r9, r10, r11"

/* The user registers a perf sample carries for values (sample_regs_user):
 * every integer register, for a USDT operand in any of them: ax, bx, cx,
 * dx, si, di, bp, sp, then r8 to r15 (perf numbers 0-7 and 16-23). */
#define OT_ARCH_SAMPLE_REGS	(0xffull | 0xffull << 16)
#define OT_ARCH_NSAMPLE_REGS	16

/* Distance between the SP a return probe (uretprobe) sees and the SP its
 * call's entry probe saw: `ret` pops the return address (8 bytes). */
#define OT_ARCH_RET_SP_DELTA	8

/* The dynamic loader, run as "ld.so --list" for a program's libraries;
 * Debian's multiarch directories, searched first after it. */
#define OT_ARCH_LDSO		"/lib64/ld-linux-x86-64.so.2"
#define OT_ARCH_LIB_DIRS	"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"

/* --backend inject (trampolines patched into the process: the relocator,
 * the operand reader, the runtime here, lib/inject, lib/process/tracee)
 * exists for this machine: 1.  A machine without it says 0, and inject
 * is refused by name before it touches a process. */
#define OT_ARCH_INJECT		1

/* A breakpoint: its byte, and how far past it the program counter is
 * when it traps (ptregs.h reads the PC). */
#define OT_ARCH_TRAP_BYTE	0xcc
#define OT_ARCH_TRAP_ADVANCE	1

/* The line of /proc/PID/status that lists a thread's hardware features
 * ("shstk": a CET shadow stack, which a moved return address would kill). */
#define OT_ARCH_THREAD_FEATURES	"x86_Thread_features:"

/* DWARF's numbering of the stack pointer and of the return address's
 * column (the psABI's rsp 7, RA 16), and CFI's data alignment factor. */
#define OT_ARCH_DWARF_SP	7
#define OT_ARCH_DWARF_RA	16
#define OT_ARCH_DWARF_DATA_ALIGN (-8)

/* A short branch (jmp, jcc, loop, jrcxz rel8) reaches -128..+127 from
 * its 2-byte end: within 130 bytes of its start. */
#define OT_ARCH_REL8_REACH	130

#endif
