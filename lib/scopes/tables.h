/*
 * tables.h - the report's tables, in one home: per function its counts,
 * depths and duration histograms (struct ot_func_stats), and the call
 * tree by path with its calls, total and self time (struct ot_tree_node).
 *
 * With --slowest N, also each function's N longest calls (struct
 * ot_longest: when, how long, which thread, which path); with -f
 * 'NAME(argN)', 'NAME%ret', the distributions of the values its calls
 * recorded (struct ot_values, made for the functions that record).
 *
 * Filled either from records, by the pairing (lib/scopes/pair: the uprobe
 * backends, and inject's streaming), or from the tables an in-process
 * runtime keeps itself (issue 33: docs/aggregate.md); `gathered` says
 * which.  Whoever fills them, the report's assembly reads them only
 * through this header (lib/capture/capture_report.c, keyed.c), and
 * lib/report/ prints what it was handed: a filler changes no output.
 *
 * Memory: per function one ot_func_stats (its histogram ~30 KB, its
 * depths as deep as calls went), the tree at most OT_PAIR_TREE_MAX nodes
 * (40 bytes each and a hash slot); past that a path's closed calls are
 * counted in tree_dropped, never lost silently.  One writer, the thread
 * that fills them; nothing here prints, exits or fails (ot_x* allocation).
 */
#ifndef OT_TABLES_H
#define OT_TABLES_H

#include "hist.h"
#include "values.h"

#include <stddef.h>
#include <stdint.h>

struct ot_func_stats {
	uint64_t scopes;	 /* closed scopes, counted in hist */
	uint64_t duplicates;	 /* entries/returns reported twice, dropped */
	uint64_t unclosed;	 /* calls whose return never came */
	uint64_t orphans;	 /* returns with no open call */
	uint64_t outside_parent; /* scopes not inside their parent's interval */
	uint64_t spans_loss;	 /* scopes open when the kernel lost records:
				  * counted in scopes, kept out of hist */
	uint64_t *depths;	 /* scopes closed at each depth 0..ndepths-1,
				  * however deep (recursion): never folded */
	uint32_t ndepths;
	struct ot_hist hist;	 /* durations in ns */
	struct ot_hist *comp;	 /* compensated durations, with
				  * ot_pair_compensate; else NULL */
	uint64_t points;	 /* hits of a counted point (OT_EV_POINT: a USDT
				  * probe), which opens and closes nothing */
	uint64_t skipped;	 /* keyed scopes (OT_EV_KEYED) left open when a
				  * return of a scope that encloses them came:
				  * closed with it, not counted in scopes */
	uint64_t past_uretprobe_limit; /* calls entered with OT_PAIR_URETPROBE_MAX
				  * return probes open on their stack
				  * (ot_pair_set_uretprobe): the kernel gives
				  * them none, their returns are not seen */
};

/*
 * The call tree as observed: one node per distinct path of traced
 * functions from a thread's outermost traced call (outer > middle > inner).
 * Node 0 is the root (no function).  Bounded: past OT_PAIR_TREE_MAX nodes
 * new paths are not added (tree_dropped counts their scopes).
 */
#define OT_PAIR_TREE_MAX 65536

struct ot_tree_node {
	uint32_t func;
	uint32_t parent;
	uint32_t first_child, next_sibling; /* 0: none */
	uint64_t calls;
	uint64_t total_ns;	/* time in this function's scopes on this path */
	uint64_t child_ns;	/* of which in traced callees */
};

/* One of a function's longest calls. */
struct ot_longest {
	uint64_t at_ns;		/* when it began, since the capture's clock started */
	uint64_t dur_ns;
	uint32_t tid;
	uint32_t node;		/* its path in the tree; 0: unknown (the tree was full) */
};

/* A function's recorded values, by slot: its entry's first value, its
 * return value, then the entry's further values. */
#define OT_TV_ARG	0
#define OT_TV_RET	1
#define OT_TV_MORE	2
#define OT_TV_NMORE	3
#define OT_TV_NSLOTS	(OT_TV_MORE + OT_TV_NMORE)

/* How the tables were gathered. */
enum ot_tables_gathered {
	OT_TABLES_FROM_RECORDS = 0,	/* each call's records, paired by the tracer */
	OT_TABLES_IN_PROCESS,		/* the process's own tables, snapshotted */
};

