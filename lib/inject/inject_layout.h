/*
 * inject_layout.h - the memory --backend inject puts in a traced process,
 * shared by the runtime that runs there (lib/inject/inject_rt.S, through cpp) and
 * the C code that lays it out and reads it (lib/inject/inject*.c,
 * lib/probes/backend_inject.c).  Numbers only: no C here.  Each number is
 * defined once: the assembly uses these names, never the values.
 *
 * Three kinds of region:
 *   code     one per mapped file with patched functions, within 2 GiB of
 *            its text: the entry trampolines (and, in the first one, the
 *            runtime itself); private, read and execute.
 *   private  anonymous and private to the process (copied by fork, so a
 *            forked child returns through its copied frames): per thread
 *            a slot, keyed by its thread pointer, holding its table of
 *            hijacked return addresses and the unwind entry (FDE) that
 *            lets an unwinder see through them.
 *   shared   a memfd mapped by the process and by orbit-trace: a header,
 *            then one ring area per live thread, claimed by the thread's
 *            first hit (new threads need no help from the tracer).
 */
#ifndef OT_INJECT_LAYOUT_H
#define OT_INJECT_LAYOUT_H

/*
 * Code: a region starts with pointer slots the trampolines jump through
 * (the runtime may be 2 GiB away from them); the first region then holds
 * its name, where to find its recovery table, and the runtime.
 */
#define OT_INJ_REG_ENTRY_SLOT	0	/* u64 &ot_inj_rt_entry */
#define OT_INJ_REG_FDE_SLOT	8	/* u64 &ot_inj_rt_find_fde */
#define OT_INJ_REG_NAME		16	/* "orbit-trace\0": the memfd's name, and how a
					 * later orbit-trace knows the region */
#define OT_INJ_REG_RECOVERY	32	/* u64 the recovery table, or 0 */
#define OT_INJ_REG_POINT_SLOT	40	/* u64 &ot_inj_rt_point */
#define OT_INJ_REG_EXIT_SLOT	48	/* u64 &ot_inj_rt_exit */
#define OT_INJ_REG_HEAD		64

/*
 * The recovery table, in the first code region: what a later orbit-trace
 * needs to take everything back from a process whose tracer was killed
 * (orbit-trace --restore).  A header, then per code region {u64 addr,
 * u64 size}, then per patch {u64 addr, u8 orig[8], u8 jmp[8]}, then per
 * USDT semaphore raised {u64 addr} (a u16 counter).
 */
#define OT_INJ_R_MAGIC		0x3176637274696f74ULL	/* "toirtcv1" */
#define OT_INJ_R_MAGIC_OFF	0	/* u64 */
#define OT_INJ_R_TRACER		8	/* u32 the orbit-trace that wrote it */
#define OT_INJ_R_NPATCH		12	/* u32 */
#define OT_INJ_R_NREG		16	/* u32 */
#define OT_INJ_R_NSEMA		20	/* u32 USDT semaphores raised, after the patches */
#define OT_INJ_R_PRIV		24	/* u64 the private region */
#define OT_INJ_R_PRIV_LEN	32	/* u64 */
#define OT_INJ_R_SHARED		40	/* u64 the shared region */
#define OT_INJ_R_SHARED_LEN	48	/* u64 */
#define OT_INJ_R_RET		56	/* u64 where hijacked frames return */
#define OT_INJ_R_HEAD		64
#define OT_INJ_R_REG_SIZE	16
#define OT_INJ_R_PATCH_SIZE	24
/* The whole table (its name first, 8 bytes), for the first region's size. */
#define OT_INJ_R_SEMA_SIZE	8
#define OT_INJ_R_SIZE(nreg, npatches, nsemas) \
	(8 + OT_INJ_R_HEAD + (nreg) * OT_INJ_R_REG_SIZE + (npatches) * OT_INJ_R_PATCH_SIZE + \
	 (nsemas) * OT_INJ_R_SEMA_SIZE)

