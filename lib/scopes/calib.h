/*
 * calib.h - what a probe hit costs on this machine, measured during the
 * capture, to take the observer effect out of durations (--compensate).
 *
 * orbit-trace's own empty function, ot_calib_target, is a second probe
 * target of the capture (lib/capture/capture routes its records to a pairing of
 * their own).  A thread calls it in bursts while the capture runs; the
 * timed bursts, less the same calls untraced, give pair_ns, what one
 * traced call costs its caller (its entry and return probes together):
 * every traced call nested in a scope adds that much to the scope.  own_ns
 * is how much of a call's own probes falls between its entry and return
 * timestamps: the median duration of the empty function's scopes.  This
 * file keeps the statistics and the thread; the capture is lib/capture/capture's.
 */
#ifndef OT_CALIB_H
#define OT_CALIB_H

#include "pair.h"

#include <stddef.h>
#include <stdint.h>

struct ot_calib {
	uint64_t pair_ns;	/* per traced call, as its caller sees it */
	uint64_t own_ns;	/* inside a scope, from its own probes */
	uint64_t empty_ns;	/* the empty call untraced */
	uint64_t live_calls;	/* measured during the capture (0: before it) */
};

/* The function calibration probes; exported so a stripped binary has it. */
void ot_calib_target(void);

/* ns per call of ot_calib_target untraced (the median of 7 batches). */
uint64_t ot_calib_empty_ns(void);

/*
 * Calibration during the capture.  The cost of a probe hit on this machine
 * drifts over seconds (a VM's more than hardware's: docs/benchmarks.md),
 * so a figure taken before the capture can be off by more than a short
 * function lasts.  A thread of orbit-trace calls the probed
 * ot_calib_target in bursts of OT_CALIB_LIVE_CALLS every
 * OT_CALIB_LIVE_MS while the capture runs; its scopes (paired apart from
 * the target's) give own_ns, the timed bursts pair_ns.
 */
#define OT_CALIB_LIVE_CALLS 40
#define OT_CALIB_LIVE_WARM 8	/* calls before the timed ones, per burst */
#define OT_CALIB_LIVE_MS 20

struct ot_calib_live;

/* Start the thread.  Returns 0, or -errno after printing why. */
int ot_calib_live_start(struct ot_calib_live **out);

/*
 * ns per traced call over the bursts so far - their lower quartile, since
 * whatever else happens during a burst (an interrupt, a cache miss) only
 * adds - and how many bursts (0: none).
 */
uint64_t ot_calib_live_call_ns(struct ot_calib_live *l, size_t *bursts);

/* Stop and join the thread; NULL is a no-op. */
void ot_calib_live_stop(struct ot_calib_live *l);

/*
 * cal's own_ns, pair_ns and live_calls from the calibration's scopes so
 * far (st: their pairing's statistics) and live's bursts.  1 when they
 * were enough and cal changed, 0 when it is left as it was.
 */
int ot_calib_update(struct ot_calib *cal, const struct ot_func_stats *st,
		    struct ot_calib_live *live);

#endif
