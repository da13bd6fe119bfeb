/*
 * tsc.c - TSC ticks to CLOCK_MONOTONIC nanoseconds (tsc.h): a continuous,
 * never decreasing piecewise-linear map refitted from samples as the capture
 * runs.
 */
#include "tsc.h"
#include "util/clock.h"
#include "arch/arch.h"

#include <string.h>

/* The window the rate is measured over. */
#define WINDOW_NS 1000000000ull

void ot_tsc_init(struct ot_tsc *c)
{
	memset(c, 0, sizeof(*c));
}

int ot_tsc_ready(const struct ot_tsc *c)
{
	return c->n >= 2 && c->k > 0;
}

static uint64_t fixed(double k)
{
	return (uint64_t)(k * 4294967296.0 + 0.5);
}

void ot_tsc_add(struct ot_tsc *c, uint64_t ticks, uint64_t ns)
{
	uint64_t at, t_old = c->t0, n_old = c->n0, last;
	double avg, err, k;
	int i;

	if (!c->n) {
		c->t0 = c->tb = c->tp = ticks;
		c->n0 = c->nb = c->np = ns;
		c->st[0] = ticks;
		c->sn[0] = ns;
		c->n = 1;
		return;
	}
	last = c->sn[(c->n - 1) % OT_TSC_KEEP];
	if (ticks <= c->tb || ns <= last)
		return;
	/* The rate: from the newest sample at least a window old (else the
	 * oldest kept) to this one. */
	for (i = 1; i <= OT_TSC_KEEP && i <= c->n; i++) {
		int s = (c->n - i) % OT_TSC_KEEP;

		t_old = c->st[s];
		n_old = c->sn[s];
		if (ns - n_old >= WINDOW_NS)
			break;
	}
	c->st[c->n % OT_TSC_KEEP] = ticks;
	c->sn[c->n % OT_TSC_KEEP] = ns;
	avg = (double)(ns - n_old) / (double)(ticks - t_old);
	if (c->n == 1) {
		c->k = c->kp = avg;
		c->mult = c->multp = fixed(avg);
		c->n = 2;
		return;
	}
	/* Continuous: the new piece starts where the map is now, and makes
	 * up for its error within two sample intervals. */
	at = ot_tsc_ns(c, ticks);
	err = (double)ns - (double)at;
	k = avg * (1.0 + err / (2.0 * (double)(ns - last)));
	if (k < avg / 2)
		k = avg / 2;
	if (k > avg * 2)
		k = avg * 2;
	c->tp = c->tb;
	c->np = c->nb;
	c->kp = c->k;
	c->multp = c->mult;
	c->tb = ticks;
	c->nb = at;
	c->k = k;
	c->mult = fixed(k);
	c->n++;
}

void ot_tsc_sample(uint64_t *ticks, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	/* The tightest of a few reads: a preemption between the two TSC
	 * reads makes one wide. */
	for (i = 0; i < 5; i++) {
		uint64_t a = ot_arch_cycles(), t = ot_now_ns(), b = ot_arch_cycles();

		if (b - a < best) {
			best = b - a;
			*ticks = a + (b - a) / 2;
			*ns = t;
		}
	}
}
