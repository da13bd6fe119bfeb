/*
 * inject.c - --backend inject's life cycle (inject.h): attach, install as one
 * transaction, remove, detach; its jobs are in inject_*.c.
 */
#include "inject.h"
#include "util/clock.h"
#include "util/error.h"
#include "inject_exits.h"
#include "inject_facts.h"
#include "inject_remove.h"
#include "inject_sema.h"
#include "inject_state.h"
#include "inject_recover.h"
#include "inject_region.h"
#include "inject_tramp.h"
#include "inject_traps.h"
#include "inject_unwind.h"
#include "util/xalloc.h"
#include "arch/arch.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- attaching ---- */

/*
 * A process an orbit-trace that was killed left instrumented: taken back
 * first (said), then traced as any other.  0, or -errno after printing.
 */
static int reclaim(struct ot_inject *in)
{
	struct ot_inject_recovery rec;
	int ret = ot_inject_recover(in->pid, in->t, &rec);

	if (ret == -EBUSY) {
		ot_error("cannot inject into process %d: orbit-trace process %d still holds it",
			 (int)in->pid, (int)rec.tracer);
		return ret;
	}
	if (ret) {
		ot_error_errno(-ret, "cannot inject into process %d: it holds what an earlier "
			       "orbit-trace left, unreadable", (int)in->pid);
		return ret;
	}
	if (rec.found)
		ot_warn("process %d was left instrumented by orbit-trace process %d, which is "
			"gone: %zu of %zu patched functions and %zu return addresses put back, "
			"%.1f MB unmapped%s%s", (int)in->pid, (int)rec.tracer, rec.restored,
			rec.patches, rec.returns_restored, (double)rec.unmapped_bytes / 1048576.0,
			rec.kept ? "; kept: " : "", rec.kept ? rec.why : "");
	return 0;
}

int ot_inject_attach(pid_t pid, const struct ot_inject_opts *o, struct ot_tracee *t,
		     struct ot_inject **out)
{
	struct ot_inject *in = ot_xcalloc(1, sizeof(*in));
	const char *why;
	int ret;

	*out = NULL;
	in->pid = pid;
	in->o = *o;
	in->memfd = -1;
	in->file_fd = -1;
	in->unwind_file.fd = -1;
	in->t = t;
#if !OT_ARCH_INJECT
	ot_error("cannot inject into process %d: inject has no trampolines for %s code",
		 (int)pid, OT_ARCH_NAME);
	free(in);
	return -ENOTSUP;
#endif
	why = inject_refuse_process(in);
	if (why) {
		ot_error("cannot inject into process %d: %s", (int)pid, why);
		free(in);
		return -EPERM;
	}
	in->t_stop = ot_now_ns();
	if (t->watching) {
		/* A later program of a process we hold: every thread stopped. */
		ret = ot_tracee_hold(t);
		why = ret > 0 ? "it exec'd again" : "it exited";
		ret = ret > 0 ? -EAGAIN : ret;
	} else {
		ret = o->adopt ? ot_tracee_adopt(pid, t, &why) : ot_tracee_attach(pid, t, &why);
		if (!ret && ot_tracee_watch(t)) {
			ret = -errno;
			why = "cannot watch it for exec";
		}
	}
	if (ret) {
		ot_error_errno(-ret, "cannot stop process %d: %s", (int)pid, why);
		free(in);
		return ret;
	}
	in->stopped = 1;
	*out = in;
	return reclaim(in);
}

/* ---- installing ---- */

/* Patches besides the functions': two unwinder hooks, two breakpoints
 * (inject_traps.c: LeakSanitizer's and execve's). */
#define EXTRA_PATCHES 4

