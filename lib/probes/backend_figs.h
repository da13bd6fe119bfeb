/*
 * backend_figs.h - each backend's own figures for the report, made from
 * its own statistics into the generic list of lib/util/figures.h: what
 * the report prints of a backend without naming it.  Called by the
 * backends' say (lib/probes/backend_*.c), and by the report's unit tests,
 * which print the list as a capture would.
 */
#ifndef OT_BACKEND_FIGS_H
#define OT_BACKEND_FIGS_H

#include "inject/inject_stats.h"
#include "probes.h"
#include "util/figures.h"

#include <stddef.h>

/* inject: what it put in the process and took back ("inject" after
 * "arming", "inject_removal" after "disarming"), the arming's and
 * disarming's lines, its warnings.  events, objects and ring_kb: its
 * arming's (ot_probes_nevents, _objects, _ring_kb). */
void ot_figs_inject(struct ot_figures *f, const struct ot_inject_stats *in, size_t events,
		    const char *objects, size_t ring_kb);

/* multi: the execs from a thread other than the first it armed again
 * ("thread_execs" in "target", and a line when there were any). */
void ot_figs_thread_execs(struct ot_figures *f, const struct ot_probes_thread_execs *te);

#endif
