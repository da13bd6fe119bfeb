/*
 * lib/scopes/keys (rows of pairs' keys) and lib/rings/strtab (strings
 * interned, counted per probe, their top N).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/scopes/keys.h"
#include "lib/rings/strtab.h"

/* Rows in first-seen order per (pair, key); past the reserve, the pair's
 * overflow row, after the keys' rows. */
static void test_keys_rows(void **state)
{
	struct ot_keys *k = ot_keys_new(10, 3, 2);
	int is_new;

	(void)state;
	assert_int_equal(ot_keys_row(k, 1, 42, &is_new), 10);
	assert_true(is_new);
	assert_int_equal(ot_keys_row(k, 1, 42, &is_new), 10);
	assert_false(is_new);
	assert_int_equal(ot_keys_row(k, 2, 42, &is_new), 11);	/* another pair's */
	assert_int_equal(ot_keys_row(k, 1, 7, &is_new), 12);
	assert_int_equal(ot_keys_used(k), 3);
	assert_int_equal(ot_keys_row(k, 1, 8, &is_new), 13);	/* pair 1's overflow */
	assert_false(is_new);
	assert_int_equal(ot_keys_row(k, 2, 8, &is_new), 14);	/* pair 2's */
	assert_int_equal(ot_keys_row(k, 1, 7, &is_new), 12);
	assert_int_equal(ot_keys_overflowed(k), 2);
	ot_keys_free(k);
}

/* Many keys: each keeps its row (the table's probing holds). */
static void test_keys_many(void **state)
{
	struct ot_keys *k = ot_keys_new(0, 1000, 1);
	uint64_t key;
	int is_new;

	(void)state;
	for (key = 0; key < 1000; key++)
		assert_int_equal(ot_keys_row(k, 1, key * 0x10000, &is_new), key);
	for (key = 0; key < 1000; key++)
		assert_int_equal(ot_keys_row(k, 1, key * 0x10000, &is_new), key);
	assert_int_equal(ot_keys_overflowed(k), 0);
	ot_keys_free(k);
}

static void test_strtab_intern(void **state)
{
	struct ot_strtab *t = ot_strtab_new();
	char buf[64];
	uint32_t i;

	(void)state;
	assert_int_equal(ot_strtab_intern(t, "fib\0junk", 8), 1);	/* cut at the NUL */
	assert_int_equal(ot_strtab_intern(t, "fibx", 3), 1);		/* len bytes only */
	assert_int_equal(ot_strtab_intern(t, "", 1), 2);
	assert_string_equal(ot_strtab_get(t, 1), "fib");
	assert_string_equal(ot_strtab_get(t, 2), "");
	assert_null(ot_strtab_get(t, 0));
	assert_null(ot_strtab_get(t, 3));
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "name%u", i);
		assert_int_equal(ot_strtab_intern(t, buf, sizeof(buf)), i + 3);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "name%u", i);
		assert_int_equal(ot_strtab_intern(t, buf, strlen(buf)), i + 3);
	}
	assert_int_equal(ot_strtab_n(t), 5002);
	ot_strtab_free(t);
}

/* Counts per probe; the top N by count, ties first seen first. */
static void test_strtab_top(void **state)
{
	struct ot_strtab *t = ot_strtab_new();
	struct ot_strtab_hit top[3];
	size_t distinct, n;
	uint32_t id, k;

	(void)state;
	for (id = 1; id <= 5; id++)
		for (k = 0; k < (id == 4 ? 9 : id); k++)
			ot_strtab_count(t, 7, id);
	ot_strtab_count(t, 8, 1);
	n = ot_strtab_top(t, 7, top, 3, &distinct);
	assert_int_equal(n, 3);
	assert_int_equal(distinct, 5);
	assert_int_equal(top[0].id, 4);
	assert_int_equal(top[0].count, 9);
	assert_int_equal(top[1].id, 5);
	assert_int_equal(top[2].id, 3);
	n = ot_strtab_top(t, 8, top, 3, &distinct);
	assert_int_equal(n, 1);
	assert_int_equal(distinct, 1);
	assert_int_equal(top[0].count, 1);
	n = ot_strtab_top(t, 9, top, 3, &distinct);
	assert_int_equal(n + distinct, 0);
	ot_strtab_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_rows),
		cmocka_unit_test(test_keys_many),
		cmocka_unit_test(test_strtab_intern),
		cmocka_unit_test(test_strtab_top),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
