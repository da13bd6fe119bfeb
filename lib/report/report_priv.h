/*
 * report_priv.h - what the report printers share, for lib/report/report*.c only:
 * nothing else includes it, lib/report/report.h is the contract.
 *
 * The report is split by job: lib/report/report_text.c and lib/report/report_json.c
 * write it for people and for scripts, lib/report/report_tree.c the text's call
 * tree, lib/report/report_live.c the lines printed while the capture runs,
 * lib/report/report_restore.c --restore's report, lib/report/report_list.c -l's
 * listing.  The words and figures the two formats both say (the verdict,
 * how the target ended, a node's self time) are computed once, in
 * lib/report/report.c, so that the text and the JSON cannot disagree.
 */
#ifndef OT_REPORT_PRIV_H
#define OT_REPORT_PRIV_H

#include "report.h"

#include <stdint.h>
#include <stdio.h>

/* The verdict's word ("ok", "lossy", "failed"), as lib/report/check names it. */
const char *ot_report_status(const struct ot_report *r);

/* Time in the node's own code, not in the traced functions it called. */
uint64_t ot_report_node_self(const struct ot_tree_node *n);

/* How the target ended, as its wait status says; unknown while it runs or
 * when it was not ours to wait for. */
enum ot_report_end { OT_END_UNKNOWN, OT_END_EXIT, OT_END_SIGNAL };

/* *code: the exit status or the signal. */
enum ot_report_end ot_report_target_end(const struct ot_report *r, int *code);

/* The text's CALL TREE section (lib/report/report_tree.c). */
void ot_report_call_tree_text(FILE *f, const struct ot_report *r);

/* A string a program passed (:str) for a terminal: control bytes, C1
 * controls and bytes that are not UTF-8 escaped as C writes them ("\n",
 * "\x07", lib/util/escape); quoted, in double quotes, a double quote and
 * a backslash escaped too (PHP's "App\Foo" stays as it is unquoted). */
void ot_report_text_string(FILE *f, const char *s, int quoted);

/* The text's name columns: sized to the longest name, up to this; a
 * longer name (a C++ signature, a Go path) is not cut. */
#define OT_REPORT_NAME_MAX 40

/*
 * s left-aligned in a column w wide, followed by the row's next column.
 * A name longer than w has its line to itself and the row goes on, on
 * the next line, under its columns (as df(1) does with a long device), so
 * no row is pushed out of line and no name is cut.  at is how many
 * columns precede this one on the line.
 */
void ot_report_cell(FILE *f, const char *s, size_t w, size_t at);

/*
 * The report as the text shows it (lib/report/report_safe.c): a copy of
 * r whose names, paths and reasons that a target controls are escaped
 * for a terminal (lib/util/escape); it points into r and into sf, valid
 * until ot_report_safe_free(sf).  Process names (comm) are inline
 * arrays: their printers escape them.
 */
struct ot_report_safe {
	struct ot_report r;
	struct ot_report_func *funcs;
	const char **names;
	struct ot_report_refused *refused;
	struct ot_check check;
	char **reasons;
	struct ot_report_slow **slows;
	size_t nslows;
	char **owned;		/* the escaped copies */
	size_t nowned;
};

const struct ot_report *ot_report_safe(struct ot_report_safe *sf, const struct ot_report *r);
void ot_report_safe_free(struct ot_report_safe *sf);

/* A duration histogram's summary in JSON, or null when it has no scope:
 * the report's "duration_ns" and -I's lines alike (lib/report/report_json.c). */
void ot_report_hist_json(FILE *f, const struct ot_hist *h);
/* A slow scope's path as a JSON array of names, outermost first: the
 * report's "slowest" and --slower-than's lines (report_json.c). */
void ot_report_path_json(FILE *f, const struct ot_report_slow *sl);

#endif
