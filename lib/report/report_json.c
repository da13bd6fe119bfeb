/*
 * The JSON report, for scripts: one function per member, in the order
 * they are written (ot_report_json shows it).  Every key is documented in
 * orbit-trace(1), OUTPUT FIELDS: change both together.
 */
#include "report_priv.h"
#include "json.h"
#include "scopes/fold.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

void ot_report_hist_json(FILE *f, const struct ot_hist *h)
{
	if (!h || !h->count)
		fprintf(f, "null");
	else
		fprintf(f, "{\"min\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p90\": %" PRIu64
			", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64 ", \"max\": %" PRIu64 "}",
			h->min, ot_hist_quantile(h, 0.50), ot_hist_quantile(h, 0.90),
			ot_hist_quantile(h, 0.99), ot_hist_quantile(h, 0.999), h->max);
}

void ot_report_path_json(FILE *f, const struct ot_report_slow *sl)
{
	size_t k;

	fputc('[', f);
	if (!sl->chain)
		ot_json_string(f, sl->path);
	for (k = 0; sl->chain && k < sl->nchain; k++) {
		fputs(k ? ", " : "", f);
		ot_json_string(f, sl->chain[k]);
	}
	fputc(']', f);
}

/* "inject": what --backend inject put in the process, and what it refused. */
static void inject_json(FILE *f, const struct ot_report *r)
{
	const struct ot_inject_stats *in = r->inject;
	size_t i;

	fprintf(f, "  \"inject\": {\"clock\": \"%s\", \"code_regions\": %zu, \"code_bytes\": %" PRIu64
		", \"private_bytes\": %" PRIu64 ", \"shared_bytes\": %" PRIu64
		", \"unwinder_hooked\": %s, \"pause_ns\": %" PRIu64 ", \"refused\": [",
		in->clock ? in->clock : "tsc", in->regions, in->code_bytes, in->private_bytes,
		in->shared_bytes, in->unwinder ? "true" : "false", in->arm_pause_ns);
	for (i = 0; i < r->nrefused; i++) {
		fprintf(f, "%s{\"function\": ", i ? ", " : "");
		ot_json_string(f, r->refused[i].name);
		fputs(", \"reason\": ", f);
		ot_json_string(f, r->refused[i].why);
		fputs("}", f);
	}
	fprintf(f, "], \"unrecorded_calls\": {\"threads\": %" PRIu64 ", \"signal_handlers\": %"
		PRIu64 ", \"vfork_children\": %" PRIu64 "}, \"runtime_resets\": %" PRIu64
		", \"children\": {\"taken_back\": %zu, \"kept\": %zu, \"kept_why\": ",
		in->unrecorded_threads, in->unrecorded_handlers, in->vfork_calls, in->resets,
		in->children, in->children_kept);
	ot_json_string_or_null(f, in->child_why[0] ? in->child_why : NULL);
	fprintf(f, "}, \"execs\": %u, \"exec_untraced\": ", in->execs);
	ot_json_string_or_null(f, in->exec_why[0] ? in->exec_why : NULL);
	fputs(", \"let_go\": ", f);
	ot_json_string_or_null(f, in->let_go[0] ? in->let_go : NULL);
	fputs(", \"stack_walker\": ", f);
	ot_json_string_or_null(f, in->walker);
	fprintf(f, ", \"exits_functions\": %zu", in->exits_functions);
	fputs("},\n", f);
}

/* Entry i's functions from the root down (a folded recursion once). */
static void fold_path_json(FILE *f, const struct ot_report *r, const struct ot_fold *fo,
			   uint32_t i)
{
	uint32_t *chain, k = 0, j;

	for (j = i; j; j = fo->e[j].parent)
		k++;
	chain = ot_xcalloc(k + 1, sizeof(*chain));
	for (j = i, k = 0; j; j = fo->e[j].parent)
		chain[k++] = j;
	while (k--) {
		ot_json_string(f, r->names[fo->e[chain[k]].func]);
		fputs(k ? ", " : "", f);
	}
	free(chain);
}

static void status_json(FILE *f, const struct ot_report *r)
{
	size_t i;

	fprintf(f, "  \"type\": \"report\",\n  \"version\": %d,\n  \"status\": \"%s\",\n"
		"  \"reasons\": [", OT_JSON_VERSION, ot_report_status(r));
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
	enum ot_report_end end = ot_report_target_end(r, &code);
	char name[32];

	fprintf(f, "  \"target\": {\"binary\": ");
	ot_json_string(f, r->binary);
	fprintf(f, ", \"pid\": %d", r->pid);
	if (r->npids > 1) {
		size_t i;

		fprintf(f, ", \"pids\": [");
		for (i = 0; i < r->npids; i++)
			fprintf(f, "%s%d", i ? ", " : "", r->pids[i]);
		fprintf(f, "]");
	}
	if (r->cgroup) {
		fprintf(f, ", \"cgroup\": ");
		ot_json_string(f, r->cgroup);
	}
	fprintf(f, ", \"exited\": %s", r->target_exited ? "true" : "false");
	if (end == OT_END_EXIT) {
		fprintf(f, ", \"exit_status\": %d", code);
	} else if (end == OT_END_SIGNAL) {
		fprintf(f, ", \"signal\": %d, \"signal_name\": ", code);
		ot_json_string(f, ot_signal_name(code, name, sizeof(name)));
	} else if (r->target_exited && r->target_exit_why) {
		fprintf(f, ", \"exit_unknown\": ");
		ot_json_string(f, r->target_exit_why);
	}
	if (end != OT_END_UNKNOWN && r->target_exit_from)
		fprintf(f, ", \"exit_from\": \"%s\"", r->target_exit_from);
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
		inject_json(f, r);
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
	if (r->filter) {
		fprintf(f, "  \"filter\": {\"by\": ");
		ot_json_string(f, r->filter);
		fprintf(f, ", \"records_dropped\": %" PRIu64 "},\n", r->filtered);
	}
	if (r->strings)
		fprintf(f, "  \"strings\": {\"probe\": %" PRIu64 ", \"late\": %" PRIu64
			", \"unreadable\": %" PRIu64 "},\n", r->strings->probe, r->strings->late,
			r->strings->unreadable);
}

