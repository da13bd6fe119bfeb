/*
 * fold.h - the call tree with deep recursion folded, for the outputs that
 * list every path (JSON's call_tree, --folded): a path's size then grows
 * with the number of distinct paths, not with the square of a recursion's
 * depth (one path per level, each as long as its level).
 *
 * A function's first OT_FOLD_LEVELS occurrences on a path are entries of
 * their own, as the text report shows them; the next occurrence is one
 * entry that sums every deeper one (rec, rec, rec, rec, then "rec, levels
 * 5..8000"), and the paths below it are folded into it the same way (a
 * leaf called at every level is one entry under it).  Mutual recursion
 * folds too: the (OT_FOLD_LEVELS+1)th occurrence of any function on a
 * path takes its deeper ones.  Pure: reads a tree (lib/scopes/pair's),
 * allocates the result.
 */
#ifndef OT_FOLD_H
#define OT_FOLD_H

#include "pair.h"

#include <stddef.h>
#include <stdint.h>

/* Occurrences of a function on one path kept apart (the text report's
 * recursion levels shown one by one). */
#define OT_FOLD_LEVELS 4

struct ot_fold_entry {
	uint32_t func;
	uint32_t parent;		/* entry index; 0 the root (no function) */
	uint64_t calls;			/* the calls of every node folded in */
	uint64_t total_ns;		/* time in its outermost nodes (deeper ones
					 * are inside them) */
	uint64_t self_ns;		/* total minus traced callees, summed */
	uint32_t depth_lo, depth_hi;	/* nesting depths of its nodes (0: no
					 * traced caller, as the DEPTH column) */
};

struct ot_fold {
	struct ot_fold_entry *e;	/* e[0] the root; parents before children */
	size_t n;
};

/* Fold tree nodes 0..n-1 (node 0 the root, parents before children) into
 * *out; free with ot_fold_free. */
void ot_fold_tree(const struct ot_tree_node *tree, size_t n, struct ot_fold *out);
void ot_fold_free(struct ot_fold *f);

#endif
