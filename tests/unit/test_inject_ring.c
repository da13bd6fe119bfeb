/*
 * One --backend inject ring area read into the drain (lib/inject/inject_ring),
 * laid out in ordinary memory as lib/arch/x86_64/inject_rt.S writes it: records
 * decoded, ticks converted, the ring's wrap, and every way the runtime
 * says it dropped records turned into lost events where they happened.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/inject/inject_layout.h"
#include "lib/inject/inject_ring.h"
#include "lib/probes/probes.h"
#include "lib/rings/strtab.h"

#define RING_N 64

struct sink {
	struct ot_event ev[256];
	size_t n;
};

static void emit(void *ctx, const struct ot_event *ev)
{
	struct sink *s = ctx;

	assert_true(s->n < 256);
	s->ev[s->n++] = *ev;
}

/* For runs longer than a sink holds: times only. */
static uint64_t big_time[4096];
static size_t big_n;

static void big_emit(void *ctx, const struct ot_event *ev)
{
	(void)ctx;
	assert_true(big_n < 4096);
	big_time[big_n++] = ev->time;
}

/* Functions 0..9 armed; compact records need no lookup (the drain's
 * samples would). */
static int lookup(void *ctx, uint64_t id, uint32_t *func, int *kind)
{
	static const int kinds[4] = { -1, OT_PROBE_ENTRY, OT_PROBE_EXACT_RET, OT_PROBE_TAIL_ENTRY };

	(void)ctx;
	if (id % 4 == 0 || id / 4 >= 10)
		return -ENOENT;
	*func = (uint32_t)(id / 4);
	*kind = kinds[id % 4];
	return 0;
}

static uint64_t *u64(uint8_t *ar, size_t off)
{
	return (uint64_t *)(ar + off);
}

/* The runtime's append: the record, then the head. */
static void put(uint8_t *ar, uint64_t time, unsigned kind, uint64_t sp_or_count, uint32_t func)
{
	uint64_t h = *u64(ar, OT_INJ_A_HEAD);
	uint64_t *rec = u64(ar, OT_INJ_A_RING + (h & (RING_N - 1)) * OT_INJ_REC_SIZE);

	rec[0] = time;
	rec[1] = sp_or_count << OT_INJ_W_SP_SHIFT | (uint64_t)kind << OT_INJ_W_KIND_SHIFT | func;
	*u64(ar, OT_INJ_A_HEAD) = h + 1;
}

static uint8_t *new_area(void)
{
	uint8_t *ar = calloc(1, OT_INJ_A_RING + RING_N * OT_INJ_REC_SIZE);

	assert_non_null(ar);
	return ar;
}

static void test_records_decoded(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(4, 0, lookup, NULL, emit, &s);
	struct ot_inject_view v = { .tid = 101, .pid = 100, .queue = 2 };
	uint8_t *ar = new_area();

	(void)state;
	ot_drain_thread_funcs(d, 10);
	put(ar, 10, OT_INJ_K_ENTRY, 0x7ff0, 3);
	put(ar, 20, OT_INJ_K_TAIL, 0x7ff0, 4);
	put(ar, 30, OT_INJ_K_RETURN, 0x7ff0, 4);
	put(ar, 40, OT_INJ_K_ENTRY, 0x7fe0, 12);	/* not armed */
	assert_int_equal(ot_inject_ring_read(&v, ar, RING_N, NULL, d, 1000), 4);
	assert_int_equal(*u64(ar, OT_INJ_A_TAIL), 4);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.ev[0].kind, OT_EV_ENTRY);
	assert_int_equal(s.ev[0].func, 3);
	assert_int_equal(s.ev[0].flags, 0);
	assert_int_equal(s.ev[0].time, 10);
	assert_int_equal(s.ev[0].sp, 0x7ff0);
	assert_int_equal(s.ev[0].tid, 101);
	assert_int_equal(s.ev[0].pid, 100);
	assert_int_equal(s.ev[0].cpu, 2);
	assert_int_equal(s.ev[1].kind, OT_EV_ENTRY);
	assert_int_equal(s.ev[1].flags, OT_EV_TAIL_ENTRY);
	/* An exact return carries its entry's SP as it is. */
	assert_int_equal(s.ev[2].kind, OT_EV_RETURN);
	assert_int_equal(s.ev[2].func, 4);
	assert_int_equal(s.ev[2].sp, 0x7ff0);
	assert_int_equal(s.ev[2].flags, 0);
	assert_int_equal(ot_drain_stats(d)->unknown, 1);
	assert_int_equal(ot_drain_stats(d)->samples, 3);
	/* Nothing new: nothing read. */
	assert_int_equal(ot_inject_ring_read(&v, ar, RING_N, NULL, d, 1000), 0);
	assert_int_equal(v.last_time, 40);
	free(ar);
	ot_drain_free(d);
}

