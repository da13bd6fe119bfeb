/*
 * reloc_diff.h - the relocator's differential fuzzer (lib/inject/relocate.c).
 *
 * Random valid x86-64 "functions" are laid out at fixed addresses,
 * relocated as --backend inject would patch them (ot_relocate, then a
 * jmp rel32 at addr + patch_at to the trampoline), and both versions are
 * run in a sandbox from the same registers and memory: the original at its
 * address, the patched function and its trampoline at theirs.  They must
 * leave by the same exit with the same registers, arithmetic flags, data
 * and stack, or fault the same way (a fault in the trampoline counted at
 * the instruction it was moved from), or both not finish.  One difference
 * is allowed, the price of a call moved as push + jmp: an indirect call
 * that faults before it pushes (a target that is not canonical) faults
 * after the push in the trampoline.  Every refusal must be one relocate.h
 * lists and must be true of the sequence; a sequence the contract says to
 * refuse must be refused.
 *
 * Three parts: reloc_gen.c makes a sequence and knows what the contract
 * says of it (pure); reloc_sandbox.c runs code at fixed addresses in a
 * forked worker; reloc_diff.c drives both and compares.  The short run is
 * tests/unit/test_relocate_diff.c, the long one `make fuzz-reloc`.
 */
#ifndef OT_RELOC_DIFF_H
#define OT_RELOC_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- the driver (reloc_diff.c) ---- */

/* Why ot_relocate refused, as relocate.c words it: the contract's list. */
enum rd_reason {
	RR_SHORT, RR_UNDECODED, RR_NOFIT, RR_PUSHF, RR_LOOP, RR_CALL_RSP, RR_FAR_BRANCH,
	RR_CALL_FORM, RR_FAR_RIP, RR_BRANCH_FORM, RR_CALL_MID, RR_FAR_BACK,
	RR_INTO_PATCH, RR_OPSIZE, RR_N
};

struct rd_stats {
	uint64_t sequences;
	uint64_t relocated;		/* accepted, then run side by side */
	uint64_t refused[RR_N];
	uint64_t exits, faults, unfinished;	/* outcomes of the relocated runs */
	uint64_t stepped;		/* pairs redone single-stepped: one side spun */
	uint64_t pushed_faults;		/* of the faults: a moved indirect call's, after its push */
	uint64_t jumped_inside;		/* not compared: the original jumped into the patched
					 * bytes indirectly (outside the contract) */
	uint64_t misread;		/* not compared: the CPU ran instructions capstone
					 * does not see in those bytes */
	uint64_t moved_call, moved_rip, moved_branch, endbr;	/* accepted with ... */
	uint64_t moved_out;		/* ... a moved branch that leaves the function */
	uint64_t to_entry, to_tail;	/* ... a branch to the entry (or the patch) from
					 * the rest, a branch to the first byte after it */
	uint64_t failures;
	uint64_t done;			/* sequences finished (progress) */
};

/* The text relocate.c gives for reason r. */
const char *rd_reason_text(int r);

#define RD_VERBOSE	1	/* every sequence, its trampoline and outcomes */
#define RD_PROGRESS	2	/* a line a minute */

/*
 * Run sequences first .. first + count - 1 of seed in jobs forked
 * workers (the sandbox maps fixed addresses and takes signals: never in
 * the caller).  Each failure is printed to out with the seed, the bytes
 * and the command that reproduces it.  Returns the number of failures (a
 * worker that died or could not set up its sandbox counts as one), or
 * -errno if no worker could start; *st sums the workers' counts.
 */
long rd_run(uint64_t seed, uint64_t first, uint64_t count, int jobs, int flags, FILE *out,
	    struct rd_stats *st);

/* ---- generation (reloc_gen.c) ---- */

#define RD_MAX_ITEMS	40
#define RD_MAX_CODE	640

/* Where the sandbox puts things: one 8 GiB-aligned window, so that the
 * seccomp filter knows sandbox code by the top 31 bits of its address,
 * and so that 32-bit truncations of these addresses (addr32 forms) land
 * on nothing (not even ASan's shadow of low memory, 0x7fff8000-0x8fff7000). */
#define RD_WINDOW	0x300000000000ull
#define RD_FN		(RD_WINDOW + 0x120000000ull)	/* functions: 2 pages */
#define RD_FN_SPAN	0x2000ull
#define RD_STUBS	(RD_FN - 0x10000)		/* exits and callees within rel32 */
#define RD_DATA		(RD_FN + 0x100000)		/* what RIP operands and rbx/rbp reach */
#define RD_DATA_LEN	0x1000ull
#define RD_FAR_DATA	(RD_FN + 0x80000000ull - 0x400000)	/* reachable from RD_FN ... */
#define RD_FAR_DATA_LEN	0x100ull
#define RD_FAR_CODE	(RD_FN - 0x80000000ull + 0x400000)	/* ... but not from every trampoline */
#define RD_STACK	(RD_FN - 0x300000)
#define RD_STACK_LEN	0x2000ull
#define RD_STACK_TOP	(RD_STACK + 0x1800)		/* rsp at entry; above it the caller's */
#define RD_NTRAMP	4

extern const uint64_t rd_tramp_page[RD_NTRAMP];

