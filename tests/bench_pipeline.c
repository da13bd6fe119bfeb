/*
 * Microbenchmark of the user-space pipeline, ring -> records -> time merge
 * -> pairing -> histograms, on synthetic rings shaped like the stress
 * program's (2 threads, outer > 2 middle > 3 inner, one ring per thread).
 * Prints ns per record.  Not a test: scripts/bench.py reports the tracer's
 * CPU per record end to end; this isolates what orbit-trace itself spends.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/drain.h"
#include "lib/pair.h"

#define PAGE 4096
#define RING (1u << 22)

static int lookup(void *ctx, uint64_t id, uint32_t *func, int *kind)
{
	(void)ctx;
	*func = (uint32_t)(id / 2);
	*kind = (int)(id & 1);
	return id < 6 ? 0 : -1;
}

static void feed(void *ctx, const struct ot_event *ev)
{
	ot_pair_feed(ctx, ev);
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

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(void)
{
	unsigned char *mem[2];
	struct ot_ring ring[2];
	struct ot_pair *p = ot_pair_new(3);
	struct ot_drain *d = ot_drain_new(2, 7, lookup, NULL, feed, p);
	uint64_t t = 1, total = 0, ns = 0;
	size_t off[2] = { 0, 0 };
	int round, c, k, m, i;

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

			for (k = 0; k < 500; k++) {
				off[c] = put(ring[c].data, off[c], 0, 100 + c, tc++, 0x7000);
				for (m = 0; m < 2; m++) {
					off[c] = put(ring[c].data, off[c], 2, 100 + c, tc++, 0x6fc0);
					for (i = 0; i < 3; i++) {
						off[c] = put(ring[c].data, off[c], 4, 100 + c, tc++, 0x6f80);
						off[c] = put(ring[c].data, off[c], 5, 100 + c, tc++, 0x6f80 + OT_RET_SP_DELTA);
					}
					off[c] = put(ring[c].data, off[c], 3, 100 + c, tc++, 0x6fc0 + OT_RET_SP_DELTA);
				}
				off[c] = put(ring[c].data, off[c], 1, 100 + c, tc++, 0x7000 + OT_RET_SP_DELTA);
			}
			__atomic_store_n(&ring[c].meta->data_head, off[c], __ATOMIC_RELEASE);
		}
		t += 500 * 18;
		t0 = now();
		for (c = 0; c < 2; c++)
			total += ot_drain_ring(d, (unsigned)c, &ring[c]);
		ot_drain_flush(d, t);
		ns += now() - t0;
	}
	ot_drain_flush(d, UINT64_MAX);
	ot_pair_finish(p);
	printf("%llu records, %.1f ns per record (ring read, merge, pairing, histograms); "
	       "outer scopes %llu, unclosed %llu, orphans %llu, dup %llu, late %llu\n",
	       (unsigned long long)total, (double)ns / (double)total,
	       (unsigned long long)ot_pair_stats(p, 0)->scopes,
	       (unsigned long long)ot_pair_stats(p, 0)->unclosed,
	       (unsigned long long)ot_pair_stats(p, 0)->orphans,
	       (unsigned long long)ot_pair_stats(p, 0)->duplicates,
	       (unsigned long long)ot_drain_stats(d)->late);
	return 0;
}
