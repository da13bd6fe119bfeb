/*
 * tsc.h - from TSC ticks to CLOCK_MONOTONIC nanoseconds, for the records
 * --backend inject's runtime stamps with rdtsc (29 cycles, where the vDSO's
 * clock costs tens of ns).
 *
 * The map is fitted to (ticks, ns) samples taken here, on the same
 * machine's TSC: piecewise linear and continuous, each piece starting
 * where the last one was at that sample, its slope the clock's rate over
 * the last second or so, corrected to meet the clock again within two of
 * the intervals between samples.  So a tick count never converts to less
 * than an earlier one (no negative duration), and the map follows the
 * kernel's clock, NTP's slewing included, within microseconds.  Pure code over the samples; ot_tsc_sample reads the clocks.
 */
#ifndef OT_TSC_H
#define OT_TSC_H

#include <stdint.h>

#define OT_TSC_KEEP 32		/* recent samples, for the slope */

struct ot_tsc {
	int n;			/* samples taken */
	uint64_t t0, n0;	/* the first */
	uint64_t tb, nb;	/* this piece: ns = nb + (ticks - tb) * k */
	double k;
	uint64_t tp, np;	/* the previous piece */
	double kp;
	/* k and kp as 32.32 fixed point, what conversion uses: one multiply,
	 * no float (the drain converts every record); 0 until ready. */
	uint64_t mult, multp;
	uint64_t st[OT_TSC_KEEP], sn[OT_TSC_KEEP]; /* the latest samples, a ring */
};

void ot_tsc_init(struct ot_tsc *c);

/* One sample: the TSC read at the same moment as CLOCK_MONOTONIC. */
void ot_tsc_add(struct ot_tsc *c, uint64_t ticks, uint64_t ns);

/* 1 once two samples give a slope. */
int ot_tsc_ready(const struct ot_tsc *c);

/*
 * ticks in CLOCK_MONOTONIC ns on the map (the first sample's time until
 * it is ready).  Inline: the drain converts every record, almost all on
 * the current piece.
 */
static inline uint64_t ot_tsc_ns(const struct ot_tsc *c, uint64_t ticks)
{
	uint64_t back;

	if (ticks >= c->tb && c->mult)
		return c->nb + (uint64_t)((unsigned __int128)(ticks - c->tb) * c->mult >> 32);
	if (!c->mult)
		return c->n0;
	if (ticks >= c->tp)
		return c->np + (uint64_t)((unsigned __int128)(ticks - c->tp) * c->multp >> 32);
	back = (uint64_t)((unsigned __int128)(c->tp - ticks) * c->multp >> 32);
	return back < c->np ? c->np - back : 0;
}

/* Read both clocks, rereading while the thread was preempted between. */
void ot_tsc_sample(uint64_t *ticks, uint64_t *ns);

#endif
