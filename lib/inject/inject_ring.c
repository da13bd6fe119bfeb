/*
 * inject_ring.c - one thread's ring of inject's shared memory read into the
 * drain (inject_ring.h): records decoded, TSC to ns, drops made lost records.
 */
#include "inject_ring.h"
#include "inject_layout.h"
#include "rings/strtab.h"

#include <string.h>

_Static_assert(OT_INJ_V_RET == OT_DRAIN_V_RET, "the return value's code, both sides");
_Static_assert(OT_INJ_F_MAX_VALS < OT_DRAIN_V_RET, "entry values' codes below the return's");

static uint64_t load64(const uint8_t *p)
{
	return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

/* Decoded records, handed to the drain a batch at a time. */
#define BATCH 256
struct batch {
	struct ot_drain *d;
	const struct ot_inject_view *v;
	size_t n;
	struct ot_drain_trec r[BATCH];
};

static void flush(struct batch *b)
{
	ot_drain_thread(b->d, b->v->queue, b->v->pid, b->v->tid, b->r, b->n);
	b->n = 0;
}

static void add(struct batch *b, struct ot_drain_trec r)
{
	if (b->n == BATCH)
		flush(b);
	b->r[b->n++] = r;
}

static void lost(struct batch *b, uint64_t time, uint64_t n)
{
	if (n)
		add(b, OT_DRAIN_TREC(time, n, 0));
}

/* Records the thread dropped, up to its count now (a marker's or the
 * area's own), reported at time t: what was not reported yet. */
static void area_lost(struct ot_inject_view *v, struct batch *b, uint64_t t, uint64_t upto)
{
	if (upto > v->lost) {
		lost(b, t, upto - v->lost);
		v->lost = upto;
	}
}

/* Value x cut to fmt's width (bytes | 0x10 signed; 0 or 8: whole). */
static uint64_t value_cut(uint64_t x, uint8_t fmt)
{
	unsigned bits = (fmt & 0xf) * 8u;

	if (!bits || bits >= 64)
		return x;
	x &= (1ull << bits) - 1;
	if ((fmt & 0x10) && (x >> (bits - 1) & 1))
		x |= ~0ull << bits;
	return x;
}

/*
 * Value record {x, word} at time t as the drain's: one record when the
 * value is its low 48 bits sign-extended, else two (OT_DRAIN_V_HI).
 * func: the function it belongs to, for the width of an entry value.
 */
static void value_rec(struct batch *b, const struct ot_inject_view *v, uint64_t t, uint64_t x,
		      unsigned code, uint32_t func)
{
	if (func >= v->nfuncs && func < 2 * v->nfuncs)
		func -= v->nfuncs;	/* its number seen at return instructions */
	if (code <= OT_INJ_F_MAX_VALS && v->vfmt && func < v->nfuncs)
		x = value_cut(x, v->vfmt[func * OT_INJ_F_MAX_VALS + code - 1]);
	if ((uint64_t)((int64_t)(x << 16) >> 16) == x) {
		add(b, OT_DRAIN_TREC(t, x & ((1ull << 48) - 1), OT_DRAIN_V_ID(code)));
		return;
	}
	add(b, OT_DRAIN_TREC(t, x & ((1ull << 48) - 1), OT_DRAIN_V_ID(code | OT_DRAIN_V_SPLIT)));
	add(b, OT_DRAIN_TREC(t, x >> 48, OT_DRAIN_V_ID(OT_DRAIN_V_HI)));
}

/*
 * Value record {x, code} read at time t: the entry's first and the
 * return's wait in v for the record they come before (whose function
 * gives the width); the entry's others follow it (v->vfunc's).  m: the
 * records left in read_span's chunk, which must still fit the batch.
 */
static void value_in(struct batch *b, struct ot_inject_view *v, uint64_t t, uint64_t x,
		     unsigned code, uint64_t m)
{
	if (code == 1 || code == OT_INJ_V_RET) {
		v->pend = (uint8_t)code;
		v->pend_x = x;
		v->str_len = v->str_bad = 0;
		return;
	}
	if (code == OT_INJ_V_STR) {
		if (v->pend == 1 && (size_t)v->str_len + 8 <= sizeof(v->str)) {
			memcpy(v->str + v->str_len, &x, 8);
			v->str_len += 8;
		}
		return;
	}
	if (code == OT_INJ_V_STR_BAD) {
		v->str_bad = 1;
		return;
	}
	value_rec(b, v, t, x, code, v->vfunc);
	if (b->n + m > BATCH)
		flush(b);
}

/* The value waiting for the record of func at time t: the string the
 * process read at its address (its id), else the value itself. */
static void pending_value(struct batch *b, struct ot_inject_view *v, uint64_t t, uint32_t func)
{
	if (v->pend == 1 && v->str_len) {
		size_t n = strnlen(v->str, v->str_len);

		if (n == v->str_len)
			n--;	/* 64 bytes and no NUL: cut at 63, as a probe's read */
		value_rec(b, v, t, ot_strtab_intern(ot_drain_strs(b->d), v->str, n),
			  OT_DRAIN_V_STR, func);
		v->str_len = 0;
		return;
	}
	v->str_len = v->str_bad = 0;
	value_rec(b, v, t, v->pend_x, v->pend, func);
}

/* A record's kind as the drain's compact records say it. */
static const uint16_t t_of_kind[4] = {
	[OT_INJ_K_ENTRY] = OT_DRAIN_T_ENTRY, [OT_INJ_K_RETURN] = OT_DRAIN_T_RETURN,
	[OT_INJ_K_TAIL] = OT_DRAIN_T_TAIL,
};

/*
 * The records of a contiguous span of the ring into the batch.  restrict:
 * the map is not written meanwhile, so its current piece may stay in
 * registers (ot_tsc_ns is inline).
 */
static void read_span(struct batch *b, struct ot_inject_view *v, const uint64_t *rec,
		      uint64_t n, const struct ot_tsc *restrict tsc)
{
	uint64_t time = v->last_time;

	while (n) {
		/* A chunk the batch has room for: each record makes one entry
		 * at most (a marker, one lost entry). */
		uint64_t m = n < BATCH - b->n ? n : BATCH - b->n;
		struct ot_drain_trec *out = b->r + b->n;

		for (n -= m; m; m--, rec += OT_INJ_REC_SIZE / 8) {
			uint64_t word = rec[1];
			unsigned kind = (unsigned)(word >> OT_INJ_W_KIND_SHIFT) & OT_INJ_W_KIND_MASK;
			uint64_t t;

			if (kind == OT_INJ_K_LOST && (word & OT_INJ_W_FUNC_MASK)) {
				/* A value, not a time, in its first word. */
				b->n = (size_t)(out - b->r);
				value_in(b, v, time, rec[0], word & OT_INJ_W_FUNC_MASK, m);
				out = b->r + b->n;
				continue;
			}
			t = tsc ? ot_tsc_ns(tsc, rec[0]) : rec[0];

			/* The ring's order is the thread's: a return stamped before
			 * a signal handler's calls but written after them, or a
			 * refitted TSC map, never reorders what the pairing sees. */
			time = t > time ? t : time;
			if (kind == OT_INJ_K_LOST) {
				b->n = (size_t)(out - b->r);
				v->pend = 0;
				area_lost(v, b, time, word >> OT_INJ_W_SP_SHIFT);
				out = b->r + b->n;
				continue;
			}
			if (v->pend) {
				/* The value before it (its first, or its return's). */
				b->n = (size_t)(out - b->r);
				pending_value(b, v, time, word & OT_INJ_W_FUNC_MASK);
				v->pend = 0;
				if (b->n + m + 1 > BATCH)
					flush(b);
				out = b->r + b->n;
			}
			if (kind != OT_INJ_K_RETURN)
				v->vfunc = (uint32_t)(word & OT_INJ_W_FUNC_MASK);
			/* The sp stays where the drain's word keeps it too; function
			 * and kind become the compact record's id. */
			out->time = time;
			out->word = (word & ~((1ull << OT_INJ_W_SP_SHIFT) - 1)) |
				    OT_DRAIN_TREC_ID(word & OT_INJ_W_FUNC_MASK, t_of_kind[kind]);
			out++;
		}
		b->n = (size_t)(out - b->r);
		if (b->n == BATCH)
			flush(b);
	}
	v->last_time = time;
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
	uint64_t n = head - tail, at, first;
	const uint64_t *ring = (const uint64_t *)(ar + OT_INJ_A_RING);
	struct batch b = { .d = d, .v = v, .n = 0 };

	if (n > ring_n) {	/* a corrupt head (the process wrote over it) */
		lost(&b, now, n - ring_n);
		tail = head - ring_n;
		n = ring_n;
	}
	/* Up to the ring's end, then from its start. */
	at = tail & (ring_n - 1);
	first = ring_n - at < n ? ring_n - at : n;
	read_span(&b, v, ring + at * (OT_INJ_REC_SIZE / 8), first, tsc);
	read_span(&b, v, ring, n - first, tsc);
	__atomic_store_n((uint64_t *)(ar + OT_INJ_A_TAIL), head, __ATOMIC_RELEASE);
	area_lost(v, &b, v->last_time, load64(ar + OT_INJ_A_LOST));
	/* A signal handler's calls while the runtime ran on its thread: not
	 * recorded at all (neither entry nor return), counted apart. */
	v->reentered = load64(ar + OT_INJ_A_REENTERED);
	v->resets = load64(ar + OT_INJ_A_RESET);
	flush(&b);
	return (size_t)n;
}