/*
 * A return stamped before a signal handler's calls but written after them
 * (the runtime reads the clock first) keeps its place: the ring's order.
 * Sorted by time instead, the handler's second call's entry came before
 * its first call's return at the same slot: an unclosed call and an
 * orphan return.
 */
static void test_ring_order_kept(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 0, lookup, NULL, emit, &s);
	struct ot_inject_view v = { .tid = 7, .pid = 7 };
	uint8_t *ar = new_area();
	size_t i;

	(void)state;
	ot_drain_thread_funcs(d, 10);
	put(ar, 100, OT_INJ_K_ENTRY, 0x7f00, 1);	/* work */
	put(ar, 300, OT_INJ_K_ENTRY, 0x7e00, 2);	/* a handler's hwork */
	put(ar, 310, OT_INJ_K_RETURN, 0x7e00, 2);
	put(ar, 200, OT_INJ_K_RETURN, 0x7f00, 1);	/* work's, stamped before */
	put(ar, 320, OT_INJ_K_ENTRY, 0x7e00, 2);	/* the next handler */
	put(ar, 330, OT_INJ_K_RETURN, 0x7e00, 2);
	assert_int_equal(ot_inject_ring_read(&v, ar, RING_N, NULL, d, 1000), 6);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 6);
	for (i = 0; i < 6; i++)
		assert_int_equal(s.ev[i].kind, i == 0 || i == 1 || i == 4 ? OT_EV_ENTRY : OT_EV_RETURN);
	assert_int_equal(s.ev[3].func, 1);
	assert_int_equal(s.ev[3].time, 310);	/* no earlier than what came before it */
	free(ar);
	ot_drain_free(d);
}

/* Ticks are converted on the map: 2 ticks a nanosecond from (1000, 5000). */
static void test_ticks_converted_across_wrap(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 0, lookup, NULL, emit, &s);
	struct ot_inject_view v = { .tid = 7, .pid = 7 };
	uint8_t *ar = new_area();
	struct ot_tsc tsc;
	uint64_t i;

	(void)state;
	ot_drain_thread_funcs(d, 10);
	ot_tsc_init(&tsc);
	ot_tsc_add(&tsc, 1000, 5000);
	ot_tsc_add(&tsc, 2001000, 1005000);
	/* The tail near the end: the records wrap. */
	*u64(ar, OT_INJ_A_HEAD) = *u64(ar, OT_INJ_A_TAIL) = RING_N - 3;
	for (i = 0; i < 6; i++)
		put(ar, 2001000 + 2 * i, i & 1 ? OT_INJ_K_RETURN : OT_INJ_K_ENTRY, 0x7000, 1);
	assert_int_equal(ot_inject_ring_read(&v, ar, RING_N, &tsc, d, 0), 6);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 6);
	for (i = 0; i < 6; i++)
		assert_int_equal(s.ev[i].time, 1005000 + i);
	free(ar);
	ot_drain_free(d);
}

/*
 * A marker says how many were dropped in all before it; the area's count,
 * read after the records, places the rest after them.  Each is reported
 * once.  A signal handler's calls, recorded neither way, are counted
 * apart, not lost.
 */
