#include "report.h"
#include "xalloc.h"
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

const char *ot_report_duration(uint64_t ns, char *buf, size_t len)
{
	static const char units[] = "ns\0us\0ms\0s"; /* 3 bytes each */
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
			 &units[3 * u]);
	return buf;
}

static const char *status_of(const struct ot_report *r)
{
	return ot_status_name(r->check->status);
}

static int cmp_node_total(const void *a, const void *b, void *tree)
{
	const struct ot_tree_node *t = tree;
	uint64_t x = t[*(const uint32_t *)a].total_ns, y = t[*(const uint32_t *)b].total_ns;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Children of node n, busiest first, into a new array; returns count. */
static size_t children(const struct ot_report *r, uint32_t n, uint32_t **out)
{
	size_t k = 0;
	uint32_t c;

	for (c = r->tree[n].first_child; c; c = r->tree[c].next_sibling)
		k++;
	*out = calloc(k ? k : 1, sizeof(**out));
	if (!*out)
		return 0;
	k = 0;
	for (c = r->tree[n].first_child; c; c = r->tree[c].next_sibling)
		(*out)[k++] = c;
	qsort_r(*out, k, sizeof(**out), cmp_node_total, (void *)r->tree);
	return k;
}

/* Direct recursion past this many levels is shown as one row. */
#define TREE_REC_LEVELS 4

/* Time in the node's own code, not in the traced functions it called. */
static uint64_t node_self(const struct ot_tree_node *n)
{
	return n->total_ns > n->child_ns ? n->total_ns - n->child_ns : 0;
}

/* Did a scope close on node n's path or below it?  (A call still open at
 * the end made a node without one.) */
static int tree_busy(const struct ot_report *r, uint32_t n)
{
	uint32_t c;

	if (r->tree[n].calls)
		return 1;
	for (c = r->tree[n].first_child; c; c = r->tree[c].next_sibling)
		if (tree_busy(r, c))
			return 1;
	return 0;
}

/*
 * The rest of node n's chain of direct recursion, below level: its calls
 * and self time added to *calls and *self, so that one row stands for
 * them.  Returns the chain's last level.
 */
static unsigned rec_chain(const struct ot_report *r, uint32_t n, unsigned level,
			  uint64_t *calls, uint64_t *self)
{
	uint32_t func = r->tree[n].func, c, x, same;

	for (c = n; (c = r->tree[c].first_child);) {
		same = 0;
		for (x = c; x; x = r->tree[x].next_sibling)
			if (r->tree[x].func == func)
				same = x;
		if (!same)
			break;
		c = same;
		*calls += r->tree[c].calls;
		*self += node_self(&r->tree[c]);
		level++;
	}
	return level;
}

/* Node n's row; with f NULL only its label's width, widening *lw. */
static void tree_row(FILE *f, const struct ot_report *r, uint32_t n, unsigned indent,
		     unsigned level, size_t *lw)
{
	const struct ot_tree_node *node = &r->tree[n];
	uint64_t parent_total = r->tree[node->parent].total_ns;
	uint64_t calls = node->calls, self = node_self(node);
	char a[32], b[32], pct[16], label[256], suffix[48] = "";

	if (level > TREE_REC_LEVELS) {
		unsigned last = rec_chain(r, n, level, &calls, &self);

		snprintf(suffix, sizeof(suffix), " (levels %u..%u)", level, last);
	} else if (level > 1) {
		snprintf(suffix, sizeof(suffix), " (level %u)", level);
	}
	if (node->parent && parent_total)
		snprintf(pct, sizeof(pct), "%.1f%%",
			 100.0 * (double)node->total_ns / (double)parent_total);
	else
		snprintf(pct, sizeof(pct), "-");
	snprintf(label, sizeof(label), "%*s%s%s", (int)(2 * indent), "",
		 r->names[node->func], suffix);
	if (!f) {
		if (strlen(label) > *lw)
			*lw = strlen(label);
		return;
	}
	fprintf(f, "%-*s %10" PRIu64 " %10s %10s %8s\n", (int)*lw, label, calls,
		ot_report_duration(node->total_ns, a, sizeof(a)),
		ot_report_duration(self, b, sizeof(b)), pct);
}

/*
 * One call tree row per node, children busiest first.  A function calling
 * itself stays at its caller's indentation with its level ("rec (level
 * 2)"), and levels past TREE_REC_LEVELS are summed into one row, so a
 * recursion 64 deep stays readable.  With f NULL only the widest label is
 * measured into *lw, so that the columns line up.
 */
static void tree_text(FILE *f, const struct ot_report *r, uint32_t n,
		      unsigned indent, unsigned level, size_t *lw)
{
	uint32_t *kids;
	size_t k, i;

	if (n && !tree_busy(r, n))
		return;
	if (n) {
		tree_row(f, r, n, indent, level, lw);
		if (level > TREE_REC_LEVELS)
			return;
	}
	if (indent > 24)
		return; /* deep nesting: the JSON has every path */
	k = children(r, n, &kids);
	for (i = 0; i < k; i++) {
		int rec = n && r->tree[kids[i]].func == r->tree[n].func;

		tree_text(f, r, kids[i], rec ? indent : indent + (n ? 1 : 0),
			  rec ? level + 1 : 1, lw);
	}
	free(kids);
}

/* v in the largest power of 1024 that divides it: "4K", "1M", "3". */
static void pow2_unit(uint64_t v, char *buf, size_t len)
{
	static const char sfx[] = " KMGTPE";
	unsigned u;

	for (u = 0; v >= 1024 && !(v % 1024) && u < 6; u++)
		v /= 1024;
	snprintf(buf, len, "%" PRIu64 "%.*s", v, u ? 1 : 0, &sfx[u]);
}

/* "[4K, 8K)": a power-of-two range in bpftrace's notation. */
static void pow2_label(unsigned row, char *buf, size_t len)
{
	char l[32], h[32];

	if (row == 64) {
		snprintf(buf, len, "[8E, ...)");
		return;
	}
	if (row == 0) {
		snprintf(buf, len, "[0]");
		return;
	}
	if (row == 1) {
		snprintf(buf, len, "[1]");
		return;
	}
	pow2_unit((uint64_t)1 << (row - 1), l, sizeof(l));
	pow2_unit((uint64_t)1 << row, h, sizeof(h));
	snprintf(buf, len, "[%s, %s)", l, h);
}

/*
 * Rows first to last non-empty, drawn like bpftrace's hist(): a label of
 * lw columns, the count, a bar of up to bw '@' (at most 46).
 */
static void draw_rows(FILE *f, const uint64_t *rows, unsigned n,
		      void (*label)(unsigned row, char *buf, size_t len), int lw, unsigned bw)
{
	unsigned row, first = n, last = 0;
	uint64_t top = 0;

	for (row = 0; row < n; row++) {
		if (!rows[row])
			continue;
		if (first == n)
			first = row;
		last = row;
		if (rows[row] > top)
			top = rows[row];
	}
	for (row = first; top && row <= last; row++) {
		char buf[80];

		label(row, buf, sizeof(buf));
		fprintf(f, "%-*s %10" PRIu64 " |%-*.*s|\n", lw, buf, rows[row], (int)bw,
			(int)(rows[row] * bw / top), "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
	}
}

/* Log2 rows of a duration histogram, 80 columns wide. */
static void hist_text(FILE *f, const char *name, const struct ot_hist *h)
{
	uint64_t rows[65] = { 0 };
	unsigned b;

	for (b = 0; b < OT_HIST_NBUCKETS; b++) {
		uint64_t lo, width;

		if (!h->buckets[b])
			continue;
		ot_hist_bucket_range(b, &lo, &width);
		rows[lo ? 64 - (unsigned)__builtin_clzll(lo) : 0] += h->buckets[b];
	}
	fprintf(f, "\n@%s (ns):\n", name);
	draw_rows(f, rows, 65, pow2_label, 18, 46);
}

/*
 * "0", "1:7998,3:2" (up to three depths), or "1..99" for a spread such as
 * recursion: every depth at which the function closed a scope.
 */
static void depths_text(const struct ot_func_stats *s, char *buf, size_t len)
{
	size_t used = 0;
	unsigned d, kinds = 0, lo = UINT32_MAX, hi = 0;

	buf[0] = 0;
	for (d = 0; d < s->ndepths; d++) {
		if (!s->depths[d])
			continue;
		kinds++;
		if (d < lo)
			lo = d;
		hi = d;
	}
	if (!kinds) {
		snprintf(buf, len, "-");
		return;
	}
	if (kinds > 3) {
		snprintf(buf, len, "%u..%u", lo, hi);
		return;
	}
	for (d = lo; d <= hi && used < len; d++) {
		int w;

		if (!s->depths[d])
			continue;
		if (kinds == 1)
			w = snprintf(buf + used, len - used, "%u", d);
		else
			w = snprintf(buf + used, len - used, "%s%u:%" PRIu64, used ? "," : "", d,
				     s->depths[d]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* A value's log2 bucket for people: "0", "[1, 2)", "(-8, -4]"; exact
 * bounds from lib/values. */
static void value_label(unsigned b, char *buf, size_t len)
{
	int64_t lo, hi;

	ot_values_log2_range(b, &lo, &hi);
	if (lo == hi)
		snprintf(buf, len, "%" PRId64, lo);
	else
		snprintf(buf, len, "[%" PRId64 ", %" PRId64 "]", lo, hi);
}

/* A function's recorded value k (0 its argument, 1 its return value) and
 * *what names it ("arg2", "ret"); NULL when it records none. */
static const struct ot_values *value_of(const struct ot_report_func *fn, unsigned k,
					const char **what)
{
	*what = k ? fn->ret_name : fn->arg_name;
	return k ? fn->ret : fn->arg;
}

/* The VALUES table: per function and value, count, min, p50, max; with
 * --hist, their log2 buckets drawn like the durations'. */
static void values_text(FILE *f, const struct ot_report *r, size_t w)
{
	size_t i, vw = w + 8;
	unsigned k;
	int any = 0;

	for (i = 0; i < r->nfuncs; i++)
		any |= r->funcs[i].arg || r->funcs[i].ret;
	if (!any)
		return;
	fprintf(f, "\n%-*s %10s %20s %20s %20s\n", (int)vw, "VALUE", "COUNT", "MIN", "P50", "MAX");
	for (i = 0; i < r->nfuncs; i++) {
		for (k = 0; k < 2; k++) {
			const char *what;
			const struct ot_values *v = value_of(&r->funcs[i], k, &what);
			char name[256];

			if (!v)
				continue;
			snprintf(name, sizeof(name), "%s %s", r->funcs[i].name, what);
			if (!v->count) {
				fprintf(f, "%-*s %10d %20s %20s %20s\n", (int)vw, name, 0, "-", "-", "-");
				continue;
			}
			fprintf(f, "%-*s %10" PRIu64 " %20" PRId64 " %20" PRId64 " %20" PRId64 "\n",
				(int)vw, name, v->count, v->min, ot_values_quantile(v, 0.5), v->max);
		}
	}
	if (!r->draw_hist)
		return;
	for (i = 0; i < r->nfuncs; i++) {
		for (k = 0; k < 2; k++) {
			const char *what;
			const struct ot_values *v = value_of(&r->funcs[i], k, &what);

			if (!v || !v->count)
				continue;
			fprintf(f, "\n@%s %s:\n", r->funcs[i].name, what);
			draw_rows(f, v->log2, OT_VALUES_LOG2, value_label, 24, 40);
		}
	}
}

/* A recorded value in JSON: null, or its summary and non-empty log2 buckets. */
static void values_json(FILE *f, const char *what, const struct ot_values *v)
{
	unsigned b;
	int first = 1;

	if (!v) {
		fputs("null", f);
		return;
	}
	fputs("{\"what\": ", f);
	ot_json_string(f, what);
	fprintf(f, ", \"count\": %" PRIu64, v->count);
	if (v->count)
		fprintf(f, ", \"min\": %" PRId64 ", \"p50\": %" PRId64 ", \"max\": %" PRId64,
			v->min, ot_values_quantile(v, 0.5), v->max);
	else
		fputs(", \"min\": null, \"p50\": null, \"max\": null", f);
	fputs(", \"log2\": [", f);
	for (b = 0; b < OT_VALUES_LOG2; b++) {
		int64_t lo, hi;

		if (!v->log2[b])
			continue;
		ot_values_log2_range(b, &lo, &hi);
		fprintf(f, "%s{\"min\": %" PRId64 ", \"max\": %" PRId64 ", \"count\": %" PRIu64 "}",
			first ? "" : ", ", lo, hi, v->log2[b]);
		first = 0;
	}
	fputs("]}", f);
}

/* One row per function: min, percentiles, max of raw or compensated durations. */
static void durations_text(FILE *f, const struct ot_report *r, size_t w,
			   const char *title, int compensated)
{
	char a[32], b[32], c[32], d[32], e[32], g[32];
	size_t i;

	fprintf(f, "\n%-*s %9s %9s %9s %9s %9s %9s\n", (int)w, title, "MIN",
		"P50", "P90", "P99", "P99.9", "MAX");
	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_hist *h = compensated ? r->funcs[i].st->comp
						      : &r->funcs[i].st->hist;

		if (!h || !h->count) {
			fprintf(f, "%-*s %9s %9s %9s %9s %9s %9s\n", (int)w,
				r->funcs[i].name, "-", "-", "-", "-", "-", "-");
			continue;
		}
		fprintf(f, "%-*s %9s %9s %9s %9s %9s %9s\n", (int)w, r->funcs[i].name,
			ot_report_duration(h->min, a, sizeof(a)),
			ot_report_duration(ot_hist_quantile(h, 0.50), b, sizeof(b)),
			ot_report_duration(ot_hist_quantile(h, 0.90), c, sizeof(c)),
			ot_report_duration(ot_hist_quantile(h, 0.99), d, sizeof(d)),
			ot_report_duration(ot_hist_quantile(h, 0.999), e, sizeof(e)),
			ot_report_duration(h->max, g, sizeof(g)));
	}
}

static void hist_json(FILE *f, const struct ot_hist *h)
{
	if (!h || !h->count)
		fprintf(f, "null");
	else
		fprintf(f, "{\"min\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p90\": %" PRIu64
			", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64 ", \"max\": %" PRIu64 "}",
			h->min, ot_hist_quantile(h, 0.50), ot_hist_quantile(h, 0.90),
			ot_hist_quantile(h, 0.99), ot_hist_quantile(h, 0.999), h->max);
}

/* -a: each process's share of each function. */
static void procs_text(FILE *f, const struct ot_report *r, size_t w)
{
	char a[32], b[32];
	size_t i;

	if (!r->nprocs)
		return;
	fprintf(f, "\n%8s %-16s %-*s %10s %10s %9s\n", "PID", "PROCESS", (int)w, "FUNCTION",
		"SCOPES", "TOTAL", "MAX");
	for (i = 0; i < r->nprocs; i++) {
		const struct ot_report_proc *p = &r->procs[i];

		fprintf(f, "%8u %-16s %-*s %10" PRIu64 " %10s %9s\n", p->pid, p->comm, (int)w,
			r->names[p->func], p->scopes, ot_report_duration(p->total_ns, a, sizeof(a)),
			ot_report_duration(p->max_ns, b, sizeof(b)));
	}
}

/* When and on which thread each function's longest scope ran, and under what. */
static void slowest_text(FILE *f, const struct ot_report *r, size_t w)
{
	char a[32], b[32];
	size_t i;

	for (i = 0; i < r->nfuncs && !r->funcs[i].nslowest; i++)
		;
	if (i == r->nfuncs)
		return;
	fprintf(f, "\n%-*s %9s %10s %8s  %s\n", (int)w, "LONGEST", "DURATION", "AT",
		"THREAD", "PATH");
	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_report_slow *s = r->funcs[i].slowest;

		if (!r->funcs[i].nslowest)
			continue;
		fprintf(f, "%-*s %9s %10s %8u  %s\n", (int)w, r->funcs[i].name,
			ot_report_duration(s->duration_ns, a, sizeof(a)),
			ot_report_duration(s->at_ns, b, sizeof(b)), s->tid, s->path);
	}
}

/* multi: the programs the process exec'd from a thread other than its
 * first, armed again; before they ran where the process was held. */
static void thread_execs_text(FILE *f, const struct ot_report_thread_execs *te)
{
	const char *held = "(the process held stopped meanwhile)";

	fprintf(f, "exec: %" PRIu64 " program%s the process exec'd from a thread other than its "
		"first armed again", te->count, te->count == 1 ? "" : "s");
	if (te->held == te->count)
		fprintf(f, "%s before it ran %s\n", te->count == 1 ? "" : ", each", held);
	else if (!te->held)
		fprintf(f, " after %s had begun to run (see status)\n",
			te->count == 1 ? "it" : "they");
	else
		fprintf(f, ": %" PRIu64 " before they ran %s, %" PRIu64 " after (see status)\n",
			te->held, held, te->count - te->held);
}

/* How the target ended, as its wait status says; unknown while it runs or
 * when it was not ours to wait for. */
enum target_end { END_UNKNOWN, END_EXIT, END_SIGNAL };

static enum target_end target_end(const struct ot_report *r, int *code)
{
	if (!r->target_exited || r->target_status < 0)
		return END_UNKNOWN;
	if (WIFEXITED(r->target_status)) {
		*code = WEXITSTATUS(r->target_status);
		return END_EXIT;
	}
	if (WIFSIGNALED(r->target_status)) {
		*code = WTERMSIG(r->target_status);
		return END_SIGNAL;
	}
	return END_UNKNOWN;
}

/* The FUNCTION column: as wide as the longest name, 8 to 40. */
static size_t name_width(const struct ot_report *r)
{
	size_t i, w = 8;

	for (i = 0; i < r->nfuncs; i++)
		if (strlen(r->funcs[i].name) > w)
			w = strlen(r->funcs[i].name);
	return w > 40 ? 40 : w;
}

static void title_text(FILE *f, const struct ot_report *r)
{
	if (r->pid > 0)
		fprintf(f, "orbit-trace report: %s (pid %d)\n", r->binary, r->pid);
	else
		fprintf(f, "orbit-trace report: %s\n", r->binary);
}

/* inject's arming: what it paused and put in the process, the programs
 * the process exec'd, the functions it refused. */
static void arming_inject_text(FILE *f, const struct ot_report *r)
{
	const struct ot_report_inject *in = r->inject;
	char a[32], p[32];
	size_t i;

	fprintf(f, "armed %zu of %zu functions in %s, the target paused %s: %zu %s in %zu "
		"code region%s (backend inject), clock %s, %zu KB ring per thread\n",
		r->functions_armed, r->functions_requested,
		ot_report_duration(r->arm_ns, a, sizeof(a)),
		ot_report_duration(in->arm_pause_ns, p, sizeof(p)), r->events,
		r->objects, in->regions, in->regions == 1 ? "" : "s", in->clock, r->ring_kb);
	if (in->execs)
		fprintf(f, "exec: %u program%s the process exec'd, instrumented at %s entry "
			"point%s\n", in->execs, in->execs == 1 ? "" : "s",
			in->execs == 1 ? "its" : "their", in->execs == 1 ? "" : "s");
	if (in->exec_why)
		fprintf(f, "exec: a program the process exec'd is not traced: %s\n", in->exec_why);
	for (i = 0; i < in->nrefused; i++)
		fprintf(f, "not armed: %s: %s\n", in->refused[i].name, in->refused[i].why);
}

/* The uprobe backends' arming: its cost to every CPU, the probes, where
 * returns were seen, the rings; multi's execs from other threads. */
static void arming_uprobes_text(FILE *f, const struct ot_report *r)
{
	char a[32], b[64];

	if (r->returns && !strcmp(r->returns, "mixed"))
		snprintf(b, sizeof(b), " (returns of %zu seen at return instructions)",
			 r->insn_returns);
	else
		snprintf(b, sizeof(b), "%s", r->returns && !strcmp(r->returns, "insn") ?
			 " (returns seen at return instructions)" : "");
	fprintf(f, "armed %zu of %zu functions in %s (%" PRIu64 " IPIs, %" PRIu64
		" TLB shootdowns%s): %zu uprobes%s, %zu %s (backend %s) on %u CPUs, "
		"%zu KB ring per CPU\n",
		r->functions_armed, r->functions_requested,
		ot_report_duration(r->arm_ns, a, sizeof(a)), r->arm_ipis, r->arm_tlb,
		r->frozen ? "; target stopped meanwhile" : "", r->uprobes, b,
		r->events, r->objects, r->backend, r->cpus, r->ring_kb);
	if (r->thread_execs && r->thread_execs->count)
		thread_execs_text(f, r->thread_execs);
}

static void capture_text(FILE *f, const struct ot_report *r)
{
	char a[32];
	int code = 0;
	enum target_end end = target_end(r, &code);

	fprintf(f, "capture: %s, ended by %s", ot_report_duration(r->duration_ns, a, sizeof(a)),
		r->ended_by);
	if (end == END_EXIT)
		fprintf(f, " (exit status %d)", code);
	else if (end == END_SIGNAL)
		fprintf(f, " (killed by signal %d)", code);
	fprintf(f, "; drained at least every %u ms\n", r->drain_ms);
}

/* What the rings gave, and which processes --follow followed. */
static void records_text(FILE *f, const struct ot_report *r)
{
	const struct ot_report_records *rec = &r->records;
	char foreign_lost[64] = "";

	if (rec->foreign_lost)
		snprintf(foreign_lost, sizeof(foreign_lost), " (%" PRIu64 " lost in their rings)",
			 rec->foreign_lost);
	fprintf(f, "records: %" PRIu64 " samples, %s%" PRIu64 " lost %s, %" PRIu64
		" malformed, %" PRIu64 " of other processes%s; %zu thread%s\n",
		rec->samples, rec->lost_inexact ? "at least " : "", rec->lost,
		r->inject ? "in the process's rings" : "by the kernel",
		rec->malformed, rec->foreign, foreign_lost, r->threads, r->threads == 1 ? "" : "s");
	if (r->follow)
		fprintf(f, "followed: %" PRIu64 " process%s (pid %d and its descendants), %" PRIu64
			" not followed\n", r->follow->processes, r->follow->processes == 1 ? "" : "es",
			r->pid, r->follow->dropped);
}

/* Why the counts below may be short of the calls made, and what to try. */
static void warnings_text(FILE *f, const struct ot_report *r)
{
	const struct ot_report_records *rec = &r->records;
	size_t i;

	if (rec->late || rec->no_sp || rec->unknown)
		fprintf(f, "warning: %" PRIu64 " records arrived out of order, %" PRIu64
			" had no stack pointer, %" PRIu64 " had an unknown id\n",
			rec->late, rec->no_sp, rec->unknown);
	if (rec->lost) {
		uint64_t spans = 0;

		for (i = 0; i < r->nfuncs; i++)
			spans += r->funcs[i].st->spans_loss;
		/* A kernel ring is per CPU, shared by every process traced. */
		fprintf(f, "warning: %s lost %" PRIu64 " records%s: scope counts are low; "
			"%" PRIu64 " scope%s open across a loss %s kept out of the durations "
			"(try a larger --ring-kb or a shorter --drain-ms)\n",
			r->inject ? "the process's rings" : "the kernel", rec->lost,
			r->nprocs && !r->inject ? " (of any of the processes: the rings are per CPU)" :
			"", spans, spans == 1 ? "" : "s", spans == 1 ? "is" : "are");
	}
	if (r->inject && r->inject->unrecorded_handlers)
		fprintf(f, "warning: %" PRIu64 " calls of signal handlers that interrupted inject's "
			"runtime on their thread were not recorded: scope counts are low\n",
			r->inject->unrecorded_handlers);
	if (r->inject && r->inject->unrecorded_threads)
		fprintf(f, "warning: %" PRIu64 " calls of threads inject had no room for (more "
			"threads at once than its slots and ring areas) were not recorded: scope "
			"counts are low\n", r->inject->unrecorded_threads);
}

/* The scopes table: per function, scopes, depths and what pairing healed. */
static void functions_text(FILE *f, const struct ot_report *r, size_t w)
{
	char depths[128];
	size_t i, dw = 8;

	/* DEPTH is as wide as its widest entry ("1:1000,2:1000"). */
	for (i = 0; i < r->nfuncs; i++) {
		depths_text(r->funcs[i].st, depths, sizeof(depths));
		if (strlen(depths) > dw)
			dw = strlen(depths);
	}
	fprintf(f, "\n%-*s %10s %-*s %6s %8s %6s %6s %7s\n", (int)w, "FUNCTION",
		"SCOPES", (int)dw, "DEPTH", "DUP", "UNCLOSED", "ORPHAN", "WRONG", "OUTSIDE");
	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_func_stats *s = r->funcs[i].st;
		const struct ot_func_check *fc = &r->check->fn[i];
		char wrong[24] = "-";

		/* Depth is judged only against an expected one (--expect N@D). */
		if (fc->has_depth)
			snprintf(wrong, sizeof(wrong), "%" PRIu64, fc->wrong_depth);
		depths_text(s, depths, sizeof(depths));
		fprintf(f, "%-*s %10" PRIu64 " %-*s %6" PRIu64 " %8" PRIu64
			" %6" PRIu64 " %6s %7" PRIu64 "\n",
			(int)w, r->funcs[i].name, s->scopes, (int)dw, depths,
			s->duplicates, s->unclosed, s->orphans, wrong, s->outside_parent);
	}
}

/* --expect: the calls expected against the scopes seen. */
static void expected_text(FILE *f, const struct ot_report *r, size_t w)
{
	size_t i;

	if (!r->has_expect)
		return;
	fprintf(f, "\n%-*s %10s %10s %10s %8s\n", (int)w, "EXPECTED",
		"EXPECTED", "OBSERVED", "MISSING", "LOSS");
	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_func_check *fc = &r->check->fn[i];

		if (!fc->has_expected)
			continue;
		fprintf(f, "%-*s %10" PRIu64 " %10" PRIu64 " %10" PRId64 " %7.3f%%\n",
			(int)w, r->funcs[i].name, fc->expected,
			r->funcs[i].st->scopes, fc->missing, fc->loss_pct);
	}
}

/* --compensate: the probes' measured cost, and the durations without it. */
static void calib_text(FILE *f, const struct ot_report *r, size_t w)
{
	char a[32], e[32];

	if (!r->calib)
		return;
	fprintf(f, "\nprobe cost, calibrated %s: %s per traced call, %s of it inside its own scope\n",
		r->calib->live_calls ? "during the capture" : "before the capture",
		ot_report_duration(r->calib->pair_ns, e, sizeof(e)),
		ot_report_duration(r->calib->own_ns, a, sizeof(a)));
	durations_text(f, r, w, "COMPENSATED", 1);
}

static void call_tree_text(FILE *f, const struct ot_report *r)
{
	size_t lw = 32;

	if (r->ntree <= 1)
		return;
	tree_text(NULL, r, 0, 0, 0, &lw);
	fprintf(f, "\n%-*s %10s %10s %10s %8s\n", (int)lw, "CALL TREE", "CALLS",
		"TOTAL", "SELF", "PARENT%");
	tree_text(f, r, 0, 0, 0, &lw);
	if (r->tree_dropped)
		fprintf(f, "(%" PRIu64 " scopes on paths beyond the tree's %d-node limit)\n",
			r->tree_dropped, OT_PAIR_TREE_MAX);
}

/* --hist: each function's durations drawn. */
static void hists_text(FILE *f, const struct ot_report *r)
{
	size_t i;

	if (!r->draw_hist)
		return;
	for (i = 0; i < r->nfuncs; i++)
		if (r->funcs[i].st->hist.count)
			hist_text(f, r->funcs[i].name, &r->funcs[i].st->hist);
}

/* The verdict, and each reason for it. */
static void status_text(FILE *f, const struct ot_report *r)
{
	size_t i;

	fprintf(f, "\nstatus: %s\n", status_of(r));
	for (i = 0; i < r->check->nreasons; i++)
		fprintf(f, "%s: %s\n", r->check->status == OT_STATUS_FAILED ?
			"check failed" : "note", r->check->reasons[i]);
}

void ot_report_text(FILE *f, const struct ot_report *r)
{
	size_t w = name_width(r);

	title_text(f, r);
	if (r->inject)
		arming_inject_text(f, r);
	else
		arming_uprobes_text(f, r);
	capture_text(f, r);
	records_text(f, r);
	warnings_text(f, r);
	functions_text(f, r, w);
	expected_text(f, r, w);
	durations_text(f, r, w, "DURATION", 0);
	values_text(f, r, w);
	slowest_text(f, r, w);
	procs_text(f, r, w);
	calib_text(f, r, w);
	call_tree_text(f, r);
	hists_text(f, r);
	status_text(f, r);
}

void ot_report_text_disarm(FILE *f, const struct ot_report *r)
{
	char a[32];

	if (r->disarmed && r->inject && r->inject->gone) {
		fprintf(f, "disarmed %zu functions in %s (the target had exited: nothing to "
			"restore)\n", r->functions_armed, ot_report_duration(r->disarm_ns, a, sizeof(a)));
	} else if (r->disarmed && r->inject) {
		char p[32], m[32];

		fprintf(f, "disarmed %zu functions in %s, the target paused %s (%zu return "
			"address%s put back; ", r->functions_armed,
			ot_report_duration(r->disarm_ns, a, sizeof(a)),
			ot_report_duration(r->inject->disarm_pause_ns, p, sizeof(p)),
			r->inject->returns_restored, r->inject->returns_restored == 1 ? "" : "es");
		if (r->inject->left_bytes) {
			snprintf(m, sizeof(m), "%.1f MB", (double)r->inject->left_bytes / 1048576.0);
			fprintf(f, "%s left mapped: %s)\n", m, r->inject->left_why);
		} else {
			fprintf(f, "nothing left mapped)\n");
		}
	} else if (r->disarmed) {
		fprintf(f, "disarmed %zu functions in %s (%" PRIu64 " IPIs, %" PRIu64
			" TLB shootdowns%s)\n", r->functions_armed,
			ot_report_duration(r->disarm_ns, a, sizeof(a)), r->disarm_ipis,
			r->disarm_tlb, r->disarm_frozen ? "; target stopped meanwhile" : "");
	}
}

/* "inject": what --backend inject put in the process, and what it refused. */
static void inject_json(FILE *f, const struct ot_report_inject *in)
{
	size_t i;

	fprintf(f, "  \"inject\": {\"clock\": \"%s\", \"code_regions\": %zu, \"code_bytes\": %" PRIu64
		", \"private_bytes\": %" PRIu64 ", \"shared_bytes\": %" PRIu64
		", \"unwinder_hooked\": %s, \"pause_ns\": %" PRIu64 ", \"refused\": [",
		in->clock ? in->clock : "tsc", in->regions, in->code_bytes, in->private_bytes,
		in->shared_bytes, in->unwinder ? "true" : "false", in->arm_pause_ns);
	for (i = 0; i < in->nrefused; i++) {
		fprintf(f, "%s{\"function\": ", i ? ", " : "");
		ot_json_string(f, in->refused[i].name);
		fputs(", \"reason\": ", f);
		ot_json_string(f, in->refused[i].why);
		fputs("}", f);
	}
	fprintf(f, "], \"unrecorded_calls\": {\"threads\": %" PRIu64 ", \"signal_handlers\": %"
		PRIu64 "}, \"execs\": %u, \"exec_untraced\": ", in->unrecorded_threads,
		in->unrecorded_handlers, in->execs);
	ot_json_string_or_null(f, in->exec_why);
	fputs("},\n", f);
}

/* Node i's functions from the root down, however deep (recursion). */
static void tree_path_json(FILE *f, const struct ot_report *r, uint32_t i)
{
	uint32_t *chain, k = 0, j;

	for (j = i; j; j = r->tree[j].parent)
		k++;
	chain = ot_xcalloc(k + 1, sizeof(*chain));
	for (j = i, k = 0; j; j = r->tree[j].parent)
		chain[k++] = j;
	while (k--) {
		ot_json_string(f, r->names[r->tree[chain[k]].func]);
		fputs(k ? ", " : "", f);
	}
	free(chain);
}

static void status_json(FILE *f, const struct ot_report *r)
{
	size_t i;

	fprintf(f, "  \"version\": 1,\n  \"status\": \"%s\",\n  \"reasons\": [", status_of(r));
	for (i = 0; i < r->check->nreasons; i++) {
		fprintf(f, "%s", i ? ", " : "");
		ot_json_string(f, r->check->reasons[i]);
	}
	fprintf(f, "],\n");
}

/* "target": the program, how it ended, what --follow and multi's
 * re-arming after execs from other threads saw of it. */
static void target_json(FILE *f, const struct ot_report *r)
{
	int code = 0;
	enum target_end end = target_end(r, &code);

	fprintf(f, "  \"target\": {\"binary\": ");
	ot_json_string(f, r->binary);
	fprintf(f, ", \"pid\": %d, \"exited\": %s", r->pid,
		r->target_exited ? "true" : "false");
	if (end == END_EXIT)
		fprintf(f, ", \"exit_status\": %d", code);
	else if (end == END_SIGNAL)
		fprintf(f, ", \"signal\": %d", code);
	if (r->follow)
		fprintf(f, ", \"follow\": {\"processes\": %" PRIu64 ", \"not_followed\": %" PRIu64 "}",
			r->follow->processes, r->follow->dropped);
	if (r->thread_execs)
		fprintf(f, ", \"thread_execs\": {\"count\": %" PRIu64 ", \"held\": %" PRIu64
			", \"unprobed_ns\": %" PRIu64 "}", r->thread_execs->count,
			r->thread_execs->held, r->thread_execs->unprobed_ns);
	fprintf(f, "},\n");
}

static void arming_json(FILE *f, const struct ot_report *r)
{
	fprintf(f, "  \"arming\": {\"functions_requested\": %zu, \"functions_armed\": %zu, "
		"\"backend\": \"%s\", \"frozen\": %s, \"uprobes\": %zu, \"events\": %zu, "
		"\"cpus\": %u, \"returns\": \"%s\", "
		"\"wall_ns\": %" PRIu64 ", \"ipis\": %" PRIu64 ", \"tlb_shootdowns\": %" PRIu64 "},\n",
		r->functions_requested, r->functions_armed, r->backend ? r->backend : "perf",
		r->frozen ? "true" : "false", r->uprobes, r->events, r->cpus,
		r->returns ? r->returns : "uretprobe", r->arm_ns, r->arm_ipis, r->arm_tlb);
	if (r->inject)
		inject_json(f, r->inject);
}

/* "disarming", and with inject "inject_removal": what it put back and left. */
static void disarming_json(FILE *f, const struct ot_report *r)
{
	if (!r->disarmed)
		return;
	fprintf(f, "  \"disarming\": {\"frozen\": %s, \"wall_ns\": %" PRIu64 ", \"ipis\": %" PRIu64
		", \"tlb_shootdowns\": %" PRIu64 "},\n", r->disarm_frozen ? "true" : "false",
		r->disarm_ns, r->disarm_ipis, r->disarm_tlb);
	if (!r->inject)
		return;
	fprintf(f, "  \"inject_removal\": {\"target_exited\": %s, \"pause_ns\": %" PRIu64
		", \"returns_restored\": %zu, \"calls_without_return\": %" PRIu64
		", \"left_mapped_bytes\": %" PRIu64 ", \"left_why\": ",
		r->inject->gone ? "true" : "false", r->inject->disarm_pause_ns,
		r->inject->returns_restored, r->inject->noret, r->inject->left_bytes);
	ot_json_string_or_null(f, r->inject->left_why);
	fputs("},\n", f);
}

/* "capture", "tracer" and "records": how long, what it cost us, what the
 * rings gave. */
static void capture_json(FILE *f, const struct ot_report *r)
{
	const struct ot_report_records *rec = &r->records;

	fprintf(f, "  \"capture\": {\"duration_ns\": %" PRIu64 ", \"ring_kb\": %zu, "
		"\"drain_ms\": %u, \"ended_by\": ", r->duration_ns, r->ring_kb,
		r->drain_ms);
	ot_json_string(f, r->ended_by);
	fprintf(f, ", \"threads\": %zu, \"ring_high_water_bytes\": %" PRIu64 "},\n",
		r->threads, r->ring_high_water);
	fprintf(f, "  \"tracer\": {\"cpu_ns\": %" PRIu64 ", \"max_rss_kb\": %" PRIu64 "},\n",
		r->tracer_cpu_ns, r->tracer_max_rss_kb);
	fprintf(f, "  \"records\": {\"samples\": %" PRIu64 ", \"lost\": %" PRIu64
		", \"lost_at_end\": %" PRIu64 ", \"lost_exact\": %s"
		", \"malformed\": %" PRIu64 ", \"foreign\": %" PRIu64 ", \"foreign_lost\": %" PRIu64
		", \"late\": %" PRIu64 ", \"no_sp\": %" PRIu64 ", \"unknown\": %" PRIu64 "},\n",
		rec->samples, rec->lost, rec->lost_at_end, rec->lost_inexact ? "false" : "true",
		rec->malformed, rec->foreign, rec->foreign_lost, rec->late, rec->no_sp, rec->unknown);
}

/* A function's names, where it is, its scopes by depth. */
static void func_where_json(FILE *f, const struct ot_report_func *fn)
{
	const struct ot_func_stats *s = fn->st;
	unsigned d;
	int first = 1;

	fprintf(f, "{\"name\": ");
	ot_json_string(f, fn->name);
	fprintf(f, ", \"symbol\": ");
	ot_json_string(f, fn->symbol ? fn->symbol : fn->name);
	if (fn->aliases) {
		fprintf(f, ", \"aliases\": ");
		ot_json_string(f, fn->aliases);
	}
	fprintf(f, ", \"binary\": ");
	ot_json_string(f, fn->binary);
	fprintf(f, ", \"offset\": %" PRIu64 ", \"scopes\": %" PRIu64 ", \"depths\": {",
		fn->offset, s->scopes);
	for (d = 0; d < s->ndepths; d++) {
		if (!s->depths[d])
			continue;
		fprintf(f, "%s\"%u\": %" PRIu64, first ? "" : ", ", d, s->depths[d]);
		first = 0;
	}
	fprintf(f, "}, ");
}

/* A function's verdict: expected calls and depth, and what pairing healed. */
static void func_check_json(FILE *f, const struct ot_func_stats *s,
			    const struct ot_func_check *fc)
{
	if (fc->has_expected)
		fprintf(f, "\"expected\": %" PRIu64 ", \"missing\": %" PRId64
			", \"loss_pct\": %.6f, ", fc->expected, fc->missing, fc->loss_pct);
	else
		fprintf(f, "\"expected\": null, \"missing\": null, \"loss_pct\": null, ");
	fprintf(f, "\"spans_loss\": %" PRIu64 ", ", s->spans_loss);
	fprintf(f, "\"duplicates\": %" PRIu64 ", \"unclosed\": %" PRIu64
		", \"orphans\": %" PRIu64 ", ", s->duplicates, s->unclosed, s->orphans);
	if (fc->has_depth)
		fprintf(f, "\"expected_depth\": %u, \"wrong_depth\": %" PRIu64 ", ",
			fc->depth, fc->wrong_depth);
	else
		fprintf(f, "\"expected_depth\": null, \"wrong_depth\": null, ");
	fprintf(f, "\"outside_parent\": %" PRIu64, s->outside_parent);
}

static void slowest_json(FILE *f, const struct ot_report_func *fn)
{
	size_t k;

	fprintf(f, ",\n     \"slowest\": [");
	for (k = 0; k < fn->nslowest; k++) {
		const struct ot_report_slow *sl = &fn->slowest[k];

		fprintf(f, "%s{\"at_ns\": %" PRIu64 ", \"duration_ns\": %" PRIu64
			", \"tid\": %u, \"path\": ", k ? ", " : "", sl->at_ns,
			sl->duration_ns, sl->tid);
		ot_json_string(f, sl->path);
		fputc('}', f);
	}
	fprintf(f, "]");
}

/* "functions": one object per function, in the order they were asked for. */
static void functions_json(FILE *f, const struct ot_report *r)
{
	size_t i;

	fprintf(f, "  \"functions\": [");
	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_report_func *fn = &r->funcs[i];

		fprintf(f, "%s\n    ", i ? "," : "");
		func_where_json(f, fn);
		func_check_json(f, fn->st, &r->check->fn[i]);
		fprintf(f, ",\n     \"duration_ns\": ");
		hist_json(f, &fn->st->hist);
		if (r->calib) {
			fprintf(f, ", \"compensated_ns\": ");
			hist_json(f, fn->st->comp);
		}
		if (fn->arg || fn->ret) {
			fprintf(f, ",\n     \"arg\": ");
			values_json(f, fn->arg_name, fn->arg);
			fprintf(f, ", \"ret\": ");
			values_json(f, fn->ret_name, fn->ret);
		}
		slowest_json(f, fn);
		fprintf(f, "}");
	}
	fprintf(f, "\n  ],\n");
}

