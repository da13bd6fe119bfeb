/*
 * The distribution of recorded values (-f 'NAME(argN)', 'NAME%ret'):
 * exact extremes, nearest-rank medians, log2 buckets by sign and bit
 * length that tile the whole int64 range, INT64_MIN and INT64_MAX alike.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/scopes/values.h"

static void test_small_values_exact(void **state)
{
	struct ot_values v;
	int64_t x;

	(void)state;
	ot_values_init(&v);
	for (x = -10; x <= 40; x++)
		ot_values_add(&v, x);
	assert_int_equal(v.count, 51);
	assert_int_equal(v.min, -10);
	assert_int_equal(v.max, 40);
	assert_int_equal(ot_values_quantile(&v, 0.5), 15);	/* the 26th of 51 */
	assert_int_equal(ot_values_quantile(&v, 0.0), -10);
	assert_int_equal(ot_values_quantile(&v, 1.0), 40);
	assert_int_equal(ot_values_quantile(&v, 0.1), -5);	/* the 6th */
	assert_int_equal(v.log2[64], 1);			/* 0 */
	assert_int_equal(v.log2[64 + 1], 1);			/* 1 */
	assert_int_equal(v.log2[64 + 6], 9);			/* 32..40 */
	assert_int_equal(v.log2[64 - 4], 3);			/* -8..-10 */
	assert_int_equal(v.log2[64 - 1], 1);			/* -1 */
}

static void test_extremes(void **state)
{
	struct ot_values v;

	(void)state;
	ot_values_init(&v);
	assert_int_equal(ot_values_quantile(&v, 0.5), 0);	/* empty */
	ot_values_add(&v, INT64_MIN);
	ot_values_add(&v, INT64_MAX);
	ot_values_add(&v, -1);
	assert_true(ot_values_quantile(&v, 0.0) == INT64_MIN);
	assert_int_equal(ot_values_quantile(&v, 0.5), -1);
	assert_true(ot_values_quantile(&v, 1.0) == INT64_MAX);
	assert_int_equal(v.log2[0], 1);
	assert_int_equal(v.log2[127], 1);
	assert_int_equal(v.log2[63], 1);
}

/* Buckets are contiguous from INT64_MIN to INT64_MAX, each value in its own. */
static void test_buckets_tile(void **state)
{
	int64_t lo, hi, prev_hi = 0;
	unsigned b;

	(void)state;
	for (b = 0; b < OT_VALUES_LOG2; b++) {
		ot_values_log2_range(b, &lo, &hi);
		assert_true(lo <= hi);
		if (b == 0)
			assert_true(lo == INT64_MIN);
		else
			assert_true(lo == prev_hi + 1);
		prev_hi = hi;
	}
	assert_true(prev_hi == INT64_MAX);
	ot_values_log2_range(0, &lo, &hi);
	assert_true(lo == INT64_MIN && hi == INT64_MIN);
	ot_values_log2_range(64 + 3, &lo, &hi);
	assert_int_equal(lo, 4);
	assert_int_equal(hi, 7);
	ot_values_log2_range(64 - 3, &lo, &hi);
	assert_int_equal(lo, -7);
	assert_int_equal(hi, -4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_buckets_tile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
