/*
 * capture_report.c - the end of a capture put into words (capture_report.h):
 * the backend's account, the verdict's reasons, struct ot_report filled; -l's
 * listing.
 */
#include "capture_report.h"
#include "keyed.h"
#include "lang.h"
#include "capture_priv.h"
#include "process/exitinfo.h"
#include "symbols/debuginfo.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int cmp_fol(const void *a, const void *b)
{
	const struct ot_follow_proc *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * At the end, before judging: what the backend says of its own part, and
 * the functions it did not arm in the program the process runs last (an
 * exec arms each program again).
 */
void ot_capture_backend_said(struct ot_capture *c)
{
	size_t i;

	ot_probes_say(c->probes, &c->said);
	c->refused = ot_xcalloc(c->plan.sel.n + 1, sizeof(*c->refused));
	for (i = 0; i < c->plan.sel.n; i++) {
		const char *why = ot_probes_refused(c->probes, i);

		if (why) {
			/* The backend's copy goes when it is disarmed, before JSON. */
			c->refused[c->nrefused].name = c->plan.names[i];
			c->refused[c->nrefused++].why = ot_xstrdup(why);
		}
	}
}

/*
 * A backend that arms a program again after an exec from a thread other
 * than the process's first (ot_probes_thread_execs): an exec that could
 * not be held ran unprobed until its links were made again, and one whose
 * links could not be made again runs unprobed to the end.
 */
static void judge_thread_execs(struct ot_capture *c)
{
	const struct ot_probes_thread_execs *te = ot_probes_thread_execs(c->probes);
	char why[512], d[32];

	if (!te)
		return;
	if (te->rearm_err) {
		snprintf(why, sizeof(why), "the process exec'd from a thread other than its first "
			 "and its probes could not be armed again (%s): the calls of its new "
			 "program are not counted", strerror(te->rearm_err));
		ot_check_add(&c->check, OT_STATUS_LOSSY, why);
	}
	if (te->count > te->held) {
		snprintf(why, sizeof(why), "%" PRIu64 " of %" PRIu64 " programs the process "
			 "exec'd from a thread other than its first ran unprobed for up to %s "
			 "before their probes were armed again (%s): their calls meanwhile are "
			 "not counted", te->count - te->held, te->count,
			 ot_report_duration(te->unprobed_ns, d, sizeof(d)),
			 te->why ? te->why : "not held");
		ot_check_add(&c->check, OT_STATUS_LOSSY, why);
	}
}

/*
 * A capture armed before the program ran has seen every call begin: a
 * return with no call (an orphan) means the pairing lost its way (a
 * stack it could not follow), and the counts around it are not to be
 * trusted.  Functions only: a runtime's return probe may fire for a
 * frame it never entered (a pair's row).  Not with --follow, whose
 * children return from calls their parent made before forking.
 */
static void judge_orphans(struct ot_capture *c)
{
	uint64_t orphans = 0;
	size_t i;
	char why[320];

	if (!c->o.argv || c->o.all || c->o.follow)
		return;
	for (i = 0; i < c->plan.sel.n; i++)
		if (!c->plan.sel.fn[i].usdt)
			orphans += ot_tables_stats(c->tables, i)->orphans;
	if (!orphans)
		return;
	snprintf(why, sizeof(why), "%" PRIu64 " return%s came with no call open, in a capture "
		 "armed before the program ran: the pairing could not follow %s stack (a fiber "
		 "or coroutine switching stacks?), so the counts around %s are not exact",
		 orphans, orphans == 1 ? "" : "s", orphans == 1 ? "its" : "their",
		 orphans == 1 ? "it" : "them");
	ot_check_add(&c->check, OT_STATUS_LOSSY, why);
}

/*
 * A stack switch seen at run time with a call under a return probe open
 * on either side (a fiber or coroutine switched by code no file scan
 * names: lib/symbols/switches.h): the kernel follows it only by chance
 * and otherwise kills the program (SIGILL) or drops returns, so counts
 * made across it are never ok.  Return probes are not disarmed then: the
 * first wrong return comes microseconds after the switch, long before a
 * drain could see it.
 */
static void judge_switches(struct ot_capture *c)
{
	uint32_t tid;
	uint64_t n = ot_pair_uret_switches(c->pair, &tid);
	char why[512];

	if (!n)
		return;
	snprintf(why, sizeof(why), "thread %u switched stacks with calls under return probes "
		 "open (%" PRIu64 " time%s; a fiber or coroutine no file names): the kernel keeps "
		 "one chain of return probes per thread, not per stack, so returns across a switch "
		 "are seen by chance, lost or fatal (SIGILL); --returns insn sees them at return "
		 "instructions", (unsigned)tid, n, n == 1 ? "" : "s");
	ot_check_add(&c->check, OT_STATUS_LOSSY, why);
}

/*
 * How the target ended, from the best witness: its wait (ours, or its
 * tracer's), else the kernel's exit tracepoint (lib/probes/exitwatch),
 * else its pidfd or its zombie (lib/process/exitinfo).  A crash is a
 * reason.
 */
static void judge_end(struct ot_capture *c)
{
	struct ot_target *t = &c->target;
	int st;

	if (!t->exited || c->o.all)
		return;
	if (t->exit_from != OT_EXIT_WAIT && t->exit_from != OT_EXIT_PTRACE &&
	    ot_exitwatch_status(c->exitw, &st)) {
		t->status = st;
		t->exit_from = OT_EXIT_KERNEL;
		t->exit_why = NULL;
	}
	/* Its parent may have reaped it since the capture ended: its pidfd
	 * tells then (Linux 6.15). */
	if (!t->exit_from && t->pidfd >= 0)
		t->exit_from = ot_exit_learn(t->pid, t->pidfd, &t->status, &t->exit_why);
	if (t->exit_from)
		ot_check_target_end(&c->check, (int)t->pid, t->status);
	else
		ot_verbose("how process %d ended is not known: %s", (int)t->pid, t->exit_why);
}

/*
 * A Go program its runtime ended: a fatal error (Go's "fatal error: ...",
 * exit status 2: the program could not go on, whatever its calls were)
 * fails the capture; a panic nobody recovered ended it with its
 * goroutines' calls open (unclosed).  Neither is ever ok.
 */
static void judge_go_deaths(struct ot_capture *c)
{
	if (c->ngo_death > OT_PLAN_GO_THROW && c->go_deaths[OT_PLAN_GO_THROW])
		ot_check_add(&c->check, OT_STATUS_FAILED, "the Go runtime threw a fatal error "
			     "(runtime.fatalthrow: Go's \"fatal error: ...\", exit status 2): the "
			     "program died, the calls its goroutines had open are unclosed");
	if (c->ngo_death > OT_PLAN_GO_PANIC && c->go_deaths[OT_PLAN_GO_PANIC])
		ot_check_add(&c->check, OT_STATUS_LOSSY, "a panic nobody recovered ended the Go "
			     "program (runtime.fatalpanic, exit status 2): the calls its "
			     "goroutines had open are unclosed");
}

/*
 * One -p process that made none of the traced calls, with children (a
 * service's master, its workers doing the work): a note naming them and
 * how to trace them.  The counts are right; the user may be misled.
 */
static void master_hint(struct ot_capture *c, const struct ot_func_stats **st, size_t nrows)
{
	char path[64], kids[256] = "", why[512];
	size_t i, n;

	if (!c->o.pid || c->o.npids != 1 || c->o.follow || c->o.argv || c->o.all)
		return;
	for (i = 0; i < nrows; i++)
		if (st[i]->scopes || st[i]->points || st[i]->unclosed || st[i]->orphans)
			return;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)c->o.pid, (int)c->o.pid);
	if (ot_proc_read_file(path, kids, sizeof(kids)) || !kids[0])
		return;
	n = strlen(kids);
	while (n && (kids[n - 1] == ' ' || kids[n - 1] == '\n'))
		kids[--n] = 0;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		if (kids[i] == ' ')
			kids[i] = ',';
	snprintf(why, sizeof(why), "process %d made none of the traced calls; its child "
		 "processes (%s) may make them: -p %d,%s traces them too (a service's master "
		 "and workers), --follow a command's children", (int)c->o.pid, kids,
		 (int)c->o.pid, kids);
	ot_check_add(&c->check, OT_STATUS_OK, why);
}

