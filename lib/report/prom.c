/* prom.c - the report as Prometheus text 0.0.4 or OpenMetrics 1.0 (prom.h). */
#include "prom.h"
#include "report_priv.h"
#include "util/escape.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct pw {
	FILE *f;
	const struct ot_report *r;
	const struct ot_prom_opts *o;
	char created[32];	/* OpenMetrics' _created value */
};

/* Seconds from whole nanoseconds, exact and without trailing zeros:
 * "0.000000128", "34.359738368", "2". */
static const char *seconds(uint64_t ns, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u,
				    ns % 1000000000u);

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = 0;
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = 0;
	return buf;
}

/* A label value: backslash, double quote and newline escaped, valid
 * UTF-8 (lib/util/escape). */
static void label_value(FILE *f, const char *s)
{
	ot_escape_prom_label(f, s);
}

/*
 * A family's header.  Text 0.0.4 names a counter's family by its sample
 * (NAME_total); OpenMetrics by the family (NAME), says the unit, and names
 * an info family without its _info.
 */
static void family(struct pw *w, const char *base, const char *type, const char *unit,
		   const char *help)
{
	const char *suffix = "";

	if (!w->o->openmetrics) {
		if (!strcmp(type, "counter"))
			suffix = "_total";
		if (!strcmp(type, "info")) {
			suffix = "_info";
			type = "gauge";
		}
	}
	fprintf(w->f, "# HELP %s%s %s\n# TYPE %s%s %s\n", base, suffix, help, base, suffix, type);
	if (w->o->openmetrics && unit)
		fprintf(w->f, "# UNIT %s %s\n", base, unit);
}

/* The labels of function i's series: {function,file[,pid,comm]} without
 * the closing brace, so that a series may add its own. */
static void func_labels(struct pw *w, size_t i, const struct ot_report_proc *p)
{
	const struct ot_report_func *fn = &w->r->funcs[i];

	fputs(fn->point ? "{probe=" : "{function=", w->f);
	label_value(w->f, fn->name);
	fputs(",file=", w->f);
	label_value(w->f, fn->binary);
	if (p) {
		fprintf(w->f, ",pid=\"%" PRIu32 "\",comm=", p->pid);
		label_value(w->f, p->comm);
	} else if (w->o->pid_label) {
		fprintf(w->f, ",pid=\"%d\",comm=", w->r->pid);
		label_value(w->f, w->o->comm ? w->o->comm : "?");
	}
}

/* One counter sample of function i (p: of one process), and its _created. */
static void counter(struct pw *w, const char *base, size_t i, const struct ot_report_proc *p,
		    const char *value)
{
	fprintf(w->f, "%s_total", base);
	func_labels(w, i, p);
	fprintf(w->f, "} %s\n", value);
	if (w->o->openmetrics) {
		fprintf(w->f, "%s_created", base);
		func_labels(w, i, p);
		fprintf(w->f, "} %s\n", w->created);
	}
}

static void calls(struct pw *w)
{
	const struct ot_report *r = w->r;
	char buf[32];
	size_t i;

	family(w, "orbit_trace_calls", "counter", NULL,
	       "Calls that returned (closed scopes) since the capture began.");
	if (r->nprocs) {
		for (i = 0; i < r->nprocs; i++) {
			snprintf(buf, sizeof(buf), "%" PRIu64, r->procs[i].scopes);
			counter(w, "orbit_trace_calls", r->procs[i].func, &r->procs[i], buf);
		}
		family(w, "orbit_trace_call_seconds", "counter", "seconds",
		       "Time in the calls of orbit_trace_calls, by process.");
		for (i = 0; i < r->nprocs; i++)
			counter(w, "orbit_trace_call_seconds", r->procs[i].func, &r->procs[i],
				seconds(r->procs[i].total_ns, buf, sizeof(buf)));
		return;
	}
	for (i = 0; i < r->nfuncs; i++) {
		if (r->funcs[i].point)
			continue;
		snprintf(buf, sizeof(buf), "%" PRIu64, r->funcs[i].st->scopes);
		counter(w, "orbit_trace_calls", i, NULL, buf);
	}
}

/* USDT probes: counted points, a family of their own (no duration). */
static void hits(struct pw *w)
{
	char buf[32];
	size_t i, any = 0;

	for (i = 0; i < w->r->nfuncs; i++)
		any += !!w->r->funcs[i].point;
	if (!any)
		return;
	family(w, "orbit_trace_probe_hits", "counter", NULL,
	       "Hits of a USDT probe (-f 'usdt:FILE:PROVIDER:NAME'), every site together.");
	for (i = 0; i < w->r->nfuncs; i++) {
		if (!w->r->funcs[i].point)
			continue;
		snprintf(buf, sizeof(buf), "%" PRIu64, w->r->funcs[i].st->points);
		counter(w, "orbit_trace_probe_hits", i, NULL, buf);
	}
}

/* Function i's duration histogram: cumulative counts of calls measured
 * shorter than each bound (durations are whole nanoseconds, cut down). */
