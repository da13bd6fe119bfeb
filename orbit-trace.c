/*
 * orbit-trace - count and time user-space functions of a live process
 * with uprobes.  This file parses the command line and runs the capture's
 * life cycle: resolve symbols -> arm probes -> drain rings into scopes
 * -> disable -> report -> disarm.  The work is in lib/.
 */
#include "lib/calib.h"
#include "lib/caps.h"
#include "lib/check.h"
#include "lib/drain.h"
#include "lib/elfsym.h"
#include "lib/error.h"
#include "lib/export.h"
#include "lib/options.h"
#include "lib/ipi.h"
#include "lib/pair.h"
#include "lib/report.h"
#include "lib/retsite.h"
#include "lib/target.h"
#include "lib/uprobe.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#ifndef OT_VERSION
#define OT_VERSION "0.1.0"
#endif
#ifndef OT_ELFUTILS_VERSION
#define OT_ELFUTILS_VERSION "unknown"
#endif
#ifndef OT_LIBCAP_VERSION
#define OT_LIBCAP_VERSION "unknown"
#endif

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_CHECK = 3 };

/*
 * How far behind "now" the merge stops: a sample is timestamped a moment
 * before it is committed to its ring, so one with an older time may still
 * be on its way.  Commit takes microseconds; 20 ms also covers a vCPU
 * descheduled mid-write.  Anything later still is counted as "late".
 */
#define MERGE_SLACK_NS (20ull * 1000 * 1000)


/* SIGPIPE as orbit-trace was started with it (main ignores it). */
static int sigpipe_ignored;

