/*
 * drain.c - from the backends' rings to one time-ordered event stream
 * (drain.h): records queued per CPU or per thread, other processes' filtered
 * out, losses queued, a k-way merge up to the caller's horizon.
 */
#include "drain.h"
#include "kinds.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A growable circular queue, kept in time order: of events, or of one
 * thread's compact records, decoded as they leave.
 */
struct queue {
	union {
		struct ot_event *ev;
		struct ot_drain_trec *tr;
	};
	size_t head, len, cap; /* cap is a power of two */
	int thread;	       /* holds tr of thread (pid, tid) */
	uint32_t pid, tid;
	uint64_t last_time;    /* the latest event queued */
	uint64_t ring_lost;    /* what its ring's PERF_RECORD_LOSTs reported */
	/* Compact values (OT_DRAIN_V_*): the one waiting for its record
	 * (code 0: none; its low part, when split), the latest entry's
	 * function and SP (its further values' events). */
	uint64_t pv, vsp;
	uint32_t vfunc;
	uint8_t pcode;
};

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

/* A queue with events, in the merge's heap: its oldest event's time. */
struct head {
	uint64_t t;
	unsigned q;
};

struct ot_drain {
	unsigned ncpus;
	uint32_t pid, also_pid;
	ot_drain_lookup_fn lookup;
	void *lookup_ctx;
	ot_drain_emit_fn emit;
	void *emit_ctx;
	struct queue *q;
	struct head *heads; /* the merge's, ncpus of room */
	uint64_t last_emitted;
	struct ot_drain_stats stats;
	unsigned nactive; /* queues 0..nactive-1 have had records */
	unsigned cur_cpu; /* the ring being read, for the callback */
	const struct ot_ring *cur_ring; /* that ring (its decoder) */
	struct idc *idc;  /* with the first compact record */
	uint32_t tfuncs;  /* compact records' functions: 0..tfuncs-1 */
	uint8_t *tpoint;  /* which of them are USDT probes (NULL: none) */
	int texits;	  /* tfuncs..2*tfuncs-1: theirs, seen at return insns */
	/* Processes' names from the rings' comm records (-a on perf): open
	 * addressing on the pid, bounded; NULL until the first. */
	struct drain_comm { uint32_t pid; char comm[16]; } *comms;
	size_t ncomms;
	struct ot_strtab *strs;	/* strings the records carried, by id */
	ot_drain_str_fn str_read;	/* one the probe could not read */
	void *str_read_ctx;
	uint64_t str_probe, str_late, str_unreadable;
	/* Strings read afterwards, by (pid, address): a page the probe cannot
	 * read is one the process has not touched, .rodata's, whose bytes do
	 * not change; one read per address, not per hit.  Direct-mapped. */
	struct late_str { uint64_t addr; uint32_t pid, id, cap; } *late;
	/* Compact functions whose entry's first value is a string's
	 * address (ot_drain_thread_strs): ntstr flags, NULL when none. */
	uint8_t *tstr;
	uint32_t ntstr;
};

#define LATE_CAP 4096	/* a power of two */

#define COMMS_CAP 16384	/* a power of two; past 3/4 full, new names are not kept */

static void keep_comm(struct ot_drain *d, const struct ot_record *rec)
{
	size_t h;

	/* A thread's own name (prctl) is not its process's. */
	if (!rec->pid || rec->pid != rec->tid)
		return;
	if (!d->comms)
		d->comms = ot_xcalloc(COMMS_CAP, sizeof(*d->comms));
	for (h = rec->pid * 2654435761u & (COMMS_CAP - 1); d->comms[h].pid;
	     h = (h + 1) & (COMMS_CAP - 1))
		if (d->comms[h].pid == rec->pid)
			break;
	if (!d->comms[h].pid) {
		if (4 * (d->ncomms + 1) > 3 * COMMS_CAP)
			return;
		d->ncomms++;
		d->comms[h].pid = rec->pid;
	}
	memcpy(d->comms[h].comm, rec->comm, sizeof(d->comms[h].comm));
}

