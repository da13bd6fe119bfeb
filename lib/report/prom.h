/*
 * prom.h - the report as Prometheus metrics: the text exposition format
 * 0.0.4 (node_exporter's textfile collector, promtool, any scraper) or
 * OpenMetrics 1.0 (what Prometheus asks for first).
 *
 * A printer: takes a filled struct ot_report (the end's, or a snapshot
 * the capture makes while it runs, r->check NULL) and writes it; no
 * timestamps (the textfile collector refuses files that have them).
 * Every counter is cumulative from the capture's start.  The families
 * and their labels are documented in orbit-trace(1), PROMETHEUS: change
 * both together; tests/unit/test_prom.c pins the output byte for byte.
 *
 *   orbit_trace_calls_total{function,file}            closed scopes (SCOPES)
 *   orbit_trace_probe_hits_total{probe,file}          USDT probes' hits
 *   orbit_trace_call_duration_seconds{function,file}  histogram, log2 bounds
 *   orbit_trace_unclosed_calls_total, orbit_trace_orphan_returns_total,
 *   orbit_trace_duplicate_records_total,
 *   orbit_trace_skipped_calls_total                   the pairing's counts
 *   orbit_trace_call_value{function,file,value}       -f 'NAME(argN)', '%ret'
 *   orbit_trace_records_total, orbit_trace_records_lost_total
 *   orbit_trace_capture_seconds, orbit_trace_arm_seconds,
 *   orbit_trace_disarm_seconds (once disarmed)        gauges
 *   orbit_trace_status{status}                        1 for the verdict
 *   orbit_trace_target_exit{how,code}                 1 once the target ended
 *   orbit_trace_build_info{version,backend}           1
 *
 * With per-process rows (-a, --follow) the calls and their seconds are by
 * process too (labels pid, comm); the histogram stays per function.
 */
#ifndef OT_PROM_H
#define OT_PROM_H

#include "report.h"

#include <stdint.h>
#include <stdio.h>

/* The log2 bounds of the duration histogram: 2^7 ns (128 ns) to 2^35 ns
 * (34.4 s), then +Inf. */
#define OT_PROM_LE_MIN 7
#define OT_PROM_LE_MAX 35

/* The value histogram's bounds: 2^k - 1 for k = 0..32 (0, 1, 3, ...), then +Inf. */
#define OT_PROM_VALUE_BITS 32

struct ot_prom_opts {
	int openmetrics;	/* OpenMetrics 1.0, else text 0.0.4 */
	/* A pid label on every function's series (--prom-pid, one process):
	 * r->pid and comm.  Rows per process (r->procs) always have them. */
	int pid_label;
	const char *comm;
	const char *version;	/* orbit_trace_build_info's */
	/* OpenMetrics' _created: the capture's start, seconds since the epoch. */
	uint64_t created_ns;
};

/* Content-Type of each format, for an HTTP reply. */
#define OT_PROM_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define OT_PROM_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

/*
 * Write r's metrics.  r->check NULL: the capture runs (status "running",
 * no unclosed count yet: calls still open are not unclosed).  Returns 0,
 * or -EIO if f could not be written.
 */
int ot_report_prom(FILE *f, const struct ot_report *r, const struct ot_prom_opts *o);

/* Whether an HTTP Accept header asks for OpenMetrics (before text). */
int ot_prom_wants_openmetrics(const char *accept);

#endif