/* Everything one capture owns, in the order it is acquired. */
struct capture {
	struct ot_options o;
	FILE *out;
	struct ot_target target;
	struct ot_user user;
	struct ot_elf *elf;	/* the main executable */
	struct ot_binset *bins;	/* it and the libraries -f names */
	struct ot_selection sel;
	struct ot_probe_target *pt;
	uint64_t **ret_sites;	/* per function, with --returns insn */
	unsigned char *tail_calls; /* per function, with --returns insn */
	char **inexact;		/* per function: why its count may be short, or NULL */
	char **labels;
	struct ot_probes *probes;
	struct ot_pair *pair;
	struct ot_drain *drain;
	int sigfd;
	sigset_t oldmask;
	uint64_t t_start, t_end;
	const char *ended_by;
	const char **names;	/* function index -> name shown, owned */
	struct ot_timeline *timeline;
	FILE *folded;
	struct ot_check check;
	struct ot_calib calib;
	uint64_t arm_t0, arm_ns; /* arming's wall time, open to enable */
	struct ot_ipi arm_before, arm_ipi; /* IPIs and shootdowns it caused */
	/* --compensate: ot_calib_target probed as target npt - 1 of pt, its
	 * scopes paired apart, called by calib_live during the capture. */
	size_t npt;		/* probe targets: the selection, + 1 with --compensate */
	struct ot_pair *calib_pair;
	struct ot_calib_live *calib_live;
	uint64_t calib_next;	/* when calib_update next looks */
	struct ot_report rep;	/* filled once the capture is over */
	struct ot_report_func *rep_fn;
	/* Read by the slow-disarm timer's thread, which may outlive the
	 * probes: a copy of what they were. */
	size_t disarm_n;
	const char *disarm_what;
	int live;		/* live status line on stderr */
	uint64_t live_next, live_scopes, live_time;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Records of the calibration's own function go to its own pairing. */
static void feed_pair(void *ctx, const struct ot_event *ev)
{
	struct capture *c = ctx;

	if (c->calib_pair && ev->kind != OT_EV_LOST && ev->func == c->sel.n) {
		struct ot_event e = *ev;

		e.func = 0;
		ot_pair_feed(c->calib_pair, &e);
		return;
	}
	ot_pair_feed(c->pair, ev);
}

/*
 * --compensate: once the calibration thread has made enough calls during
 * the capture, compensate with what they cost now, not before it began.
 */
static void calib_update(struct capture *c)
{
	const struct ot_func_stats *st;
	uint64_t call_ns, now;
	size_t bursts;

	/* The bursts' median is a sort: a few times a second is plenty,
	 * not at every ring wake-up. */
	if (!c->calib_live || (now = now_ns()) < c->calib_next)
		return;
	c->calib_next = now + 200000000ull;
	st = ot_pair_stats(c->calib_pair, 0);
	call_ns = ot_calib_live_call_ns(c->calib_live, &bursts);
	if (st->scopes < 4 * OT_CALIB_LIVE_CALLS || bursts < 4)
		return;
	c->calib.own_ns = ot_hist_quantile(&st->hist, 0.5);
	c->calib.pair_ns = call_ns > c->calib.empty_ns ? call_ns - c->calib.empty_ns : 0;
	c->calib.live_calls = st->scopes;
	ot_pair_compensate(c->pair, c->calib.own_ns, c->calib.pair_ns);
}

static void on_scope(void *ctx, const struct ot_scope *s)
{
	struct capture *c = ctx;

	if (c->timeline)
		ot_timeline_scope(c->timeline, s);
}

/*
 * One line on a terminal, redrawn twice a second: people watching a long
 * capture want to know it is alive and whether it is losing records.
 */
static void live_status(struct capture *c, uint64_t now, int final)
{
	uint64_t scopes, hw = 0, size = 1;
	unsigned i;

	if (!c->live)
		return;
	if (final) {
		if (c->live_next != c->t_start + 1000000000ull)
			fputs("\r\033[K", stderr);
		return;
	}
	if (now < c->live_next)
		return;
	for (i = 0; i < ot_probes_ncpus(c->probes); i++) {
		struct ot_ring *r = ot_probes_ring(c->probes, i);

		if (r->high_water * size > hw * r->size) {
			hw = r->high_water;
			size = r->size;
		}
	}
	scopes = ot_pair_scopes(c->pair);
	fprintf(stderr, "\r\033[Korbit-trace: %.1f s, %.0f scopes/s, %" PRIu64
		" records lost, ring peak %.1f%%",
		(double)(now - c->t_start) / 1e9,
		(double)(scopes - c->live_scopes) * 1e9 /
			(double)(now - (c->live_time ? c->live_time : c->t_start)),
		ot_drain_stats(c->drain)->lost, 100.0 * (double)hw / (double)size);
	c->live_scopes = scopes;
	c->live_time = now;
	c->live_next = now + 500000000ull;
}

static void drain_round(struct capture *c, uint64_t horizon)
{
	unsigned i;

	for (i = 0; i < ot_probes_ncpus(c->probes); i++)
		ot_drain_ring(c->drain, i, ot_probes_ring(c->probes, i));
	ot_drain_flush(c->drain, horizon);
	calib_update(c);
}

/* --returns insn: a probe on each return instruction of function i. */
/* Is the function at off in bin one of the selection? */
static int selected(const struct capture *c, const struct ot_binary *bin, uint64_t off)
{
	size_t k;

	for (k = 0; k < c->sel.n; k++)
		if (c->sel.fn[k].bin == bin && c->sel.fn[k].sym->offset == off)
			return 1;
	return 0;
}

/* How many functions a tail-call chain is followed through. */
#define TAIL_MAX 64

/*
 * The function of bin a jump through the pointer slot lands in (slot in
 * the code's file offset space, as lib/retsite gives it), or NULL.
 */
static const struct ot_sym *slot_target(const struct ot_binary *bin, uint64_t code_off,
					uint64_t slot)
{
	const char *name;

	return ot_elf_slot_target(bin->elf, slot + (uint64_t)ot_elf_text_delta(bin->elf, code_off),
				  &name);
}

/* A jump to off, where no function is: a PLT stub's? Its target, or NULL. */
static const struct ot_sym *plt_target(const struct ot_binary *bin, uint64_t off)
{
	const struct ot_sym *t = NULL;
	struct ot_exits z;

	/* A stub: [endbr64;] [bnd] jmp *slot(%rip), then padding or the
	 * lazy binder's push/jmp. */
	if (ot_exits_file(bin->path, off, 16, &z))
		return NULL;
	if (z.nslots && !z.nrets)
		t = slot_target(bin, off, z.slots[0]);
	ot_exits_free(&z);
	return t;
}

/*
 * Queue on x the functions that the pointer jumps of y (code at code_off)
 * land in; count those that land elsewhere (another library, a pointer
 * set at run time).
 */
static void queue_slots(const struct ot_binary *bin, uint64_t code_off, const struct ot_exits *y,
			struct ot_exits *x, size_t *unfollowed)
{
	size_t k;

