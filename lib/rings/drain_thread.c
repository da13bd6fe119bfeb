/*
 * drain_thread.c - a per-thread ring's records into the drain
 * (ot_drain_thread, drain.h): one thread's compact records queued as they
 * come, 16 bytes each, their ids cached, decoded into events as the merge
 * takes them (drain_emit_thread_run), or at once when the queue must hold
 * events.
 */
#include "drain.h"
#include "drain_priv.h"
#include "kinds.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Compact records' probe ids, direct-mapped (inject's are dense), with
 * the event each stands for worked out once: the lookup's answer for an
 * id does not change.
 */
#define IDC_N 2048
#define IDC_UNKNOWN 0xff
struct idc {
	uint32_t func;
	uint16_t id;	  /* 0: empty */
	uint8_t kind;	  /* enum ot_event_kind, IDC_UNKNOWN: none of ours */
	uint8_t flags;	  /* OT_EV_* */
	uint8_t sp_delta; /* from the probe's SP to its call's entry SP */
};

void ot_drain_thread_funcs(struct ot_drain *d, uint32_t n)
{
	d->tfuncs = n;
}

void ot_drain_thread_point(struct ot_drain *d, uint32_t func)
{
	if (func >= d->tfuncs)
		return;
	if (!d->tpoint)
		d->tpoint = ot_xcalloc(d->tfuncs, 1);
	d->tpoint[func] = 1;
	if (d->idc)
		memset(d->idc, 0, IDC_N * sizeof(*d->idc));	/* ids filled before it */
}

void ot_drain_thread_exits(struct ot_drain *d)
{
	d->texits = 1;
	if (d->idc)
		memset(d->idc, 0, IDC_N * sizeof(*d->idc));	/* ids filled before it */
}

/* A compact record behind the newest queued: put in its place. */
void drain_tr_insert(struct queue *q, const struct ot_drain_trec *r)
{
	size_t i = q->len++;

	if (r->time > q->last_time)
		q->last_time = r->time;
	while (i > 0 && tr_at(q, i - 1)->time > r->time) {
		*tr_at(q, i) = *tr_at(q, i - 1);
		i--;
	}
	*tr_at(q, i) = *r;
}

void ot_drain_thread_strs(struct ot_drain *d, const uint8_t *is_str, uint32_t n)
{
	uint32_t f;

	free(d->tstr);
	d->tstr = NULL;
	d->ntstr = 0;
	for (f = 0; f < n && !is_str[f]; f++)
		;
	if (f == n)
		return;
	d->tstr = ot_xmalloc(n);
	memcpy(d->tstr, is_str, n);
	d->ntstr = n;
}

/* The cache entry of compact id (not 0), filled on a miss: the id says
 * its function and kind (OT_DRAIN_T_*). */
static const struct idc *id_fill(struct ot_drain *d, uint16_t id)
{
	static const int kinds[4] = {
		[OT_DRAIN_T_ENTRY] = OT_PROBE_ENTRY, [OT_DRAIN_T_RETURN] = OT_PROBE_EXACT_RET,
		[OT_DRAIN_T_TAIL] = OT_PROBE_TAIL_ENTRY,
	};
	/* A function seen at its return instructions (ot_drain_thread_exits). */
	static const int exit_kinds[4] = {
		[OT_DRAIN_T_ENTRY] = OT_PROBE_ENTRY, [OT_DRAIN_T_RETURN] = OT_PROBE_RET_INSN,
		[OT_DRAIN_T_TAIL] = OT_PROBE_TAIL_RET,
	};
	struct idc *e = &d->idc[id & (IDC_N - 1)];
	uint32_t f = (uint32_t)(id >> 2);
	struct ot_event ev;
	int exits = f >= d->tfuncs;

	e->id = id;
	if (exits && d->texits && f < 2 * d->tfuncs)
		f -= d->tfuncs;
	if (!(id & 3) || f >= d->tfuncs) {
		e->kind = IDC_UNKNOWN;
		return e;
	}
	drain_set_kind(&ev, exits ? exit_kinds[id & 3] : (id & 3) == OT_DRAIN_T_ENTRY && d->tpoint &&
			  d->tpoint[f] ? OT_PROBE_POINT : kinds[id & 3], 0, OT_RET_SP_DELTA);
	/* Its entry may be a tail call's, at its caller's SP (nothing tells
	 * one apart at the entry): the pairing keeps that caller open. */
	if (exits && ev.kind == OT_EV_ENTRY)
		ev.flags |= OT_EV_MAY_TAIL;
	e->func = f;
	e->kind = ev.kind;
	e->flags = ev.flags;
	e->sp_delta = (uint8_t)(OT_RET_SP_DELTA - ev.sp);
	return e;
}

