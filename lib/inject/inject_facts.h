/*
 * inject_facts.h - what --backend inject must know of a process before
 * touching it: whether it can be instrumented at all (an x86-64 program,
 * not traced by another, no seccomp, no CET shadow stack), where glibc
 * keeps a thread's id (the runtime finds a thread's slot by it), and
 * which clock the runtime reads (the TSC, or the vDSO's
 * clock_gettime).  Read from /proc, the process's memory and libc's
 * symbols; nothing is written there.  For lib/inject/inject.c only.
 */
#ifndef OT_INJECT_FACTS_H
#define OT_INJECT_FACTS_H

struct ot_inject;

/* What in the process makes it impossible to instrument, or NULL (the
 * reason may be kept in in->why).  Prints nothing. */
const char *inject_refuse_process(struct ot_inject *in);

/*
 * With every thread stopped and in->maps read: in->tid_off, in->fsbase,
 * in->clock and clock_why, and in->vdso_fn when the clock is the
 * vDSO's.  0, or -errno after printing why the process cannot be traced.
 */
int inject_process_facts(struct ot_inject *in);

#endif
