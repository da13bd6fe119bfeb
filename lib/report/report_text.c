/*
 * The text report, for people: one function per section, in the order
 * they are printed (ot_report_text at the end shows it).
 */
#include "report_priv.h"
#include "util/escape.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void ot_report_cell(FILE *f, const char *s, size_t w, size_t at)
{
	size_t l = strlen(s);

	if (l <= w)
		fprintf(f, "%s%*s", s, (int)(w - l), "");
	else
		fprintf(f, "%s\n%*s", s, (int)(at + w), "");
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
 * bounds from lib/scopes/values. */
static void value_label(unsigned b, char *buf, size_t len)
{
	int64_t lo, hi;

	ot_values_log2_range(b, &lo, &hi);
	if (lo == hi)
		snprintf(buf, len, "%" PRId64, lo);
	else
		snprintf(buf, len, "[%" PRId64 ", %" PRId64 "]", lo, hi);
}

/* Whether some function has scopes (is not a counted point). */
static int any_scopes(const struct ot_report *r)
{
	size_t i;

	for (i = 0; i < r->nfuncs && r->funcs[i].point; i++)
		;
	return i < r->nfuncs;
}

/* The counted points (USDT probes): their hits. */
static void points_text(FILE *f, const struct ot_report *r, size_t w)
{
	size_t i;
	int any = 0;

	for (i = 0; i < r->nfuncs; i++) {
		if (!r->funcs[i].point)
			continue;
		if (!any++)
			fprintf(f, "\n%-*s %10s\n", (int)w, "PROBE", "HITS");
		ot_report_cell(f, r->funcs[i].name, w, 0);
		fprintf(f, " %10" PRIu64 "\n", r->funcs[i].st->points);
	}
}

/*
 * The STRING table: per probe or function whose argument is read as a
 * string, its most frequent strings with their counts, and how many
 * distinct.
 */
static void strings_text(FILE *f, const struct ot_report *r, size_t w)
{
	size_t i, k, aw = 9;
	int any = 0;

	/* The ARG column as wide as its longest name ("req->path:str"). */
	for (i = 0; i < r->nfuncs; i++)
		if (r->funcs[i].strs_name && strlen(r->funcs[i].strs_name) > aw)
			aw = strlen(r->funcs[i].strs_name);
	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_report_func *fn = &r->funcs[i];

		if (!fn->strs_name)
			continue;
		if (!any++)
			fprintf(f, "\n%-*s %-*s %10s  %s\n", (int)w, "STRING", (int)aw, "ARG", "COUNT",
				"VALUE");
		ot_report_cell(f, fn->name, w, 0);
		if (!fn->nstrs)
			fprintf(f, " %-*s %10d  -\n", (int)aw, fn->strs_name, 0);
		for (k = 0; k < fn->nstrs; k++) {
			if (k)
				fprintf(f, "%*s", (int)w, "");
			fprintf(f, " %-*s %10" PRIu64 "  ", (int)aw, k ? "" : fn->strs_name,
				fn->strs[k].count);
			ot_report_text_string(f, fn->strs[k].value, 0);
			fputc('\n', f);
		}
		if (fn->strs_distinct > fn->nstrs)
			fprintf(f, "%-*s %-*s %10s  (%zu distinct, the %zu most frequent shown)\n",
				(int)w, "", (int)aw, "", "", fn->strs_distinct, fn->nstrs);
	}
}

/* A pair's rows whose scopes a return of an enclosing one closed. */
static void skipped_text(FILE *f, const struct ot_report *r, size_t w)
{
	size_t i;
	int any = 0;

	for (i = 0; i < r->nfuncs; i++) {
		if (!r->funcs[i].pair || !r->funcs[i].st->skipped)
			continue;
		if (!any++)
			fprintf(f, "\n%-*s %10s\n", (int)w, "SKIPPED", "SCOPES");
		ot_report_cell(f, r->funcs[i].name, w, 0);
		fprintf(f, " %10" PRIu64 "\n", r->funcs[i].st->skipped);
	}
}

/* The VALUES table: per function and value, count, min, p50, max; with
 * --hist, their log2 buckets drawn like the durations'. */
