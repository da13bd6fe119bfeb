/*
 * The merge of per-CPU queues into one time-ordered stream: ordering
 * across CPUs, the horizon, records out of order within a ring, late
 * records, the filters (other processes, unknown ids), and a kernel
 * ring's losses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "lib/probes/bpf_record.h"
#include "lib/rings/drain.h"
#include "lib/rings/kinds.h"

/* Compact ids of function 1 (ot_drain_thread). */
#define E OT_DRAIN_TREC_ID(1, OT_DRAIN_T_ENTRY)
#define R OT_DRAIN_TREC_ID(1, OT_DRAIN_T_RETURN)

struct sink {
	struct ot_event ev[512];
	size_t n;
};

static void emit(void *ctx, const struct ot_event *ev)
{
	struct sink *s = ctx;

	assert_true(s->n < 512);
	s->ev[s->n++] = *ev;
}

/* Ids 1..99 are ours: function id / 2, odd ids are return probes
 * (uretprobes), ids 100..199 probes on return instructions. */
static int lookup(void *ctx, uint64_t id, uint32_t *func, int *kind)
{
	(void)ctx;
	if (id == 0 || id >= 200)
		return -ENOENT;
	*func = (uint32_t)(id % 100 / 2);
	*kind = id >= 100 ? 2 : (int)(id & 1);
	return 0;
}

static void sample(struct ot_drain *d, unsigned cpu, uint64_t t, uint32_t pid,
		   uint64_t id)
{
	struct ot_record r;

	memset(&r, 0, sizeof(r));
	r.type = OT_REC_SAMPLE;
	r.id = id;
	r.time = t;
	r.pid = pid;
	r.tid = pid + 1;
	r.sp = 0x1000;
	r.has_sp = 1;
	ot_drain_record(d, cpu, &r);
}

static void test_merges_cpus_in_time_order(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(3, 42, lookup, NULL, emit, &s);
	size_t i;

	(void)state;
	sample(d, 0, 10, 42, 2);
	sample(d, 0, 40, 42, 3);
	sample(d, 1, 20, 42, 4);
	sample(d, 1, 50, 42, 5);
	sample(d, 2, 30, 42, 6);
	sample(d, 2, 35, 42, 7);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 6);
	for (i = 1; i < s.n; i++)
		assert_true(s.ev[i - 1].time <= s.ev[i].time);
	assert_int_equal(s.ev[0].kind, OT_EV_ENTRY);
	assert_int_equal(s.ev[1].kind, OT_EV_ENTRY);
	assert_int_equal(s.ev[3].kind, OT_EV_RETURN); /* id 7 at t=35 */
	assert_int_equal(s.ev[3].func, 3);
	assert_int_equal(s.ev[2].cpu, 2);
	assert_int_equal(ot_drain_stats(d)->samples, 6);
	ot_drain_free(d);
}

static void test_horizon_holds_back_recent(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(2, 42, lookup, NULL, emit, &s);

	(void)state;
	sample(d, 0, 10, 42, 2);
	sample(d, 1, 25, 42, 2);
	sample(d, 0, 30, 42, 2);
	ot_drain_flush(d, 20);
	assert_int_equal(s.n, 1);
	assert_int_equal(ot_drain_pending(d), 2);
	/* A record from before the horizon shows up in the next round. */
	sample(d, 1, 22, 42, 2);
	ot_drain_flush(d, 100);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.ev[1].time, 22);
	assert_int_equal(s.ev[2].time, 25);
	assert_int_equal(ot_drain_stats(d)->late, 0);
	ot_drain_free(d);
}

static void test_out_of_order_within_ring(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 42, lookup, NULL, emit, &s);
	size_t i;

	(void)state;
	sample(d, 0, 10, 42, 2);
	sample(d, 0, 30, 42, 2);
	sample(d, 0, 20, 42, 2); /* lands a little out of order */
	sample(d, 0, 40, 42, 2);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 4);
	for (i = 1; i < s.n; i++)
		assert_true(s.ev[i - 1].time < s.ev[i].time);
	ot_drain_free(d);
}

