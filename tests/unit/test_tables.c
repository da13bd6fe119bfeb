/*
 * The report's tables (lib/scopes/tables): the call tree's nodes found by
 * (parent, function) and bounded, self time kept on the parent, depths
 * grown as calls go deeper, each function's N longest calls (longest
 * first, ties in the order offered), and the pairing filling the same
 * tables the report reads (gathered from records); the tables of two
 * threads' pairings merged read as one pairing of both threads' records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/scopes/pair.h"
#include "lib/scopes/tables.h"

#include <stdio.h>
#include <string.h>

static void test_tree_nodes_by_path(void **state)
{
	struct ot_tables t;
	const struct ot_tree_node *n;
	uint32_t a, b, b2, c;
	size_t nn;

	(void)state;
	ot_tables_init(&t, 3);
	assert_int_equal(t.gathered, OT_TABLES_FROM_RECORDS);
	a = ot_tables_child(&t, 0, 0);
	b = ot_tables_child(&t, a, 1);
	b2 = ot_tables_child(&t, 0, 1);	/* f1 at the root: another path */
	assert_int_equal(ot_tables_child(&t, a, 1), b);
	assert_int_not_equal(b, b2);
	c = ot_tables_child(&t, b, 2);
	ot_tables_close_node(&t, c, 30);
	ot_tables_close_node(&t, b, 100);
	ot_tables_close_node(&t, a, 250);
	ot_tables_close_node(&t, 0, 7);	/* no node: dropped, counted */
	n = ot_tables_tree(&t, &nn);
	assert_int_equal(nn, 5);
	assert_int_equal(n[b].calls, 1);
	assert_int_equal(n[b].total_ns, 100);
	assert_int_equal(n[b].child_ns, 30);
	assert_int_equal(n[a].child_ns, 100);
	assert_int_equal(n[a].total_ns, 250);
	assert_int_equal(n[0].first_child, b2);	/* newest child first */
	assert_int_equal(n[b2].next_sibling, a);
	assert_int_equal(t.tree_dropped, 1);
	ot_tables_fini(&t);
}

/* Past OT_PAIR_TREE_MAX nodes a new path gets none (0), an old one its own. */
static void test_tree_bounded(void **state)
{
	struct ot_tables t;
	uint32_t i, first;

	(void)state;
	ot_tables_init(&t, 1);
	first = ot_tables_child(&t, 0, 0);
	for (i = 1; i < OT_PAIR_TREE_MAX - 1; i++)
		assert_int_not_equal(ot_tables_child(&t, i, 0), 0);
	assert_int_equal(t.ntree, OT_PAIR_TREE_MAX);
	assert_int_equal(ot_tables_child(&t, OT_PAIR_TREE_MAX - 1, 0), 0);
	assert_int_equal(ot_tables_child(&t, 0, 0), first);
	ot_tables_fini(&t);
}

static void test_depths_grow(void **state)
{
	struct ot_tables t;
	struct ot_func_stats *s;

	(void)state;
	ot_tables_init(&t, 1);
	s = &t.stats[0];
	ot_tables_depth(s, 0);
	ot_tables_depth(s, 100);	/* recursion: never folded */
	ot_tables_depth(s, 100);
	assert_true(s->ndepths > 100);
	assert_int_equal(ot_func_stats_depth(s, 0), 1);
	assert_int_equal(ot_func_stats_depth(s, 100), 2);
	assert_int_equal(ot_func_stats_depth(s, 50), 0);
	assert_int_equal(ot_func_stats_depth(s, 100000), 0);
	ot_tables_comp(&t);
	assert_non_null(s->comp);
	assert_int_equal(s->comp->count, 0);
	ot_tables_fini(&t);
}

