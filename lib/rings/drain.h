/*
 * drain.h - from per-CPU rings to one time-ordered event stream.
 *
 * Each CPU's ring is read into that CPU's queue (records decoded, probe ids
 * mapped to functions, other processes' hits filtered out).  Threads move
 * between CPUs, so pairing needs the queues merged by time: a k-way merge
 * (a heap of the queues' heads) of queues that are each already in time
 * order, emitted only up to a horizon the caller picks ("nothing older
 * can still arrive"), so memory holds a window of records, never the
 * capture.  A backend whose rings are per thread (inject) queues each
 * thread's records compactly, 16 bytes each, decoded as they leave
 * (ot_drain_thread): the window then stays in cache at millions of
 * records a second.
 */
#ifndef OT_DRAIN_H
#define OT_DRAIN_H

#include "event.h"
#include "ring.h"
#include "strtab.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Map a probe id to (function index, kind): enum ot_probe_kind of
 * lib/rings/kinds.h (an entry, a uretprobe, a return instruction...), with the
 * value it records (OT_VALUE_*) in bits 8-15.  Returns 0 if known, else
 * -ENOENT.
 */
typedef int (*ot_drain_lookup_fn)(void *ctx, uint64_t id, uint32_t *func,
				  int *kind);
/* Receives merged events in time order. */
typedef void (*ot_drain_emit_fn)(void *ctx, const struct ot_event *ev);

struct ot_drain_stats {
	uint64_t samples;   /* samples of the traced process */
	uint64_t foreign;   /* samples of other processes mapping the file */
	uint64_t lost;	    /* records the kernel reported lost */
	uint64_t lost_at_end; /* of lost: counted with ot_drain_lost, not
			     * reported by any PERF_RECORD_LOST */
	uint64_t foreign_lost; /* lost in other processes' rings (inject: a
			     * forked child's) */
	uint64_t malformed; /* truncated or corrupt records skipped */
	uint64_t unknown;   /* samples whose id is none of our probes */
	uint64_t late;	    /* events that arrived behind the merge horizon */
	uint64_t no_sp;	    /* samples without a user stack pointer */
};

struct ot_drain;

/*
 * A drain for ncpus rings.  Samples whose pid is not pid are counted as
 * foreign and dropped (pid 0: keep every process).
 */
struct ot_drain *ot_drain_new(unsigned ncpus, uint32_t pid,
			      ot_drain_lookup_fn lookup, void *lookup_ctx,
			      ot_drain_emit_fn emit, void *emit_ctx);
void ot_drain_free(struct ot_drain *d);

/*
 * The name the rings' comm records last gave process pid (the perf
 * backend's, with -a: an exec after arming), whether or not the process
 * is still there: 0, or -ENOENT.
 */
int ot_drain_comm(const struct ot_drain *d, uint32_t pid, char *buf, size_t len);

/*
 * A probe whose value is a string's address (OT_VALUE_STR in its lookup's
 * value): the event's value is the string's id in the drain's table
 * (ot_drain_strs), the string the record carries or, when it carries none
 * (the multi backend's program could not read the page, the perf backend
 * reads no memory), the one fn reads then: fn reads at most len bytes at
 * addr in process pid into buf, for probe func (its function index) hit
 * at address ip (0: not known): 0 with a NUL in buf, or -errno.  A page
 * the program could not read is read once per (pid, address); a string
 * no probe tried to read, at every hit (a buffer may hold another one at
 * the next).  A string neither gives is "<unreadable 0xADDR>".  Without
 * fn, only what records carry.
 */
typedef int (*ot_drain_str_fn)(void *ctx, uint32_t pid, uint32_t func, uint64_t ip,
			       uint64_t addr, char *buf, size_t len);
void ot_drain_set_str_reader(struct ot_drain *d, ot_drain_str_fn fn, void *ctx);
struct ot_strtab *ot_drain_strs(const struct ot_drain *d);
/* Strings the records carried, read by fn afterwards, and unreadable. */
void ot_drain_str_stats(const struct ot_drain *d, uint64_t *probe, uint64_t *late,
			uint64_t *unreadable);

/* Keep samples of this process too (orbit-trace's own, for --compensate). */
void ot_drain_also_pid(struct ot_drain *d, uint32_t pid);

/* Read every pending record of cpu's ring into its queue. Returns records read. */
size_t ot_drain_ring(struct ot_drain *d, unsigned cpu, struct ot_ring *ring);

/*
 * The records ring cpu's PERF_RECORD_LOST records reported, as far as
 * ot_drain_ring has read it (whatever process they were counted for).
 */
uint64_t ot_drain_ring_lost(const struct ot_drain *d, unsigned cpu);

/*
 * n records ring cpu dropped that no PERF_RECORD_LOST reported (the kernel
 * writes one only with the next record that fits; the caller read its
 * own count): counted in lost and lost_at_end, and queued as one loss for
 * the pairing at the time of the last record kept from that ring, or of
 * the last emitted if later (the drops came after the former; the latter
 * keeps the stream in order).  Before the final ot_drain_flush.
 */