/* "processes" (-a, --follow): each process's share of each function. */
static void processes_json(FILE *f, const struct ot_report *r)
{
	size_t i;

	if (!r->nprocs)
		return;
	fprintf(f, "  \"processes\": [");
	for (i = 0; i < r->nprocs; i++) {
		const struct ot_report_proc *p = &r->procs[i];

		fprintf(f, "%s\n    {\"pid\": %u, ", i ? "," : "", p->pid);
		if (r->follow)
			fprintf(f, "\"ppid\": %u, ", p->ppid);
		fprintf(f, "\"comm\": ");
		ot_json_string(f, p->comm);
		fprintf(f, ", \"function\": ");
		ot_json_string(f, r->names[p->func]);
		fprintf(f, ", \"scopes\": %" PRIu64 ", \"total_ns\": %" PRIu64
			", \"max_ns\": %" PRIu64 "}", p->scopes, p->total_ns, p->max_ns);
	}
	fprintf(f, "\n  ],\n");
}

static void calibration_json(FILE *f, const struct ot_report *r)
{
	if (r->calib)
		fprintf(f, "  \"calibration\": {\"pair_ns\": %" PRIu64 ", \"own_ns\": %" PRIu64
			", \"empty_ns\": %" PRIu64 ", \"live_calls\": %" PRIu64 "},\n", r->calib->pair_ns,
			r->calib->own_ns, r->calib->empty_ns, r->calib->live_calls);
}

