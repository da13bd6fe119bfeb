/*
 * fuzz_reloc.c - the relocator's differential fuzzer, long runs and
 * reproductions: `make fuzz-reloc FUZZ_RELOC_N=10000000`, or
 * build/fuzz_reloc --seed S --first I -n 1 -v for one failing sequence.
 * Prints what was moved and refused (by reason) and the wall time; exits
 * 1 if any sequence failed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/fuzz/reloc_diff.h"

static int number(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end;
}

static void report(const struct rd_stats *st, double secs)
{
	uint64_t refused = 0;
	int r;

	for (r = 0; r < RR_N; r++)
		refused += st->refused[r];
	printf("sequences  %" PRIu64 "\n", st->sequences);
	printf("moved      %" PRIu64 ", with in the patch: a call %" PRIu64
	       ", a RIP-relative operand %" PRIu64 ", a relative branch %" PRIu64
	       " (%" PRIu64 " leaving the function); after endbr64 %" PRIu64 "\n",
	       st->relocated, st->moved_call, st->moved_rip, st->moved_branch, st->moved_out,
	       st->endbr);
	printf("           elsewhere: a branch back to the patch %" PRIu64
	       ", a branch to its first byte after %" PRIu64 "\n", st->to_entry, st->to_tail);
	printf("  runs     same exit %" PRIu64 ", same fault %" PRIu64 " (%" PRIu64
	       " at a moved indirect call, after its push), neither finished %" PRIu64
	       " (%" PRIu64 " pairs redone single-stepped)\n",
	       st->exits, st->faults, st->pushed_faults, st->unfinished, st->stepped);
	printf("  not compared (outside the contract): %" PRIu64 " whose original jumped into the "
	       "patched bytes indirectly, %" PRIu64 " whose bytes the CPU reads otherwise than "
	       "capstone\n", st->jumped_inside, st->misread);
	printf("refused    %" PRIu64 "\n", refused);
	for (r = 0; r < RR_N; r++)
		if (st->refused[r])
			printf("  %10" PRIu64 "  %s\n", st->refused[r], rd_reason_text(r));
	printf("failures   %" PRIu64 "\n", st->failures);
	printf("wall time  %.1f s\n", secs);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'n' }, { "seed", required_argument, NULL, 's' },
		{ "first", required_argument, NULL, 'f' }, { "jobs", required_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },	   { NULL, 0, NULL, 0 },
	};
	uint64_t count = 100000, seed = 1, first = 0, jobs = 1;
	struct timespec t0, t1;
	struct rd_stats st;
	int c, flags = 0;
	long failures;

	while ((c = getopt_long(argc, argv, "n:s:f:j:v", longopts, NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case 'n': bad = number(optarg, &count); break;
		case 's': bad = number(optarg, &seed); break;
		case 'f': bad = number(optarg, &first); break;
		case 'j': bad = number(optarg, &jobs) || !jobs || jobs > 64; break;
		case 'v': flags |= RD_VERBOSE; break;
		default: bad = 1; break;
		}
		if (bad) {
			fprintf(stderr, "usage: fuzz_reloc [-n COUNT] [--seed S] [--first I] "
					"[-j JOBS] [-v]\n");
			return 2;
		}
	}
	if (count >= 100000)
		flags |= RD_PROGRESS;
	printf("reloc-diff: seed %#" PRIx64 ", sequences %" PRIu64 "..%" PRIu64 ", %" PRIu64
	       " worker(s)\n", seed, first, first + count - 1, jobs);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	failures = rd_run(seed, first, count, (int)jobs, flags, stdout, &st);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (failures < 0) {
		fprintf(stderr, "fuzz_reloc: %s\n", strerror((int)-failures));
		return 1;
	}
	report(&st, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return failures ? 1 : 0;
}
