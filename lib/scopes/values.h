/*
 * values.h - the distribution of an integer recorded with each call
 * (-f 'NAME(argN)', 'NAME%ret'): count, exact min and max, quantiles from
 * log-linear histograms (lib/scopes/hist: exact below 64, within 0.8 % above),
 * and log2 buckets by sign and bit length, in constant memory however
 * many calls.  Values are signed 64-bit (read's -1 and a size alike).
 */
#ifndef OT_VALUES_H
#define OT_VALUES_H

#include "hist.h"

#include <stdint.h>

/* Buckets: 64 for negatives by bit length (INT64_MIN has 64), one for 0,
 * 63 for positives. */
#define OT_VALUES_LOG2 128

struct ot_values {
	uint64_t count;
	int64_t min, max;
	struct ot_hist pos, neg;	/* x >= 0; and -x for x < 0 */
	uint64_t log2[OT_VALUES_LOG2];
};

void ot_values_init(struct ot_values *v);
void ot_values_add(struct ot_values *v, int64_t x);

/* Add every value src holds to dst. */
void ot_values_merge(struct ot_values *dst, const struct ot_values *src);

/* The q-quantile (nearest rank), or 0 when empty. */
int64_t ot_values_quantile(const struct ot_values *v, double q);

/* The values log2 bucket b holds: [*lo, *hi]. */
void ot_values_log2_range(unsigned b, int64_t *lo, int64_t *hi);

#endif