/* "call_tree": every path, however deep, where the text stops. */
static void call_tree_json(FILE *f, const struct ot_report *r)
{
	size_t i;

	fprintf(f, "  \"call_tree\": [");
	for (i = 1; i < r->ntree; i++) {
		const struct ot_tree_node *n = &r->tree[i];

		fprintf(f, "%s\n    {\"path\": [", i > 1 ? "," : "");
		tree_path_json(f, r, (uint32_t)i);
		fprintf(f, "], \"calls\": %" PRIu64 ", \"total_ns\": %" PRIu64
			", \"self_ns\": %" PRIu64 "}", n->calls, n->total_ns, node_self(n));
	}
	fprintf(f, "\n  ],\n  \"call_tree_dropped\": %" PRIu64 "\n", r->tree_dropped);
}

void ot_report_json(FILE *f, const struct ot_report *r)
{
	fputs("{\n", f);
	status_json(f, r);
	target_json(f, r);
	arming_json(f, r);
	disarming_json(f, r);
	capture_json(f, r);
	functions_json(f, r);
	processes_json(f, r);
	calibration_json(f, r);
	call_tree_json(f, r);
	fputs("}\n", f);
}

int ot_report_list(FILE *f, const struct ot_list *l)
{
	const char *shown = NULL;
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct ot_list_fn *fn = &l->fn[i];

		if (!shown || strcmp(fn->file, shown)) {
			shown = fn->file;
			fprintf(f, "# %s: %zu functions in .%s\n# %-12s %8s  %s\n",
				fn->file, fn->file_functions, fn->file_source,
				"OFFSET", "SIZE", "SYMBOL  [DEMANGLED]  [= ALIASES]");
		}
		fprintf(f, "0x%-12llx %8llu  %s%s%s%s%s",
			(unsigned long long)fn->offset, (unsigned long long)fn->size,
			fn->symbol, fn->demangled ? "  " : "", fn->demangled ? fn->demangled : "",
			fn->aliases ? "  = " : "", fn->aliases ? fn->aliases : "");
		if (fn->inlined)
			fprintf(f, "  (also inlined at %llu call site%s: calls there are not counted)",
				(unsigned long long)fn->inlined, fn->inlined == 1 ? "" : "s");
		fputc('\n', f);
	}
	for (i = 0; i < l->nskipped; i++)
		fprintf(f, "# skipped %s:%s: %s\n", l->skipped[i].file, l->skipped[i].name,
			l->skipped[i].why);
	return ferror(f) ? -EIO : 0;
}

