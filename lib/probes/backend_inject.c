/*
 * The inject backend: no uprobe and no kernel object.  lib/inject/inject patches
 * the process's functions to jump into a runtime in its own memory, which
 * pairs calls with returns exactly (a table of the return addresses it
 * moved) and writes each thread's records into a ring of memory shared
 * with us.  This file reads those rings into the drain: one queue per
 * thread (a thread's records are in time order), TSC ticks converted to
 * CLOCK_MONOTONIC (lib/rings/tsc), the runtime's counts of what it could not
 * record turned into lost records, rings of threads that exited given
 * back.  Its rings wake nobody, so the drain polls sooner while they fill.
 *
 * The process stays held with ptrace (watched) while it runs: when it
 * execs, its program and everything of ours in it are gone, so the new
 * program is run to its entry point and instrumented again - a
 * generation each, the old ones' rings still read (forked children may
 * still write there).
 */
#include "backend.h"
#include "backend_figs.h"
#include "util/clock.h"
#include "rings/drain.h"
#include "util/error.h"
#include "inject/inject.h"
#include "inject/inject_layout.h"
#include "inject/inject_ring.h"
#include "process/procfs.h"
#include "symbols/coderefs.h"
#include "symbols/dwarfarg.h"
#include "symbols/usdt.h"
#include "process/tracee.h"
#include "rings/tsc.h"
#include "util/xalloc.h"
#include "arch/arch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/param.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_AREAS	1024	/* at least; 4 per thread at attach */
#define MAX_AREAS	4096
#define LIVENESS_NS	(200ull * 1000 * 1000)	/* how often exited threads are looked for */
#define REFIT_NS	(100ull * 1000 * 1000)	/* how often the TSC map is refitted */
#define MAX_GENS	64	/* programs one process may exec into, traced */

/* One program's instrumentation: the first, and one per exec after it. */
struct inj {
	struct injset *set;
	struct ot_inject *in;
	struct ot_inject_fn *fn;	/* its refusals */
	uint8_t *shm;
	size_t shm_len;
	unsigned nareas;
	size_t area_bytes;
	uint64_t ring_n;
	struct ot_inject_view *av;	/* per area (lib/inject/inject_ring) */
	unsigned used;			/* areas taken at the latest drain */
	struct ot_tsc *tsc;
	int clock;			/* OT_INJ_CLOCK_* */
	uint64_t no_slot, no_area;	/* the header's counts, as last seen */
	uint64_t h_reentered, h_resets, vfork_calls;
	uint64_t noret, reentered, resets;	/* of areas given back */
	uint64_t peak, high_water;	/* bytes pending in the fullest ring */
	int execd;			/* its program is gone */
	struct stat exe;		/* its program's file */
};

/* The process, held for the whole capture, and its programs. */
struct injset {
	struct ot_tracee t;
	struct ot_inject_opts o;
	const struct ot_probe_target *targets;
	size_t nfn;
	/* What is patched: a function's entry each, a USDT probe's every
	 * site (lib/inject's functions), target[e] and site[e] of each. */
	size_t npatch;
	uint32_t *patch_target;
	size_t *patch_site;
	/* Per target with USDT sites: what in its file may jump into code
	 * (lib/symbols/coderefs), read at arming before any thread stops
	 * (php8.2's arming pause was 36 ms with it inside, 2 ms without);
	 * shared by the targets of one file. */
	struct ot_coderefs **refs;
	char (*refs_why)[160];
	uint8_t *refs_own;		/* the file's first target: it frees them */
	char **paths;			/* each function's file, fixed at arming */
	uint32_t *values;		/* each function's value bits (OT_INJ_F_*) */
	uint8_t *vfmt;			/* and its entry values' widths (inject_ring.h) */
	int *fds;
	int pid;
	uint32_t nspid;			/* its id in its own pid namespace */
	struct inj *gen[MAX_GENS];
	size_t ngen;
	unsigned nqueues;
	unsigned *qfree, *retiring;	/* drain queues free, and freed once empty */
	size_t nqfree, nretiring;
	unsigned qnext;
	struct ot_tsc tsc;
	uint64_t next_fit, next_live;
	/* The doorbell: a thread of ours waits on the current program's
	 * futex word and makes wake_fd readable for the drain's poll. */
	uint32_t *bell;			/* its word, here (atomic) */
	int wake_fd;			/* an eventfd */
	int stop;			/* the waiter ends (atomic) */
	pthread_t waiter;
	int waiting;
	unsigned execs;			/* programs exec'd and instrumented again */
	int exits_said;			/* the drain knows functions' exit numbers */
	char exec_why[256];		/* why a program exec'd is not traced */
	char let_go[256];		/* why the process was let go early */
	struct ot_inject_stats stats;	/* over every program, as last filled */
};

