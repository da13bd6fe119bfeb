/*
 * sinks.c - what a capture keeps of each scope as it closes and prints while
 * it runs (sinks.h): --slowest, --slower-than, -f's values, rows per process,
 * -I's intervals, the live status line.
 */
#include "sinks.h"
#include "symbols/select.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(OT_REPORT_MORE == OT_TV_NMORE, "a report row shows every value the tables keep");

void ot_sinks_init(struct ot_sinks *s, const struct ot_sinks_opts *o, struct ot_pair *pair)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->o = *o;
	s->pair = pair;
	s->tab = ot_pair_tables_fill(pair);
	if (o->slowest) {
		ot_tables_longest(s->tab, o->slowest);
		s->slow = ot_xcalloc(o->nfuncs, sizeof(*s->slow));
		for (i = 0; i < o->nfuncs; i++)
			s->slow[i].v = ot_xcalloc(o->slowest, sizeof(*s->slow[i].v));
	}
}

void ot_sinks_values(struct ot_sinks *s, size_t f, uint8_t arg, uint8_t ret)
{
	struct ot_sinks_values *k;

	if (!arg && !ret)
		return;
	if (!s->vals)
		s->vals = ot_xcalloc(s->o.nfuncs, sizeof(*s->vals));
	k = &s->vals[f];
	if (arg) {
		k->arg = ot_tables_values(s->tab, f, OT_TV_ARG);
		k->arg32 = !!(arg & OT_SEL_32);
		snprintf(k->arg_name, sizeof(k->arg_name), "arg%d%s", OT_SEL_ARG(arg),
			 k->arg32 ? ":32" : "");
	}
	if (ret)
		k->ret = ot_tables_values(s->tab, f, OT_TV_RET);
	k->ret32 = !!(ret & OT_SEL_32);
}

void ot_sinks_values_typed(struct ot_sinks *s, size_t f, const char *arg_name,
			   uint8_t ret_size, uint8_t ret_signed)
{
	struct ot_sinks_values *k;

	if (!arg_name && !ret_size)
		return;
	if (!s->vals)
		s->vals = ot_xcalloc(s->o.nfuncs, sizeof(*s->vals));
	k = &s->vals[f];
	if (arg_name) {
		k->arg = ot_tables_values(s->tab, f, OT_TV_ARG);
		k->arg32 = 0;
		snprintf(k->arg_name, sizeof(k->arg_name), "%s", arg_name);
	}
	k->ret_size = ret_size < 8 ? ret_size : 0;
	k->ret_signed = ret_signed;
}

void ot_sinks_values_str(struct ot_sinks *s, size_t f, const char *name)
{
	if (!s->vals)
		s->vals = ot_xcalloc(s->o.nfuncs, sizeof(*s->vals));
	snprintf(s->vals[f].str_name, sizeof(s->vals[f].str_name), "%s", name);
}

void ot_sinks_values_more(struct ot_sinks *s, size_t f, size_t j, const char *name)
{
	struct ot_sinks_values *k;

	if (j >= OT_REPORT_MORE)
		return;
	if (!s->vals)
		s->vals = ot_xcalloc(s->o.nfuncs, sizeof(*s->vals));
	k = &s->vals[f];
	k->more[j] = ot_tables_values(s->tab, f, OT_TV_MORE + (unsigned)j);
	snprintf(k->more_name[j], sizeof(k->more_name[j]), "%s", name);
	if (k->nmore < j + 1)
		k->nmore = j + 1;
}

/* Calls are kept this many at most (unclosed ones would pile up). */
#define PEND_MAX 4096
/* A call's values come from probes of one hit: this close in time. */
#define PEND_SAME_NS 1000000u