void ot_report_interval_text(FILE *f, const struct ot_report_interval *iv)
{
	char a[32], b[32], c[32], d[32];
	size_t i, w = 8;

	for (i = 0; i < iv->nfuncs; i++)
		if (strlen(iv->names[i]) > w)
			w = strlen(iv->names[i]);
	if (w > 40)
		w = 40;
	fprintf(f, "interval %" PRIu64 ": %s to %s", iv->seq,
		ot_report_duration(iv->start_ns, a, sizeof(a)),
		ot_report_duration(iv->end_ns, b, sizeof(b)));
	if (iv->lost)
		fprintf(f, ", %" PRIu64 " records lost by the kernel", iv->lost);
	fprintf(f, "\n%-*s %10s %9s %9s %9s\n", (int)w, "FUNCTION", "SCOPES", "P50", "P99", "MAX");
	for (i = 0; i < iv->nfuncs; i++) {
		const struct ot_hist *h = &iv->hist[i];

		if (!h->count) {
			fprintf(f, "%-*s %10d %9s %9s %9s\n", (int)w, iv->names[i], 0, "-", "-", "-");
			continue;
		}
		fprintf(f, "%-*s %10" PRIu64 " %9s %9s %9s\n", (int)w, iv->names[i], h->count,
			ot_report_duration(ot_hist_quantile(h, 0.50), b, sizeof(b)),
			ot_report_duration(ot_hist_quantile(h, 0.99), c, sizeof(c)),
			ot_report_duration(h->max, d, sizeof(d)));
	}
	fputc('\n', f);
}

