/*
 * disarm.c - a capture's probes released and what that cost measured
 * (disarm.h): wall time, IPIs, TLB shootdowns; a slow close explained from a
 * timer's thread.
 */
#include "disarm.h"
#include "util/clock.h"
#include "util/error.h"
#include "probes/ipi.h"

#include <signal.h>
#include <time.h>

static void on_slow_disarm(union sigval v)
{
	const struct ot_disarm *d = v.sival_ptr;

	ot_warn("still disarming %zu %s (the kernel waits for grace periods on each)...",
		d->n, d->what);
}

void ot_disarm(struct ot_disarm *d, struct ot_probes *probes, struct ot_target *t, int freeze,
	       struct ot_report *rep, struct ot_probes_said *said)
{
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD };
	struct itimerspec one_s = { .it_value = { .tv_sec = 1 } };
	struct ot_ipi before, after;
	timer_t timer;
	int timed;
	uint64_t t0;

	if (!probes)
		return;
	d->n = ot_probes_nevents(probes);
	d->what = ot_probes_objects(probes);
	sev.sigev_notify_function = on_slow_disarm;
	sev.sigev_value.sival_ptr = d;
	timed = !timer_create(CLOCK_MONOTONIC, &sev, &timer);
	if (timed)
		timer_settime(timer, 0, &one_s, NULL);
	t0 = ot_now_ns();
	ot_ipi_read(&before);
	/* The perf backend takes ~0.3 s per function to disarm: a process is
	 * not held stopped that long, so only its arming is frozen. */
	if (freeze && ot_probes_quick_close(probes) && !t->exited && !ot_target_check_exit(t))
		ot_target_freeze(t);
	rep->disarm_frozen = t->frozen;
	/* The backend's last word (its removal from the process) replaces what it said
	 * before; the report points into it. */
	ot_probes_close_said(probes, said);
	ot_target_thaw(t);
	ot_ipi_read(&after);
	rep->disarmed = 1;
	rep->disarm_ns = ot_now_ns() - t0;
	rep->disarm_ipis = after.cal - before.cal;
	rep->disarm_tlb = after.tlb - before.tlb;
	if (timed)
		timer_delete(timer);
}
