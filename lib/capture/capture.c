/*
 * capture.c - one capture's life cycle, in capture.h's steps: open, arm,
 * run, report, free.  It owns the order - what is acquired when, and
 * released in reverse - and the run loop that drains the rings into the
 * pairing until the capture ends.  The parts it puts together are made
 * elsewhere: the plan (lib/probes/plan), what scopes leave (lib/report/sinks), the
 * report (lib/capture/capture_report), disarming (lib/capture/disarm).
 */
#include "capture.h"
#include "capture_priv.h"
#include "capture_report.h"
#include "metrics.h"
#include "util/caps.h"
#include "util/clock.h"
#include "disarm.h"
#include "endsig.h"
#include "filter.h"
#include "keyed.h"
#include "services.h"
#include "lang.h"
#include "util/error.h"
#include "probes/plan.h"
#include "process/procfs.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <time.h>
#include <unistd.h>

/*
 * How far behind "now" the merge stops: a sample is timestamped a moment
 * before it is committed to its ring, so one with an older time may still
 * be on its way.  Commit takes microseconds; 20 ms also covers a vCPU
 * descheduled mid-write.  Anything later still is counted as "late".
 */
#define MERGE_SLACK_NS (20ull * 1000 * 1000)

/* Each record to its sink: the calibration's function to its own pairing. */
static void feed_pair(void *ctx, const struct ot_event *ev)
{
	struct ot_capture *c = ctx;

	if (ot_capture_filter_drops(c, ev))
		return;
	/* An entry's further value: its function's distribution, no scope. */
	if (ev->kind == OT_EV_VALUE) {
		if (ev->has_value)
			ot_sinks_value(&c->sinks, ev->tid, ev->func, ev->flags, ev->time,
				       ev->value);
		return;
	}
	/* A Go program's runtime ending it: counted for the verdict. */
	if (c->ngo_death && ev->kind == OT_EV_POINT && ev->func >= c->go_death &&
	    ev->func - c->go_death < c->ngo_death) {
		c->go_deaths[ev->func - c->go_death]++;
		return;
	}
	if (c->calib_pair && ev->kind != OT_EV_LOST && ev->func == c->calib_target) {
		struct ot_event e = *ev;

		e.func = 0;
		ot_pair_feed(c->calib_pair, &e);
		return;
	}
	if (c->keyed_feeds && ot_keyed_feed(c, ev)) {
		ot_keyed_flush(c);
		return;
	}
	ot_pair_feed(c->pair, ev);
	if (c->keyed_feeds)
		ot_keyed_flush(c);	/* function pairs' scopes the event closed */
}

/*
 * --compensate: once the calibration thread has made enough calls during
 * the capture, compensate with what they cost now, not before it began.
 */
static void calib_update(struct ot_capture *c)
{
	uint64_t now;

	/* The bursts' median is a sort: a few times a second is plenty,
	 * not at every ring wake-up. */
	if (!c->calib_live || (now = ot_now_ns()) < c->calib_next)
		return;
	c->calib_next = now + 200000000ull;
	if (ot_calib_update(&c->calib, ot_pair_stats(c->calib_pair, 0), c->calib_live))
		ot_pair_compensate(c->pair, c->calib.own_ns, c->calib.pair_ns);
}

/* --follow: a process the kernel followed, as it last saw it. */
static void on_follow(void *ctx, const struct ot_follow_proc *fp)
{
	struct ot_capture *c = ctx;

	if (c->fol.n == c->fol.cap) {
		c->fol.cap = c->fol.cap ? 2 * c->fol.cap : 64;
		c->fol.procs = ot_xreallocarray(c->fol.procs, c->fol.cap, sizeof(*c->fol.procs));
	}
	c->fol.procs[c->fol.n++] = *fp;
}

/* The pairing's hook: the --trace timeline sees every scope, the sinks
 * keep what they are asked to. */
static void on_scope(void *ctx, const struct ot_scope *s)
{
	struct ot_capture *c = ctx;

	if (c->timeline && !s->point)
		ot_timeline_scope(c->timeline, s);
	ot_sinks_scope(&c->sinks, s);
	if (c->keyed_feeds)
		ot_keyed_scope(c, s);
}

/* lib/report/sinks stays pure: reading /proc is the capture's.  The name
 * the probes saw first (-a: the process's at its call, even gone since). */
static int proc_comm(void *ctx, uint32_t pid, char *buf, size_t len)
{
	struct ot_capture *c = ctx;
	const char *base;

	if (!ot_capture_seen_comm(c, pid, buf, len) || !ot_proc_comm((pid_t)pid, buf, len))
		return 0;
	/* The target gone before a drain asked: the name an exec gives it,
	 * its file's, cut as the kernel cuts it (TASK_COMM_LEN). */
	if ((pid_t)pid != c->target.pid || !c->target.display || len < 2)
		return -ENOENT;
	base = strrchr(c->target.display, '/');
	snprintf(buf, len < 16 ? len : 16, "%s", base ? base + 1 : c->target.display);
	return 0;
}