struct ot_tables {
	size_t nfuncs;
	struct ot_func_stats *stats;	/* per function */
	struct ot_tree_node *tree;	/* node 0 the root */
	size_t ntree, treecap;
	uint32_t *thash;		/* tree nodes by (parent, func); 0 empty */
	size_t thcap;
	uint64_t tree_dropped;		/* closed scopes on no node (the tree was full) */
	size_t threads;			/* threads seen */
	/* --slowest: per function up to nlongest calls, longest first (equal
	 * ones in the order kept), nlong[f] of them; nlongest 0: none kept. */
	size_t nlongest;
	struct ot_longest *longest;	/* nfuncs x nlongest */
	uint32_t *nlong;
	/* nfuncs x OT_TV_NSLOTS distributions, NULL where not recorded
	 * (the array NULL until one is). */
	struct ot_values **vals;
	enum ot_tables_gathered gathered;
};

/* Empty tables for nfuncs functions (the tree holds its root);
 * ot_tables_fini releases them. */
void ot_tables_init(struct ot_tables *t, size_t nfuncs);
void ot_tables_fini(struct ot_tables *t);

/* Every function also keeps compensated durations (an empty histogram
 * each, made once). */
void ot_tables_comp(struct ot_tables *t);

/*
 * The child of node parent for function func, made at first use; 0 when
 * the tree is full.  Found by hash, not by walking siblings: a root may
 * have thousands of children (-f 'f*' over a flat program).
 */
uint32_t ot_tables_child(struct ot_tables *t, uint32_t parent, uint32_t func);

/* One more scope of s closed at depth (the depths grown to hold it). */
void ot_tables_depth_grow(struct ot_func_stats *s, uint32_t depth);
static inline void ot_tables_depth(struct ot_func_stats *s, uint32_t depth)
{
	if (depth >= s->ndepths)
		ot_tables_depth_grow(s, depth);
	s->depths[depth]++;
}

/* A scope of dur ns closed on tree node (0: no node, counted dropped). */
static inline void ot_tables_close_node(struct ot_tables *t, uint32_t node, uint64_t dur)
{
	if (node) {
		struct ot_tree_node *n = &t->tree[node];

		n->calls++;
		n->total_ns += dur;
		if (n->parent)
			t->tree[n->parent].child_ns += dur;
	} else {
		t->tree_dropped++;
	}
}

/* Keep each function's n longest calls (once, before any is offered). */
void ot_tables_longest(struct ot_tables *t, size_t n);

/* The shortest call ot_tables_keep_longest would keep for f: 0 while it
 * holds fewer than nlongest, UINT64_MAX when none are kept. */
uint64_t ot_tables_longest_floor(const struct ot_tables *t, size_t f);

/* Offer a call of f: kept if it is longer than the shortest kept (or
 * there is room), that one dropped.  1 if kept. */
int ot_tables_keep_longest(struct ot_tables *t, size_t f, const struct ot_longest *l);

/* Function f's longest calls, longest first, *n of them (NULL, 0: none kept). */
static inline const struct ot_longest *ot_tables_longest_of(const struct ot_tables *t, size_t f,
							    size_t *n)
{
	*n = t->nlongest ? t->nlong[f] : 0;
	return t->nlongest ? &t->longest[f * t->nlongest] : NULL;
}

/* Function f's values of slot (OT_TV_*), made empty at first use. */
struct ot_values *ot_tables_values(struct ot_tables *t, size_t f, unsigned slot);

/* The same, or NULL when f records none in that slot. */
static inline const struct ot_values *ot_tables_values_of(const struct ot_tables *t, size_t f,
							  unsigned slot)
{
	return t->vals ? t->vals[f * OT_TV_NSLOTS + slot] : NULL;
}

/*
 * Add src's tables to dst's (the same functions): the counts, depths,
 * durations and values added, src's call paths found or made in dst's
 * tree (a path dst has no room for counted in its tree_dropped), src's
 * longest calls offered to dst's (dst keeping as many as src when it
 * kept none), its threads added (they are other threads than dst's).
 * The tables of several threads, or processes, merged read as those one
 * pairing of all their records would have built.
 */
void ot_tables_merge(struct ot_tables *dst, const struct ot_tables *src);

/* Function f's statistics; valid until the tables are freed. */
static inline const struct ot_func_stats *ot_tables_stats(const struct ot_tables *t, size_t f)
{
	return &t->stats[f];
}

/* Tree nodes 0..*n-1; valid until the tables are next filled. */
static inline const struct ot_tree_node *ot_tables_tree(const struct ot_tables *t, size_t *n)
{
	*n = t->ntree;
	return t->tree;
}

/* Scopes closed at depth d (0 past the deepest). */
uint64_t ot_func_stats_depth(const struct ot_func_stats *s, unsigned d);

#endif