static void test_late_record_counted(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(2, 42, lookup, NULL, emit, &s);

	(void)state;
	sample(d, 0, 100, 42, 2);
	ot_drain_flush(d, 150);
	sample(d, 1, 90, 42, 2); /* behind what was already emitted */
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 2);
	assert_int_equal(ot_drain_stats(d)->late, 1);
	ot_drain_free(d);
}

static void test_filters(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 42, lookup, NULL, emit, &s);
	struct ot_record lost = { .type = OT_REC_LOST, .lost = 9, .time = 5 };
	struct ot_record nosp = { .type = OT_REC_SAMPLE, .id = 2, .pid = 42, .time = 6 };

	(void)state;
	sample(d, 0, 1, 43, 2);	  /* another process mapping the file */
	sample(d, 0, 2, 42, 500); /* not one of our probes */
	ot_drain_record(d, 0, &lost);
	ot_drain_record(d, 0, &nosp);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(ot_drain_stats(d)->foreign, 1);
	assert_int_equal(ot_drain_stats(d)->unknown, 1);
	assert_int_equal(ot_drain_stats(d)->lost, 9);
	assert_int_equal(ot_drain_stats(d)->no_sp, 1);
	assert_int_equal(ot_drain_stats(d)->samples, 0);
	assert_int_equal(s.n, 1); /* the LOST marker travels with the stream */
	assert_int_equal(s.ev[0].kind, OT_EV_LOST);
	assert_int_equal(s.ev[0].lost, 9);
	ot_drain_free(d);
}

/* Returns arrive with the SP their call's entry saw. */
static void test_return_sp_normalised(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 42, lookup, NULL, emit, &s);

	(void)state;
	sample(d, 0, 1, 42, 3);	  /* uretprobe: after `ret` */
	sample(d, 0, 2, 42, 103); /* return instruction: before it */
	sample(d, 0, 3, 42, 2);	  /* entry */
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.ev[0].sp, 0x1000 - OT_RET_SP_DELTA);
	assert_int_equal(s.ev[0].flags, 0);
	assert_int_equal(s.ev[1].sp, 0x1000);
	assert_int_equal(s.ev[1].flags, OT_EV_RET_INSN);
	assert_int_equal(s.ev[1].kind, OT_EV_RETURN);
	assert_int_equal(s.ev[2].sp, 0x1000);
	assert_int_equal(s.ev[2].kind, OT_EV_ENTRY);
	ot_drain_free(d);
}

/* A BPF output sample of pid 42 as the kernel writes it (raw {id, sp, value}). */
static size_t put_bpf_sample(unsigned char *at, uint64_t time, uint64_t id)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 56 };
	uint32_t pid = 42, tid = 43, raw = 24;
	uint64_t sp = 0x1000, value = 0;

	memset(at, 0, 56);
	memcpy(at, &h, 8);
	memcpy(at + 8, &pid, 4);
	memcpy(at + 12, &tid, 4);
	memcpy(at + 16, &time, 8);
	memcpy(at + 24, &raw, 4);
	memcpy(at + 28, &id, 8);
	memcpy(at + 36, &sp, 8);
	memcpy(at + 44, &value, 8);
	return 56;
}

/*
 * A kernel ring's loss: the PERF_RECORD_LOST carries whoever wrote next
 * (here another process) and is the capture's all the same; what the
 * ring's LOST records said is kept per ring, and drops no record reported
 * (ot_drain_lost) are counted and queued in order, after what was emitted.
 */