void ot_capture_judge(struct ot_capture *c)
{
	size_t nrows = ot_keyed_nreport(c);
	const struct ot_func_stats **st = ot_xcalloc(nrows + 1, sizeof(*st));
	size_t i;

	for (i = 0; i < nrows; i++)
		st[i] = ot_tables_stats(c->tables, i);
	ot_check_run(&c->check, nrows, c->plan.sel.n, c->names, st, c->o.expect,
		     c->o.nexpect, c->o.max_loss, ot_drain_stats(c->drain)->lost,
		     c->lost_exact,
		     ot_probes_can(c->probes) & OT_RINGS_IN_PROCESS ? "the process's rings" : NULL);
	/* A function the backend did not arm has no counts to be inexact:
	 * the backend's own line says so. */
	for (i = 0; i < c->plan.sel.n; i++)
		if (c->plan.ret[i].inexact && !(c->probes && ot_probes_refused(c->probes, i)))
			ot_check_add(&c->check, OT_STATUS_LOSSY, c->plan.ret[i].inexact);
	if (c->fol.dropped) {
		char why[192];

		snprintf(why, sizeof(why), "%llu process%s forked by followed ones %s not "
			 "followed: the kernel's table of them was full",
			 (unsigned long long)c->fol.dropped, c->fol.dropped == 1 ? "" : "es",
			 c->fol.dropped == 1 ? "was" : "were");
		ot_check_add(&c->check, OT_STATUS_LOSSY, why);
	}
	for (i = 0; i < c->said.nwhy; i++)
		ot_check_add(&c->check, OT_STATUS_LOSSY, c->said.why[i]);
	judge_thread_execs(c);
	judge_orphans(c);
	judge_switches(c);
	judge_end(c);
	judge_go_deaths(c);
	ot_capture_filter_judge(c);
	ot_keyed_judge(c);
	ot_capture_lang_judge(c);
	master_hint(c, st, nrows);
	free(st);
}

