/*
 * values.c - the distribution of an integer recorded with each call
 * (values.h): count, exact min and max, quantiles, log2 buckets by sign, in
 * constant memory.
 */
#include "values.h"

#include <math.h>
#include <string.h>

void ot_values_init(struct ot_values *v)
{
	memset(v, 0, sizeof(*v));
	ot_hist_init(&v->pos);
	ot_hist_init(&v->neg);
	v->min = INT64_MAX;
	v->max = INT64_MIN;
}

void ot_values_merge(struct ot_values *dst, const struct ot_values *src)
{
	unsigned b;

	if (!src->count)
		return;
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	ot_hist_merge(&dst->pos, &src->pos);
	ot_hist_merge(&dst->neg, &src->neg);
	for (b = 0; b < OT_VALUES_LOG2; b++)
		dst->log2[b] += src->log2[b];
}

static unsigned bits(uint64_t m)
{
	return m ? 64u - (unsigned)__builtin_clzll(m) : 0;
}

void ot_values_add(struct ot_values *v, int64_t x)
{
	/* The magnitude of a negative, INT64_MIN's included. */
	uint64_t m = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;

	v->count++;
	if (x < v->min)
		v->min = x;
	if (x > v->max)
		v->max = x;
	if (x < 0) {
		ot_hist_add(&v->neg, m);
		v->log2[64 - bits(m)]++;
	} else {
		ot_hist_add(&v->pos, m);
		v->log2[64 + bits(m)]++;
	}
}

int64_t ot_values_quantile(const struct ot_values *v, double q)
{
	uint64_t k;
	int64_t x;

	if (!v->count)
		return 0;
	k = (uint64_t)ceil(q * (double)v->count);
	if (k < 1)
		k = 1;
	if (k > v->count)
		k = v->count;
	/* The negatives come first, the largest magnitude first; the
	 * magnitude is negated as unsigned (INT64_MIN's is 2^63). */
	if (k <= v->neg.count) {
		uint64_t j = v->neg.count - k + 1;

		x = (int64_t)((uint64_t)0 -
			      ot_hist_quantile(&v->neg, (double)j / (double)v->neg.count));
	} else {
		k -= v->neg.count;
		x = (int64_t)ot_hist_quantile(&v->pos, (double)k / (double)v->pos.count);
	}
	/* A bucket's representative may lie past the exact extremes. */
	return x < v->min ? v->min : x > v->max ? v->max : x;
}

void ot_values_log2_range(unsigned b, int64_t *lo, int64_t *hi)
{
	unsigned n;

	if (b == 64) {
		*lo = *hi = 0;
	} else if (b > 64) {
		n = b - 64;
		*lo = (int64_t)(1ull << (n - 1));
		*hi = n >= 63 ? INT64_MAX : (int64_t)((1ull << n) - 1);
	} else {
		n = 64 - b;
		/* Negated as unsigned: n 64 is INT64_MIN alone. */
		*hi = (int64_t)((uint64_t)0 - (1ull << (n - 1)));
		*lo = n >= 64 ? INT64_MIN : -(int64_t)((1ull << n) - 1);
	}
}