static void values_text(FILE *f, const struct ot_report *r, size_t w)
{
	size_t i, k, vw = w + 8;
	int any = 0;

	for (i = 0; i < r->nfuncs; i++)
		any |= r->funcs[i].arg || r->funcs[i].ret || r->funcs[i].nmore;
	if (!any)
		return;
	fprintf(f, "\n%-*s %10s %20s %20s %20s\n", (int)vw, "VALUE", "COUNT", "MIN", "P50", "MAX");
	for (i = 0; i < r->nfuncs; i++) {
		for (k = 0; k < r->funcs[i].nmore + 2; k++) {
			const char *what;
			const struct ot_values *v = ot_report_value(&r->funcs[i], k, &what);
			size_t l;
			char *name;

			if (!v)
				continue;
			l = strlen(r->funcs[i].name) + strlen(what) + 2;
			name = ot_xmalloc(l);
			snprintf(name, l, "%s %s", r->funcs[i].name, what);
			ot_report_cell(f, name, vw, 0);
			free(name);
			if (!v->count) {
				fprintf(f, " %10d %20s %20s %20s\n", 0, "-", "-", "-");
				continue;
			}
			fprintf(f, " %10" PRIu64 " %20" PRId64 " %20" PRId64 " %20" PRId64 "\n",
				v->count, v->min, ot_values_quantile(v, 0.5), v->max);
		}
	}
	if (!r->draw_hist)
		return;
	for (i = 0; i < r->nfuncs; i++) {
		for (k = 0; k < r->funcs[i].nmore + 2; k++) {
			const char *what;
			const struct ot_values *v = ot_report_value(&r->funcs[i], k, &what);

			if (!v || !v->count)
				continue;
			fprintf(f, "\n@%s %s:\n", r->funcs[i].name, what);
			draw_rows(f, v->log2, OT_VALUES_LOG2, value_label, 24, 40);
		}
	}
}

/* One row per function: min, percentiles, max of raw or compensated durations. */
static void durations_text(FILE *f, const struct ot_report *r, size_t w,
			   const char *title, int compensated)
{
	char a[32], b[32], c[32], d[32], e[32], g[32];
	size_t i;

	if (!any_scopes(r))
		return;
	fprintf(f, "\n%-*s %9s %9s %9s %9s %9s %9s\n", (int)w, title, "MIN",
		"P50", "P90", "P99", "P99.9", "MAX");
	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_hist *h = compensated ? r->funcs[i].st->comp
						      : &r->funcs[i].st->hist;

		if (r->funcs[i].point)
			continue;
		ot_report_cell(f, r->funcs[i].name, w, 0);
		if (!h || !h->count) {
			fprintf(f, " %9s %9s %9s %9s %9s %9s\n", "-", "-", "-", "-", "-", "-");
			continue;
		}
		fprintf(f, " %9s %9s %9s %9s %9s %9s\n",
			ot_report_duration(h->min, a, sizeof(a)),
			ot_report_duration(ot_hist_quantile(h, 0.50), b, sizeof(b)),
			ot_report_duration(ot_hist_quantile(h, 0.90), c, sizeof(c)),
			ot_report_duration(ot_hist_quantile(h, 0.99), d, sizeof(d)),
			ot_report_duration(ot_hist_quantile(h, 0.999), e, sizeof(e)),
			ot_report_duration(h->max, g, sizeof(g)));
	}
}

/* -a: each process's share of each function. */
static void procs_text(FILE *f, const struct ot_report *r, size_t w)
{
	char a[32], b[32], comm[sizeof(r->procs->comm) * 4];
	size_t i;

	if (!r->nprocs)
		return;
	fprintf(f, "\n%8s %-16s %-*s %10s %10s %9s\n", "PID", "PROCESS", (int)w, "FUNCTION",
		"SCOPES", "TOTAL", "MAX");
	for (i = 0; i < r->nprocs; i++) {
		const struct ot_report_proc *p = &r->procs[i];

		fprintf(f, "%8u %-16s ", p->pid, ot_escape_text_buf(p->comm, comm, sizeof(comm)));
		ot_report_cell(f, r->names[p->func], w, 8 + 1 + 16 + 1);
		fprintf(f, " %10" PRIu64 " %10s %9s\n", p->scopes,
			ot_report_duration(p->total_ns, a, sizeof(a)),
			ot_report_duration(p->max_ns, b, sizeof(b)));
	}
}

/* When and on which thread each function's longest scopes ran (--slowest
 * N of them, longest first, the name on the first), and under what. */