static void test_longest_kept(void **state)
{
	struct ot_tables t;
	const struct ot_longest *l;
	static const uint64_t durs[] = { 50, 90, 20, 70, 70, 60, 10 };
	size_t i, n;

	(void)state;
	ot_tables_init(&t, 2);
	assert_int_equal(ot_tables_longest_floor(&t, 0), UINT64_MAX);	/* none kept */
	assert_null(ot_tables_longest_of(&t, 0, &n));
	assert_int_equal(n, 0);
	ot_tables_longest(&t, 3);
	assert_int_equal(ot_tables_longest_floor(&t, 1), 0);
	for (i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		struct ot_longest c = { .at_ns = 100 * i, .dur_ns = durs[i], .tid = 9,
					.node = (uint32_t)i };

		assert_int_equal(ot_tables_keep_longest(&t, 1, &c), i < 5);
	}
	l = ot_tables_longest_of(&t, 1, &n);
	assert_int_equal(n, 3);
	assert_int_equal(l[0].dur_ns, 90);
	assert_int_equal(l[1].dur_ns, 70);
	assert_int_equal(l[1].at_ns, 300);	/* the first of two equal ones */
	assert_int_equal(l[2].at_ns, 400);
	assert_int_equal(ot_tables_longest_floor(&t, 1), 71);
	ot_tables_longest_of(&t, 0, &n);
	assert_int_equal(n, 0);
	ot_tables_fini(&t);
}

/* A function's values made at first use, per slot, the same one after. */
static void test_values_by_slot(void **state)
{
	struct ot_tables t;
	struct ot_values *v;

	(void)state;
	ot_tables_init(&t, 3);
	assert_null(ot_tables_values_of(&t, 1, OT_TV_RET));
	v = ot_tables_values(&t, 1, OT_TV_RET);
	ot_values_add(v, -4);
	assert_ptr_equal(ot_tables_values(&t, 1, OT_TV_RET), v);
	assert_ptr_equal(ot_tables_values_of(&t, 1, OT_TV_RET), v);
	assert_null(ot_tables_values_of(&t, 1, OT_TV_ARG));
	assert_null(ot_tables_values_of(&t, 2, OT_TV_MORE + OT_TV_NMORE - 1));
	assert_int_equal(ot_tables_values_of(&t, 1, OT_TV_RET)->min, -4);
	ot_tables_fini(&t);
}

/* The pairing's counts land in the tables it hands out, the same ones
 * ot_pair_stats and ot_pair_tree read. */
static void test_pair_fills_tables(void **state)
{
	struct ot_pair *p = ot_pair_new(2);
	const struct ot_tables *t = ot_pair_tables(p);
	struct ot_event ev = { .tid = 7, .kind = OT_EV_ENTRY };
	const struct ot_tree_node *n;
	size_t nn;

	(void)state;
	ev.time = 10, ev.sp = 0x1000, ev.func = 0;
	ot_pair_feed(p, &ev);
	ev.time = 20, ev.sp = 0xf00, ev.func = 1;
	ot_pair_feed(p, &ev);
	ev.kind = OT_EV_RETURN;
	ev.time = 50;
	ot_pair_feed(p, &ev);
	ev.time = 110, ev.sp = 0x1000, ev.func = 0;
	ot_pair_feed(p, &ev);
	ot_pair_finish(p);
	assert_ptr_equal(ot_tables_stats(t, 1), ot_pair_stats(p, 1));
	assert_int_equal(ot_tables_stats(t, 0)->scopes, 1);
	assert_int_equal(ot_func_stats_depth(ot_tables_stats(t, 1), 1), 1);
	assert_int_equal(t->threads, 1);
	n = ot_tables_tree(t, &nn);
	assert_int_equal(nn, 3);
	assert_int_equal(n[1].total_ns, 100);
	assert_int_equal(n[1].child_ns, 30);
	assert_int_equal(t->tree_dropped, 0);
	ot_pair_free(p);
}

/* What the report's hook keeps of each scope: its longest calls and
 * its argument's values (lib/report/sinks does the same). */
