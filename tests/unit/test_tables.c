/*
 * The report's tables (lib/scopes/tables): the call tree's nodes found by
 * (parent, function) and bounded, self time kept on the parent, depths
 * grown as calls go deeper, each function's N longest calls (longest
 * first, ties in the order offered), and the pairing filling the same
 * tables the report reads (gathered from records).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/scopes/pair.h"
#include "lib/scopes/tables.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_nodes_by_path),
		cmocka_unit_test(test_tree_bounded),
		cmocka_unit_test(test_depths_grow),
		cmocka_unit_test(test_longest_kept),
		cmocka_unit_test(test_values_by_slot),
		cmocka_unit_test(test_pair_fills_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
