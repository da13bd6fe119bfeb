#include "inject_ring.h"
#include "inject_layout.h"

static uint64_t load64(const uint8_t *p)
{
	return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

/* n records a ring of process pid dropped, at time. */
static void lost(struct ot_drain *d, unsigned queue, uint64_t time, uint64_t n, uint32_t pid)
{
	struct ot_record rec = { .type = OT_REC_LOST, .time = time, .lost = n, .pid = pid };

	if (n)
		ot_drain_record(d, queue, &rec);
}

static uint64_t to_ns(const struct ot_tsc *tsc, uint64_t t)
{
	return tsc ? ot_tsc_ns(tsc, t) : t;
}

/* Records the thread dropped, up to its count now (a marker's or the
 * area's own), reported at time t: what was not reported yet. */
static void area_lost(struct ot_inject_view *v, struct ot_drain *d, uint64_t t, uint64_t upto)
{
	if (upto > v->lost) {
		lost(d, v->queue, t, upto - v->lost, v->pid);
		v->lost = upto;
	}
}

/*
 * Drops happen only while the ring is full, so those no marker in [tail,
 * head) reports come after its last record: the area's count, read after
 * them, places them there (a thread that stops calling after a burst
 * writes no marker at all).
 */
size_t ot_inject_ring_read(struct ot_inject_view *v, uint8_t *ar, uint64_t ring_n,
			   const struct ot_tsc *tsc, struct ot_drain *d, uint64_t now)
{
	uint64_t head = load64(ar + OT_INJ_A_HEAD), tail = *(uint64_t *)(ar + OT_INJ_A_TAIL);
	uint64_t n = head - tail, i, r;

	if (n > ring_n) {	/* a corrupt head (the process wrote over it) */
		lost(d, v->queue, now, n - ring_n, v->pid);
		tail = head - ring_n;
		n = ring_n;
	}
	for (i = 0; i < n; i++) {
		const uint64_t *rec;
		struct ot_record out = { .type = OT_REC_SAMPLE, .has_sp = 1 };
		unsigned kind;
		uint32_t func;

		r = (tail + i) & (ring_n - 1);
		rec = (const uint64_t *)(ar + OT_INJ_A_RING + r * OT_INJ_REC_SIZE);
		kind = (unsigned)(rec[1] >> 14) & 3;
		func = (uint32_t)(rec[1] & 0x3fff);
		out.time = to_ns(tsc, rec[0]);
		v->last_time = out.time;
		if (kind == OT_INJ_K_LOST) {
			area_lost(v, d, out.time, rec[1] >> 16);
			continue;
		}
		out.id = 4 * (uint64_t)func + (kind == OT_INJ_K_ENTRY ? 1 : kind == OT_INJ_K_RETURN ? 2 : 3);
		out.sp = rec[1] >> 16;
		out.pid = v->pid;
		out.tid = v->tid;
		ot_drain_record(d, v->queue, &out);
	}
	__atomic_store_n((uint64_t *)(ar + OT_INJ_A_TAIL), head, __ATOMIC_RELEASE);
	area_lost(v, d, v->last_time, load64(ar + OT_INJ_A_LOST));
	/* A signal handler's calls while the runtime ran on its thread: not
	 * recorded at all (neither entry nor return), counted apart. */
	v->reentered = load64(ar + OT_INJ_A_REENTERED);
	return (size_t)n;
}
