/*
 * returns.c - where a function is seen returning with --returns insn
 * (returns.h): its return instructions and, transitively, those of the
 * functions it tail-calls.
 */
#include "returns.h"
#include "util/error.h"
#include "retsite.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Is the function at off in bin one of the selection? */
static int selected(const struct ot_selection *sel, const struct ot_binary *bin, uint64_t off)
{
	size_t k;

	for (k = 0; k < sel->n; k++)
		if (sel->fn[k].bin == bin && sel->fn[k].sym->offset == off)
			return 1;
	return 0;
}

/* How many functions a tail-call chain is followed through. */
#define TAIL_MAX 64

/*
 * The function of bin a jump through the pointer slot lands in (slot in
 * the code's file offset space, as lib/symbols/retsite gives it), or NULL.
 */
static const struct ot_sym *slot_target(const struct ot_binary *bin, uint64_t code_off,
					uint64_t slot)
{
	const char *name;

	return ot_elf_slot_target(bin->elf, slot + (uint64_t)ot_elf_text_delta(bin->elf, code_off),
				  &name);
}

/* A jump to off, where no function is: a PLT stub's? Its target, or NULL. */
static const struct ot_sym *plt_target(const struct ot_binary *bin, uint64_t off)
{
	const struct ot_sym *t = NULL;
	struct ot_exits z;

	/* A stub: [endbr64;] [bnd] jmp *slot(%rip), then padding or the
	 * lazy binder's push/jmp. */
	if (ot_exits_file(bin->path, off, 16, &z))
		return NULL;
	if (z.nslots && !z.nrets)
		t = slot_target(bin, off, z.slots[0]);
	ot_exits_free(&z);
	return t;
}

static void add_tail(struct ot_exits *x, uint64_t off)
{
	x->tails = ot_xreallocarray(x->tails, x->ntails + 1, sizeof(*x->tails));
	x->tails[x->ntails++] = off;
}

/*
 * Queue on x the functions that the pointer jumps of y (code at code_off)
 * land in; count those that land elsewhere (another library, a pointer
 * set at run time).
 */
static void queue_slots(const struct ot_binary *bin, uint64_t code_off, const struct ot_exits *y,
			struct ot_exits *x, size_t *unfollowed)
{
	size_t k;

	for (k = 0; k < y->nslots; k++) {
		const struct ot_sym *t = slot_target(bin, code_off, y->slots[k]);

		if (!t) {
			(*unfollowed)++;
			continue;
		}
		add_tail(x, t->offset);
	}
}

/* Is file offset off in the code of f? */
static int inside(const struct ot_sym *f, uint64_t off)
{
	return off >= f->offset && off - f->offset < f->size;
}

/*
 * Why the table jump j of f (read from its code) cannot be followed, or
 * NULL with the functions its entries land in queued on x.  A switch's
 * table lands inside f, which leaves nothing to follow.  A table whose
 * length no symbol gives is taken for a switch's when its first entry is
 * a label of f, and refused otherwise.
 */
static const char *queue_table(const struct ot_binary *bin, const struct ot_sym *f,
			       const struct ot_table_jump *j, struct ot_exits *x)
{
	uint64_t vaddr = j->addr, *ent;
	const char *why = NULL;
	int bounded, n;
	size_t i;

	if (!j->vaddr)
		vaddr += (uint64_t)ot_elf_text_delta(bin->elf, f->offset);
	n = ot_elf_code_table(bin->elf, bin->path, vaddr, &ent, &bounded);
	if (n < 0)
		return n == -EACCES ? "it is writable: the program may change it" :
		       "it cannot be read from the file";
	if (!bounded && !(inside(f, ent[0]) && ent[0] != f->offset))
		why = "no symbol gives its length";
	for (i = 0; !why && bounded && i < (size_t)n; i++) {
		if (ent[i] == OT_TABLE_UNKNOWN)
			why = "the loader fills an entry with a symbol another file may define";
		else if (ent[i] != OT_TABLE_NONE && !inside(f, ent[i]))
			add_tail(x, ent[i]);
	}
	ot_verbose("%s: jumps through the table at 0x%llx (%d entr%s%s)", ot_sym_display(f),
		   (unsigned long long)vaddr, n, n == 1 ? "y" : "ies", bounded ? "" : " read");
	free(ent);
	return why;
}

/* The table jumps of y, the code of f: followed on x, or counted indirect. */
static void queue_tables(const struct ot_binary *bin, const struct ot_sym *f,
			 const struct ot_exits *y, struct ot_exits *x, const char *label)
{
	size_t k;

	for (k = 0; k < y->ntables; k++) {
		const char *why = queue_table(bin, f, &y->tables[k], x);

		if (!why)
			continue;
		ot_verbose("%s: cannot follow the jump through a table in %s: %s", label,
			   ot_sym_display(f), why);
		x->indirect++;
	}
}

