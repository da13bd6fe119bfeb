#include "inject.h"
#include "util/clock.h"
#include "util/error.h"
#include "inject_facts.h"
#include "inject_priv.h"
#include "inject_recover.h"
#include "inject_region.h"
#include "inject_tramp.h"
#include "inject_unwind.h"
#include "util/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- attaching ---- */

int inject_read_maps(struct ot_inject *in)
{
	ot_proc_maps_free(in->maps, in->nmaps);
	return ot_proc_maps(in->pid, inject_live_tid(in), &in->maps, &in->nmaps);
}

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
	in->t = t;
#if !defined(__x86_64__)
	ot_error("cannot inject into process %d: inject is for x86-64", (int)pid);
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
			return ret;
		}
	}
	return 0;
}

int ot_inject_install(struct ot_inject *in, struct ot_inject_fn *fn, size_t n)
{
	struct plan *pl = ot_xcalloc(n + 2, sizeof(*pl));
	struct ot_inject_fn hooks[2];
	size_t i, patched, nhook = 0;
	const char *eh;
	int ret;

	in->patches = ot_xcalloc(n + 2, sizeof(*in->patches));
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
		inject_plan_one(in, &fn[i], &pl[i]);
	}
	/* Nothing to patch in this program (each says why): nothing to ask of it. */
	if (!in->nreg)
		goto out;
	ret = inject_process_facts(in);
	if (ret)
		goto out;
	nhook = inject_unwinders(in, hooks);
	for (i = 0; i < nhook; i++)
		inject_plan_one(in, &hooks[i], &pl[n + i]);
	ret = inject_map_all(in, pl, n + nhook, n + nhook);
	if (ret)
		goto out;
	patched = inject_trampolines(in, fn, n, hooks, nhook, pl);
	eh = inject_mapped_eh(in);
	if (eh && !in->info.unwinder) {
		ot_error("cannot inject into process %d: %s has C++ exception tables and no unwinder "
			 "orbit-trace can hook (_Unwind_Find_FDE) is mapped: an exception through a "
			 "traced function would abort it", (int)in->pid, eh);
		ret = -ENOTSUP;
		in->npatches = 0;
		goto out;
	}
	inject_recovery_table(in);
	ret = write_all(in);
	if (!ret) {
		in->patched = patched;
		ret = (int)patched;
	}
out:
	for (i = 0; i < n + 2; i++)
		free(pl[i].code);
	if (nhook)
		free((char *)hooks[nhook - 1].path);
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

/* ---- removal ---- */

/* 1 when pid has exited (a zombie has no memory left to restore); a
 * process whose first thread ended while others run has. */
static int gone(pid_t pid)
{
	return !ot_proc_live_task(pid);
}

/* Put back every return address a thread's table still holds on its stack. */
static void restore_returns(struct ot_inject *in)
{
	uint64_t ret = in->rt_ret;
	uint8_t *slots = ot_xmalloc(OT_INJ_PRIV_FDES), *table = ot_xmalloc(OT_INJ_TABLE_SIZE);
	size_t i, k;

	if (ot_tracee_read(in->t, in->priv, slots, OT_INJ_PRIV_FDES))
		goto out;
	for (i = 0; i < OT_INJ_NSLOTS; i++) {
		const uint8_t *slot = slots + i * OT_INJ_SLOT_SIZE;
		uint64_t key, count, tab;

		memcpy(&key, slot + OT_INJ_PS_KEY, 8);
		memcpy(&count, slot + OT_INJ_PS_COUNT, 8);
		memcpy(&tab, slot + OT_INJ_PS_TABLE, 8);
		if (!key || !count || ot_tracee_read(in->t, tab, table, OT_INJ_TABLE_SIZE))
			continue;
		for (k = 0; k < (1u << OT_INJ_TABLE_BITS); k++) {
			const uint8_t *e = table + k * OT_INJ_ENT_SIZE;
			uint64_t at, orig, now;

			memcpy(&at, e + OT_INJ_E_KEY, 8);
			memcpy(&orig, e + OT_INJ_E_RET, 8);
			/* A frame gone without returning may have left its slot
			 * to other data, or unmapped: only our address is ours. */
			if (!at || ot_tracee_read(in->t, at, &now, 8) || now != ret)
				continue;
			if (!ot_tracee_write(in->t, at, &orig, 8))
				in->info.returns_restored++;
		}
	}
out:
	free(slots);
	free(table);
}

