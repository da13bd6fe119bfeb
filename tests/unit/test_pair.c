/*
 * Pairing on synthetic event streams: nesting, orphans, unclosed calls,
 * duplicates by SP, interleaved threads, healing after lost returns.
 * SPs follow the real layout: a callee's entry SP is below its caller's;
 * returns carry their call's entry SP, as lib/rings/drain delivers them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/scopes/pair.h"

enum { OUTER, MIDDLE, INNER, NFUNCS };

static uint64_t clock_ns;

static void ent(struct ot_pair *p, uint32_t tid, uint32_t f, uint64_t sp)
{
	struct ot_event ev = { .time = clock_ns += 10, .sp = sp, .tid = tid,
			       .func = f, .kind = OT_EV_ENTRY };

	ot_pair_feed(p, &ev);
}

static void ret(struct ot_pair *p, uint32_t tid, uint32_t f, uint64_t sp)
{
	struct ot_event ev = { .time = clock_ns += 10, .sp = sp, .tid = tid,
			       .func = f, .kind = OT_EV_RETURN };

	ot_pair_feed(p, &ev);
}

#define S(p, f) ot_pair_stats(p, f)

/* A keyed scope's entry or return (a runtime's probes: its SP says nothing). */
static void kev(struct ot_pair *p, uint32_t tid, uint32_t f, int kind)
{
	struct ot_event ev = { .time = clock_ns += 10, .sp = 0x5000 + (clock_ns & 0xf0),
			       .tid = tid, .func = f, .kind = (uint8_t)kind, .flags = OT_EV_KEYED };

	ot_pair_feed(p, &ev);
}

/* outer -> 2 x middle -> 3 x inner, on thread tid with stack top at base. */
static void tree(struct ot_pair *p, uint32_t tid, uint64_t base)
{
	int m, i;

	ent(p, tid, OUTER, base);
	for (m = 0; m < 2; m++) {
		ent(p, tid, MIDDLE, base - 0x40);
		for (i = 0; i < 3; i++) {
			ent(p, tid, INNER, base - 0x80);
			ret(p, tid, INNER, base - 0x80);
		}
		ret(p, tid, MIDDLE, base - 0x40);
	}
	ret(p, tid, OUTER, base);
}

static void test_nesting_depths_and_durations(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	tree(p, 1, 0x7000);
	tree(p, 1, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, OUTER)->scopes, 2);
	assert_int_equal(S(p, MIDDLE)->scopes, 4);
	assert_int_equal(S(p, INNER)->scopes, 12);
	assert_int_equal(S(p, OUTER)->depths[0], 2);
	assert_int_equal(S(p, MIDDLE)->depths[1], 4);
	assert_int_equal(S(p, INNER)->depths[2], 12);
	assert_int_equal(S(p, INNER)->hist.min, 10); /* entry and return 10 ns apart */
	/* outer spans 1 + 2 * (1 + 3 * 2 + 1) events after its entry: 170 ns. */
	assert_int_equal(S(p, OUTER)->hist.max, 170);
	assert_int_equal(S(p, OUTER)->unclosed + S(p, OUTER)->orphans +
			 S(p, OUTER)->duplicates + S(p, OUTER)->outside_parent, 0);
	ot_pair_free(p);
}

static void test_orphan_return(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	/* A call in flight when the probes were enabled: only its return. */
	ret(p, 1, INNER, 0x6f80);
	ret(p, 1, MIDDLE, 0x6fc0);
	tree(p, 1, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, INNER)->orphans, 1);
	assert_int_equal(S(p, MIDDLE)->orphans, 1);
	assert_int_equal(S(p, INNER)->scopes, 6);
	assert_int_equal(S(p, INNER)->depths[2], 6);
	ot_pair_free(p);
}

static void test_unclosed_at_end(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ot_pair_finish(p);
	assert_int_equal(S(p, OUTER)->unclosed, 1);
	assert_int_equal(S(p, MIDDLE)->unclosed, 1);
	assert_int_equal(S(p, OUTER)->scopes, 0);
	ot_pair_free(p);
}

static void test_duplicate_entry_dropped(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ent(p, 1, MIDDLE, 0x6fc0); /* the same call reported twice */
	ret(p, 1, MIDDLE, 0x6fc0);
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, MIDDLE)->duplicates, 1);
	assert_int_equal(S(p, MIDDLE)->scopes, 1);
	assert_int_equal(S(p, MIDDLE)->depths[1], 1);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	assert_int_equal(S(p, MIDDLE)->unclosed, 0);
	ot_pair_free(p);
}

static void test_duplicate_return_dropped(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	struct ot_event ev = { .sp = 0x6fc0, .tid = 1,
			       .func = MIDDLE, .kind = OT_EV_RETURN };

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ev.time = clock_ns += 10;
	ot_pair_feed(p, &ev);
	ot_pair_feed(p, &ev); /* same tid, function, SP and time */
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, MIDDLE)->duplicates, 1);
	assert_int_equal(S(p, MIDDLE)->orphans, 0);
	assert_int_equal(S(p, MIDDLE)->scopes, 1);
	ot_pair_free(p);
}

static void test_recursion_same_function_is_not_duplicate(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	ent(p, 1, INNER, 0x7000);
	ent(p, 1, INNER, 0x6fc0); /* recursive call: lower SP */
	ret(p, 1, INNER, 0x6fc0);
	ret(p, 1, INNER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, INNER)->scopes, 2);
	assert_int_equal(S(p, INNER)->duplicates, 0);
	assert_int_equal(S(p, INNER)->depths[0], 1);
	assert_int_equal(S(p, INNER)->depths[1], 1);
	ot_pair_free(p);
}