/* A string's id (a :str value) as the drain read it, for the sinks. */
static const char *str_of(void *ctx, uint64_t id)
{
	struct ot_capture *c = ctx;

	return c->drain ? ot_strtab_get(ot_drain_strs(c->drain), (uint32_t)id) : NULL;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC now, in ns (--wall-clock): read
 * between two monotonic reads, the closer pair kept of three. */
static int64_t wall_offset(void)
{
	int64_t best = 0, span = INT64_MAX;
	int k;

	for (k = 0; k < 3; k++) {
		struct timespec a, r, b;
		int64_t ma, mb, rt;

		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ma = (int64_t)a.tv_sec * 1000000000 + a.tv_nsec;
		mb = (int64_t)b.tv_sec * 1000000000 + b.tv_nsec;
		rt = (int64_t)r.tv_sec * 1000000000 + r.tv_nsec;
		if (mb - ma < span) {
			span = mb - ma;
			best = rt - (ma + mb) / 2;
		}
	}
	return best ? best : 1;
}

/* Function i's entry values after the first, named for the report. */
static void more_values(struct ot_capture *c, size_t i)
{
	const struct ot_selected *f = &c->plan.sel.fn[i];
	char name[48];
	uint8_t j;

	for (j = 0; j < f->nmore; j++) {
		if (f->more_name[j])
			snprintf(name, sizeof(name), "%s", f->more_name[j]);
		else
			snprintf(name, sizeof(name), "arg%d%s", OT_SEL_ARG(f->more[j]),
				 f->more[j] & OT_SEL_32 ? ":32" : "");
		ot_sinks_values_more(&c->sinks, i, j, name);
	}
}

/* The status line, when due: what it shows is only read then. */
static void live_status(struct ot_capture *c, uint64_t now)
{
	uint64_t hw = 0, size = 1;

	if (!ot_sinks_live_due(&c->sinks, now))
		return;
	ot_probes_ring_peak(c->probes, &hw, &size);
	ot_sinks_live(&c->sinks, now, ot_pair_scopes(c->pair), ot_drain_stats(c->drain)->lost,
		      hw, size);
}

static void drain_round(struct ot_capture *c, uint64_t horizon)
{
	ot_probes_events(c->probes);
	ot_probes_drain(c->probes, c->drain);
	ot_sinks_lost(&c->sinks, ot_drain_stats(c->drain)->lost);
	ot_drain_flush(c->drain, horizon);
	/* A slow line is read as it comes, from a pipe too (ts, grep). */
	ot_sinks_flush(&c->sinks);
	calib_update(c);
}

/*
 * The last drain, probes disabled: every ring read to its end, then the
 * records the kernel dropped that nothing reported (ot_probes_final_lost)
 * counted and queued, then everything emitted: the pairing and the last
 * interval see them as any other loss.
 */
static void final_drain(struct ot_capture *c)
{
	ot_probes_events(c->probes);
	ot_probes_drain(c->probes, c->drain);
	c->lost_exact = ot_probes_final_lost(c->probes, c->drain);
	ot_drain_flush(c->drain, UINT64_MAX);
	calib_update(c);
}

/* -l with neither -p nor a command: only files -f names. */
static int no_program(const struct ot_capture *c)
{
	return c->o.list && !c->o.argv && !c->o.pid;
}

/* The target's program, the functions -f selects, and their probe targets. */
static int resolve(struct ot_capture *c)
{
	int script = !c->o.all && ot_target_is_script(&c->target);
	const char **expect = ot_xcalloc(c->o.nexpect + 1, sizeof(*expect));
	struct ot_plan_opts po = {
		/* -a, -l alone: no program of its own; every term names its file. */
		.exe = c->o.all || no_program(c) ? NULL : c->target.exe, .display = c->target.display,
		.script = script ? c->o.argv[0] : NULL, .interpreter = c->target.run,
		.find_lib = ot_target_find_lib, .find_lib_ctx = &c->target,
		.objects = c->o.all ? NULL : ot_target_objects, .objects_ctx = &c->target,
		.functions = c->o.functions, .expect = expect, .nexpect = c->o.nexpect,
		.patches_code = !!(c->o.backend->can & OT_PATCHES_CODE),
		.refuse_target = c->o.backend->refuse_target,
		.backend_can = c->o.backend->can,
		.why_not_go = ot_backend_why_not(c->o.backend, OT_CAN_GO),
		.ret_mode_set = c->o.ret_mode_set, .ret_insn = c->o.ret_insn, .list = c->o.list,
	};
	size_t i;
	int ret;

	for (i = 0; i < c->o.nexpect; i++)
		expect[i] = c->o.expect[i].name;
	ret = ot_plan_make(&c->plan, &po);
	for (i = 0; !ret && i < c->o.nexpect; i++) {
		if (expect[i] == c->o.expect[i].name)
			continue;
		/* The function's row name, which the check compares. */
		free((char *)c->o.expect[i].name);
		c->o.expect[i].name = ot_xstrdup(expect[i]);
	}
	free(expect);
	if (ret == -ENOENT)
		ot_capture_lang_hint(c);
	if (ret)
		return ret == -ENOENT ? OT_CAPTURE_BAD_INPUT : OT_CAPTURE_FAILED;
	return OT_CAPTURE_OK;
}

/*
 * A selection this large traps at every call of each function: the
 * program slows down with the calls it makes.  --max-functions refuses
 * past its bound; past OT_CAPTURE_MANY_FUNCTIONS a warning, unless --yes.
 */
static int how_many(const struct ot_capture *c)
{
	size_t n = c->plan.sel.n;

	if (c->o.max_functions && n > c->o.max_functions) {
		ot_error("-f selects %zu functions, more than --max-functions %lu: narrow it "
			 "(-l shows what it selects)", n, c->o.max_functions);
		return OT_CAPTURE_BAD_INPUT;
	}
	if (!c->o.max_functions && !c->o.yes && n > OT_CAPTURE_MANY_FUNCTIONS)
		ot_warn("-f selects %zu functions: every call of each is trapped, and a program "
			"that calls many of them runs several times slower (see OVERHEAD); -l shows "
			"what it selects, --max-functions N refuses more than N, --yes arms them "
			"without this warning", n);
	return OT_CAPTURE_OK;
}

/* SIGINT or SIGTERM: the capture ends (SIGCHLD only wakes the loop). */
static int end_signal(struct ot_capture *c)
{
	if (!ot_endsig_read(c->sigfd, &c->oldmask))
		return 0;
	c->ended_by = "signal";
	return 1;
}

/* rings -> records -> scopes, until the target exits, time runs out or a signal comes. */
static void run(struct ot_capture *c)
{
	uint64_t deadline = c->o.duration > 0 ?
		c->t_start + (uint64_t)(c->o.duration * 1e9) : UINT64_MAX;
	unsigned ncpus = ot_probes_ncpus(c->probes), i, nfd = 4 + ncpus;
	struct pollfd *pfd = ot_xcalloc(nfd, sizeof(*pfd));
	uint64_t drain_at = 0;	/* the next drain, however often we wake */

	/* Signals, the target's exit, a ring a quarter full and a scraper
	 * waiting for --listen's metrics wake us; else we sleep the drain
	 * interval. */
	pfd[0].fd = c->sigfd;
	pfd[1].fd = c->target.pidfd;
	pfd[2].fd = ot_probes_wake_fd(c->probes);
	pfd[3].fd = ot_metrics_fd(c);
	for (i = 0; i < ncpus; i++)
		pfd[4 + i].fd = ot_probes_ring_fd(c->probes, i);
	for (i = 0; i < nfd; i++)
		pfd[i].events = POLLIN;
	for (;;) {
		uint64_t now = ot_now_ns(), wait, ivl_due;
		struct timespec ts;
		short others = 0;
		int n;

		if (!drain_at)
			drain_at = now + (uint64_t)ot_probes_poll_ms(c->probes, (int)c->o.drain_ms) *
					 1000000;
		wait = drain_at > now ? drain_at - now : 0;
		if (deadline != UINT64_MAX)
			wait = MIN(wait, deadline > now ? deadline - now : 0);
		/* A window is whole once the merge's horizon passed its end. */
		ivl_due = ot_sinks_interval_due(&c->sinks);
		if (ivl_due != UINT64_MAX)
			ivl_due += MERGE_SLACK_NS;
		wait = MIN(wait, ivl_due > now ? ivl_due - now : 0);
		for (i = 0; i < nfd; i++)
			pfd[i].revents = 0;
		/* To the nanosecond: -d and -I's windows end when they say. */
		ts.tv_sec = (time_t)(wait / 1000000000u);
		ts.tv_nsec = (long)(wait % 1000000000u);
		n = ppoll(pfd, nfd, &ts, NULL);
		if (n > 0 && (pfd[0].revents & POLLIN) && end_signal(c))
			break;
		for (i = 1; i < nfd; i++)
			others |= pfd[i].revents;
		now = ot_now_ns();
		/* Only SIGCHLD: a thread of the process stopped for us (a signal
		 * to pass on), which it waits for - at once, no drain yet. */
		if (n > 0 && !others && now < drain_at) {
			ot_probes_events(c->probes);
			continue;
		}
		drain_at = 0;
		drain_round(c, now > MERGE_SLACK_NS ? now - MERGE_SLACK_NS : 0);
		if (pfd[3].revents)
			ot_metrics_serve(c);
		/* The poll already said whether the pidfd fired: no second syscall. */
		if (ot_capture_set(c)) {
			/* The target reaped (then off the poll), the set's
			 * changes kept; the end is when no process is left. */
			if ((pfd[1].revents || c->target.pidfd < 0) && !c->target.exited &&
			    ot_target_check_exit(&c->target))
				pfd[1].fd = -1;
			/* A map walk costs two system calls per process: once
			 * per drain interval, however often the rings wake us. */
			if (now >= c->fol.next) {
				c->fol.next = now + c->o.drain_ms * 1000000ull;
				if (!ot_probes_follow_poll(c->probes, 0, on_follow, c,
							   &c->fol.dropped)) {
					c->ended_by = "target exit";
					break;
				}
			}
		} else if (!c->o.all && (pfd[1].revents || c->target.pidfd < 0) &&
			   ot_target_check_exit(&c->target)) {
			c->ended_by = "target exit";
			break;
		}
		if (now >= deadline) {
			c->ended_by = "duration";
			break;
		}
		if (now >= ivl_due) {
			ot_sinks_intervals_upto(&c->sinks, now - MERGE_SLACK_NS);
			ot_metrics_tick(c);
		}
		live_status(c, now);
	}
	/* --follow, -p PID,PID...: those still running too, for the report. */
	if (ot_capture_set(c))
		(void)ot_probes_follow_poll(c->probes, 1, on_follow, c, &c->fol.dropped);
	free(pfd);
}

/* The slow part last: every probe released, timed (lib/capture/disarm). */
static void disarm(struct ot_capture *c)
{
	ot_disarm(&c->disarm, c->probes, &c->target, c->o.freeze && !c->o.all, &c->rep,
		  &c->said);
	c->probes = NULL;
}

/*
 * Text: the report first, then disarm, then the line saying what disarming
 * cost.  JSON is one object, so it waits for disarming to carry it too.
 */
static void print_report(struct ot_capture *c)
{
	if (!c->o.json) {
		ot_report_text(c->out, &c->rep);
		fflush(c->out);
	}
	disarm(c);
	if (c->o.json && (c->sinks.ivl || c->o.slower_than))
		ot_report_json_line(c->out, &c->rep);	/* NDJSON, after the streamed lines */
	else if (c->o.json)
		ot_report_json(c->out, &c->rep);
	else
		ot_report_text_disarm(c->out, &c->rep);
	fflush(c->out);
}

static void cleanup(struct ot_capture *c)
{
	size_t i;

	ot_calib_live_stop(c->calib_live);
	ot_metrics_close(c);
	disarm(c);
	ot_target_thaw(&c->target); /* never leave a -p process stopped */
	ot_exitwatch_stop(c->exitw);
	ot_pair_free(c->calib_pair);
	if (c->o.compensate && c->npt > c->calib_target) /* the calibration's target */
		free((uint64_t *)c->plan.pt[c->calib_target].ret_sites);
	free(c->rep_fn);
	free(c->fol.procs);
	ot_capture_filter_free(&c->filt);
	free(c->lang_functions);
	for (i = 0; i < c->nrefused; i++)
		free((char *)c->refused[i].why);
	free(c->refused);
	ot_sinks_free(&c->sinks);
	/* What a failed capture opened is left as it was (lib/util/outfile). */
	ot_timeline_close(c->timeline, c->keep_outputs);
	ot_outfile_close(c->trace_file, c->keep_outputs);
	ot_outfile_close(c->folded_file, c->keep_outputs);
	ot_check_free(&c->check);
	ot_drain_free(c->drain);
	ot_pair_free(c->pair);
	ot_keyed_free(c);
	ot_plan_free(&c->plan);
	ot_target_stop(&c->target);
	ot_target_fini(&c->target);
	ot_outfile_close(c->out_file, c->keep_outputs);
	if (c->sigfd >= 0)
		close(c->sigfd);
	if (c->cgroup_fd >= 0)
		close(c->cgroup_fd);
	free(c->cgroup_path);
}

struct ot_capture *ot_capture_new(const struct ot_capture_opts *o, int sigpipe_ignored)
{
	struct ot_capture *c = ot_xcalloc(1, sizeof(*c));

	c->o = *o;
	c->sigpipe_ignored = sigpipe_ignored;
	c->sigfd = -1;
	c->cgroup_fd = -1;
	c->target.pidfd = c->target.go_fd = c->target.err_fd = -1;
	return c;
}
/* The title of an -a capture: whose processes and which cgroup's.  A user
 * who is not root (a capability install) traces only their own processes
 * (opts.owner), and the title says so rather than "every process". */
static char *all_display(const struct ot_capture *c)
{
	char who[64] = "", *s;

	if (!c->o.all)
		return ot_xstrdup("no program");
	if (getuid() != 0)
		snprintf(who, sizeof(who), " of uid %u", (unsigned)getuid());
	if (asprintf(&s, "every process%s%s%s", who, c->cgroup_path ? " in cgroup " : "",
		     c->cgroup_path ? c->cgroup_path : "") < 0)
		return ot_xstrdup("every process");
	return s;
}


enum ot_capture_result ot_capture_open(struct ot_capture *c)
{
	int ret;

	c->out = stdout;
	if (c->o.output) {
		if (ot_outfile_open(c->o.output, &c->out_file))
			return OT_CAPTURE_FAILED;
		c->out = ot_outfile_stream(c->out_file);
	}
	c->sigfd = ot_endsig_open(&c->oldmask);
	if (c->sigfd < 0)
		return OT_CAPTURE_FAILED;
	if (c->o.cgroup) {
		c->cgroup_fd = ot_services_cgroup(c->o.cgroup, &c->cgroup_path);
		if (c->cgroup_fd < 0)
			return OT_CAPTURE_FAILED;
	}
	if (c->o.all || no_program(c)) {
		c->target.display = all_display(c);
		ret = 0;
	} else if (c->o.argv) {
		ret = ot_target_find(&c->target, c->o.argv[0]);
	} else {
		c->o.npids = ot_services_threads(c->o.pids, c->o.npids);
		c->o.pid = c->o.pids[0];
		ret = ot_target_attach(&c->target, c->o.pid);
		if (!ret && c->o.npids > 1)
			ret = ot_services_pids(&c->target, c->o.pids, c->o.npids);
		if (!ret)
			ot_capture_filter_begin(c);
	}
	if (ret)
		return OT_CAPTURE_FAILED;
	ret = ot_capture_lang_check(c);
	if (ret)
		return ret;
	ret = resolve(c);
	if (ret)
		return ret;
	if (c->o.list)
		return ot_capture_list(c);
	ret = how_many(c);
	if (ret)
		return ret;
	return OT_CAPTURE_OK;
}

/*
 * --compensate: the calibration thread runs through the same probes,
 * rings and drain as the capture; before the command is released (or the
 * -p capture counted) it has made enough calls for a first figure, which
 * calib_update then follows as the trap cost drifts.
 */
static int calibrate(struct ot_capture *c)
{
	struct timespec tick = { 0, 10 * 1000000L };
	uint64_t give_up = ot_now_ns() + 5000000000ull;

	while (!c->calib.live_calls) {
		if (ot_now_ns() > give_up) {
			ot_error("cannot calibrate: %llu calls of ot_calib_target seen in 5 s",
				 (unsigned long long)ot_pair_stats(c->calib_pair, 0)->scopes);
			return -1;
		}
		nanosleep(&tick, NULL);
		drain_round(c, ot_now_ns() - MERGE_SLACK_NS);
	}
	ot_verbose("calibrated: a traced call costs its caller %llu ns, %llu ns of it "
		   "inside its own scope", (unsigned long long)c->calib.pair_ns,
		   (unsigned long long)c->calib.own_ns);
	return 0;
}

/* --compensate: orbit-trace's own ot_calib_target, the last probe target. */
static int add_calib_target(struct ot_capture *c)
{
	size_t i, insn = 0;

	/* Calibrate the kind of return probe most functions get. */
	for (i = 0; i < c->plan.sel.n; i++)
		insn += c->plan.pt[i].ret_sites != NULL;
	c->calib.empty_ns = ot_calib_empty_ns();
	c->calib_target = (uint32_t)c->plan.sel.n;
	c->plan.pt = ot_xreallocarray(c->plan.pt, c->plan.sel.n + 1, sizeof(*c->plan.pt));
	if (ot_plan_calib_target(2 * insn > c->plan.sel.n, &c->plan.pt[c->calib_target]))
		return -1;
	c->plan.pt[c->calib_target].pid = (int)getpid();
	c->npt++;
	return 0;
}

/*
 * A Go program: where its runtime ends it (a fatal error, a panic nobody
 * recovered), probed as points of the last targets, so that the report
 * never says ok over a program its runtime killed.
 */
static void add_go_deaths(struct ot_capture *c)
{
	if (c->o.all || c->o.follow)
		return;
	c->plan.pt = ot_xreallocarray(c->plan.pt, c->npt + OT_PLAN_GO_DEATHS, sizeof(*c->plan.pt));
	c->go_death = (uint32_t)c->npt;
	c->ngo_death = ot_plan_go_deaths(&c->plan, &c->plan.pt[c->npt]);
	c->npt += c->ngo_death;
}

/*
 * -- CMD: forked now, exec'd only once armed: no call before arming is
 * missed.  Under sudo the command runs as the user who typed it, not as
 * root: tracing a program must not change what it may do.
 */
static int spawn(struct ot_capture *c)
{
	c->target.sigpipe_ignored = c->sigpipe_ignored;
	if (c->o.argv && (ot_user_resolve(c->o.user, &c->user) ||
			  ot_target_spawn(&c->target, c->o.argv, &c->oldmask, &c->user)))
		return -1;
	/* A backend that patches code patches what is there: the program
	 * exec'd, its libraries loaded, held at its entry point. */
	if ((c->o.backend->can & OT_HOLDS_AT_ENTRY) && c->o.argv &&
	    ot_target_exec_stopped(&c->target))
		return -1;
	return 0;
}

/*
 * Where the scopes go, made before arming: the pairing's histograms (30 KB
 * per function, written at once) must not lengthen arming, which for a
 * backend that patches the process is a pause of the target's threads.
 */
static int make_sinks(struct ot_capture *c)
{
	struct ot_sinks_opts so = {
		.nfuncs = c->nrows, .names = c->names,
		.out = c->out, .json = c->o.json,
		.slowest = c->o.slowest, .slower_than = c->o.slower_than,
		.slower_all = c->o.slower_all,
		.wall_offset = c->o.wall_clock ? wall_offset() : 0,
		.per_process = c->o.all || ot_capture_set(c), .comm = proc_comm, .comm_ctx = c,
		.str = str_of, .str_ctx = c,
	};
	size_t i;

	if (c->o.trace) {
		if (ot_outfile_open(c->o.trace, &c->trace_file))
			return -1;
		c->timeline = ot_timeline_open(ot_outfile_stream(c->trace_file), c->target.pid,
					       basename(c->target.display), ot_now_ns(), c->names);
	}
	c->pair = ot_pair_new(c->nrows);
	c->tables = ot_pair_tables(c->pair);
	so.every_scope = !!c->timeline;
	ot_sinks_init(&c->sinks, &so, c->pair);
	for (i = 0; i < c->plan.sel.n; i++) {
		const struct ot_selected *f = &c->plan.sel.fn[i];

		/* A string argument is counted per string (lib/capture/keyed):
		 * a probe's alone; a function's first value, beside its others. */
		if (f->str && f->usdt)
			continue;
		if (f->str)
			ot_sinks_values_str(&c->sinks, i, ot_keyed_str_name(c, i));
		ot_sinks_values(&c->sinks, i, f->str ? 0 : f->arg, f->ret);
		ot_sinks_values_typed(&c->sinks, i, f->str ? NULL : f->arg_name, f->ret_size,
				      f->ret_signed);
		more_values(c, i);
	}
	ot_pair_on_scope(c->pair, on_scope, c);
	if (c->o.backend->can & OT_PATCHES_CODE)
		ot_pair_set_exact(c->pair);
	for (i = 0; i < c->plan.sel.n; i++) {
		if (c->plan.ret[i].tail_calls)
			ot_pair_set_tail_calls(c->pair, i);
		/* The kernel's limit on nested return probes, counted. */
		if (!(c->o.backend->can & OT_PATCHES_CODE) && !c->plan.sel.fn[i].usdt &&
		    !c->plan.pt[i].ret_sites)
			ot_pair_set_uretprobe(c->pair, i);
	}
	return 0;
}

/* Compact records (a backend whose rings are per thread) name targets by
 * their index: which are USDT probes (points), and those whose entry's
 * first value is a string's address. */
static void thread_funcs(struct ot_capture *c)
{
	uint8_t *is_str = ot_xcalloc(c->npt + 1, 1);
	size_t i;

	ot_drain_thread_funcs(c->drain, (uint32_t)c->npt);
	for (i = 0; i < c->npt; i++) {
		is_str[i] = c->plan.pt[i].str && c->plan.pt[i].arg;
		if (c->plan.pt[i].npoints)
			ot_drain_thread_point(c->drain, (uint32_t)i);
	}
	ot_drain_thread_strs(c->drain, is_str, (uint32_t)c->npt);
	free(is_str);
}

/* The probes armed (the process frozen meanwhile with --freeze), the drain
 * made, the probes enabled. */
/* ot_probes_opts.returns: the plan's, found when a backend asks. */
static int plan_returns(void *ctx, size_t i, struct ot_probe_returns *out)
{
	struct ot_capture *c = ctx;

	return i < c->plan.sel.n ? ot_plan_returns(&c->plan, i, out) : -1;
}

/* Every place the probes go (file, offset): entries, return
 * instructions, USDT sites; n into *n. */
static void probe_places(const struct ot_capture *c, const char ***paths, uint64_t **offs,
			 size_t *n)
{
	size_t i, k, cap = 0;

	*paths = NULL;
	*offs = NULL;
	*n = 0;
	for (i = 0; i < c->npt; i++) {
		const struct ot_probe_target *t = &c->plan.pt[i];
		size_t m = 1 + t->nret_sites + t->npoints;

		if (*n + m > cap) {
			cap = 2 * (*n + m);
			*paths = ot_xreallocarray(*paths, cap, sizeof(**paths));
			*offs = ot_xreallocarray(*offs, cap, sizeof(**offs));
		}
		for (k = 0; k < m; k++) {
			(*paths)[*n] = t->path;
			(*offs)[(*n)++] = k == 0 ? t->offset : k <= t->nret_sites ?
					  t->ret_sites[k - 1] : t->points[k - 1 - t->nret_sites];
		}
	}
}

/*
 * What a capture of a backend that leaves things in processes (code
 * patches) left in those whose code our probes go into: -p's taken back
 * first, or the capture refused (lib/probes' ot_probes_take_back says
 * why, naming --restore); with -a, every process whose leftovers are
 * where a probe goes, the same.
 */
static int leftovers(const struct ot_capture *c)
{
	const char **paths;
	uint64_t *offs;
	struct dirent *e;
	size_t n;
	DIR *d;
	int bad = 0;

	if (c->o.backend->can & OT_PATCHES_CODE)
		return 0;
	if (!c->o.all)
		return c->o.pid > 0 ? ot_probes_take_back(c->o.backend, c->o.pid, NULL, NULL, 0) : 0;
	probe_places(c, &paths, &offs, &n);
	d = opendir("/proc");
	while (d && (e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid > 0 && ot_probes_take_back(c->o.backend, pid, (const char *const *)paths,
						   offs, n))
			bad = 1;
	}
	if (d)
		closedir(d);
	free(paths);
	free(offs);
	return bad ? -1 : 0;
}

static int arm_probes(struct ot_capture *c)
{
	struct ot_probes_opts po = {
		.ring_kb = c->o.ring_kb_set ? c->o.ring_kb : 0,
		.backend = c->o.backend,
		.pid = (int)c->target.pid,
		.pidfd = c->target.pidfd,
		.held = (c->o.backend->can & OT_HOLDS_AT_ENTRY) && c->o.argv,
		.knobs = c->o.knobs,
		.follow = c->o.follow,
		/* A command's stop is seen by its parent, us; a -p
		 * process's by its own, so only where --freeze says. */
		.hold_exec = c->target.is_child || c->o.freeze,
		.pids = c->o.pids, .npids = c->o.npids,
		.cgroup_fd = c->cgroup_fd,
		/* A user's capture (a capability install): their processes only. */
		.owner = getuid() != 0, .owner_uid = (uint32_t)getuid(),
		.owner_gid = (uint32_t)getgid(),
		.returns = plan_returns, .returns_ctx = c,
	};
	size_t i;
	int ret;

	if (leftovers(c) || (c->o.freeze && ot_target_freeze(&c->target)))
		return -1;
	ret = ot_probes_arm(c->plan.pt, c->npt, &po, &c->probes);
	if (ret)
		return ret == -EDOM ? -EDOM : -1;
	/* Returns a backend asked for while arming: tail callers known. */
	for (i = 0; i < c->plan.sel.n; i++)
		if (c->plan.ret[i].tail_calls)
			ot_pair_set_tail_calls(c->pair, i);
	if (c->o.all)
		c->filt.own_pid = (uint32_t)getpid();
	/* --follow, -p PID,PID...: the kernel keeps the set's records only. */
	c->drain = ot_drain_new(ot_probes_nqueues(c->probes),
				ot_capture_set(c) ? 0 : (uint32_t)c->target.pid,
				ot_probes_lookup, c->probes, feed_pair, c);
	thread_funcs(c);
	ot_keyed_armed(c);
	if (c->o.compensate) {
		c->calib_pair = ot_pair_new(1);
		ot_drain_also_pid(c->drain, (uint32_t)getpid());
	}
	if (ot_probes_enable(c->probes))
		return -1;
	ot_target_thaw(&c->target);
	return 0;
}

/*
 * Armed and mapped: nothing left needs privilege, so keep none but
 * CAP_KILL where another user's process is signalled later: a command run
 * as the user, and a -p process with --freeze (stopped again for
 * disarming, and continued after an exec the backend holds it at).
 */
static int drop_caps(struct ot_capture *c)
{
	if (ot_caps_drop((c->user.set && c->user.uid != getuid()) || c->o.freeze,
			 !!(c->o.backend->can & OT_HOLDS_AT_ENTRY))) {
		ot_error("cannot drop capabilities after arming");
		return -1;
	}
	ot_verbose("armed %zu functions (%zu %s) on %s", c->plan.sel.n,
		   ot_probes_nevents(c->probes), ot_probes_objects(c->probes),
		   c->target.display);
	return 0;
}

/* Whether a command's strings need its memory opened at its exec. */
static int strs_at_exec(const struct ot_capture *c)
{
	return c->target.is_child && ot_keyed_reads_strs(c) &&
	       !(c->o.backend->can & OT_HOLDS_AT_ENTRY);
}

static void keyed_exec(void *ctx)
{
	ot_keyed_started(ctx);
}

/* The capture's clock starts, and the command with it. */
static enum ot_capture_result start(struct ot_capture *c)
{
	c->t_start = ot_now_ns();
	ot_sinks_start(&c->sinks, c->t_start,
		       c->o.interval > 0 ? (uint64_t)(c->o.interval * 1e9) : 0,
		       isatty(STDERR_FILENO) && ot_error_verbosity() >= 0 ? stderr : NULL);
	/* -d: the last window is the one the deadline ends, from the start:
	 * a scope drained after the deadline must not open another. */
	if (c->o.duration > 0)
		ot_sinks_end(&c->sinks, c->t_start + (uint64_t)(c->o.duration * 1e9));
	ot_metrics_start(c);
	/* A command whose strings are read afterwards: stopped just after
	 * its exec while its memory is opened (a backend that holds it at
	 * its entry point had it opened at arming). */
	if (c->target.is_child && (strs_at_exec(c) ?
				   ot_target_release_at_exec(&c->target, keyed_exec, c) :
				   ot_target_release(&c->target)))
		return OT_CAPTURE_FAILED;
	if (!c->o.all && c->o.npids <= 1 && !c->target.is_child &&
	    ot_target_check_exit(&c->target)) {
		ot_error("process %d exited while its probes were armed", (int)c->target.pid);
		return OT_CAPTURE_FAILED;
	}
	return OT_CAPTURE_OK;
}

/*
 * -p: how the process will end is the kernel's to tell, watched from now
 * (before arming, outside its timing and a --freeze's pause: loading the
 * BPF program takes ~20 ms).  A backend that arms uprobes holds nothing of
 * the process and runs privileged, as the watch needs; one that holds it
 * with ptrace is told by its wait.  Without it (no BTF, no CAP_BPF) the process's
 * pidfd and /proc are asked at the end (lib/process/exitinfo).
 */
static void watch_exit(struct ot_capture *c)
{
	if (!c->target.is_child && !c->o.all && c->target.pid > 0 &&
	    (c->o.backend->can & OT_NEEDS_SYS_ADMIN))
		(void)ot_exitwatch_start(c->target.pid, &c->exitw);
}

enum ot_capture_result ot_capture_arm(struct ot_capture *c)
{
	enum ot_capture_result ret;
	struct ot_ipi after;
	int late, err;

	/* Output files are opened before arming: a typo must not cost a capture. */
	if (c->o.folded) {
		if (ot_outfile_open(c->o.folded, &c->folded_file))
			return OT_CAPTURE_FAILED;
		c->folded = ot_outfile_stream(c->folded_file);
	}
	/* Without uprobes ptrace's own permission check decides. */
	if ((c->o.backend->can & OT_NEEDS_SYS_ADMIN) && ot_caps_check())
		return OT_CAPTURE_FAILED;
	c->npt = c->plan.sel.n;
	ot_keyed_size(c);
	if (c->o.compensate && add_calib_target(c))
		return OT_CAPTURE_FAILED;
	add_go_deaths(c);
	if (spawn(c) || make_sinks(c) ||
	    ot_metrics_open(c))
		return OT_CAPTURE_FAILED;
	watch_exit(c);
	/* What arming costs the machine, measured the way the seed measured
	 * static keys: wall time and /proc/interrupts deltas. */
	ot_ipi_read(&c->arm_before);
	c->arm_t0 = ot_now_ns();
	err = arm_probes(c);
	if (err || (c->calib_pair && ot_calib_live_start(&c->calib_live)))
		return err == -EDOM ? OT_CAPTURE_BAD_INPUT : OT_CAPTURE_FAILED;
	c->arm_ns = ot_now_ns() - c->arm_t0;
	ot_ipi_read(&after);
	c->arm_ipi.cal = after.cal - c->arm_before.cal;
	c->arm_ipi.tlb = after.tlb - c->arm_before.tlb;
	/* A command whose strings may be read from its memory afterwards:
	 * that is opened once it has exec'd, before the privilege goes (a
	 * root command's memory needs it: its capabilities are not ours). */
	late = strs_at_exec(c);
	if ((!late && drop_caps(c)) || (c->calib_live && calibrate(c)))
		return OT_CAPTURE_FAILED;
	ret = start(c);
	if (ret == OT_CAPTURE_OK && late && drop_caps(c))
		return OT_CAPTURE_FAILED;
	return ret;
}

enum ot_capture_result ot_capture_run(struct ot_capture *c)
{
	run(c);
	return OT_CAPTURE_OK;
}

enum ot_capture_result ot_capture_report(struct ot_capture *c)
{
	enum ot_capture_result ret;
	int metrics_bad;

	/* Disable first, drain what is left, report; disarm last (slow). */
	c->t_end = ot_now_ns();
	/* -d: the capture's clock ends at its deadline, which the loop woke
	 * for (a scope closing in the microseconds until the probes are
	 * disabled is the last interval's, as any after the end). */
	if (c->ended_by && !strcmp(c->ended_by, "duration"))
		c->t_end = MIN(c->t_end, c->t_start + (uint64_t)(c->o.duration * 1e9));
	ot_sinks_live_clear(&c->sinks);
	ot_calib_live_stop(c->calib_live);
	c->calib_live = NULL;
	ot_probes_disable(c->probes);
	ot_sinks_end(&c->sinks, c->t_end);
	final_drain(c);
	/* The last, shorter interval: the intervals add up to the capture. */
	if (ot_sinks_interval_due(&c->sinks) != UINT64_MAX)
		ot_sinks_interval(&c->sinks, c->t_end, ot_drain_stats(c->drain)->lost);
	if (c->keyed_feeds)
		ot_keyed_finish(c);
	ot_pair_finish(c->pair);
	ot_sinks_slow_end(&c->sinks);
	ot_capture_backend_said(c);
	ot_capture_judge(c);
	ot_capture_fill_report(c);
	c->keep_outputs = 1;	/* the report is written: the files are its */
	print_report(c);
	metrics_bad = ot_metrics_end(c);
	ret = ot_capture_outputs(c);
	return ret == OT_CAPTURE_OK && metrics_bad ? OT_CAPTURE_FAILED : ret;
}

void ot_capture_free(struct ot_capture *c)
{
	if (!c)
		return;
	cleanup(c);
	free(c);
}