static void test_drops_reported_where_they_happened(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 7, lookup, NULL, emit, &s);
	struct ot_inject_view v = { .tid = 7, .pid = 7 };
	uint8_t *ar = new_area();

	(void)state;
	ot_drain_thread_funcs(d, 10);
	put(ar, 10, OT_INJ_K_ENTRY, 0x7000, 1);
	put(ar, 20, OT_INJ_K_LOST, 5, 0);
	put(ar, 30, OT_INJ_K_RETURN, 0x7000, 1);
	*u64(ar, OT_INJ_A_LOST) = 7;
	*u64(ar, OT_INJ_A_REENTERED) = 2;
	assert_int_equal(ot_inject_ring_read(&v, ar, RING_N, NULL, d, 0), 3);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.ev[0].kind, OT_EV_ENTRY);
	assert_int_equal(s.ev[1].kind, OT_EV_LOST);
	assert_int_equal(s.ev[1].lost, 5);
	assert_int_equal(s.ev[1].time, 20);
	assert_int_equal(s.ev[2].kind, OT_EV_RETURN);
	assert_int_equal(s.ev[3].kind, OT_EV_LOST);
	assert_int_equal(s.ev[3].lost, 2);
	assert_int_equal(s.ev[3].time, 30);
	assert_int_equal(ot_drain_stats(d)->lost, 7);
	assert_int_equal(v.reentered, 2);
	/* Read again: the counts are known, nothing more is lost. */
	assert_int_equal(ot_inject_ring_read(&v, ar, RING_N, NULL, d, 0), 0);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 4);
	assert_int_equal(ot_drain_stats(d)->lost, 7);
	free(ar);
	ot_drain_free(d);
}

/* A forked child's ring: its calls are another process's, and so are its
 * losses. */
static void test_child_ring(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 7, lookup, NULL, emit, &s);
	struct ot_inject_view v = { .tid = 9, .pid = 9 };
	uint8_t *ar = new_area();

	(void)state;
	ot_drain_thread_funcs(d, 10);
	put(ar, 10, OT_INJ_K_ENTRY, 0x7000, 1);
	put(ar, 20, OT_INJ_K_LOST, 5, 0);
	*u64(ar, OT_INJ_A_LOST) = 6;
	assert_int_equal(ot_inject_ring_read(&v, ar, RING_N, NULL, d, 0), 2);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 0);
	assert_int_equal(ot_drain_stats(d)->foreign, 1);
	assert_int_equal(ot_drain_stats(d)->foreign_lost, 6);
	assert_int_equal(ot_drain_stats(d)->lost, 0);
	free(ar);
	ot_drain_free(d);
}

/* A head the process overwrote: one ring's worth read, the rest lost at now. */
static void test_corrupt_head(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 0, lookup, NULL, emit, &s);
	struct ot_inject_view v = { .tid = 7, .pid = 7 };
	uint8_t *ar = new_area();

	(void)state;
	ot_drain_thread_funcs(d, 10);
	*u64(ar, OT_INJ_A_HEAD) = RING_N + 10;
	assert_int_equal(ot_inject_ring_read(&v, ar, RING_N, NULL, d, 999), RING_N);
	assert_int_equal(*u64(ar, OT_INJ_A_TAIL), RING_N + 10);
	assert_int_equal(ot_drain_stats(d)->lost, 10);
	ot_drain_flush(d, UINT64_MAX);
	assert_true(s.n >= 1);
	assert_int_equal(s.ev[s.n - 1].kind, OT_EV_LOST);
	assert_int_equal(s.ev[s.n - 1].time, 999);
	free(ar);
	ot_drain_free(d);
}

/*
 * More records than one batch holds, across the ring's wrap, markers
 * among them: all read, in order, every drop reported once.
 */
/*
 * Values (NAME(argN), NAME%ret): an entry's first value before it, its
 * others after it, the return's before it; widths cut as vfmt says, a
 * value of 64 bits whole (two compact records), a marker between a value
 * and its record dropping the value.
 */