/* A lost return must not push later scopes deeper, even when it looks like a duplicate. */
static void test_same_sp_reentry_is_duplicate(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ent(p, 1, INNER, 0x6f80);
	/* inner's return is lost; the next inner enters at the same SP */
	ent(p, 1, INNER, 0x6f80);
	ret(p, 1, INNER, 0x6f80);
	/* middle's return is lost too; the next middle is at middle's SP */
	ent(p, 1, MIDDLE, 0x6fc0);
	ent(p, 1, INNER, 0x6f80);
	ret(p, 1, INNER, 0x6f80);
	ret(p, 1, MIDDLE, 0x6fc0);
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	/*
	 * The first inner at 0x6f80 and the second were one SP: the second
	 * looks like a duplicate of the first (same function, same SP, no
	 * return between).  That is the documented ambiguity: the pairing
	 * cannot tell a lost return from a duplicate report, and counts it
	 * as a duplicate (missing is bounded by unclosed + orphan + dup).
	 */
	assert_int_equal(S(p, INNER)->duplicates, 1);
	assert_int_equal(S(p, INNER)->scopes, 2);
	assert_int_equal(S(p, INNER)->depths[2], 2);
	assert_int_equal(S(p, MIDDLE)->scopes, 1);
	assert_int_equal(S(p, MIDDLE)->unclosed, 0);
	assert_int_equal(S(p, MIDDLE)->duplicates, 1);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	assert_int_equal(S(p, OUTER)->depths[0], 1);
	ot_pair_free(p);
}

/* A sibling call at a higher SP proves the open deeper frames ended. */
static void test_heals_by_higher_sp(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ent(p, 1, INNER, 0x6f80);
	/* returns of inner and middle lost; outer calls middle again */
	ent(p, 1, MIDDLE, 0x6fc8);
	ret(p, 1, MIDDLE, 0x6fc8);
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, INNER)->unclosed, 1);
	assert_int_equal(S(p, MIDDLE)->unclosed, 1);
	assert_int_equal(S(p, MIDDLE)->scopes, 1);
	assert_int_equal(S(p, MIDDLE)->depths[1], 1);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	ot_pair_free(p);
}

/* A return deeper in the stack closes its call and discards those above. */
static void test_return_skips_unreturned_callees(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ent(p, 1, INNER, 0x6f80); /* longjmp out of inner, say */
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, INNER)->unclosed, 1);
	assert_int_equal(S(p, MIDDLE)->unclosed, 1);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	assert_int_equal(S(p, OUTER)->orphans, 0);
	ot_pair_free(p);
}

static void test_interleaved_threads(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	/* Two threads, each on its own stack (8 MiB apart, as glibc's),
	 * events interleaved one by one. */
	ent(p, 1, OUTER, 0x7000);
	ent(p, 2, OUTER, 0x807000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ent(p, 2, MIDDLE, 0x806fc0);
	ent(p, 2, INNER, 0x806f80);
	ret(p, 1, MIDDLE, 0x6fc0);
	ret(p, 2, INNER, 0x806f80);
	ret(p, 2, MIDDLE, 0x806fc0);
	ret(p, 1, OUTER, 0x7000);
	ret(p, 2, OUTER, 0x807000);
	ot_pair_finish(p);
	assert_int_equal(ot_pair_threads(p), 2);
	assert_int_equal(S(p, OUTER)->scopes, 2);
	assert_int_equal(S(p, MIDDLE)->scopes, 2);
	assert_int_equal(S(p, INNER)->scopes, 1);
	assert_int_equal(S(p, INNER)->depths[2], 1);
	assert_int_equal(S(p, OUTER)->duplicates + S(p, MIDDLE)->duplicates, 0);
	assert_int_equal(S(p, OUTER)->unclosed + S(p, MIDDLE)->unclosed, 0);
	ot_pair_free(p);
}

static void test_many_threads_grow_table(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	uint32_t t;

	(void)state;
	for (t = 1; t <= 1000; t++)
		ent(p, t, OUTER, 0x7000 + (uint64_t)t * 0x100000);
	for (t = 1; t <= 1000; t++)
		ret(p, t, OUTER, 0x7000 + (uint64_t)t * 0x100000);
	ot_pair_finish(p);
	assert_int_equal(ot_pair_threads(p), 1000);
	assert_int_equal(S(p, OUTER)->scopes, 1000);
	assert_int_equal(S(p, OUTER)->unclosed, 0);
	ot_pair_free(p);
}

/* An event of process pid (ent/ret are process 0's). */
static void pev(struct ot_pair *p, uint32_t pid, uint32_t tid, uint32_t f, uint64_t sp, int kind)
{
	struct ot_event ev = { .time = clock_ns += 10, .sp = sp, .pid = pid, .tid = tid,
			       .func = f, .kind = (uint8_t)kind };

	ot_pair_feed(p, &ev);
}

/*
 * A fiber resumed on another thread with calls open (tests/e2e/targets/
 * migrate.c): middle yields on thread 1, thread 2 runs the fiber on -
 * its inner nests under middle, middle returns there - and back.  Every
 * call is paired, at its depth; nothing unclosed or orphan.  The same
 * addresses in another process are another stack.
 */
static void test_fiber_moves_between_threads(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	const uint64_t fib = 0x500000;
	int i;

	(void)state;
	for (i = 0; i < 50; i++) {
		uint32_t a = 1 + i % 2, b = 2 - i % 2;

		ent(p, a, MIDDLE, fib);		/* on a, then yields */
		ent(p, a, INNER, fib - 0x40);
		ret(p, a, INNER, fib - 0x40);
		ent(p, b, INNER, fib - 0x40);	/* b resumes the fiber */
		ret(p, b, INNER, fib - 0x40);
		ret(p, b, MIDDLE, fib);		/* middle returns on b */
	}
	ot_pair_finish(p);
	assert_int_equal(S(p, MIDDLE)->scopes, 50);
	assert_int_equal(S(p, MIDDLE)->depths[0], 50);
	assert_int_equal(S(p, INNER)->scopes, 100);
	assert_int_equal(S(p, INNER)->depths[1], 100);
	assert_int_equal(S(p, MIDDLE)->unclosed + S(p, MIDDLE)->orphans +
			 S(p, INNER)->unclosed + S(p, INNER)->orphans, 0);
	ot_pair_free(p);

	/* A return only another thread's stack holds, with no entry on its
	 * own thread before it: that stack moves, the call closes there. */
	p = ot_pair_new(NFUNCS);
	ent(p, 1, OUTER, 0x7000);	/* thread 1 busy on its own stack */
	ent(p, 2, MIDDLE, fib);
	ent(p, 1, INNER, 0x6f00);
	ret(p, 1, INNER, 0x6f00);
	ret(p, 1, MIDDLE, fib);		/* the fiber went to thread 1 */
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, MIDDLE)->scopes, 1);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	assert_int_equal(S(p, INNER)->depths[1], 1);
	assert_int_equal(S(p, MIDDLE)->orphans + S(p, MIDDLE)->unclosed +
			 S(p, OUTER)->unclosed, 0);
	ot_pair_free(p);

	/* Processes do not share stacks: process 8's return at process 7's
	 * address is an orphan, and 7's call stays open. */
	p = ot_pair_new(NFUNCS);
	pev(p, 7, 70, MIDDLE, fib, OT_EV_ENTRY);
	pev(p, 8, 80, INNER, fib - 0x40, OT_EV_ENTRY);
	pev(p, 8, 80, INNER, fib - 0x40, OT_EV_RETURN);
	pev(p, 8, 80, MIDDLE, fib, OT_EV_RETURN);
	ot_pair_finish(p);
	assert_int_equal(S(p, INNER)->depths[0], 1);
	assert_int_equal(S(p, MIDDLE)->orphans, 1);
	assert_int_equal(S(p, MIDDLE)->unclosed, 1);
	ot_pair_free(p);
}

