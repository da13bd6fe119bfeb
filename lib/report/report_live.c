/*
 * What is printed while the capture runs: -I's interval blocks and
 * --slower-than's lines, as text or as NDJSON lines each with its "type".
 */
#include "report_priv.h"
#include "json.h"
#include "util/escape.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

void ot_report_interval_text(FILE *f, const struct ot_report_interval *iv)
{
	char a[32], b[32], c[32], d[32], e[512];
	size_t i, w = 8;

	/* A row with no name is one kept for a key not seen yet: not shown. */
	for (i = 0; i < iv->nfuncs; i++)
		if (iv->names[i] && strlen(iv->names[i]) > w)
			w = strlen(iv->names[i]);
	if (w > OT_REPORT_NAME_MAX)
		w = OT_REPORT_NAME_MAX;
	fprintf(f, "interval %" PRIu64 ": %s to %s", iv->seq,
		ot_report_duration(iv->start_ns, a, sizeof(a)),
		ot_report_duration(iv->end_ns, b, sizeof(b)));
	if (iv->lost)
		fprintf(f, ", %" PRIu64 " records lost by the kernel", iv->lost);
	fprintf(f, "\n%-*s %10s %9s %9s %9s\n", (int)w, "FUNCTION", "SCOPES", "P50", "P99", "MAX");
	for (i = 0; i < iv->nfuncs; i++) {
		const struct ot_hist *h = &iv->hist[i];
		const char *name;

		if (!iv->names[i])
			continue;
		/* A row's name may be a string the target passed (--lang). */
		name = ot_escape_text_buf(iv->names[i], e, sizeof(e));
		ot_report_cell(f, name, w, 0);
		if (!h->count) {
			fprintf(f, " %10d %9s %9s %9s\n", 0, "-", "-", "-");
			continue;
		}
		fprintf(f, " %10" PRIu64 " %9s %9s %9s\n", h->count,
			ot_report_duration(ot_hist_quantile(h, 0.50), b, sizeof(b)),
			ot_report_duration(ot_hist_quantile(h, 0.99), c, sizeof(c)),
			ot_report_duration(h->max, d, sizeof(d)));
	}
	fputc('\n', f);
}

void ot_report_interval_json(FILE *f, const struct ot_report_interval *iv)
{
	size_t i;
	int first = 1;

	fprintf(f, "{\"type\": \"interval\", \"version\": %d, \"seq\": %" PRIu64
		", \"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64 ", \"lost\": %" PRIu64
		", \"functions\": [", OT_JSON_VERSION, iv->seq, iv->start_ns, iv->end_ns, iv->lost);
	for (i = 0; i < iv->nfuncs; i++) {
		if (!iv->names[i])
			continue;
		fprintf(f, "%s{\"name\": ", first ? "" : ", ");
		first = 0;
		ot_json_string(f, iv->names[i]);
		fprintf(f, ", \"scopes\": %" PRIu64 ", \"duration_ns\": ", iv->hist[i].count);
		ot_report_hist_json(f, &iv->hist[i]);
		fputc('}', f);
	}
	fprintf(f, "]}\n");
}

/* ns since the epoch as the local time of day, HH:MM:SS.uuuuuu, as
 * funcslower -T and strace -tt write it. */
static const char *time_of_day(uint64_t ns, char *buf, size_t len)
{
	time_t sec = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (!localtime_r(&sec, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "?");
	else
		snprintf(buf + strlen(buf), len - strlen(buf), ".%06u",
			 (unsigned)(ns % 1000000000u / 1000u));
	return buf;
}

/* " NAME=" before a value: a parameter's name from the target's DWARF. */
static void value_name(FILE *f, const char *name)
{
	fputc(' ', f);
	ot_escape_text(f, name, 0);
	fputc('=', f);
}

/* What the target controls (its name, its functions' names, its strings)
 * escaped for a terminal (lib/util/escape). */
void ot_report_slow_text(FILE *f, int pid, const char *name, const struct ot_report_slow *s)
{
	char a[32], b[32];
	size_t k;

	fputs("slow: ", f);
	ot_escape_text(f, name, 0);
	fprintf(f, " at %s, pid %d", s->wall_ns ? time_of_day(s->wall_ns, a, sizeof(a)) :
		ot_report_duration(s->at_ns, a, sizeof(a)), pid);
	if (s->comm[0]) {
		fputs(" (", f);
		ot_escape_text(f, s->comm, 0);
		fputc(')', f);
	}
	fprintf(f, " tid %u: %s (", s->tid, ot_report_duration(s->duration_ns, b, sizeof(b)));
	ot_escape_text(f, s->path, 0);
	fputc(')', f);
	if (s->str_name) {
		value_name(f, s->str_name);
		ot_report_text_string(f, s->str, 1);
	}
	if (s->arg_name) {
		value_name(f, s->arg_name);
		fprintf(f, "%" PRId64, s->arg);
	}
	for (k = 0; k < s->nmore; k++) {
		value_name(f, s->more_name[k]);
		fprintf(f, "%" PRId64, s->more[k]);
	}
	if (s->ret_name) {
		value_name(f, s->ret_name);
		fprintf(f, "%" PRId64, s->ret);
	}
	fputc('\n', f);
}

void ot_report_slow_json(FILE *f, int pid, const char *name, const struct ot_report_slow *s)
{
	fprintf(f, "{\"type\": \"slow\", \"version\": %d, \"name\": ", OT_JSON_VERSION);
	ot_json_string(f, name);
	fprintf(f, ", \"at_ns\": %" PRIu64 ", \"duration_ns\": %" PRIu64 ", \"pid\": %d"
		", \"tid\": %u, \"path\": ", s->at_ns, s->duration_ns, pid, s->tid);
	ot_report_path_json(f, s);
	if (s->wall_ns) {
		char t[32];

		fprintf(f, ", \"wall_ns\": %" PRIu64 ", \"time\": \"%s\"", s->wall_ns,
			time_of_day(s->wall_ns, t, sizeof(t)));
	}
	if (s->comm[0]) {
		fprintf(f, ", \"comm\": ");
		ot_json_string(f, s->comm);
	}
	if (s->arg_name || s->ret_name || s->nmore || s->str_name) {
		const char *sep = "";
		size_t k;

		fprintf(f, ", \"values\": {");
		if (s->str_name) {
			ot_json_string(f, s->str_name);
			fputs(": ", f);
			ot_json_string(f, s->str);
			sep = ", ";
		}
		if (s->arg_name) {
			fputs(sep, f);
			ot_json_string(f, s->arg_name);
			fprintf(f, ": %" PRId64, s->arg);
			sep = ", ";
		}
		for (k = 0; k < s->nmore; k++, sep = ", ") {
			fputs(sep, f);
			ot_json_string(f, s->more_name[k]);
			fprintf(f, ": %" PRId64, s->more[k]);
		}
		if (s->ret_name) {
			fputs(sep, f);
			ot_json_string(f, s->ret_name);
			fprintf(f, ": %" PRId64, s->ret);
		}
		fputc('}', f);
	}
	fprintf(f, "}\n");
}