void ot_sinks_value(struct ot_sinks *s, uint32_t tid, uint32_t f, unsigned j, uint64_t time,
		    uint64_t v)
{
	struct ot_sinks_pending *p = NULL;
	size_t i;

	if (!s->vals || f >= s->o.nfuncs || j >= OT_REPORT_MORE || !s->vals[f].more[j])
		return;
	ot_values_add(s->vals[f].more[j], (int64_t)v);
	if (!s->o.slower_than)
		return;
	/* The same call's other values: the latest of its thread and
	 * function, this slot not yet filled, from the same moment. */
	for (i = s->npend; i-- > 0;) {
		if (s->pend[i].tid != tid || s->pend[i].func != f)
			continue;
		if (!(s->pend[i].have >> j & 1) && time - s->pend[i].time < PEND_SAME_NS)
			p = &s->pend[i];
		break;
	}
	if (!p) {
		if (s->npend == PEND_MAX)
			memmove(s->pend, s->pend + 1, --s->npend * sizeof(*s->pend));
		if (s->npend == s->pend_cap) {
			s->pend_cap = s->pend_cap ? 2 * s->pend_cap : 16;
			s->pend = ot_xreallocarray(s->pend, s->pend_cap, sizeof(*s->pend));
		}
		p = &s->pend[s->npend++];
		memset(p, 0, sizeof(*p));
		p->tid = tid;
		p->func = f;
		p->time = time;
	}
	p->have |= (uint8_t)(1u << j);
	p->v[j] = v;
}

/* The scope's further values, taken off the pending calls (the latest of
 * its thread and function from its entry's moment), into sl when sl. */
static void take_pending(struct ot_sinks *s, const struct ot_scope *sc, struct ot_report_slow *sl)
{
	const struct ot_sinks_values *k = &s->vals[sc->func];
	size_t i, j;

	for (i = s->npend; i-- > 0;) {
		const struct ot_sinks_pending *p = &s->pend[i];

		if (p->tid != sc->tid || p->func != sc->func)
			continue;
		if (p->time + PEND_SAME_NS < sc->start || p->time > sc->start + PEND_SAME_NS)
			return;	/* not this call's */
		for (j = 0; sl && j < k->nmore; j++) {
			if (!(p->have >> j & 1))
				continue;
			sl->more_name[sl->nmore] = k->more_name[j];
			sl->more[sl->nmore++] = (int64_t)p->v[j];
		}
		memmove(&s->pend[i], &s->pend[i + 1], (s->npend - i - 1) * sizeof(*s->pend));
		s->npend--;
		return;
	}
}

/* The return value as its type has it: its low ret_size bytes,
 * sign-extended when signed. */
static int64_t typed_ret(const struct ot_sinks_values *k, uint64_t x)
{
	unsigned bits = k->ret_size * 8u;

	if (k->ret32)
		return (int64_t)(int32_t)x;
	if (!bits)
		return (int64_t)x;
	x &= (1ull << bits) - 1;
	if (k->ret_signed && x >> (bits - 1))
		x |= ~0ull << bits;
	return (int64_t)x;
}

void ot_sinks_start(struct ot_sinks *s, uint64_t t_start, uint64_t interval_ns, FILE *live)
{
	size_t i;

	s->t_start = t_start;
	if (interval_ns) {
		s->ivl = ot_xcalloc(s->o.nfuncs + 1, sizeof(*s->ivl));
		for (i = 0; i < s->o.nfuncs; i++)
			ot_hist_init(&s->ivl[i]);
		s->ivl_ns = interval_ns;
		s->ivl_start = t_start;
		s->ivl_next = t_start + interval_ns;
	}
	s->live = live;
	s->live_next = t_start + 1000000000ull;
}

/* -a: the process's row for this function. */
static void count_process(struct ot_sinks *s, const struct ot_scope *sc, uint64_t dur)
{
	struct ot_report_proc *p;
	size_t h;

	if (2 * (s->nprocs + 1) > s->procs_cap) {
		struct ot_report_proc *old = s->procs;
		size_t oldcap = s->procs_cap, i;

		s->procs_cap = oldcap ? 2 * oldcap : 64;
		s->procs = ot_xcalloc(s->procs_cap, sizeof(*s->procs));
		for (i = 0; i < oldcap; i++) {
			if (!old[i].pid)
				continue;
			h = ((size_t)old[i].pid * 2654435761u + old[i].func) & (s->procs_cap - 1);
			while (s->procs[h].pid)
				h = (h + 1) & (s->procs_cap - 1);
			s->procs[h] = old[i];
		}
		free(old);
	}
	h = ((size_t)sc->pid * 2654435761u + sc->func) & (s->procs_cap - 1);
	while (s->procs[h].pid && (s->procs[h].pid != sc->pid || s->procs[h].func != sc->func))
		h = (h + 1) & (s->procs_cap - 1);
	p = &s->procs[h];
	if (!p->pid) {
		p->pid = sc->pid;
		p->func = sc->func;
		if (s->o.comm(s->o.comm_ctx, sc->pid, p->comm, sizeof(p->comm)))
			snprintf(p->comm, sizeof(p->comm), "?");
		s->nprocs++;
	}
	p->scopes++;
	p->total_ns += dur;
	if (dur > p->max_ns)
		p->max_ns = dur;
}

