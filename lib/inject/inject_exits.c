/*
 * Return instructions patched instead of return addresses moved, where a
 * runtime walks the process's stacks: the sites of each function (its
 * own and its tail callees'), shared between the functions that return
 * there, and the settling of those that could not all be patched.
 */
#include "inject_exits.h"
#include "inject.h"
#include "inject_layout.h"
#include "trampcode.h"
#include "inject_state.h"
#include "symbols/coderefs.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The code references of path, read once: NULL with *why when they
 * cannot be. */
static const struct ot_coderefs *refs_of(struct inject_exits *x, const char *path,
					 const char **why)
{
	size_t i;

	for (i = 0; i < x->nfiles && strcmp(x->paths[i], path); i++)
		;
	if (i == x->nfiles) {
		x->refs = ot_xreallocarray(x->refs, i + 1, sizeof(*x->refs));
		x->paths = ot_xreallocarray(x->paths, i + 1, sizeof(*x->paths));
		x->why = ot_xreallocarray(x->why, i + 1, sizeof(*x->why));
		x->paths[i] = ot_xstrdup(path);
		x->refs[i] = NULL;
		x->why[i][0] = 0;
		if (ot_coderefs_open(path, &x->refs[i], x->why[i], sizeof(x->why[i])))
			x->refs[i] = NULL;
		x->nfiles++;
	}
	*why = x->why[i];
	return x->refs[i];
}

/* The site at file offset off of fn's file, added if new: its index. */
static size_t site_at(struct inject_exits *x, const struct ot_inject_fn *fn, uint64_t off,
		      int64_t delta)
{
	struct ot_inject_fn *s;
	const char *why;
	size_t i;

	for (i = 0; i < x->n; i++)
		if (x->site[i].site == off && !strcmp(x->site[i].path, fn->path))
			return i;
	x->site = ot_xreallocarray(x->site, x->n + 1, sizeof(*x->site));
	s = &x->site[x->n];
	memset(s, 0, sizeof(*s));
	s->label = fn->label;
	s->path = fn->path;
	s->point = 1;
	s->exit = 1;
	s->site = off;
	s->site_vaddr = (uint64_t)((int64_t)off + delta);
	s->refs = refs_of(x, fn->path, &why);
	s->refs_why = why;
	return x->n++;
}

/* Why fn cannot have its returns seen where they are, into its refusal. */
static void refuse(struct ot_inject_fn *fn, const char *walker, const char *why)
{
	snprintf(fn->refused_buf, sizeof(fn->refused_buf), "%s walks its stacks (a moved return "
		 "address would kill it), so returns are seen at return instructions, and %s",
		 walker, why);
	fn->refused = fn->refused_buf;
	fn->exits = 0;
}

/* Function i's sites into x: 0, or -1 with it refused. */
static int plan_one(struct ot_inject *in, struct ot_inject_fn *fn, size_t i,
		    struct inject_exits *x)
{
	struct ot_inject_fn *f = &fn[i];
	struct ot_inject_rets r;
	size_t k, s;
	char why[192];

	if (f->id + in->o.exit_alias > OT_INJ_MAX_FUNCS) {
		snprintf(why, sizeof(why), "that way inject traces at most %u functions",
			 OT_INJ_MAX_FUNCS - in->o.exit_alias);
		refuse(f, in->info.walker, why);
		return -1;
	}
	if (in->o.returns(in->o.returns_ctx, f, &r)) {
		refuse(f, in->info.walker, "its code cannot be read");
		return -1;
	}
	if (r.inexact) {
		refuse(f, in->info.walker, r.inexact);
		return -1;
	}
	for (k = 0; k < r.n; k++) {
		s = site_at(x, f, r.sites[k], r.delta);
		if (x->site[s].nexit == OT_INJ_EXIT_IDS) {
			snprintf(why, sizeof(why), "more than %d traced functions return at its "
				 "return instruction at +0x%llx", OT_INJ_EXIT_IDS,
				 (unsigned long long)r.sites[k]);
			refuse(f, in->info.walker, why);
			return -1;
		}
		x->site[s].exit_fn[x->site[s].nexit] = (uint32_t)i;
		x->site[s].exit_ids[x->site[s].nexit++] =
			(f->id + in->o.exit_alias) | (f->values & OT_INJ_F_RET) |
			(k >= r.n - r.ntail ? OT_INJ_X_TAIL : 0);
	}
	f->exits = 1;
	return 0;
}

