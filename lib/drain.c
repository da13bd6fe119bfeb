#include "drain.h"
#include "probes.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* A growable circular queue of events, kept in time order. */
struct queue {
	struct ot_event *ev;
	size_t head, len, cap; /* cap is a power of two */
	uint64_t last_time;    /* the latest event queued */
	uint64_t ring_lost;    /* what its ring's PERF_RECORD_LOSTs reported */
};

struct ot_drain {
	unsigned ncpus;
	uint32_t pid, also_pid;
	ot_drain_lookup_fn lookup;
	void *lookup_ctx;
	ot_drain_emit_fn emit;
	void *emit_ctx;
	struct queue *q;
	uint64_t last_emitted;
	struct ot_drain_stats stats;
	unsigned nactive; /* queues 0..nactive-1 have had records */
	unsigned cur_cpu; /* the ring being read, for the callback */
	int cur_bpf;	  /* that ring holds the multi backend's layout */
	uint64_t cur_regs; /* and its samples' user registers */
};

struct ot_drain *ot_drain_new(unsigned ncpus, uint32_t pid,
			      ot_drain_lookup_fn lookup, void *lookup_ctx,
			      ot_drain_emit_fn emit, void *emit_ctx)
{
	struct ot_drain *d = ot_xcalloc(1, sizeof(*d));

	d->ncpus = ncpus;
	d->pid = pid;
	d->lookup = lookup;
	d->lookup_ctx = lookup_ctx;
	d->emit = emit;
	d->emit_ctx = emit_ctx;
	/* Queues get memory with their first event: inject has one per
	 * thread it may ever see. */
	d->q = ot_xcalloc(ncpus ? ncpus : 1, sizeof(*d->q));
	if (!ncpus)
		d->ncpus = 1;
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
	free(d);
}

static struct ot_event *q_at(struct queue *q, size_t i)
{
	return &q->ev[(q->head + i) & (q->cap - 1)];
}

static void q_push(struct queue *q, const struct ot_event *ev)
{
	size_t i;

	if (q->len == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 1024;
		struct ot_event *n = ot_xcalloc(cap, sizeof(*n));

		for (i = 0; i < q->len; i++)
			n[i] = *q_at(q, i);
		free(q->ev);
		q->ev = n;
		q->head = 0;
		q->cap = cap;
	}
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

void ot_drain_record(struct ot_drain *d, unsigned cpu,
		     const struct ot_record *rec)
{
	struct ot_event ev = { .time = rec->time, .cpu = (uint16_t)cpu };
	int kind;

	switch (rec->type) {
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
		if (kind >> 8 && !ot_record_value(rec, kind >> 8, &ev.value))
			ev.has_value = 1;
		kind &= 0xff;
		if (!rec->has_sp) {
			d->stats.no_sp++;
			return;
		}
		d->stats.samples++;
		ev.kind = kind == OT_PROBE_ENTRY || kind == OT_PROBE_TAIL_ENTRY ? OT_EV_ENTRY :
									   OT_EV_RETURN;
		ev.tid = rec->tid;
		ev.pid = rec->pid;
		/*
		 * Returns carry the SP their call's entry saw: a uretprobe
		 * fires after `ret` popped the return address; a probe on the
		 * return instruction fires before; inject's records say it.
		 */
		ev.sp = kind == OT_PROBE_URETPROBE ? rec->sp - OT_RET_SP_DELTA : rec->sp;
		ev.flags = kind == OT_PROBE_RET_INSN ? OT_EV_RET_INSN :
			   kind == OT_PROBE_TAIL_RET ? OT_EV_RET_INSN | OT_EV_RET_TAIL :
			   kind == OT_PROBE_TAIL_ENTRY ? OT_EV_TAIL_ENTRY : 0;
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
	q_push(&d->q[cpu], &ev);
}

static void on_ring_record(void *ctx, const struct perf_event_header *hdr)
{
	struct ot_drain *d = ctx;
	struct ot_record rec;

	if ((d->cur_bpf ? ot_record_parse_bpf(hdr, &rec) :
			  ot_record_parse_regs(hdr, &rec, d->cur_regs))) {
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
	d->cur_bpf = ring->bpf;
	d->cur_regs = ring->regs_mask;
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

void ot_drain_flush(struct ot_drain *d, uint64_t horizon)
{
	for (;;) {
		unsigned c, best = d->ncpus;
		uint64_t best_t = UINT64_MAX, next_t = horizon;
		struct queue *q;

		for (c = 0; c < d->nactive; c++) {
			uint64_t t;

			if (!d->q[c].len)
				continue;
			t = q_at(&d->q[c], 0)->time;
			if (best == d->ncpus || t < best_t) {
				if (best != d->ncpus && best_t < next_t)
					next_t = best_t;
				best = c;
				best_t = t;
			} else if (t < next_t) {
				next_t = t;
			}
		}
		if (best == d->ncpus || best_t > horizon)
			return;
		/* Emit a run from the oldest queue up to the next queue's head. */
		q = &d->q[best];
		while (q->len && q_at(q, 0)->time <= next_t) {
			struct ot_event ev = *q_at(q, 0);

			q->head = (q->head + 1) & (q->cap - 1);
			q->len--;
			if (ev.time > d->last_emitted)
				d->last_emitted = ev.time;
			d->emit(d->emit_ctx, &ev);
		}
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