/* sl's path, "outer > middle > inner", and its chain of names (into the
 * names table), both malloc'd: the traced callers of func's call at node. */
static void node_path(const struct ot_sinks *s, uint32_t func, uint32_t node,
		      struct ot_report_slow *sl)
{
	const struct ot_tree_node *tree;
	const char **names = s->o.names, **chain;
	size_t ntree, len = 1, k = 0;
	uint32_t n;
	char *path, *at;

	tree = ot_tables_tree(s->tab, &ntree);
	/* Past the tree's node limit the path is unknown: the name alone. */
	if (!node || node >= ntree) {
		chain = ot_xcalloc(1, sizeof(*chain));
		chain[0] = names[func];
		sl->path = ot_xstrdup(names[func]);
		sl->chain = chain;
		sl->nchain = 1;
		return;
	}
	for (n = node; n && n < ntree; n = tree[n].parent, k++)
		len += strlen(names[tree[n].func]) + 3;
	chain = ot_xcalloc(k, sizeof(*chain));
	sl->nchain = k;
	path = ot_xmalloc(len);
	at = path + len - 1;
	*at = 0;
	for (n = node, k = 0; n && n < ntree; n = tree[n].parent, k++) {
		const char *name = names[tree[n].func];
		size_t l = strlen(name);

		chain[sl->nchain - 1 - k] = name;
		if (k) {
			at -= 3;
			memcpy(at, " > ", 3);
		}
		at -= l;
		memcpy(at, name, l);
	}
	if (at != path)
		memmove(path, at, strlen(at) + 1);
	sl->path = path;
	sl->chain = chain;
}

static void slow_free(struct ot_report_slow *sl)
{
	free((char *)sl->path);
	free((void *)sl->chain);
}

/* A scope's recorded values into its function's distributions. */
static void keep_values(struct ot_sinks *s, const struct ot_scope *sc)
{
	struct ot_sinks_values *k = &s->vals[sc->func];

	if (k->arg && sc->has_arg)
		ot_values_add(k->arg, k->arg32 ? (int64_t)(int32_t)sc->arg : (int64_t)sc->arg);
	if (k->ret && sc->has_ret)
		ot_values_add(k->ret, typed_ret(k, sc->ret));
}

/*
 * When nothing but --slowest and --slower-than looks at function f's
 * scopes, the shortest one the hook does anything with: the pairing skips
 * the rest (most scopes, once --slowest holds its N).
 */
static void keep_min(struct ot_sinks *s, uint32_t f)
{
	uint64_t min = UINT64_MAX;

	if (s->o.every_scope || s->vals || s->ivl || s->o.per_process)
		return;
	if (s->slow)
		min = ot_tables_longest_floor(s->tab, f);
	if (s->o.slower_than && s->o.slower_than < min)
		min = s->o.slower_than;
	ot_pair_on_scope_min(s->pair, f, min);
}

static void intervals_upto(struct ot_sinks *s, uint64_t t);

/*
 * A --slower-than line's process name and the call's values.  The name is
 * asked once per process and kept while its calls come in a row (a line
 * per slow call must not cost a /proc read each).
 */
static void slow_details(struct ot_sinks *s, const struct ot_scope *sc, struct ot_report_slow *sl)
{
	const struct ot_sinks_values *k = s->vals ? &s->vals[sc->func] : NULL;

	if (s->o.comm && sc->pid != s->slow_pid) {
		if (s->o.comm(s->o.comm_ctx, sc->pid, s->slow_comm, sizeof(s->slow_comm)))
			s->slow_comm[0] = 0;
		s->slow_pid = sc->pid;
	}
	memcpy(sl->comm, s->slow_comm, sizeof(sl->comm));
	if (s->o.wall_offset)
		sl->wall_ns = (uint64_t)((int64_t)sc->start + s->o.wall_offset);
	if (k && k->arg && sc->has_arg) {
		sl->arg_name = k->arg_name;
		sl->arg = k->arg32 ? (int64_t)(int32_t)sc->arg : (int64_t)sc->arg;
	}
	if (k && k->str_name[0] && sc->has_arg) {
		sl->str_name = k->str_name;
		sl->str = s->o.str ? s->o.str(s->o.str_ctx, sc->arg) : NULL;
		if (!sl->str)
			sl->str = "?";
	}
	if (k && k->ret && sc->has_ret) {
		sl->ret_name = k->ret32 ? "ret:32" : "ret";
		sl->ret = typed_ret(k, sc->ret);
	}
}

