/*
 * hist.c - constant-memory log-linear latency histograms (hist.h): exact below
 * 64 ns, within 0.8 % above, percentiles read from bucket midpoints.
 */
#include "hist.h"

#include <math.h>
#include <string.h>

void ot_hist_init(struct ot_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void ot_hist_merge(struct ot_hist *dst, const struct ot_hist *src)
{
	unsigned b;

	if (!src->count)
		return;
	for (b = 0; b < OT_HIST_NBUCKETS; b++)
		dst->buckets[b] += src->buckets[b];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

void ot_hist_bucket_range(unsigned b, uint64_t *lo, uint64_t *width)
{
	unsigned shift, sub;

	if (b < OT_HIST_SUB) {
		*lo = b;
		*width = 1;
		return;
	}
	shift = (b - OT_HIST_SUB) / OT_HIST_SUB;
	sub = (b - OT_HIST_SUB) % OT_HIST_SUB;
	*lo = (uint64_t)(OT_HIST_SUB + sub) << shift;
	*width = (uint64_t)1 << shift;
}

uint64_t ot_hist_quantile(const struct ot_hist *h, double q)
{
	uint64_t rank, seen = 0, lo, width, mid;
	unsigned b;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (b = 0; b < OT_HIST_NBUCKETS; b++) {
		seen += h->buckets[b];
		if (seen >= rank)
			break;
	}
	ot_hist_bucket_range(b, &lo, &width);
	mid = lo + width / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}