int ot_drain_comm(const struct ot_drain *d, uint32_t pid, char *buf, size_t len)
{
	size_t h;

	if (!d || !d->comms || !pid || !len)
		return -ENOENT;
	for (h = pid * 2654435761u & (COMMS_CAP - 1); d->comms[h].pid;
	     h = (h + 1) & (COMMS_CAP - 1))
		if (d->comms[h].pid == pid) {
			snprintf(buf, len, "%s", d->comms[h].comm);
			return 0;
		}
	return -ENOENT;
}

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

struct ot_drain *ot_drain_new(unsigned ncpus, uint32_t pid,
			      ot_drain_lookup_fn lookup, void *lookup_ctx,
			      ot_drain_emit_fn emit, void *emit_ctx)
{
	struct ot_drain *d = ot_xcalloc(1, sizeof(*d));

	d->ncpus = ncpus ? ncpus : 1;
	d->pid = pid;
	d->lookup = lookup;
	d->lookup_ctx = lookup_ctx;
	d->emit = emit;
	d->emit_ctx = emit_ctx;
	/* Queues get memory with their first event: inject has one per
	 * thread it may ever see. */
	d->q = ot_xcalloc(d->ncpus, sizeof(*d->q));
	d->heads = ot_xcalloc(d->ncpus, sizeof(*d->heads));
	d->strs = ot_strtab_new();
	return d;
}

void ot_drain_also_pid(struct ot_drain *d, uint32_t pid)
{
	d->also_pid = pid;
}

void ot_drain_free(struct ot_drain *d)
{
	unsigned i;

	if (!d)
		return;
	for (i = 0; i < d->ncpus; i++)
		free(d->q[i].ev);
	free(d->q);
	free(d->heads);
	free(d->idc);
	free(d->tpoint);
	free(d->comms);
	ot_strtab_free(d->strs);
	free(d->late);
	free(d->tstr);
	free(d);
}

static struct ot_event *q_at(struct queue *q, size_t i)
{
	return &q->ev[(q->head + i) & (q->cap - 1)];
}

static struct ot_drain_trec *tr_at(struct queue *q, size_t i)
{
	return &q->tr[(q->head + i) & (q->cap - 1)];
}

/* Room for n more entries of size bytes: the ring grown, in order from 0. */
static void q_room(struct queue *q, size_t n, size_t size)
{
	size_t cap, first;
	char *m;

	if (q->cap - q->len >= n)
		return;
	for (cap = q->cap ? 2 * q->cap : 1024; cap - q->len < n; cap *= 2)
		;
	m = ot_xmalloc(cap * size);
	first = q->cap - q->head < q->len ? q->cap - q->head : q->len;
	if (q->len) {
		memcpy(m, (char *)q->ev + q->head * size, first * size);
		memcpy(m + first * size, q->ev, (q->len - first) * size);
	}
	free(q->ev);
	q->ev = (struct ot_event *)m;
	q->head = 0;
	q->cap = cap;
}

static void q_push(struct queue *q, const struct ot_event *ev)
{
	size_t i;

	q_room(q, 1, sizeof(*ev));
	/*
	 * A ring is written in time order almost always; insertion from the
	 * tail keeps the queue sorted at O(1) for that case and stays correct
	 * for the rare record that lands a little out of order.
	 */
	if (ev->time > q->last_time)
		q->last_time = ev->time;
	i = q->len++;
	while (i > 0 && q_at(q, i - 1)->time > ev->time) {
		*q_at(q, i) = *q_at(q, i - 1);
		i--;
	}
	*q_at(q, i) = *ev;
}

/* A compact record behind the newest queued: put in its place. */
static void tr_insert(struct queue *q, const struct ot_drain_trec *r)
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

/*
 * The id of the string at addr in process pid, for probe func: the one
 * the probe read (tried: it says what bpf_probe_read_user_str gave,
 * str_len bytes of str with the NUL, or < 0, at site ip), else one the
 * reader reads now, else "<unreadable 0xADDR>" - never "".  A page the
 * probe failed to read is one the process has not touched (.rodata's),
 * whose bytes do not change: read once per (pid, address).  Without a
 * try (the perf backend's registers, compact records) it is read at
 * every hit: a buffer the program reuses holds another string next time.
 */
