/*
 * inject.h - instrumenting a live x86-64 process in its own memory
 * (--backend inject): every thread stopped with ptrace, code regions
 * mapped within 2 GiB of the patched files, a private region for the
 * threads' tables of return addresses and a shared one (a memfd this
 * process maps too) for their rings, the runtime and trampolines written,
 * function entries patched with a jmp rel32, the threads let go.  And the
 * reverse: stopped again, every byte restored, hijacked return addresses
 * put back, what is no longer needed unmapped.  The layout is
 * lib/inject/inject_layout.h; the code run there, lib/arch/x86_64/inject_rt.S.  This file's
 * lib/inject/inject.c holds the lifecycle and the install/remove transaction;
 * the jobs it hands out are in lib/inject/inject_*.h (inject_state.h says which).
 *
 * Refusals are per function, with the reason (ot_inject_fn.refused): not
 * mapped, too short, a branch into the patch, an instruction that cannot
 * move, a thread stopped inside it, code in memory unlike the file's.
 * What makes the whole process impossible is an error with one line
 * saying why: not x86-64, already traced, seccomp, CET shadow stacks, not
 * glibc's threads, C++ exceptions with an unwinder that cannot be hooked.
 * Errors are printed here; nothing exits.
 */
#ifndef OT_INJECT_H
#define OT_INJECT_H

#include "inject_stats.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ot_usdt_arg;
struct ot_coderefs;

struct ot_inject_fn {
	const char *label;	/* "FILE:FUNCTION", for messages */
	const char *path;	/* its file */
	const char *file;	/* and its name for people; NULL: path */
	uint64_t offset, size;	/* the symbol's file offset and size */
	uint32_t values;	/* what its entry and return record besides
				 * (OT_INJ_F_* of inject_layout.h), or 0 */
	uint32_t id;		/* the number its records carry */
	/*
	 * point: a USDT probe's site rather than an entry - the nop at file
	 * offset site (link-time address site_vaddr), patched there with the
	 * instructions after or before it moved; each hit an entry record of
	 * id (its value first when arg is set: the operand as the note says,
	 * read by the trampoline), no return.  offset and size are then set
	 * by the install: the code its unwind entry bounds.
	 */
	int point;
	uint64_t site, site_vaddr;
	/* What in its file may jump into the code around it
	 * (lib/symbols/coderefs), read by the caller before the threads
	 * stop; NULL: it could not be read, refs_why says why. */
	const struct ot_coderefs *refs;
	const char *refs_why;
	uint64_t sema;		/* its semaphore's file offset, 0: none (inject_sema.h) */
	const struct ot_usdt_arg *arg;
	const char *refused;	/* after install: why it is not patched, or NULL */
	int unmapped;		/* refused: its file is not mapped in the process */
	int exits;		/* after install: its returns are seen at its return
				 * instructions (patched), not by moving its return
				 * address (a runtime that walks stacks is mapped) */
	char refused_buf[448];	/* what refused may point to */
	/*
	 * lib/inject's own, for a return instruction it patches (exit): a
	 * site (point set, arg NULL) whose trampoline calls the runtime's
	 * exit with each number of exit_ids (a function's, or with
	 * OT_INJ_X_TAIL a tail caller's), written at exit_call[k].
	 */
	int exit;
	size_t nexit;
	uint32_t exit_ids[4];
	uint32_t exit_fn[4];	/* the function (index) each is for */
	uint64_t exit_call[4];
};

/* Where a function returns (ot_inject_opts.returns): its return
 * instructions' file offsets, its tail callees' last. */
struct ot_inject_rets {
	const uint64_t *sites;
	size_t n, ntail;
	int64_t delta;		/* link-time address - file offset in its file */
	const char *inexact;	/* why not every return is there, or NULL */
};

