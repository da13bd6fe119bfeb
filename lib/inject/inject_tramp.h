/*
 * inject_tramp.h - each traced function's trampoline and patch: where the
 * function is in the process and its code read from there (refused if
 * its file is not mapped), its first instructions moved by lib/arch/x86_64/relocate
 * behind a prologue that calls the runtime's entry (or, for an unwinder
 * hook, jumps to its handler), checked against the file and against every
 * stopped thread, and the jmp rel32 that will lead there.  Written into
 * the code region's buffer here; into the process by lib/inject/inject.c.
 * Refusals go to the function's refused, with the reason; nothing prints.
 */
#ifndef OT_INJECT_TRAMP_H
#define OT_INJECT_TRAMP_H

#include <stddef.h>

struct ot_inject;
struct ot_inject_fn;
struct plan;

/* With in->maps read: where f is and its code, into pl, and the code
 * region it needs (pl->reg); or f->refused, pl->reg SIZE_MAX. */
void inject_plan_one(struct ot_inject *in, struct ot_inject_fn *f, struct plan *pl);

/*
 * With the regions mapped: the trampoline of each of fn[n] then
 * hooks[nhook] not refused, and its patch in in->patches (not yet
 * written); those that cannot be say why in refused.  Sets
 * in->info.unwinder when a hook is.  Returns the functions patched (not
 * hooks).
 */
size_t inject_trampolines(struct ot_inject *in, struct ot_inject_fn *fn, size_t n,
			  struct ot_inject_fn *hooks, size_t nhook, struct plan *pl);

#endif
