/*
 * Folding the call tree's deep recursion into bounded entries, for JSON's
 * call_tree and --folded: one walk of the tree, depth first, each node
 * mapped to the entry of its folded path.
 */
#include "fold.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct walk {
	const struct ot_tree_node *tree;
	struct ot_fold *out;
	size_t cap;
	uint32_t *active;	/* per entry: nodes on the walk's path folded into it */
	uint32_t *hash;		/* entries by (parent, func); 0 empty */
	size_t hcap;
};

static size_t slot(uint32_t parent, uint32_t func, size_t cap)
{
	return (size_t)(((uint64_t)parent << 32 | func) * 0x9E3779B97F4A7C15ull >> 32) & (cap - 1);
}

static void index_entry(struct walk *w, uint32_t k)
{
	size_t s = slot(w->out->e[k].parent, w->out->e[k].func, w->hcap);

	while (w->hash[s])
		s = (s + 1) & (w->hcap - 1);
	w->hash[s] = k;
}

/* The entry (parent, func), made on first use. */
static uint32_t child_entry(struct walk *w, uint32_t parent, uint32_t func)
{
	struct ot_fold *o = w->out;
	uint32_t k;
	size_t s;

	for (s = slot(parent, func, w->hcap); (k = w->hash[s]); s = (s + 1) & (w->hcap - 1))
		if (o->e[k].parent == parent && o->e[k].func == func)
			return k;
	if (o->n == w->cap) {
		w->cap *= 2;
		o->e = ot_xreallocarray(o->e, w->cap, sizeof(*o->e));
		w->active = ot_xreallocarray(w->active, w->cap, sizeof(*w->active));
	}
	k = (uint32_t)o->n++;
	memset(&o->e[k], 0, sizeof(o->e[k]));
	o->e[k].parent = parent;
	o->e[k].func = func;
	o->e[k].depth_lo = UINT32_MAX;
	w->active[k] = 0;
	if (2 * o->n > w->hcap) {
		size_t i;

		w->hcap *= 2;
		free(w->hash);
		w->hash = ot_xcalloc(w->hcap, sizeof(*w->hash));
		for (i = 1; i < o->n; i++)
			index_entry(w, (uint32_t)i);
	} else {
		index_entry(w, k);
	}
	return k;
}

/*
 * Where a node of func under entry parent goes: when func already occurs
 * more than OT_FOLD_LEVELS times on parent's path, into its
 * (OT_FOLD_LEVELS+1)th occurrence from the root; else (parent, func).
 */
static uint32_t entry_of(struct walk *w, uint32_t parent, uint32_t func)
{
	const struct ot_fold_entry *e = w->out->e;
	uint32_t k, c = 0, skip;

	for (k = parent; k; k = e[k].parent)
		c += e[k].func == func;
	if (c <= OT_FOLD_LEVELS)
		return child_entry(w, parent, func);
	skip = c - OT_FOLD_LEVELS - 1;	/* nearest first: the ones deeper than it */
	for (k = parent; k; k = e[k].parent)
		if (e[k].func == func && !skip--)
			break;
	return k;
}

/* Node i (at DEPTH depth) into entry k: counts, and its time unless an
 * ancestor already in k holds it. */
static void add_node(struct walk *w, uint32_t i, uint32_t k, uint32_t depth)
{
	const struct ot_tree_node *n = &w->tree[i];
	struct ot_fold_entry *e = &w->out->e[k];

	e->calls += n->calls;
	e->self_ns += n->total_ns > n->child_ns ? n->total_ns - n->child_ns : 0;
	if (!w->active[k])
		e->total_ns += n->total_ns;
	if (depth < e->depth_lo)
		e->depth_lo = depth;
	if (depth > e->depth_hi)
		e->depth_hi = depth;
}

void ot_fold_tree(const struct ot_tree_node *tree, size_t n, struct ot_fold *out)
{
	struct walk w = { .tree = tree, .out = out, .cap = 64, .hcap = 128 };
	/* The walk's path: node, its entry once entered (0: not yet), its
	 * DEPTH, its parent's entry. */
	struct { uint32_t node, entry, depth, up; } *path;
	uint32_t top = 0, c;

	memset(out, 0, sizeof(*out));
	out->e = ot_xcalloc(w.cap, sizeof(*out->e));
	w.active = ot_xcalloc(w.cap, sizeof(*w.active));
	w.hash = ot_xcalloc(w.hcap, sizeof(*w.hash));
	out->n = 1;	/* the root */
	path = ot_xcalloc(n + 1, sizeof(*path));
	for (c = n > 1 ? tree[0].first_child : 0; c; c = tree[c].next_sibling)
		path[top++] = (typeof(*path)){ c, 0, 0, 0 };
	while (top) {
		uint32_t i = path[top - 1].node, k = path[top - 1].entry, depth = path[top - 1].depth;

		if (k) {	/* its subtree is done */
			w.active[k]--;
			top--;
			continue;
		}
		k = entry_of(&w, path[top - 1].up, tree[i].func);
		path[top - 1].entry = k;
		add_node(&w, i, k, depth);
		w.active[k]++;
		for (c = tree[i].first_child; c; c = tree[c].next_sibling)
			path[top++] = (typeof(*path)){ c, 0, depth + 1, k };
	}
	free(path);
	free(w.active);
	free(w.hash);
}

void ot_fold_free(struct ot_fold *f)
{
	free(f->e);
	memset(f, 0, sizeof(*f));
}