static uint64_t str_id(struct ot_drain *d, uint32_t pid, uint32_t func, uint64_t addr,
		       int tried, const char *str, int32_t str_len, uint64_t ip, uint32_t cap)
{
	char buf[OT_RING_STR_MAX + 32];
	size_t h = (size_t)((addr ^ pid ^ cap) * 0x9E3779B97F4A7C15ull >> 40) & (LATE_CAP - 1);

	if (tried && str_len > 0) {
		d->str_probe++;
		return ot_strtab_intern(d->strs, str, (size_t)str_len);
	}
	if (tried && !d->late)
		d->late = ot_xcalloc(LATE_CAP, sizeof(*d->late));
	if (tried && d->late[h].id && d->late[h].addr == addr && d->late[h].pid == pid &&
	    d->late[h].cap == cap) {
		d->str_late++;
		return d->late[h].id;
	}
	/* A Go string's length bounds it (cap), not a NUL. */
	if (d->str_read && d->str_read(d->str_read_ctx, pid, func, ip, addr, buf,
				       cap ? cap : OT_RING_STR_MAX) >= 0) {
		uint32_t id = ot_strtab_intern(d->strs, buf, OT_RING_STR_MAX);

		d->str_late++;
		if (tried) {
			d->late[h].addr = addr;
			d->late[h].pid = pid;
			d->late[h].id = id;
			d->late[h].cap = cap;
		}
		return id;
	}
	d->str_unreadable++;
	snprintf(buf, sizeof(buf), "<unreadable 0x%llx>", (unsigned long long)addr);
	return ot_strtab_intern(d->strs, buf, sizeof(buf));
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

/* A probe's kind (enum ot_probe_kind) as an event says it. */
static void set_kind(struct ot_event *ev, int kind, int slot, uint64_t sp)
{
	if (kind == OT_PROBE_VALUE) {
		ev->kind = OT_EV_VALUE;
		ev->sp = sp;
		ev->flags = (uint8_t)slot;
		return;
	}
	ev->kind = kind == OT_PROBE_ENTRY || kind == OT_PROBE_TAIL_ENTRY ? OT_EV_ENTRY :
		   kind == OT_PROBE_POINT ? OT_EV_POINT : OT_EV_RETURN;
	/*
	 * Returns carry the SP their call's entry saw: a uretprobe fires
	 * after `ret` popped the return address; a probe on the return
	 * instruction fires before; inject's records say it.
	 */
	ev->sp = kind == OT_PROBE_URETPROBE ? sp - OT_RET_SP_DELTA : sp;
	ev->flags = kind == OT_PROBE_RET_INSN ? OT_EV_RET_INSN :
		    kind == OT_PROBE_TAIL_RET ? OT_EV_RET_INSN | OT_EV_RET_TAIL :
		    kind == OT_PROBE_TAIL_ENTRY ? OT_EV_TAIL_ENTRY : 0;
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
	set_kind(&ev, exits ? exit_kinds[id & 3] : (id & 3) == OT_DRAIN_T_ENTRY && d->tpoint &&
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
		ev->value = str_id(d, ev->pid, e->func, q->pv, 0, NULL, 0, 0, 0);
	else if (q->pcode == OT_DRAIN_V_STR)
		d->str_probe++;
	q->pcode = 0;
	q->vfunc = e->func;
	q->vsp = ev->sp;
	return 0;
}

/* Thread queue qi becomes a queue of events (given another thread's
 * records, or a sample by ot_drain_record). */
static void thread_to_events(struct ot_drain *d, unsigned qi)
{
	struct queue *q = &d->q[qi], e = { .ev = NULL };
	struct ot_event ev = { .tid = q->tid, .pid = q->pid, .cpu = (uint16_t)qi };
	size_t i;

	for (i = 0; i < q->len; i++) {
		ev.time = tr_at(q, i)->time;
		if (!tr_decode(d, q, tr_at(q, i), &ev))
			q_push(&e, &ev);
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

void ot_drain_set_str_reader(struct ot_drain *d, ot_drain_str_fn fn, void *ctx)
{
	d->str_read = fn;
	d->str_read_ctx = ctx;
}

struct ot_strtab *ot_drain_strs(const struct ot_drain *d)
{
	return d->strs;
}

void ot_drain_str_stats(const struct ot_drain *d, uint64_t *probe, uint64_t *late,
			uint64_t *unreadable)
{
	*probe = d->str_probe;
	*late = d->str_late;
	*unreadable = d->str_unreadable;
}

void ot_drain_record(struct ot_drain *d, unsigned cpu,
		     const struct ot_record *rec)
{
	struct ot_event ev = { .time = rec->time, .cpu = (uint16_t)cpu };
	int kind;

	switch (rec->type) {
	case OT_REC_COMM:
		keep_comm(d, rec);
		return;
	case OT_REC_SAMPLE:
		if (d->pid && rec->pid != d->pid && (!d->also_pid || rec->pid != d->also_pid)) {
			d->stats.foreign++;
			return;
		}
		if (d->lookup(d->lookup_ctx, rec->id, &ev.func, &kind)) {
			d->stats.unknown++;
			return;
		}
		/* The value the probe records, if it records one. */
		if ((kind >> 8 & 0xffff) && !ot_record_value(rec, kind >> 8 & 0xffff, &ev.value))
			ev.has_value = 1;
		if (ev.has_value && (kind >> 8) & OT_VALUE_STR)
			ev.value = str_id(d, rec->pid, ev.func, ev.value, rec->has_str, rec->str,
					  rec->str_len, rec->has_str ? rec->str_ip : 0,
					  rec->has_str ? rec->str_cap : 0);
		if (!rec->has_sp) {
			d->stats.no_sp++;
			return;
		}
		d->stats.samples++;
		set_kind(&ev, kind & 0xff, kind >> OT_VALUE_SLOT_SHIFT & 0xf, rec->sp);
		ev.tid = rec->tid;
		ev.pid = rec->pid;
		ev.key = rec->key;
		break;
	case OT_REC_LOST:
		/* A ring of another process (inject's forked children write
		 * rings too): its holes are not the traced process's. */
		if (d->pid && rec->pid && rec->pid != d->pid && rec->pid != d->also_pid) {
			d->stats.foreign_lost += rec->lost;
			return;
		}
		d->stats.lost += rec->lost;
		ev.kind = OT_EV_LOST;
		ev.lost = rec->lost;
		break;
	default:
		return;
	}
	if (ev.time < d->last_emitted)
		d->stats.late++;
	if (cpu >= d->nactive)
		d->nactive = cpu + 1;
	if (d->q[cpu].thread) {
		if (ev.kind == OT_EV_LOST) {
			struct ot_drain_trec r = OT_DRAIN_TREC(ev.time, ev.lost, 0);

			q_room(&d->q[cpu], 1, sizeof(r));
			tr_insert(&d->q[cpu], &r);
			return;
		}
		thread_to_events(d, cpu);
	}
	q_push(&d->q[cpu], &ev);
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
			q_room(q, 1, sizeof(r[i]));
			tr_insert(q, &r[i]);
			continue;
		}
		ev.time = r[i].time;
		if (!tr_decode(d, q, &r[i], &ev))
			q_push(q, &ev);
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
		thread_to_events(d, qi);
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
	q_room(q, n, sizeof(*r));
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
			tr_insert(q, &r[i]);
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

static void on_ring_record(void *ctx, const struct perf_event_header *hdr)
{
	struct ot_drain *d = ctx;
	struct ot_record rec;

	const struct ot_ring *ring = d->cur_ring;

	if (ring->decode ? ring->decode(hdr, &rec) :
			   ot_record_parse_regs(hdr, &rec, ring->regs_mask)) {
		d->stats.malformed++;
		return;
	}
	/*
	 * The kernel stamps a ring's PERF_RECORD_LOST with the process that
	 * wrote the next record into it, not with the one whose records it
	 * dropped: the loss is the capture's (never another process's).
	 */
	if (rec.type == OT_REC_LOST) {
		d->q[d->cur_cpu].ring_lost += rec.lost;
		rec.pid = rec.tid = 0;
	}
	ot_drain_record(d, d->cur_cpu, &rec);
}

size_t ot_drain_ring(struct ot_drain *d, unsigned cpu, struct ot_ring *ring)
{
	uint64_t before = ring->malformed;
	size_t n;

	d->cur_cpu = cpu;
	d->cur_ring = ring;
	n = ot_ring_drain(ring, on_ring_record, d);
	d->stats.malformed += ring->malformed - before;
	return n;
}

uint64_t ot_drain_ring_lost(const struct ot_drain *d, unsigned cpu)
{
	return cpu < d->ncpus ? d->q[cpu].ring_lost : 0;
}

void ot_drain_lost(struct ot_drain *d, unsigned cpu, uint64_t n)
{
	struct ot_record rec = { .type = OT_REC_LOST, .lost = n };

	if (!n || cpu >= d->ncpus)
		return;
	rec.time = d->q[cpu].last_time > d->last_emitted ? d->q[cpu].last_time
							  : d->last_emitted;
	d->stats.lost_at_end += n;
	ot_drain_record(d, cpu, &rec);
}

static uint64_t q_head_time(struct queue *q)
{
	return q->thread ? q->tr[q->head].time : q->ev[q->head].time;
}

/*
 * Emit thread queue qi's records up to time until into ev (the caller's,
 * reused run after run).  The drain's hot loop: five fields of the event
 * change per record; the queue's place is kept in registers (emit does
 * not touch the drain's queues).
 */
static void emit_thread_run(struct ot_drain *d, unsigned qi, uint64_t until,
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

/* Emit queue qi's events up to time until (ev: room for one). */
static void emit_run(struct ot_drain *d, unsigned qi, uint64_t until, struct ot_event *ev)
{
	struct queue *q = &d->q[qi];

	if (q->thread) {
		emit_thread_run(d, qi, until, ev);
		return;
	}
	while (q->len && q_at(q, 0)->time <= until) {
		*ev = *q_at(q, 0);
		q->head = (q->head + 1) & (q->cap - 1);
		q->len--;
		if (ev->time > d->last_emitted)
			d->last_emitted = ev->time;
		d->emit(d->emit_ctx, ev);
	}
}

/* The merge's order: by head time, then by queue (ties as ever). */
static int before(const struct head *a, const struct head *b)
{
	return a->t < b->t || (a->t == b->t && a->q < b->q);
}

/* Heap h of n heads: the one at i moved down to its place. */
static void sift(struct head *h, unsigned n, unsigned i)
{
	struct head x = h[i];

	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && before(&h[c + 1], &h[c]))
			c++;
		if (!before(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/*
 * A k-way merge on a heap of the queues' heads: each run goes from the
 * oldest queue up to the next oldest head, and costs O(log k) however
 * many threads a process has.
 */
void ot_drain_flush(struct ot_drain *d, uint64_t horizon)
{
	struct head *h = d->heads;
	struct ot_event ev;
	unsigned c, n = 0;

	for (c = 0; c < d->nactive; c++)
		if (d->q[c].len)
			h[n++] = (struct head){ q_head_time(&d->q[c]), c };
	for (c = n / 2; c-- > 0;)
		sift(h, n, c);
	while (n && h[0].t <= horizon) {
		uint64_t next_t = horizon;
		struct queue *q = &d->q[h[0].q];

		if (n > 1 && h[1].t < next_t)
			next_t = h[1].t;
		if (n > 2 && h[2].t < next_t)
			next_t = h[2].t;
		emit_run(d, h[0].q, next_t, &ev);
		if (q->len)
			h[0].t = q_head_time(q);
		else
			h[0] = h[--n];
		sift(h, n, 0);
	}
}

size_t ot_drain_pending(const struct ot_drain *d)
{
	size_t n = 0;
	unsigned c;

	for (c = 0; c < d->ncpus; c++)
		n += d->q[c].len;
	return n;
}

const struct ot_drain_stats *ot_drain_stats(const struct ot_drain *d)
{
	return &d->stats;
}

size_t ot_drain_queue_pending(const struct ot_drain *d, unsigned q)
{
	return q < d->ncpus ? d->q[q].len : 0;
}