/* Held lines past this many are written (oldest first) rather than kept. */
#define HELD_MAX 4096

/* Write held line i, and forget it. */
static void held_out(struct ot_sinks *s, size_t i)
{
	fputs(s->held[i].line, s->o.out);
	s->unflushed = 1;
	free(s->held[i].line);
	memmove(s->held + i, s->held + i + 1, (--s->nheld - i) * sizeof(*s->held));
}

/* A slow scope nested in a traced call: its line kept, not written. */
static void hold(struct ot_sinks *s, const struct ot_scope *sc, const char *name,
		 const struct ot_report_slow *sl)
{
	struct ot_sinks_held *h;
	size_t len = 0;
	char *line = NULL;
	FILE *m = open_memstream(&line, &len);

	if (!m)
		return;
	if (s->o.json)
		ot_report_slow_json(m, (int)sc->pid, name, sl);
	else
		ot_report_slow_text(m, (int)sc->pid, name, sl);
	if (fclose(m)) {
		free(line);
		return;
	}
	if (s->nheld == HELD_MAX)
		held_out(s, 0);
	if (s->nheld == s->held_cap) {
		s->held_cap = s->held_cap ? 2 * s->held_cap : 16;
		s->held = ot_xreallocarray(s->held, s->held_cap, sizeof(*s->held));
	}
	h = &s->held[s->nheld++];
	h->tid = sc->tid;
	h->start = sc->start;
	h->line = line;
}

/* An outermost slow scope closed: the lines of those it held are its. */
static void drop_held(struct ot_sinks *s, const struct ot_scope *sc)
{
	size_t i, k = 0;

	for (i = 0; i < s->nheld; i++) {
		if (s->held[i].tid == sc->tid && s->held[i].start >= sc->start)
			free(s->held[i].line);
		else
			s->held[k++] = s->held[i];
	}
	s->nheld = k;
}

void ot_sinks_slow_end(struct ot_sinks *s)
{
	if (s->nheld)
		ot_sinks_live_clear(s);
	while (s->nheld)
		held_out(s, 0);
}

void ot_sinks_scope(void *ctx, const struct ot_scope *sc)
{
	struct ot_sinks *s = ctx;
	uint64_t dur = sc->end >= sc->start ? sc->end - sc->start : 0;
	const char *name = s->o.names[sc->func];
	struct ot_report_slow sl;
	int slow = s->o.slower_than && dur >= s->o.slower_than;

	if (s->vals)
		keep_values(s, sc);
	if (sc->point)
		return;	/* a USDT probe's hit: its value, and no duration */
	if (s->npend && !slow)
		take_pending(s, sc, NULL);
	if (s->ivl) {
		/* Scopes come in the order they closed: one past the window
		 * means the window is whole. */
		if (sc->end >= s->ivl_next)
			intervals_upto(s, sc->end);
		ot_hist_add(&s->ivl[sc->func], dur);
	}
	if (s->o.per_process)
		count_process(s, sc, dur);
	if (!slow && (!s->slow || dur < ot_tables_longest_floor(s->tab, sc->func))) {
		keep_min(s, sc->func);
		return;
	}
	memset(&sl, 0, sizeof(sl));
	sl.at_ns = sc->start > s->t_start ? sc->start - s->t_start : 0;
	sl.duration_ns = dur;
	sl.tid = sc->tid;
	if (slow) {
		node_path(s, sc->func, sc->node, &sl);
		slow_details(s, sc, &sl);
		if (s->npend)
			take_pending(s, sc, &sl);
	}
	if (slow && !s->o.slower_all && sc->depth > 0) {
		hold(s, sc, name, &sl);
	} else if (slow) {
		if (!s->o.slower_all)
			drop_held(s, sc);
		ot_sinks_live_clear(s);
		if (s->o.json)
			ot_report_slow_json(s->o.out, (int)sc->pid, name, &sl);
		else
			ot_report_slow_text(s->o.out, (int)sc->pid, name, &sl);
		s->unflushed = 1;
	}
	slow_free(&sl);
	if (s->slow) {
		struct ot_longest l = { .at_ns = sl.at_ns, .dur_ns = dur, .tid = sc->tid,
					.node = sc->node };

		ot_tables_keep_longest(s->tab, sc->func, &l);
	}
	keep_min(s, sc->func);
}

