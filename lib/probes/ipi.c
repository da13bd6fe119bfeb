/*
 * ipi.c - what arming costs the machine: the CAL and TLB rows of
 * /proc/interrupts summed over CPUs, before and after (ipi.h).
 */
#include "ipi.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The numbers after "NAME:" up to the first word that is not one. */
static uint64_t row_sum(const char *line)
{
	const char *p = strchr(line, ':');
	uint64_t sum = 0;
	char *end;

	if (!p)
		return 0;
	for (p++;;) {
		unsigned long long v;

		while (*p == ' ' || *p == '\t')
			p++;
		v = strtoull(p, &end, 10);
		if (end == p)
			return sum;
		sum += v;
		p = end;
	}
}

void ot_ipi_parse(const char *text, struct ot_ipi *out)
{
	const char *line = text;

	memset(out, 0, sizeof(*out));
	while (line && *line) {
		const char *p = line;

		while (*p == ' ')
			p++;
		if (!strncmp(p, "CAL:", 4))
			out->cal = row_sum(p);
		else if (!strncmp(p, "TLB:", 4))
			out->tlb = row_sum(p);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

int ot_ipi_read(struct ot_ipi *out)
{
	FILE *f = fopen("/proc/interrupts", "re");
	size_t cap = 1 << 16, n = 0, got;
	char *buf;

	memset(out, 0, sizeof(*out));
	if (!f)
		return -errno;
	buf = ot_xmalloc(cap);
	while ((got = fread(buf + n, 1, cap - 1 - n, f)) > 0) {
		n += got;
		if (n == cap - 1) {
			cap *= 2;
			buf = ot_xreallocarray(buf, cap, 1);
		}
	}
	buf[n] = 0;
	fclose(f);
	ot_ipi_parse(buf, out);
	free(buf);
	return 0;
}
