/*
 * filter.h - whose records a capture keeps: under -a, orbit-trace's own
 * calls of a traced library are dropped; with --comm NAME or --tid TID,
 * other processes' and threads' are, each process judged once (the name
 * its calls carried, else /proc's, else, for -p, the name it had when the
 * capture began).  Every record dropped is counted, and the report says
 * the filter and the count.  For lib/capture's files only (capture_priv.h).
 */
#ifndef OT_CAPTURE_FILTER_H
#define OT_CAPTURE_FILTER_H

#include "rings/event.h"
#include "report/report.h"

#include <stddef.h>
#include <stdint.h>

struct ot_capture;

/* The filter's state, a member of struct ot_capture. */
struct ot_capture_filter {
	uint32_t own_pid;	/* -a: records of this process are dropped */
	uint64_t own_records;
	uint64_t dropped;	/* --comm, --tid: other processes' or threads' */
	/* --comm: records of processes no name could be found for (gone
	 * before a drain, never seen by the probes or at the start), and how
	 * many processes: dropped too, but maybe NAME's. */
	uint64_t unnamed, unnamed_procs;
	char *desc;		/* "--comm nginx", for the report; owned */
	/* Each process's verdict (open addressing on pid; 1 kept, 2 not, 3
	 * no name found). */
	struct ot_capture_comm_seen { uint32_t pid; uint8_t keep; } *seen;
	size_t nseen, seen_cap;
	/* --comm with -p: each process's name when the capture began, for
	 * one that exits before its first call is drained (/proc has no name
	 * for it then, and its calls would be dropped as another's). */
	struct ot_capture_comm_at { uint32_t pid; char name[16]; } *at;
	size_t nat;
};

/* --comm with -p: the processes' names, read as the capture begins. */
void ot_capture_filter_begin(struct ot_capture *c);

/* 1 when ev is not the report's (and counted), else 0. */
int ot_capture_filter_drops(struct ot_capture *c, const struct ot_event *ev);

/* --comm: records dropped because their process's name could not be
 * found are a reason (lossy): NAME's calls may be among them. */
void ot_capture_filter_judge(struct ot_capture *c);

/* The report's word on --comm/--tid: the filter as given, the count. */
void ot_capture_filter_report(struct ot_capture *c, struct ot_report *r);

void ot_capture_filter_free(struct ot_capture_filter *f);

#endif
