/*
 * tables.c - the report's tables (tables.h): per-function statistics and
 * the call tree's nodes, found by a hash on (parent, function) and grown
 * on demand up to OT_PAIR_TREE_MAX.
 */
#include "tables.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

void ot_tables_init(struct ot_tables *t, size_t nfuncs)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->nfuncs = nfuncs;
	t->stats = ot_xcalloc(nfuncs ? nfuncs : 1, sizeof(*t->stats));
	for (i = 0; i < nfuncs; i++)
		ot_hist_init(&t->stats[i].hist);
	t->treecap = 64;
	t->tree = ot_xcalloc(t->treecap, sizeof(*t->tree));
	t->ntree = 1; /* the root */
}

void ot_tables_fini(struct ot_tables *t)
{
	size_t i;

	for (i = 0; i < t->nfuncs; i++) {
		free(t->stats[i].comp);
		free(t->stats[i].depths);
	}
	free(t->stats);
	free(t->tree);
	free(t->thash);
	memset(t, 0, sizeof(*t));
}

void ot_tables_comp(struct ot_tables *t)
{
	size_t i;

	for (i = 0; i < t->nfuncs; i++) {
		if (!t->stats[i].comp) {
			t->stats[i].comp = ot_xmalloc(sizeof(*t->stats[i].comp));
			ot_hist_init(t->stats[i].comp);
		}
	}
}

static size_t tree_slot(uint32_t parent, uint32_t func, size_t cap)
{
	return (size_t)(((uint64_t)parent << 32 | func) * 0x9E3779B97F4A7C15ull >> 32) & (cap - 1);
}

/* Index node c by (parent, func), the table doubled at half full. */
static void tree_index(struct ot_tables *t, uint32_t c)
{
	size_t s;

	if (2 * (t->ntree + 1) > t->thcap) {
		size_t i;

		t->thcap = t->thcap ? 2 * t->thcap : 256;
		free(t->thash);
		t->thash = ot_xcalloc(t->thcap, sizeof(*t->thash));
		for (i = 1; i < t->ntree; i++)
			if (i != c)
				tree_index(t, (uint32_t)i);
	}
	s = tree_slot(t->tree[c].parent, t->tree[c].func, t->thcap);
	while (t->thash[s])
		s = (s + 1) & (t->thcap - 1);
	t->thash[s] = c;
}

uint32_t ot_tables_child(struct ot_tables *t, uint32_t parent, uint32_t func)
{
	struct ot_tree_node *n;
	uint32_t c;
	size_t s;

	if (t->thcap) {
		for (s = tree_slot(parent, func, t->thcap); (c = t->thash[s]);
		     s = (s + 1) & (t->thcap - 1))
			if (t->tree[c].func == func && t->tree[c].parent == parent)
				return c;
	}
	if (t->ntree >= OT_PAIR_TREE_MAX)
		return 0;
	if (t->ntree == t->treecap) {
		t->treecap *= 2;
		t->tree = ot_xreallocarray(t->tree, t->treecap, sizeof(*t->tree));
	}
	c = (uint32_t)t->ntree++;
	n = &t->tree[c];
	memset(n, 0, sizeof(*n));
	n->func = func;
	n->parent = parent;
	n->next_sibling = t->tree[parent].first_child;
	t->tree[parent].first_child = c;
	tree_index(t, c);
	return c;
}

void ot_tables_depth_grow(struct ot_func_stats *s, uint32_t depth)
{
	uint32_t n = s->ndepths ? s->ndepths : 8;

	while (n <= depth)
		n *= 2;
	s->depths = ot_xreallocarray(s->depths, n, sizeof(*s->depths));
	memset(s->depths + s->ndepths, 0, (n - s->ndepths) * sizeof(*s->depths));
	s->ndepths = n;
}

uint64_t ot_func_stats_depth(const struct ot_func_stats *s, unsigned d)
{
	return d < s->ndepths ? s->depths[d] : 0;
}