	for (k = 0; k < y->nslots; k++) {
		const struct ot_sym *t = slot_target(bin, code_off, y->slots[k]);

		if (!t) {
			(*unfollowed)++;
			continue;
		}
		x->tails = ot_xreallocarray(x->tails, x->ntails + 1, sizeof(*x->tails));
		x->tails[x->ntails++] = t->offset;
	}
}

/*
 * --returns insn for function i: its return instructions, and those of
 * the functions it tail-calls (directly, in the same file, transitively),
 * which return on its behalf.  Exits that cannot be followed (an indirect
 * jump, a jump into the PLT) make its count inexact: c->inexact[i] says
 * why, and the verdict is not ok.
 */
static int find_returns(struct capture *c, size_t i)
{
	const struct ot_selected *fn = &c->sel.fn[i];
	const struct ot_sym *seen[TAIL_MAX];
	size_t nseen = 0, q, k, own, unfollowed = 0;
	struct ot_exits x, y;
	int ret;

	if (!c->ret_sites) {
		c->ret_sites = ot_xcalloc(c->sel.n, sizeof(*c->ret_sites));
		c->tail_calls = ot_xcalloc(c->sel.n, 1);
		c->inexact = ot_xcalloc(c->sel.n, sizeof(*c->inexact));
	}
	memset(&x, 0, sizeof(x));
	ret = fn->sym->size ? ot_exits_file(fn->bin->path, fn->sym->offset, fn->sym->size, &x) : 0;
	if (ret < 0) {
		ot_error_errno(-ret, "cannot read the code of %s", c->pt[i].label);
		return -1;
	}
	own = x.nrets;
	c->tail_calls[i] = x.ntails || x.indirect || x.nslots;
	seen[nseen++] = fn->sym;
	queue_slots(fn->bin, fn->sym->offset, &x, &x, &unfollowed);
	/* x.tails grows as the chain is followed. */
	for (q = 0; q < x.ntails; q++) {
		const struct ot_sym *t = ot_elf_sym_at(fn->bin->elf, x.tails[q]);

		if (!t)
			t = plt_target(fn->bin, x.tails[q]);

		for (k = 0; t && k < nseen && seen[k]->offset != t->offset; k++)
			;
		if (t && k < nseen)
			continue;
		if (!t || nseen == TAIL_MAX) {
			ot_verbose("%s: cannot follow its tail call to +0x%llx (%s)", c->pt[i].label,
				   (unsigned long long)x.tails[q], t ? "chain too long" :
				   "no function of this file there: another library's?");
			unfollowed++;
			continue;
		}
		seen[nseen++] = t;
		/* A traced callee's own return ends its tail callers too. */
		if (selected(c, fn->bin, t->offset))
			continue;
		if (ot_exits_file(fn->bin->path, t->offset, t->size, &y)) {
			unfollowed++;
			continue;
		}
		ot_verbose("%s: tail call to %s: %zu return instruction%s", c->pt[i].label,
			   ot_sym_display(t), y.nrets, y.nrets == 1 ? "" : "s");
		x.rets = ot_xreallocarray(x.rets, x.nrets + y.nrets + 1, sizeof(*x.rets));
		if (y.nrets)
			memcpy(x.rets + x.nrets, y.rets, y.nrets * sizeof(*y.rets));
		x.nrets += y.nrets;
		x.tails = ot_xreallocarray(x.tails, x.ntails + y.ntails + 1, sizeof(*x.tails));
		if (y.ntails)
			memcpy(x.tails + x.ntails, y.tails, y.ntails * sizeof(*y.tails));
		x.ntails += y.ntails;
		x.indirect += y.indirect;
		queue_slots(fn->bin, t->offset, &y, &x, &unfollowed);
		ot_exits_free(&y);
	}
	/* A non-NULL list, even empty, says "no uretprobe" to lib/uprobe. */
	c->ret_sites[i] = x.rets ? x.rets : ot_xcalloc(1, sizeof(*x.rets));
	x.rets = NULL;
	c->pt[i].ret_sites = c->ret_sites[i];
	c->pt[i].nret_sites = x.nrets;
	c->pt[i].ntail_sites = x.nrets - own;
	ot_verbose("%s: %zu return instruction%s%s", c->pt[i].label, own, own == 1 ? "" : "s",
		   x.nrets > own ? ", and those of the functions it tail-calls" : "");
	if (x.indirect || unfollowed) {
		if (asprintf(&c->inexact[i], "%s: calls that leave it by %s are not "
			     "seen returning (--returns insn); its counts may be short", c->names[i],
			     x.indirect && unfollowed ?
			     "an indirect tail call, or one through a pointer or to another library" :
			     x.indirect ? "an indirect tail call" :
			     "a tail call through a pointer or to another library") < 0)
			c->inexact[i] = NULL;
		ot_verbose("%s: %zu indirect jump%s, %zu tail call%s not followed", c->pt[i].label,
			   x.indirect, x.indirect == 1 ? "" : "s", unfollowed, unfollowed == 1 ? "" : "s");
	}
	if (!x.nrets && !x.ntails && !x.indirect)
		ot_warn("%s has no return instruction and no tail call: no return of "
			"it will be seen (it never returns?)", c->pt[i].label);
	ot_exits_free(&x);
	return 0;
}

/* Returns at return instructions for functions in files with C++
 * exception tables, unless --returns says otherwise. */
static int insn_returns(const struct capture *c, size_t i)
{
	if (c->o.ret_mode_set)
		return c->o.ret_insn;
	/* A return probe kills a program whose threads switch stacks (the
	 * kernel's return chain is per thread, not per stack). */
	return ot_elf_stack_switch(c->elf) || ot_elf_has_eh(c->sel.fn[i].bin->elf);
}

/* symbols: the target's binary and the functions -f selects. */
static int resolve(struct capture *c)
{
	size_t i;
	int ret;

	ret = ot_elf_open(c->target.exe, c->target.display, &c->elf);
	if (ret)
		return EXIT_RUNTIME;
	c->bins = ot_binset_new(c->elf, c->target.exe, c->target.display,
				ot_target_find_lib, &c->target);
	ret = ot_binset_select(c->bins, c->o.functions, &c->sel);
	if (ret)
		return ret == -ENOENT ? EXIT_USAGE : EXIT_RUNTIME;
	c->pt = ot_xcalloc(c->sel.n, sizeof(*c->pt));
	c->labels = ot_xcalloc(c->sel.n, sizeof(*c->labels));
	c->names = ot_xcalloc(c->sel.n, sizeof(*c->names));
	/* A library's functions are shown as "libname:function". */
	for (i = 0; i < c->sel.n; i++) {
		const struct ot_binary *b = c->sel.fn[i].bin;
		char *name = NULL;

		if (b->is_main || asprintf(&name, "%s:%s", b->display,
					   ot_sym_display(c->sel.fn[i].sym)) < 0)
			name = ot_xstrdup(ot_sym_display(c->sel.fn[i].sym));
		c->names[i] = name;
	}
	for (i = 0; i < c->o.nexpect; i++) {
		size_t k;

		for (k = 0; k < c->sel.n; k++)
			if (!strcmp(c->names[k], c->o.expect[i].name))
				break;
		if (k == c->sel.n) {
			ot_error("--expect names '%s', which -f does not trace\n"
				 "Try 'orbit-trace --help' for more information.",
				 c->o.expect[i].name);
			return EXIT_USAGE;
		}
	}
	for (i = 0; i < c->sel.n; i++) {
		const struct ot_sym *s = c->sel.fn[i].sym;

		if (asprintf(&c->labels[i], "%s:%s", c->sel.fn[i].bin->display,
			     ot_sym_display(s)) < 0)
			c->labels[i] = NULL;
		c->pt[i].path = c->sel.fn[i].bin->path;
		c->pt[i].label = c->labels[i] ? c->labels[i] : s->name;
		c->pt[i].offset = s->offset;
		ot_verbose("%s (+0x%llx, %llu bytes, from .%s)", c->pt[i].label,
			   (unsigned long long)s->offset,
			   (unsigned long long)s->size, ot_elf_source(c->sel.fn[i].bin->elf));
		if (c->o.list)
			continue;
		{
			const char *why;
			uint64_t at;
			int err = ot_entry_point(c->pt[i].path, s->offset, s->size, &at, &why);

			if (err == -ENOTSUP) {
				ot_error("%s cannot be traced: %s", c->pt[i].label, why);
				return EXIT_USAGE;
			}
			if (err) {
				ot_error_errno(-err, "cannot read the code of %s", c->pt[i].label);
				return EXIT_RUNTIME;
			}
			if (why)
				ot_verbose("%s: %s (+0x%llx)", c->pt[i].label, why,
					   (unsigned long long)at);
			c->pt[i].offset = at;
		}
		/*
		 * A return probe aborts a C++ program whose exception unwinds
		 * through the probed frame; probing return instructions cannot.
		 * Which file has exception tables decides, per file.
		 */
		if (!i && ot_elf_stack_switch(c->elf) && !insn_returns(c, i))
			ot_warn("%s switches stacks (%s): a return probe kills it when a call "
				"returns on another stack than it was made on; --returns insn "
				"avoids that", c->target.display, ot_elf_stack_switch(c->elf));
		else if (!i && ot_elf_stack_switch(c->elf) && !c->o.ret_mode_set)
			ot_verbose("%s switches stacks (%s): returns are seen at return "
				   "instructions (--returns insn)", c->target.display,
				   ot_elf_stack_switch(c->elf));
		if (!c->o.ret_mode_set && ot_elf_has_eh(c->sel.fn[i].bin->elf) &&
		    !ot_elf_stack_switch(c->elf) &&
		    (!i || c->sel.fn[i - 1].bin != c->sel.fn[i].bin))
			ot_verbose("%s has C++ exception tables: returns of its functions are "
				   "seen at return instructions (--returns insn)",
				   c->sel.fn[i].bin->display);
		if (insn_returns(c, i) && find_returns(c, i))
			return EXIT_RUNTIME;
		if (!insn_returns(c, i) && ot_elf_has_eh(c->sel.fn[i].bin->elf) &&
		    (!i || c->sel.fn[i - 1].bin != c->sel.fn[i].bin))
			ot_warn("%s uses C++ exceptions: one thrown through a function with a "
				"return probe aborts the program; --returns insn avoids that "
				"(see BUGS in orbit-trace(1))", c->sel.fn[i].bin->display);
	}
	return EXIT_OK;
}

/* -l: like perf probe -F, what a pattern selects, before anything is armed. */
/* rings -> records -> scopes, until the target exits, time runs out or a signal comes. */
static void run(struct capture *c)
{
	uint64_t deadline = c->o.duration > 0 ?
		c->t_start + (uint64_t)(c->o.duration * 1e9) : UINT64_MAX;
	unsigned ncpus = ot_probes_ncpus(c->probes), i;
	struct pollfd *pfd = ot_xcalloc(2 + ncpus, sizeof(*pfd));

	/* Signals, the target's exit, and a ring a quarter full wake us; else
	 * we sleep the drain interval. */
	pfd[0].fd = c->sigfd;
	pfd[1].fd = c->target.pidfd;
	for (i = 0; i < ncpus; i++)
		pfd[2 + i].fd = ot_probes_ring_fd(c->probes, i);
	for (i = 0; i < 2 + ncpus; i++)
		pfd[i].events = POLLIN;
	for (;;) {
		uint64_t now = now_ns();
		int timeout = (int)c->o.drain_ms;

		if (deadline != UINT64_MAX && deadline - now < (uint64_t)timeout * 1000000)
			timeout = deadline > now ? (int)((deadline - now) / 1000000) : 0;
		pfd[1].revents = 0;
		if (poll(pfd, 2 + ncpus, timeout) > 0 && (pfd[0].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(c->sigfd, &si, sizeof(si)) == sizeof(si))
				ot_verbose("signal %u: ending the capture", si.ssi_signo);
			c->ended_by = "signal";
			/*
			 * A second SIGINT or SIGTERM ends orbit-trace at once,
			 * even if it was started ignoring them (sh's "&").
			 */
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			sigprocmask(SIG_SETMASK, &c->oldmask, NULL);
			break;
		}
		now = now_ns();
		drain_round(c, now > MERGE_SLACK_NS ? now - MERGE_SLACK_NS : 0);
		/* The poll already said whether the pidfd fired: no second syscall. */
		if ((pfd[1].revents || c->target.pidfd < 0) &&
		    ot_target_check_exit(&c->target)) {
			c->ended_by = "target exit";
			break;
		}
		if (now >= deadline) {
			c->ended_by = "duration";
			break;
		}
		live_status(c, now, 0);
	}
	free(pfd);
}

static void judge(struct capture *c)
{
	const struct ot_func_stats **st = ot_xcalloc(c->sel.n, sizeof(*st));
	size_t i;

	for (i = 0; i < c->sel.n; i++)
		st[i] = ot_pair_stats(c->pair, i);
	ot_check_run(&c->check, c->sel.n, c->names, st, c->o.expect,
		     c->o.nexpect, c->o.max_loss, ot_drain_stats(c->drain)->lost);
	for (i = 0; c->inexact && i < c->sel.n; i++)
		if (c->inexact[i])
			ot_check_add(&c->check, OT_STATUS_LOSSY, c->inexact[i]);
	free(st);
}

/* Everything the report says, read while the probes and rings still exist. */
static void fill_report(struct capture *c)
{
	struct ot_report_func *fn = ot_xcalloc(c->sel.n, sizeof(*fn));
	struct ot_report r;
	unsigned i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < ot_probes_ncpus(c->probes); i++) {
		uint64_t hw = ot_probes_ring(c->probes, i)->high_water;

		if (hw > r.ring_high_water)
			r.ring_high_water = hw;
	}
	for (i = 0; i < c->sel.n; i++) {
		fn[i].name = c->names[i];
		fn[i].symbol = c->sel.fn[i].sym->name;
		fn[i].aliases = c->sel.fn[i].aliases;
		fn[i].binary = c->sel.fn[i].bin->is_main ? c->target.display
							 : c->sel.fn[i].bin->path;
		fn[i].offset = c->sel.fn[i].sym->offset;
		fn[i].st = ot_pair_stats(c->pair, i);
	}
	r.binary = c->target.display;
	r.pid = (int)c->target.pid;
	r.functions_requested = c->sel.requested;
	r.functions_armed = c->sel.n;
	r.uprobes = ot_probes_nuprobes(c->probes);
	for (i = 0; i < c->sel.n; i++)
		r.insn_returns += c->pt[i].ret_sites != NULL;
	r.returns = r.insn_returns == c->sel.n ? "insn" : !r.insn_returns ? "uretprobe" : "mixed";
	r.backend = ot_backend_name(ot_probes_backend(c->probes));
	r.frozen = c->o.freeze;
	r.events = ot_probes_nevents(c->probes);
	r.cpus = ot_probes_ncpus(c->probes);
	r.ring_kb = c->o.ring_kb;
	r.drain_ms = (unsigned)c->o.drain_ms;
	r.duration_ns = c->t_end - c->t_start;
	r.ended_by = c->ended_by;
	r.target_exited = c->target.exited;
	r.target_status = c->target.is_child ? c->target.status : -1;
	r.records = ot_drain_stats(c->drain);
	r.threads = ot_pair_threads(c->pair);
	r.nfuncs = c->sel.n;
	r.funcs = fn;
	r.check = &c->check;
	r.has_expect = c->o.nexpect > 0;
	r.max_loss_pct = c->o.max_loss;
	r.tree = ot_pair_tree(c->pair, &r.ntree);
	r.tree_dropped = ot_pair_tree_dropped(c->pair);
	r.names = c->names;
	r.draw_hist = c->o.hist;
	r.calib = c->o.compensate ? &c->calib : NULL;
	r.arm_ns = c->arm_ns;
	r.arm_ipis = c->arm_ipi.cal;
	r.arm_tlb = c->arm_ipi.tlb;
	{
		struct rusage ru;

		/* RUSAGE_SELF: the tracer alone, not the command it reaped. */
		if (!getrusage(RUSAGE_SELF, &ru)) {
			r.tracer_cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
					  1000000000ull +
					  (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
			r.tracer_max_rss_kb = (uint64_t)ru.ru_maxrss;
		}
	}
	c->rep = r;
	c->rep_fn = fn;
}

static void on_slow_disarm(union sigval v)
{
	const struct capture *c = v.sival_ptr;

	ot_warn("still disarming %zu %s (the kernel waits for grace periods on each)...",
		c->disarm_n, c->disarm_what);
}

/*
 * Release every probe, measuring what it costs like arming.  Slow with the
 * perf backend (two grace periods per fd), so the user hears about it when
 * it passes a second.
 */
static void disarm(struct capture *c)
{
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD };
	struct itimerspec one_s = { .it_value = { .tv_sec = 1 } };
	struct ot_ipi before, after;
	timer_t timer;
	int timed;
	uint64_t t0;

