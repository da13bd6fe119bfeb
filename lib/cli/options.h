/*
 * options.h - the command line: the option table, the environment
 * variables, defaults, validation and the usage text.
 *
 * Parsing neither prints nor exits: a bad invocation comes back as one
 * line naming the option and the reason, which main prints with the
 * "Try --help" hint and exit status 2 (tests/unit/test_options.c pins
 * every message).
 */
#ifndef OT_OPTIONS_H
#define OT_OPTIONS_H

#include "capture/capture.h"
#include "report/check.h"
#include "probes/probes.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define OT_RING_KB_MAX (1024 * 1024)
#define OT_DRAIN_MS_DEFAULT 50
#define OT_SLOWEST_DEFAULT 5
#define OT_SLOWEST_MAX 1000
/* Past this many functions a capture is warned of (--yes: meant). */
#define OT_MANY_FUNCTIONS OT_CAPTURE_MANY_FUNCTIONS

struct ot_options {
	pid_t pid;		/* -p: the first process named */
	pid_t *pids;		/* -p PID,PID... and repeated -p: every process, once
				 * each, in order (owned; pids[0] is pid) */
	size_t npids;
	int all;		/* -a: every process running the files -f names */
	const char *cgroup;	/* --cgroup PATH: -a within that cgroup v2 directory */
	int follow;		/* --follow: and the processes the target forks */
	int yes;		/* --yes: a selection past OT_MANY_FUNCTIONS is meant */
	unsigned long max_functions; /* --max-functions N: refuse more, 0: no bound */
	const char *comm;	/* --comm NAME: only the records of processes so named */
	pid_t tid;		/* --tid TID: only that thread's records, 0 all */
	const char *functions;	/* -f, with --lang's terms after it */
	char *functions_owned;	/* functions when --lang added to -f: owned */
	const char *lang;	/* --lang */
	double duration;	/* seconds, 0: until the target exits */
	double interval;	/* -I: seconds between interval reports, 0: none */
	uint64_t slower_than;	/* --slower-than: ns, 0: none */
	int slower_all;		/* --slower-than-all: every slow scope, not the outermost */
	int wall_clock;		/* --wall-clock: its lines say the time of day */
	size_t slowest;		/* --slowest: scopes kept per function */
	const char *output;
	int json;
	unsigned long ring_kb;	/* --ring-kb, ORBIT_UPROBE_RING_KB */
	int ring_kb_set;	/* given: else each backend's default */
	unsigned long drain_ms;	/* --drain-ms, ORBIT_DRAIN_MS */
	struct ot_expect *expect; /* --expect, owned */
	size_t nexpect;
	double max_loss;	/* --max-loss, percent (1 by default) */
	int hist;
	const char *trace;	/* --trace FILE.json */
	const char *folded;	/* --folded FILE */
	const char *prom_textfile; /* --prom-textfile FILE.prom */
	const char *listen;	/* --listen [HOST:]PORT */
	int prom_pid;		/* --prom-pid: pid and comm labels */
	int list;		/* -l: show the selection, arm nothing */
	const char *user;	/* --user: who runs -- CMD */
	int ret_insn;		/* --returns insn */
	int ret_mode_set;	/* --returns given: no automatic choice */
	int compensate;		/* --compensate */
	const struct ot_backend_info *backend; /* --backend (auto unless named) */
	int inject_clock;	/* ORBIT_INJECT_CLOCK: -1 inject's choice, 0 tsc, 1 vdso */
	int freeze;		/* --freeze */
	int restore;		/* --restore: take back what a killed orbit-trace left */
	int verbosity;		/* -q: -1, -v: 1, else 0 */
	char **argv;		/* -- CMD ARGS, inside the argv parsed */
};

enum ot_options_result {
	OT_OPTIONS_RUN,		/* *o describes a capture */
	OT_OPTIONS_HELP,	/* -h: print ot_usage_text */
	OT_OPTIONS_VERSION,	/* -V */
	OT_OPTIONS_BAD,		/* *msg: why, one line, malloc'd */
};

/*
 * Parse argv (getopt_long, restarted each call) and the environment.
 * Strings in *o point into argv.  Free with ot_options_free, whatever the
 * result.
 */
enum ot_options_result ot_options_parse(struct ot_options *o, int argc, char **argv,
					char **msg);
void ot_options_free(struct ot_options *o);

extern const char ot_usage_text[];

/* The capture *o describes, as the engine's own options: co borrows
 * o's strings and arrays (free o after the capture). */
void ot_options_capture(const struct ot_options *o, struct ot_capture_opts *co);

#endif