static void duration(struct pw *w, size_t i)
{
	const struct ot_hist *h = &w->r->funcs[i].st->hist;
	const char *base = "orbit_trace_call_duration_seconds";
	uint64_t below = 0, lo, width;
	unsigned b = 0, k;
	char buf[32];

	for (k = OT_PROM_LE_MIN; k <= OT_PROM_LE_MAX; k++) {
		/* Powers of two are bucket edges in lib/scopes/hist. */
		for (; b < OT_HIST_NBUCKETS; b++) {
			ot_hist_bucket_range(b, &lo, &width);
			if (lo >= (1ull << k))
				break;
			below += h->buckets[b];
		}
		fprintf(w->f, "%s_bucket", base);
		func_labels(w, i, NULL);
		fprintf(w->f, ",le=\"%s\"} %" PRIu64 "\n", seconds(1ull << k, buf, sizeof(buf)),
			below);
	}
	fprintf(w->f, "%s_bucket", base);
	func_labels(w, i, NULL);
	fprintf(w->f, ",le=\"+Inf\"} %" PRIu64 "\n%s_sum", h->count, base);
	func_labels(w, i, NULL);
	fprintf(w->f, "} %s\n%s_count", seconds(h->sum, buf, sizeof(buf)), base);
	func_labels(w, i, NULL);
	fprintf(w->f, "} %" PRIu64 "\n", h->count);
	if (w->o->openmetrics) {
		fprintf(w->f, "%s_created", base);
		func_labels(w, i, NULL);
		fprintf(w->f, "} %s\n", w->created);
	}
}

static void durations(struct pw *w)
{
	size_t i;

	family(w, "orbit_trace_call_duration_seconds", "histogram", "seconds",
	       "Durations of the calls that returned, from entry to return; calls whose "
	       "records were lost meanwhile are left out.");
	for (i = 0; i < w->r->nfuncs; i++)
		if (!w->r->funcs[i].point)
			duration(w, i);
}

/* The pairing's per-function counts that say what was not a scope. */
static void pairing(struct pw *w)
{
	static const struct {
		const char *base, *help;
		size_t off;
	} fam[] = {
		{ "orbit_trace_unclosed_calls", "Calls whose return was never seen (counted "
		  "when the capture ends).", offsetof(struct ot_func_stats, unclosed) },
		{ "orbit_trace_orphan_returns", "Returns seen with no call open.",
		  offsetof(struct ot_func_stats, orphans) },
		{ "orbit_trace_duplicate_records", "Entries or returns reported twice, dropped.",
		  offsetof(struct ot_func_stats, duplicates) },
		{ "orbit_trace_skipped_calls", "Calls of a USDT pair left open when a return "
		  "of an outer call came (its key matched an outer scope).",
		  offsetof(struct ot_func_stats, skipped) },
	};
	char buf[32];
	size_t k, i;

	for (k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
		family(w, fam[k].base, "counter", NULL, fam[k].help);
		for (i = 0; i < w->r->nfuncs; i++) {
			const char *st = (const char *)w->r->funcs[i].st;

			if (w->r->funcs[i].point)
				continue;
			snprintf(buf, sizeof(buf), "%" PRIu64,
				 *(const uint64_t *)(const void *)(st + fam[k].off));
			counter(w, fam[k].base, i, NULL, buf);
		}
	}
}

/* One recorded value's distribution: cumulative counts at 2^k - 1. */
static void value(struct pw *w, size_t i, const char *name, const struct ot_values *v)
{
	const char *base = "orbit_trace_call_value";
	uint64_t below = 0;
	unsigned b, k;

	/* log2 buckets: negatives, 0 at 64, bit length L at 64 + L. */
	for (b = 0; b <= 64; b++)
		below += v->log2[b];
	for (k = 0; k <= OT_PROM_VALUE_BITS; k++) {
		if (k)
			below += v->log2[64 + k];
		fprintf(w->f, "%s_bucket", base);
		func_labels(w, i, NULL);
		fputs(",value=", w->f);
		label_value(w->f, name);
		fprintf(w->f, ",le=\"%" PRIu64 "\"} %" PRIu64 "\n", ((uint64_t)1 << k) - 1, below);
	}
	fprintf(w->f, "%s_bucket", base);
	func_labels(w, i, NULL);
	fputs(",value=", w->f);
	label_value(w->f, name);
	fprintf(w->f, ",le=\"+Inf\"} %" PRIu64 "\n%s_count", v->count, base);
	func_labels(w, i, NULL);
	fputs(",value=", w->f);
	label_value(w->f, name);
	fprintf(w->f, "} %" PRIu64 "\n", v->count);
}