/* The code regions, then the patches that lead into them. */
static int write_all(struct ot_inject *in)
{
	size_t i;
	int ret;

	for (i = 0; i < in->nreg; i++) {
		ret = ot_tracee_write(in->t, in->reg[i].addr, in->reg[i].buf, in->reg[i].size);
		if (ret) {
			ot_error_errno(-ret, "cannot write into process %d", (int)in->pid);
			in->npatches = 0;
			return ret;
		}
	}
	for (i = 0; i < in->npatches; i++) {
		ret = ot_tracee_write(in->t, in->patches[i].addr, in->patches[i].jmp,
				      OT_PATCH_LEN);
		if (ret) {
			ot_error_errno(-ret, "cannot patch process %d", (int)in->pid);
			in->npatches = i;	/* those written are restored */
			in->nsemas = 0;
			return ret;
		}
	}
	inject_traps_armed(in);
	/* Raised once the sites lead to the probes: whichever comes first,
	 * the other is there before a thread runs. */
	if (inject_semas_add(in, 1))
		ot_warn("process %d: a USDT semaphore could not be raised: its probe's sites may "
			"not be reached", (int)in->pid);
	return 0;
}

/*
 * Where a runtime walks the process's stacks, functions' returns are
 * seen at their return instructions: those sites (lib/inject/inject_exits)
 * join fn[0..n) in *all, each planned into pl (grown to hold them and
 * the hooks).  Returns the length of *all (n when there is no such
 * runtime, *all then fn itself).
 */
static size_t plan_exits(struct ot_inject *in, struct ot_inject_fn *fn, size_t n,
			 struct inject_exits *x, struct ot_inject_fn **all, struct plan **pl)
{
	size_t i;

	*all = fn;
	in->info.walker = inject_walker(in);
	if (!in->info.walker)
		return n;
	ot_verbose("process %d maps %s, which walks its stacks: returns are seen at return "
		   "instructions", (int)in->pid, in->info.walker);
	if (!in->o.returns) {
		for (i = 0; i < n; i++)
			if (!fn[i].refused && !fn[i].point) {
				snprintf(fn[i].refused_buf, sizeof(fn[i].refused_buf), "%s walks its "
					 "stacks (a moved return address would kill it)",
					 in->info.walker);
				fn[i].refused = fn[i].refused_buf;
			}
		return n;
	}
	inject_exits_plan(in, fn, n, x);
	*all = ot_xcalloc(n + x->n + 1, sizeof(**all));
	memcpy(*all, fn, n * sizeof(*fn));
	memcpy(*all + n, x->site, x->n * sizeof(*x->site));
	*pl = ot_xreallocarray(*pl, n + x->n + 2, sizeof(**pl));
	memset(*pl + n, 0, (x->n + 2) * sizeof(**pl));
	for (i = n; i < n + x->n; i++)
		inject_plan_one(in, &(*all)[i], &(*pl)[i]);
	in->patches = ot_xreallocarray(in->patches, n + x->n + EXTRA_PATCHES, sizeof(*in->patches));
	return n + x->n;
}

/* What the install learnt of fn[i], from all[i] (a copy, with the exit
 * sites after it). */
static void copy_back(struct ot_inject_fn *fn, const struct ot_inject_fn *all, size_t n)
{
	size_t i;

	for (i = 0; all != fn && i < n; i++) {
		int own = all[i].refused == all[i].refused_buf;

		fn[i] = all[i];
		if (own)
			fn[i].refused = fn[i].refused_buf;
	}
}

/* Whether a function's return address is moved (hijacked) anywhere:
 * then an exception through it needs the unwinder hooked. */
static int hijacks(const struct ot_inject_fn *fn, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!fn[i].refused && !fn[i].point && !fn[i].exits)
			return 1;
	return 0;
}