/*
 * With return probes the kernel keeps 64 per thread: a recursion 70
 * deep has 6 calls past the limit (and with one more traced caller
 * holding one, 7); functions seen at return instructions count none.
 */
static void test_uretprobe_limit(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	int d;

	(void)state;
	ot_pair_set_uretprobe(p, INNER);
	ot_pair_set_uretprobe(p, OUTER);
	for (d = 0; d < 70; d++)
		ent(p, 1, INNER, 0x70000 - 0x40 * (uint64_t)d);
	for (d = 63; d >= 0; d--)
		ret(p, 1, INNER, 0x70000 - 0x40 * (uint64_t)d);
	assert_int_equal(S(p, INNER)->past_uretprobe_limit, 6);
	ent(p, 1, OUTER, 0x80000);
	ent(p, 1, MIDDLE, 0x7ff00);	/* not by return probe: holds none */
	for (d = 0; d < 70; d++)
		ent(p, 1, INNER, 0x70000 - 0x40 * (uint64_t)d);
	assert_int_equal(S(p, INNER)->past_uretprobe_limit, 6 + 7);
	assert_int_equal(S(p, MIDDLE)->past_uretprobe_limit, 0);
	ot_pair_finish(p);
	assert_int_equal(S(p, INNER)->unclosed, 6 + 70);
	ot_pair_free(p);
}

/*
 * A switch of stacks no file named, seen as the pairing follows it: with a
 * call under a return probe open on the stack left (outer on the thread's
 * stack, inner entered on a fiber's far below, outer returning after) it
 * is counted, each way; the same switch with return instructions only, or
 * an ordinary nesting, is not.
 */
static void test_uretprobe_switch(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	uint32_t tid = 0;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		ent(p, 1, OUTER, 0x7ffff000);
		ret(p, 1, OUTER, 0x7ffff000);
	}
	ent(p, 1, OUTER, 0x7ffff000);
	ent(p, 1, MIDDLE, 0x7fffef00);
	ret(p, 1, MIDDLE, 0x7fffef00);
	ret(p, 1, OUTER, 0x7ffff000);
	ent(p, 1, OUTER, 0x7ffff000);
	ent(p, 1, INNER, 0x10000);	/* on a fiber's stack */
	ret(p, 1, INNER, 0x10000);
	ret(p, 1, OUTER, 0x7ffff000);
	assert_int_equal(ot_pair_uret_switches(p, &tid), 0);	/* none by return probe */
	ot_pair_free(p);

	p = ot_pair_new(NFUNCS);
	ot_pair_set_uretprobe(p, OUTER);
	ent(p, 7, OUTER, 0x7ffff000);
	ent(p, 7, MIDDLE, 0x7fffef00);
	ret(p, 7, MIDDLE, 0x7fffef00);
	ret(p, 7, OUTER, 0x7ffff000);
	assert_int_equal(ot_pair_uret_switches(p, NULL), 0);
	ent(p, 7, OUTER, 0x7ffff000);
	ent(p, 7, INNER, 0x10000);	/* to the fiber: outer's probe open */
	ret(p, 7, INNER, 0x10000);
	ret(p, 7, OUTER, 0x7ffff000);	/* and back */
	ot_pair_finish(p);
	assert_int_equal(ot_pair_uret_switches(p, &tid), 2);
	assert_int_equal(tid, 7);
	assert_int_equal(S(p, OUTER)->scopes, 2);
	assert_int_equal(S(p, INNER)->scopes, 1);
	ot_pair_free(p);
}