struct ot_inject_opts {
	size_t ring_kb;		/* per thread: a power of two, at least 4 */
	unsigned nareas;	/* ring areas: threads traced at once */
	int clock;		/* OT_INJ_CLOCK_*, or -1: the TSC where the kernel's
				 * clocksource is the TSC, else the vDSO's clock */
	int adopt;		/* pid is stopped under our ptrace already */
	int pidfd;		/* the process's pidfd, or -1 */
	/*
	 * In a process whose runtime walks its stacks (V8, the JVM...; a
	 * return address moved there kills it), function fn's returns are
	 * seen at its return instructions: returns() gives them (0, or -1
	 * after printing; NULL: refused instead), and its records carry its
	 * number plus exit_alias.
	 */
	int (*returns)(void *ctx, const struct ot_inject_fn *fn, struct ot_inject_rets *out);
	void *returns_ctx;
	uint32_t exit_alias;
};

struct ot_inject;
struct ot_tracee;

/*
 * Stop every thread of pid and check that it can be instrumented.  t is
 * the caller's and outlives this: empty, it seizes the process (or adopts
 * the held command) and watches it from now on; holding the process
 * already (a program it exec'd), it stops every thread again.  Returns 0
 * and *out (threads stopped), or -errno after printing.
 */
int ot_inject_attach(pid_t pid, const struct ot_inject_opts *o, struct ot_tracee *t,
		     struct ot_inject **out);

/*
 * With the threads stopped: map the regions, write the runtime and the
 * trampolines, patch every function that can be (fn[i].refused says why
 * not; the others are numbered i in their records).  Entries are not
 * recorded until ot_inject_enable.  Returns the number patched (0 is not
 * an error here), or -errno after printing (then nothing is patched).
 */
int ot_inject_install(struct ot_inject *in, struct ot_inject_fn *fn, size_t n);

/* The shared region as mapped here (lib/inject/inject_layout.h), and its size. */
void *ot_inject_shared(const struct ot_inject *in, size_t *len);
/* Its memfd, for releasing ring memory (fallocate). */
int ot_inject_memfd(const struct ot_inject *in);

/* Record entries from now on (1), or not (0); returns are always recorded. */
void ot_inject_enable(struct ot_inject *in, int on);

/*
 * The process forked: child pid, held by ptrace at its first instruction
 * (lib/process/tracee's ot_tracee_next_kid), holds a copy of everything
 * of ours.  Taken back there as --restore would (patches, hijacked
 * return addresses, semaphores, memory) and let go untraced: a child is
 * another process, as for the uprobe backends.  0, or -errno with the
 * child let go as it is (counted in the stats, with why).
 */
int ot_inject_forked(struct ot_inject *in, pid_t child);

/*
 * Thread tid (held) vforked (on 1): its child, held until this returns,
 * runs on tid's thread pointer in this memory until it execs or exits,
 * another process whose calls are not recorded.  Or that child is done
 * (on 0).  0, or -ENOSPC when more vforks run at once than the runtime
 * keeps (OT_INJ_VFORK_MAX: that child's calls count as the thread's).
 */
int ot_inject_vfork(struct ot_inject *in, pid_t tid, int on);

/*
 * A thread held at one of inject's breakpoints (the tracee's trap_tid at
 * trap_addr): 1 when the process must be let go now, why said
 * (LeakSanitizer's check begins; an execve of a program with privileges
 * of its own, which the kernel would run without them under this
 * unprivileged capture); 0 when the thread was run past the breakpoint
 * and may go on (an ordinary execve), still held; or -errno.
 */
int ot_inject_trapped(struct ot_inject *in, char *why, size_t len);

/* Let the threads run (the end of the arming pause), still watched.
 * Safe to repeat. */
void ot_inject_resume(struct ot_inject *in);

/* The process exec'd: this program, and everything of ours in it, is
 * gone; nothing is to be restored (its rings here can still be read). */
void ot_inject_execd(struct ot_inject *in);

/*
 * Stop the threads again, restore every patched byte and every hijacked
 * return address, unmap what no thread can still need, let them go
 * (detached: this is the end of watching).
 * Returns 0, or -errno after printing (the patches then stay, harmless:
 * the runtime keeps working without orbit-trace).
 */
