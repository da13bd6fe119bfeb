/*
 * export.c - scopes for other tools (export.h): a Chrome trace-event timeline
 * streamed as scopes close, folded stacks for flame graphs written at the end.
 */
#include "export.h"
#include "util/error.h"
#include "json.h"
#include "process/procfs.h"
#include "scopes/fold.h"
#include "util/escape.h"
#include "util/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct ot_timeline {
	FILE *f;
	pid_t pid;
	uint64_t t0;
	const char *const *names;
	uint32_t *tids;	/* threads already named: open addressing, 0 = free */
	size_t ntids, cap;
};

struct ot_timeline *ot_timeline_open(FILE *f, pid_t pid, const char *process, uint64_t t0_ns,
				     const char *const *names)
{
	struct ot_timeline *t = ot_xcalloc(1, sizeof(*t));

	t->f = f;
	t->pid = pid;
	t->t0 = t0_ns;
	t->names = names;
	t->cap = 64;
	t->tids = ot_xcalloc(t->cap, sizeof(*t->tids));
	fprintf(f, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
	fprintf(f, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": %d, "
		"\"args\": {\"name\": ", (int)pid, (int)pid);
	ot_json_string(f, process);
	fprintf(f, "}}");
	return t;
}

/* 1 if tid was not seen before (and is now). */
static int first_sight(struct ot_timeline *t, uint32_t tid)
{
	size_t s, i;

	if (2 * (t->ntids + 1) > t->cap) {
		uint32_t *old = t->tids;
		size_t oldcap = t->cap;

		t->cap *= 2;
		t->tids = ot_xcalloc(t->cap, sizeof(*t->tids));
		for (i = 0; i < oldcap; i++) {
			if (!old[i])
				continue;
			s = (old[i] * 2654435761u) & (t->cap - 1);
			while (t->tids[s])
				s = (s + 1) & (t->cap - 1);
			t->tids[s] = old[i];
		}
		free(old);
	}
	s = (tid * 2654435761u) & (t->cap - 1);
	while (t->tids[s]) {
		if (t->tids[s] == tid)
			return 0;
		s = (s + 1) & (t->cap - 1);
	}
	t->tids[s] = tid;
	t->ntids++;
	return 1;
}

static void name_thread(struct ot_timeline *t, uint32_t tid)
{
	char comm[64];

	/* Read while the capture runs: the thread may be gone at the end.
	 * /proc/TID names a thread as /proc/PID/task/TID does. */
	if (ot_proc_comm((pid_t)tid, comm, sizeof(comm)) || !comm[0])
		snprintf(comm, sizeof(comm), "thread %u", tid);
	fprintf(t->f, ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %u, "
		"\"args\": {\"name\": ", (int)t->pid, tid);
	ot_json_string(t->f, comm);
	fprintf(t->f, "}}");
}

void ot_timeline_scope(struct ot_timeline *t, const struct ot_scope *s)
{
	uint64_t ts = s->start > t->t0 ? s->start - t->t0 : 0;

	if (first_sight(t, s->tid))
		name_thread(t, s->tid);
	fprintf(t->f, ",\n{\"ph\": \"X\", \"name\": ");
	ot_json_string(t->f, t->names[s->func]);
	/* Microseconds with nanosecond digits: the format's unit, our precision. */
	fprintf(t->f, ", \"pid\": %d, \"tid\": %u, \"ts\": %" PRIu64 ".%03u, \"dur\": %"
		PRIu64 ".%03u}", (int)t->pid, s->tid, ts / 1000, (unsigned)(ts % 1000),
		(s->end - s->start) / 1000, (unsigned)((s->end - s->start) % 1000));
}

void ot_timeline_close(struct ot_timeline *t, int complete)
{
	if (!t)
		return;
	if (complete)
		fprintf(t->f, "\n]}\n");
	free(t->tids);
	free(t);
}

static void write_path(FILE *f, const struct ot_fold *fo, uint32_t k, const char *const *names)
{
	if (fo->e[k].parent) {
		write_path(f, fo, fo->e[k].parent, names);
		fputc(';', f);
	}
	/* A line per path: a name a target controls must not make another. */
	ot_escape_text(f, names[fo->e[k].func], 0);
}

int ot_folded_write(FILE *f, const struct ot_tree_node *tree, size_t n,
		    const char *const *names)
{
	struct ot_fold fo;
	size_t i;

	ot_fold_tree(tree, n, &fo);
	for (i = 1; i < fo.n; i++) {
		if (!fo.e[i].calls || !fo.e[i].self_ns)
			continue;
		write_path(f, &fo, (uint32_t)i, names);
		fprintf(f, " %" PRIu64 "\n", fo.e[i].self_ns);
	}
	ot_fold_free(&fo);
	return ferror(f) ? -EIO : 0;
}