/* What the drain counted, as the report has it. */
static struct ot_report_records records(const struct ot_capture *c)
{
	const struct ot_drain_stats *d = ot_drain_stats(c->drain);
	struct ot_report_records rec = {
		.samples = d->samples, .lost = d->lost, .malformed = d->malformed,
		.foreign = d->foreign, .late = d->late, .no_sp = d->no_sp,
		.unknown = d->unknown, .foreign_lost = d->foreign_lost,
		.lost_at_end = d->lost_at_end, .lost_inexact = !c->lost_exact,
	};

	return rec;
}

/* RUSAGE_SELF: the tracer alone, not the command it reaped. */
static void tracer_usage(struct ot_report *r)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return;
	r->tracer_cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
			   (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
	r->tracer_max_rss_kb = (uint64_t)ru.ru_maxrss;
}

/* A process's name as the capture saw it: the probes' (at its calls, or
 * in the kernel's table of followed processes), the drain's, else its
 * last as an exit of a followed process reported it. */
int ot_capture_seen_comm(struct ot_capture *c, uint32_t pid, char *buf, size_t len)
{
	size_t i;

	if (!ot_probes_comm(c->probes, pid, buf, len) || !ot_drain_comm(c->drain, pid, buf, len))
		return 0;
	for (i = c->fol.n; i-- > 0;)
		if (c->fol.procs[i].pid == pid && c->fol.procs[i].comm[0] && len) {
			snprintf(buf, len, "%s", c->fol.procs[i].comm);
			return 0;
		}
	return -1;
}

/*
 * -a: each process with rows, named as the backend last saw it make a
 * traced call (after an exec, the new program's name; gone, still named),
 * sorted by pid; those it has no name for keep their row's.
 */
static struct ot_follow_proc *names_now(struct ot_capture *c, size_t *n)
{
	size_t nrows, i;
	struct ot_report_proc *rows = ot_sinks_procs_now(&c->sinks, &nrows);
	struct ot_follow_proc *v = ot_xcalloc(nrows + 1, sizeof(*v));