static void test_outside_parent_counted(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	struct ot_event ev[] = {
		{ .time = 100, .sp = 0x7000, .tid = 1, .func = OUTER, .kind = OT_EV_ENTRY },
		/* a child stamped before its parent began: clocks disagree */
		{ .time = 90, .sp = 0x6fc0, .tid = 1, .func = MIDDLE, .kind = OT_EV_ENTRY },
		{ .time = 120, .sp = 0x6fc0, .tid = 1, .func = MIDDLE, .kind = OT_EV_RETURN },
		{ .time = 130, .sp = 0x7000, .tid = 1, .func = OUTER, .kind = OT_EV_RETURN },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		ot_pair_feed(p, &ev[i]);
	ot_pair_finish(p);
	assert_int_equal(S(p, MIDDLE)->outside_parent, 1);
	assert_int_equal(S(p, OUTER)->outside_parent, 0);
	ot_pair_free(p);
}

static void test_scope_spanning_loss_kept_out_of_durations(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	struct ot_event lost = { .kind = OT_EV_LOST, .lost = 3 };

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ret(p, 1, MIDDLE, 0x6fc0);	/* before the loss: trusted */
	lost.time = clock_ns += 10;
	ot_pair_feed(p, &lost);
	ent(p, 1, MIDDLE, 0x6fc0);
	ret(p, 1, MIDDLE, 0x6fc0);	/* after it: trusted */
	ret(p, 1, OUTER, 0x7000);	/* open across it: not */
	ot_pair_finish(p);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	assert_int_equal(S(p, OUTER)->spans_loss, 1);
	assert_int_equal(S(p, OUTER)->hist.count, 0);
	assert_int_equal(S(p, MIDDLE)->scopes, 2);
	assert_int_equal(S(p, MIDDLE)->spans_loss, 0);
	assert_int_equal(S(p, MIDDLE)->hist.count, 2);
	ot_pair_free(p);
}

static void test_compensation(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	ot_pair_compensate(p, 3, 4);
	tree(p, 1, 0x7000); /* events 10 ns apart */
	ot_pair_finish(p);
	/* inner: 10 raw - 3 own */
	assert_int_equal(S(p, INNER)->comp->min, 7);
	/* middle: 1 + 3*2 events = 70 raw, 3 nested: 70 - 3 - 12 */
	assert_int_equal(S(p, MIDDLE)->comp->max, 55);
	/* outer: 170 raw, 2 middle + 6 inner nested: 170 - 3 - 32 */
	assert_int_equal(S(p, OUTER)->comp->max, 135);
	assert_int_equal(S(p, OUTER)->hist.max, 170);
	ot_pair_free(p);
}

static void test_lost_events_counted(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	struct ot_event ev = { .time = 5, .kind = OT_EV_LOST, .lost = 17 };

	(void)state;
	ot_pair_feed(p, &ev);
	ot_pair_feed(p, &ev);
	assert_int_equal(ot_pair_lost(p), 34);
	ot_pair_free(p);
}

/* g jumps to inner (tail call): same SP, and the kernel reports both returns. */
static void test_tail_call_nests(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ent(p, 1, INNER, 0x6fc0);  /* middle's tail call */
	ret(p, 1, INNER, 0x6fc0);
	ret(p, 1, MIDDLE, 0x6fc0); /* the chained return, same SP */
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, INNER)->scopes, 1);
	assert_int_equal(S(p, INNER)->depths[2], 1);
	assert_int_equal(S(p, MIDDLE)->scopes, 1);
	assert_int_equal(S(p, MIDDLE)->unclosed + S(p, MIDDLE)->orphans, 0);
	ot_pair_free(p);
}

/* longjmp from inner to outer: middle and inner never return; the next
 * call from outer lands at middle's SP and must not nest under it. */
static void test_longjmp_unwinds(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ent(p, 1, INNER, 0x6f80);
	/* longjmp back into outer, which calls inner at middle's old SP */
	ent(p, 1, INNER, 0x6fc0);
	ret(p, 1, INNER, 0x6fc0);
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, MIDDLE)->unclosed, 1);
	assert_int_equal(S(p, INNER)->unclosed, 1);
	assert_int_equal(S(p, INNER)->scopes, 1);
	assert_int_equal(S(p, INNER)->depths[1], 1);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	ot_pair_free(p);
}

/* With probes on return instructions one `ret` ends a tail chain. */
static void test_ret_insn_closes_tail_callers(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	struct ot_event ev = { .sp = 0x6fc0, .tid = 1, .func = INNER,
			       .kind = OT_EV_RETURN, .flags = OT_EV_RET_INSN };

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ent(p, 1, INNER, 0x6fc0); /* middle's tail call */
	ev.time = clock_ns += 10;
	ot_pair_feed(p, &ev);
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, INNER)->scopes, 1);
	assert_int_equal(S(p, MIDDLE)->scopes, 1);
	assert_int_equal(S(p, MIDDLE)->unclosed, 0);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	ot_pair_free(p);

	/* Returns mixed (tests/e2e/targets/tails' dispatch_ptr): a tail
	 * caller with a return probe is not ended by its callee's return
	 * instruction - its own return comes, and closes it. */
	p = ot_pair_new(NFUNCS);
	ot_pair_set_uretprobe(p, MIDDLE);
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ent(p, 1, INNER, 0x6fc0);
	ev.time = clock_ns += 10;
	ot_pair_feed(p, &ev);
	ret(p, 1, MIDDLE, 0x6fc0);
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, INNER)->scopes, 1);
	assert_int_equal(S(p, MIDDLE)->scopes, 1);
	assert_int_equal(S(p, MIDDLE)->orphans + S(p, MIDDLE)->unclosed, 0);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	ot_pair_free(p);
}