void ot_sinks_flush(struct ot_sinks *s)
{
	if (s->unflushed)
		fflush(s->o.out);
	s->unflushed = 0;
}

uint64_t ot_sinks_interval_due(const struct ot_sinks *s)
{
	return s->ivl ? s->ivl_next : UINT64_MAX;
}

/* -I: print the window [ivl_start, end) and start the next at end. */
static void interval_out(struct ot_sinks *s, uint64_t end)
{
	struct ot_report_interval iv = {
		.seq = ++s->ivl_seq,
		.start_ns = s->ivl_start - s->t_start,
		.end_ns = end - s->t_start,
		.lost = s->lost - s->ivl_lost,
		.nfuncs = s->o.nfuncs,
		.names = s->o.names,
		.hist = s->ivl,
	};
	size_t i;

	ot_sinks_live_clear(s);
	if (s->o.json)
		ot_report_interval_json(s->o.out, &iv);
	else
		ot_report_interval_text(s->o.out, &iv);
	fflush(s->o.out);
	for (i = 0; i < s->o.nfuncs; i++)
		ot_hist_init(&s->ivl[i]);
	s->ivl_lost = s->lost;
	s->ivl_start = end;
	s->ivl_next = end + s->ivl_ns;
}

/*
 * Every window that ended by t, in turn (empty ones too).  Once the
 * capture's end is known, the window it falls in or closes stays open
 * whatever t: it is the last, and scopes closing after the end (until the
 * probes are disabled) are its own.
 */
static void intervals_upto(struct ot_sinks *s, uint64_t t)
{
	if (s->t_end && t >= s->t_end) {
		while (s->ivl && s->ivl_next < s->t_end)
			interval_out(s, s->ivl_next);
		return;
	}
	while (s->ivl && t >= s->ivl_next)
		interval_out(s, s->ivl_next);
}

void ot_sinks_lost(struct ot_sinks *s, uint64_t lost)
{
	s->lost = lost;
}

void ot_sinks_intervals_upto(struct ot_sinks *s, uint64_t horizon)
{
	intervals_upto(s, horizon);
}

void ot_sinks_end(struct ot_sinks *s, uint64_t t_end)
{
	s->t_end = t_end;
}

void ot_sinks_interval(struct ot_sinks *s, uint64_t now, uint64_t lost)
{
	s->lost = lost;
	intervals_upto(s, now);
	if (s->ivl && now > s->ivl_start)
		interval_out(s, now);
}

int ot_sinks_live_due(const struct ot_sinks *s, uint64_t now)
{
	return s->live && now >= s->live_next;
}

/* People watching a long capture want to know it is alive and whether it
 * is losing records. */
void ot_sinks_live(struct ot_sinks *s, uint64_t now, uint64_t scopes, uint64_t lost,
		   uint64_t hw, uint64_t size)
{
	if (!s->live)
		return;
	fprintf(s->live, "\r\033[Korbit-trace: %.1f s, %.0f scopes/s, %" PRIu64
		" records lost, ring peak %.1f%%",
		(double)(now - s->t_start) / 1e9,
		(double)(scopes - s->live_scopes) * 1e9 /
			(double)(now - (s->live_time ? s->live_time : s->t_start)),
		lost, 100.0 * (double)hw / (double)size);
	s->live_scopes = scopes;
	s->live_time = now;
	s->live_next = now + 500000000ull;
}

void ot_sinks_live_clear(struct ot_sinks *s)
{
	/* Never drawn while the first redraw is still to come. */
	if (s->live && s->live_next != s->t_start + 1000000000ull)
		fputs("\r\033[K", s->live);
}