static uint64_t load64(const uint8_t *p)
{
	return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

static uint32_t load32(const uint8_t *p)
{
	return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
}

static uint8_t *area(const struct inj *j, unsigned a)
{
	return j->shm + OT_INJ_HDR_SIZE + (size_t)a * j->area_bytes;
}

static int inject_load(struct ot_probes *p, char *why, size_t whylen)
{
	(void)p;
#if OT_ARCH_INJECT
	(void)why;
	(void)whylen;
	return 0;
#else
	snprintf(why, whylen, "inject has no trampolines for %s code", OT_ARCH_NAME);
	return -ENOTSUP;
#endif
}

static void fill_stats(struct injset *s);
static void inject_say(struct ot_probes *p, struct ot_probes_said *out);

static long futex(uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
	return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

/*
 * The doorbell's waiter: while the word is 0 it sleeps on it; a runtime
 * thread whose ring passed a quarter sets it to 1 and wakes it; it tells
 * the drain (wake_fd) and marks it heard (2), and sleeps until the drain
 * arms it again (0).  Never more than one wake-up per drain.
 */
static void *bell_waiter(void *arg)
{
	struct injset *s = arg;
	const struct timespec tick = { 0, 100 * 1000 * 1000 };	/* a program's switch, the end */

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		uint32_t *bell = __atomic_load_n(&s->bell, __ATOMIC_ACQUIRE);
		uint32_t v = __atomic_load_n(bell, __ATOMIC_ACQUIRE), one = 1;
		uint64_t n = 1;

		if (v == 1 && __atomic_compare_exchange_n(bell, &one, 2, 0, __ATOMIC_ACQ_REL,
							  __ATOMIC_ACQUIRE)) {
			if (write(s->wake_fd, &n, sizeof(n)) != sizeof(n))
				continue;
			v = 2;
		}
		futex(bell, FUTEX_WAIT, v, &tick);
	}
	return NULL;
}

/* Ring again from now on: the drain read the rings since it was rung. */
static void bell_arm(struct injset *s)
{
	uint32_t *bell = __atomic_load_n(&s->bell, __ATOMIC_ACQUIRE);
	uint64_t n;

	if (!bell || !__atomic_load_n(bell, __ATOMIC_ACQUIRE))
		return;
	if (read(s->wake_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	__atomic_store_n(bell, 0, __ATOMIC_RELEASE);
	futex(bell, FUTEX_WAKE, 1, NULL);
}

/* The waiter listens to program j's doorbell. */
static void bell_listen(struct injset *s, struct inj *j)
{
	uint32_t *old = __atomic_exchange_n(&s->bell, (uint32_t *)(j->shm + OT_INJ_H_DOORBELL),
					    __ATOMIC_ACQ_REL);

	if (old)
		futex(old, FUTEX_WAKE, 1, NULL);	/* to the new word at once */
}

/* Each USDT target's file's references to code, read once per file. */
static void read_refs(struct injset *s)
{
	size_t i, k;

	s->refs = ot_xcalloc(s->nfn + 1, sizeof(*s->refs));
	s->refs_why = ot_xcalloc(s->nfn + 1, sizeof(*s->refs_why));
	s->refs_own = ot_xcalloc(s->nfn + 1, 1);
	for (i = 0; i < s->nfn; i++) {
		if (!s->targets[i].npoints)
			continue;
		for (k = 0; k < i && !(s->targets[k].npoints && !strcmp(s->paths[k], s->paths[i]));
		     k++)
			;
		if (k < i) {	/* the file's first target's */
			s->refs[i] = s->refs[k];
			memcpy(s->refs_why[i], s->refs_why[k], sizeof(s->refs_why[i]));
		} else if (!ot_coderefs_open(s->paths[i], &s->refs[i], s->refs_why[i],
					     sizeof(s->refs_why[i]))) {
			s->refs_own[i] = 1;
		}
	}
}

/*
 * What lib/inject patches: target i's entry, or each site of a USDT
 * probe.  Their numbers in patch_target, patch_site.
 */
static void patches_of(struct injset *s)
{
	size_t i, k, e = 0;

	for (i = 0; i < s->nfn; i++)
		s->npatch += s->targets[i].npoints ? s->targets[i].npoints : 1;
	s->patch_target = ot_xcalloc(s->npatch, sizeof(*s->patch_target));
	s->patch_site = ot_xcalloc(s->npatch, sizeof(*s->patch_site));
	read_refs(s);
	for (i = 0; i < s->nfn; i++)
		for (k = 0; k < (s->targets[i].npoints ? s->targets[i].npoints : 1); k++, e++) {
			s->patch_target[e] = (uint32_t)i;
			s->patch_site[e] = k;
		}
}

/* Patch e as lib/inject takes it. */
static void patch_of(const struct injset *s, size_t e, struct ot_inject_fn *f)
{
	size_t i = s->patch_target[e];
	const struct ot_probe_target *t = &s->targets[i];

	f->label = t->label;
	f->path = s->paths[i];
	f->file = t->file ? t->file : t->path;
	f->id = (uint32_t)i;
	if (!t->npoints) {
		f->offset = t->sym_offset;
		f->size = t->sym_size;
		f->values = s->values[i];
		return;
	}
	f->point = 1;
	f->site = t->points[s->patch_site[e]];
	f->site_vaddr = t->sites[s->patch_site[e]].vaddr;
	f->refs = s->refs[i];
	f->refs_why = s->refs_why[i];
	f->arg = t->arg ? &t->point_args[s->patch_site[e]] : NULL;
	f->values = t->arg && t->str ? OT_INJ_F_STR : 0;
	f->sema = t->ref_ctr;
}

/* Target i's patches in program j: how many (*n), how many refused
 * (returned), the first refused (*first, or NULL). */
static size_t patches_refused(const struct injset *s, const struct inj *j, size_t i,
			      size_t *n, const struct ot_inject_fn **first)
{
	size_t e, refused = 0;

	*n = 0;
	*first = NULL;
	for (e = 0; e < s->npatch; e++) {
		if (s->patch_target[e] != i)
			continue;
		(*n)++;
		if (!j->fn[e].refused)
			continue;
		if (!refused++)
			*first = &j->fn[e];
	}
	return refused;
}

/*
 * Target i's first refused patch in program j when none of its patches
 * was made (it is not armed), else NULL.  A USDT probe with some sites
 * patched is armed: those sites' hits are counted (partly_armed says
 * which were not).
 */
static const struct ot_inject_fn *refused_patch(const struct injset *s, const struct inj *j,
						size_t i)
{
	const struct ot_inject_fn *first;
	size_t n, refused = patches_refused(s, j, i, &n, &first);

	return refused && refused == n ? first : NULL;
}

/* A USDT probe i with some of its sites patched in program j and others
 * not: one line saying which, into buf; 0 when it is not so. */
static int partly_armed(const struct injset *s, const struct inj *j, size_t i, char *buf,
			size_t len)
{
	const struct ot_inject_fn *first;
	size_t n, refused = patches_refused(s, j, i, &n, &first);

	if (!refused || refused == n)
		return 0;
	snprintf(buf, len, "%s: %zu of its %zu sites armed; %zu not patched, their hits not "
		 "counted (site +0x%llx: %s)", s->targets[i].label, n - refused, n, refused,
		 (unsigned long long)first->site, first->refused);
	return 1;
}

/* Instrument the process's current program as a new generation: its
 * threads stopped, patched, recording entries (when on), let go. */
static int arm_gen(struct injset *s, int on)
{
	const struct ot_inject_stats *st;
	const char *clock_why;
	struct inj *j;
	size_t i, armed = 0;
	char path[64];
	int ret;

	if (s->ngen == MAX_GENS) {
		snprintf(s->exec_why, sizeof(s->exec_why), "it exec'd more than %d programs",
			 MAX_GENS - 1);
		return -E2BIG;
	}
	j = ot_xcalloc(1, sizeof(*j));
	s->gen[s->ngen++] = j;
	j->set = s;
	j->tsc = &s->tsc;
	j->nareas = s->o.nareas;
	j->area_bytes = OT_INJ_A_RING + s->o.ring_kb * 1024;
	j->ring_n = s->o.ring_kb * 1024 / OT_INJ_REC_SIZE;
	j->av = ot_xcalloc(j->nareas, sizeof(*j->av));
	j->fn = ot_xcalloc(s->npatch, sizeof(*j->fn));
	for (i = 0; i < s->npatch; i++)
		patch_of(s, i, &j->fn[i]);
	ret = ot_inject_attach(s->pid, &s->o, &s->t, &j->in);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/exe", s->pid, (int)ot_proc_live_task(s->pid));
	if (stat(path, &j->exe))
		memset(&j->exe, 0, sizeof(j->exe));
	ret = ot_inject_install(j->in, j->fn, s->npatch);
	if (ret < 0)
		return ret;
	for (i = 0; i < s->npatch; i++)
		if (j->fn[i].point && j->fn[i].refused)
			ot_verbose("%s: site +0x%llx not patched: %s", j->fn[i].label,
				   (unsigned long long)j->fn[i].site, j->fn[i].refused);
	for (i = 0; i < s->nfn; i++) {
		const struct ot_inject_fn *r = refused_patch(s, j, i);
		const char *why = r ? r->refused : NULL;
		char part[512];

		if (!why && s->ngen == 1 && partly_armed(s, j, i, part, sizeof(part)))
			ot_warn("%s", part);
		if (!why)
			armed++;
		else if (s->ngen == 1)
			ot_warn("not tracing %s: %s", s->targets[i].label, why);
		else
			ot_verbose("not tracing %s in the program process %d exec'd: %s",
				   s->targets[i].label, s->pid, why);
	}
	j->shm = ot_inject_shared(j->in, &j->shm_len);
	j->clock = ot_inject_clock(j->in, &clock_why);
	st = ot_inject_stats(j->in);
	ot_verbose("inject: clock %s (%s); %zu code regions, %llu KB of code, %llu MB private "
		   "and %llu MB shared mapped in process %d", st->clock, clock_why, st->regions,
		   (unsigned long long)st->code_bytes >> 10,
		   (unsigned long long)st->private_bytes >> 20,
		   (unsigned long long)st->shared_bytes >> 20, s->pid);
	if (j->shm)
		bell_listen(s, j);
	if (s->ngen > 1) {
		ot_inject_enable(j->in, on);
		ot_inject_resume(j->in);
	}
	return (int)armed;
}

/*
 * Each function's file, as it is now: /proc/PID/exe names whatever the
 * process runs, which after an exec is another program; an fd opened
 * now keeps naming the file the function is in.
 */
static void fix_paths(struct injset *s)
{
	size_t i, k;

	s->paths = ot_xcalloc(s->nfn + 1, sizeof(*s->paths));
	s->fds = ot_xcalloc(s->nfn + 1, sizeof(*s->fds));
	for (i = 0; i < s->nfn; i++) {
		const char *path = s->targets[i].path;
		char buf[64];
		int fd;

		s->fds[i] = -1;
		for (k = 0; k < i && strcmp(s->targets[k].path, path); k++)
			;
		if (k < i) {
			s->paths[i] = ot_xstrdup(s->paths[k]);
			continue;
		}
		fd = strncmp(path, "/proc/", 6) ? -1 : open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			snprintf(buf, sizeof(buf), "/proc/self/fd/%d", fd);
			s->fds[i] = fd;
		}
		s->paths[i] = ot_xstrdup(fd >= 0 ? buf : path);
	}
}

/*
 * Operand a as the runtime reads it: the index of the argument register
 * it is (the C ABI's order, OT_ARCH_ARG_REGS: rt_arg_at's in the runtime),
 * its width into *fmt (bytes | 0x10 signed); or -1 with why (the
 * runtime reads the registers a function was entered with, no memory).
 */
static int value_reg(const struct ot_usdt_arg *a, uint8_t *fmt, char *why, size_t len)
{
	/* The C ABI's argument registers by perf number (asm/perf_regs.h). */
	static const int8_t abi[OT_ARCH_NARGS] = OT_ARCH_ARG_REGS_PERF;
	char buf[128];
	int k;

	for (k = 0; a->kind == OT_USDT_ARG_REG && a->idx < 0 && !a->shift && k < OT_ARCH_NARGS; k++)
		if (a->reg == abi[k]) {
			*fmt = (uint8_t)((a->size < 8 ? a->size : 0) | (a->is_signed ? 0x10 : 0));
			return k;
		}
	snprintf(why, len, "it is %s at the entry, and --backend inject records only the "
		 "argument registers (" OT_ARCH_ARG_REGS "): use --backend multi",
		 ot_dwarf_describe(a, buf, sizeof(buf)));
	return -1;
}

/*
 * What t's trampoline records (its value bits, OT_INJ_F_* of
 * lib/inject/inject_layout.h, into *out; its entry values' widths into
 * fmt[4], lib/inject/inject_ring.h's vfmt): 0; or -1 with why: the
 * runtime reads the argument registers a function was entered with and
 * rax at its return, no memory.
 */
static int value_bits(const struct ot_probe_target *t, uint32_t *out, uint8_t *fmt,
		      char *why, size_t len)
{
	uint32_t bits = t->ret_value ? OT_INJ_F_RET : 0;
	unsigned nv = 0, j;
	char buf[192];
	int reg;

	/* A string is the first value's address, its bytes read by the
	 * runtime (OT_INJ_F_STR); what it cannot read, by the drain
	 * afterwards (ot_drain_thread_strs). */
	if (t->str && t->arg)
		bits |= OT_INJ_F_STR;
	if (t->arg) {
		reg = t->entry_arg ? value_reg(t->entry_arg, &fmt[0], buf, sizeof(buf)) : t->arg - 1;
		if (reg < 0) {
			snprintf(why, len, "cannot record its first value: %s", buf);
			return -1;
		}
		bits |= (uint32_t)reg << OT_INJ_F_REG_SHIFT;
		nv = 1;
		for (j = 0; j < t->nmore && nv < OT_INJ_F_MAX_VALS; j++, nv++) {
			reg = value_reg(&t->more_args[j], &fmt[nv], buf, sizeof(buf));
			if (reg < 0) {
				snprintf(why, len, "cannot record its value %u: %s", nv + 1, buf);
				return -1;
			}
			bits |= (uint32_t)reg << (OT_INJ_F_REG_SHIFT + 3 * nv);
		}
	}
	*out = bits | nv << OT_INJ_F_NVALS_SHIFT;
	return 0;
}

/* The plan's check (ot_backend_info.refuse_target): its values readable. */
static int refuse_target(const struct ot_probe_target *t, char *why, size_t len)
{
	uint32_t bits;
	uint8_t fmt[4];

	/* A USDT site's trampoline reads any operand; a string's address is
	 * read afterwards, as a function's. */
	return t->npoints ? 0 : value_bits(t, &bits, fmt, why, len);
}

/* Every target's value bits and widths into s (the plan refused those
 * that cannot have them); -EINVAL after printing. */
static int values_of(struct injset *s)
{
	char why[256];
	size_t i;

	s->values = ot_xcalloc(s->nfn, sizeof(*s->values));
	s->vfmt = ot_xcalloc(s->nfn * OT_INJ_F_MAX_VALS, 1);
	for (i = 0; i < s->nfn; i++)
		/* A USDT site's trampoline reads its operand itself. */
		if (!s->targets[i].npoints && value_bits(&s->targets[i], &s->values[i],
					 &s->vfmt[i * OT_INJ_F_MAX_VALS], why, sizeof(why))) {
			ot_error("%s: %s", s->targets[i].label, why);
			return -EINVAL;
		}
	return 0;
}

/* lib/inject asks where function f returns (a runtime that walks the
 * stacks is mapped): the plan's return instructions of its target. */
static int fn_returns(void *ctx, const struct ot_inject_fn *f, struct ot_inject_rets *out)
{
	struct ot_probes *p = ctx;
	struct ot_probe_returns r;

	if (!p->opts.returns || p->opts.returns(p->opts.returns_ctx, f->id, &r))
		return -1;
	out->sites = r.sites;
	out->n = r.n;
	out->ntail = r.ntail;
	out->delta = r.delta;
	out->inexact = r.inexact;
	return 0;
}

static int inject_arm(struct ot_probes *p, const struct ot_probe_target *t, size_t n, int pid)
{
	struct injset *s = ot_xcalloc(1, sizeof(*s));
	uint64_t ticks, ns;
	size_t threads;
	int ret;

	p->priv = s;
	s->pid = pid;
	s->nspid = (uint32_t)ot_proc_nstid(pid, pid);
	s->targets = t;
	s->nfn = n;
	fix_paths(s);
	patches_of(s);
	if (values_of(s))
		return -EINVAL;
	s->o.ring_kb = p->opts.ring_kb;
	s->o.clock = p->opts.knobs.inject.clock;
	s->o.adopt = p->opts.held;
	s->o.pidfd = p->opts.pidfd;
	s->o.returns = p->opts.returns ? fn_returns : NULL;
	s->o.returns_ctx = p;
	s->o.exit_alias = (uint32_t)n;
	ot_proc_tasks_in(pid, "", &threads);
	s->o.nareas = 4 * (unsigned)threads;
	if (s->o.nareas < DEFAULT_AREAS)
		s->o.nareas = DEFAULT_AREAS;
	if (s->o.nareas > MAX_AREAS)
		s->o.nareas = MAX_AREAS;
	s->t.mem_fd = -1;
	s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->nqueues = s->o.nareas;
	s->qfree = ot_xcalloc(s->nqueues, sizeof(*s->qfree));
	s->retiring = ot_xcalloc(s->nqueues, sizeof(*s->retiring));
	ot_tsc_init(&s->tsc);
	ot_tsc_sample(&ticks, &ns);
	ot_tsc_add(&s->tsc, ticks, ns);
	ret = arm_gen(s, 0);
	if (ret < 0)
		return ret;
	if (!ret) {
		ot_error("cannot inject into process %d: none of the %zu functions can be patched",
			 pid, n);
		return -ENOENT;
	}
	/* No probe ids: its records name their function and kind
	 * (lib/inject/inject_ring, ot_drain_thread). */
	return 0;
}

static struct inj *current(const struct injset *s)
{
	return s && s->ngen ? s->gen[s->ngen - 1] : NULL;
}

/* Entries from now on; then the threads run. */
static int inject_enable(struct ot_probes *p)
{
	struct inj *j = current(p->priv);

	ot_inject_enable(j->in, 1);
	ot_inject_resume(j->in);
	return 0;
}

static void inject_disable(struct ot_probes *p)
{
	struct injset *s = p->priv;
	size_t g;

	for (g = 0; s && g < s->ngen; g++)
		if (s->gen[g]->in)
			ot_inject_enable(s->gen[g]->in, 0);
	/* Someone else's breakpoint on a patch made calls go unseen: said
	 * before the counts are judged (removal comes after the report). */
	if (s && current(s) && current(s)->in && !current(s)->execd)
		ot_inject_check(current(s)->in);
}

/*
 * Children the process made, held before they run: a forked one gets
 * everything of ours in its copy taken back and runs untraced; a vfork
 * child (in the process's memory until it execs) has its thread pointer
 * set apart so that its calls are not the process's.  Then every thread
 * held runs on.
 */
static void kids(struct injset *s)
{
	struct inj *j = current(s);
	struct ot_inject *in = j && !j->execd ? j->in : NULL;
	pid_t kid, parent, tid;
	int vfork;

	while ((kid = ot_tracee_next_kid(&s->t, &vfork, &parent))) {
		if (!in) {
			ot_tracee_kid_detach(kid);
		} else if (!vfork) {
			ot_inject_forked(in, kid);
		} else {
			if (ot_inject_vfork(in, parent, 1) == -ENOSPC)
				ot_verbose("process %d: more vforks at once than inject keeps apart: "
					   "the calls of child %d count as thread %d's", s->pid,
					   (int)kid, (int)parent);
			ot_tracee_kid_detach(kid);
		}
	}
	while ((tid = ot_tracee_next_vfork_done(&s->t)))
		if (in)
			ot_inject_vfork(in, tid, 0);
	ot_tracee_resume(&s->t);
}

/*
 * A breakpoint of lib/inject's was reached: LeakSanitizer's leak check at
 * exit begins, which stops every thread with ptrace and fails (exit
 * status 1, buffered output lost) in a process we hold; or, under an
 * unprivileged capture, an execve of a program the kernel would run
 * without its privileges.  Everything is taken back and the process let
 * go there (1), the thread on the instruction it stopped at.  An
 * ordinary execve goes on (0).
 */
static int trapped(struct injset *s)
{
	struct inj *j = current(s);
	int r = j && j->in && !j->execd ? ot_inject_trapped(j->in, s->let_go, sizeof(s->let_go)) :
					  -EINVAL;

	if (!r) {
		ot_tracee_resume(&s->t);
		return 0;
	}
	if (r < 0)
		snprintf(s->let_go, sizeof(s->let_go), "at a breakpoint of inject's it could not "
			 "step over (%s)", strerror(-r));
	ot_verbose("process %d: letting it go %s", s->pid, s->let_go);
	if (j && j->in && !j->execd)
		ot_inject_remove(j->in);
	s->t.trap_tid = 0;
	ot_tracee_detach(&s->t);
	return 1;
}

/*
 * A set-user-ID (or -group) program the process exec'd, which the kernel
 * ran without its privileges because we hold the process and lack
 * CAP_SYS_PTRACE (an unprivileged capture): why, or NULL.
 */
static const char *unprivileged_exec(const struct injset *s, const char *real, char *why,
				     size_t len)
{
	char path[64], val[128];
	unsigned long ruid = 0, euid = 0, rgid = 0, egid = 0;
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", s->pid);
	if (stat(path, &st) || !(st.st_mode & (S_ISUID | S_ISGID)))
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/status", s->pid);
	if (ot_proc_status_field(path, "Uid:", val, sizeof(val)) ||
	    sscanf(val, "%lu %lu", &ruid, &euid) != 2 ||
	    ot_proc_status_field(path, "Gid:", val, sizeof(val)) ||
	    sscanf(val, "%lu %lu", &rgid, &egid) != 2)
		return NULL;
	if ((st.st_mode & S_ISUID) && euid != (unsigned long)st.st_uid)
		snprintf(why, len, "%s is set-user-ID and the kernel ran it without its "
			 "privileges, as it does under ptrace by a tracer without CAP_SYS_PTRACE", real);
	else if ((st.st_mode & S_ISGID) && egid != (unsigned long)st.st_gid)
		snprintf(why, len, "%s is set-group-ID and the kernel ran it without its "
			 "privileges, as it does under ptrace by a tracer without CAP_SYS_PTRACE", real);
	else
		return NULL;
	return why;
}

/*
 * The process exec'd (held at the exec) or reached the entry point of the
 * program it exec'd: everything of ours went with the old program, so the
 * new one is run to its entry point, where its libraries are loaded, and
 * instrumented there.  A program that cannot be is said, and let go.
 */
static void inject_events(struct ot_probes *p)
{
	struct injset *s = p->priv;
	enum ot_tracee_ev ev;
	char exe[64], real[256] = "?";

	while (s && (ev = ot_tracee_poll(&s->t)) != OT_TEV_NONE && ev != OT_TEV_GONE) {
		if (ev == OT_TEV_KIDS) {
			kids(s);
			continue;
		}
		if (ev == OT_TEV_TRAP) {
			if (trapped(s))
				return;
			continue;
		}
		snprintf(exe, sizeof(exe), "/proc/%d/task/%d/exe", s->pid, (int)ot_proc_live_task(s->pid));
		real[MAX(0, readlink(exe, real, sizeof(real) - 1))] = 0;
		if (ev == OT_TEV_EXEC) {
			current(s)->execd = 1;
			ot_inject_execd(current(s)->in);
			if (unprivileged_exec(s, real, s->exec_why, sizeof(s->exec_why)))
				goto untraced;
			ot_verbose("process %d exec'd %s: instrumenting it at its entry point",
				   s->pid, real);
			if (!ot_tracee_run_to_entry(&s->t))
				continue;
			snprintf(s->exec_why, sizeof(s->exec_why), "its entry point cannot be found");
		} else if (arm_gen(s, p->enabled) >= 0) {
			s->execs++;
			ot_verbose("process %d: %s instrumented", s->pid, real);
			continue;
		}
		/* Not traced from here on: said, and the process let go. */
untraced:
		if (!s->exec_why[0])
			snprintf(s->exec_why, sizeof(s->exec_why), "inject cannot instrument it");
		ot_warn("process %d exec'd %s, which is not traced: %s", s->pid, real, s->exec_why);
		if (s->ngen && current(s)->in && !current(s)->execd)
			ot_inject_remove(current(s)->in);
		ot_tracee_detach(&s->t);
		return;
	}
}

/* Its account: the latest program instrumented (an exec instruments each
 * again; one that could not be has no in), and counts over them all. */
static void fill_stats(struct injset *s)
{
	struct ot_inject_stats *st = &s->stats;
	const struct inj *j;
	size_t g;
	unsigned a;

	for (g = s->ngen; g > 0 && !s->gen[g - 1]->in; g--)
		;
	if (g) {
		*st = *ot_inject_stats(s->gen[g - 1]->in);
		st->arm_pause_ns = ot_inject_stats(s->gen[0]->in)->arm_pause_ns;
	}
	/* A program with nothing to patch asked no clock of the process. */
	if (!st->clock)
		st->clock = "none";
	st->execs = s->execs;
	snprintf(st->exec_why, sizeof(st->exec_why), "%s", s->exec_why);
	snprintf(st->let_go, sizeof(st->let_go), "%s", s->let_go);
	st->noret = st->unrecorded_threads = st->unrecorded_handlers = 0;
	st->resets = st->vfork_calls = 0;
	for (g = 0; g < s->ngen; g++) {
		j = s->gen[g];
		st->noret += j->noret;
		st->unrecorded_threads += j->no_slot + j->no_area;
		st->unrecorded_handlers += j->reentered + j->h_reentered;
		st->resets += j->resets + j->h_resets;
		st->vfork_calls += j->vfork_calls;
		for (a = 0; j->shm && a < j->nareas; a++)
			if (j->av[a].tid) {
				st->noret += load64(area(j, a) + OT_INJ_A_NORET);
				st->unrecorded_handlers += j->av[a].reentered;
				st->resets += j->av[a].resets;
			}
	}
}

static void inject_close(struct ot_probes *p)
{
	struct injset *s = p->priv;
	struct inj *j = current(s);
	size_t g;

	if (!s)
		return;
	if (s->waiting) {
		__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
		futex(s->bell, FUTEX_WAKE, 1, NULL);
		pthread_join(s->waiter, NULL);
	}
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	if (j && j->in) {
		/* Arming failed with the command held: it does not run. */
		ot_inject_kill(j->in);
		ot_inject_remove(j->in);
	}
	ot_tracee_detach(&s->t);
	/* What removal did, for the report after the probes are gone. */
	memset(&p->last_said, 0, sizeof(p->last_said));
	inject_say(p, &p->last_said);
	p->have_said = 1;
	for (g = 0; g < s->ngen; g++) {
		ot_inject_free(s->gen[g]->in);
		free(s->gen[g]->av);
		free(s->gen[g]->fn);
		free(s->gen[g]);
	}
	for (g = 0; g < s->nfn; g++) {
		free(s->paths[g]);
		if (s->fds[g] >= 0)
			close(s->fds[g]);
	}
	free(s->paths);
	for (g = 0; s->refs && g < s->nfn; g++)
		if (s->refs_own[g])
			ot_coderefs_free(s->refs[g]);
	free(s->refs);
	free(s->refs_why);
	free(s->refs_own);
	free(s->patch_target);
	free(s->patch_site);
	free(s->values);
	free(s->vfmt);
	free(s->fds);
	free(s->qfree);
	free(s->retiring);
	free(s);
	p->priv = NULL;
}

static size_t inject_nevents(const struct ot_probes *p)
{
	const struct inj *j = current(p->priv);

	return j && j->in ? ot_inject_patched(j->in) : 0;
}

/* A queue for a new thread: one given back, else the next. */
static unsigned queue_new(struct injset *s)
{
	if (s->nqfree)
		return s->qfree[--s->nqfree];
	return s->qnext < s->nqueues ? s->qnext++ : s->nqueues - 1;
}

/* Above every pid and tid the kernel gives (PID_MAX_LIMIT is 2^22): an id
 * that is no thread's of ours. */
#define NOT_OURS 0x40000000u

/*
 * The area's occupant by our ids, into v: the runtime wrote what the
 * process's own pid namespace says (gettid, getpid), which in a
 * container is not ours.  The target's threads are the tracee's (those
 * that ended lately too); a thread of another process (a child forked
 * with the patched code) is looked for in that namespace.  One that
 * cannot be found keeps an id no thread of ours has: the target's has
 * ended (its area may go back), another process's is kept to the end
 * (giving it back while it writes would mix its records with another
 * thread's).
 */
static void our_ids(const struct injset *s, struct ot_inject_view *v, uint32_t pid)
{
	pid_t hpid, htid;

	v->tid = v->area_tid;
	v->pid = pid;
	v->keep = 0;
	if (!s->t.nested)
		return;
	if (pid == s->nspid) {
		v->pid = (uint32_t)s->pid;
		htid = ot_tracee_host_tid(&s->t, (pid_t)v->area_tid);
		v->tid = htid ? (uint32_t)htid : v->area_tid | NOT_OURS;
	} else if (!ot_proc_ns_host(s->pid, (pid_t)pid, (pid_t)v->area_tid, &hpid, &htid)) {
		v->pid = (uint32_t)hpid;
		v->tid = (uint32_t)htid;
	} else {
		v->pid = pid | NOT_OURS;
		v->tid = v->area_tid | NOT_OURS;
		v->keep = 1;
	}
}

/* Every record of area a since the last drain (lib/inject/inject_ring). */
static size_t drain_area(struct inj *j, struct ot_drain *d, unsigned a)
{
	size_t n;

	j->av[a].vfmt = j->set->vfmt;
	j->av[a].nfuncs = (uint32_t)j->set->nfn;
	n = ot_inject_ring_read(&j->av[a], area(j, a), j->ring_n,
				       j->clock == OT_INJ_CLOCK_VDSO ? NULL : j->tsc, d,
				       ot_now_ns());

	if (n * OT_INJ_REC_SIZE > j->peak)
		j->peak = n * OT_INJ_REC_SIZE;
	return n;
}

/* The area of a thread that exited: its last drops counted, its memory
 * given back, the area free for another thread. */
static void give_back(struct inj *j, struct ot_drain *d, unsigned a)
{
	uint8_t *ar = area(j, a);
	struct ot_inject_view *v = &j->av[a];

	drain_area(j, d, a);
	j->noret += load64(ar + OT_INJ_A_NORET);
	j->reentered += v->reentered;
	j->resets += v->resets;
	memset(ar, 0, OT_INJ_A_RING);
	/* The ring's pages back to the kernel: they read as zeros again. */
	fallocate(ot_inject_memfd(j->in), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  (off_t)(ar + OT_INJ_A_RING - j->shm), (off_t)(j->area_bytes - OT_INJ_A_RING));
	j->set->retiring[j->set->nretiring++] = v->queue;
	memset(v, 0, sizeof(*v));
	__atomic_store_n((uint32_t *)(ar + OT_INJ_A_STATE), 0, __ATOMIC_RELEASE);
}

/* Every ring of one program's instrumentation; live: look for threads
 * that exited. */
static size_t drain_gen(struct inj *j, struct ot_drain *d, int live)
{
	size_t n = 0;
	unsigned a;

	j->used = 0;
	j->peak = 0;
	for (a = 0; a < j->nareas; a++) {
		uint8_t *ar = area(j, a);
		uint32_t tid;

		if (!load32(ar + OT_INJ_A_STATE) || !(tid = load32(ar + OT_INJ_A_TID)))
			continue;
		if (j->av[a].area_tid != tid) {
			j->av[a].area_tid = tid;
			our_ids(j->set, &j->av[a], load32(ar + OT_INJ_A_PID));
			j->av[a].queue = queue_new(j->set);
		}
		n += drain_area(j, d, a);
		if (live && !j->av[a].keep && kill((pid_t)j->av[a].tid, 0) && errno == ESRCH)
			give_back(j, d, a);
		else
			j->used++;
	}
	if (j->peak > j->high_water)
		j->high_water = j->peak;
	/* Threads the runtime had no room for: their calls not recorded. */
	j->no_slot = load64(j->shm + OT_INJ_H_NO_SLOT);
	j->no_area = load64(j->shm + OT_INJ_H_NO_AREA);
	j->h_reentered = load64(j->shm + OT_INJ_H_REENTERED);
	j->h_resets = load64(j->shm + OT_INJ_H_RESET);
	j->vfork_calls = load64(j->shm + OT_INJ_H_VFORK_HITS);
	return n;
}

static size_t inject_drain(struct ot_probes *p, struct ot_drain *d)
{
	struct injset *s = p->priv;
	uint64_t now = ot_now_ns();
	size_t n = 0, k, g;
	int live;

	/* The old programs' rings too: a program exec'd where nothing is
	 * patched has none of its own, and theirs hold the calls before. */
	for (g = 0; s && g < s->ngen && !s->gen[g]->shm; g++)
		;
	if (!s || g == s->ngen)
		return 0;
	if (now >= s->next_fit || !ot_tsc_ready(&s->tsc)) {
		uint64_t ticks, ns;

		ot_tsc_sample(&ticks, &ns);
		ot_tsc_add(&s->tsc, ticks, ns);
		s->next_fit = now + REFIT_NS;
	}
	/* Retired queues come back once the merge has taken their last events. */
	for (k = 0; k < s->nretiring;) {
		if (!ot_drain_queue_pending(d, s->retiring[k])) {
			s->qfree[s->nqfree++] = s->retiring[k];
			s->retiring[k] = s->retiring[--s->nretiring];
		} else {
			k++;
		}
	}
	/* Exited threads give their areas back: every 200 ms, or at every
	 * drain while more than half are taken (threads come and go fast). */
	live = now >= s->next_live || 2 * current(s)->used > current(s)->nareas;
	if (live)
		s->next_live = now + LIVENESS_NS;
	/* Functions seen at return instructions record under other numbers:
	 * said before the first such record is read. */
	for (g = 0; g < s->ngen && !s->exits_said; g++)
		if (s->gen[g]->in && ot_inject_stats(s->gen[g]->in)->walker) {
			ot_drain_thread_exits(d);
			s->exits_said = 1;
		}
	for (g = 0; g < s->ngen; g++)
		if (s->gen[g]->shm)
			n += drain_gen(s->gen[g], d, live);
	/* Started at the first drain: after arming, so it holds no capability
	 * (they are per thread, and dropped by then). */
	if (!s->waiting && s->wake_fd >= 0 && s->bell &&
	    !pthread_create(&s->waiter, NULL, bell_waiter, s))
		s->waiting = 1;
	bell_arm(s);
	return n;
}

static unsigned inject_nqueues(const struct ot_probes *p)
{
	const struct injset *s = p->priv;

	return s ? s->nqueues : 1;
}

/* The fullest ring of any program's, at the latest drain and ever. */
static void peaks(const struct injset *s, uint64_t *peak, uint64_t *high_water)
{
	size_t g;

	*peak = *high_water = 0;
	for (g = 0; s && g < s->ngen; g++) {
		*peak = MAX(*peak, s->gen[g]->peak);
		*high_water = MAX(*high_water, s->gen[g]->high_water);
	}
}

static int inject_poll_ms(const struct ot_probes *p, int drain_ms)
{
	const struct injset *s = p->priv;
	uint64_t ring = s ? s->o.ring_kb * 1024 : 1, peak, hw;

	if (!s)
		return drain_ms;
	peaks(s, &peak, &hw);
	if (peak * 8 > ring)
		return 1;
	if (peak * 32 > ring)
		return drain_ms < 5 ? drain_ms : 5;
	return drain_ms;
}

static void inject_ring_peak(const struct ot_probes *p, uint64_t *pending, uint64_t *size,
			     uint64_t *high_water)
{
	const struct injset *s = p->priv;

	peaks(s, pending, high_water);
	*pending = *high_water;
	*size = s ? s->o.ring_kb * 1024 : 1;
}

/* A program the process exec'd away from: function i's file, which the
 * current program (no library can load an executable) never maps. */
static int left_behind(const struct injset *s, size_t i)
{
	struct stat st;
	size_t g;

	if (stat(s->paths[i], &st))
		return 0;
	for (g = 0; g + 1 < s->ngen; g++)
		if (s->gen[g]->exe.st_ino == st.st_ino && s->gen[g]->exe.st_dev == st.st_dev)
			return 1;
	return 0;
}

/*
 * Why function i is not armed in the current program.  One whose file is
 * not mapped may be dlopen'd later, its calls unseen: a refusal - unless
 * that file is a program the process exec'd away from.
 */
static const char *inject_refused(const struct ot_probes *p, size_t i)
{
	const struct injset *s = p->priv;
	const struct inj *j = current(s);
	const struct ot_inject_fn *r = j && i < s->nfn ? refused_patch(s, j, i) : NULL;

	if (!r)
		return NULL;
	return r->unmapped && left_behind(s, i) ? NULL : r->refused;
}

static int inject_wake_fd(const struct ot_probes *p)
{
	const struct injset *s = p->priv;

	return s ? s->wake_fd : -1;
}

/* Why the counts are not exact, beyond the rings' own losses. */
static void say_why(const struct ot_probes *p, const struct ot_inject_stats *st,
		    struct ot_probes_said *out)
{
	const struct injset *s = p->priv;
	size_t i, refused = 0;

	for (i = 0; i < s->nfn; i++)
		refused += inject_refused(p, i) != NULL;
	if (refused)
		snprintf(out->why[out->nwhy++], sizeof(out->why[0]), "%zu of %zu functions were "
			 "not armed: inject could not patch them (arming.refused says why)",
			 refused, s->nfn);
	for (i = 0; i < s->nfn && current(s) && out->nwhy < OT_PROBES_WHY_MAX - 3; i++)
		if (partly_armed(s, current(s), i, out->why[out->nwhy], sizeof(out->why[0])))
			out->nwhy++;
	if (st->unrecorded_handlers || st->unrecorded_threads)
		snprintf(out->why[out->nwhy++], sizeof(out->why[0]), "%llu calls were not "
			 "recorded: %llu of signal handlers that interrupted inject's runtime on "
			 "their thread, %llu of threads it had no room for",
			 (unsigned long long)(st->unrecorded_handlers + st->unrecorded_threads),
			 (unsigned long long)st->unrecorded_handlers,
			 (unsigned long long)st->unrecorded_threads);
	if (st->resets)
		snprintf(out->why[out->nwhy++], sizeof(out->why[0]), "%llu times a signal handler "
			 "left inject's runtime by a longjmp (reset, and recording went on): the "
			 "call it was recording then may lack its entry's or its return's record",
			 (unsigned long long)st->resets);
	/* As the kernel's 64 return probes per thread: past inject's table of
	 * open calls a call's return is not seen (it said ok at depth 8,000). */
	if (st->noret && out->nwhy < OT_PROBES_WHY_MAX)
		snprintf(out->why[out->nwhy++], sizeof(out->why[0]), "%llu call%s entered with "
			 "%d calls open on %s thread (inject's table of return addresses full), or "
			 "a fourth tail call in one frame: %s return%s not seen, unclosed",
			 (unsigned long long)st->noret, st->noret == 1 ? "" : "s", OT_INJ_TABLE_MAX,
			 st->noret == 1 ? "its" : "their", st->noret == 1 ? "its" : "their",
			 st->noret == 1 ? " is" : "s are");
	if (st->let_go[0])
		snprintf(out->why[out->nwhy++], sizeof(out->why[0]), "the process was let go "
			 "before the capture ended (%s): its calls after that are not counted",
			 st->let_go);
	if (st->exec_why[0])
		snprintf(out->why[out->nwhy++], sizeof(out->why[0]), "the process exec'd a program "
			 "inject could not trace (%s): its calls are not counted", st->exec_why);
	if (st->overwritten)
		snprintf(out->why[out->nwhy++], sizeof(out->why[0]), "%zu patched function%s "
			 "found overwritten (%s%s) by another tool's breakpoint or patch (a uprobe "
			 "of perf, bpftrace or another orbit-trace): calls went unseen",
			 st->overwritten, st->overwritten == 1 ? "" : "s",
			 st->overwritten == 1 ? "" : "the first: ",
			 st->overwritten_fn < s->nfn ? s->targets[st->overwritten_fn].label :
			 "a hook of inject's");
}

static void inject_say(struct ot_probes *p, struct ot_probes_said *out)
{
	struct injset *s = p->priv;

	if (!s)
		return;
	fill_stats(s);
	ot_figs_inject(&out->figs, &s->stats, inject_nevents(p), p->ops->objects,
		       ot_probes_ring_kb(p));
	say_why(p, &s->stats, out);
}

/*
 * Another backend's probes are about to go into pid: what an inject
 * capture left there taken back (lib/inject's ot_inject_clear).  With n
 * places (-a), only a process whose patches are at one of them.
 */
static int inject_take_back(pid_t pid, const char *const *paths, const uint64_t *offs, size_t n)
{
	if (pid <= 0 || pid == getpid())
		return 0;
	if (n && (ot_inject_present(pid) <= 0 || ot_inject_patches_any(pid, paths, offs, n) <= 0))
		return 0;
	return ot_inject_clear(pid) ? -1 : 0;
}

/* --restore: lib/inject's recovery, said as every backend's. */
static int inject_restore(pid_t pid, struct ot_probes_restored *out)
{
	struct ot_inject_recovery rec;
	int ret = ot_inject_restore(pid, &rec);

	if (ret)
		return ret;
	*out = (struct ot_probes_restored){
		.found = rec.found, .tracer = rec.tracer, .patches = rec.patches,
		.restored = rec.restored, .kept = rec.kept,
		.returns_restored = rec.returns_restored, .semaphores = rec.semaphores,
		.semaphores_lowered = rec.semaphores_lowered,
		.unmapped_bytes = rec.unmapped_bytes, .left_bytes = rec.left_bytes,
		.left_why = rec.left_why,
	};
	memcpy(out->why, rec.why, sizeof(out->why));
	return 0;
}

const struct ot_backend_ops ot_backend_inject = {
	.ring_kb = OT_RING_KB_INJECT_DEFAULT,
	.info = {
		.name = "inject",
		.built_on = "trampolines in the process, ptrace",
		.can = OT_CAN_VALUES | OT_HOLDS_AT_ENTRY | OT_RINGS_IN_PROCESS | OT_PATCHES_CODE |
		       OT_CAN_USDT,
		.refuse_target = refuse_target,
		.returns = "trampoline",
		.why_not = {
			[1] = "--follow needs the multi backend (its BPF program follows forks "
			      "in the kernel): not with --backend inject",
			[2] = "--backend inject patches one process: not with -a",
			[3] = "--freeze is for the uprobe backends: inject stops the process with "
			      "ptrace while it patches it",
			[4] = "--compensate takes the uprobes' cost out: inject's is tens of ns "
			      "(OVERHEAD in orbit-trace(1))",
			[5] = "--returns is for the uprobe backends: inject sees every return at "
			      "its trampoline",
			[12] = "--backend inject patches one process: not several -p processes",
			[13] = "--cgroup keeps -a to a cgroup: --backend inject patches one "
			       "process, not with -a",
			[14] = "--backend inject cannot trace it: its trampolines replace each "
			       "call's return address on the stack, which Go's stack copier and "
			       "unwinder read (fatal error: unknown caller pc), and it keeps "
			       "threads by glibc's, where Go runs goroutines on threads of its "
			       "own; the default backend (multi) traces Go programs",
		},
	},
	.objects = "trampolines",
	.quick_close = 1,
	.load = inject_load,
	.arm = inject_arm,
	.enable = inject_enable,
	.disable = inject_disable,
	.close = inject_close,
	.nevents = inject_nevents,
	.drain = inject_drain,
	.nqueues = inject_nqueues,
	.poll_ms = inject_poll_ms,
	.ring_peak = inject_ring_peak,
	.refused = inject_refused,
	.say = inject_say,
	.events = inject_events,
	.wake_fd = inject_wake_fd,
	.take_back = inject_take_back,
	.restore = inject_restore,
};
