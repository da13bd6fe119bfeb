/*
 * exitwatch.h - how a traced process ends, as the kernel's exit tells it:
 * a BPF program on the scheduler's exit tracepoint
 * (lib/probes/exitwatch.bpf.c; raw tracepoint and BTF, Linux 5.5) keeps
 * the wait status of one process once its last thread has gone, as its
 * parent will be told it.  For a -p process traced by a backend that arms
 * uprobes (privileged, and holding nothing of the process): without it,
 * how such a process ended is only in its pidfd once its parent has reaped
 * it (Linux 6.15) or in its zombie's /proc stat, which the kernel hides
 * from a tracer that dropped its capabilities (lib/process/exitinfo.h).
 * Nothing here prints but with -v.
 */
#ifndef OT_EXITWATCH_H
#define OT_EXITWATCH_H

#include <sys/types.h>

struct ot_exitwatch;

/*
 * Watch process pid from now on.  Returns 0 and *out, or -errno (the
 * kernel refused the program: no BTF, no CAP_BPF; said with -v) and
 * *out NULL.
 */
int ot_exitwatch_start(pid_t pid, struct ot_exitwatch **out);

/* 1 and its wait status in *status once it has exited, else 0. */
int ot_exitwatch_status(const struct ot_exitwatch *w, int *status);

/* Detach and free; NULL is fine. */
void ot_exitwatch_stop(struct ot_exitwatch *w);

#endif
