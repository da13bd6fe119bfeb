/*
 * disarm.h - a capture's probes released, and what that cost measured
 * for the report as arming's was: wall time, IPIs and TLB shootdowns.
 * With --freeze a -p process is stopped meanwhile, where the backend
 * closes in a few system calls; the perf backend waits two grace periods
 * per event (minutes for thousands), so past a second the user hears why
 * it is slow, from a timer's thread.  Called by lib/capture/capture, once.
 */
#ifndef OT_DISARM_H
#define OT_DISARM_H

#include "probes/probes.h"
#include "report/report.h"
#include "process/target.h"

#include <stddef.h>

struct ot_disarm {
	/* What the slow warning names.  The timer's thread may still read it
	 * after ot_disarm returns: keep this struct for the capture's life. */
	size_t n;
	const char *what;
};

/*
 * Close probes (NULL: nothing to do), t frozen meanwhile when freeze and
 * the close is quick, and thawed after.  Sets rep's disarm fields, and
 * *said to what the backend said last, where it said anything.  A failed freeze was
 * printed; disarming goes on regardless.
 */
void ot_disarm(struct ot_disarm *d, struct ot_probes *probes, struct ot_target *t, int freeze,
	       struct ot_report *rep, struct ot_probes_said *said);

#endif
