/*
 * sinks.h - what a capture keeps of each scope as it closes, and what it
 * prints while it runs: the pairing's hook (ot_sinks_scope) feeds
 * --slowest's longest scopes, --slower-than's lines, the distributions of
 * -f's recorded values, -a/--follow's rows per process and function, and
 * -I's histograms per interval; the live status line is drawn here too.
 *
 * --slowest's longest calls are kept in the pairing's tables
 * (scopes/tables.h), the report's one home; this hook is their filler
 * from records.
 *
 * Pure: no system call but writes to the FILE*s it is given, no global
 * state.  Memory is fixed per function (--slowest N paths, one histogram
 * and two value distributions each) except the rows per process, which
 * grow with the processes seen.  A process's name comes from the caller's
 * comm function, once per row.  One caller, lib/capture/capture, from the thread
 * that feeds the pairing; nothing here exits or fails (ot_x* allocation).
 *
 * Order: ot_sinks_init, ot_sinks_values for each function that records
 * values, ot_pair_on_scope(pair, ot_sinks_scope, s); ot_sinks_start when
 * the capture's clock starts (scopes before it are kept but go into no
 * interval, and no status line is drawn); ot_sinks_report and
 * ot_sinks_procs at the end; ot_sinks_free.
 */
#ifndef OT_SINKS_H
#define OT_SINKS_H

#include "report.h"
#include "process/procfs.h"
#include "scopes/hist.h"
#include "scopes/pair.h"
#include "scopes/values.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ot_sinks_opts {
	size_t nfuncs;
	const char **names;	/* per function, for lines and paths */
	FILE *out;		/* --slower-than's lines and -I's reports */
	int json;		/* ... as NDJSON */
	size_t slowest;		/* --slowest N: keep each function's N longest */
	uint64_t slower_than;	/* --slower-than: print scopes this long, 0 none */
	/* --slower-than-all: a line for every slow scope; else for the
	 * outermost only (a slow call's traced callers are slow too: the
	 * nested ones are held until their outermost caller closes, and
	 * dropped then; printed at the end if it never does). */
	int slower_all;
	/* --wall-clock: CLOCK_REALTIME - the scopes' clock (CLOCK_MONOTONIC)
	 * in ns, as measured at the start; 0: its lines say the time since
	 * the start. */
	int64_t wall_offset;
	int per_process;	/* -a, --follow: rows per process and function */
	int every_scope;	/* another hook needs every scope (--trace) */
	/* The name of process pid, for its row: 0, or not 0 for "?". */
	int (*comm)(void *ctx, uint32_t pid, char *buf, size_t len);
	void *comm_ctx;
	/* The string of id, a function's :str value (the entry's first,
	 * its scope's arg), for its --slower-than lines: NULL unknown. */
	const char *(*str)(void *ctx, uint64_t id);
	void *str_ctx;
};

/* A function's longest calls as the report's rows: rendered from the
 * tables' (scopes/tables.h) by ot_sinks_report. */
struct ot_sinks_slow {
	struct ot_report_slow *v;	/* longest first */
	size_t n;
};

/* A function's recorded values: the distributions are the tables'
 * (scopes/tables.h), named and typed here. */
struct ot_sinks_values {
	struct ot_values *arg, *ret;	/* NULL: not recorded */
	char arg_name[48];		/* "arg2", "arg1:32", "flags", "req->len" */
	int arg32, ret32;		/* the low half, signed (an int's register) */
	/* The return value's bytes and sign from DWARF (0: the register's). */
	uint8_t ret_size, ret_signed;
	/* The entry's values after the first, each from its own probe. */
	struct ot_values *more[OT_REPORT_MORE];
	char more_name[OT_REPORT_MORE][48];
	size_t nmore;
	/* The entry's first value is a string's id ("path:str"; "" none):
	 * counted by the caller, named on --slower-than's lines. */
	char str_name[48];
};

struct ot_sinks_pending {
	uint32_t tid, func;
	uint64_t time;			/* the entry's, as its first value saw it */
	uint8_t have;			/* slots filled, a bit each */
	uint64_t v[OT_REPORT_MORE];
};

/* A nested slow scope's line, held (--slower-than without -all). */
struct ot_sinks_held {
	uint32_t tid;
	uint64_t start;
	char *line;		/* owned */
};

struct ot_sinks {
	struct ot_sinks_opts o;
	struct ot_pair *pair;		/* told what to skip */
	struct ot_tables *tab;		/* the pairing's: paths, --slowest's longest calls */
	uint64_t t_start;		/* 0 until ot_sinks_start */
	struct ot_sinks_slow *slow;	/* per function with --slowest, else NULL */
	struct ot_sinks_values *vals;	/* per function once one records, else NULL */
	/* -a/--follow: open addressing on pid and function, doubled at half full. */
	struct ot_report_proc *procs;
	size_t nprocs, procs_cap;
	/* -I: each function's scopes since the last interval report. */
	struct ot_hist *ivl;
	uint64_t ivl_ns, ivl_seq, ivl_start, ivl_next, ivl_lost;
	uint64_t lost;			/* the drain's count of lost records, as last told */
	uint64_t t_end;			/* the capture's end, once known (0 before) */
	/* The status line, redrawn twice a second where there is one. */
	FILE *live;
	uint64_t live_next, live_scopes, live_time;
	int unflushed;			/* --slower-than lines not flushed yet */
	uint32_t slow_pid;		/* the process slow_comm names (0 none) */
	char slow_comm[16];
	/* --slower-than: further entry values of calls not closed yet, by
	 * thread and function, latest last (a stack per thread and function:
	 * calls of one function on one thread close in reverse order). */
	struct ot_sinks_pending *pend;
	size_t npend, pend_cap;
	/* --slower-than without -all: nested slow scopes' lines, as written,
	 * until their thread's outermost scope closes. */
	struct ot_sinks_held *held;
	size_t nheld, held_cap;
};