/* The exits a run can leave by: each an ud2 at its own address. */
enum { EX_FALL, EX_NEAR0, EX_NEAR1, EX_RET, EX_STRAY, EX_STAT0, EX_STAT1, EX_FAR, RD_NEXITS };
/* Callees: each returns (after recording its return address). */
enum { CA_NEAR, CA_NEAR2, CA_STAT, CA_STAT2, CA_FAR, RD_NCALLEES };

struct rd_item {
	uint8_t b[16];
	uint8_t len;
	uint8_t kind;		/* IK_PLAIN, IK_BRANCH (relative), IK_RIP (RIP/EIP operand) */
	uint8_t form;		/* branches: BF_* */
	uint8_t rel_off, rel_size;	/* the field the target is written into */
	uint8_t tkind;		/* TG_*: what it aims at */
	uint16_t targ;
	uint16_t flags;		/* IF_*: what the contract says of this instruction */
	uint64_t at, dest;	/* laid out: its address, its target */
};

enum { IK_PLAIN, IK_BRANCH, IK_RIP };
enum { BF_JMP8, BF_JMP32, BF_JCC8, BF_JCC32, BF_CALL32, BF_LOOP8 };
enum {
	TG_NONE, TG_ENTRY, TG_PATCH, TG_MIDPATCH, TG_TAIL, TG_ITEM, TG_IN_ENDBR, TG_EXIT,
	TG_CALLEE, TG_DATA, TG_FAR_DATA, TG_SLOT
};
#define IF_CALL		0x001	/* capstone's call group */
#define IF_PUSHF	0x002
#define IF_LOOP		0x004	/* loop, loope, loopne, jrcxz, jecxz */
#define IF_CALL_RSP	0x008	/* a call with an operand using rsp */
#define IF_CALL_FORM	0x010	/* a call neither e8 nor ff /2 */
#define IF_FAR_CALL	0x020	/* lcall: never runs (it would load a code segment) */
#define IF_BRANCH_FORM	0x040	/* a jcc with a prefix */
#define IF_EIP		0x080	/* addr32 RIP-relative (EIP-relative) */
#define IF_JMP		0x100	/* a relative jmp (not jcc) */
#define IF_FLOW		0x200	/* may not fall through: a branch, call, ret */
#define IF_OPSIZE	0x400	/* a branch with 0x66 and no REX.W (16-bit on AMD) */

/* Registers in encoding order: rax rcx rdx rbx rsp rbp rsi rdi r8..r15. */
struct rd_regs {
	uint64_t gpr[16];
	uint64_t flags;
};

struct rd_seq {
	uint64_t seed;
	uint64_t addr, tramp;	/* the function's address, the trampoline's */
	int endbr;
	size_t n;
	struct rd_item it[RD_MAX_ITEMS];
	size_t size;		/* bytes of the function */
	size_t patch_at, tail;	/* what the patch must replace: [patch_at, tail) */
	size_t first, ncovered;	/* the items in it: it[first .. first + ncovered) */
	uint8_t code[RD_MAX_CODE];
	uint64_t exit[RD_NEXITS], callee[RD_NCALLEES];
	struct rd_regs regs;
	uint64_t mem_seed;	/* the data and stack contents */
};

/* A sequence from its seed: decodable, safe to run in the sandbox. */
void rd_generate(uint64_t seed, struct rd_seq *s);

/*
 * What the contract says of s, worked out from the generator's own layout
 * and targets: *holds gets bit r (enum rd_reason) for every refusal that
 * would be true of s, *must those that oblige ot_relocate to refuse it.
 */
void rd_reasons(const struct rd_seq *s, uint32_t *holds, uint32_t *must);

/* The stubs' code (ud2, callees) at the addresses s names. */
void rd_write_stubs(const struct rd_seq *s, uint8_t *fn_page);
void rd_write_static_stubs(uint8_t *stubs, uint8_t *far);

/* The initial data and stack (the same for both runs). */
void rd_fill_memory(const struct rd_seq *s, uint8_t *data, uint8_t *far_data, uint8_t *stack);

/* Print s's bytes and disassembly (at its address) to out. */
void rd_dump(FILE *out, const char *what, const uint8_t *code, size_t len, uint64_t addr);

/* ---- the sandbox (reloc_sandbox.c) ---- */

enum { RK_EXIT, RK_FAULT, RK_UNFINISHED, RK_TIMEOUT };

struct rd_outcome {
	int kind;
	int exit;		/* RK_EXIT: which */
	int sig, code;		/* RK_FAULT: the signal */
	uint64_t addr;		/* and its si_addr */
	uint64_t rip;
	uint64_t steps;
	struct rd_regs regs;
};

struct rd_space {
	uint8_t *fn, *stubs, *far_code, *data, *far_data, *stack;
	uint8_t *tramp[RD_NTRAMP];
};

/* Map the window, install the handlers, the timer and the seccomp filter
 * that refuses every system call made from the window.  In a worker only:
 * 0 or -errno. */
int rd_sandbox_init(struct rd_space *sp);

/* Run from regs at rip until an exit, a fault, step_limit single steps
 * (0: no stepping, but a run that spins for a millisecond is RK_TIMEOUT). */
void rd_sandbox_run(const struct rd_regs *regs, uint64_t rip, uint64_t step_limit,
		    const uint64_t *exits, struct rd_outcome *o);

/* Single-stepped runs from now on write the address each step stops at
 * into buf[0 .. min(o->steps, cap)); NULL stops it. */
void rd_sandbox_trace(uint64_t *buf, size_t cap);

#endif
