/*
 * inject_ring.h - one ring area of --backend inject's shared memory
 * (lib/inject/inject_layout.h) read into the drain: the thread's records decoded,
 * their TSC ticks converted to CLOCK_MONOTONIC (lib/rings/tsc), and what the
 * runtime could not record turned into lost records, each where the
 * stream says it happened.
 *
 * Pure code over memory: it maps, polls and reads no clock
 * (lib/probes/backend_inject finds the areas and their threads); the unit tests
 * and tests/bench_pipeline lay areas out in ordinary memory as the runtime
 * writes them.
 */
#ifndef OT_INJECT_RING_H
#define OT_INJECT_RING_H

#include "rings/drain.h"
#include "rings/tsc.h"

#include <stddef.h>
#include <stdint.h>

/* What the tracer knows of one area's occupant; zeroed when it is given back. */
struct ot_inject_view {
	uint32_t tid;		/* the occupant we know, by our id; 0 none */
	uint32_t pid;
	/* The occupant as the runtime wrote it (A_TID): the id its own pid
	 * namespace gave it, a container's.  The caller's to fill. */
	uint32_t area_tid;
	int keep;		/* never given back: its thread cannot be watched */
	unsigned queue;		/* its drain queue */
	uint64_t reentered;	/* its A_REENTERED, as last read */
	uint64_t resets;	/* its A_RESET, as last read */
	uint64_t lost;		/* its A_LOST, as reported to the drain */
	uint64_t last_time;	/* of its last record read */
	/* Entry values' widths, OT_INJ_F_MAX_VALS per function: bytes (1,
	 * 2, 4; 0 or 8 the whole register) | 0x10 signed; NULL: all whole.
	 * Set by the caller before each read (a given back view is zeroed). */
	const uint8_t *vfmt;
	uint32_t nfuncs;	/* functions vfmt has */
	/* A value read before the record it belongs to: its OT_INJ_V_*
	 * code (0 none) and the value; the function of the latest entry. */
	uint8_t pend;
	uint64_t pend_x;
	uint32_t vfunc;
	/* The bytes of the string the pending value points to, as the
	 * process read them (OT_INJ_V_STR); str_bad: it could not. */
	char str[64];
	uint8_t str_len, str_bad;
};

/*
 * Every record of the area at ar (OT_INJ_A_*, a ring of ring_n records, a
 * power of two) since the last read, into the drain's queue v->queue as
 * thread v->tid of process v->pid; then A_TAIL published (release: the
 * thread may reuse the space), each as the compact record of its function
 * and kind (OT_DRAIN_TREC_ID: no probe ids between).  Times are TSC ticks converted by tsc, or nanoseconds
 * already when tsc is NULL (OT_INJ_CLOCK_VDSO), never below the area's
 * previous record's: the ring's order is the thread's.
 *
 * A value record (OT_INJ_V_*) becomes the drain's (OT_DRAIN_T_VALUE:
 * the value's low 48 bits, and its high 16 in a second record when they
 * are not the low part's sign), in its place, its width cut to vfmt's.
 * A string's address followed by its bytes (OT_INJ_V_STR) becomes the
 * id of the string in the drain's table (OT_DRAIN_V_STR); one the
 * process could not read stays an address, for the drain to read
 * afterwards.
 *
 * Lost records, as process v->pid's (the drain tells another process's
 * apart): a marker's count at its place in the stream; the area's A_LOST
 * after the last record read; a head more than ring_n ahead of the tail
 * (the process wrote over it) at now.  A_REENTERED (a signal handler's
 * calls, recorded neither way) is read into v->reentered, not lost;
 * A_RESET (runtime calls a handler's longjmp left) into v->resets.
 * Returns the records read (at most ring_n).
 */
size_t ot_inject_ring_read(struct ot_inject_view *v, uint8_t *ar, uint64_t ring_n,
			   const struct ot_tsc *tsc, struct ot_drain *d, uint64_t now);

#endif