static void keep(void *ctx, const struct ot_scope *sc)
{
	struct ot_tables *t = ot_pair_tables_fill(ctx);
	struct ot_longest l = { .at_ns = sc->start, .dur_ns = sc->end - sc->start,
				.tid = sc->tid, .node = sc->node };

	ot_tables_keep_longest(t, sc->func, &l);
	if (sc->has_arg)
		ot_values_add(ot_tables_values(t, sc->func, OT_TV_ARG), (int64_t)sc->arg);
}

static struct ot_pair *keeping_pair(void)
{
	struct ot_pair *p = ot_pair_new(3);

	ot_tables_longest(ot_pair_tables_fill(p), 4);
	ot_pair_on_scope(p, keep, p);
	return p;
}

static uint64_t now_ns;

static void feed(struct ot_pair *a, struct ot_pair *b, uint32_t tid, uint32_t f, uint64_t sp,
		 int kind)
{
	struct ot_event ev = { .time = now_ns += 10 + (now_ns * 7919) % 97, .sp = sp,
			       .tid = tid, .pid = 1, .func = f, .kind = (uint8_t)kind,
			       .value = f * 1000 + now_ns % 13, .has_value = kind == OT_EV_ENTRY };

	ot_pair_feed(a, &ev);
	ot_pair_feed(b, &ev);
}

/* Thread 1: outer > 2 x middle > 3 x inner, n times; thread 2: middle
 * recursing 5 deep and an inner left open. */
static void streams(struct ot_pair *one, struct ot_pair *t1, struct ot_pair *t2, int n)
{
	int r, m, i;

	for (r = 0; r < n; r++) {
		feed(one, t1, 1, 0, 0x9000, OT_EV_ENTRY);
		for (m = 0; m < 2; m++) {
			feed(one, t1, 1, 1, 0x8f00, OT_EV_ENTRY);
			for (i = 0; i < 3; i++) {
				feed(one, t1, 1, 2, 0x8e00, OT_EV_ENTRY);
				feed(one, t1, 1, 2, 0x8e00, OT_EV_RETURN);
			}
			feed(one, t1, 1, 1, 0x8f00, OT_EV_RETURN);
		}
		feed(one, t1, 1, 0, 0x9000, OT_EV_RETURN);
		for (i = 0; i < 5; i++)
			feed(one, t2, 2, 1, 0x5000 - 0x100 * (uint64_t)i, OT_EV_ENTRY);
		for (i = 5; i-- > 0;)
			feed(one, t2, 2, 1, 0x5000 - 0x100 * (uint64_t)i, OT_EV_RETURN);
	}
	feed(one, t2, 2, 2, 0x4000, OT_EV_ENTRY);
}

/* Node i's path, "f0>f1>f2". */
static void path_of(const struct ot_tables *t, uint32_t i, char *buf, size_t len)
{
	char tmp[256];

	buf[0] = 0;
	for (; i; i = t->tree[i].parent) {
		snprintf(tmp, sizeof(tmp), "f%u%s%s", t->tree[i].func, buf[0] ? ">" : "", buf);
		snprintf(buf, len, "%s", tmp);
	}
}

/* The node of t with path p, or 0. */
static uint32_t node_by_path(const struct ot_tables *t, const char *p)
{
	char buf[256];
	uint32_t i;

	for (i = 1; i < t->ntree; i++) {
		path_of(t, i, buf, sizeof(buf));
		if (!strcmp(buf, p))
			return i;
	}
	return 0;
}