/* An exception unwinds g and h; f, which has no `ret`, tail-calls leaf. */
static void test_tail_caller_survives_unwind(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS + 1);
	struct ot_event ev = { .sp = 0x7000, .tid = 1, .func = INNER,
			       .kind = OT_EV_RETURN, .flags = OT_EV_RET_INSN };

	(void)state;
	ot_pair_set_tail_calls(p, OUTER);
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fe0);
	ent(p, 1, NFUNCS, 0x6fa0); /* throws: no return for it or middle */
	ent(p, 1, INNER, 0x7000);  /* outer, after the catch, jumps to inner */
	ev.time = clock_ns += 10;
	ot_pair_feed(p, &ev);
	ot_pair_finish(p);
	assert_int_equal(S(p, MIDDLE)->unclosed, 1);
	assert_int_equal(S(p, NFUNCS)->unclosed, 1);
	assert_int_equal(S(p, INNER)->scopes, 1);
	assert_int_equal(S(p, INNER)->depths[1], 1);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	assert_int_equal(S(p, OUTER)->unclosed, 0);
	ot_pair_free(p);
}

static int scopes_seen;
static uint64_t scope_ns[NFUNCS];

static void count_scope(void *ctx, const struct ot_scope *sc)
{
	(void)ctx;
	scopes_seen++;
	scope_ns[sc->func] += sc->end - sc->start;
}

static void test_call_tree_and_scope_hook(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	const struct ot_tree_node *t;
	size_t n, i;
	uint32_t outer = 0, middle = 0, inner = 0;

	(void)state;
	ot_pair_on_scope(p, count_scope, NULL);
	tree(p, 1, 0x7000);
	tree(p, 2, 0x9000);
	/* inner straight from outer: a second path to inner */
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, INNER, 0x6f00);
	ret(p, 1, INNER, 0x6f00);
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	t = ot_pair_tree(p, &n);
	assert_int_equal(n, 5); /* root, outer, outer>middle, outer>middle>inner, outer>inner */
	for (i = 1; i < n; i++) {
		if (t[i].func == OUTER)
			outer = (uint32_t)i;
		else if (t[i].func == MIDDLE)
			middle = (uint32_t)i;
		else if (t[i].func == INNER && t[i].parent != outer)
			inner = (uint32_t)i;
	}
	assert_int_equal(t[outer].parent, 0);
	assert_int_equal(t[middle].parent, outer);
	assert_int_equal(t[inner].parent, middle);
	assert_int_equal(t[outer].calls, 3);
	assert_int_equal(t[middle].calls, 4);
	assert_int_equal(t[inner].calls, 12);
	/* A node's child time is the sum of its children's totals. */
	assert_int_equal(t[inner].total_ns, 12 * 10);
	assert_int_equal(t[middle].child_ns, t[inner].total_ns);
	assert_int_equal(t[outer].total_ns, scope_ns[OUTER]);
	assert_int_equal(scopes_seen, 3 + 4 + 13);
	assert_int_equal(ot_pair_scopes(p), 20);
	assert_int_equal(ot_pair_tree_dropped(p), 0);
	ot_pair_free(p);
}

static void ret_flags(struct ot_pair *p, uint32_t tid, uint32_t f, uint64_t sp, uint8_t flags)
{
	struct ot_event ev = { .time = clock_ns += 10, .sp = sp, .tid = tid,
			       .func = f, .kind = OT_EV_RETURN, .flags = flags };

	ot_pair_feed(p, &ev);
}

/*
 * A return instruction of a function outer tail-calls: it ends outer only
 * at outer's entry SP and when outer is the innermost call there.  The
 * callee's ordinary calls from elsewhere (deeper SPs) leave no trace, and
 * a traced tail callee on top ends both with its own return.
 */
/* The hook skips what its caller said it can; the pairing counts it all. */
static void test_scope_hook_minimum(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	scopes_seen = 0;
	ot_pair_on_scope(p, count_scope, NULL);
	ot_pair_on_scope_min(p, INNER, 11);	/* inner lasts 10 ns */
	ot_pair_on_scope_min(p, MIDDLE, 70);	/* middle 70: at least that */
	ot_pair_on_scope_min(p, NFUNCS, 1);	/* no such function: ignored */
	tree(p, 1, 0x7000);
	assert_int_equal(scopes_seen, 1 + 2);
	ot_pair_on_scope_min(p, INNER, 0);
	tree(p, 1, 0x7000);
	assert_int_equal(scopes_seen, 3 + 9);
	assert_int_equal(S(p, INNER)->scopes, 12);
	assert_int_equal(S(p, INNER)->hist.count, 12);
	ot_pair_free(p);
}

static void test_tail_callee_return(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	const uint8_t tail = OT_EV_RET_INSN | OT_EV_RET_TAIL;

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ret_flags(p, 1, OUTER, 0x6f00, tail);	/* the callee called by outer */
	ret_flags(p, 1, OUTER, 0x7100, tail);	/* ... and by outer's caller */
	assert_int_equal(S(p, OUTER)->scopes, 0);
	ret_flags(p, 1, OUTER, 0x7000, tail);	/* outer's tail call returns */
	assert_int_equal(S(p, OUTER)->scopes, 1);
	ret_flags(p, 1, OUTER, 0x7000, tail);	/* nothing open there any more */

	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x7000);		/* outer tail-calls middle (traced) */
	ret_flags(p, 1, OUTER, 0x7000, tail);	/* middle is on top: not outer's */
	assert_int_equal(S(p, OUTER)->scopes, 1);
	ret_flags(p, 1, MIDDLE, 0x7000, OT_EV_RET_INSN);
	assert_int_equal(S(p, MIDDLE)->scopes, 1);
	assert_int_equal(S(p, OUTER)->scopes, 2);
	ot_pair_finish(p);
	assert_int_equal(S(p, OUTER)->orphans + S(p, OUTER)->unclosed + S(p, OUTER)->duplicates, 0);
	assert_int_equal(S(p, MIDDLE)->orphans + S(p, MIDDLE)->unclosed, 0);
	ot_pair_free(p);
}