	if (!c->probes)
		return;
	c->disarm_n = ot_probes_nevents(c->probes);
	c->disarm_what = ot_probes_backend(c->probes) == OT_BACKEND_PERF ?
			 "uprobe perf events" : "uprobe_multi links";
	sev.sigev_notify_function = on_slow_disarm;
	sev.sigev_value.sival_ptr = c;
	timed = !timer_create(CLOCK_MONOTONIC, &sev, &timer);
	if (timed)
		timer_settime(timer, 0, &one_s, NULL);
	t0 = now_ns();
	ot_ipi_read(&before);
	/*
	 * The perf backend takes ~0.3 s per function to disarm: a process is
	 * not held stopped that long, so only its arming is frozen.  A failed
	 * freeze was printed; disarming goes on regardless.
	 */
	if (c->o.freeze && ot_probes_backend(c->probes) == OT_BACKEND_MULTI &&
	    !c->target.exited && !ot_target_check_exit(&c->target))
		ot_target_freeze(&c->target);
	c->rep.disarm_frozen = c->target.frozen;
	ot_probes_close(c->probes);
	c->probes = NULL;
	ot_target_thaw(&c->target);
	ot_ipi_read(&after);
	c->rep.disarmed = 1;
	c->rep.disarm_ns = now_ns() - t0;
	c->rep.disarm_ipis = after.cal - before.cal;
	c->rep.disarm_tlb = after.tlb - before.tlb;
	if (timed)
		timer_delete(timer);
}

