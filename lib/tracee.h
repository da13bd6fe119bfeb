/*
 * tracee.h - holding a live process still with ptrace, for the in-process
 * backend to come (--backend inject, issue 14): stop every thread, run a
 * system call in one of them (to map memory in the target), let them go.
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

struct ot_tracee {
	pid_t pid;
	pid_t *tids;		/* every thread, stopped */
	size_t n;
};

/*
 * Seize and stop every thread of pid.  Returns 0, or -errno with *why
 * one line saying why (another tracer holds it, the kernel refuses
 * ptrace, it exited); nothing stays stopped on failure.
 */
int ot_tracee_attach(pid_t pid, struct ot_tracee *t, const char **why);

/*
 * Run system call nr with up to 6 arguments in the first stopped thread,
 * its registers and code left as they were.  Returns the call's result
 * (a negative errno when it failed), or -errno of ptrace itself.
 */
long ot_tracee_syscall(struct ot_tracee *t, long nr, const long args[6]);

/*
 * Map size bytes (a multiple of the page) with prot, private and
 * anonymous, within 2 GiB of near (so that a jmp rel32 at near reaches
 * it).  Returns the address, or 0 with *why.
 */
uint64_t ot_tracee_mmap_near(struct ot_tracee *t, uint64_t near, size_t size, int prot,
			     const char **why);

/* Let every thread run on, untraced.  Safe to repeat. */
void ot_tracee_detach(struct ot_tracee *t);

#endif
