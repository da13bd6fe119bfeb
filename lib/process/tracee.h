/*
 * tracee.h - holding a live process with ptrace, for --backend inject:
 * stop every thread, read and write its memory, run a system call in it
 * (to map memory there), step a thread out of a range of code, let them
 * go - and, watching, stay attached while it runs, to see each exec
 * (whose new program is then stopped at its entry point) and every thread
 * it creates, passing every signal on as it was sent.
 *
 * Every thread is seized (PTRACE_SEIZE: no signal sent, nothing the
 * process can see but the stop) and interrupted, and /proc/PID/task is
 * read again until a pass finds no thread it did not have: a thread being
 * created meanwhile is caught on the next pass.  A signal that arrives
 * while a thread is held is kept and delivered when it runs on; a group
 * stop (SIGSTOP) stays a stop.  Detaching lets each thread run on from
 * where it stopped, an interrupted system call restarted as the kernel
 * would have.  A process in a nested pid namespace (a container) numbers
 * its threads otherwise than we do: each thread's id there is kept with
 * ours, for what the process itself says of a thread.  Registers through
 * lib/arch/$(ARCH)/ptregs.h: where inject exists (OT_ARCH_INJECT).
 *
 * Watching, the kernel attaches every child the process forks or vforks
 * too, held at its first instruction: the caller sees each one
 * (ot_tracee_next_kid) before it runs, and lets it go.  A vfork child
 * shares the process's memory until it execs or exits; the thread that
 * vforked is held at its vfork until the caller lets it go, and again
 * when its child is done (ot_tracee_next_vfork_done).
 */
#ifndef OT_TRACEE_H
#define OT_TRACEE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "ptregs.h"	/* lib/arch/$(ARCH)/: ptrace's registers */

/* Threads gone whose two ids are kept (ot_tracee_host_tid). */
#define OT_TRACEE_GONE 256

struct ot_tracee {
	pid_t pid;
	pid_t *tids;		/* every thread attached */
	pid_t *nstids;		/* per thread: its id in the process's pid namespace */
	size_t n;
	int *sig;		/* per thread: a signal its stop took, to deliver */
	unsigned char *st;	/* per thread: held, running, group-stopped */
	size_t cap;
	int mem_fd;		/* /proc/PID/mem, opened on first use; -1 */
	uint64_t gadget;	/* a `syscall` instruction in the process, or 0 */
	/* Where the code after the gadget reloads the thread's registers
	 * from (struct ot_tracee_saved), if the tracer dies during a call;
	 * 0: a bare `syscall`, single-stepped. */
	uint64_t gadget_saved;
	size_t adopted;		/* tids[0..adopted) were ours before attaching */
	int watching;		/* attached while running (ot_tracee_watch) */
	uint64_t bp;		/* ot_tracee_run_to_entry's breakpoint, or 0 */
	unsigned char bp_orig;
	int nested;		/* in a pid namespace of its own: nstids differ */
	pid_t gone[OT_TRACEE_GONE][2];	/* the last threads gone: {ours, its} */
	size_t ngone;		/* ever gone; gone[ngone % OT_TRACEE_GONE] next */
	/* Children forked or vforked, attached by the kernel, not yet handed
	 * to the caller; threads whose vfork child is done. */
	struct ot_tracee_kid {
		pid_t pid;
		pid_t parent;		/* the thread that forked it; 0 not known yet */
		unsigned char vfork;	/* it shares the process's memory */
		unsigned char stopped;	/* its first stop was seen */
	} *kids;
	size_t nkids, kidcap;
	pid_t *vdone;
	size_t nvdone, vdonecap;
	/* The caller's breakpoints (an int3 it wrote at each): a thread that
	 * reaches one is held there, reported once (OT_TEV_TRAP). */
	uint64_t traps[4];
	size_t ntraps;
	pid_t trap_tid;		/* the thread held at trap_addr, or 0 */
	uint64_t trap_addr;
};

/*
 * Seize and stop every thread of pid.  Returns 0, or -errno with *why
 * one line saying why (another tracer holds it, the kernel refuses
 * ptrace, it exited); nothing stays stopped on failure.
 */
int ot_tracee_attach(pid_t pid, struct ot_tracee *t, const char **why);

/*
 * The same for a process whose thread pid is already seized by us and
 * stopped (a started command held at its entry point): the others are
 * seized and stopped; detaching lets them all go.
 */
int ot_tracee_adopt(pid_t pid, struct ot_tracee *t, const char **why);

/*
 * With every thread held: from now on stay attached while they run,
 * seeing each exec (OT_TEV_EXEC) and every new thread (attached at its
 * start).  Returns 0 or -errno.
 */
int ot_tracee_watch(struct ot_tracee *t);

/*
 * Let every held thread run (a signal it stopped with delivered, a group
 * stop kept).  Watching, it stays attached; else it is detached.
 */
void ot_tracee_resume(struct ot_tracee *t);

/*
 * Watching: stop every thread again, new ones included.  Returns 0 (all
 * held), 1 if the process exec'd meanwhile (its one thread held at the
 * exec; the old program's memory is gone), -ESRCH if it exited, or -errno.
 */
int ot_tracee_hold(struct ot_tracee *t);

/* What ot_tracee_poll reports. */
enum ot_tracee_ev {
	OT_TEV_NONE,
	OT_TEV_EXEC,	/* it exec'd: its one thread held at the exec */
	OT_TEV_ENTRY,	/* at the entry point ot_tracee_run_to_entry asked for:
			 * that thread held, the others running */
	OT_TEV_GONE,	/* the process exited: its status left to wait for */
	OT_TEV_KIDS,	/* a child was forked or vforked, or a vfork child is
			 * done: ot_tracee_next_kid, ot_tracee_next_vfork_done;
			 * then ot_tracee_resume */
	OT_TEV_TRAP,	/* thread trap_tid reached the caller's breakpoint at
			 * trap_addr: held, its instruction pointer back there */
};

