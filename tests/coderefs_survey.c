/*
 * coderefs_survey - what lib/symbols/coderefs says about every USDT site
 * of the files named: the patched range (the site's nop and the whole
 * instructions after it up to 5 bytes, decoded with capstone), in the
 * function part its FDE bounds, and which checks refuse it.  A measuring
 * tool, not a test: `build/coderefs_survey /usr/bin/php8.2 ...`.
 */
#include "lib/symbols/coderefs.h"
#include "lib/symbols/usdt.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NBITS 9

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The end of the patched bytes at lo: 0 with *hi, or -1. */
static int patch_end(csh cs, const char *path, uint64_t lo, uint64_t *hi)
{
	uint8_t buf[32];
	const uint8_t *p = buf;
	size_t left;
	uint64_t a = lo;
	cs_insn *insn = cs_malloc(cs);
	int n = ot_usdt_file_read(path, lo, (char *)buf, sizeof(buf)), ret = -1;

	if (n <= 0 || buf[0] != 0x90)
		goto out;
	left = (size_t)n;
	while (a - lo < 5 && cs_disasm_iter(cs, &p, &left, &a, insn))
		;
	if (a - lo >= 5) {
		*hi = a;
		ret = 0;
	}
out:
	cs_free(insn, 1);
	return ret;
}

static void survey(csh cs, const char *path)
{
	struct ot_coderefs *r;
	struct ot_usdt_notes notes;
	unsigned finds[NBITS] = { 0 }, first[NBITS] = { 0 }, only[NBITS] = { 0 };
	unsigned sites = 0, refused = 0, odd = 0;
	char why[512];
	double t0 = now(), t1;
	size_t i, j;
	int k;

	if (ot_coderefs_open(path, &r, why, sizeof(why))) {
		printf("%s: %s\n", path, why);
		return;
	}
	t1 = now();
	if (ot_usdt_read(path, &notes)) {
		printf("%s: no USDT notes read\n", path);
		ot_coderefs_free(r);
		return;
	}
	printf("== %s: opened in %.3f s\n", path, t1 - t0);
	for (i = 0; i < notes.n; i++) {
		const struct ot_usdt_probe *p = &notes.probe[i];

		for (j = 0; j < p->nsites; j++) {
			uint64_t lo = p->sites[j].vaddr, hi, flo, fhi;
			unsigned w;
			int ret;

			sites++;
			if (patch_end(cs, path, lo, &hi)) {
				printf("  %s:%s 0x%llx: not a nop\n", p->provider, p->name,
				       (unsigned long long)lo);
				odd++;
				continue;
			}
			if (ot_coderefs_fde(r, lo, &flo, &fhi)) {
				flo = lo;
				fhi = hi;
			}
			ret = ot_coderefs_inside(r, flo, fhi, lo, hi, why, sizeof(why));
			w = ot_coderefs_which(r, flo, fhi, lo, hi);
			printf("  %s:%s [0x%llx,0x%llx) in [0x%llx,0x%llx): %s", p->provider, p->name,
			       (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)flo,
			       (unsigned long long)fhi, ret ? "REFUSED" : "ok");
			for (k = 0; k < NBITS; k++)
				if (w & (1u << k))
					printf(" %s", ot_coderef_name(1u << k));
			printf("%s%s\n", ret ? ": " : "", ret ? why : "");
			refused += !!ret;
			for (k = 0; k < NBITS; k++) {
				finds[k] += !!(w & (1u << k));
				only[k] += w == (1u << k);
			}
			if (w)
				first[__builtin_ctz(w)]++;
		}
	}
	printf("  %u sites, %u refused, %u not a nop\n", sites, refused, odd);
	for (k = 0; k < NBITS; k++)
		if (finds[k])
			printf("  %-11s finds %u, decides %u, alone %u\n", ot_coderef_name(1u << k),
			       finds[k], first[k], only[k]);
	ot_usdt_free(&notes);
	ot_coderefs_free(r);
}

int main(int argc, char **argv)
{
	csh cs;
	int i;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 1;
	for (i = 1; i < argc; i++)
		survey(cs, argv[i]);
	cs_close(&cs);
	return 0;
}
