/* Histograms: exact small values, <1 % percentile error, bucket layout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "lib/scopes/hist.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_small_values_exact(void **state)
{
	struct ot_hist h;
	uint64_t v;

	(void)state;
	ot_hist_init(&h);
	for (v = 1; v <= 63; v++)
		ot_hist_add(&h, v);
	assert_int_equal(h.count, 63);
	assert_int_equal(h.min, 1);
	assert_int_equal(h.max, 63);
	assert_int_equal(ot_hist_quantile(&h, 0.5), 32);
	assert_int_equal(ot_hist_quantile(&h, 0.01), 1);
}

static void test_bucket_ranges_tile(void **state)
{
	uint64_t lo, width, prev_end = 0;
	unsigned b;

	(void)state;
	for (b = 0; b < OT_HIST_NBUCKETS; b++) {
		ot_hist_bucket_range(b, &lo, &width);
		assert_int_equal(lo, prev_end); /* no gaps, no overlap */
		assert_int_equal(ot_hist_bucket(lo), b);
		assert_int_equal(ot_hist_bucket(lo + width - 1), b);
		prev_end = lo + width;
		if (prev_end == 0)
			break; /* wrapped past UINT64_MAX: the last bucket */
	}
	assert_int_equal(ot_hist_bucket(UINT64_MAX), OT_HIST_NBUCKETS - 1);
}

/* Percentiles of log-uniform values from 1 ns to 100 s, against a sort. */
static void test_percentile_error_below_one_percent(void **state)
{
	enum { N = 200000 };
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct ot_hist h;
	unsigned i;

	(void)state;
	assert_non_null(v);
	ot_hist_init(&h);
	srand(7);
	for (i = 0; i < N; i++) {
		double e = (double)rand() / RAND_MAX * 25.3; /* e^25.3 ~ 1e11 ns */

		v[i] = (uint64_t)__builtin_exp(e) + 1;
		ot_hist_add(&h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t want = v[(size_t)__builtin_ceil(qs[i] * N) - 1];
		uint64_t got = ot_hist_quantile(&h, qs[i]);
		double err = ((double)got - (double)want) / (double)want;

		assert_true(err < 0.01 && err > -0.01);
	}
	assert_int_equal(ot_hist_quantile(&h, 1.0), v[N - 1]);
	assert_int_equal(ot_hist_quantile(&h, 0.0), v[0]);
	free(v);
}

static void test_empty(void **state)
{
	struct ot_hist h;

	(void)state;
	ot_hist_init(&h);
	assert_int_equal(ot_hist_quantile(&h, 0.5), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_bucket_ranges_tile),
		cmocka_unit_test(test_percentile_error_below_one_percent),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