static void slowest_text(FILE *f, const struct ot_report *r, size_t w)
{
	char a[32], b[32];
	size_t i, k;

	for (i = 0; i < r->nfuncs && !r->funcs[i].nslowest; i++)
		;
	if (i == r->nfuncs)
		return;
	fprintf(f, "\n%-*s %9s %10s %8s  %s\n", (int)w, "LONGEST", "DURATION", "AT",
		"THREAD", "PATH");
	for (i = 0; i < r->nfuncs; i++)
		for (k = 0; k < r->funcs[i].nslowest; k++) {
			const struct ot_report_slow *s = &r->funcs[i].slowest[k];

			ot_report_cell(f, k ? "" : r->funcs[i].name, w, 0);
			fprintf(f, " %9s %10s %8u  %s\n",
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

/* The FUNCTION column: as wide as the longest name, 8 to
 * OT_REPORT_NAME_MAX (a longer one wraps: ot_report_cell). */
static size_t name_width(const struct ot_report *r)
{
	size_t i, w = 8;

	for (i = 0; i < r->nfuncs; i++)
		if (strlen(r->funcs[i].name) > w)
			w = strlen(r->funcs[i].name);
	return w > OT_REPORT_NAME_MAX ? OT_REPORT_NAME_MAX : w;
}

static void title_text(FILE *f, const struct ot_report *r)
{
	size_t i;

	if (r->npids > 1) {
		fprintf(f, "orbit-trace report: %s (pids", r->binary);
		for (i = 0; i < r->npids; i++)
			fprintf(f, "%s %d", i ? "," : "", r->pids[i]);
		fprintf(f, ")\n");
	} else if (r->pid > 0) {
		fprintf(f, "orbit-trace report: %s (pid %d)\n", r->binary, r->pid);
	} else {
		fprintf(f, "orbit-trace report: %s\n", r->binary);
	}
}

/* inject's arming: what it paused and put in the process, the programs
 * the process exec'd, the functions it refused. */
static void arming_inject_text(FILE *f, const struct ot_report *r)
{
	const struct ot_inject_stats *in = r->inject;
	char a[32], p[32], why[sizeof(in->exec_why) * 4];
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
	if (in->exec_why[0])
		fprintf(f, "exec: a program the process exec'd is not traced: %s\n",
			ot_escape_text_buf(in->exec_why, why, sizeof(why)));
	if (in->let_go[0])
		fprintf(f, "let go: the process was let go before the end, %s\n",
			ot_escape_text_buf(in->let_go, why, sizeof(why)));
	if (in->walker)
		fprintf(f, "returns: seen at return instructions for %zu function%s (%s walks its "
			"stacks: no return address is moved)\n", in->exits_functions,
			in->exits_functions == 1 ? "" : "s",
			ot_escape_text_buf(in->walker, why, sizeof(why)));
	if (in->children)
		fprintf(f, "fork: %zu child%s the process forked taken back at %s fork (run "
			"untraced, as other processes)\n", in->children,
			in->children == 1 ? "" : "ren", in->children == 1 ? "its" : "their");
	if (in->children_kept)
		fprintf(f, "fork: %zu child%s the process forked still instrumented (%s): "
			"orbit-trace --restore -p PID takes it back\n", in->children_kept,
			in->children_kept == 1 ? "" : "ren",
			ot_escape_text_buf(in->child_why, why, sizeof(why)));
	if (in->vfork_calls)
		fprintf(f, "vfork: %" PRIu64 " calls of its vfork children (another process each, "
			"until it execs) not counted\n", in->vfork_calls);
	for (i = 0; i < r->nrefused; i++)
		fprintf(f, "not armed: %s: %s\n", r->refused[i].name, r->refused[i].why);
}

/* Names shown on the line of functions with return probes; JSON has each
 * function's. */
#define URETPROBE_NAMES 8

/* Mixed returns: the functions whose returns a return probe sees, by
 * name (the others' are seen at their return instructions). */
static void uretprobe_funcs_text(FILE *f, const struct ot_report *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nfuncs; i++) {
		if (!r->funcs[i].returns || strcmp(r->funcs[i].returns, "uretprobe"))
			continue;
		if (n++ < URETPROBE_NAMES)
			fprintf(f, "%s%s", n > 1 ? ", " : "returns seen by return probes: ",
				r->funcs[i].name);
	}
	if (n > URETPROBE_NAMES)
		fprintf(f, " and %zu more", n - URETPROBE_NAMES);
	if (n)
		fprintf(f, " (not every exit of %s is a return instruction)\n",
			n == 1 ? "it" : "them");
}

/*
 * Functions probed only because a traced one tail-calls them (issue 34):
 * their return instructions end it too, so each of their calls, from
 * anywhere, traps - php-fpm's _efree 22 times a request, which only -v
 * said.  A return probe sees the traced function's own return alone.
 */
static void tail_funcs_text(FILE *f, const struct ot_report *r)
{
	size_t i, k;

	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_report_func *fn = &r->funcs[i];

		if (!fn->ntail_funcs)
			continue;
		fprintf(f, "returns: %s leaves by tail calls to ", fn->name);
		for (k = 0; k < fn->ntail_funcs && k < URETPROBE_NAMES; k++)
			fprintf(f, "%s%s", k ? ", " : "", fn->tail_funcs[k]);
		if (fn->ntail_funcs > URETPROBE_NAMES)
			fprintf(f, " and %zu more", fn->ntail_funcs - URETPROBE_NAMES);
		fprintf(f, ", whose return instructions are probed too: every call of %s, from "
			"any caller, traps", fn->ntail_funcs == 1 ? fn->tail_funcs[0] : "them");
		if (fn->returns && !strcmp(fn->returns, "insn"))
			fprintf(f, " (--returns uretprobe probes %s's own return alone)", fn->name);
		fputc('\n', f);
	}
}

/* The uprobe backends' arming: its cost to every CPU, the probes, where
 * returns were seen, the rings; multi's execs from other threads. */
/* What was armed: "functions", or "USDT probes" when all of them are
 * (a USDT-only capture has no function, nor returns to see). */
static int only_points(const struct ot_report *r)
{
	size_t i;

	for (i = 0; i < r->nfuncs && r->funcs[i].point; i++)
		;
	return r->nfuncs && i == r->nfuncs;
}

static void arming_uprobes_text(FILE *f, const struct ot_report *r)
{
	char a[32], b[64];
	int mixed = r->returns && !strcmp(r->returns, "mixed");

	if (only_points(r))
		b[0] = 0;
	else if (mixed)
		snprintf(b, sizeof(b), " (returns of %zu seen at return instructions)",
			 r->insn_returns);
	else
		snprintf(b, sizeof(b), "%s", r->returns && !strcmp(r->returns, "insn") ?
			 " (returns seen at return instructions)" :
			 " (returns seen by return probes)");
	fprintf(f, "armed %zu of %zu %s in %s (%" PRIu64 " IPIs, %" PRIu64
		" TLB shootdowns%s): %zu uprobes%s, %zu %s (backend %s) on %u CPUs, "
		"%zu KB ring per CPU\n",
		r->functions_armed, r->functions_requested,
		only_points(r) ? "USDT probes" : "functions",
		ot_report_duration(r->arm_ns, a, sizeof(a)), r->arm_ipis, r->arm_tlb,
		r->frozen ? "; target stopped meanwhile" : "", r->uprobes, b,
		r->events, r->objects, r->backend, r->cpus, r->ring_kb);
	if (mixed)
		uretprobe_funcs_text(f, r);
	tail_funcs_text(f, r);
	if (r->thread_execs && r->thread_execs->count)
		thread_execs_text(f, r->thread_execs);
}

static void capture_text(FILE *f, const struct ot_report *r)
{
	char a[32];
	int code = 0;
	enum ot_report_end end = ot_report_target_end(r, &code);

	fprintf(f, "capture: %s, ended by %s", ot_report_duration(r->duration_ns, a, sizeof(a)),
		r->ended_by);
	if (end == OT_END_EXIT)
		fprintf(f, " (exit status %d)", code);
	else if (end == OT_END_SIGNAL)
		fprintf(f, " (killed by %s)", ot_signal_name(code, a, sizeof(a)));
	else if (r->target_exited && r->target_exit_why)
		fprintf(f, " (exit status unknown: %s)", r->target_exit_why);
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
		r->rings_in_process ? "in the process's rings" : "by the kernel",
		rec->malformed, rec->foreign, foreign_lost, r->threads, r->threads == 1 ? "" : "s");
	if (r->filter)
		fprintf(f, "filtered: %" PRIu64 " record%s of other processes or threads dropped "
			"(%s)\n", r->filtered, r->filtered == 1 ? "" : "s", r->filter);
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
			r->rings_in_process ? "the process's rings" : "the kernel", rec->lost,
			r->nprocs && !r->rings_in_process ? " (of any of the processes: the rings are per CPU)" :
			"", spans, spans == 1 ? "" : "s", spans == 1 ? "is" : "are");
	}
	if (r->inject && r->inject->unrecorded_handlers)
		fprintf(f, "warning: %" PRIu64 " calls of signal handlers that interrupted inject's "
			"runtime on their thread were not recorded: scope counts are low\n",
			r->inject->unrecorded_handlers);
	if (r->inject && r->inject->resets)
		fprintf(f, "warning: %" PRIu64 " times a signal handler left inject's runtime by a "
			"longjmp: recording went on, the call it was recording then may be unclosed\n",
			r->inject->resets);
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

	if (!any_scopes(r))
		return;

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

		if (r->funcs[i].point)
			continue;
		/* Depth is judged only against an expected one (--expect N@D). */
		if (fc->has_depth)
			snprintf(wrong, sizeof(wrong), "%" PRIu64, fc->wrong_depth);
		depths_text(s, depths, sizeof(depths));
		/* 0 scopes because nothing was armed, not because no call came. */
		ot_report_cell(f, r->funcs[i].name, w, 0);
		fprintf(f, " %10" PRIu64 " %-*s %6" PRIu64 " %8" PRIu64
			" %6" PRIu64 " %6s %7" PRIu64 "%s\n",
			s->scopes, (int)dw, depths,
			s->duplicates, s->unclosed, s->orphans, wrong, s->outside_parent,
			r->funcs[i].not_armed ? "  not armed" : "");
	}
}

