/*
 * inject_exits.h - functions whose returns are seen at their return
 * instructions, in a process whose runtime walks its stacks (V8, the
 * JVM...: a return address moved there kills it; inject_facts.h's
 * inject_walker).  Every return instruction of such a function, and of
 * the functions it tail-calls, becomes a site patched as a USDT site is
 * (the instructions before it moved to a trampoline, nothing in the file
 * jumping inside the patch: lib/symbols/coderefs), whose code calls the
 * runtime's exit with the number of each function returning there.  A
 * function one of whose returns cannot be patched (or that leaves in a
 * way no instruction shows) is refused with the reason, and its calls in
 * the sites made for others become nops: no record of it is ever
 * written.  For lib/inject/inject.c; nothing prints.
 */
#ifndef OT_INJECT_EXITS_H
#define OT_INJECT_EXITS_H

#include <stddef.h>

struct ot_inject;
struct ot_inject_fn;
struct ot_coderefs;

struct inject_exits {
	struct ot_inject_fn *site;	/* the sites, as USDT sites (point, exit) */
	size_t n;
	struct ot_coderefs **refs;	/* per file, read once */
	char **paths;
	char (*why)[160];		/* why a file's could not be read */
	size_t nfiles;
};

/*
 * The sites of fn[0..n) (functions' entries; those refused already and
 * USDT sites skipped) into x, each such function marked exits; one whose
 * returns cannot all be known is refused with why.  Asks
 * in->o.returns, which must be set.
 */
void inject_exits_plan(struct ot_inject *in, struct ot_inject_fn *fn, size_t n,
		       struct inject_exits *x);

/*
 * After the trampolines (patches planned, not written): a function
 * whose entry or any of whose sites was refused is refused (the site's
 * reason), its calls in the sites that were made turned into nops in
 * their region's buffer, its entry's patch dropped.  Returns the
 * functions left with their returns seen at return instructions.
 */
size_t inject_exits_settle(struct ot_inject *in, struct ot_inject_fn *fn, size_t n,
			   struct inject_exits *x);

void inject_exits_free(struct inject_exits *x);

#endif