/*
 * Two fibers on one thread, stacks 1 MiB apart, each yielding inside
 * middle: every call is paired on its own stack, nothing unclosed.  A
 * longjmp on one stack is still seen (its frames unclosed at the end).
 */
static void test_fibers_pair_per_stack(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	const uint64_t a = 0x700000, b = 0x600000;
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		ent(p, 1, MIDDLE, a);		/* fiber A: middle, yields */
		ent(p, 1, MIDDLE, b);		/* fiber B: middle, yields */
		ent(p, 1, INNER, a - 0x40);	/* A resumes, calls inner */
		ret(p, 1, INNER, a - 0x40);
		ret(p, 1, MIDDLE, a);		/* A's middle returns */
		ent(p, 1, INNER, b - 0x40);	/* B resumes */
		ret(p, 1, INNER, b - 0x40);
		ret(p, 1, MIDDLE, b);
	}
	assert_int_equal(S(p, MIDDLE)->scopes, 200);
	assert_int_equal(S(p, INNER)->scopes, 200);
	assert_int_equal(S(p, INNER)->depths[1], 200);
	/* Fiber B set aside with a call open; on A a return was lost: an
	 * entry among A's open calls heals A's stack, it does not bring B's
	 * back (B's call returns later, on B). */
	ent(p, 1, MIDDLE, b);
	ent(p, 1, OUTER, a);
	ent(p, 1, MIDDLE, a - 0x100);
	ent(p, 1, INNER, a - 0x80);		/* middle's return was lost */
	ret(p, 1, INNER, a - 0x80);
	ret(p, 1, OUTER, a);
	ret(p, 1, MIDDLE, b);
	assert_int_equal(S(p, INNER)->depths[1], 201);
	assert_int_equal(S(p, MIDDLE)->scopes, 201);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	/* A longjmp out of inner on fiber A: inner's frame never returns. */
	ent(p, 1, MIDDLE, a);
	ent(p, 1, INNER, a - 0x40);
	ent(p, 1, MIDDLE, a);			/* back at middle's level: unwound */
	ret(p, 1, MIDDLE, a);
	ot_pair_finish(p);
	assert_int_equal(S(p, MIDDLE)->scopes, 202);
	assert_int_equal(S(p, MIDDLE)->unclosed + S(p, INNER)->unclosed, 3);
	assert_int_equal(S(p, MIDDLE)->orphans + S(p, INNER)->orphans, 0);
	ot_pair_free(p);
}

/*
 * Frames set aside on the same stack (a longjmp left them) are not a
 * fiber: an entry among the thread's open calls heals them, and nests
 * under the open caller, not under the stale frames.
 */
static void test_stale_frames_stay_aside(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	const struct ot_tree_node *tree;
	size_t n, i, under_outer = 0;

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, INNER, 0x6fc0);
	ent(p, 1, MIDDLE, 0x6fe0);	/* inner left by longjmp: set aside */
	ret(p, 1, MIDDLE, 0x6fe0);
	ent(p, 1, MIDDLE, 0x6f00);
	ent(p, 1, INNER, 0x6f80);	/* middle's return lost: among outer's calls */
	ret(p, 1, INNER, 0x6f80);
	ret(p, 1, OUTER, 0x7000);
	tree = ot_pair_tree(p, &n);
	for (i = 1; i < n; i++)
		if (tree[i].func == INNER && tree[i].calls &&
		    tree[tree[i].parent].func == OUTER && tree[i].parent)
			under_outer++;
	assert_int_equal(under_outer, 1);
	ot_pair_finish(p);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	ot_pair_free(p);
}

/*
 * Exact streams (inject): a call at the SP of an open one means that one is
 * gone (longjmp'd over, or unwound by an exception), never a duplicate;
 * an entry flagged a tail call nests under the frame it replaced.
 */
static void test_exact_stream(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	struct ot_event tail = { .sp = 0x6fc0, .tid = 1, .func = INNER, .kind = OT_EV_ENTRY,
				 .flags = OT_EV_TAIL_ENTRY };

	(void)state;
	ot_pair_set_exact(p);
	/* outer -> middle, middle leaves by longjmp; outer calls middle again
	 * from the same place: the first middle is unclosed, not a duplicate,
	 * and the second is at depth 1. */
	ent(p, 1, OUTER, 0x7000);
	ent(p, 1, MIDDLE, 0x6fc0);
	ent(p, 1, MIDDLE, 0x6fc0);
	ret(p, 1, MIDDLE, 0x6fc0);
	/* middle tail-calls inner: both end with one return slot. */
	ent(p, 1, MIDDLE, 0x6fc0);
	tail.time = clock_ns += 10;
	ot_pair_feed(p, &tail);
	ret(p, 1, INNER, 0x6fc0);
	ret(p, 1, MIDDLE, 0x6fc0);
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(S(p, MIDDLE)->scopes, 2);
	assert_int_equal(S(p, MIDDLE)->duplicates, 0);
	assert_int_equal(S(p, MIDDLE)->unclosed, 1);
	assert_int_equal(S(p, MIDDLE)->depths[1], 2);
	assert_int_equal(S(p, INNER)->scopes, 1);
	assert_int_equal(S(p, INNER)->depths[2], 1);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	assert_int_equal(S(p, OUTER)->unclosed + S(p, INNER)->unclosed + S(p, OUTER)->orphans +
			 S(p, MIDDLE)->orphans + S(p, INNER)->orphans, 0);
	ot_pair_free(p);
}

/*
 * An exact stream whose functions' returns are seen at return
 * instructions (inject where a runtime walks the stacks): an entry at an
 * open call's SP may be a tail call (OT_EV_MAY_TAIL) and nests under it;
 * the callee's `ret` ends both, the caller's tail return then finds
 * nothing; a function called again at its own SP is one call (the
 * uprobe backends' duplicate).
 */