/* Private: thread slots, open addressing on the thread pointer. */
#define OT_INJ_SLOT_BITS	11
#define OT_INJ_NSLOTS		(1 << OT_INJ_SLOT_BITS)
#define OT_INJ_SLOT_SHIFT	6
#define OT_INJ_SLOT_SIZE	(1 << OT_INJ_SLOT_SHIFT)
#define OT_INJ_PS_KEY		0	/* u64 thread pointer (%fs base); 0: free */
#define OT_INJ_PS_TID		8	/* u32 the thread id its ring area is for */
#define OT_INJ_PS_BUSY		12	/* u32 in the runtime (a signal handler's hits skip) */
#define OT_INJ_PS_AREA		16	/* u64 its ring area; 0 none (yet) */
#define OT_INJ_PS_TABLE		24	/* u64 its return table (set by the tracer) */
#define OT_INJ_PS_COUNT		32	/* u64 entries in the table */
#define OT_INJ_PS_FDE		40	/* u64 its unwind entry (set by the tracer) */
/* u64 the stack pointer of the runtime call that set PS_BUSY: a later
 * call above it, not on the signal stack, finds that call left by a
 * signal handler's longjmp (its frame gone) and resets the flag. */
#define OT_INJ_PS_BUSY_SP	48

/*
 * Per slot, the return table: open addressing on the return address's
 * stack slot (its address >> OT_INJ_KEY_SHIFT, so a thread's frames sit
 * together).  An entry: the slot's address, the return address it held,
 * the function, and up to three functions that tail-called on from it
 * (id + 1).
 */
#define OT_INJ_TABLE_BITS	12
#define OT_INJ_TABLE_MASK	((1 << OT_INJ_TABLE_BITS) - 1)
#define OT_INJ_KEY_SHIFT	3
#define OT_INJ_ENT_SHIFT	5
#define OT_INJ_ENT_SIZE		(1 << OT_INJ_ENT_SHIFT)
#define OT_INJ_TABLE_SIZE	(OT_INJ_ENT_SIZE << OT_INJ_TABLE_BITS)
#define OT_INJ_TABLE_MAX	3072	/* past this, returns go unseen (noret) */
#define OT_INJ_E_KEY		0
#define OT_INJ_E_RET		8
#define OT_INJ_E_FUNC		16
#define OT_INJ_E_TAIL0		20
#define OT_INJ_E_TAIL1		24
#define OT_INJ_E_TAIL2		28

#define OT_INJ_FDE_SIZE		160
#define OT_INJ_PRIV_FDES	(OT_INJ_NSLOTS * OT_INJ_SLOT_SIZE)
#define OT_INJ_PRIV_TABLES	(OT_INJ_PRIV_FDES + OT_INJ_NSLOTS * OT_INJ_FDE_SIZE)
#define OT_INJ_PRIV_SIZE	(OT_INJ_PRIV_TABLES + OT_INJ_NSLOTS * OT_INJ_TABLE_SIZE)

/* Shared: the header. */
#define OT_INJ_MAGIC		0x31746a6e69746fULL	/* "otinjt1" */
#define OT_INJ_H_MAGIC		0	/* u64 */
#define OT_INJ_H_ENABLED	8	/* u32 entries are recorded (returns always are) */
#define OT_INJ_H_NAREAS		12	/* u32 */
#define OT_INJ_H_NO_SLOT	16	/* u64 hits of threads without a slot */
#define OT_INJ_H_NO_AREA	24	/* u64 hits of threads without a ring area */
#define OT_INJ_H_REENTERED	32	/* u64 hits of handlers, in a thread with no area yet */
#define OT_INJ_H_RESET		40	/* u64 runtime calls left by a longjmp (A_RESET), no area */
/*
 * A robust pthread mutex orbit-trace holds while it traces: its first
 * u32, the futex word, is the holder's thread id; when orbit-trace dies,
 * however it dies, the kernel clears those bits (FUTEX_OWNER_DIED), and
 * the runtime stops recording.
 */