/* --expect: the calls expected against the scopes seen. */
static void expected_text(FILE *f, const struct ot_report *r, size_t w)
{
	size_t i;

	if (!r->has_expect)
		return;
	/* The table is CHECK: "EXPECTED EXPECTED" read as a typo (issue 34). */
	fprintf(f, "\n%-*s %10s %10s %10s %8s\n", (int)w, "CHECK",
		"EXPECTED", "OBSERVED", "MISSING", "LOSS");
	for (i = 0; i < r->nfuncs; i++) {
		const struct ot_func_check *fc = &r->check->fn[i];

		if (!fc->has_expected)
			continue;
		ot_report_cell(f, r->funcs[i].name, w, 0);
		fprintf(f, " %10" PRIu64 " %10" PRIu64 " %10" PRId64 " %7.3f%%\n", fc->expected,
			r->funcs[i].st->scopes + r->funcs[i].st->points, fc->missing, fc->loss_pct);
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

	fprintf(f, "\nstatus: %s\n", ot_report_status(r));
	for (i = 0; i < r->check->nreasons; i++)
		fprintf(f, "%s: %s\n", r->check->status == OT_STATUS_FAILED ?
			"check failed" : "note", r->check->reasons[i]);
}

static void report_text(FILE *f, const struct ot_report *r)
{
	size_t w = name_width(r);

	title_text(f, r);
	if (r->inject)
		arming_inject_text(f, r);
	else
		arming_uprobes_text(f, r);
	capture_text(f, r);
	records_text(f, r);
	if (r->strings)
		fprintf(f, "strings: %" PRIu64 " read by the probes, %" PRIu64 " afterwards "
			"(not readable in the moment), %" PRIu64 " unreadable\n", r->strings->probe,
			r->strings->late, r->strings->unreadable);
	warnings_text(f, r);
	functions_text(f, r, w);
	expected_text(f, r, w);
	durations_text(f, r, w, "DURATION", 0);
	skipped_text(f, r, w);
	points_text(f, r, w);
	strings_text(f, r, w);
	values_text(f, r, w);
	slowest_text(f, r, w);
	procs_text(f, r, w);
	calib_text(f, r, w);
	ot_report_call_tree_text(f, r);
	hists_text(f, r);
	status_text(f, r);
}

/* What a target controls escaped first (lib/report/report_safe.c). */
void ot_report_text(FILE *f, const struct ot_report *r)
{
	struct ot_report_safe sf = { 0 };

	report_text(f, ot_report_safe(&sf, r));
	ot_report_safe_free(&sf);
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
		} else if (r->inject->children_kept) {
			fprintf(f, "nothing left mapped here; %zu forked child%s still instrumented)\n",
				r->inject->children_kept, r->inject->children_kept == 1 ? "" : "ren");
		} else {
			fprintf(f, "nothing left mapped)\n");
		}
	} else if (r->disarmed) {
		fprintf(f, "disarmed %zu %s in %s (%" PRIu64 " IPIs, %" PRIu64
			" TLB shootdowns%s)\n", r->functions_armed,
			only_points(r) ? "USDT probes" : "functions",
			ot_report_duration(r->disarm_ns, a, sizeof(a)), r->disarm_ipis,
			r->disarm_tlb, r->disarm_frozen ? "; target stopped meanwhile" : "");
	}
}