static void test_exact_stream_exits(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	struct ot_event e = { .tid = 1, .kind = OT_EV_ENTRY, .flags = OT_EV_MAY_TAIL };

	(void)state;
	ot_pair_set_exact(p);
	e.func = OUTER, e.sp = 0x7000, e.time = clock_ns += 10;
	ot_pair_feed(p, &e);
	e.func = MIDDLE, e.sp = 0x6fc0, e.time = clock_ns += 10;
	ot_pair_feed(p, &e);
	e.func = INNER, e.sp = 0x6fc0, e.time = clock_ns += 10;	/* middle's tail call */
	ot_pair_feed(p, &e);
	ret_flags(p, 1, INNER, 0x6fc0, OT_EV_RET_INSN);
	ret_flags(p, 1, MIDDLE, 0x6fc0, OT_EV_RET_INSN | OT_EV_RET_TAIL);
	ret_flags(p, 1, OUTER, 0x7000, OT_EV_RET_INSN);
	ot_pair_finish(p);
	assert_int_equal(S(p, MIDDLE)->scopes, 1);
	assert_int_equal(S(p, INNER)->scopes, 1);
	assert_int_equal(S(p, INNER)->depths[2], 1);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	assert_int_equal(S(p, OUTER)->unclosed + S(p, MIDDLE)->unclosed + S(p, INNER)->unclosed +
			 S(p, OUTER)->orphans + S(p, MIDDLE)->orphans + S(p, INNER)->orphans, 0);
	ot_pair_free(p);
}

/*
 * Keyed scopes nest by key whatever their SPs: recursion is a frame per
 * entry (bcc's ucalls keeps one timestamp per (thread, method), so the
 * inner call overwrites the outer's start), each closed at its own depth
 * with its own duration.
 */
static void test_keyed_recursion_nests(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	const struct ot_func_stats *s;

	(void)state;
	clock_ns = 0;
	kev(p, 1, OUTER, OT_EV_ENTRY);		/* t 10 */
	kev(p, 1, OUTER, OT_EV_ENTRY);		/* t 20 */
	kev(p, 1, OUTER, OT_EV_ENTRY);		/* t 30 */
	kev(p, 1, OUTER, OT_EV_RETURN);		/* t 40: 10 ns at depth 2 */
	kev(p, 1, OUTER, OT_EV_RETURN);		/* t 50: 30 ns at depth 1 */
	kev(p, 1, OUTER, OT_EV_RETURN);		/* t 60: 50 ns at depth 0 */
	ot_pair_finish(p);
	s = S(p, OUTER);
	assert_int_equal(s->scopes, 3);
	assert_int_equal(ot_func_stats_depth(s, 0), 1);
	assert_int_equal(ot_func_stats_depth(s, 1), 1);
	assert_int_equal(ot_func_stats_depth(s, 2), 1);
	assert_int_equal(s->hist.min, 10);
	assert_int_equal(s->hist.max, 50);
	assert_int_equal(s->unclosed + s->orphans + s->skipped, 0);
	ot_pair_free(p);
}

/* A return whose key is below the innermost open scope closes it and
 * skips those above; one with none open is an orphan. */
static void test_keyed_skipped_and_orphans(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	kev(p, 1, OUTER, OT_EV_ENTRY);
	kev(p, 1, MIDDLE, OT_EV_ENTRY);
	kev(p, 1, INNER, OT_EV_ENTRY);
	kev(p, 1, OUTER, OT_EV_RETURN);		/* middle and inner skipped */
	kev(p, 1, INNER, OT_EV_RETURN);		/* none open: an orphan */
	kev(p, 2, OUTER, OT_EV_RETURN);		/* another thread's: an orphan */
	ot_pair_finish(p);
	assert_int_equal(S(p, OUTER)->scopes, 1);
	assert_int_equal(S(p, OUTER)->orphans, 1);
	assert_int_equal(S(p, MIDDLE)->skipped, 1);
	assert_int_equal(S(p, INNER)->skipped, 1);
	assert_int_equal(S(p, INNER)->orphans, 1);
	assert_int_equal(S(p, MIDDLE)->scopes + S(p, INNER)->scopes, 0);
	ot_pair_free(p);
}

/* A runtime's scope inside a traced C call, and a C call inside it: one
 * tree, the keyed scope one deeper than its caller. */
static void test_keyed_inside_ordinary(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);

	(void)state;
	ent(p, 1, OUTER, 0x7000);
	kev(p, 1, MIDDLE, OT_EV_ENTRY);
	ent(p, 1, INNER, 0x6f00);
	ret(p, 1, INNER, 0x6f00);
	kev(p, 1, MIDDLE, OT_EV_RETURN);
	ret(p, 1, OUTER, 0x7000);
	ot_pair_finish(p);
	assert_int_equal(ot_func_stats_depth(S(p, OUTER), 0), 1);
	assert_int_equal(ot_func_stats_depth(S(p, MIDDLE), 1), 1);
	assert_int_equal(ot_func_stats_depth(S(p, INNER), 2), 1);
	assert_int_equal(S(p, OUTER)->unclosed + S(p, MIDDLE)->unclosed + S(p, INNER)->unclosed, 0);
	ot_pair_free(p);
}

/* A Go function's event: goroutine g of process pid, on thread tid, its
 * SP a distance below the goroutine stack's top (lib/symbols/gobin). */
static void gev(struct ot_pair *p, uint32_t pid, uint32_t tid, uint64_t g, uint32_t f,
		uint64_t down, int kind)
{
	struct ot_event ev = { .time = clock_ns += 10, .sp = (1ull << 62) - down, .tid = tid,
			       .pid = pid, .key = g, .func = f, .kind = (uint8_t)kind };

	ot_pair_feed(p, &ev);
}

