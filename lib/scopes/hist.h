/*
 * hist.h - constant-memory latency histograms.
 *
 * Log-linear buckets in the HDR-histogram manner: values below 64 ns are
 * exact, above that every power of two is split into 64 equal buckets, so a
 * percentile read from the bucket midpoint is within 1/128 (0.8 %) of the
 * true value anywhere in the u64 range.  Memory is fixed (~30 KB) however
 * long the capture runs; the histogram never stores individual values.
 */
#ifndef OT_HIST_H
#define OT_HIST_H

#include <stdint.h>

#define OT_HIST_SUB_BITS 6
#define OT_HIST_SUB (1u << OT_HIST_SUB_BITS)
#define OT_HIST_NBUCKETS (OT_HIST_SUB + (64 - OT_HIST_SUB_BITS) * OT_HIST_SUB)

struct ot_hist {
	uint64_t count;
	uint64_t min;	/* exact; UINT64_MAX while empty */
	uint64_t max;	/* exact */
	uint64_t sum;	/* of every value added (Prometheus' _sum) */
	uint64_t buckets[OT_HIST_NBUCKETS];
};

void ot_hist_init(struct ot_hist *h);

/* Bucket index of value, and the [lo, lo + width) range bucket b covers. */
static inline unsigned ot_hist_bucket(uint64_t v)
{
	unsigned e;

	if (v < OT_HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	/* v >> (e - SUB_BITS) lies in [SUB, 2 * SUB): its low bits pick the sub-bucket. */
	return OT_HIST_SUB + (e - OT_HIST_SUB_BITS) * OT_HIST_SUB +
	       (unsigned)((v >> (e - OT_HIST_SUB_BITS)) - OT_HIST_SUB);
}
void ot_hist_bucket_range(unsigned b, uint64_t *lo, uint64_t *width);

/* Add every value src holds to dst (two threads' durations as one). */
void ot_hist_merge(struct ot_hist *dst, const struct ot_hist *src);

/* Inline: lib/scopes/pair adds every scope's duration. */
static inline void ot_hist_add(struct ot_hist *h, uint64_t v)
{
	h->buckets[ot_hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/*
 * The q-quantile (0 <= q <= 1) by the nearest-rank rule: the bucket holding
 * the ceil(q * count)-th smallest value, read at its midpoint and clamped to
 * [min, max].  Returns 0 for an empty histogram.
 */
uint64_t ot_hist_quantile(const struct ot_hist *h, double q);

#endif