/*
 * A compact value record (word, its id's code) of queue q: kept for the
 * record it comes before, or an entry's further value into ev (0); -1
 * when no event.
 */
static int tr_value(struct queue *q, uint64_t word, unsigned code, struct ot_event *ev)
{
	uint64_t x;

	if (code & OT_DRAIN_V_HI) {
		if (!(q->pcode & OT_DRAIN_V_SPLIT))
			return -1;	/* its low part was lost */
		x = q->pv | (word >> 16) << 48;
		code = q->pcode & ~OT_DRAIN_V_SPLIT;
	} else if (code & OT_DRAIN_V_SPLIT) {
		q->pv = word >> 16;
		q->pcode = (uint8_t)code;
		return -1;
	} else {
		x = (uint64_t)((int64_t)word >> 16);
	}
	q->pcode = 0;
	if (code == 1 || code == OT_DRAIN_V_RET || code == OT_DRAIN_V_STR) {
		q->pv = x;
		q->pcode = (uint8_t)code;
		return -1;
	}
	ev->kind = OT_EV_VALUE;
	ev->flags = (uint8_t)(code - 2);
	ev->func = q->vfunc;
	ev->sp = q->vsp;
	ev->lost = 0;
	ev->value = x;
	ev->has_value = 1;
	return 0;
}

/*
 * The event compact record r of queue q stands for into ev, whose time,
 * tid, pid and cpu the caller set: 0, or -1 for a probe none of ours or
 * a value kept for the next record.  Counts the sample (a lost record
 * was counted as it came).
 */
static inline int tr_decode(struct ot_drain *d, struct queue *q, const struct ot_drain_trec *r,
			    struct ot_event *ev)
{
	uint64_t word = r->word;	/* once: ev's stores might alias r */
	uint16_t id = (uint16_t)word;
	const struct idc *e;

	if (!(id & 3)) {
		if (id)
			return tr_value(q, word, id >> 2, ev);
		q->pcode = 0;
		ev->kind = OT_EV_LOST;
		ev->lost = word >> 16;
		ev->sp = 0;
		ev->func = 0;
		ev->flags = 0;
		ev->has_value = 0;
		return 0;
	}
	e = &d->idc[id & (IDC_N - 1)];
	if (e->id != id)
		e = id_fill(d, id);
	if (e->kind == IDC_UNKNOWN) {
		d->stats.unknown++;
		return -1;
	}
	d->stats.samples++;
	ev->kind = e->kind;
	ev->flags = e->flags;
	ev->func = e->func;
	ev->sp = (word >> 16) - e->sp_delta;
	ev->lost = 0;
	/* The value just before it is its own (the ring's order is the
	 * thread's); an entry's further values follow it. */
	ev->has_value = q->pcode != 0;
	ev->value = q->pv;
	/* An entry's (or a USDT probe's) first value that is a string's
	 * address: its id. */
	if (q->pcode == 1 && d->tstr && e->func < d->ntstr && d->tstr[e->func] &&
	    (e->kind == OT_EV_ENTRY || e->kind == OT_EV_POINT))
		ev->value = drain_str_id(d, ev->pid, e->func, q->pv, 0, NULL, 0, 0, 0);
	else if (q->pcode == OT_DRAIN_V_STR)
		d->str_probe++;
	q->pcode = 0;
	q->vfunc = e->func;
	q->vsp = ev->sp;
	return 0;
}

/* Thread queue qi becomes a queue of events (given another thread's
 * records, or a sample by ot_drain_record). */
void drain_thread_to_events(struct ot_drain *d, unsigned qi)
{
	struct queue *q = &d->q[qi], e = { .ev = NULL };
	struct ot_event ev = { .tid = q->tid, .pid = q->pid, .cpu = (uint16_t)qi };
	size_t i;

	for (i = 0; i < q->len; i++) {
		ev.time = tr_at(q, i)->time;
		if (!tr_decode(d, q, tr_at(q, i), &ev))
			drain_q_push(&e, &ev);
	}
	free(q->tr);
	e.last_time = q->last_time;
	e.ring_lost = q->ring_lost;
	e.pv = q->pv;
	e.pcode = q->pcode;
	e.vfunc = q->vfunc;
	e.vsp = q->vsp;
	*q = e;
}

/*
 * A thread's records the usual way cannot take: another process's
 * (counted apart, samples and losses), or into a queue that must hold
 * events (it still holds another thread's, or ot_drain_record's samples).
 */