	*n = 0;
	for (i = 0; i < nrows; i++) {
		if ((*n && v[*n - 1].pid == rows[i].pid) ||
		    ot_capture_seen_comm(c, rows[i].pid, v[*n].comm, sizeof(v[*n].comm)))
			continue;
		v[(*n)++].pid = rows[i].pid;
	}
	free(rows);
	return v;
}

/* Each function's row: its names, file, and what its scopes left. */
static struct ot_report_func *fill_funcs(struct ot_capture *c)
{
	struct ot_report_func *fn = ot_xcalloc(c->nrows + 1, sizeof(*fn));
	size_t i;

	for (i = 0; i < c->plan.sel.n; i++) {
		size_t k;

		fn[i].name = c->plan.names[i];
		for (k = 0; k < c->nrefused && c->refused[k].name != c->plan.names[i]; k++)
			;
		fn[i].not_armed = k < c->nrefused;
		fn[i].symbol = c->plan.sel.fn[i].sym->name;
		fn[i].aliases = c->plan.sel.fn[i].aliases;
		fn[i].binary = c->plan.sel.fn[i].bin->file;
		fn[i].offset = c->plan.sel.fn[i].sym->offset;
		fn[i].st = ot_tables_stats(c->tables, i);
		/* A pair's ENTRYFN: its entries counted, no scope (keyed.c). */
		fn[i].point = c->plan.sel.fn[i].usdt != NULL ||
			      c->plan.sel.fn[i].fpair == OT_SEL_PAIR_ENTRY;
		fn[i].returns = fn[i].point ? NULL : ot_probes_returns(c->probes) ?
				ot_probes_returns(c->probes) :
				c->plan.pt[i].ret_sites ? "insn" : "uretprobe";
		if (c->plan.ret[i].sites && !fn[i].not_armed) {
			fn[i].tail_funcs = c->plan.ret[i].tail_funcs;
			fn[i].ntail_funcs = c->plan.ret[i].ntail_funcs;
		}
	}
	ot_keyed_report(c, fn);
	ot_sinks_report(&c->sinks, fn);
	return fn;
}

void ot_capture_snapshot(struct ot_capture *c, struct ot_report *r)
{
	memset(r, 0, sizeof(*r));
	r->binary = c->target.display;
	r->pid = (int)c->target.pid;
	r->backend = ot_probes_backend(c->probes);
	r->funcs = fill_funcs(c);
	r->nfuncs = ot_keyed_nreport(c);
	r->names = c->names;
	r->records = records(c);
	r->duration_ns = ot_now_ns() - c->t_start;
	r->arm_ns = c->arm_ns;
	r->procs = ot_sinks_procs_now(&c->sinks, &r->nprocs);
}

void ot_capture_snapshot_free(struct ot_report *r)
{
	free((void *)r->funcs);
	free((void *)r->procs);
}

