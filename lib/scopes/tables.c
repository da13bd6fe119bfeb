/*
 * tables.c - the report's tables (tables.h): per-function statistics, the
 * call tree's nodes (found by a hash on (parent, function), grown on demand
 * up to OT_PAIR_TREE_MAX), each function's longest calls and the
 * distributions of its recorded values.
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
	for (i = 0; t->vals && i < t->nfuncs * OT_TV_NSLOTS; i++)
		free(t->vals[i]);
	free(t->vals);
	free(t->longest);
	free(t->nlong);
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

void ot_tables_longest(struct ot_tables *t, size_t n)
{
	if (t->nlongest || !n)
		return;
	t->nlongest = n;
	t->longest = ot_xcalloc(t->nfuncs ? t->nfuncs * n : 1, sizeof(*t->longest));
	t->nlong = ot_xcalloc(t->nfuncs ? t->nfuncs : 1, sizeof(*t->nlong));
}

uint64_t ot_tables_longest_floor(const struct ot_tables *t, size_t f)
{
	uint64_t kept;

	if (!t->nlongest)
		return UINT64_MAX;
	if (t->nlong[f] < t->nlongest)
		return 0;
	kept = t->longest[f * t->nlongest + t->nlongest - 1].dur_ns;
	return kept < UINT64_MAX ? kept + 1 : UINT64_MAX;
}

int ot_tables_keep_longest(struct ot_tables *t, size_t f, const struct ot_longest *l)
{
	struct ot_longest *v;
	size_t i, n;

	if (!t->nlongest)
		return 0;
	v = &t->longest[f * t->nlongest];
	n = t->nlong[f];
	if (n == t->nlongest) {
		if (l->dur_ns <= v[n - 1].dur_ns)
			return 0;
		n--;
	}
	for (i = n; i > 0 && v[i - 1].dur_ns < l->dur_ns; i--)
		v[i] = v[i - 1];
	v[i] = *l;
	t->nlong[f] = (uint32_t)n + 1;
	return 1;
}

struct ot_values *ot_tables_values(struct ot_tables *t, size_t f, unsigned slot)
{
	struct ot_values **v;

	if (!t->vals)
		t->vals = ot_xcalloc(t->nfuncs ? t->nfuncs * OT_TV_NSLOTS : 1, sizeof(*t->vals));
	v = &t->vals[f * OT_TV_NSLOTS + slot];
	if (!*v) {
		*v = ot_xmalloc(sizeof(**v));
		ot_values_init(*v);
	}
	return *v;
}

static void merge_stats(struct ot_func_stats *d, const struct ot_func_stats *s)
{
	uint32_t k;

	d->scopes += s->scopes;
	d->duplicates += s->duplicates;
	d->unclosed += s->unclosed;
	d->orphans += s->orphans;
	d->outside_parent += s->outside_parent;
	d->spans_loss += s->spans_loss;
	d->points += s->points;
	d->skipped += s->skipped;
	d->past_uretprobe_limit += s->past_uretprobe_limit;
	for (k = s->ndepths; k-- > 0;) {
		if (!s->depths[k])
			continue;
		if (k >= d->ndepths)
			ot_tables_depth_grow(d, k);
		d->depths[k] += s->depths[k];
	}
	ot_hist_merge(&d->hist, &s->hist);
	if (d->comp && s->comp)
		ot_hist_merge(d->comp, s->comp);
}

/* map[i]: dst's node for src's node i (0: none, the root's 0 too). */
static uint32_t *merge_tree(struct ot_tables *dst, const struct ot_tables *src)
{
	uint32_t *map = ot_xcalloc(src->ntree, sizeof(*map));
	size_t i;

	/* A node is made after its parent: parents map first. */
	for (i = 1; i < src->ntree; i++) {
		const struct ot_tree_node *n = &src->tree[i];
		uint32_t up = map[n->parent];

		map[i] = n->parent && !up ? 0 : ot_tables_child(dst, up, n->func);
		if (!map[i]) {
			dst->tree_dropped += n->calls;
			continue;
		}
		dst->tree[map[i]].calls += n->calls;
		dst->tree[map[i]].total_ns += n->total_ns;
		dst->tree[map[i]].child_ns += n->child_ns;
	}
	dst->tree_dropped += src->tree_dropped;
	return map;
}

void ot_tables_merge(struct ot_tables *dst, const struct ot_tables *src)
{
	uint32_t *map;
	size_t f, k, n;

	for (f = 0; f < dst->nfuncs && f < src->nfuncs; f++)
		merge_stats(&dst->stats[f], &src->stats[f]);
	map = merge_tree(dst, src);
	if (src->nlongest)
		ot_tables_longest(dst, src->nlongest);
	for (f = 0; src->nlongest && f < dst->nfuncs && f < src->nfuncs; f++) {
		const struct ot_longest *l = ot_tables_longest_of(src, f, &n);

		for (k = 0; k < n; k++) {
			struct ot_longest c = l[k];

			c.node = c.node < src->ntree ? map[c.node] : 0;
			ot_tables_keep_longest(dst, f, &c);
		}
	}
	free(map);
	for (f = 0; src->vals && f < dst->nfuncs && f < src->nfuncs; f++)
		for (k = 0; k < OT_TV_NSLOTS; k++)
			if (src->vals[f * OT_TV_NSLOTS + k])
				ot_values_merge(ot_tables_values(dst, f, (unsigned)k),
						src->vals[f * OT_TV_NSLOTS + k]);
	dst->threads += src->threads;
}