static void thread_slow(struct ot_drain *d, unsigned qi, uint32_t pid, uint32_t tid,
			const struct ot_drain_trec *r, size_t n, int foreign)
{
	struct queue *q = &d->q[qi];
	struct ot_event ev = { .tid = tid, .pid = pid, .cpu = (uint16_t)qi };
	size_t i;

	for (i = 0; i < n; i++) {
		if ((uint16_t)r[i].word) {
			if (foreign) {
				d->stats.foreign++;
				continue;
			}
		} else if (foreign) {
			d->stats.foreign_lost += r[i].word >> 16;
			continue;
		} else {
			d->stats.lost += r[i].word >> 16;
		}
		if (r[i].time < d->last_emitted)
			d->stats.late++;
		if (q->thread) {
			drain_q_room(q, 1, sizeof(r[i]));
			drain_tr_insert(q, &r[i]);
			continue;
		}
		ev.time = r[i].time;
		if (!tr_decode(d, q, &r[i], &ev))
			drain_q_push(q, &ev);
	}
}

/* 1 if records r[0..n) are samples in time order from time from on. */
static int in_order(const struct ot_drain_trec *r, size_t n, uint64_t from)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].time < from || !(uint16_t)r[i].word)
			return 0;
		from = r[i].time;
	}
	return 1;
}

void ot_drain_thread(struct ot_drain *d, unsigned qi, uint32_t pid, uint32_t tid,
		     const struct ot_drain_trec *r, size_t n)
{
	struct queue *q = &d->q[qi];
	/* As ot_drain_record: another process's samples and losses apart
	 * (a forked child's ring); a thread's pid is never 0. */
	int foreign = d->pid && pid != d->pid && (!d->also_pid || pid != d->also_pid);
	uint64_t last, lost = 0, late = 0, emitted = d->last_emitted;
	size_t i, mask, head, len;

	if (!n)
		return;
	if (!d->idc)
		d->idc = ot_xcalloc(IDC_N, sizeof(*d->idc));
	if (qi >= d->nactive)
		d->nactive = qi + 1;
	if (q->thread && q->len && (q->pid != pid || q->tid != tid))
		drain_thread_to_events(d, qi);
	if (!q->thread && !q->len) {
		free(q->ev);
		q->ev = NULL;
		q->head = q->cap = 0;
		q->thread = 1;
	}
	if (q->thread) {
		q->pid = pid;
		q->tid = tid;
	}
	if (!q->thread || foreign) {
		thread_slow(d, qi, pid, tid, r, n, foreign);
		return;
	}
	drain_q_room(q, n, sizeof(*r));
	mask = q->cap - 1;
	head = q->head;
	len = q->len;
	last = len ? q->tr[(head + len - 1) & mask].time : 0;
	if (in_order(r, n, last > emitted ? last : emitted)) {
		/* The usual batch: after the queue's tail and the merge, none
		 * lost.  One copy, in at most two pieces. */
		size_t at = (head + len) & mask, first = q->cap - at < n ? q->cap - at : n;

		memcpy(&q->tr[at], r, first * sizeof(*r));
		memcpy(q->tr, r + first, (n - first) * sizeof(*r));
		q->len = len + n;
		return;
	}
	/* In the thread's order, so almost always an append. */
	for (i = 0; i < n; i++) {
		uint64_t t = r[i].time;

		if (!(uint16_t)r[i].word)
			lost += r[i].word >> 16;
		late += t < emitted;
		if (t < last) {
			q->len = len;
	if (last > q->last_time)
		q->last_time = last;
			drain_tr_insert(q, &r[i]);
			len = q->len;
			continue;
		}
		q->tr[(head + len++) & mask] = r[i];
		last = t;
	}
	q->len = len;
	if (last > q->last_time)
		q->last_time = last;
	d->stats.lost += lost;
	d->stats.late += late;
}

/*
 * Emit thread queue qi's records up to time until into ev (the caller's,
 * reused run after run).  The drain's hot loop: five fields of the event
 * change per record; the queue's place is kept in registers (emit does
 * not touch the drain's queues).
 */
void drain_emit_thread_run(struct ot_drain *d, unsigned qi, uint64_t until,
			    struct ot_event *ev)
{
	struct queue *q = &d->q[qi];
	const struct ot_drain_trec *tr = q->tr;
	size_t mask = q->cap - 1, head = q->head, len = q->len;
	ot_drain_emit_fn emit = d->emit;
	void *ctx = d->emit_ctx;

	ev->tid = q->tid;
	ev->pid = q->pid;
	ev->key = 0;	/* a thread's records: no goroutine's (ev held another's) */
	ev->cpu = (uint16_t)qi;
	ev->value = 0;
	ev->has_value = 0;
	while (len && tr[head].time <= until) {
		const struct ot_drain_trec *r = &tr[head];

		q->head = head = (head + 1) & mask;
		q->len = --len;
		ev->time = r->time;
		if (tr_decode(d, q, r, ev))
			continue;
		if (ev->time > d->last_emitted)
			d->last_emitted = ev->time;
		emit(ctx, ev);
	}
}