static void test_ring_losses(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(2, 42, lookup, NULL, emit, &s);
	unsigned char *mem = calloc(1, 4096 + 4096), *at;
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		uint32_t pid, tid;
		uint64_t time;
	} lost = {
		.h = { .type = PERF_RECORD_LOST, .size = sizeof(lost) },
		.id = 3, .lost = 4, .pid = 77, .tid = 78, .time = 20,
	};
	struct ot_ring ring;

	(void)state;
	assert_non_null(mem);
	assert_int_equal(ot_ring_init(&ring, mem, 4096, 4096), 0);
	ring.decode = ot_record_parse_bpf;
	at = ring.data;
	at += put_bpf_sample(at, 10, 2);
	memcpy(at, &lost, sizeof(lost));
	at += sizeof(lost);
	at += put_bpf_sample(at, 30, 3);
	ring.meta->data_head = (uint64_t)(at - ring.data);
	assert_int_equal(ot_drain_ring(d, 0, &ring), 3);
	sample(d, 1, 50, 42, 4);
	ot_drain_flush(d, 50);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.ev[1].kind, OT_EV_LOST);
	assert_int_equal(ot_drain_stats(d)->lost, 4);
	assert_int_equal(ot_drain_stats(d)->foreign_lost, 0);
	assert_int_equal(ot_drain_ring_lost(d, 0), 4);
	assert_int_equal(ot_drain_ring_lost(d, 1), 0);

	ot_drain_lost(d, 0, 6);
	ot_drain_lost(d, 1, 0);
	assert_int_equal(ot_drain_stats(d)->lost, 10);
	assert_int_equal(ot_drain_stats(d)->lost_at_end, 6);
	assert_int_equal(ot_drain_ring_lost(d, 0), 4);	/* what the ring said */
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.ev[4].kind, OT_EV_LOST);
	assert_int_equal(s.ev[4].lost, 6);
	assert_int_equal(s.ev[4].time, 50);	/* after ring 0's t=30: the emitted t=50 */
	assert_int_equal(ot_drain_stats(d)->late, 0);
	ot_ring_fini(&ring);
	free(mem);
	ot_drain_free(d);
}

static void test_queue_grows(void **state)
{
	static struct sink s;
	struct ot_drain *d;
	uint64_t t;

	(void)state;
	s.n = 0;
	d = ot_drain_new(1, 0, lookup, NULL, emit, &s);
	for (t = 0; t < 5000; t++)
		sample(d, 0, t, 7, 2);
	assert_int_equal(ot_drain_pending(d), 5000);
	ot_drain_flush(d, 200);
	assert_int_equal(s.n, 201);
	ot_drain_free(d);
}

/* Compact records of threads: their ids say function and kind, no lookup
 * (ENTRY/RETURN of function 1 here; the drain knows functions 0..9). */
static void test_thread_records(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(3, 42, lookup, NULL, emit, &s);
	const struct ot_drain_trec a[] = {
		OT_DRAIN_TREC(10, 0x7000, E),
		OT_DRAIN_TREC(30, 0x6ff0, E),
		OT_DRAIN_TREC(35, 4, 0),	/* 4 lost */
		OT_DRAIN_TREC(40, 0x6ff0, R),	/* an exact return: its entry SP */
		OT_DRAIN_TREC(45, 0x6ff0, OT_DRAIN_TREC_ID(125, OT_DRAIN_T_ENTRY)),	/* none of ours */
	};
	const struct ot_drain_trec late = OT_DRAIN_TREC(20, 0x7000, E);
	size_t i;

	(void)state;
	ot_drain_thread_funcs(d, 10);
	ot_drain_thread(d, 1, 42, 43, a, 5);
	sample(d, 0, 25, 42, 2);
	ot_drain_thread(d, 1, 42, 43, &late, 1);	/* behind the queue's tail */
	assert_int_equal(ot_drain_stats(d)->lost, 4);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 6);
	for (i = 1; i < s.n; i++)
		assert_true(s.ev[i - 1].time <= s.ev[i].time);
	assert_int_equal(s.ev[0].tid, 43);
	assert_int_equal(s.ev[0].pid, 42);
	assert_int_equal(s.ev[0].cpu, 1);
	assert_int_equal(s.ev[0].sp, 0x7000);
	assert_int_equal(s.ev[0].kind, OT_EV_ENTRY);
	assert_int_equal(s.ev[0].func, 1);
	assert_int_equal(s.ev[1].time, 20);
	assert_int_equal(s.ev[2].cpu, 0);	/* the other queue's, in between */
	assert_int_equal(s.ev[4].kind, OT_EV_LOST);
	assert_int_equal(s.ev[4].lost, 4);
	assert_int_equal(s.ev[5].kind, OT_EV_RETURN);
	assert_int_equal(s.ev[5].sp, 0x6ff0);
	assert_int_equal(s.ev[5].has_value, 0);
	assert_int_equal(ot_drain_stats(d)->samples, 5);
	assert_int_equal(ot_drain_stats(d)->unknown, 1);
	ot_drain_free(d);
}

/* A Go function's record names its goroutine (key), the events of
 * compact records none, whatever the event before them in the merge. */
