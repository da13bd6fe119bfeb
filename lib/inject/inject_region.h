/*
 * inject_region.h - memory of ours in the traced process, made there by
 * system calls the stopped threads are made to run (lib/process/tracee.c): a
 * code region within 2 GiB of each patched file's text (the first holds
 * the runtime and its system-call gadget, then the recovery table), the
 * private region (per-thread tables of return addresses and their unwind
 * entries) and the shared one (a memfd also mapped here: the rings), with
 * the runtime's constants filled in.  For lib/inject/inject*.c only, with every
 * thread of the process held.
 */
#ifndef OT_INJECT_REGION_H
#define OT_INJECT_REGION_H

#include <stddef.h>

struct ot_inject;
struct ot_proc_map;
struct plan;

/* A system call run in the process (at the runtime's gadget once it is
 * there, or at one a file's padding lends, inject_pad.h): its return
 * value, -errno on failure. */
long inject_sys(struct ot_inject *in, long nr, long a, long b, long c, long d, long e, long f);

/* The index of the code region for text (its file), added if new; not
 * mapped until inject_map_all. */
size_t inject_region_for(struct ot_inject *in, const struct ot_proc_map *text);

/*
 * Every region, mapped and set up for the n plans pl and npatches
 * patches: the code regions (the first written at once, holding the
 * gadget from then on), the private one with its tables' unwind entries,
 * the shared one with its header and the owner mutex held by this
 * thread, the runtime's constants.  0, or -errno after printing (what
 * was mapped stays in in, for inject_take_back).
 */
int inject_map_all(struct ot_inject *in, const struct plan *pl, size_t n, size_t npatches);

#endif