static void test_values(void **state)
{
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 7, lookup, NULL, emit, &s);
	uint8_t fmt[10 * OT_INJ_F_MAX_VALS] = { 0 };
	struct ot_inject_view v = { .tid = 7, .pid = 7, .vfmt = fmt, .nfuncs = 10 };
	uint8_t *ar = new_area();
	const uint64_t big = 0x8123456789abcdefull;

	(void)state;
	fmt[3 * OT_INJ_F_MAX_VALS + 1] = 4 | 0x10;	/* function 3's second value: s32 */
	ot_drain_thread_funcs(d, 10);
	put(ar, 0xfffffffffffffff6ull, OT_INJ_K_LOST, 0, 1);		/* -10 */
	put(ar, 100, OT_INJ_K_ENTRY, 0x7000, 3);
	put(ar, 0x1ffffffffull, OT_INJ_K_LOST, 0, 2);			/* s32: -1 */
	put(ar, big, OT_INJ_K_LOST, 0, 3);
	put(ar, big, OT_INJ_K_LOST, 0, OT_INJ_V_RET);
	put(ar, 200, OT_INJ_K_RETURN, 0x7000, 3);
	put(ar, 5, OT_INJ_K_LOST, 0, OT_INJ_V_RET);
	put(ar, 300, OT_INJ_K_LOST, 4, 0);				/* a marker */
	put(ar, 400, OT_INJ_K_RETURN, 0x7000, 3);
	ot_inject_ring_read(&v, ar, RING_N, NULL, d, 999);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.ev[0].kind, OT_EV_ENTRY);
	assert_int_equal(s.ev[0].has_value, 1);
	assert_int_equal((int64_t)s.ev[0].value, -10);
	assert_int_equal(s.ev[1].kind, OT_EV_VALUE);
	assert_int_equal(s.ev[1].flags, 0);
	assert_int_equal(s.ev[1].func, 3);
	assert_int_equal(s.ev[1].sp, 0x7000);
	assert_int_equal((int64_t)s.ev[1].value, -1);
	assert_int_equal(s.ev[2].kind, OT_EV_VALUE);
	assert_int_equal(s.ev[2].flags, 1);
	assert_true(s.ev[2].value == big);
	assert_int_equal(s.ev[3].kind, OT_EV_RETURN);
	assert_int_equal(s.ev[3].has_value, 1);
	assert_true(s.ev[3].value == big);
	assert_int_equal(s.ev[4].kind, OT_EV_LOST);
	assert_int_equal(s.ev[5].kind, OT_EV_RETURN);
	assert_int_equal(s.ev[5].has_value, 0);
	free(ar);
	ot_drain_free(d);
}

/* 8 bytes of s from k on, as the runtime's OT_INJ_V_STR record holds them. */
static uint64_t chunk(const char *s, size_t len, size_t k)
{
	char b[8] = { 0 };
	uint64_t x;

	memcpy(b, s + k, len - k < 8 ? len - k : 8);
	memcpy(&x, b, 8);
	return x;
}

/*
 * USDT probes under inject: a point's hits (entries of a function the
 * drain knows is a point) with a string the runtime read (its bytes after
 * its address: the string's id as the value, counted read by the probe),
 * one it could not (the address, left for the drain to read afterwards),
 * and one of 64 bytes with no NUL (cut at 63, as a probe's read).
 */