/* Function f's longest calls, from the tables, as the report's rows
 * (their paths named now: a tree node never changes once made). */
static void render_slowest(struct ot_sinks *s, size_t f)
{
	struct ot_sinks_slow *k = &s->slow[f];
	const struct ot_longest *l;
	size_t i, n;

	for (i = 0; i < k->n; i++)
		slow_free(&k->v[i]);
	l = ot_tables_longest_of(s->tab, f, &n);
	memset(k->v, 0, s->o.slowest * sizeof(*k->v));
	for (i = 0; i < n; i++) {
		k->v[i].at_ns = l[i].at_ns;
		k->v[i].duration_ns = l[i].dur_ns;
		k->v[i].tid = l[i].tid;
		node_path(s, (uint32_t)f, l[i].node, &k->v[i]);
	}
	k->n = n;
}

void ot_sinks_report(struct ot_sinks *s, struct ot_report_func *fn)
{
	size_t i, k;

	for (i = 0; i < s->o.nfuncs; i++) {
		if (s->vals) {
			fn[i].arg = s->vals[i].arg;
			fn[i].arg_name = s->vals[i].arg_name;
			fn[i].ret = s->vals[i].ret;
			fn[i].ret_name = s->vals[i].ret32 ? "ret:32" : "ret";
			for (k = 0; k < s->vals[i].nmore; k++) {
				fn[i].more[k] = s->vals[i].more[k];
				fn[i].more_name[k] = s->vals[i].more_name[k];
			}
			fn[i].nmore = s->vals[i].nmore;
		}
		if (s->slow) {
			render_slowest(s, i);
			fn[i].slowest = s->slow[i].v;
			fn[i].nslowest = s->slow[i].n;
		}
	}
}

static int cmp_proc(const void *a, const void *b)
{
	const struct ot_report_proc *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static int cmp_fol(const void *a, const void *b)
{
	const struct ot_follow_proc *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

struct ot_report_proc *ot_sinks_procs(struct ot_sinks *s, const struct ot_follow_proc *fol,
				      size_t nfol, size_t *n)
{
	size_t k;

	*n = 0;
	if (!s->nprocs)
		return NULL;
	/* The table's used slots, packed. */
	for (k = 0; k < s->procs_cap; k++)
		if (s->procs[k].pid)
			s->procs[(*n)++] = s->procs[k];
	/* --follow: named as the kernel last saw them (after exec, and
	 * whether or not they are still there to ask). */
	for (k = 0; k < *n && nfol; k++) {
		struct ot_follow_proc key = { .pid = s->procs[k].pid };
		const struct ot_follow_proc *fp = bsearch(&key, fol, nfol, sizeof(*fol), cmp_fol);

		if (fp) {
			memcpy(s->procs[k].comm, fp->comm, sizeof(s->procs[k].comm));
			s->procs[k].ppid = fp->ppid;
		}
	}
	qsort(s->procs, *n, sizeof(*s->procs), cmp_proc);
	s->procs_cap = 0;	/* no longer a hash table */
	return s->procs;
}

struct ot_report_proc *ot_sinks_procs_now(const struct ot_sinks *s, size_t *n)
{
	struct ot_report_proc *v;
	size_t k;

	*n = 0;
	if (!s->nprocs || !s->procs_cap)
		return NULL;
	v = ot_xcalloc(s->nprocs, sizeof(*v));
	for (k = 0; k < s->procs_cap; k++)
		if (s->procs[k].pid)
			v[(*n)++] = s->procs[k];
	qsort(v, *n, sizeof(*v), cmp_proc);
	return v;
}

void ot_sinks_free(struct ot_sinks *s)
{
	size_t i, k;

	/* The distributions are the tables': the pairing frees them. */
	free(s->vals);
	free(s->pend);
	for (i = 0; i < s->nheld; i++)
		free(s->held[i].line);
	free(s->held);
	free(s->ivl);
	free(s->procs);
	for (i = 0; s->slow && i < s->o.nfuncs; i++) {
		for (k = 0; k < s->slow[i].n; k++)
			slow_free(&s->slow[i].v[k]);
		free(s->slow[i].v);
	}
	free(s->slow);
	memset(s, 0, sizeof(*s));
}
