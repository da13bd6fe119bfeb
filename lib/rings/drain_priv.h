/*
 * drain_priv.h - the drain's state (struct ot_drain) and the helpers its
 * two files share: lib/rings/drain.c, the common path (ring records into
 * per-CPU queues of events, losses, the k-way merge), and
 * lib/rings/drain_thread.c, a per-thread ring's compact records
 * (ot_drain_thread: queued 16 bytes each, decoded as they leave).
 * Nothing else may include it: the rest of orbit-trace sees drain.h.
 */
#ifndef OT_DRAIN_PRIV_H
#define OT_DRAIN_PRIV_H

#include "drain.h"

#include <stddef.h>
#include <stdint.h>

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

static inline struct ot_event *q_at(struct queue *q, size_t i)
{
	return &q->ev[(q->head + i) & (q->cap - 1)];
}

static inline struct ot_drain_trec *tr_at(struct queue *q, size_t i)
{
	return &q->tr[(q->head + i) & (q->cap - 1)];
}

/* drain.c's, for drain_thread.c: */
/* Room for n more entries of size bytes in q. */
void drain_q_room(struct queue *q, size_t n, size_t size);
/* ev queued in time order. */
void drain_q_push(struct queue *q, const struct ot_event *ev);
/* A string argument's id in the drain's table (ot_drain_strs). */
uint64_t drain_str_id(struct ot_drain *d, uint32_t pid, uint32_t func, uint64_t addr,
		       int tried, const char *str, int32_t str_len, uint64_t ip, uint32_t cap);
/* A probe's kind (enum ot_probe_kind) as an event says it. */
void drain_set_kind(struct ot_event *ev, int kind, int slot, uint64_t sp);

/* drain_thread.c's, for drain.c: */
/* A compact record behind the newest queued: put in its place. */
void drain_tr_insert(struct queue *q, const struct ot_drain_trec *r);
/* Thread queue qi's compact records become events (a sample came). */
void drain_thread_to_events(struct ot_drain *d, unsigned qi);
/* Emit thread queue qi's records up to until into ev (the merge's). */
void drain_emit_thread_run(struct ot_drain *d, unsigned qi, uint64_t until,
			    struct ot_event *ev);

#endif