/* pair is the pairing whose scopes come here (its tree names paths). */
void ot_sinks_init(struct ot_sinks *s, const struct ot_sinks_opts *o, struct ot_pair *pair);

/* Function f records values: arg and ret as select.h's ot_selected has them. */
void ot_sinks_values(struct ot_sinks *s, size_t f, uint8_t arg, uint8_t ret);

/* Then what DWARF says of them: the argument recorded under a
 * parameter's name (arg_name, or NULL), already sized by the probe; the
 * return value ret_size bytes (1, 2, 4; 0 or 8 whole), signed or not. */
void ot_sinks_values_typed(struct ot_sinks *s, size_t f, const char *arg_name,
			   uint8_t ret_size, uint8_t ret_signed);

/* Function f's entry's first value is a string, name ("arg1:str",
 * "path:str"): in no distribution (the caller counts strings), on its
 * --slower-than lines through o->str.  Before ot_sinks_values, which
 * then records no arg for f. */
void ot_sinks_values_str(struct ot_sinks *s, size_t f, const char *name);

/* Function f records value j + 2 of its entry ("read(arg1,arg3)"'s
 * arg3 is j 0) under name; then each is told with ot_sinks_value. */
void ot_sinks_values_more(struct ot_sinks *s, size_t f, size_t j, const char *name);

/* One such value, as its probe read it (sized and signed already), at
 * time by thread tid; a slot never declared is ignored.  With
 * --slower-than it is also kept for its call's line, until the scope of f
 * that thread entered then closes. */
void ot_sinks_value(struct ot_sinks *s, uint32_t tid, uint32_t f, unsigned j, uint64_t time,
		    uint64_t v);

/* The capture's clock starts at t_start (ns); -I every interval_ns (0
 * none); the status line on live (NULL none). */
void ot_sinks_start(struct ot_sinks *s, uint64_t t_start, uint64_t interval_ns, FILE *live);

/* The pairing's hook (an ot_scope_fn; ctx is the ot_sinks). */
void ot_sinks_scope(void *ctx, const struct ot_scope *sc);

/*
 * -I's windows are fixed on the capture's clock: [t_start + k * interval,
 * t_start + (k + 1) * interval), each scope counted in the window where it
 * closed.  A window is printed (and out flushed) once it is whole: when a
 * scope closing after it arrives, or when the caller's horizon (nothing
 * older can still arrive) passes its end.
 */
/* The end of the current window; UINT64_MAX without -I or before start. */
uint64_t ot_sinks_interval_due(const struct ot_sinks *s);
/* The drain's count of lost records so far, for the windows printed next. */
void ot_sinks_lost(struct ot_sinks *s, uint64_t lost);
/* Every window that ended by horizon printed. */
void ot_sinks_intervals_upto(struct ot_sinks *s, uint64_t horizon);
/* The capture ends at t_end (-d: known from the start; else when it
 * ends, earlier than any told before): the window it falls in or closes
 * is the last, whatever closes after it. */
void ot_sinks_end(struct ot_sinks *s, uint64_t t_end);
/* At the end: the windows ended by now, then the last, shorter one up to
 * now (the windows add up to the capture); lost as ot_sinks_lost. */
void ot_sinks_interval(struct ot_sinks *s, uint64_t now, uint64_t lost);

/* 1 when the status line is due for a redraw at now. */
int ot_sinks_live_due(const struct ot_sinks *s, uint64_t now);

/* Redraw it: scopes closed so far, records lost so far, the fullest ring
 * (hw bytes of size). */
void ot_sinks_live(struct ot_sinks *s, uint64_t now, uint64_t scopes, uint64_t lost,
		   uint64_t hw, uint64_t size);

/* Erase it, if it was ever drawn: other output follows. */
void ot_sinks_live_clear(struct ot_sinks *s);

/* --slower-than's lines written since the last call sent on now (to a pipe
 * or a file as to a terminal): called once per drain, not per line. */
void ot_sinks_flush(struct ot_sinks *s);

/* The end of the capture, after the last scope: nested slow scopes
 * whose outermost caller never closed get their lines now. */
void ot_sinks_slow_end(struct ot_sinks *s);

/* fn[0..nfuncs): their slowest scopes (the tables' longest calls, named
 * now) and recorded values (pointers into s, valid until the next call). */
void ot_sinks_report(struct ot_sinks *s, struct ot_report_func *fn);

/*
 * The rows per process and function, in pid then function order, *n of
 * them (NULL, 0 when none); fol, sorted by pid, names the processes
 * --follow saw (as the kernel last saw them).  Ends the scope hook's use
 * of the rows: call once, at the end.  The rows stay s's.
 */
struct ot_report_proc *ot_sinks_procs(struct ot_sinks *s, const struct ot_follow_proc *fol,
				      size_t nfol, size_t *n);

/* The rows so far, while the capture runs (named as when first seen), in
 * pid then function order: malloc'd, *n of them (NULL, 0 when none). */
struct ot_report_proc *ot_sinks_procs_now(const struct ot_sinks *s, size_t *n);

void ot_sinks_free(struct ot_sinks *s);

#endif
