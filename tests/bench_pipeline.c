/*
 * Microbenchmark of the user-space pipeline, rings -> records -> time
 * merge -> pairing -> histograms -> the per-scope callback, on synthetic
 * rings shaped like the stress program's (outer > 2 middle > 3 inner).
 * Prints ns per record, the median of 5 runs (argv[1]: fewer), for two formats:
 *
 *   perf    the perf backend's samples, one perf ring per thread, the
 *           whole ring drained and merged at once (2 threads);
 *   inject  --backend inject's ring areas as lib/arch/x86_64/inject_rt.S writes them,
 *           read by lib/inject/inject_ring (the backend's own code) with ids
 *           looked up in a probe table as the backend registers them,
 *           TSC ticks converted on a map refitted every 100 ms; paced as
 *           a capture runs: 7 M records/s in all, a drain every 1 ms and
 *           the merge 20 ms behind (1 and 4 threads).
 *
 * Not a test: scripts/bench.py reports the tracer's CPU per record end to
 * end; this isolates what orbit-trace itself spends.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/probes/backend.h"
#include "lib/rings/drain.h"
#include "lib/inject/inject_layout.h"
#include "lib/inject/inject_ring.h"
#include "lib/scopes/pair.h"
#include "lib/rings/tsc.h"

#define PAGE 4096
#define RING (1u << 22)
#define RUNS_MAX 5

/* Runs per figure: argv[1] (1 under valgrind --tool=callgrind), else 5. */
static int runs = RUNS_MAX;