int ot_inject_install(struct ot_inject *in, struct ot_inject_fn *fn, size_t n)
{
	struct plan *pl = ot_xcalloc(n + 2, sizeof(*pl));
	struct ot_inject_fn hooks[2], *all = fn;
	struct inject_exits x = { 0 };
	size_t i, patched = 0, nhook = 0, nall = n;
	const char *eh;
	int ret;

	in->patches = ot_xcalloc(n + EXTRA_PATCHES, sizeof(*in->patches));
	if (n > OT_INJ_MAX_FUNCS) {
		ot_error("cannot inject into process %d: inject traces at most %d functions, not %zu",
			 (int)in->pid, OT_INJ_MAX_FUNCS, n);
		ret = -E2BIG;
		goto out;
	}
	ret = inject_read_maps(in);
	if (ret) {
		ot_error_errno(-ret, "cannot read the mappings of process %d", (int)in->pid);
		goto out;
	}
	for (i = 0; i < n; i++) {
		fn[i].refused = NULL;
		fn[i].unmapped = 0;
		fn[i].exits = 0;
		inject_plan_one(in, &fn[i], &pl[i]);
	}
	/* Nothing to patch in this program (each says why): nothing to ask of it. */
	if (!in->nreg)
		goto out;
	ret = inject_process_facts(in);
	if (ret)
		goto out;
	in->leak_check = inject_leak_check(in, in->why, sizeof(in->why));
	if (!in->leak_check && in->why[0]) {
		ot_error("cannot inject into process %d: %s", (int)in->pid, in->why);
		ret = -ENOTSUP;
		goto out;
	}
	nall = plan_exits(in, fn, n, &x, &all, &pl);
	/* Only moved return addresses need the unwinder hooked. */
	nhook = in->info.walker ? 0 : inject_unwinders(in, hooks);
	for (i = 0; i < nhook; i++)
		inject_plan_one(in, &hooks[i], &pl[nall + i]);
	ret = inject_map_all(in, pl, nall + nhook, nall + EXTRA_PATCHES);
	if (ret)
		goto out;
	patched = inject_trampolines(in, all, nall, hooks, nhook, pl);
	if (in->info.walker) {
		/* The sites as the trampolines left them (refused, calls). */
		memcpy(x.site, all + n, x.n * sizeof(*x.site));
		in->info.exits_functions = inject_exits_settle(in, all, n, &x);
		for (i = 0, patched = 0; i < n; i++)
			patched += !all[i].refused;
	}
	eh = hijacks(all, n) ? inject_mapped_eh(in) : NULL;
	if (eh && !in->info.unwinder) {
		ot_error("cannot inject into process %d: %s has C++ exception tables and no unwinder "
			 "orbit-trace can hook (_Unwind_Find_FDE) is mapped: an exception through a "
			 "traced function would abort it", (int)in->pid, eh);
		ret = -ENOTSUP;
		in->npatches = 0;
		goto out;
	}
	inject_semas_find(in, all, n);
	inject_traps_plan(in);
	inject_recovery_table(in);
	ret = write_all(in);
	if (!ret) {
		in->patched = patched;
		ret = (int)patched;
	}
out:
	copy_back(fn, all, n);
	for (i = 0; i < nall + 2; i++)
		free(pl[i].code);
	for (i = 0; i < nhook; i++)
		free((char *)hooks[i].path);
	if (all != fn)
		free(all);
	inject_exits_free(&x);
	free(pl);
	return ret;
}

/* ---- running ---- */

void *ot_inject_shared(const struct ot_inject *in, size_t *len)
{
	*len = in->shared_len;
	return in->shared;
}

int ot_inject_memfd(const struct ot_inject *in)
{
	return in->memfd;
}

void ot_inject_enable(struct ot_inject *in, int on)
{
	if (in->shared)
		__atomic_store_n((uint32_t *)((uint8_t *)in->shared + OT_INJ_H_ENABLED),
				 (uint32_t)on, __ATOMIC_RELEASE);
}

void ot_inject_resume(struct ot_inject *in)
{
	if (!in->stopped)
		return;
	ot_tracee_resume(in->t);
	in->stopped = 0;
	in->info.arm_pause_ns = ot_now_ns() - in->t_stop;
}