void ot_capture_fill_report(struct ot_capture *c)
{
	struct ot_report_func *fn;
	struct ot_report r;
	size_t nfn = 0;
	unsigned i;

	memset(&r, 0, sizeof(r));
	r.ring_high_water = ot_probes_high_water(c->probes);
	fn = fill_funcs(c);
	r.binary = c->target.display;
	r.pid = (int)c->target.pid;
	if (c->o.npids > 1) {
		r.pids = c->o.pids;
		r.npids = c->o.npids;
	}
	r.cgroup = c->cgroup_path;
	r.functions_requested = c->plan.sel.requested;
	r.functions_armed = c->plan.sel.n;
	r.uprobes = ot_probes_nuprobes(c->probes);
	for (i = 0; i < c->plan.sel.n; i++) {
		int point = c->plan.sel.fn[i].usdt || c->plan.sel.fn[i].fpair == OT_SEL_PAIR_ENTRY;

		nfn += !point;
		r.insn_returns += !point && c->plan.pt[i].ret_sites != NULL;
	}
	r.returns = nfn && r.insn_returns == nfn ? "insn" :
		    !r.insn_returns ? "uretprobe" : "mixed";
	if (ot_probes_returns(c->probes))
		r.returns = ot_probes_returns(c->probes);
	r.functions_armed = c->plan.sel.n - c->nrefused;
	r.refused = c->refused;
	r.nrefused = c->nrefused;
	r.figures = &c->said.figs;
	r.rings_in_process = !!(ot_probes_can(c->probes) & OT_RINGS_IN_PROCESS);
	r.backend = ot_probes_backend(c->probes);
	r.objects = ot_probes_objects(c->probes);
	r.frozen = c->o.freeze;
	r.events = ot_probes_nevents(c->probes);
	r.cpus = ot_probes_ncpus(c->probes);
	r.ring_kb = ot_probes_ring_kb(c->probes);
	r.drain_ms = (unsigned)c->o.drain_ms;
	r.duration_ns = c->t_end - c->t_start;
	r.ended_by = c->ended_by;
	r.target_exited = c->target.exited;
	r.target_status = c->target.exit_from ? c->target.status : -1;
	if (c->target.exit_from != OT_EXIT_WAIT)
		r.target_exit_from = ot_exit_from_name(c->target.exit_from);
	r.target_exit_why = c->target.exit_why;
	r.records = records(c);
	ot_capture_filter_report(c, &r);
	r.threads = c->tables->threads;
	r.nfuncs = ot_keyed_nreport(c);
	r.funcs = fn;
	r.check = &c->check;
	r.has_expect = c->o.nexpect > 0;
	r.max_loss_pct = c->o.max_loss;
	r.tree = ot_tables_tree(c->tables, &r.ntree);
	r.tree_dropped = c->tables->tree_dropped;
	r.names = c->names;
	r.strings = c->rep_strs.any ? &c->rep_strs : NULL;
	r.draw_hist = c->o.hist;
	c->rep_calib.pair_ns = c->calib.pair_ns;
	c->rep_calib.own_ns = c->calib.own_ns;
	c->rep_calib.empty_ns = c->calib.empty_ns;
	c->rep_calib.live_calls = c->calib.live_calls;
	r.calib = c->o.compensate ? &c->rep_calib : NULL;
	if (c->o.follow) {
		c->fol.rep.processes = c->fol.n;
		c->fol.rep.dropped = c->fol.dropped;
		r.follow = &c->fol.rep;
	}
	if (c->sinks.nprocs && c->fol.n)
		qsort(c->fol.procs, c->fol.n, sizeof(*c->fol.procs), cmp_fol);
	if (c->o.all) {
		size_t nnamed;
		struct ot_follow_proc *named = names_now(c, &nnamed);

		r.procs = ot_sinks_procs(&c->sinks, named, nnamed, &r.nprocs);
		free(named);
	} else {
		r.procs = ot_sinks_procs(&c->sinks, c->fol.procs, c->fol.n, &r.nprocs);
	}
	r.arm_ns = c->arm_ns;
	r.arm_ipis = c->arm_ipi.cal;
	r.arm_tlb = c->arm_ipi.tlb;
	tracer_usage(&r);
	c->rep = r;
	c->rep_fn = fn;
}

/* -l's row of a USDT probe s. */
static void list_probe(struct ot_list_probe *pr, const struct ot_selected *s)
{
	struct ot_list_site *site = ot_xcalloc(s->usdt->nsites, sizeof(*site));
	size_t k;

	pr->file = s->bin->file;
	pr->provider = s->usdt->provider;
	pr->name = s->usdt->name;
	pr->sema_addr = s->usdt->sema_vaddr;
	pr->sema_offset = s->usdt->sema_offset;
	for (k = 0; k < s->usdt->nsites; k++) {
		site[k].addr = s->usdt->sites[k].vaddr;
		site[k].offset = s->usdt->sites[k].offset;
		site[k].args = s->usdt->sites[k].args;
	}
	pr->sites = site;
	pr->nsites = s->usdt->nsites;
}

/*
 * -l: like perf probe -F, what a pattern selects, before anything is
 * armed.  DWARF, where there is some, tells which functions also have
 * inlined copies: calls to those never reach a probe.
 */