/*
 * Watching, without blocking: handle every stop pending (a signal passed
 * on, a group stop kept, a new thread let go, an exited one forgotten)
 * until one the caller must see.  Returns the event, OT_TEV_NONE when
 * nothing more is pending.
 */
enum ot_tracee_ev ot_tracee_poll(struct ot_tracee *t);

/*
 * After OT_TEV_EXEC: run the new program to its entry point (its loader
 * having mapped and initialised its libraries), where ot_tracee_poll
 * reports OT_TEV_ENTRY.  Returns 0 or -errno.
 */
int ot_tracee_run_to_entry(struct ot_tracee *t);

/* The registers the code after the gadget reloads (t->gadget_saved):
 * struct ot_tracee_saved, the machine's (lib/arch/$(ARCH)/ptregs.h): the
 * thread's own when a system call of ours began, or, if it was inside one
 * the kernel would restart, as restarted. */

/*
 * The seccomp mode of the thread system calls run in (the first):
 * 0 none, 1 strict, 2 a filter (/proc/PID/task/TID/status), or -errno.
 */
int ot_tracee_seccomp(const struct ot_tracee *t);

/*
 * Run system call nr with up to 6 arguments in the first stopped thread,
 * its registers left as they were: at t->gadget when set, else at the
 * thread's own instruction (rewritten for one step, then restored).  At a
 * gadget with t->gadget_saved, the call runs between two system-call
 * stops (PTRACE_SYSCALL, PTRACE_O_TRACESYSGOOD), never a single step: a
 * tracer killed at any instant leaves the thread no SIGTRAP to die of,
 * and the code after the gadget takes it back where it was.
 * Returns the call's result (a negative errno when it failed), or -errno
 * of ptrace itself; -EPERM, nothing run, when that thread is under
 * seccomp now (a filter installed since arming could kill the process
 * for the call, as SIGSYS).
 */
long ot_tracee_syscall(struct ot_tracee *t, long nr, const long args[6]);

/*
 * Map size bytes (a multiple of the page) with prot, private and
 * anonymous, within 2 GiB of near (so that a jmp rel32 at near reaches
 * it).  Returns the address, or 0 with *why.
 */
uint64_t ot_tracee_mmap_near(struct ot_tracee *t, uint64_t near, size_t size, int prot,
			     const char **why);

/* len bytes at addr of the process (through /proc/PID/mem, which writes
 * read-only code too): 0 or -errno (-EIO: not all mapped). */
int ot_tracee_read(struct ot_tracee *t, uint64_t addr, void *buf, size_t len);
int ot_tracee_write(struct ot_tracee *t, uint64_t addr, const void *buf, size_t len);

/*
 * Our id of the thread the process's own pid namespace calls nstid (what
 * glibc and gettid say inside it): among its threads, then the last
 * OT_TRACEE_GONE that ended; nstid itself outside a nested namespace; 0
 * when unknown (it ended longer ago, or was never seen).
 */
pid_t ot_tracee_host_tid(const struct ot_tracee *t, pid_t nstid);

/* Thread i's registers: 0 or -errno. */
int ot_tracee_regs(const struct ot_tracee *t, size_t i, struct user_regs_struct *r);

/* The registers of any thread stopped under our ptrace: 0 or -errno. */
int ot_ptrace_regs(pid_t tid, struct user_regs_struct *r);
int ot_ptrace_set_regs(pid_t tid, struct user_regs_struct *r);

/*
 * Run thread i a moment at a time (PTRACE_CONT, then PTRACE_INTERRUPT: no
 * single step, whose SIGTRAP stop would kill the process were we killed
 * there) until its instruction pointer is outside every range [lo[k],
 * hi[k]), at most max_steps times.  Returns 0 once out, 1 if it is inside
 * a system call or still inside after max_steps, -ESRCH if it exited, or
 * -errno.  The other threads stay stopped.
 */
int ot_tracee_step_out(struct ot_tracee *t, size_t i, const uint64_t *lo, const uint64_t *hi,
		       size_t nranges, unsigned max_steps);

/*
 * A child the process forked or vforked, held at its first instruction
 * (the thread that made it held too): its pid, *vfork whether it shares
 * the process's memory, *parent that thread; or 0 when none is pending.
 * The caller lets it go (ot_tracee_kid_detach), or it stays held.
 */
pid_t ot_tracee_next_kid(struct ot_tracee *t, int *vfork, pid_t *parent);

/* Let child pid (ot_tracee_next_kid's) run on, untraced. */
void ot_tracee_kid_detach(pid_t pid);

/* Breakpoint addr (the caller wrote its int3) is the caller's: 0, or
 * -ENOSPC beyond four. */
int ot_tracee_trap_add(struct ot_tracee *t, uint64_t addr);

/*
 * Thread tid, held at the caller's breakpoint addr whose original byte
 * is orig: that byte put back for one step of the thread, then the
 * breakpoint again; the thread held after the instruction, the trap
 * reported done (trap_tid 0).  0 or -errno.
 */
int ot_tracee_step_over(struct ot_tracee *t, pid_t tid, uint64_t addr, unsigned char orig);

/* A thread whose vfork child exec'd or exited since (held), or 0. */
pid_t ot_tracee_next_vfork_done(struct ot_tracee *t);

/* Let every thread run on, untraced (held first if watching).  Safe to
 * repeat.  A child still pending is let go as it is. */
void ot_tracee_detach(struct ot_tracee *t);

#endif
