/*
 * The text report's call tree: one row per path, busiest first, with
 * recursion folded so that a deep one stays readable (at the levels JSON
 * folds, lib/scopes/fold).  The JSON has every path (lib/report/report_json.c);
 * this one stops where people stop reading.
 */
#include "report_priv.h"
#include "scopes/fold.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int cmp_node_total(const void *a, const void *b, void *tree)
{
	const struct ot_tree_node *t = tree;
	uint64_t x = t[*(const uint32_t *)a].total_ns, y = t[*(const uint32_t *)b].total_ns;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Children of node n, busiest first, into a new array; returns count. */
static size_t children(const struct ot_report *r, uint32_t n, uint32_t **out)
{
	size_t k = 0;
	uint32_t c;

	for (c = r->tree[n].first_child; c; c = r->tree[c].next_sibling)
		k++;
	*out = calloc(k ? k : 1, sizeof(**out));
	if (!*out)
		return 0;
	k = 0;
	for (c = r->tree[n].first_child; c; c = r->tree[c].next_sibling)
		(*out)[k++] = c;
	qsort_r(*out, k, sizeof(**out), cmp_node_total, (void *)r->tree);
	return k;
}

/* Direct recursion past this many levels is shown as one row. */
#define TREE_REC_LEVELS OT_FOLD_LEVELS
/* The widest label the column is sized to (at least 32): a longer one, a
 * long name or a deep one, wraps (ot_report_cell). */
#define TREE_LABEL_MAX 64

/* Did a scope close on node n's path or below it?  (A call still open at
 * the end made a node without one.) */
static int tree_busy(const struct ot_report *r, uint32_t n)
{
	uint32_t c;

	if (r->tree[n].calls)
		return 1;
	for (c = r->tree[n].first_child; c; c = r->tree[c].next_sibling)
		if (tree_busy(r, c))
			return 1;
	return 0;
}

/*
 * The rest of node n's chain of direct recursion, below level: its calls
 * and self time added to *calls and *self, so that one row stands for
 * them.  Returns the chain's last level.
 */
static unsigned rec_chain(const struct ot_report *r, uint32_t n, unsigned level,
			  uint64_t *calls, uint64_t *self)
{
	uint32_t func = r->tree[n].func, c, x, same;

	for (c = n; (c = r->tree[c].first_child);) {
		same = 0;
		for (x = c; x; x = r->tree[x].next_sibling)
			if (r->tree[x].func == func)
				same = x;
		if (!same)
			break;
		c = same;
		*calls += r->tree[c].calls;
		*self += ot_report_node_self(&r->tree[c]);
		level++;
	}
	return level;
}

/* Node n's row; with f NULL only its label's width, widening *lw. */
static void tree_row(FILE *f, const struct ot_report *r, uint32_t n, unsigned indent,
		     unsigned level, size_t *lw)
{
	const struct ot_tree_node *node = &r->tree[n];
	uint64_t parent_total = r->tree[node->parent].total_ns;
	uint64_t calls = node->calls, self = ot_report_node_self(node);
	char a[32], b[32], pct[16], suffix[48] = "";
	const char *name = r->names[node->func];
	size_t len = 2 * indent + strlen(name) + sizeof(suffix);
	char *label;

	if (level > TREE_REC_LEVELS) {
		unsigned last = rec_chain(r, n, level, &calls, &self);

		snprintf(suffix, sizeof(suffix), " (levels %u..%u)", level, last);
	} else if (level > 1) {
		snprintf(suffix, sizeof(suffix), " (level %u)", level);
	}
	if (node->parent && parent_total)
		snprintf(pct, sizeof(pct), "%.1f%%",
			 100.0 * (double)node->total_ns / (double)parent_total);
	else
		snprintf(pct, sizeof(pct), "-");
	label = ot_xmalloc(len);
	snprintf(label, len, "%*s%s%s", (int)(2 * indent), "", name, suffix);
	if (!f) {
		if (strlen(label) > *lw && strlen(label) <= TREE_LABEL_MAX)
			*lw = strlen(label);
		free(label);
		return;
	}
	ot_report_cell(f, label, *lw, 0);
	fprintf(f, " %10" PRIu64 " %10s %10s %8s\n", calls,
		ot_report_duration(node->total_ns, a, sizeof(a)),
		ot_report_duration(self, b, sizeof(b)), pct);
	free(label);
}

/*
 * One call tree row per node, children busiest first.  A function calling
 * itself stays at its caller's indentation with its level ("rec (level
 * 2)"), and levels past TREE_REC_LEVELS are summed into one row, so a
 * recursion 64 deep stays readable.  With f NULL only the widest label is
 * measured into *lw, so that the columns line up.
 */
static void tree_text(FILE *f, const struct ot_report *r, uint32_t n,
		      unsigned indent, unsigned level, size_t *lw)
{
	uint32_t *kids;
	size_t k, i;

	if (n && !tree_busy(r, n))
		return;
	if (n) {
		tree_row(f, r, n, indent, level, lw);
		if (level > TREE_REC_LEVELS)
			return;
	}
	if (indent > 24)
		return; /* deep nesting: the JSON has every path */
	k = children(r, n, &kids);
	for (i = 0; i < k; i++) {
		int rec = n && r->tree[kids[i]].func == r->tree[n].func;

		tree_text(f, r, kids[i], rec ? indent : indent + (n ? 1 : 0),
			  rec ? level + 1 : 1, lw);
	}
	free(kids);
}

void ot_report_call_tree_text(FILE *f, const struct ot_report *r)
{
	size_t lw = 32;

	if (r->ntree <= 1)
		return;
	tree_text(NULL, r, 0, 0, 0, &lw);
	fprintf(f, "\n%-*s %10s %10s %10s %8s\n", (int)lw, "CALL TREE", "CALLS",
		"TOTAL", "SELF", "PARENT%");
	tree_text(f, r, 0, 0, 0, &lw);
	if (r->tree_dropped)
		fprintf(f, "(%" PRIu64 " scopes on paths beyond the tree's %d-node limit)\n",
			r->tree_dropped, OT_PAIR_TREE_MAX);
}
