/*
 * arch.h - the machine orbit-trace runs on and traces: what the rest of
 * lib/ asks of it, implemented once per machine in lib/arch/$(uname -m)/
 * (the Makefile picks the folder and refuses a machine without one).
 *
 * Contract: every function here is pure (no I/O, no printing, no exit) and
 * answers for the build's own machine; files of another machine are
 * refused by their ELF header (OT_ARCH_EM) before anything here reads them.
 * A machine's folder provides:
 *  - arch_defs.h: its name, ELF machine and relocation types, its
 *    registers' perf numbers (asm/perf_regs.h: struct ot_usdt_arg.reg),
 *    the stack pointer's distance from the CFA at a function's entry, and
 *    a rel8-style short branch's reach;
 *  - the functions below (registers: regs.c; decoding: decode.c; the
 *    machine itself: machine.c);
 *  - retsite.c, lib/symbols/retsite.h's contract: how a function leaves;
 *  - where arch_defs.h says OT_ARCH_INJECT, the inject backend's
 *    relocator (relocate.h), operand reader (operand.h), trampoline
 *    encodings (trampcode.h) and runtime (inject_rt.S, laid out by
 *    lib/inject/inject_layout.h);
 *  - ptregs.h: ptrace's registers (struct user_regs_struct) read and set
 *    by what they mean (PC, thread pointer, a system call's), for
 *    lib/process/tracee.c and lib/inject.
 * x86_64 is the only folder so far; an aarch64 one implements the same.
 */
#ifndef OT_ARCH_H
#define OT_ARCH_H

#include "arch_defs.h"	/* lib/arch/$(ARCH)/arch_defs.h */
#include "symbols/usdt.h"

#include <stddef.h>
#include <stdint.h>

/* ---- registers ---- */

/*
 * One USDT operand as the machine's assembler writes it (what follows
 * "N@" in a .note.stapsdt argument, at p; spec is the whole operand, for
 * messages) into a, whose size and sign the caller has set: 0, or -EINVAL
 * with why.
 */
int ot_arch_usdt_operand(const char *spec, const char *p, struct ot_usdt_arg *a, char *why,
			 size_t whylen);

/* The register's name as a USDT operand writes it whole ("rax"), or "?". */
const char *ot_arch_usdt_reg_name(int reg);

/* The register's name as perf's probe syntax writes it ("ax"), or NULL. */
const char *ot_arch_perf_reg_name(int reg);

/* A DWARF register number as perf numbers it (ot_usdt_arg.reg), or -1. */
int ot_arch_dwarf_reg(unsigned dwreg);

/* Where the kernel's struct pt_regs keeps the register (perf number), in
 * bytes (what a BPF program reads), or -1 for a number no operand has. */
int ot_arch_pt_regs_off(int reg);

/*
 * A perf sample's user registers (OT_ARCH_SAMPLE_REGS, OT_ARCH_NSAMPLE_REGS
 * of them, in bit order) at r: into regs by perf number (what a USDT
 * operand reads; OT_ARCH_NREGS of them), args the C ABI's first
 * OT_ARCH_NARGS, *rc the return value's register, *sp the stack pointer.
 */
void ot_arch_sample_regs(const uint64_t *r, uint64_t *regs, uint64_t *args, uint64_t *rc,
			 uint64_t *sp);

/* ---- the machine itself ---- */

/* The cycle counter (x86's TSC), or 0 where there is none the clock
 * can be fitted to. */
uint64_t ot_arch_cycles(void);

/* System call nr with three arguments, made directly (no libc function
 * runs: a -f term may name them): its raw return. */
long ot_arch_syscall3(long nr, long a, long b, long c);

/* ---- instruction decoding (lib/symbols/coderefs) ---- */

/*
 * Whether the 4 bytes at b[q] of code can be a displacement that some
 * instruction adds to the address after them (what bytes before them
 * say; b[0] has none known: 1).
 */
int ot_arch_rel32_field(const uint8_t *b, size_t q);

/* The byte at b[0] (b[1] readable) as a short branch at address at: 1
 * with its *target, else 0.  It reaches OT_ARCH_REL8_REACH either way. */
int ot_arch_rel8_branch(const uint8_t *b, uint64_t at, uint64_t *target);

/*
 * The direct branches (jump, call) among the instructions of code[0..len)
 * at address addr that start before to, decoded from its start: 1 with
 * the first landing in (lo, hi) in *target, *from; 0 none; -1 when the
 * code cannot be decoded up to to.
 */
int ot_arch_branch_inside(const uint8_t *code, size_t len, uint64_t addr, uint64_t to,
			  uint64_t lo, uint64_t hi, uint64_t *target, uint64_t *from);

#endif