void ot_report_interval_json(FILE *f, const struct ot_report_interval *iv)
{
	size_t i;

	fprintf(f, "{\"type\": \"interval\", \"seq\": %" PRIu64 ", \"start_ns\": %" PRIu64
		", \"end_ns\": %" PRIu64 ", \"lost\": %" PRIu64 ", \"functions\": [",
		iv->seq, iv->start_ns, iv->end_ns, iv->lost);
	for (i = 0; i < iv->nfuncs; i++) {
		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		ot_json_string(f, iv->names[i]);
		fprintf(f, ", \"scopes\": %" PRIu64 ", \"duration_ns\": ", iv->hist[i].count);
		hist_json(f, &iv->hist[i]);
		fputc('}', f);
	}
	fprintf(f, "]}\n");
}

void ot_report_json_line(FILE *f, const struct ot_report *r)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	ot_report_json(m, r);
	fclose(m);
	/* Strings are escaped: every newline is layout.  The object gains a
	 * "type" first, like the interval lines. */
	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	p = strchr(buf, '{');
	if (p)
		fprintf(f, "{\"type\": \"report\", %s\n", p + 1);
	free(buf);
}

void ot_report_slow_text(FILE *f, int pid, const char *name, const struct ot_report_slow *s)
{
	char a[32], b[32];

	fprintf(f, "slow: %s at %s, pid %d tid %u: %s (%s)\n", name,
		ot_report_duration(s->at_ns, a, sizeof(a)), pid, s->tid,
		ot_report_duration(s->duration_ns, b, sizeof(b)), s->path);
}