static void assert_same_tables(const struct ot_tables *a, const struct ot_tables *b)
{
	char pa[256], pb[256];
	size_t f, k, na, nb;
	uint32_t i;

	for (f = 0; f < 3; f++) {
		const struct ot_func_stats *x = &a->stats[f], *y = &b->stats[f];
		const struct ot_longest *la = ot_tables_longest_of(a, f, &na);
		const struct ot_longest *lb = ot_tables_longest_of(b, f, &nb);

		assert_int_equal(x->scopes, y->scopes);
		assert_int_equal(x->unclosed, y->unclosed);
		for (k = 0; k < 16; k++)
			assert_int_equal(ot_func_stats_depth(x, (unsigned)k),
					 ot_func_stats_depth(y, (unsigned)k));
		assert_memory_equal(&x->hist, &y->hist, sizeof(x->hist));
		assert_int_equal(na, nb);
		for (k = 0; k < na; k++) {
			assert_int_equal(la[k].dur_ns, lb[k].dur_ns);
			assert_int_equal(la[k].at_ns, lb[k].at_ns);
			assert_int_equal(la[k].tid, lb[k].tid);
			path_of(a, la[k].node, pa, sizeof(pa));
			path_of(b, lb[k].node, pb, sizeof(pb));
			assert_string_equal(pa, pb);
		}
		if (ot_tables_values_of(a, f, OT_TV_ARG) || ot_tables_values_of(b, f, OT_TV_ARG))
			assert_memory_equal(ot_tables_values_of(a, f, OT_TV_ARG),
					    ot_tables_values_of(b, f, OT_TV_ARG), sizeof(struct ot_values));
	}
	assert_int_equal(a->ntree, b->ntree);
	for (i = 1; i < a->ntree; i++) {
		uint32_t j;

		path_of(a, i, pa, sizeof(pa));
		j = node_by_path(b, pa);
		assert_int_not_equal(j, 0);
		assert_int_equal(a->tree[i].calls, b->tree[j].calls);
		assert_int_equal(a->tree[i].total_ns, b->tree[j].total_ns);
		assert_int_equal(a->tree[i].child_ns, b->tree[j].child_ns);
	}
	assert_int_equal(a->tree_dropped, b->tree_dropped);
	assert_int_equal(a->threads, b->threads);
}

static void test_merge_reads_as_one_pairing(void **state)
{
	struct ot_pair *one = keeping_pair(), *t1 = keeping_pair(), *t2 = keeping_pair();
	struct ot_tables m;

	(void)state;
	streams(one, t1, t2, 50);
	ot_pair_finish(one);
	ot_pair_finish(t1);
	ot_pair_finish(t2);
	ot_tables_init(&m, 3);
	ot_tables_merge(&m, ot_pair_tables(t1));
	ot_tables_merge(&m, ot_pair_tables(t2));
	assert_int_equal(m.stats[2].unclosed, 1);
	assert_int_equal(ot_func_stats_depth(&m.stats[1], 4), 50);
	assert_same_tables(&m, ot_pair_tables(one));
	ot_tables_fini(&m);
	ot_pair_free(one);
	ot_pair_free(t1);
	ot_pair_free(t2);
}

/* Merged into tables whose tree is full, a new path's calls are counted dropped. */
static void test_merge_into_full_tree(void **state)
{
	struct ot_pair *one = keeping_pair(), *t1 = keeping_pair(), *t2 = keeping_pair();
	struct ot_tables m;
	uint32_t i;

	(void)state;
	streams(one, t1, t2, 3);
	ot_pair_finish(t1);
	ot_tables_init(&m, 3);
	for (i = 1; m.ntree < OT_PAIR_TREE_MAX; i++)
		ot_tables_child(&m, i - 1, 0);	/* f0 > f0 > ...: full */
	ot_tables_merge(&m, ot_pair_tables(t1));
	/* f0 at the root exists; f0 > f1 and f0 > f1 > f2 have no room. */
	assert_int_equal(m.tree[1].calls, 3);
	assert_int_equal(m.tree_dropped, 3 * 2 + 3 * 6);
	assert_int_equal(m.stats[2].scopes, 18);
	ot_tables_fini(&m);
	ot_pair_free(one);
	ot_pair_free(t1);
	ot_pair_free(t2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_nodes_by_path),
		cmocka_unit_test(test_tree_bounded),
		cmocka_unit_test(test_depths_grow),
		cmocka_unit_test(test_longest_kept),
		cmocka_unit_test(test_values_by_slot),
		cmocka_unit_test(test_pair_fills_tables),
		cmocka_unit_test(test_merge_reads_as_one_pairing),
		cmocka_unit_test(test_merge_into_full_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
