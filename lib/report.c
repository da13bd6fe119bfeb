#include "report.h"

#include <inttypes.h>
#include <string.h>
#include <sys/wait.h>

const char *ot_report_duration(uint64_t ns, char *buf, size_t len)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	double v = (double)ns;
	unsigned u = 0;

	while (u < 3 && v >= 1000) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else
		snprintf(buf, len, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v,
			 unit[u]);
	return buf;
}

static const char *status_of(const struct ot_report *r)
{
	return r->records->lost ? "lossy" : "ok";
}

/* "0" or "1:7998,3:2": every depth at which the function closed a scope. */
static void depths_text(const struct ot_func_stats *s, char *buf, size_t len)
{
	size_t used = 0;
	unsigned d, kinds = 0;

	buf[0] = 0;
	for (d = 0; d < OT_PAIR_DEPTHS; d++)
		kinds += s->depths[d] != 0;
	for (d = 0; d < OT_PAIR_DEPTHS && used < len; d++) {
		int w;

		if (!s->depths[d])
			continue;
		if (kinds == 1)
			w = snprintf(buf + used, len - used, "%u%s", d,
				     d == OT_PAIR_DEPTHS - 1 ? "+" : "");
		else
			w = snprintf(buf + used, len - used, "%s%u%s:%" PRIu64,
				     used ? "," : "", d,
				     d == OT_PAIR_DEPTHS - 1 ? "+" : "",
				     s->depths[d]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (!kinds)
		snprintf(buf, len, "-");
}

void ot_report_text(FILE *f, const struct ot_report *r)
{
	const struct ot_drain_stats *rec = r->records;
	char a[32], b[32], c[32], d[32], depths[128];
	size_t i, w = 8;

	fprintf(f, "orbit-trace report: %s (pid %d)\n", r->binary, r->pid);
	fprintf(f, "armed %zu of %zu functions: %zu uprobes, %zu perf events on %u CPUs, %zu KB ring per CPU\n",
		r->functions_armed, r->functions_requested, r->uprobes,
		r->events, r->cpus, r->ring_kb);
	fprintf(f, "capture: %s, ended by %s", ot_report_duration(r->duration_ns, a, sizeof(a)),
		r->ended_by);
	if (r->target_exited && r->target_status >= 0) {
		if (WIFEXITED(r->target_status))
			fprintf(f, " (exit status %d)", WEXITSTATUS(r->target_status));
		else if (WIFSIGNALED(r->target_status))
			fprintf(f, " (killed by signal %d)", WTERMSIG(r->target_status));
	}
	fprintf(f, "; drained every %u ms\n", r->drain_ms);
	fprintf(f, "records: %" PRIu64 " samples, %" PRIu64 " lost by the kernel, %" PRIu64
		" malformed, %" PRIu64 " of other processes; %zu threads; status %s\n",
		rec->samples, rec->lost, rec->malformed, rec->foreign,
		r->threads, status_of(r));
	if (rec->late || rec->no_sp || rec->unknown)
		fprintf(f, "warning: %" PRIu64 " records arrived out of order, %" PRIu64
			" had no stack pointer, %" PRIu64 " had an unknown id\n",
			rec->late, rec->no_sp, rec->unknown);
	if (rec->lost)
		fprintf(f, "warning: the kernel lost %" PRIu64 " records: scope counts are low "
			"and durations near the gaps are unreliable (try a larger --ring-kb "
			"or a shorter --drain-ms)\n", rec->lost);

	for (i = 0; i < r->nfuncs; i++)
		if (strlen(r->funcs[i].name) > w)
			w = strlen(r->funcs[i].name);
	if (w > 40)
		w = 40;
	fprintf(f, "\n%-*s %10s %-8s %6s %8s %6s %6s %7s\n", (int)w, "FUNCTION",
		"SCOPES", "DEPTH", "DUP", "UNCLOSED", "ORPHAN", "WRONG", "OUTSIDE");
	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_func_stats *s = r->funcs[i].st;

		depths_text(s, depths, sizeof(depths));
		fprintf(f, "%-*s %10" PRIu64 " %-8s %6" PRIu64 " %8" PRIu64
			" %6" PRIu64 " %6" PRIu64 " %7" PRIu64 "\n",
			(int)w, r->funcs[i].name, s->scopes, depths,
			s->duplicates, s->unclosed, s->orphans,
			ot_func_stats_wrong_depth(s), s->outside_parent);
	}
	fprintf(f, "\n%-*s %10s %10s %10s %10s\n", (int)w, "DURATION", "MIN",
		"P50", "P99", "MAX");
	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_hist *h = &r->funcs[i].st->hist;

		if (!h->count) {
			fprintf(f, "%-*s %10s %10s %10s %10s\n", (int)w,
				r->funcs[i].name, "-", "-", "-", "-");
			continue;
		}
		fprintf(f, "%-*s %10s %10s %10s %10s\n", (int)w, r->funcs[i].name,
			ot_report_duration(h->min, a, sizeof(a)),
			ot_report_duration(ot_hist_quantile(h, 0.50), b, sizeof(b)),
			ot_report_duration(ot_hist_quantile(h, 0.99), c, sizeof(c)),
			ot_report_duration(h->max, d, sizeof(d)));
	}
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void ot_report_json(FILE *f, const struct ot_report *r)
{
	const struct ot_drain_stats *rec = r->records;
	size_t i;

	fprintf(f, "{\n  \"version\": 1,\n  \"status\": \"%s\",\n  \"target\": {\"binary\": ",
		status_of(r));
	json_string(f, r->binary);
	fprintf(f, ", \"pid\": %d, \"exited\": %s", r->pid,
		r->target_exited ? "true" : "false");
	if (r->target_exited && r->target_status >= 0 && WIFEXITED(r->target_status))
		fprintf(f, ", \"exit_status\": %d", WEXITSTATUS(r->target_status));
	else if (r->target_exited && r->target_status >= 0 && WIFSIGNALED(r->target_status))
		fprintf(f, ", \"signal\": %d", WTERMSIG(r->target_status));
	fprintf(f, "},\n");
	fprintf(f, "  \"arming\": {\"functions_requested\": %zu, \"functions_armed\": %zu, "
		"\"uprobes\": %zu, \"events\": %zu, \"cpus\": %u},\n",
		r->functions_requested, r->functions_armed, r->uprobes,
		r->events, r->cpus);
	fprintf(f, "  \"capture\": {\"duration_ns\": %" PRIu64 ", \"ring_kb\": %zu, "
		"\"drain_ms\": %u, \"ended_by\": ", r->duration_ns, r->ring_kb,
		r->drain_ms);
	json_string(f, r->ended_by);
	fprintf(f, ", \"threads\": %zu, \"ring_high_water_bytes\": %" PRIu64 "},\n",
		r->threads, r->ring_high_water);
	fprintf(f, "  \"records\": {\"samples\": %" PRIu64 ", \"lost\": %" PRIu64
		", \"malformed\": %" PRIu64 ", \"foreign\": %" PRIu64
		", \"late\": %" PRIu64 ", \"no_sp\": %" PRIu64 ", \"unknown\": %" PRIu64 "},\n",
		rec->samples, rec->lost, rec->malformed, rec->foreign, rec->late,
		rec->no_sp, rec->unknown);
	fprintf(f, "  \"functions\": [");
	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_report_func *fn = &r->funcs[i];
		const struct ot_func_stats *s = fn->st;
		const struct ot_hist *h = &s->hist;
		unsigned d;
		int first = 1;

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		json_string(f, fn->name);
		if (fn->aliases) {
			fprintf(f, ", \"aliases\": ");
			json_string(f, fn->aliases);
		}
		fprintf(f, ", \"binary\": ");
		json_string(f, fn->binary);
		fprintf(f, ", \"offset\": %" PRIu64 ", \"scopes\": %" PRIu64 ", \"depths\": {",
			fn->offset, s->scopes);
		for (d = 0; d < OT_PAIR_DEPTHS; d++) {
			if (!s->depths[d])
				continue;
			fprintf(f, "%s\"%u\": %" PRIu64, first ? "" : ", ", d, s->depths[d]);
			first = 0;
		}
		fprintf(f, "}, \"duplicates\": %" PRIu64 ", \"unclosed\": %" PRIu64
			", \"orphans\": %" PRIu64 ", \"wrong_depth\": %" PRIu64
			", \"outside_parent\": %" PRIu64 ",\n     \"duration_ns\": ",
			s->duplicates, s->unclosed, s->orphans,
			ot_func_stats_wrong_depth(s), s->outside_parent);
		if (!h->count)
			fprintf(f, "null}");
		else
			fprintf(f, "{\"min\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p99\": %" PRIu64
				", \"max\": %" PRIu64 "}}",
				h->min, ot_hist_quantile(h, 0.50),
				ot_hist_quantile(h, 0.99), h->max);
	}
	fprintf(f, "\n  ]\n}\n");
}
