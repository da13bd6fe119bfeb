/*
 * capture.h - one capture's life cycle: the engine behind orbit-trace's
 * main.
 *
 *   open    the report's output, SIGINT/SIGTERM as events, the target
 *           (-p PID found, -- CMD looked up), the selection resolved in its
 *           files (-l: printed, and the capture is done)
 *   arm     capabilities checked, --compensate calibrated, the command
 *           forked and held, the probes armed and enabled, capabilities
 *           dropped, the command released
 *   run     rings drained into scopes until the target exits, -d passes or
 *           a signal comes; the live status line on a terminal
 *   report  probes disabled, the rest drained, pairing finished, the
 *           verdict, the report written, the probes disarmed (the text
 *           report before, JSON after, to carry the cost), exports closed
 *   free    whatever is still held released: probes disarmed, a frozen
 *           target thawed, a held command stopped
 *
 * Every step prints its own errors (naming the object and the reason) and
 * returns a result; nothing here exits.  main maps results to exit
 * statuses.  Steps run in this order; after a result other than
 * OT_CAPTURE_OK only ot_capture_free is called.
 */
#ifndef OT_CAPTURE_H
#define OT_CAPTURE_H

#include "probes/probes.h"
#include "report/check.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum ot_capture_result {
	OT_CAPTURE_OK,		/* go on to the next step */
	OT_CAPTURE_DONE,	/* nothing more to do (-l) */
	OT_CAPTURE_FAILED,	/* a runtime failure, printed */
	OT_CAPTURE_BAD_INPUT,	/* something named cannot be traced, printed */
	OT_CAPTURE_CHECK_FAILED, /* --expect, --max-loss or the pairing's check */
};

/*
 * What one capture is asked to do: the engine's own options, filled by
 * its caller (orbit-trace's from the command line, lib/cli's
 * ot_options_capture).  Strings and arrays are borrowed: they must
 * outlive the capture.  Zero is "not asked" for every member but
 * backend, which is required.
 */
struct ot_capture_opts {
	/* What is traced. */
	pid_t pid;		/* -p: the first process named */
	pid_t *pids;		/* every process named, pids[0] is pid; the
				 * capture rewrites a thread's id as its process's */
	size_t npids;
	int all;		/* -a: every process running the files -f names */
	const char *cgroup;	/* -a within this cgroup v2 directory */
	int follow;		/* and the processes the target forks */
	char **argv;		/* the command to start, NULL-terminated, or NULL */
	const char *user;	/* who runs the command */
	const char *functions;	/* the selection's terms (-f, with --lang's) */
	const char *lang;	/* --lang's runtime (lib/capture/lang.h), or NULL */
	int yes;		/* a selection past OT_CAPTURE_MANY_FUNCTIONS is meant */
	unsigned long max_functions; /* refuse more functions, 0: no bound */
	int list;		/* show the selection, arm nothing */
	/* Whose records count. */
	const char *comm;	/* only processes so named, or NULL */
	pid_t tid;		/* only this thread, 0 all */
	/* How long, and how. */
	double duration;	/* seconds, 0: until the target exits */
	double interval;	/* seconds between interval reports, 0: none */
	unsigned long drain_ms;	/* the rings' drain period */
	unsigned long ring_kb;	/* ring size, when ring_kb_set */
	int ring_kb_set;	/* else each backend's default */
	const struct ot_backend_info *backend;
	struct ot_backend_knobs knobs; /* each backend's own (probes.h) */
	int ret_insn;		/* returns probed at return instructions */
	int ret_mode_set;	/* the returns' mode was asked: no automatic choice */
	int compensate;		/* subtract the probes' own cost */
	int freeze;		/* stop the process while arming */
	/* What the report keeps and says. */
	uint64_t slower_than;	/* ns, 0: none */
	int slower_all;		/* every slow scope, not the outermost */
	int wall_clock;		/* lines say the time of day */
	size_t slowest;		/* scopes kept per function */
	int hist;
	int json;
	const char *output;	/* the report's file, NULL: stdout */
	struct ot_expect *expect; /* checks of the counts; a name the selection
				   * spells otherwise is replaced (freed, strdup'd) */
	size_t nexpect;
	double max_loss;	/* percent of records lost before failing */
	const char *trace;	/* the timeline's file (Trace Event JSON) */
	const char *folded;	/* folded stacks' file */
	const char *prom_textfile; /* Prometheus textfile */
	const char *listen;	/* [HOST:]PORT for /metrics */
	int prom_pid;		/* pid and comm labels */
};

/* Past this many functions a capture is warned of (opts.yes: meant). */
#define OT_CAPTURE_MANY_FUNCTIONS 1000

struct ot_capture;

/* o is copied; what it points to (argv, expect) must outlive the capture.
 * sigpipe_ignored: SIGPIPE as a started command gets it. */
struct ot_capture *ot_capture_new(const struct ot_capture_opts *o, int sigpipe_ignored);
enum ot_capture_result ot_capture_open(struct ot_capture *c);
enum ot_capture_result ot_capture_arm(struct ot_capture *c);
enum ot_capture_result ot_capture_run(struct ot_capture *c);
enum ot_capture_result ot_capture_report(struct ot_capture *c);
void ot_capture_free(struct ot_capture *c);

#endif