static void test_goroutine_keys(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(2, 42, lookup, NULL, emit, &s);
	const struct ot_drain_trec a[] = {
		OT_DRAIN_TREC(30, 0x7000, E),
		OT_DRAIN_TREC(40, 0x7000, R),
	};
	struct ot_record r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.type = OT_REC_SAMPLE;
	r.id = 2;
	r.time = 20;
	r.pid = 42;
	r.tid = 44;
	r.sp = (1ull << 62) - 0x100;
	r.has_sp = 1;
	r.key = 0xc000001000ull;
	ot_drain_thread_funcs(d, 10);
	ot_drain_record(d, 0, &r);
	ot_drain_thread(d, 1, 42, 43, a, 2);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.ev[0].key, 0xc000001000ull);
	assert_int_equal(s.ev[0].sp, (1ull << 62) - 0x100);
	assert_int_equal(s.ev[1].key, 0);
	assert_int_equal(s.ev[2].key, 0);
	ot_drain_free(d);
}

/*
 * Functions seen at their return instructions (inject where a runtime
 * walks the stacks) record under their number plus the count: before
 * ot_drain_thread_exits those are none of ours; after it, function 1's
 * entry (which may be a tail call's), a return instruction's return and a
 * tail callee's; function 1's own numbers are unchanged.
 */
static void test_thread_exits(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 42, lookup, NULL, emit, &s);
	const struct ot_drain_trec a[] = {
		OT_DRAIN_TREC(10, 0x7000, OT_DRAIN_TREC_ID(11, OT_DRAIN_T_ENTRY)),
		OT_DRAIN_TREC(20, 0x7000, OT_DRAIN_TREC_ID(11, OT_DRAIN_T_RETURN)),
		OT_DRAIN_TREC(30, 0x7000, OT_DRAIN_TREC_ID(11, OT_DRAIN_T_TAIL)),
		OT_DRAIN_TREC(40, 0x7000, OT_DRAIN_TREC_ID(20, OT_DRAIN_T_ENTRY)),	/* past 2n */
		OT_DRAIN_TREC(50, 0x7000, R),
	};

	(void)state;
	ot_drain_thread_funcs(d, 10);
	ot_drain_thread(d, 0, 42, 43, a, 2);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 0);
	assert_int_equal(ot_drain_stats(d)->unknown, 2);
	ot_drain_thread_exits(d);
	ot_drain_thread(d, 0, 42, 43, a, 5);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.ev[0].kind, OT_EV_ENTRY);
	assert_int_equal(s.ev[0].func, 1);
	assert_int_equal(s.ev[0].flags, OT_EV_MAY_TAIL);
	assert_int_equal(s.ev[1].kind, OT_EV_RETURN);
	assert_int_equal(s.ev[1].func, 1);
	assert_int_equal(s.ev[1].flags, OT_EV_RET_INSN);
	assert_int_equal(s.ev[1].sp, 0x7000);
	assert_int_equal(s.ev[2].kind, OT_EV_RETURN);
	assert_int_equal(s.ev[2].flags, OT_EV_RET_INSN | OT_EV_RET_TAIL);
	assert_int_equal(s.ev[3].kind, OT_EV_RETURN);
	assert_int_equal(s.ev[3].func, 1);
	assert_int_equal(s.ev[3].flags, 0);	/* its own number: an exact return */
	assert_int_equal(ot_drain_stats(d)->unknown, 3);
	ot_drain_free(d);
}

/* A queue changes hands: another thread's records while it still holds
 * some, a sample or a lost record from a ring of its own. */