/* A string argument's most frequent values: "strings": {"what": "arg1:str",
 * "distinct": N, "top": [{"value": "...", "count": N}, ...]}. */
static void strings_json(FILE *f, const struct ot_report_func *fn)
{
	size_t k;

	fprintf(f, ", \"strings\": {\"what\": ");
	ot_json_string(f, fn->strs_name);
	fprintf(f, ", \"distinct\": %zu, \"top\": [", fn->strs_distinct);
	for (k = 0; k < fn->nstrs; k++) {
		fprintf(f, "%s{\"value\": ", k ? ", " : "");
		ot_json_string(f, fn->strs[k].value);
		fprintf(f, ", \"count\": %" PRIu64 "}", fn->strs[k].count);
	}
	fprintf(f, "]}");
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
	fprintf(f, ", \"offset\": %" PRIu64, fn->offset);
	if (fn->returns)
		fprintf(f, ", \"returns\": \"%s\"", fn->returns);
	if (fn->ntail_funcs) {
		size_t k;

		fputs(", \"tail_probed\": [", f);
		for (k = 0; k < fn->ntail_funcs; k++) {
			fputs(k ? ", " : "", f);
			ot_json_string(f, fn->tail_funcs[k]);
		}
		fputc(']', f);
	}
	/* One count for every row kind (issue 34): a function's scopes, a
	 * USDT probe's hits; "scopes" and "hits" stay, each its own. */
	fprintf(f, ", \"count\": %" PRIu64 ", \"scopes\": %" PRIu64,
		fn->point ? s->points : s->scopes, s->scopes);
	if (fn->point)
		fprintf(f, ", \"point\": true, \"hits\": %" PRIu64, s->points);
	if (fn->pair) {
		fprintf(f, ", \"pair\": ");
		ot_json_string(f, fn->pair);
		fprintf(f, ", \"skipped\": %" PRIu64, s->skipped);
	}
	if (fn->strs_name)
		strings_json(f, fn);
	fprintf(f, ", \"depths\": {");
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
		ot_report_path_json(f, sl);
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
		ot_report_hist_json(f, &fn->st->hist);
		if (r->calib) {
			fprintf(f, ", \"compensated_ns\": ");
			ot_report_hist_json(f, fn->st->comp);
		}
		if (fn->arg || fn->ret || fn->nmore) {
			size_t k, n = 0;
			const char *what;
			const struct ot_values *v;

			fprintf(f, ",\n     \"arg\": ");
			values_json(f, fn->arg_name, fn->arg);
			fprintf(f, ", \"ret\": ");
			values_json(f, fn->ret_name, fn->ret);
			/* Every value, in order: arg and ret stay for readers of one. */
			fprintf(f, ",\n     \"values\": [");
			for (k = 0; k < fn->nmore + 2; k++) {
				if (!(v = ot_report_value(fn, k, &what)))
					continue;
				fprintf(f, "%s", n++ ? ", " : "");
				values_json(f, what, v);
			}
			fputc(']', f);
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

/*
 * "call_tree": every path, however deep, where the text stops - with
 * recursion folded (lib/scopes/fold) so that its size grows with the
 * distinct paths, not the square of the depth; an entry that sums
 * scopes at several depths says which ("depths": [lowest, deepest]).
 */
static void call_tree_json(FILE *f, const struct ot_report *r)
{
	struct ot_fold fo;
	size_t i;

	ot_fold_tree(r->tree, r->ntree, &fo);
	fprintf(f, "  \"call_tree\": [");
	for (i = 1; i < fo.n; i++) {
		const struct ot_fold_entry *e = &fo.e[i];

		fprintf(f, "%s\n    {\"path\": [", i > 1 ? "," : "");
		fold_path_json(f, r, &fo, (uint32_t)i);
		fprintf(f, "], \"calls\": %" PRIu64 ", \"total_ns\": %" PRIu64
			", \"self_ns\": %" PRIu64, e->calls, e->total_ns, e->self_ns);
		if (e->depth_lo != e->depth_hi)
			fprintf(f, ", \"depths\": [%u, %u]", e->depth_lo, e->depth_hi);
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n  \"call_tree_dropped\": %" PRIu64 "\n", r->tree_dropped);
	ot_fold_free(&fo);
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

void ot_report_json_line(FILE *f, const struct ot_report *r)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	ot_report_json(m, r);
	fclose(m);
	/* Strings are escaped: every newline is layout. */
	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	p = strchr(buf, '{');
	if (p)
		fprintf(f, "%s\n", p);
	free(buf);
}
