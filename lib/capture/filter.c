/*
 * filter.c - whose records a capture keeps (filter.h): orbit-trace's own
 * under -a, --comm's and --tid's, each process's verdict asked once.
 */
#include "filter.h"
#include "capture_priv.h"
#include "capture_report.h"
#include "process/procfs.h"
#include "report/check.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --comm with -p: the processes' names as the capture begins. */
void ot_capture_filter_begin(struct ot_capture *c)
{
	size_t i;

	if (!c->o.comm || !c->o.npids)
		return;
	c->filt.at = ot_xcalloc(c->o.npids, sizeof(*c->filt.at));
	for (i = 0; i < c->o.npids; i++)
		if (!ot_proc_comm(c->o.pids[i], c->filt.at[c->filt.nat].name,
				  sizeof(c->filt.at[c->filt.nat].name)))
			c->filt.at[c->filt.nat++].pid = (uint32_t)c->o.pids[i];
}

/* Process pid's name as ot_capture_filter_begin found it: 0, or -1 if it
 * has none. */
static int comm_at_start(const struct ot_capture *c, uint32_t pid, char *name)
{
	size_t i;

	for (i = 0; i < c->filt.nat; i++)
		if (c->filt.at[i].pid == pid) {
			memcpy(name, c->filt.at[i].name, sizeof(c->filt.at[i].name));
			return 0;
		}
	return -1;
}

/* Whether process pid is named --comm's NAME, as -a's rows name it (the
 * name the probes saw at its call, else /proc's, else the name it had
 * when the capture began), asked once per pid. */
static int comm_keeps(struct ot_capture *c, uint32_t pid)
{
	char name[16];
	size_t h, i;

	if (2 * (c->filt.nseen + 1) > c->filt.seen_cap) {
		struct ot_capture_comm_seen *old = c->filt.seen;
		size_t oldcap = c->filt.seen_cap;

		c->filt.seen_cap = oldcap ? 2 * oldcap : 64;
		c->filt.seen = ot_xcalloc(c->filt.seen_cap, sizeof(*c->filt.seen));
		for (i = 0; i < oldcap; i++) {
			if (!old[i].pid)
				continue;
			for (h = old[i].pid * 2654435761u & (c->filt.seen_cap - 1); c->filt.seen[h].pid;
			     h = (h + 1) & (c->filt.seen_cap - 1))
				;
			c->filt.seen[h] = old[i];
		}
		free(old);
	}
	for (h = pid * 2654435761u & (c->filt.seen_cap - 1); c->filt.seen[h].pid;
	     h = (h + 1) & (c->filt.seen_cap - 1))
		if (c->filt.seen[h].pid == pid)
			break;
	if (!c->filt.seen[h].pid) {
		int named = !ot_capture_seen_comm(c, pid, name, sizeof(name)) ||
			    !ot_proc_comm((pid_t)pid, name, sizeof(name)) ||
			    !comm_at_start(c, pid, name);

		c->filt.seen[h].pid = pid;
		c->filt.seen[h].keep = !named ? 3 : !strcmp(name, c->o.comm) ? 1 : 2;
		c->filt.unnamed_procs += !named;
		c->filt.nseen++;
	}
	c->filt.unnamed += c->filt.seen[h].keep == 3;
	return c->filt.seen[h].keep == 1;
}

/* --comm, --tid: ev is another process's or thread's. */
static int filtered_out(struct ot_capture *c, const struct ot_event *ev)
{
	if (ev->kind == OT_EV_LOST || (c->calib_pair && ev->func == c->calib_target))
		return 0;
	if (c->o.tid && ev->tid != (uint32_t)c->o.tid)
		return 1;
	return c->o.comm && !comm_keeps(c, ev->pid);
}

int ot_capture_filter_drops(struct ot_capture *c, const struct ot_event *ev)
{
	/* -a: orbit-trace's own calls of a traced library are not the report's. */
	if (c->filt.own_pid && ev->kind != OT_EV_LOST && ev->pid == c->filt.own_pid &&
	    !(c->calib_pair && ev->func == c->calib_target)) {
		c->filt.own_records++;
		return 1;
	}
	if ((c->o.comm || c->o.tid) && filtered_out(c, ev)) {
		c->filt.dropped++;
		return 1;
	}
	return 0;
}

void ot_capture_filter_judge(struct ot_capture *c)
{
	char why[320];

	if (!c->filt.unnamed)
		return;
	snprintf(why, sizeof(why), "%llu record%s of %llu process%s whose name could not be "
		 "read (gone before a drain) %s dropped by --comm %s: calls of %s may be among "
		 "them", (unsigned long long)c->filt.unnamed, c->filt.unnamed == 1 ? "" : "s",
		 (unsigned long long)c->filt.unnamed_procs, c->filt.unnamed_procs == 1 ? "" : "es",
		 c->filt.unnamed == 1 ? "was" : "were", c->o.comm, c->o.comm);
	ot_check_add(&c->check, OT_STATUS_LOSSY, why);
}

void ot_capture_filter_free(struct ot_capture_filter *f)
{
	free(f->seen);
	free(f->at);
	free(f->desc);
}

/* The report's word on --comm/--tid: the filter as given, and how many
 * records it dropped. */
void ot_capture_filter_report(struct ot_capture *c, struct ot_report *r)
{
	if (!c->o.comm && !c->o.tid)
		return;
	if (!c->filt.desc &&
	    (c->o.comm && c->o.tid ?
		     asprintf(&c->filt.desc, "--comm %s --tid %d", c->o.comm, (int)c->o.tid) :
	     c->o.comm ? asprintf(&c->filt.desc, "--comm %s", c->o.comm) :
			 asprintf(&c->filt.desc, "--tid %d", (int)c->o.tid)) < 0)
		c->filt.desc = NULL;
	r->filter = c->filt.desc ? c->filt.desc : "--comm/--tid";
	r->filtered = c->filt.dropped;
}
