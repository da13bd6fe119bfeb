/*
 * libFuzzer target: ring reading, record decoding, the time merge and the
 * pairing on arbitrary bytes.  The first part of the input is laid out as
 * a ring's data area (head at its end, tail anywhere); every record read
 * goes through the drain into the pairing, then into the reports.  Both
 * sample layouts (perf backend, multi backend) are decoded.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/bpf_record.h"
#include "lib/report/check.h"
#include "lib/rings/drain.h"
#include "lib/util/error.h"
#include "lib/scopes/pair.h"
#include "lib/report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAGE 4096
#define RING 4096
#define NFUNCS 4

static int lookup(void *ctx, uint64_t id, uint32_t *func, int *kind)
{
	(void)ctx;
	if (id >= 3 * NFUNCS)
		return -1;
	*func = (uint32_t)(id / 3);
	*kind = (int)(id % 3);
	return 0;
}

static void feed(void *ctx, const struct ot_event *ev)
{
	ot_pair_feed(ctx, ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char mem[PAGE + RING] __attribute__((aligned(8)));
	static const char *const names[NFUNCS] = { "a", "b", "c", "d" };
	const struct ot_func_stats *st[NFUNCS];
	struct ot_pair *p = ot_pair_new(NFUNCS);
	struct ot_drain *d = ot_drain_new(2, 0, lookup, NULL, feed, p);
	struct ot_report_func fn[NFUNCS];
	struct ot_expect exp[] = { { "a", 3, -1 } };
	struct ot_report r;
	struct ot_check c;
	struct ot_ring ring;
	size_t n = size < RING ? size : RING, i;
	FILE *null = fopen("/dev/null", "w");

	ot_error_set_verbosity(-2);
	memset(mem, 0, sizeof(mem));
	ot_ring_init(&ring, mem, PAGE, RING);
	/* Either backend's sample layout, picked by a byte past the ring. */
	ring.decode = size > RING + 1 && (data[RING + 1] & 2) ? ot_record_parse_bpf : NULL;
	memcpy(ring.data, data, n);
	/* A tail a little into the data makes wrapped records too. */
	ring.meta->data_tail = size > RING ? data[RING] & 0xf8 : 0;
	ring.meta->data_head = RING + (n & ~7ul) - (size > RING ? RING : 0);
	if (ring.meta->data_head < ring.meta->data_tail)
		ring.meta->data_head = ring.meta->data_tail;
	ot_drain_ring(d, size > RING + 1 ? data[RING + 1] & 1 : 0, &ring);
	ot_drain_flush(d, UINT64_MAX);
	ot_pair_finish(p);

	memset(&r, 0, sizeof(r));
	memset(fn, 0, sizeof(fn));
	for (i = 0; i < NFUNCS; i++) {
		st[i] = ot_pair_stats(p, i);
		fn[i].name = names[i];
		fn[i].binary = "fuzz";
		fn[i].st = st[i];
	}
	ot_check_run(&c, NFUNCS, NFUNCS, names, st, exp, 1, 1, ot_drain_stats(d)->lost, 1, NULL);
	r.binary = "fuzz";
	r.ended_by = "fuzz";
	r.records.samples = ot_drain_stats(d)->samples;
	r.records.lost = ot_drain_stats(d)->lost;
	r.records.malformed = ot_drain_stats(d)->malformed;
	r.records.late = ot_drain_stats(d)->late;
	r.nfuncs = NFUNCS;
	r.funcs = fn;
	r.check = &c;
	r.has_expect = 1;
	r.tree = ot_pair_tree(p, &r.ntree);
	r.names = names;
	r.draw_hist = 1;
	if (null) {
		ot_report_text(null, &r);
		ot_report_json(null, &r);
		fclose(null);
	}
	ot_check_free(&c);
	ot_ring_fini(&ring);
	ot_drain_free(d);
	ot_pair_free(p);
	return 0;
}