void ot_inject_execd(struct ot_inject *in)
{
	in->execd = 1;
	in->stopped = 0;
	in->npatches = 0;
}

/* ---- children ---- */

int ot_inject_forked(struct ot_inject *in, pid_t child)
{
	struct ot_inject_recovery rec;
	struct ot_tracee ct;
	const char *why = NULL;
	int ret;

	if (in->execd || !in->nreg) {
		ot_tracee_kid_detach(child);	/* nothing of ours in this program */
		return 0;
	}
	ret = ot_tracee_adopt(child, &ct, &why);
	if (!ret) {
		ret = inject_recover_child(child, &ct, &rec);
		why = ret ? strerror(-ret) : rec.kept ? rec.why : rec.left_why;
		ot_tracee_detach(&ct);
	}
	if (!ret && !rec.kept && !rec.left_bytes) {
		in->info.children++;
		return 0;
	}
	if (!in->info.children_kept++)
		snprintf(in->info.child_why, sizeof(in->info.child_why), "process %d: %s",
			 (int)child, why ? why : "?");
	ot_warn("process %d forked %d, which keeps orbit-trace's instrumentation: %s "
		"(orbit-trace --restore -p %d takes it back)", (int)in->pid, (int)child,
		why ? why : "?", (int)child);
	return ret ? ret : -EIO;
}

int ot_inject_vfork(struct ot_inject *in, pid_t tid, int on)
{
	uint8_t *h = in->shared;
	uint64_t *tp = h ? (uint64_t *)(h + OT_INJ_H_VFORK_TP) : NULL, zero;
	uint32_t *n = h ? (uint32_t *)(h + OT_INJ_H_VFORKS) : NULL;
	struct user_regs_struct r;
	size_t i;

	/* Its child execs untraced in this memory: no breakpoint of ours on
	 * execve meanwhile. */
	if (on && !in->vforks++)
		inject_exec_trap(in, 0);
	if (!on && in->vforks && !--in->vforks)
		inject_exec_trap(in, 1);
	if (!h || ot_ptrace_regs(tid, &r) || !ot_ptregs_tp(&r))
		return -ESRCH;
	for (i = 0; i < OT_INJ_VFORK_MAX; i++) {
		zero = 0;
		if (on && __atomic_compare_exchange_n(&tp[i], &zero, ot_ptregs_tp(&r), 0, __ATOMIC_SEQ_CST,
						      __ATOMIC_SEQ_CST)) {
			__atomic_add_fetch(n, 1, __ATOMIC_SEQ_CST);
			return 0;
		}
		if (!on && __atomic_load_n(&tp[i], __ATOMIC_ACQUIRE) == ot_ptregs_tp(&r)) {
			__atomic_store_n(&tp[i], 0, __ATOMIC_SEQ_CST);
			__atomic_sub_fetch(n, 1, __ATOMIC_SEQ_CST);
			return 0;
		}
	}
	return on ? -ENOSPC : 0;
}

/* Children the hold found: a forked one taken back, a vfork child (in
 * this memory, restored with it) let go. */
static void children(struct ot_inject *in)
{
	pid_t kid, parent;
	int vfork;

	while ((kid = ot_tracee_next_kid(in->t, &vfork, &parent))) {
		if (vfork)
			ot_tracee_kid_detach(kid);
		else
			ot_inject_forked(in, kid);
	}
	while (ot_tracee_next_vfork_done(in->t))
		;
}

/* ---- removal ---- */

/* 1 when pid has exited (a zombie has no memory left to restore); a
 * process whose first thread ended while others run has. */
static int gone(pid_t pid)
{
	return !ot_proc_live_task(pid);
}