/*
 * Text: the report first, then disarm, then the line saying what disarming
 * cost.  JSON is one object, so it waits for disarming to carry it too.
 */
static void report(struct capture *c)
{
	if (!c->o.json) {
		ot_report_text(c->out, &c->rep);
		fflush(c->out);
	}
	disarm(c);
	if (c->o.json)
		ot_report_json(c->out, &c->rep);
	else
		ot_report_text_disarm(c->out, &c->rep);
	fflush(c->out);
}

static void cleanup(struct capture *c)
{
	size_t i;

	ot_calib_live_stop(c->calib_live);
	disarm(c);
	ot_target_thaw(&c->target); /* never leave a -p process stopped */
	ot_pair_free(c->calib_pair);
	if (c->npt > c->sel.n)
		free((uint64_t *)c->pt[c->sel.n].ret_sites);
	free(c->rep_fn);
	ot_timeline_close(c->timeline);
	if (c->folded)
		fclose(c->folded);
	ot_check_free(&c->check);
	ot_drain_free(c->drain);
	ot_pair_free(c->pair);
	for (i = 0; c->names && i < c->sel.n; i++)
		free((char *)c->names[i]);
	free(c->names);
	ot_options_free(&c->o);
	for (i = 0; i < c->sel.n; i++) {
		free(c->labels[i]);
		if (c->ret_sites)
			free(c->ret_sites[i]);
	}
	for (i = 0; c->inexact && i < c->sel.n; i++)
		free(c->inexact[i]);
	free(c->inexact);
	free(c->ret_sites);
	free(c->tail_calls);
	free(c->labels);
	free(c->pt);
	ot_selection_free(&c->sel);
	ot_binset_free(c->bins);
	ot_elf_close(c->elf);
	ot_target_stop(&c->target);
	ot_target_fini(&c->target);
	if (c->out && c->out != stdout)
		fclose(c->out);
	if (c->sigfd >= 0)
		close(c->sigfd);
}

