/*
 * tracee.h - holding a live process still with ptrace, for --backend
 * inject: stop every thread, read and write its memory, run a system call
 * in it (to map memory there), step a thread out of a range of code, let
 * them go.
 *
 * Every thread is seized (PTRACE_SEIZE: no signal sent, nothing the
 * process can see but the stop) and interrupted, and /proc/PID/task is
 * read again until a pass finds no thread it did not have: a thread being
 * created meanwhile is caught on the next pass.  Detaching lets each
 * thread run on from where it stopped, an interrupted system call
 * restarted as the kernel would have.  x86-64.
 */
#ifndef OT_TRACEE_H
#define OT_TRACEE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct ot_tracee {
	pid_t pid;
	pid_t *tids;		/* every thread, stopped */
	size_t n;
	int mem_fd;		/* /proc/PID/mem, opened on first use; -1 */
	uint64_t gadget;	/* a `syscall` instruction in the process, or 0 */
	size_t adopted;		/* tids[0..adopted) were ours before attaching */
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
 * Run system call nr with up to 6 arguments in the first stopped thread,
 * its registers left as they were: at t->gadget when set, else at the
 * thread's own instruction (rewritten for one step, then restored).
 * Returns the call's result (a negative errno when it failed), or -errno
 * of ptrace itself.
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

/* Thread i's registers: 0 or -errno. */
int ot_tracee_regs(const struct ot_tracee *t, size_t i, struct user_regs_struct *r);

/* The registers of any thread stopped under our ptrace: 0 or -errno. */
int ot_ptrace_regs(pid_t tid, struct user_regs_struct *r);
int ot_ptrace_set_regs(pid_t tid, struct user_regs_struct *r);

/*
 * Single-step thread i until its instruction pointer is outside every
 * range [lo[k], hi[k]), at most max_steps.  Returns 0 once out, 1 if it is
 * inside a system call (which stepping would run) or still inside after
 * max_steps, -ESRCH if it exited, or -errno.
 */
int ot_tracee_step_out(struct ot_tracee *t, size_t i, const uint64_t *lo, const uint64_t *hi,
		       size_t nranges, unsigned max_steps);

/* Let every thread run on, untraced.  Safe to repeat. */
void ot_tracee_detach(struct ot_tracee *t);

#endif