/* The sites' calls for function i, taken back from x (before the
 * trampolines: nothing written yet). */
static void forget(struct inject_exits *x, size_t i)
{
	size_t s, k;

	for (s = 0; s < x->n; s++)
		for (k = 0; k < x->site[s].nexit; k++)
			if (x->site[s].exit_fn[k] == i) {
				x->site[s].nexit--;
				x->site[s].exit_fn[k] = x->site[s].exit_fn[x->site[s].nexit];
				x->site[s].exit_ids[k--] = x->site[s].exit_ids[x->site[s].nexit];
			}
}

void inject_exits_plan(struct ot_inject *in, struct ot_inject_fn *fn, size_t n,
		       struct inject_exits *x)
{
	size_t i, s;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < n; i++)
		if (!fn[i].refused && !fn[i].point && plan_one(in, fn, i, x))
			forget(x, i);
	/* A site nobody returns at any more (its function refused): none. */
	for (s = 0; s < x->n;) {
		if (x->site[s].nexit) {
			s++;
			continue;
		}
		x->site[s] = x->site[--x->n];
	}
}

/* Nops over a call of the runtime's exit at addr (in the
 * region buffers, not yet written to the process). */
static void nop_call(struct ot_inject *in, uint64_t addr)
{
	size_t r;

	for (r = 0; r < in->nreg; r++)
		if (addr >= in->reg[r].addr &&
		    addr + OT_TRAMP_CALL_LEN <= in->reg[r].addr + in->reg[r].size)
			ot_tramp_nop_call(in->reg[r].buf + (addr - in->reg[r].addr));
}

/* Function i, refused: its calls in the sites made are nops, its entry's
 * patch is dropped. */
static void undo(struct ot_inject *in, struct ot_inject_fn *fn, size_t i, struct inject_exits *x)
{
	size_t s, k;

	for (s = 0; s < x->n; s++)
		for (k = 0; k < x->site[s].nexit; k++)
			if (x->site[s].exit_fn[k] == i && !x->site[s].refused && x->site[s].exit_call[k])
				nop_call(in, x->site[s].exit_call[k]);
	for (k = 0; k < in->npatches; k++)
		if (in->patches[k].fn == fn[i].id) {
			in->patches[k--] = in->patches[--in->npatches];
		}
}

size_t inject_exits_settle(struct ot_inject *in, struct ot_inject_fn *fn, size_t n,
			   struct inject_exits *x)
{
	size_t i, s, k, left = 0;

	for (i = 0; i < n; i++) {
		const struct ot_inject_fn *bad = NULL;

		if (!fn[i].exits)
			continue;
		for (s = 0; s < x->n && !bad; s++)
			for (k = 0; k < x->site[s].nexit && !bad; k++)
				if (x->site[s].exit_fn[k] == i && x->site[s].refused)
					bad = &x->site[s];
		if (bad) {
			char why[320];

			snprintf(why, sizeof(why), "its return at +0x%llx cannot be patched: %s",
				 (unsigned long long)bad->site, bad->refused);
			if (!fn[i].refused)
				refuse(&fn[i], in->info.walker, why);
		}
		if (fn[i].refused) {
			fn[i].exits = 0;
			undo(in, fn, i, x);
			continue;
		}
		left++;
	}
	return left;
}

void inject_exits_free(struct inject_exits *x)
{
	size_t i;

	for (i = 0; i < x->nfiles; i++) {
		ot_coderefs_free(x->refs[i]);
		free(x->paths[i]);
	}
	free(x->refs);
	free(x->paths);
	free(x->why);
	free(x->site);
	memset(x, 0, sizeof(*x));
}