static int capture(struct capture *c)
{
	sigset_t mask;
	size_t i;
	int ret;

	c->sigfd = -1;
	c->target.pidfd = c->target.go_fd = c->target.err_fd = -1;
	c->out = stdout;
	if (c->o.output) {
		c->out = fopen(c->o.output, "we");
		if (!c->out) {
			ot_error_errno(errno, "cannot open %s", c->o.output);
			c->out = NULL;
			return EXIT_RUNTIME;
		}
	}
	/* SIGINT/SIGTERM end the capture through the poll loop; the report
	 * is still printed.  The started command gets the old mask back. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, &c->oldmask);
	c->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (c->sigfd < 0) {
		ot_error_errno(errno, "cannot create a signalfd");
		return EXIT_RUNTIME;
	}

	if (c->o.argv)
		ret = ot_target_find(&c->target, c->o.argv[0]);
	else
		ret = ot_target_attach(&c->target, c->o.pid);
	if (ret)
		return EXIT_RUNTIME;
	ret = resolve(c);
	if (ret)
		return ret;
	if (c->o.list)
		return ot_report_list(c->out, &c->sel) || fflush(c->out) ? EXIT_RUNTIME : EXIT_OK;
	/* Output files are opened before arming: a typo must not cost a capture. */
	if (c->o.folded) {
		c->folded = fopen(c->o.folded, "we");
		if (!c->folded) {
			ot_error_errno(errno, "cannot open %s", c->o.folded);
			return EXIT_RUNTIME;
		}
	}

	if (ot_caps_check())
		return EXIT_RUNTIME;
	c->npt = c->sel.n;
	if (c->o.compensate) {
		if (ot_calibrate(c->o.ret_insn, c->o.backend, &c->calib))
			return EXIT_RUNTIME;
		ot_verbose("calibrated: a traced call costs its caller %llu ns, %llu ns of it "
			   "inside its own scope", (unsigned long long)c->calib.pair_ns,
			   (unsigned long long)c->calib.own_ns);
		/* And probed during the capture too, in this process. */
		c->pt = ot_xreallocarray(c->pt, c->sel.n + 1, sizeof(*c->pt));
		if (ot_calib_probe(c->o.ret_insn, &c->pt[c->sel.n]))
			return EXIT_RUNTIME;
		c->pt[c->sel.n].pid = (int)getpid();
		c->npt++;
	}
	/*
	 * Forked now, exec'd only once armed: no call before arming is missed.
	 * Under sudo the command runs as the user who typed it, not as root:
	 * tracing a program must not change what it may do.
	 */
	c->target.sigpipe_ignored = sigpipe_ignored;
	if (c->o.argv && (ot_user_resolve(c->o.user, &c->user) ||
			  ot_target_spawn(&c->target, c->o.argv, &c->oldmask, &c->user)))
		return EXIT_RUNTIME;
	if (c->o.trace && ot_timeline_open(c->o.trace, c->target.pid,
					   basename(c->target.display), now_ns(),
					   c->names, &c->timeline))
		return EXIT_RUNTIME;
	/* What arming costs the machine, measured the way the seed measured
	 * static keys: wall time and /proc/interrupts deltas. */
	ot_ipi_read(&c->arm_before);
	c->arm_t0 = now_ns();
	if (c->o.freeze && ot_target_freeze(&c->target))
		return EXIT_RUNTIME;
	{
		struct ot_probes_opts po = {
			.ring_kb = c->o.ring_kb,
			.backend = c->o.backend,
			.pid = (int)c->target.pid,
		};

		if (ot_probes_arm(c->pt, c->npt, &po, &c->probes))
			return EXIT_RUNTIME;
	}
	c->pair = ot_pair_new(c->sel.n);
	ot_pair_on_scope(c->pair, on_scope, c);
	if (c->o.compensate)
		ot_pair_compensate(c->pair, c->calib.own_ns, c->calib.pair_ns);
	for (i = 0; c->tail_calls && i < c->sel.n; i++)
		if (c->tail_calls[i])
			ot_pair_set_tail_calls(c->pair, i);
	c->drain = ot_drain_new(ot_probes_ncpus(c->probes), (uint32_t)c->target.pid,
				ot_probes_lookup, c->probes, feed_pair, c);
	if (c->o.compensate) {
		c->calib_pair = ot_pair_new(1);
		ot_drain_also_pid(c->drain, (uint32_t)getpid());
	}
	if (ot_probes_enable(c->probes))
		return EXIT_RUNTIME;
	ot_target_thaw(&c->target);
	if (c->calib_pair && ot_calib_live_start(&c->calib_live))
		return EXIT_RUNTIME;
	{
		struct ot_ipi after;

		c->arm_ns = now_ns() - c->arm_t0;
		ot_ipi_read(&after);
		c->arm_ipi.cal = after.cal - c->arm_before.cal;
		c->arm_ipi.tlb = after.tlb - c->arm_before.tlb;
	}
	/* Armed and mapped: nothing left needs privilege, so keep none. */
	if (ot_caps_drop(c->user.set && c->user.uid != getuid())) {
		ot_error("cannot drop capabilities after arming");
		return EXIT_RUNTIME;
	}
	ot_verbose("armed %zu functions (%zu %s) on %s", c->sel.n,
		   ot_probes_nevents(c->probes),
		   ot_probes_backend(c->probes) == OT_BACKEND_MULTI ? "uprobe_multi links" :
								      "uprobe perf events",
		   c->target.display);
	c->t_start = now_ns();
	c->live = isatty(STDERR_FILENO) && ot_error_verbosity() >= 0;
	c->live_next = c->t_start + 1000000000ull;
	if (c->target.is_child && ot_target_release(&c->target))
		return EXIT_RUNTIME;
	if (!c->target.is_child && ot_target_check_exit(&c->target)) {
		ot_error("process %d exited while its probes were armed", (int)c->target.pid);
		return EXIT_RUNTIME;
	}

	run(c);

	/* Disable first, drain what is left, report; disarm last (slow). */
	c->t_end = now_ns();
	live_status(c, c->t_end, 1);
	ot_calib_live_stop(c->calib_live);
	c->calib_live = NULL;
	ot_probes_disable(c->probes);
	drain_round(c, UINT64_MAX);
	ot_pair_finish(c->pair);
	judge(c);
	fill_report(c);
	report(c);
	if (c->folded) {
		size_t n;
		const struct ot_tree_node *tree = ot_pair_tree(c->pair, &n);

		if (ot_folded_write(c->folded, tree, n, c->names) || fflush(c->folded)) {
			ot_error_errno(EIO, "cannot write %s", c->o.folded);
			return EXIT_RUNTIME;
		}
	}
	if (c->timeline) {
		int err = ot_timeline_close(c->timeline);

		c->timeline = NULL;
		if (err)
			return EXIT_RUNTIME;
	}
	if (ferror(c->out)) {
		ot_error("cannot write the report%s%s", c->o.output ? " to " : "",
			 c->o.output ? c->o.output : "");
		return EXIT_RUNTIME;
	}
	if (c->check.status == OT_STATUS_FAILED) {
		for (i = 0; i < c->check.nreasons; i++)
			ot_error("check failed: %s", c->check.reasons[i]);
		return EXIT_CHECK;
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct capture c;
	char *msg;
	int ret;

	memset(&c, 0, sizeof(c));
	switch (ot_options_parse(&c.o, argc, argv, &msg)) {
	case OT_OPTIONS_HELP:
		fputs(ot_usage_text, stdout);
		ot_options_free(&c.o);
		return EXIT_OK;
	case OT_OPTIONS_VERSION:
		printf("orbit-trace %s\n"
		       "backends: multi (uprobe_multi BPF links, libbpf %s), "
		       "perf (uprobe PMU perf events)\n"
		       "demangler: libiberty (C++ Itanium ABI, Rust legacy and v0)\n"
		       "built with: elfutils %s, libcap %s\n",
		       OT_VERSION, OT_LIBBPF_VERSION, OT_ELFUTILS_VERSION, OT_LIBCAP_VERSION);
		ot_options_free(&c.o);
		return EXIT_OK;
	case OT_OPTIONS_BAD:
		ot_error("%s\nTry 'orbit-trace --help' for more information.", msg ? msg : "bad usage");
		free(msg);
		ot_options_free(&c.o);
		return EXIT_USAGE;
	case OT_OPTIONS_RUN:
		break;
	}
	ot_error_set_verbosity(c.o.verbosity);
	/* A write to a closed output is an error of ours, not a death; the
	 * command gets the disposition we were given (lib/target). */
	sigpipe_ignored = signal(SIGPIPE, SIG_IGN) == SIG_IGN;
	ret = capture(&c);
	cleanup(&c);
	return ret;
}
