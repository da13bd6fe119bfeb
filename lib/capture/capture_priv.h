/*
 * capture_priv.h - the state of one capture (struct ot_capture), shared
 * by the files that make a capture: lib/capture/capture.c, its life cycle,
 * lib/capture/capture_report.c, what its report says, and
 * lib/capture/metrics.c, what Prometheus is told.  Nothing else may
 * include it: the rest of orbit-trace sees the opaque type of capture.h.
 */
#ifndef OT_CAPTURE_PRIV_H
#define OT_CAPTURE_PRIV_H

#include "scopes/calib.h"
#include "capture.h"
#include "report/check.h"
#include "disarm.h"
#include "filter.h"
#include "rings/drain.h"
#include "report/export.h"
#include "probes/ipi.h"
#include "scopes/pair.h"
#include "probes/exitwatch.h"
#include "probes/plan.h"
#include "probes/probes.h"
#include "report/prom_http.h"
#include "report/report.h"
#include "report/sinks.h"
#include "process/target.h"
#include "util/outfile.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

/* --follow, -p PID,PID...: each process of the set, once it exited or the
 * capture ended, as the backend's table said (ot_probes_follow_poll). */
struct ot_capture_follow {
	struct ot_follow_proc *procs;
	size_t n, cap;
	uint64_t dropped;	/* processes the table had no room for */
	uint64_t next;		/* when to read the kernel's table next */
	struct ot_report_follow rep;
};

/* --prom-textfile, --listen: what lib/capture/metrics keeps. */
struct ot_capture_prom {
	struct ot_prom_http *http;
	struct ot_outfile *file;	/* --prom-textfile, replaced by each version */
	uint64_t created_ns;		/* the capture's start, on the wall clock */
	char comm[16];			/* --prom-pid's comm label */
	int failed;			/* the file could not be written: said once */
};

/* Everything one capture owns, in the order it is acquired. */
struct ot_capture {
	struct ot_capture_opts o; /* a copy: the caller owns what it points to */
	int sigpipe_ignored;	/* SIGPIPE as the command should start with it */
	FILE *out;		/* the report: stdout, or out_file's stream */
	/* -o, --trace, --folded (lib/util/outfile); kept at the end only when
	 * the capture got that far (keep_outputs), else left as they were. */
	struct ot_outfile *out_file, *trace_file, *folded_file;
	int keep_outputs;
	struct ot_target target;
	struct ot_user user;
	/* The program, the selection, the probe targets (+ 1 with --compensate). */
	struct ot_plan plan;
	struct ot_probes *probes;
	struct ot_pair *pair;
	/* The report's tables (lib/scopes/tables.h), which the report's
	 * assembly reads: the pairing's, gathered from records. */
	const struct ot_tables *tables;
	struct ot_drain *drain;
	int sigfd;
	sigset_t oldmask;
	uint64_t t_start, t_end;
	const char *ended_by;
	struct ot_timeline *timeline;
	FILE *folded;
	struct ot_check check;
	struct ot_calib calib;
	uint64_t arm_t0, arm_ns; /* arming's wall time, open to enable */
	struct ot_ipi arm_before, arm_ipi; /* IPIs and shootdowns it caused */
	/*
	 * Two sinks share the rings: the selection's scopes (pair, probe
	 * targets 0..plan.sel.n-1) and, with --compensate, the calibration's
	 * (calib_pair, probe target calib_target: orbit-trace's own
	 * ot_calib_target, called by calib_live).
	 */
	size_t npt;		/* probe targets: the selection, + 1 with --compensate,
				 * + a Go program's deaths */
	uint32_t calib_target;
	/* A Go program: probe targets go_death.. (OT_PLAN_GO_DEATHS of them,
	 * ngo_death 0 for none), runtime.fatalthrow's and fatalpanic's hits. */
	uint32_t go_death;
	size_t ngo_death;
	uint64_t go_deaths[OT_PLAN_GO_DEATHS];
	struct ot_pair *calib_pair;
	struct ot_calib_live *calib_live;
	uint64_t calib_next;	/* when calib_update next looks */
	struct ot_report rep;	/* filled once the capture is over */
	struct ot_report_calib rep_calib;
	struct ot_capture_filter filt;	/* -a's own, --comm, --tid (lib/capture/filter) */
	char *lang_functions;	/* -f with --lang's file the target runs; owned */
	struct ot_sinks sinks;	/* what the scopes leave, but the timeline */
	struct ot_report_func *rep_fn;
	struct ot_disarm disarm;	/* outlives disarming: its timer's thread */
	struct ot_probes_said said;	/* the backend's own word, for the report */
	struct ot_report_refused *refused;	/* functions the backend did not arm */
	size_t nrefused;
	struct ot_capture_follow fol;	/* a set of processes (ot_capture_set) */
	int lost_exact;		/* records.lost is the whole count (ot_probes_final_lost) */
	struct ot_capture_prom prom;	/* --prom-textfile, --listen */
	/* Rows of the pairing and the report: the selection's, then with
	 * pairs of USDT probes their keys' (lib/capture/keyed); names[row]. */
	size_t nrows;
	const char **names;
	struct ot_keyed *keyed;
	/* ot_keyed_feed has events to take (a string or a pair selected):
	 * else the pairing's per-event path does not ask it. */
	int keyed_feeds;
	struct ot_report_strings rep_strs;
	/* -a --cgroup: the directory, open (the BPF program keeps to it), and
	 * its path for people; -1 and NULL without. */
	int cgroup_fd;
	char *cgroup_path;
	/* -p with a backend that arms uprobes: how the process ends, as the
	 * kernel's exit tracepoint tells it (lib/probes/exitwatch), or NULL. */
	struct ot_exitwatch *exitw;
};

/* -p PID,PID... or --follow: the capture traces a set of processes the
 * backend keeps (ot_probes_follow_poll), over when none is left. */
static inline int ot_capture_set(const struct ot_capture *c)
{
	return c->o.follow || c->o.npids > 1;
}

#endif
