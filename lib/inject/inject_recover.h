/*
 * inject_recover.h - what an orbit-trace that is killed leaves behind,
 * and taking it back.  Installing writes a recovery table into the first
 * code region (named "orbit-trace"): the regions, the data, each patch
 * with its original bytes and its jump.  A later orbit-trace finds it
 * (ot_inject_recover, before tracing the process, and --restore:
 * ot_inject_restore; both declared in lib/inject/inject.h) and puts back every
 * patch the file confirms, every hijacked return address, and unmaps the
 * memory - unless the owner mutex in the shared header says the
 * orbit-trace that wrote it still lives.
 */
#ifndef OT_INJECT_RECOVER_H
#define OT_INJECT_RECOVER_H

#include <stddef.h>
#include <sys/types.h>

struct ot_inject;

/* The table, written into the first region's buffer (with the region,
 * before any patch is): every region, the data, in->patches.  For
 * lib/inject/inject.c. */
void inject_recovery_table(struct ot_inject *in);

/*
 * A child the traced process forked, every thread held by t: its copy of
 * this orbit-trace's instrumentation taken back as ot_inject_recover does
 * (the table's owner is alive: it is us).  0 or -errno.  For
 * lib/inject/inject.c.
 */
struct ot_tracee;
struct ot_inject_recovery;
int inject_recover_child(pid_t pid, struct ot_tracee *t, struct ot_inject_recovery *out);

#endif