void ot_drain_lost(struct ot_drain *d, unsigned cpu, uint64_t n);

/*
 * Queue one decoded record as if read from cpu's ring (cpu < ncpus).  On
 * a queue that holds a thread's records (ot_drain_thread) a lost record
 * joins them; a sample makes it a queue of events again.
 */
void ot_drain_record(struct ot_drain *d, unsigned cpu,
		     const struct ot_record *rec);

/*
 * One thread's record, compact: what a backend whose rings are per
 * thread (inject) hands over, 16 bytes where a queued event takes 56, so
 * the merge's window (20 ms of records) stays in cache.  word is
 * sp << 16 | id, the user SP below 2^48; id 0 is a lost record, the
 * number lost in place of the SP.  The id says the event
 * itself, no probe table between: function << 2 | one of OT_DRAIN_T_*
 * (functions below the count ot_drain_thread_funcs sets; 16383 at most).
 */
struct ot_drain_trec {
	uint64_t time;
	uint64_t word;
};
enum {
	OT_DRAIN_T_ENTRY = 1,
	OT_DRAIN_T_RETURN = 2,	/* carries its call's entry SP (exact) */
	OT_DRAIN_T_TAIL = 3,	/* an entry by a jump from a traced function */
};
#define OT_DRAIN_TREC_ID(func, t) ((uint16_t)((func) << 2 | (t)))
/*
 * A value (NAME(argN), NAME%ret): id OT_DRAIN_V_ID(code), the value's
 * low 48 bits sign-extended in place of the SP.  code: 1 + j for the
 * entry's value j, OT_DRAIN_V_RET for the return's; | OT_DRAIN_V_SPLIT
 * when the next record, OT_DRAIN_V_HI, holds its high 16 bits.  The
 * entry's first value and the return's come just before their record
 * (the event carries it: has_value), the entry's others just after it
 * (each an OT_EV_VALUE event, its slot j - 1); a lost record in between
 * drops what waits.
 */
#define OT_DRAIN_V_RET 5
/* The entry's (or a USDT probe's) first value, a string the probe read:
 * its id in the drain's table (ot_drain_strs) already. */
#define OT_DRAIN_V_STR 6
#define OT_DRAIN_V_SPLIT 8
#define OT_DRAIN_V_HI 16
#define OT_DRAIN_V_ID(code) ((uint16_t)((code) << 2))
#define OT_DRAIN_TREC(time, sp, id) \
	((struct ot_drain_trec){ (time), (uint64_t)(sp) << 16 | (uint16_t)(id) })

/* Compact records name functions 0..n-1 (others are counted unknown). */
void ot_drain_thread_funcs(struct ot_drain *d, uint32_t n);
/*
 * From now on compact functions n..2n-1 are functions 0..n-1 whose
 * returns are seen at their return instructions (inject where a runtime
 * walks the stacks): an entry of theirs may be a tail call's
 * (OT_EV_MAY_TAIL), T_RETURN is a return instruction's
 * (OT_PROBE_RET_INSN), T_TAIL a tail callee's (OT_PROBE_TAIL_RET).
 */
void ot_drain_thread_exits(struct ot_drain *d);
/* Compact entries of func (below that count) are a USDT probe's hits:
 * points (OT_EV_POINT), no scope. */
void ot_drain_thread_point(struct ot_drain *d, uint32_t func);

/*
 * Compact functions whose entry's first value (code 1) is a string's
 * address: is_str[f] for f < n (copied; all 0, or n 0: none).  Such an
 * entry's event carries the string's id instead, as a ring record's
 * with OT_VALUE_STR does: read by the reader ot_drain_set_str_reader
 * gave, when the record leaves its queue (compact records carry no
 * string), at every hit; "<unreadable 0xADDR>" when it cannot.
 */
void ot_drain_thread_strs(struct ot_drain *d, const uint8_t *is_str, uint32_t n);

/*
 * Queue n records of thread tid of process pid, as if read from queue q's
 * ring, in the order the thread made them (a record out of time order is
 * put in its place, as ot_drain_record does).  Counted and filtered as
 * ot_drain_record's (another process's samples and losses apart).
 * A queue holds one thread's records at a time: given another thread's
 * while it still holds some, it turns into a queue of events.
 */
void ot_drain_thread(struct ot_drain *d, unsigned q, uint32_t pid, uint32_t tid,
		     const struct ot_drain_trec *r, size_t n);

/*
 * Emit, in time order, every queued event with time <= horizon
 * (UINT64_MAX: everything).
 */
void ot_drain_flush(struct ot_drain *d, uint64_t horizon);

/* Events queued and not yet emitted: all, or queue q's. */
size_t ot_drain_pending(const struct ot_drain *d);
size_t ot_drain_queue_pending(const struct ot_drain *d, unsigned q);

const struct ot_drain_stats *ot_drain_stats(const struct ot_drain *d);

#endif
