/*
 * exitinfo.h - how a process that is not our child ended (-p PID), from
 * what the kernel keeps of it once it has exited: the wait status its
 * tracer takes (ptrace: --backend inject holds it), the pidfd's exit
 * information once its parent has reaped it (PIDFD_GET_INFO with
 * PIDFD_INFO_EXIT, Linux 6.15), or its zombie's /proc/PID/stat exit_code
 * until then.  Never a guess: one of them says it, or it is unknown, and
 * why.  A backend may know it too (the multi backend's hook on the
 * kernel's exit tracepoint: OT_EXIT_KERNEL, set by the capture).  Nothing
 * here prints.
 */
#ifndef OT_EXITINFO_H
#define OT_EXITINFO_H

#include <sys/types.h>

/* Where a wait status came from. */
enum ot_exit_from {
	OT_EXIT_UNKNOWN,
	OT_EXIT_WAIT,	/* our child, reaped by us */
	OT_EXIT_PTRACE,	/* traced by us: its exit reported to its tracer */
	OT_EXIT_KERNEL,	/* a backend's hook on the kernel's exit tracepoint */
	OT_EXIT_PIDFD,	/* PIDFD_INFO_EXIT, after its parent reaped it */
	OT_EXIT_PROCFS,	/* its zombie's /proc/PID/stat, before */
};

/* "wait", "ptrace", "kernel", "pidfd", "procfs"; NULL for unknown. */
const char *ot_exit_from_name(enum ot_exit_from from);

/*
 * Process pid has exited (its pidfd polled readable, or /proc says it is
 * gone); pidfd is the pidfd opened while it ran, or -1.  Its wait status
 * into *status, and where it came from; or OT_EXIT_UNKNOWN with *why (a
 * static phrase: its parent reaped it first, on a kernel whose pidfd keeps
 * no exit status; or it is a zombie whose exit status the kernel hides
 * from us).
 */
enum ot_exit_from ot_exit_learn(pid_t pid, int pidfd, int *status, const char **why);

#endif