size_t ot_inject_check(struct ot_inject *in)
{
	uint8_t now[OT_PATCH_LEN];
	size_t i;

	for (i = 0; i < in->npatches; i++) {
		const struct patch *pa = &in->patches[i];

		/* A breakpoint of ours (inject_traps.c) is taken out at times. */
		if (pa->covered == 1)
			continue;
		if (ot_tracee_read(in->t, pa->addr, now, OT_PATCH_LEN) ||
		    !memcmp(now, pa->jmp, OT_PATCH_LEN))
			continue;
		if (!in->info.overwritten++)
			in->info.overwritten_fn = pa->fn;
	}
	return in->info.overwritten;
}

/* Put a function's first bytes back, but for an int3 someone planted on
 * our patch since (a uprobe): the kernel puts the file's byte back itself
 * when that uprobe goes, and until then its owner keeps seeing hits. */
static void restore_entry(struct ot_inject *in, const struct patch *pa)
{
	uint8_t now[OT_PATCH_LEN], put[OT_PATCH_LEN];
	size_t k;

	memcpy(put, pa->orig, OT_PATCH_LEN);
	if (!ot_tracee_read(in->t, pa->addr, now, OT_PATCH_LEN))
		for (k = 0; k < OT_PATCH_LEN; k++)
			if (now[k] == 0xcc && pa->jmp[k] != 0xcc)
				put[k] = 0xcc;
	if (ot_tracee_write(in->t, pa->addr, put, OT_PATCH_LEN))
		ot_warn("cannot restore the entry of a function at 0x%" PRIx64 " in process %d",
			pa->addr, (int)in->pid);
}

int ot_inject_remove(struct ot_inject *in)
{
	uint64_t t0;
	size_t i;
	int ret = 0;

	if (in->execd || in->removed || (!in->npatches && !in->nreg && !in->priv))
		return 0;	/* nothing of ours in this program */
	if (gone(in->pid)) {
		in->info.gone = 1;	/* nothing of it left to restore */
		return 0;
	}
	t0 = ot_now_ns();
	ret = in->stopped ? 0 : ot_tracee_hold(in->t);
	in->stopped = 0;
	if (ret > 0) {
		/* It exec'd just now: the code to restore went with its program. */
		in->execd = 1;
		return 0;
	}
	if (ret == -ESRCH) {
		in->info.gone = 1;
		return 0;
	}
	if (ret) {
		if (in->npatches)
			ot_warn("cannot stop process %d to restore its code (%s): %zu functions stay "
				"patched, costing it a few ns per call", (int)in->pid, strerror(-ret),
				in->npatches);
		return ret;
	}
	for (i = 0; i < in->npatches; i++)
		restore_entry(in, &in->patches[i]);
	in->npatches = 0;
	inject_semas_add(in, -1);
	in->nsemas = 0;
	inject_take_back(in);
	/* Forked before the restore: a copy of it all each. */
	children(in);
	ot_tracee_detach(in->t);
	in->removed = 1;
	in->info.disarm_pause_ns = ot_now_ns() - t0;
	return 0;
}

void ot_inject_kill(struct ot_inject *in)
{
	if (in->stopped && in->o.adopt)
		kill(in->pid, SIGKILL);
}

void ot_inject_free(struct ot_inject *in)
{
	if (!in)
		return;
	ot_inject_resume(in);
	inject_state_free(in);
}

const struct ot_inject_stats *ot_inject_stats(const struct ot_inject *in)
{
	return &in->info;
}

int ot_inject_clock(const struct ot_inject *in, const char **why)
{
	*why = in->clock_why;
	return in->clock;
}

size_t ot_inject_patched(const struct ot_inject *in)
{
	return in->patched;
}