static void test_thread_queue_shared(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 42, lookup, NULL, emit, &s);
	const struct ot_drain_trec a[] = { OT_DRAIN_TREC(10, 0x7000, E), OT_DRAIN_TREC(40, 0x7000, R) };
	const struct ot_drain_trec b[] = { OT_DRAIN_TREC(20, 0x5000, E), OT_DRAIN_TREC(30, 0x5000, R) };
	struct ot_record lost = { .type = OT_REC_LOST, .lost = 2, .time = 15 };
	const struct ot_drain_trec other[] = { OT_DRAIN_TREC(50, 0x5000, E), OT_DRAIN_TREC(55, 1, 0) };

	(void)state;
	ot_drain_thread_funcs(d, 10);
	ot_drain_thread(d, 0, 42, 43, a, 2);
	ot_drain_record(d, 0, &lost);		/* joins the thread's records */
	ot_drain_thread(d, 0, 42, 44, b, 2);	/* another thread's */
	sample(d, 0, 35, 42, 2);
	ot_drain_thread(d, 0, 7, 8, other, 2);	/* another process's, losses too */
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.ev[0].tid, 43);
	assert_int_equal(s.ev[1].kind, OT_EV_LOST);
	assert_int_equal(s.ev[2].tid, 44);
	assert_int_equal(s.ev[3].tid, 44);
	assert_int_equal(s.ev[4].tid, 43);	/* the sample, tid = pid + 1 */
	assert_int_equal(s.ev[4].time, 35);
	assert_int_equal(s.ev[5].tid, 43);
	assert_int_equal(s.ev[5].time, 40);
	assert_int_equal(ot_drain_stats(d)->foreign, 1);
	assert_int_equal(ot_drain_stats(d)->foreign_lost, 1);
	assert_int_equal(ot_drain_stats(d)->lost, 2);
	assert_int_equal(ot_drain_pending(d), 0);
	/* Empty again: the queue takes a thread's records compactly. */
	ot_drain_thread(d, 0, 42, 45, b, 2);
	assert_int_equal(ot_drain_queue_pending(d, 0), 2);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 8);
	assert_int_equal(s.ev[7].tid, 45);
	assert_int_equal(ot_drain_stats(d)->late, 2);
	ot_drain_free(d);
}

/* Equal times in two queues: the lower queue's first, as always. */
static void test_ties_by_queue(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(3, 42, lookup, NULL, emit, &s);
	const struct ot_drain_trec a[] = { OT_DRAIN_TREC(10, 0x7000, E) };

	(void)state;
	ot_drain_thread_funcs(d, 10);
	sample(d, 2, 10, 42, 2);
	ot_drain_thread(d, 1, 42, 50, a, 1);
	sample(d, 0, 10, 42, 2);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.ev[0].cpu, 0);
	assert_int_equal(s.ev[1].cpu, 1);
	assert_int_equal(s.ev[2].cpu, 2);
	ot_drain_free(d);
}

/* Many queues (threads): the merge keeps time order, ties in queue order,
 * and stops at the horizon whichever queue holds the rest. */
static void test_merges_many_queues(void **state)
{
	static struct sink s;
	struct ot_drain *d = ot_drain_new(20, 42, lookup, NULL, emit, &s);
	unsigned q, k;
	size_t i;

	(void)state;
	ot_drain_thread_funcs(d, 10);
	s.n = 0;
	for (q = 0; q < 20; q++) {
		for (k = 0; k < 10; k++) {
			/* Every queue's times interleave; each fifth is shared. */
			uint64_t t = k % 5 ? 100 * k + (q * 7) % 20 : 100 * k;
			struct ot_drain_trec r = OT_DRAIN_TREC(t, 0x7000, E);

			if (q % 2)
				ot_drain_thread(d, q, 42, 1000 + q, &r, 1);
			else
				sample(d, q, t, 42, 2);
		}
	}
	ot_drain_flush(d, 450);
	assert_int_equal(s.n, 100);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 200);
	for (i = 1; i < s.n; i++) {
		assert_true(s.ev[i - 1].time <= s.ev[i].time);
		if (s.ev[i - 1].time == s.ev[i].time)
			assert_true(s.ev[i - 1].cpu < s.ev[i].cpu);
	}
	ot_drain_free(d);
}