static void test_point_strings(void **state)
{
	static const char name[] = "function_name", *long_ = "0123456789abcdef0123456789abcdef"
							     "0123456789abcdef0123456789abcdef";
	struct sink s = { .n = 0 };
	struct ot_drain *d = ot_drain_new(1, 7, lookup, NULL, emit, &s);
	struct ot_inject_view v = { .tid = 7, .pid = 7, .nfuncs = 10 };
	uint8_t *ar = new_area(), is_str[10] = { [2] = 1 };
	uint64_t probe, late, unreadable;
	size_t k;

	(void)state;
	ot_drain_thread_funcs(d, 10);
	ot_drain_thread_point(d, 2);
	ot_drain_thread_strs(d, is_str, 10);
	put(ar, 0x1000, OT_INJ_K_LOST, 0, 1);
	for (k = 0; k < sizeof(name); k += 8)
		put(ar, chunk(name, sizeof(name), k), OT_INJ_K_LOST, 0, OT_INJ_V_STR);
	put(ar, 100, OT_INJ_K_ENTRY, 0x7000, 2);
	put(ar, 0x2000, OT_INJ_K_LOST, 0, 1);
	put(ar, 0x2000, OT_INJ_K_LOST, 0, OT_INJ_V_STR_BAD);
	put(ar, 200, OT_INJ_K_ENTRY, 0x7000, 2);
	put(ar, 0x3000, OT_INJ_K_LOST, 0, 1);
	for (k = 0; k < 64; k += 8)
		put(ar, chunk(long_, 64, k), OT_INJ_K_LOST, 0, OT_INJ_V_STR);
	put(ar, 300, OT_INJ_K_ENTRY, 0x7000, 2);
	ot_inject_ring_read(&v, ar, RING_N, NULL, d, 999);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(s.n, 3);
	for (k = 0; k < 3; k++) {
		assert_int_equal(s.ev[k].kind, OT_EV_POINT);
		assert_int_equal(s.ev[k].has_value, 1);
	}
	assert_string_equal(ot_strtab_get(ot_drain_strs(d), (uint32_t)s.ev[0].value), name);
	/* No reader set: the address the runtime could not read is unreadable. */
	assert_string_equal(ot_strtab_get(ot_drain_strs(d), (uint32_t)s.ev[1].value),
			    "<unreadable 0x2000>");
	assert_int_equal(strlen(ot_strtab_get(ot_drain_strs(d), (uint32_t)s.ev[2].value)), 63);
	assert_memory_equal(ot_strtab_get(ot_drain_strs(d), (uint32_t)s.ev[2].value), long_, 63);
	ot_drain_str_stats(d, &probe, &late, &unreadable);
	assert_int_equal(probe, 2);
	assert_int_equal(late, 0);
	assert_int_equal(unreadable, 1);
	free(ar);
	ot_drain_free(d);
}

static void test_many_records(void **state)
{
	enum { BIG = 1024, N = 900 };
	struct ot_drain *d = ot_drain_new(1, 7, lookup, NULL, big_emit, NULL);
	struct ot_inject_view v = { .tid = 7, .pid = 7 };
	uint8_t *ar = calloc(1, OT_INJ_A_RING + BIG * OT_INJ_REC_SIZE);
	uint64_t i, h = BIG - 100, markers = 0, prev = 0;

	(void)state;
	ot_drain_thread_funcs(d, 10);
	big_n = 0;
	*u64(ar, OT_INJ_A_HEAD) = *u64(ar, OT_INJ_A_TAIL) = h;
	for (i = 0; i < N; i++, h++) {
		uint64_t *rec = u64(ar, OT_INJ_A_RING + (h & (BIG - 1)) * OT_INJ_REC_SIZE);
		unsigned kind = i % 97 == 50 ? OT_INJ_K_LOST : i & 1 ? OT_INJ_K_RETURN : OT_INJ_K_ENTRY;

		markers += kind == OT_INJ_K_LOST;
		rec[0] = 100 + i;
		/* A marker's function bits are 0, as the runtime writes them
		 * (others are a value's). */
		rec[1] = (kind == OT_INJ_K_LOST ? markers : 0x7000) << OT_INJ_W_SP_SHIFT |
			 (uint64_t)kind << OT_INJ_W_KIND_SHIFT | (kind == OT_INJ_K_LOST ? 0 : 1);
	}
	*u64(ar, OT_INJ_A_HEAD) = h;
	assert_int_equal(ot_inject_ring_read(&v, ar, BIG, NULL, d, 0), N);
	ot_drain_flush(d, UINT64_MAX);
	assert_int_equal(big_n, N);
	for (i = 0; i < big_n; i++) {
		assert_true(big_time[i] >= prev);
		prev = big_time[i];
	}
	assert_int_equal(ot_drain_stats(d)->samples, N - markers);
	assert_int_equal(ot_drain_stats(d)->lost, markers);
	free(ar);
	ot_drain_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_decoded),
		cmocka_unit_test(test_ring_order_kept),
		cmocka_unit_test(test_ticks_converted_across_wrap),
		cmocka_unit_test(test_drops_reported_where_they_happened),
		cmocka_unit_test(test_child_ring),
		cmocka_unit_test(test_corrupt_head),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_point_strings),
		cmocka_unit_test(test_many_records),
	};

	return cmocka_run_group_tests_name("inject_ring", tests, NULL, NULL);
}