void ot_report_slow_json(FILE *f, int pid, const char *name, const struct ot_report_slow *s)
{
	fprintf(f, "{\"type\": \"slow\", \"name\": ");
	ot_json_string(f, name);
	fprintf(f, ", \"at_ns\": %" PRIu64 ", \"duration_ns\": %" PRIu64 ", \"pid\": %d"
		", \"tid\": %u, \"path\": ", s->at_ns, s->duration_ns, pid, s->tid);
	ot_json_string(f, s->path);
	fprintf(f, "}\n");
}

void ot_report_restore_text(FILE *f, const struct ot_report_restore *r)
{
	if (!r->found) {
		fprintf(f, "process %d (%s): nothing of orbit-trace's to restore\n", r->pid, r->comm);
		return;
	}
	fprintf(f, "process %d (%s): left instrumented by orbit-trace process %d, which is gone\n",
		r->pid, r->comm, r->tracer);
	fprintf(f, "restored: %zu of %zu patched entr%s (checked against their files), "
		"%zu return address%s\n", r->restored, r->patches, r->patches == 1 ? "y" : "ies",
		r->returns_restored, r->returns_restored == 1 ? "" : "es");
	if (r->kept)
		fprintf(f, "kept: %zu entr%s: %s\n", r->kept, r->kept == 1 ? "y" : "ies", r->kept_why);
	fprintf(f, "unmapped: %.1f MB", (double)r->unmapped_bytes / 1048576.0);
	if (r->left_bytes)
		fprintf(f, " (%.1f MB left mapped: %s)", (double)r->left_bytes / 1048576.0,
			r->left_why ? r->left_why : "?");
	fputc('\n', f);
}

void ot_report_restore_json(FILE *f, const struct ot_report_restore *r)
{
	fprintf(f, "{\"pid\": %d, \"comm\": ", r->pid);
	ot_json_string(f, r->comm);
	fprintf(f, ", \"found\": %s, \"tracer\": %d, \"patches\": %zu, \"restored\": %zu, "
		"\"kept\": %zu, \"kept_why\": ", r->found ? "true" : "false", r->tracer, r->patches,
		r->restored, r->kept);
	ot_json_string_or_null(f, r->kept_why);
	fprintf(f, ", \"returns_restored\": %zu, \"unmapped_bytes\": %" PRIu64
		", \"left_mapped_bytes\": %" PRIu64 ", \"left_why\": ", r->returns_restored,
		r->unmapped_bytes, r->left_bytes);
	ot_json_string_or_null(f, r->left_why);
	fputs("}\n", f);
}
