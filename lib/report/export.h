/*
 * export.h - scopes for other tools: a Chrome trace-event timeline and
 * folded stacks for flame graphs.
 *
 * The timeline is streamed: each scope is written as it closes, through a
 * stdio buffer, so memory does not grow with the capture.  The folded
 * stacks are written at the end from the call tree lib/scopes/pair keeps.
 */
#ifndef OT_EXPORT_H
#define OT_EXPORT_H

#include "scopes/pair.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct ot_timeline;

/*
 * Start a trace-event JSON document on f (the caller's, lib/util/outfile)
 * for process pid, named process; times are written in microseconds since
 * t0_ns.
 */
struct ot_timeline *ot_timeline_open(FILE *f, pid_t pid, const char *process, uint64_t t0_ns,
				     const char *const *names);

/* One complete ("X") event; the first scope of a thread also names it. */
void ot_timeline_scope(struct ot_timeline *t, const struct ot_scope *s);

/* Done with t (NULL: nothing): complete, the JSON closed; else (a failed
 * capture) nothing more written.  f stays the caller's to close. */
void ot_timeline_close(struct ot_timeline *t, int complete);

/*
 * Write "outer;middle;inner SELF_NS" lines, one per call path with self
 * time, the input of flamegraph.pl and speedscope; deep recursion folded
 * as lib/scopes/fold folds it (a function's occurrences past
 * OT_FOLD_LEVELS on a path summed into the next one).  Returns 0 or -errno.
 */
int ot_folded_write(FILE *f, const struct ot_tree_node *tree, size_t n,
		    const char *const *names);

#endif