/* -a on perf: processes named by their comm records, threads' own not. */
static void test_comm_records(void **state)
{
	struct sink s = { 0 };
	struct ot_drain *d = ot_drain_new(1, 0, lookup, NULL, emit, &s);
	struct ot_record rec = { .type = OT_REC_COMM, .pid = 7, .tid = 7, .comm = "sh" };
	char buf[16];

	(void)state;
	assert_int_equal(ot_drain_comm(d, 7, buf, sizeof(buf)), -ENOENT);
	ot_drain_record(d, 0, &rec);
	snprintf(rec.comm, sizeof(rec.comm), "burst");	/* its exec */
	ot_drain_record(d, 0, &rec);
	rec.tid = 8;
	snprintf(rec.comm, sizeof(rec.comm), "worker");	/* a thread's prctl */
	ot_drain_record(d, 0, &rec);
	assert_int_equal(ot_drain_comm(d, 7, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "burst");
	assert_int_equal(ot_drain_comm(d, 8, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(ot_drain_stats(d)->samples, 0);
	ot_drain_free(d);
}

/* Id 300: a USDT point whose argument is a string's address. */
static int lookup_str(void *ctx, uint64_t id, uint32_t *func, int *kind)
{
	(void)ctx;
	*func = 3;
	*kind = OT_PROBE_POINT | (OT_VALUE_USDT | OT_VALUE_STR) << 8;
	return id == 300 ? 0 : -ENOENT;
}

static int reads;

/* The process's memory afterwards: "late" at 0x1000, nothing elsewhere. */
static int read_late(void *ctx, uint32_t pid, uint32_t func, uint64_t ip, uint64_t addr,
		     char *buf, size_t len)
{
	(void)ctx;
	reads++;
	assert_int_equal(pid, 42);
	assert_int_equal(func, 3);
	assert_int_equal(ip, 0x401000);
	if (addr != 0x1000)
		return -EFAULT;
	snprintf(buf, len, "late");
	return 0;
}

static void str_sample(struct ot_drain *d, uint64_t t, uint64_t addr, const char *s)
{
	struct ot_record r;

	memset(&r, 0, sizeof(r));
	r.type = OT_REC_SAMPLE;
	r.id = 300;
	r.time = t;
	r.pid = 42;
	r.tid = 42;
	r.sp = 0x7000;
	r.has_sp = 1;
	r.value = addr;
	r.has_value = 1;
	r.has_str = 1;
	r.str = s ? s : "";
	r.str_len = s ? (int32_t)strlen(s) + 1 : -14;
	r.str_ip = 0x401000;
	ot_drain_record(d, 0, &r);
}

/* A string the record carries, one read afterwards (once per address),
 * one nobody can read: each event's value is its string's id. */
static void test_strings(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 42, lookup_str, NULL, emit, &s);
	struct ot_strtab *t = ot_drain_strs(d);
	uint64_t probe, late, unreadable;

	(void)state;
	ot_drain_set_str_reader(d, read_late, NULL);
	reads = 0;
	str_sample(d, 10, 0x2000, "fib");
	str_sample(d, 20, 0x1000, NULL);
	str_sample(d, 30, 0x1000, NULL);
	str_sample(d, 40, 0x3000, NULL);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 4);
	assert_string_equal(ot_strtab_get(t, (uint32_t)s.ev[0].value), "fib");
	assert_string_equal(ot_strtab_get(t, (uint32_t)s.ev[1].value), "late");
	assert_int_equal(s.ev[2].value, s.ev[1].value);
	assert_string_equal(ot_strtab_get(t, (uint32_t)s.ev[3].value), "<unreadable 0x3000>");
	assert_int_equal(reads, 2);	/* 0x1000 once, 0x3000 once */
	ot_drain_str_stats(d, &probe, &late, &unreadable);
	assert_int_equal(probe, 1);
	assert_int_equal(late, 2);
	assert_int_equal(unreadable, 1);
	ot_drain_free(d);
}

static const char *mem_now;	/* what read_compact finds at 0x1000 */

/* Compact records carry no site: ip 0; 0x1000 holds mem_now. */
static int read_compact(void *ctx, uint32_t pid, uint32_t func, uint64_t ip, uint64_t addr,
			char *buf, size_t len)
{
	(void)ctx;
	reads++;
	assert_int_equal(pid, 42);
	assert_int_equal(func, 3);
	assert_int_equal(ip, 0);
	if (addr != 0x1000)
		return -EFAULT;
	snprintf(buf, len, "%s", mem_now);
	return 0;
}

/*
 * Compact records of a function whose entry's first value is a string's
 * address (ot_drain_thread_strs): that value becomes the string's id,
 * read as the record leaves, at every hit (a buffer the program reuses);
 * its return value, its further values and another function's first
 * value stay numbers.
 */
static void test_thread_strings(void **state)
{
	const uint16_t e3 = OT_DRAIN_TREC_ID(3, OT_DRAIN_T_ENTRY);
	const uint16_t r3 = OT_DRAIN_TREC_ID(3, OT_DRAIN_T_RETURN);
	const uint16_t e2 = OT_DRAIN_TREC_ID(2, OT_DRAIN_T_ENTRY);
	const struct ot_drain_trec a[] = {
		OT_DRAIN_TREC(10, 0x1000, OT_DRAIN_V_ID(1)),
		OT_DRAIN_TREC(10, 0x7000, e3),
		OT_DRAIN_TREC(10, 9, OT_DRAIN_V_ID(2)),		/* its second value */
		OT_DRAIN_TREC(20, 7, OT_DRAIN_V_ID(OT_DRAIN_V_RET)),
		OT_DRAIN_TREC(20, 0x7000, r3),
		OT_DRAIN_TREC(30, 0x1000, OT_DRAIN_V_ID(1)),
		OT_DRAIN_TREC(30, 0x7000, e2),			/* not a string */
		OT_DRAIN_TREC(40, 0x3000, OT_DRAIN_V_ID(1)),
		OT_DRAIN_TREC(40, 0x7000, e3),			/* unreadable */
	};
	const struct ot_drain_trec b[] = {
		OT_DRAIN_TREC(50, 0x1000, OT_DRAIN_V_ID(1)),
		OT_DRAIN_TREC(50, 0x7000, e3),
	};
	const uint8_t is_str[4] = { 0, 0, 0, 1 };
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 42, lookup, NULL, emit, &s);
	struct ot_strtab *t = ot_drain_strs(d);
	uint64_t probe, late, unreadable;

	(void)state;
	ot_drain_thread_funcs(d, 4);
	ot_drain_thread_strs(d, is_str, 4);
	ot_drain_set_str_reader(d, read_compact, NULL);
	reads = 0;
	mem_now = "first";
	ot_drain_thread(d, 0, 42, 42, a, sizeof(a) / sizeof(a[0]));
	ot_drain_flush(d, UINT64_MAX);
	mem_now = "second";	/* the buffer holds another string now */
	ot_drain_thread(d, 0, 42, 42, b, 2);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.ev[0].kind, OT_EV_ENTRY);
	assert_true(s.ev[0].has_value);
	assert_string_equal(ot_strtab_get(t, (uint32_t)s.ev[0].value), "first");
	assert_int_equal(s.ev[1].kind, OT_EV_VALUE);
	assert_int_equal(s.ev[1].value, 9);
	assert_int_equal(s.ev[2].kind, OT_EV_RETURN);
	assert_int_equal(s.ev[2].value, 7);
	assert_int_equal(s.ev[3].func, 2);
	assert_int_equal(s.ev[3].value, 0x1000);
	assert_string_equal(ot_strtab_get(t, (uint32_t)s.ev[4].value), "<unreadable 0x3000>");
	assert_string_equal(ot_strtab_get(t, (uint32_t)s.ev[5].value), "second");
	assert_int_equal(reads, 3);
	ot_drain_str_stats(d, &probe, &late, &unreadable);
	assert_int_equal(probe, 0);
	assert_int_equal(late, 2);
	assert_int_equal(unreadable, 1);
	/* No function with a string: none is read. */
	ot_drain_thread_strs(d, (const uint8_t[4]){ 0 }, 4);
	ot_drain_thread(d, 0, 42, 42, b, 2);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.ev[6].value, 0x1000);
	assert_int_equal(reads, 3);
	ot_drain_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merges_cpus_in_time_order),
		cmocka_unit_test(test_comm_records),
		cmocka_unit_test(test_horizon_holds_back_recent),
		cmocka_unit_test(test_out_of_order_within_ring),
		cmocka_unit_test(test_late_record_counted),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_queue_grows),
		cmocka_unit_test(test_ring_losses),
		cmocka_unit_test(test_return_sp_normalised),
		cmocka_unit_test(test_thread_records),
		cmocka_unit_test(test_goroutine_keys),
		cmocka_unit_test(test_thread_exits),
		cmocka_unit_test(test_thread_queue_shared),
		cmocka_unit_test(test_ties_by_queue),
		cmocka_unit_test(test_merges_many_queues),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_thread_strings),
	};

	return cmocka_run_group_tests_name("drain", tests, NULL, NULL);
}