enum ot_capture_result ot_capture_list(struct ot_capture *c)
{
	struct ot_list_fn *fn = ot_xcalloc(c->plan.sel.n + 1, sizeof(*fn));
	struct ot_list_skip *sk = ot_xcalloc(c->plan.sel.nskipped + 1, sizeof(*sk));
	uint64_t *part = ot_xcalloc(c->plan.sel.n + 1, sizeof(*part));
	const char **raw = ot_xcalloc(c->plan.sel.n + 1, sizeof(*raw));
	const struct ot_binary *shown = NULL;
	struct ot_list_probe *pr = ot_xcalloc(c->plan.sel.n + 1, sizeof(*pr));
	struct ot_list l = { fn, 0, sk, c->plan.sel.nskipped, pr, 0 };
	int have_dwarf = 0, bad;
	size_t i, k;

	/* USDT probes come after the functions (ot_binset_select). */
	for (i = 0; i < c->plan.sel.n; i++)
		if (c->plan.sel.fn[i].usdt)
			list_probe(&pr[l.nprobes++], &c->plan.sel.fn[i]);
		else
			l.n++;

	for (i = 0; i < c->plan.sel.n; i++)
		raw[i] = c->plan.sel.fn[i].sym->name;
	for (i = 0; i < c->plan.sel.n; i++) {
		const struct ot_selected *s = &c->plan.sel.fn[i];

		fn[i].file = s->bin->file;
		fn[i].file_functions = ot_elf_nsyms(s->bin->elf);
		fn[i].file_source = ot_elf_source(s->bin->elf);
		fn[i].offset = s->sym->offset;
		fn[i].size = s->sym->size;
		fn[i].symbol = s->sym->name;
		fn[i].demangled = s->sym->demangled;
		fn[i].aliases = s->aliases;
		if (s->bin == shown)
			continue;
		shown = s->bin;
		/* Counted by name in this file's DWARF: keep its own functions'. */
		if (!ot_debuginfo_inlined(shown->path, raw, c->plan.sel.n, part)) {
			have_dwarf = 1;
			for (k = 0; k < c->plan.sel.n; k++)
				if (c->plan.sel.fn[k].bin == shown)
					fn[k].inlined = part[k];
		}
	}
	for (i = 0; i < c->plan.sel.nskipped; i++) {
		sk[i].file = c->plan.sel.skipped[i].bin->display;
		sk[i].name = ot_sym_display(c->plan.sel.skipped[i].sym);
		sk[i].why = c->plan.sel.skipped[i].sym->not_called;
	}
	if (!have_dwarf)
		ot_verbose("no DWARF: inlined copies of these functions cannot be listed");
	c->keep_outputs = 1;
	bad = ot_report_list(c->out, &l) || fflush(c->out);
	for (i = 0; i < l.nprobes; i++)
		free((void *)pr[i].sites);
	free(pr);
	free(part);
	free(raw);
	free(sk);
	free(fn);
	return bad ? OT_CAPTURE_FAILED : OT_CAPTURE_DONE;
}

/* Each output file written to its end and closed (lib/util/outfile). */
static int close_outputs(struct ot_capture *c)
{
	int bad = 0;

	if (c->folded) {
		size_t n;
		const struct ot_tree_node *tree = ot_tables_tree(c->tables, &n);

		if (ot_folded_write(c->folded, tree, n, c->names))
			bad = 1;
		c->folded = NULL;
	}
	bad |= !!ot_outfile_close(c->folded_file, 1);
	c->folded_file = NULL;
	ot_timeline_close(c->timeline, 1);
	c->timeline = NULL;
	bad |= !!ot_outfile_close(c->trace_file, 1);
	c->trace_file = NULL;
	return bad;
}

enum ot_capture_result ot_capture_outputs(struct ot_capture *c)
{
	size_t i;

	if (close_outputs(c))
		return OT_CAPTURE_FAILED;
	/* -o's file says why itself when it cannot be written. */
	if (c->out_file ? ot_outfile_close(c->out_file, 1) != 0 : ferror(c->out) != 0) {
		if (!c->out_file)
			ot_error("cannot write the report");
		c->out_file = NULL;
		return OT_CAPTURE_FAILED;
	}
	c->out_file = NULL;
	c->out = stdout;
	if (c->check.status == OT_STATUS_FAILED) {
		for (i = 0; i < c->check.nreasons; i++)
			ot_error("check failed: %s", c->check.reasons[i]);
		return OT_CAPTURE_CHECK_FAILED;
	}
	return OT_CAPTURE_OK;
}