static void unmap_all(struct ot_inject *in)
{
	size_t i;

	if (in->shared_t)
		inject_sys(in, SYS_munmap, (long)in->shared_t, (long)in->shared_len, 0, 0, 0, 0);
	if (in->priv)
		inject_sys(in, SYS_munmap, (long)in->priv, OT_INJ_PRIV_SIZE, 0, 0, 0, 0);
	for (i = in->nreg; i > 1; i--)
		inject_sys(in, SYS_munmap, (long)in->reg[i - 1].addr, (long)in->reg[i - 1].size, 0, 0, 0, 0);
	/* The gadget's own region last, by the thread's own instruction. */
	in->t->gadget = 0;
	if (in->nreg && inject_sys(in, SYS_munmap, (long)in->reg[0].addr, (long)in->reg[0].size,
			    0, 0, 0, 0))
		in->info.left_bytes = in->reg[0].size;
}

/*
 * With the threads held and the entries restored: no thread left inside
 * our code, every hijacked return address put back, our memory unmapped
 * - or left, saying why, when a thread may still need it.
 */
void inject_take_back(struct ot_inject *in)
{
	uint64_t *lo = ot_xcalloc(in->nreg + 1, sizeof(*lo)), *hi = ot_xcalloc(in->nreg + 1, sizeof(*hi));
	const struct ot_proc_map *gcc;
	size_t i, stuck = 0, in_unwinder = 0;

	for (i = 0; i < in->nreg; i++) {
		lo[i] = in->reg[i].addr;
		hi[i] = in->reg[i].addr + in->reg[i].size;
	}
	inject_read_maps(in);
	gcc = ot_proc_maps_lib(in->maps, in->nmaps, "libgcc_s.so");
	for (i = 0; i < in->t->n; i++) {
		struct user_regs_struct r;

		if (ot_tracee_step_out(in->t, i, lo, hi, in->nreg, 100000) > 0)
			stuck++;
		/* An unwinder midway may hold one of the FDEs. */
		if (gcc && !ot_tracee_regs(in->t, i, &r) && r.rip >= gcc->lo && r.rip < gcc->hi)
			in_unwinder++;
	}
	if (in->priv)
		restore_returns(in);
	if (stuck || in_unwinder) {
		in->info.left_bytes = in->info.code_bytes + in->info.private_bytes +
				      in->info.shared_bytes;
		in->info.left_why = stuck ? "a thread was in a system call inside a trampoline" :
					    "a thread was unwinding its stack";
	} else {
		unmap_all(in);
		if (in->info.left_bytes)
			in->info.left_why = "the last munmap in the process failed";
	}
	free(lo);
	free(hi);
}

size_t ot_inject_check(struct ot_inject *in)
{
	uint8_t now[OT_PATCH_LEN];
	size_t i;

	for (i = 0; i < in->npatches; i++) {
		const struct patch *pa = &in->patches[i];

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

	if (in->execd || (!in->npatches && !in->nreg && !in->priv))
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
	inject_take_back(in);
	ot_tracee_detach(in->t);
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
	size_t i;

	if (!in)
		return;
	ot_inject_resume(in);
	/* Off our robust list before its memory goes. */
	if (in->owner)
		pthread_mutex_unlock(in->owner);
	if (in->shared)
		munmap(in->shared, in->shared_len);
	if (in->memfd >= 0)
		close(in->memfd);
	for (i = 0; i < in->nreg; i++)
		free(in->reg[i].buf);
	free(in->reg);
	free(in->patches);
	free(in->regs);
	free(in->file_path);
	if (in->file_fd >= 0)
		close(in->file_fd);
	ot_proc_maps_free(in->maps, in->nmaps);
	free(in);
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