#define OT_INJ_H_OWNER		64
#define OT_INJ_OWNER_TID	0x3fffffff
/* u32 1 while a thread takes a return address from another thread's
 * table (a stack that moved between threads): the others keep out. */
#define OT_INJ_H_STEAL		128
/* u32 the drain's doorbell (a futex): 0 armed, 1 rung by a thread whose
 * ring passed a quarter, 2 heard by the tracer's waiter; the drain arms
 * it again once it has read the rings. */
#define OT_INJ_H_DOORBELL	136
/*
 * Threads of the process in vfork (posix_spawn, vfork): their child runs
 * on their thread pointer, in this memory, until it execs or exits, and
 * is another process.  H_VFORKS counts the thread pointers set among the
 * OT_INJ_VFORK_MAX at H_VFORK_TP (the tracer sets one at the vfork,
 * before the child runs, and clears it when the parent goes on); while
 * it is not 0 every hit compares its thread pointer with them, and a
 * child's hit records nothing and is counted at H_VFORK_HITS.
 */
#define OT_INJ_H_VFORKS		144	/* u32 */
#define OT_INJ_H_VFORK_HITS	152	/* u64 */
#define OT_INJ_H_VFORK_TP	192	/* u64[OT_INJ_VFORK_MAX], 0 free */
#define OT_INJ_VFORK_MAX	16
#define OT_INJ_HDR_SIZE		4096

/* Shared: a ring area (4 KiB of counters, then the ring). */
#define OT_INJ_A_STATE		0	/* u32 0 free, 1 used */
#define OT_INJ_A_TID		4	/* u32, written last when claimed */
#define OT_INJ_A_HEAD		8	/* u64 records written (the thread) */
#define OT_INJ_A_PENDING	16	/* u64 dropped since the last marker */
#define OT_INJ_A_LOST		24	/* u64 dropped in all (the tracer reads it) */
#define OT_INJ_A_NORET		32	/* u64 entries whose return goes unseen */
#define OT_INJ_A_REENTERED	40	/* u64 hits of a signal handler inside the runtime */
#define OT_INJ_A_PID		48	/* u32 the thread's process (getpid at claim) */
#define OT_INJ_A_RESET		56	/* u64 runtime calls a signal handler's longjmp left */
#define OT_INJ_A_TAIL		64	/* u64 records read (the tracer; own line) */
#define OT_INJ_A_RING		4096

/*
 * A record: 16 bytes, {u64 time; u64 word}, the word being
 * sp << 16 | kind << 14 | function (functions < 16384).  A marker's
 * "sp" is the area's A_LOST when it was written: the records dropped
 * before it, in all.
 */
#define OT_INJ_REC_SHIFT	4
#define OT_INJ_REC_SIZE		(1 << OT_INJ_REC_SHIFT)
#define OT_INJ_W_SP_SHIFT	16	/* the stack slot (a marker: its count) */
#define OT_INJ_W_KIND_SHIFT	14	/* OT_INJ_K_* */
#define OT_INJ_W_KIND_MASK	3
#define OT_INJ_W_FUNC_MASK	0x3fff	/* the function's number */
#define OT_INJ_K_ENTRY		0
#define OT_INJ_K_RETURN		1
#define OT_INJ_K_LOST		2
#define OT_INJ_K_TAIL		3	/* an entry by a jump from a traced function */
#define OT_INJ_MAX_FUNCS	16383

/*
 * Values (NAME(argN), NAME%ret): the number a trampoline puts in eax is
 * the function's (bits 0-13) with what it records: how many argument
 * registers at the entry (0-4), each one's index (0 rdi, 1 rsi, 2 rdx,
 * 3 rcx, 4 r8, 5 r9), and whether rax at its return.  A function that
 * records none has those bits 0 and costs what it did before.
 */