/*
 * Goroutines: two interleaved on one thread, one moving to another
 * thread mid-call, calls paired by goroutine; a frame larger than a
 * thread stack's window between caller and callee (Go's stacks grow to
 * 1 GB) still nests; a call a panic left (recovered by its caller, which
 * returns) unclosed at once; the same g in two processes is two
 * goroutines; threads counted by their tids.
 */
static void test_goroutines(void **state)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	const uint64_t g1 = 0xc000001000ull, g2 = 0xc000002000ull;

	(void)state;
	gev(p, 9, 100, g1, OUTER, 0x100, OT_EV_ENTRY);
	gev(p, 9, 100, g2, OUTER, 0x100, OT_EV_ENTRY);	/* same distance, other goroutine */
	gev(p, 9, 100, g1, MIDDLE, 0x200, OT_EV_ENTRY);
	gev(p, 9, 101, g1, INNER, 0x200 + (1 << 20), OT_EV_ENTRY);	/* moved; 1 MB frame */
	gev(p, 9, 101, g1, INNER, 0x200 + (1 << 20), OT_EV_RETURN);
	gev(p, 9, 100, g2, OUTER, 0x100, OT_EV_RETURN);
	gev(p, 9, 101, g1, MIDDLE, 0x200, OT_EV_RETURN);
	/* g1's outer calls middle, which calls inner, which panics; middle
	 * recovers and returns: inner never does. */
	gev(p, 9, 101, g1, MIDDLE, 0x200, OT_EV_ENTRY);
	gev(p, 9, 101, g1, INNER, 0x300, OT_EV_ENTRY);
	gev(p, 9, 101, g1, MIDDLE, 0x200, OT_EV_RETURN);
	assert_int_equal(S(p, INNER)->unclosed, 1);
	gev(p, 9, 101, g1, OUTER, 0x100, OT_EV_RETURN);
	/* Inner panics twice from an untraced caller, which recovers: the
	 * second call at the first's SP is a call, not the first twice. */
	gev(p, 9, 101, g1, INNER, 0x300, OT_EV_ENTRY);
	gev(p, 9, 101, g1, INNER, 0x300, OT_EV_ENTRY);
	gev(p, 9, 101, g1, INNER, 0x300, OT_EV_ENTRY);
	gev(p, 9, 101, g1, INNER, 0x300, OT_EV_RETURN);
	/* The same g in another process. */
	gev(p, 10, 200, g1, OUTER, 0x100, OT_EV_ENTRY);
	gev(p, 10, 200, g1, OUTER, 0x100, OT_EV_RETURN);
	ot_pair_finish(p);
	assert_int_equal(S(p, OUTER)->scopes, 3);
	assert_int_equal(S(p, OUTER)->depths[0], 3);
	assert_int_equal(S(p, MIDDLE)->scopes, 2);
	assert_int_equal(S(p, MIDDLE)->depths[1], 2);
	assert_int_equal(S(p, INNER)->scopes, 2);
	assert_int_equal(S(p, INNER)->depths[2], 1);
	assert_int_equal(S(p, INNER)->depths[0], 1);
	assert_int_equal(S(p, INNER)->unclosed, 3);
	assert_int_equal(S(p, OUTER)->orphans + S(p, MIDDLE)->orphans + S(p, INNER)->orphans, 0);
	assert_int_equal(S(p, OUTER)->unclosed + S(p, MIDDLE)->unclosed, 0);
	assert_int_equal(S(p, OUTER)->duplicates + S(p, MIDDLE)->duplicates +
			 S(p, INNER)->duplicates, 0);
	assert_int_equal(ot_pair_goroutines(p), 3);
	assert_int_equal(ot_pair_threads(p), 3);
	ot_pair_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_depths_and_durations),
		cmocka_unit_test(test_orphan_return),
		cmocka_unit_test(test_uretprobe_switch),
		cmocka_unit_test(test_unclosed_at_end),
		cmocka_unit_test(test_duplicate_entry_dropped),
		cmocka_unit_test(test_duplicate_return_dropped),
		cmocka_unit_test(test_recursion_same_function_is_not_duplicate),
		cmocka_unit_test(test_same_sp_reentry_is_duplicate),
		cmocka_unit_test(test_heals_by_higher_sp),
		cmocka_unit_test(test_return_skips_unreturned_callees),
		cmocka_unit_test(test_interleaved_threads),
		cmocka_unit_test(test_many_threads_grow_table),
		cmocka_unit_test(test_fiber_moves_between_threads),
		cmocka_unit_test(test_uretprobe_limit),
		cmocka_unit_test(test_outside_parent_counted),
		cmocka_unit_test(test_lost_events_counted),
		cmocka_unit_test(test_compensation),
		cmocka_unit_test(test_scope_spanning_loss_kept_out_of_durations),
		cmocka_unit_test(test_call_tree_and_scope_hook),
		cmocka_unit_test(test_scope_hook_minimum),
		cmocka_unit_test(test_tail_call_nests),
		cmocka_unit_test(test_longjmp_unwinds),
		cmocka_unit_test(test_ret_insn_closes_tail_callers),
		cmocka_unit_test(test_tail_caller_survives_unwind),
		cmocka_unit_test(test_tail_callee_return),
		cmocka_unit_test(test_fibers_pair_per_stack),
		cmocka_unit_test(test_stale_frames_stay_aside),
		cmocka_unit_test(test_exact_stream),
		cmocka_unit_test(test_exact_stream_exits),
		cmocka_unit_test(test_keyed_recursion_nests),
		cmocka_unit_test(test_keyed_skipped_and_orphans),
		cmocka_unit_test(test_keyed_inside_ordinary),
		cmocka_unit_test(test_goroutines),
	};

	return cmocka_run_group_tests_name("pair", tests, NULL, NULL);
}