static void values(struct pw *w)
{
	size_t i, any = 0;

	for (i = 0; i < w->r->nfuncs; i++)
		any += w->r->funcs[i].arg || w->r->funcs[i].ret;
	if (!any)
		return;
	family(w, "orbit_trace_call_value", "histogram", NULL,
	       "Integers recorded with each call (-f 'NAME(argN)', 'NAME%ret'); negatives "
	       "count at every bound.");
	for (i = 0; i < w->r->nfuncs; i++) {
		const struct ot_values *v;
		const char *what;
		size_t k;

		for (k = 0; k < w->r->funcs[i].nmore + 2; k++)
			if ((v = ot_report_value(&w->r->funcs[i], k, &what)))
				value(w, i, what, v);
	}
}

/* A capture-wide counter or gauge. */
static void one(struct pw *w, const char *base, const char *type, const char *unit,
		const char *help, const char *v)
{
	family(w, base, type, unit, help);
	if (strcmp(type, "counter")) {
		fprintf(w->f, "%s %s\n", base, v);
		return;
	}
	fprintf(w->f, "%s_total %s\n", base, v);
	if (w->o->openmetrics)
		fprintf(w->f, "%s_created %s\n", base, w->created);
}

/* Once the target has ended: how, and its exit status or signal. */
static void target_end(struct pw *w)
{
	int v = 0;
	enum ot_report_end end = ot_report_target_end(w->r, &v);
	char code[32] = "";

	if (end == OT_END_EXIT)
		snprintf(code, sizeof(code), "%d", v);
	else if (end == OT_END_SIGNAL)
		ot_signal_name(v, code, sizeof(code));
	family(w, "orbit_trace_target_exit", "gauge", NULL,
	       "1 once the traced process has ended: how (exit, signal or unknown) and its "
	       "exit status or the signal that killed it.");
	fprintf(w->f, "orbit_trace_target_exit{how=\"%s\",code=\"%s\"} 1\n",
		end == OT_END_EXIT ? "exit" : end == OT_END_SIGNAL ? "signal" : "unknown", code);
}

static void capture(struct pw *w)
{
	static const char *const states[] = { "running", "ok", "lossy", "failed" };
	const struct ot_report *r = w->r;
	const char *now = r->check ? ot_report_status(r) : "running";
	char buf[32];
	size_t k;

	snprintf(buf, sizeof(buf), "%" PRIu64, r->records.samples);
	one(w, "orbit_trace_records", "counter", NULL,
	    "Records (entries and returns) the tracer received.", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, r->records.lost);
	one(w, "orbit_trace_records_lost", "counter", NULL,
	    "Records lost before the tracer could read them (full rings).", buf);
	one(w, "orbit_trace_capture_seconds", "gauge", "seconds",
	    "Time since the capture began (its length, once ended).",
	    seconds(r->duration_ns, buf, sizeof(buf)));
	one(w, "orbit_trace_arm_seconds", "gauge", "seconds",
	    "Time arming the probes took.", seconds(r->arm_ns, buf, sizeof(buf)));
	if (r->disarmed)
		one(w, "orbit_trace_disarm_seconds", "gauge", "seconds",
		    "Time disarming the probes took.", seconds(r->disarm_ns, buf, sizeof(buf)));
	family(w, "orbit_trace_status", "gauge", NULL,
	       "1 for the capture's state: running, or its verdict once ended (ok, lossy, "
	       "failed).");
	for (k = 0; k < sizeof(states) / sizeof(states[0]); k++)
		fprintf(w->f, "orbit_trace_status{status=\"%s\"} %d\n", states[k],
			!strcmp(states[k], now));
	if (r->check && r->target_exited)
		target_end(w);
	family(w, "orbit_trace_build", "info", NULL, "The tracer's version and backend.");
	fprintf(w->f, "orbit_trace_build_info{version=");
	label_value(w->f, w->o->version);
	fputs(",backend=", w->f);
	label_value(w->f, r->backend ? r->backend : "");
	fputs("} 1\n", w->f);
}

int ot_report_prom(FILE *f, const struct ot_report *r, const struct ot_prom_opts *o)
{
	struct pw w = { .f = f, .r = r, .o = o };

	seconds(o->created_ns, w.created, sizeof(w.created));
	calls(&w);
	hits(&w);
	durations(&w);
	pairing(&w);
	values(&w);
	capture(&w);
	if (o->openmetrics)
		fputs("# EOF\n", f);
	return ferror(f) ? -EIO : 0;
}

/*
 * Prometheus asks "application/openmetrics-text;version=1.0.0,...;q=0.75,
 * text/plain;version=0.0.4;q=0.5,...": OpenMetrics when it comes
 * with a quality at least text's.  A bare scraper (curl) gets text.
 */
int ot_prom_wants_openmetrics(const char *accept)
{
	double om = -1, text = -1;
	const char *p = accept;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *q = memmem(p, len, ";q=", 3);
		double qv = q ? strtod(q + 3, NULL) : 1.0;

		while (*p == ' ')
			p++, len--;
		if (len >= 28 && !strncasecmp(p, "application/openmetrics-text", 28) && qv > om)
			om = qv;
		else if (len >= 10 && !strncasecmp(p, "text/plain", 10) && qv > text)
			text = qv;
		p = end ? end + 1 : NULL;
	}
	return om > 0 && om >= text;
}