int ot_inject_remove(struct ot_inject *in);

/*
 * Whether every patch is still as written.  Someone else's breakpoint on
 * a patched function (a uprobe placed since by perf, bpftrace or another
 * orbit-trace) lands on our jmp: the kernel then runs the file's first
 * instruction and resumes after it, inside or past the jmp - the call
 * unseen, or the process killed.  Reads the process (it may run); counts
 * into ot_inject_stats' overwritten.  Returns the count so far.
 */
size_t ot_inject_check(struct ot_inject *in);

/* A started command held at its entry that was never let go: kill it
 * (SIGKILL, while it is still stopped) rather than run it untraced. */
void ot_inject_kill(struct ot_inject *in);

/* Release what is ours (after ot_inject_remove, or instead of it). */
void ot_inject_free(struct ot_inject *in);

/* What it did to the process (this program's part of the report). */
const struct ot_inject_stats *ot_inject_stats(const struct ot_inject *in);
/* The clock its runtime reads (OT_INJ_CLOCK_*), and why that one. */
int ot_inject_clock(const struct ot_inject *in, const char **why);
/* Functions patched by ot_inject_install. */
size_t ot_inject_patched(const struct ot_inject *in);

/* What ot_inject_recover found of an orbit-trace that died, and did. */
struct ot_inject_recovery {
	int found;			/* its runtime and recovery table were there */
	pid_t tracer;			/* that orbit-trace (its pid where it ran) */
	size_t patches;			/* entries it had patched */
	size_t restored;		/* put back, the file agreeing */
	size_t kept;			/* left as they are (why says why) */
	size_t returns_restored;	/* hijacked return addresses put back */
	size_t semaphores;		/* USDT semaphores it had raised */
	size_t semaphores_lowered;	/* and lowered again now */
	uint64_t unmapped_bytes;	/* its memory given back */
	uint64_t left_bytes;		/* left mapped, and why */
	const char *left_why;
	char why[256];
};

/*
 * With every thread of pid held by t: find what an orbit-trace that was
 * killed left there (its runtime's first region, named, and the recovery
 * table in it), put back each entry it patched whose saved bytes the file
 * confirms, every return address it hijacked, and unmap its memory.
 * Returns 0 (out->found: whether there was anything), -EBUSY when the
 * orbit-trace that wrote it still holds it, or -errno.  Prints nothing.
 */
int ot_inject_recover(pid_t pid, struct ot_tracee *t, struct ot_inject_recovery *out);

/* orbit-trace --restore -p PID: attach, ot_inject_recover, detach.
 * 0, or -errno after printing. */
int ot_inject_restore(pid_t pid, struct ot_inject_recovery *out);

/*
 * Whether process pid holds what a --backend inject capture put there:
 * its rings' memfd ("orbit-trace") or a code region named so (read
 * without stopping it).  1, 0, or -errno when its maps cannot be read.
 * Quiet.
 */
int ot_inject_present(pid_t pid);

/*
 * Whether what --backend inject put in process pid (a live capture's or a
 * killed one's) patches code at one of the n places (file paths[k], file
 * offset offs[k]) a uprobe would go: 1, 0, or -errno.  Read as it runs,
 * without stopping it; quiet.  For -a, whose uprobes go into every
 * process mapping a file.
 */
int ot_inject_patches_any(pid_t pid, const char *const *paths, const uint64_t *offs, size_t n);

/*
 * Before another backend arms uprobes in process pid (what -p, --follow
 * or -a traces): a uprobe on a function inject patched runs the file's
 * first instruction and resumes inside the jmp (SIGILL, or worse).  What
 * a killed inject capture left is taken back (as --restore, said in a
 * warning); returns 0 then, or when there is nothing.  -EBUSY when the
 * inject capture that put it there still runs, -errno when it cannot be
 * taken back: printed, naming --restore.
 */
int ot_inject_clear(pid_t pid);

#endif
