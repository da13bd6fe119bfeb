/*
 * agg-cost.c - what a hit would cost inject's runtime if it aggregated
 * (issue 33) instead of writing records, measured in C on the stress
 * tree's shape (outer > 2 middle > 3 inner each): per call, (a) today's
 * two 16-byte records into a ring, (b) the tables: the call tree's node
 * found from its parent's (a hash on parent and function), the entry's
 * time and node kept on a shadow stack, and at the return the duration in
 * ns (fixed-point from ticks), its log-linear bucket (lib/scopes/hist.h's)
 * in a chunk per octave allocated at first use, the node's calls, total
 * and its parent's child time, and the longest calls' threshold;
 * (c) the two rdtsc alone.  Prints ns per hit for each (the thread's CPU
 * time), and (a) and (b) over one rdtsc.  A sketch of the design's cost, not the runtime: it
 * tells whether the tables fit issue 33's 2.5 x rdtsc a hit.
 * Usage: cc -O2 -o agg-cost scripts/agg-cost.c && ./agg-cost [outer calls]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#define SUB_BITS 6
#define SUB (1u << SUB_BITS)
#define NODES 4096
#define RING (1u << 20)

struct node {
	uint64_t calls, total_ns, child_ns;
	uint32_t func, parent;
	uint32_t *octave[64];	/* 64 u32 buckets each, allocated at first use */
};

struct frame {
	uint64_t t0;
	uint32_t node;
};

static struct node nodes[NODES];
static uint32_t nnodes = 1, hash[NODES * 2];
static struct frame stack[64];
static int depth;
static uint64_t ring[RING * 2], head, mult, longest_min, sink;
static unsigned shift = 20;

static uint32_t child(uint32_t parent, uint32_t func)
{
	uint32_t h = (parent * 0x9e3779b1u ^ func) & (NODES * 2 - 1), n;

	while ((n = hash[h])) {
		if (nodes[n].parent == parent && nodes[n].func == func)
			return n;
		h = (h + 1) & (NODES * 2 - 1);
	}
	n = nnodes++;
	nodes[n].func = func;
	nodes[n].parent = parent;
	hash[h] = n;
	return n;
}

static inline void agg_entry(uint32_t func)
{
	uint32_t parent = depth ? stack[depth - 1].node : 0;

	stack[depth].node = child(parent, func);
	stack[depth++].t0 = __rdtsc();
}

static inline void agg_return(void)
{
	struct frame *f = &stack[--depth];
	struct node *n = &nodes[f->node];
	uint64_t ns = ((__rdtsc() - f->t0) * mult) >> shift;
	unsigned e, b;

	if (ns < SUB) {
		e = 0;
		b = (unsigned)ns;
	} else {
		e = 64u - SUB_BITS - (unsigned)__builtin_clzll(ns);
		b = (unsigned)(ns >> (e - 1)) - SUB;
	}
	if (!n->octave[e])
		n->octave[e] = calloc(SUB, sizeof(uint32_t));
	n->octave[e][b]++;
	n->calls++;
	n->total_ns += ns;
	if (depth)
		nodes[stack[depth - 1].node].child_ns += ns;
	if (ns > longest_min)
		longest_min = ns;	/* stands for the N longest's insertion, rare */
}

static inline void rec(uint64_t word)
{
	uint64_t i = head & (RING - 1);

	ring[2 * i] = __rdtsc();
	ring[2 * i + 1] = word;
	head++;
}

static inline void rec_entry(uint32_t func)
{
	rec((uint64_t)depth << 16 | func);
	depth++;
}

static inline void rec_return(void)
{
	depth--;
	rec((uint64_t)depth << 16 | 1 << 14);
}

static inline void bare_entry(void)
{
	sink += __rdtsc();
}

#define TREE(ENTRY, RETURN)                                   \
	do {                                                  \
		ENTRY(1);                                     \
		for (int m = 0; m < 2; m++) {                 \
			ENTRY(2);                             \
			for (int k = 0; k < 3; k++) {         \
				ENTRY(3);                     \
				RETURN;                       \
			}                                     \
			RETURN;                               \
		}                                             \
		RETURN;                                       \
	} while (0)

/* The thread's CPU time: the neighbours on a loaded machine stretch wall time. */
static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

#define BARE_E(f) bare_entry()
#define BARE_R bare_entry()

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000, i;
	double t, per[3], hits = (double)n * 9 * 2, tsc0;
	uint64_t c0;

	/* Ticks to ns in fixed point, as the tracer would hand it over. */
	c0 = __rdtsc();
	tsc0 = mono();
	while (mono() - tsc0 < 1e8)
		;
	mult = (uint64_t)((mono() - tsc0) / (double)(__rdtsc() - c0) * (1 << shift));
	for (int pass = 0; pass < 2; pass++) {	/* the first warms up */
		t = now();
		for (i = 0; i < n; i++)
			TREE(rec_entry, rec_return());
		per[0] = (now() - t) / hits;
		t = now();
		for (i = 0; i < n; i++)
			TREE(agg_entry, agg_return());
		per[1] = (now() - t) / hits;
		t = now();
		for (i = 0; i < n; i++)
			TREE(BARE_E, BARE_R);
		per[2] = (now() - t) / hits;
	}
	printf("hits %.0f: ns/hit records %.2f, tables %.2f, rdtsc %.2f; x rdtsc: records %.2f, tables %.2f"
	       " (nodes %u, calls at the root's first child %lu)\n",
	       hits, per[0], per[1], per[2], per[0] / per[2], per[1] / per[2], nnodes - 1,
	       (unsigned long)nodes[1].calls);
	return (int)(sink & 0) + (int)(ring[0] & 0);
}