#define OT_INJ_F_NVALS_SHIFT	14
#define OT_INJ_F_NVALS_MASK	7
#define OT_INJ_F_RET		(1 << 17)
#define OT_INJ_F_REG_SHIFT	18	/* 3 bits per value */
#define OT_INJ_F_MAX_VALS	4
/* A USDT site's: its value is a string's address, whose bytes follow it
 * (OT_INJ_V_STR records, read with process_vm_readv: an address the
 * process cannot read fails, it does not fault). */
#define OT_INJ_F_STR		(1 << 30)
/*
 * Returns seen at return instructions, not by moving return addresses
 * (a process whose runtime walks its stacks: V8, the JVM...): at the
 * entry, a function's number with OT_INJ_F_EXITS records the entry and
 * moves nothing.  Each of its return instructions is patched like a USDT
 * site, its trampoline calling the runtime's exit with the number (bits
 * 0-13, OT_INJ_F_RET to record rax) and OT_INJ_X_TAIL when the
 * instruction is a tail callee's: a return record, or with X_TAIL one of
 * kind OT_INJ_K_TAIL, at the stack pointer the `ret` pops from (the
 * entry's).  The numbers of such functions are their own plus the
 * tracer's offset (lib/rings/drain's thread exits), which tells the
 * reader what the kinds mean.
 */
#define OT_INJ_F_EXITS		(1u << 31)
#define OT_INJ_X_TAIL		(1 << 14)
/* Calls at one return instruction: its function's and its tail callers'. */
#define OT_INJ_EXIT_IDS		4
#define OT_INJ_STR_MAX		64
/*
 * A value record: {u64 value; u64 word}, the word a marker's kind with
 * the function bits V (never 0, a marker's): 1 + j for the entry's value
 * j, OT_INJ_V_RET for the return's.  The entry's first value comes just
 * before its entry record, the others just after it; the return's value
 * just before its return record.  A record lost between them is reported
 * by a marker before the next one, which the reader takes as "nothing
 * pending".
 */
#define OT_INJ_V_RET		5
/* After a string's address (OT_INJ_F_STR): its bytes, 8 per record up to
 * and with its NUL (at most OT_INJ_STR_MAX, zeros after the NUL); or one
 * OT_INJ_V_STR_BAD record when the address could not be read. */
#define OT_INJ_V_STR		6
#define OT_INJ_V_STR_BAD	7

/*
 * The runtime's frames.  Its entry and its return save the registers
 * they touch (lists in lib/inject/inject_rt.S, which checks these counts); the
 * return address's stack slot S is then this far above the stack
 * pointer:
 *   at an entry, the saved registers, then r9 and the flags, then the
 *   trampoline's return address and the rax it pushed;
 *   at a return (entered by `ret` from S, which it takes back), the
 *   saved registers, rax and r9 among them.
 */
#define OT_INJ_RT_ENTRY_NSAVED	7
#define OT_INJ_RT_ENTRY_S	((OT_INJ_RT_ENTRY_NSAVED + 4) * 8)
#define OT_INJ_RT_RET_NSAVED	9
#define OT_INJ_RT_RET_S		(OT_INJ_RT_RET_NSAVED * 8)
/*
 * At a USDT site: the trampoline moved the stack pointer past the red
 * zone (OT_INJ_PT_RED bytes, which the function may be using), pushed
 * rax, then the value when it records one, and called the runtime's
 * point, which saves what its entry saves: the value is this far above
 * its stack pointer, the site's stack pointer OT_INJ_PT_RED + 8 (+ 8
 * with a value) further.
 */
#define OT_INJ_PT_RED		128
#define OT_INJ_RT_POINT_V	((OT_INJ_RT_ENTRY_NSAVED + 3) * 8)

/* The runtime's clock. */
#define OT_INJ_CLOCK_TSC	0
#define OT_INJ_CLOCK_VDSO	1

#endif