int ot_returns_find(const struct ot_selection *sel, size_t i, const char *label,
		    const char *name, struct ot_returns *out)
{
	const struct ot_selected *fn = &sel->fn[i];
	const struct ot_sym *seen[TAIL_MAX];
	size_t nseen = 0, q, k, own, unfollowed = 0;
	struct ot_exits x, y;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&x, 0, sizeof(x));
	ret = fn->sym->size ? ot_exits_file(fn->bin->path, fn->sym->offset, fn->sym->size, &x) : 0;
	if (ret < 0) {
		ot_error_errno(-ret, "cannot read the code of %s", label);
		return -1;
	}
	own = x.nrets;
	out->tail_calls = x.ntails || x.indirect || x.nslots || x.ntables;
	seen[nseen++] = fn->sym;
	queue_slots(fn->bin, fn->sym->offset, &x, &x, &unfollowed);
	queue_tables(fn->bin, fn->sym, &x, &x, label);
	/* x.tails grows as the chain is followed. */
	for (q = 0; q < x.ntails; q++) {
		const struct ot_sym *t = ot_elf_sym_at(fn->bin->elf, x.tails[q]);

		if (!t)
			t = plt_target(fn->bin, x.tails[q]);

		for (k = 0; t && k < nseen && seen[k]->offset != t->offset; k++)
			;
		if (t && k < nseen)
			continue;
		if (!t || nseen == TAIL_MAX) {
			ot_verbose("%s: cannot follow its tail call to +0x%llx (%s)", label,
				   (unsigned long long)x.tails[q], t ? "chain too long" :
				   "no function of this file there: another library's?");
			unfollowed++;
			continue;
		}
		seen[nseen++] = t;
		/* A traced callee's own return ends its tail callers too. */
		if (selected(sel, fn->bin, t->offset))
			continue;
		if (ot_exits_file(fn->bin->path, t->offset, t->size, &y)) {
			unfollowed++;
			continue;
		}
		ot_verbose("%s: tail call to %s: %zu return instruction%s", label,
			   ot_sym_display(t), y.nrets, y.nrets == 1 ? "" : "s");
		x.rets = ot_xreallocarray(x.rets, x.nrets + y.nrets + 1, sizeof(*x.rets));
		if (y.nrets)
			memcpy(x.rets + x.nrets, y.rets, y.nrets * sizeof(*y.rets));
		x.nrets += y.nrets;
		if (y.nrets) {
			out->tail_funcs = ot_xreallocarray(out->tail_funcs, out->ntail_funcs + 1,
							   sizeof(*out->tail_funcs));
			out->tail_funcs[out->ntail_funcs++] = ot_sym_display(t);
		}
		x.tails = ot_xreallocarray(x.tails, x.ntails + y.ntails + 1, sizeof(*x.tails));
		if (y.ntails)
			memcpy(x.tails + x.ntails, y.tails, y.ntails * sizeof(*y.tails));
		x.ntails += y.ntails;
		x.indirect += y.indirect;
		queue_slots(fn->bin, t->offset, &y, &x, &unfollowed);
		queue_tables(fn->bin, t, &y, &x, label);
		ot_exits_free(&y);
	}
	/* A non-NULL list, even empty, says "no uretprobe" to lib/probes/probes. */
	out->sites = x.rets ? x.rets : ot_xcalloc(1, sizeof(*x.rets));
	x.rets = NULL;
	out->nsites = x.nrets;
	out->ntail = x.nrets - own;
	ot_verbose("%s: %zu return instruction%s%s", label, own, own == 1 ? "" : "s",
		   x.nrets > own ? ", and those of the functions it tail-calls" : "");
	if (x.indirect || unfollowed) {
		out->how = x.indirect && unfollowed ?
			   "an indirect tail call, or one through a pointer or to another library" :
			   x.indirect ? "an indirect tail call" :
			   "a tail call through a pointer or to another library";
		if (asprintf(&out->inexact, "%s: calls that leave it by %s are not "
			     "seen returning (--returns insn); its counts may be short", name,
			     out->how) < 0)
			out->inexact = NULL;
		ot_verbose("%s: %zu indirect jump%s, %zu tail call%s not followed", label,
			   x.indirect, x.indirect == 1 ? "" : "s", unfollowed, unfollowed == 1 ? "" : "s");
	}
	if (!x.nrets && !x.ntails && !x.indirect)
		ot_warn("%s has no return instruction and no tail call: no return of "
			"it will be seen (it never returns?)", label);
	ot_exits_free(&x);
	return 0;
}

void ot_returns_free(struct ot_returns *r)
{
	free(r->sites);
	free(r->inexact);
	free(r->tail_funcs);
	memset(r, 0, sizeof(*r));
}
