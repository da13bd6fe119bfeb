/*
 * inject_sema.h - USDT semaphores while --backend inject instruments a
 * process.  A probe with a semaphore runs its arguments' code only while
 * the counter is not 0; the uprobe backends have the kernel count it
 * (ref_ctr_offset).  Here it is the counter in the process's memory:
 * raised by one for each probe with a patched site when the patches are
 * written, lowered by one when they are taken back, and by a later
 * orbit-trace --restore (the recovery table lists them) when this one
 * died.  Lowering never goes below 0: whoever else counts keeps theirs.
 * Threads are stopped whenever these run.  Part of lib/inject (see
 * inject_state.h); prints nothing.
 */
#ifndef OT_INJECT_SEMA_H
#define OT_INJECT_SEMA_H

#include <stddef.h>
#include <stdint.h>

struct ot_inject;
struct ot_inject_fn;

/* Where the semaphores of fn's patched sites are in the process (their
 * file's writable mapping), each once, into in->semas: not raised yet. */
void inject_semas_find(struct ot_inject *in, const struct ot_inject_fn *fn, size_t n);

/* Each of in->semas raised (delta 1) or lowered (-1): the number that
 * could not be (unreadable, or already 0 when lowering). */
size_t inject_semas_add(struct ot_inject *in, int delta);

#endif
