/*
 * calib.h - what a probe hit costs on this machine, measured at start-up,
 * to take the observer effect out of durations (--compensate).
 *
 * A forked copy of orbit-trace calls an empty function, ot_calib_target,
 * in batches, untraced and then traced with the same kind of probes as the
 * capture.  pair_ns is what one traced call costs its caller (its entry
 * and return probes together): every traced call nested in a scope adds
 * that much to the scope.  own_ns is how much of a call's own probes falls
 * between its entry and return timestamps: the measured duration of the
 * empty function.
 */
#ifndef OT_CALIB_H
#define OT_CALIB_H

#include "uprobe.h"

#include <stdint.h>

struct ot_calib {
	uint64_t pair_ns;	/* per traced call, as its caller sees it */
	uint64_t own_ns;	/* inside a scope, from its own probes */
	uint64_t empty_ns;	/* the empty call untraced */
};

/* The function calibration probes; exported so a stripped binary has it. */
void ot_calib_target(void);

/*
 * Measure.  ret_insn: calibrate probes on return instructions rather than
 * return probes; backend: the one the capture will use.  Returns 0, or
 * -errno after printing why.
 */
int ot_calibrate(int ret_insn, enum ot_backend backend, struct ot_calib *out);

#endif
