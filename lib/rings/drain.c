/*
 * drain.c - from the backends' rings to one time-ordered event stream
 * (drain.h): records queued per CPU or per thread, other processes' filtered
 * out, losses queued, a k-way merge up to the caller's horizon.
 */
#include "drain.h"
#include "drain_priv.h"
#include "kinds.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A queue with events, in the merge's heap: its oldest event's time. */
struct head {
	uint64_t t;
	unsigned q;
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

/* Room for n more entries of size bytes: the ring grown, in order from 0. */
void drain_q_room(struct queue *q, size_t n, size_t size)
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

void drain_q_push(struct queue *q, const struct ot_event *ev)
{
	size_t i;

	drain_q_room(q, 1, sizeof(*ev));
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
uint64_t drain_str_id(struct ot_drain *d, uint32_t pid, uint32_t func, uint64_t addr,
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

/* A probe's kind (enum ot_probe_kind) as an event says it. */
void drain_set_kind(struct ot_event *ev, int kind, int slot, uint64_t sp)
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
			ev.value = drain_str_id(d, rec->pid, ev.func, ev.value, rec->has_str, rec->str,
					  rec->str_len, rec->has_str ? rec->str_ip : 0,
					  rec->has_str ? rec->str_cap : 0);
		if (!rec->has_sp) {
			d->stats.no_sp++;
			return;
		}
		d->stats.samples++;
		drain_set_kind(&ev, kind & 0xff, kind >> OT_VALUE_SLOT_SHIFT & 0xf, rec->sp);
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

			drain_q_room(&d->q[cpu], 1, sizeof(r));
			drain_tr_insert(&d->q[cpu], &r);
			return;
		}
		drain_thread_to_events(d, cpu);
	}
	drain_q_push(&d->q[cpu], &ev);
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

/* Emit queue qi's events up to time until (ev: room for one). */
static void emit_run(struct ot_drain *d, unsigned qi, uint64_t until, struct ot_event *ev)
{
	struct queue *q = &d->q[qi];

	if (q->thread) {
		drain_emit_thread_run(d, qi, until, ev);
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
