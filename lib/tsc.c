#include "tsc.h"
#include "clock.h"

#include <string.h>

/* How soon a piece's slope makes up for the error found at its start. */
#define CATCH_UP_NS 1e9

void ot_tsc_init(struct ot_tsc *c)
{
	memset(c, 0, sizeof(*c));
}

int ot_tsc_ready(const struct ot_tsc *c)
{
	return c->n >= 2 && c->k > 0;
}

uint64_t ot_tsc_ns(const struct ot_tsc *c, uint64_t ticks)
{
	double v;

	if (!ot_tsc_ready(c))
		return c->n0;
	if (ticks >= c->tb)
		v = (double)c->nb + (double)(ticks - c->tb) * c->k;
	else if (ticks >= c->tp)
		v = (double)c->np + (double)(ticks - c->tp) * c->kp;
	else
		v = (double)c->np - (double)(c->tp - ticks) * c->kp;
	return v > 0 ? (uint64_t)v : 0;
}

void ot_tsc_add(struct ot_tsc *c, uint64_t ticks, uint64_t ns)
{
	double avg, err, k;
	uint64_t at;

	if (!c->n) {
		c->t0 = c->tb = c->tp = ticks;
		c->n0 = c->nb = c->np = ns;
		c->n = 1;
		return;
	}
	if (ticks <= c->tb || ns <= c->n0)
		return;
	avg = (double)(ns - c->n0) / (double)(ticks - c->t0);
	if (c->n == 1) {
		c->k = c->kp = avg;
		c->n = 2;
		return;
	}
	/* Continuous: the new piece starts where the map is now. */
	at = ot_tsc_ns(c, ticks);
	err = (double)ns - (double)at;
	k = avg * (1.0 + err / CATCH_UP_NS);
	if (k < avg / 2)
		k = avg / 2;
	if (k > avg * 2)
		k = avg * 2;
	c->tp = c->tb;
	c->np = c->nb;
	c->kp = c->k;
	c->tb = ticks;
	c->nb = at;
	c->k = k;
	c->n++;
}

void ot_tsc_sample(uint64_t *ticks, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	/* The tightest of a few reads: a preemption between the two TSC
	 * reads makes one wide. */
	for (i = 0; i < 5; i++) {
#if defined(__x86_64__)
		uint64_t a = __builtin_ia32_rdtsc(), t = ot_now_ns(), b = __builtin_ia32_rdtsc();
#else
		uint64_t a = 0, t = ot_now_ns(), b = 0;
#endif

		if (b - a < best) {
			best = b - a;
			*ticks = a + (b - a) / 2;
			*ns = t;
		}
	}
}