int ot_inject_present(pid_t pid)
{
	struct ot_proc_map *maps;
	size_t i, n;
	int found = 0, fd;
	char path[64];

	if (ot_proc_maps(pid, pid, &maps, &n))
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (i = 0; i < n && !found; i++) {
		char name[12];

		found = !strncmp(maps[i].path, "/memfd:orbit-trace", 18);
		/* A first code region left without its rings (a failed munmap). */
		if (!found && fd >= 0 && maps[i].perms[2] == 'x' && !maps[i].ino &&
		    !maps[i].path[0] &&
		    pread(fd, name, sizeof(name), (off_t)(maps[i].lo + OT_INJ_REG_NAME)) ==
			    (ssize_t)sizeof(name))
			found = !memcmp(name, "orbit-trace", 12);
	}
	if (fd >= 0)
		close(fd);
	ot_proc_maps_free(maps, n);
	return found;
}

/* The orbit-trace that holds pid with ptrace, or 0. */
static pid_t traced_by_us(pid_t pid)
{
	char path[64], val[32], comm[32];
	pid_t tracer;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (ot_proc_status_field(path, "TracerPid:", val, sizeof(val)))
		return 0;
	tracer = (pid_t)atoi(val);
	return tracer > 0 && !ot_proc_comm(tracer, comm, sizeof(comm)) &&
	       !strcmp(comm, "orbit-trace") ? tracer : 0;
}

int ot_inject_clear(pid_t pid)
{
	struct ot_inject_recovery rec;
	struct ot_tracee t;
	const char *why;
	int ret = ot_inject_present(pid);

	if (ret <= 0)
		return 0;	/* nothing (or gone: the arming says so) */
	ret = ot_tracee_attach(pid, &t, &why);
	if (ret && traced_by_us(pid)) {
		ot_error("cannot trace process %d: orbit-trace process %d instruments it "
			 "(--backend inject) and still runs: a uprobe on a function it patched would "
			 "kill it; end that capture first", (int)pid, (int)traced_by_us(pid));
		return -EBUSY;
	}
	if (ret) {
		ot_error("cannot trace process %d: it holds what orbit-trace --backend inject put "
			 "there, which cannot be taken back now (ptrace: %s); a uprobe on a "
			 "function inject patched would kill it - orbit-trace --restore -p %d takes "
			 "it back", (int)pid, why, (int)pid);
		return ret;
	}
	ret = ot_inject_recover(pid, &t, &rec);
	ot_tracee_detach(&t);
	if (ret == -EBUSY) {
		ot_error("cannot trace process %d: orbit-trace process %d instruments it "
			 "(--backend inject) and still runs: a uprobe on a function it patched would "
			 "kill it; end that capture first", (int)pid, (int)rec.tracer);
		return ret;
	}
	if (ret || rec.kept) {
		ot_error("cannot trace process %d: it holds what orbit-trace process %d "
			 "(--backend inject) left, and %s; a uprobe on a function inject patched "
			 "would kill it - see orbit-trace --restore -p %d", (int)pid, (int)rec.tracer,
			 ret ? strerror(-ret) : rec.why, (int)pid);
		return ret ? ret : -EIO;
	}
	if (rec.found)
		ot_warn("process %d was left instrumented by orbit-trace process %d (--backend "
			"inject), which is gone: %zu of %zu patched functions and %zu return "
			"addresses put back, %.1f MB unmapped, before arming", (int)pid,
			(int)rec.tracer, rec.restored, rec.patches, rec.returns_restored,
			(double)rec.unmapped_bytes / 1048576.0);
	return 0;
}

int ot_inject_restore(pid_t pid, struct ot_inject_recovery *out)
{
	struct ot_tracee t;
	const char *why;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = ot_tracee_attach(pid, &t, &why);
	if (ret) {
		ot_error("cannot restore process %d: ptrace: %s", (int)pid, why);
		return ret;
	}
	ret = ot_inject_recover(pid, &t, out);
	ot_tracee_detach(&t);
	if (ret == -EBUSY)
		ot_error("cannot restore process %d: the orbit-trace that instrumented it "
			 "(process %d) still runs", (int)pid, (int)out->tracer);
	else if (ret)
		ot_error_errno(-ret, "cannot restore process %d", (int)pid);
	return ret;
}