/* CPU time, not wall time: other work on the machine preempts the bench. */
static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * What capture.c does with each event and scope when no option asks for
 * more: the same tests, the same calls, --slowest 5 kept per function
 * (without the kept scopes' path names) and the pairing told which scopes
 * it may skip (capture.c's keep_min).
 */
#define SLOWEST 5
struct sink {
	struct ot_pair *pair;
	uint32_t own_pid;
	void *calib_pair, *timeline, *vals, *ivl;
	int all, follow;
	uint64_t slower_than;
	uint64_t slow[3][SLOWEST];	/* per function, longest first */
	size_t nslow[3];
};

static void feed(void *ctx, const struct ot_event *ev)
{
	struct sink *s = ctx;

	if (s->own_pid && ev->kind != OT_EV_LOST && ev->pid == s->own_pid)
		return;
	if (s->calib_pair && ev->kind != OT_EV_LOST && ev->func == 0)
		return;
	ot_pair_feed(s->pair, ev);
}

static void keep_min(struct sink *s, uint32_t f)
{
	uint64_t min;

	if (s->timeline || s->vals || s->ivl || s->all || s->follow)
		return;
	min = s->nslow[f] < SLOWEST ? 0 : s->slow[f][SLOWEST - 1] + 1;
	if (s->slower_than && s->slower_than < min)
		min = s->slower_than;
	ot_pair_on_scope_min(s->pair, f, min);
}

static void on_scope(void *ctx, const struct ot_scope *sc)
{
	struct sink *s = ctx;
	uint64_t dur = sc->end >= sc->start ? sc->end - sc->start : 0, *v = s->slow[sc->func];
	size_t i;

	if (s->timeline || s->vals || s->ivl || s->all || s->follow)
		abort();
	if (!(s->slower_than && dur >= s->slower_than) &&
	    s->nslow[sc->func] == SLOWEST && dur <= v[SLOWEST - 1]) {
		keep_min(s, sc->func);
		return;
	}
	if (s->nslow[sc->func] < SLOWEST)
		s->nslow[sc->func]++;
	for (i = s->nslow[sc->func] - 1; i > 0 && v[i - 1] < dur; i--)
		v[i] = v[i - 1];
	v[i] = dur;
	keep_min(s, sc->func);
}

static struct ot_pair *new_pair(struct sink *s, int exact)
{
	memset(s, 0, sizeof(*s));
	s->pair = ot_pair_new(3);
	if (exact)
		ot_pair_set_exact(s->pair);
	ot_pair_on_scope(s->pair, on_scope, s);
	return s->pair;
}

static void report(const char *what, uint64_t records, double *ns, struct sink *s,
		   const struct ot_drain *d)
{
	double t;
	int i, j;

	for (i = 0; i < runs; i++)	/* the median */
		for (j = i + 1; j < runs; j++)
			if (ns[j] < ns[i]) {
				t = ns[i];
				ns[i] = ns[j];
				ns[j] = t;
			}
	printf("%-22s %9llu records, %5.1f ns per record (median of %d, %.1f-%.1f); "
	       "outer scopes %llu, unclosed %llu, orphans %llu, late %llu, lost %llu\n",
	       what, (unsigned long long)records, ns[runs / 2], runs, ns[0], ns[runs - 1],
	       (unsigned long long)ot_pair_stats(s->pair, 0)->scopes,
	       (unsigned long long)ot_pair_stats(s->pair, 0)->unclosed,
	       (unsigned long long)ot_pair_stats(s->pair, 0)->orphans,
	       (unsigned long long)ot_drain_stats(d)->late,
	       (unsigned long long)ot_drain_stats(d)->lost);
	fflush(stdout);
}

/* Thread c's stack, 8 MiB from the next as glibc's: the threads of a
 * process never share stack addresses (lib/scopes/pair takes a stack to
 * be the process's). */
#define STACK(c) (0x800000ull * (uint64_t)(c))

/* One outer call, 18 records: {entry?, function, SP}. */
static const struct step {
	int entry;
	uint32_t func;
	uint64_t sp;
} tree[18] = {
	{ 1, 0, 0x7000 },
	{ 1, 1, 0x6fc0 }, { 1, 2, 0x6f80 }, { 0, 2, 0x6f80 }, { 1, 2, 0x6f80 }, { 0, 2, 0x6f80 },
	{ 1, 2, 0x6f80 }, { 0, 2, 0x6f80 }, { 0, 1, 0x6fc0 },
	{ 1, 1, 0x6fc0 }, { 1, 2, 0x6f80 }, { 0, 2, 0x6f80 }, { 1, 2, 0x6f80 }, { 0, 2, 0x6f80 },
	{ 1, 2, 0x6f80 }, { 0, 2, 0x6f80 }, { 0, 1, 0x6fc0 },
	{ 0, 0, 0x7000 },
};

/* The perf backend's sample: ids 0..5 = function * 2 + (uretprobe). */
static int perf_lookup(void *ctx, uint64_t id, uint32_t *func, int *kind)
{
	(void)ctx;
	*func = (uint32_t)(id / 2);
	*kind = (int)(id & 1);
	return id < 6 ? 0 : -1;
}

struct rec {
	struct perf_event_header h;
	uint64_t id;
	uint32_t pid, tid;
	uint64_t time, abi, sp;
};

static size_t put(unsigned char *data, size_t off, uint64_t id, uint32_t tid,
		  uint64_t t, uint64_t sp)
{
	struct rec r = { { PERF_RECORD_SAMPLE, 0, sizeof(r) }, id, 7, tid, t, 2, sp };

	size_t at = off & (RING - 1), first = RING - at < sizeof(r) ? RING - at : sizeof(r);

	/* Records straddle the end of the ring as the kernel's do. */
	memcpy(data + at, &r, first);
	memcpy(data, (char *)&r + first, sizeof(r) - first);
	return off + sizeof(r);
}

/* One drain of both rings (timed; a function of its own for callgrind). */
static __attribute__((noinline)) size_t perf_drain(struct ot_drain *d, struct ot_ring *ring,
						   uint64_t horizon)
{
	size_t n = ot_drain_ring(d, 0, &ring[0]) + ot_drain_ring(d, 1, &ring[1]);

	ot_drain_flush(d, horizon);
	return n;
}

static double perf_run(struct sink *s, struct ot_drain **dp, uint64_t *records)
{
	unsigned char *mem[2];
	struct ot_ring ring[2];
	struct ot_pair *p = new_pair(s, 0);
	struct ot_drain *d = ot_drain_new(2, 7, perf_lookup, NULL, feed, s);
	uint64_t t = 1, total = 0, ns = 0;
	size_t off[2] = { 0, 0 };
	int round, c, k, i;

	for (c = 0; c < 2; c++) {
		mem[c] = aligned_alloc(PAGE, PAGE + RING);
		memset(mem[c], 0, PAGE + RING);
		ot_ring_init(&ring[c], mem[c], PAGE, RING);
	}
	for (round = 0; round < 50; round++) {
		uint64_t t0;

		/* Per thread 500 outer calls: 9,000 records a round per ring. */
		for (c = 0; c < 2; c++) {
			uint64_t tc = t;

			for (k = 0; k < 500; k++)
				for (i = 0; i < 18; i++)
					off[c] = put(ring[c].data, off[c],
						     2 * tree[i].func + !tree[i].entry, 100 + c, tc++,
						     STACK(c) + tree[i].sp +
						     (tree[i].entry ? 0 : OT_RET_SP_DELTA));
			__atomic_store_n(&ring[c].meta->data_head, off[c], __ATOMIC_RELEASE);
		}
		t += 500 * 18;
		t0 = now();
		total += perf_drain(d, ring, t);
		ns += now() - t0;
	}
	perf_drain(d, ring, UINT64_MAX);
	ot_pair_finish(p);
	for (c = 0; c < 2; c++) {
		ot_ring_fini(&ring[c]);
		free(mem[c]);
	}
	*dp = d;
	*records = total;
	return (double)ns / (double)total;
}

#define INJ_RATE_NS	143			/* between records, all threads: 7 M/s */
#define INJ_DRAIN_NS	1000000ull		/* the drain's interval when busy */
#define INJ_SLACK_NS	20000000ull		/* capture.c's MERGE_SLACK_NS */
#define INJ_REFIT_NS	100000000ull		/* backend_inject's REFIT_NS */
#define INJ_ROUNDS	1000			/* 1 s of records */
#define TICKS(ns)	((ns) * 5 / 2)		/* a 2.5 GHz TSC */

/* The runtime's append (lib/arch/x86_64/inject_rt.S rt_emit): the record, then the head. */
static void inj_put(uint8_t *ar, uint64_t mask, uint64_t ticks, uint64_t word)
{
	uint64_t h = *(uint64_t *)(ar + OT_INJ_A_HEAD);
	uint64_t *r = (uint64_t *)(ar + OT_INJ_A_RING + (h & mask) * OT_INJ_REC_SIZE);

	r[0] = ticks;
	r[1] = word;
	__atomic_store_n((uint64_t *)(ar + OT_INJ_A_HEAD), h + 1, __ATOMIC_RELEASE);
}

/*
 * One drain as lib/probes/backend_inject's: the TSC map refitted when due, every
 * area read, the merge flushed up to horizon.  Timed; a function of its
 * own so that callgrind counts it apart from the records' writing.
 */
static __attribute__((noinline)) size_t
inject_drain(struct ot_inject_view *v, uint8_t **ar, unsigned nthreads, struct ot_tsc *tsc,
	     uint64_t *next_fit, struct ot_drain *d, uint64_t t, uint64_t horizon)
{
	uint64_t ring_n = RING / OT_INJ_REC_SIZE;
	size_t n = 0;
	unsigned c;

	if (t >= *next_fit || !ot_tsc_ready(tsc)) {
		ot_tsc_add(tsc, TICKS(t), t);
		*next_fit = t + INJ_REFIT_NS;
	}
	for (c = 0; c < nthreads; c++)
		n += ot_inject_ring_read(&v[c], ar[c], ring_n, tsc, d, t);
	ot_drain_flush(d, horizon);
	return n;
}

static double inject_run(unsigned nthreads, struct sink *s, struct ot_drain **dp,
			 uint64_t *records)
{
	uint64_t ring_n = RING / OT_INJ_REC_SIZE, total = 0, ns = 0, t = INJ_SLACK_NS, next_fit = 0;
	struct ot_drain *d = ot_drain_new(nthreads, 7, perf_lookup, NULL, feed, s);
	struct ot_pair *p = new_pair(s, 1);
	struct ot_inject_view v[8];
	uint8_t *ar[8];
	unsigned c, step[8] = { 0 };
	struct ot_tsc tsc;
	int round;

	/* The records name their function and kind: no probe table. */
	ot_drain_thread_funcs(d, 3);
	/* As lib/probes/backend_inject: a sample at arming, then at every drain
	 * until the map has a slope, then every 100 ms. */
	ot_tsc_init(&tsc);
	ot_tsc_add(&tsc, TICKS(t - INJ_DRAIN_NS), t - INJ_DRAIN_NS);
	for (c = 0; c < nthreads; c++) {
		ar[c] = aligned_alloc(PAGE, OT_INJ_A_RING + RING);
		memset(ar[c], 0, OT_INJ_A_RING + RING);
		memset(&v[c], 0, sizeof(v[c]));
		v[c].tid = 100 + c;
		v[c].pid = 7;
		v[c].queue = c;
	}
	for (round = 0; round < INJ_ROUNDS; round++) {
		uint64_t end = t + INJ_DRAIN_NS, t0;

		/* The threads take turns, one record each. */
		for (c = 0; t < end; t += INJ_RATE_NS, c = (c + 1) % nthreads) {
			const struct step *st = &tree[step[c]];
			unsigned kind = st->entry ? OT_INJ_K_ENTRY : OT_INJ_K_RETURN;

			inj_put(ar[c], ring_n - 1, TICKS(t),
				(uint64_t)(STACK(c) + st->sp) << OT_INJ_W_SP_SHIFT |
				(uint64_t)kind << OT_INJ_W_KIND_SHIFT | st->func);
			step[c] = (step[c] + 1) % 18;
		}
		t0 = now();
		total += inject_drain(v, ar, nthreads, &tsc, &next_fit, d, t, t - INJ_SLACK_NS);
		ns += now() - t0;
	}
	{
		uint64_t t0 = now();

		inject_drain(v, ar, nthreads, &tsc, &next_fit, d, t, UINT64_MAX);
		ns += now() - t0;
	}
	ot_pair_finish(p);
	for (c = 0; c < nthreads; c++)
		free(ar[c]);
	*dp = d;
	*records = total;
	return (double)ns / (double)total;
}

/* Run one format runs times and print its figure. */
static void figure(const char *what, unsigned nthreads)
{
	struct ot_drain *d = NULL;
	struct ot_pair *p = NULL;
	struct sink s;
	uint64_t records = 0;
	double ns[RUNS_MAX];
	int i;

	for (i = 0; i < runs; i++) {
		ot_drain_free(d);
		ot_pair_free(p);
		ns[i] = nthreads ? inject_run(nthreads, &s, &d, &records) : perf_run(&s, &d, &records);
		p = s.pair;
	}
	report(what, records, ns, &s, d);
	ot_drain_free(d);
	ot_pair_free(p);
}

/* bench_pipeline [RUNS [perf|inject1|inject4]]: all three by default. */
int main(int argc, char **argv)
{
	const char *only = argc > 2 ? argv[2] : "";

	if (argc > 1 && atoi(argv[1]) >= 1 && atoi(argv[1]) <= RUNS_MAX)
		runs = atoi(argv[1]);
	if (!*only || !strcmp(only, "perf"))
		figure("perf, 2 threads:", 0);
	if (!*only || !strcmp(only, "inject1"))
		figure("inject, 1 thread:", 1);
	if (!*only || !strcmp(only, "inject4"))
		figure("inject, 4 threads:", 4);
	return 0;
}
