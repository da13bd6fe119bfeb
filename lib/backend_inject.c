/*
 * The inject backend: no uprobe and no kernel object.  lib/inject patches
 * the process's functions to jump into a runtime in its own memory, which
 * pairs calls with returns exactly (a table of the return addresses it
 * moved) and writes each thread's records into a ring of memory shared
 * with us.  This file reads those rings into the drain: one queue per
 * thread (a thread's records are in time order), TSC ticks converted to
 * CLOCK_MONOTONIC (lib/tsc), the runtime's counts of what it could not
 * record turned into lost records, rings of threads that exited given
 * back.  Its rings wake nobody, so the drain polls sooner while they fill.
 */
#include "backend.h"
#include "clock.h"
#include "drain.h"
#include "error.h"
#include "inject.h"
#include "inject_layout.h"
#include "tsc.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_AREAS	1024	/* at least; 4 per thread at attach */
#define MAX_AREAS	4096
#define LIVENESS_NS	(200ull * 1000 * 1000)	/* how often exited threads are looked for */
#define REFIT_NS	(100ull * 1000 * 1000)	/* how often the TSC map is refitted */

struct area_view {
	uint32_t tid;		/* the occupant we know; 0 none */
	uint32_t pid;
	unsigned queue;
	uint64_t reentered;	/* its runtime's counts, as last seen */
	uint64_t noret;
	uint64_t lost;		/* its A_LOST, as reported to the drain */
	uint64_t last_time;	/* of its last record read */
};

struct inj {
	struct ot_inject *in;
	struct ot_inject_fn *fn;
	size_t nfn;
	uint8_t *shm;
	size_t shm_len;
	unsigned nareas;
	size_t area_bytes;
	uint64_t ring_n;
	struct area_view *av;
	unsigned *qfree, *retiring;	/* drain queues free, and freed once empty */
	size_t nqfree, nretiring;
	unsigned qnext;
	unsigned used;			/* areas taken at the latest drain */
	struct ot_tsc tsc;
	int clock;			/* OT_INJ_CLOCK_* */
	uint64_t next_fit, next_live;
	uint64_t no_slot, no_area;	/* the header's counts, as last seen */
	uint64_t noret, reentered;	/* of areas given back */
	uint64_t peak, high_water;	/* bytes pending in the fullest ring */
	struct ot_probes_inproc inproc;
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
#if defined(__x86_64__)
	(void)why;
	(void)whylen;
	return 0;
#else
	snprintf(why, whylen, "inject patches x86-64 code only");
	return -ENOTSUP;
#endif
}

static unsigned threads_of(pid_t pid)
{
	char path[64];
	struct dirent *d;
	unsigned n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir)))
		n += d->d_name[0] != '.';
	if (dir)
		closedir(dir);
	return n;
}

static void fill_inproc(struct inj *j);

static int inject_arm(struct ot_probes *p, const struct ot_probe_target *t, size_t n, int pid)
{
	struct inj *j = ot_xcalloc(1, sizeof(*j));
	struct ot_inject_opts o = {
		.ring_kb = p->opts.ring_kb,
		.clock = p->opts.clock,
		.adopt = p->opts.held,
		.pidfd = p->opts.pidfd,
	};
	size_t i, armed = 0;
	uint64_t ticks, ns;
	int ret;

	p->priv = j;
	o.nareas = 4 * threads_of(pid);
	if (o.nareas < DEFAULT_AREAS)
		o.nareas = DEFAULT_AREAS;
	if (o.nareas > MAX_AREAS)
		o.nareas = MAX_AREAS;
	j->nareas = o.nareas;
	j->area_bytes = OT_INJ_A_RING + o.ring_kb * 1024;
	j->ring_n = o.ring_kb * 1024 / OT_INJ_REC_SIZE;
	j->av = ot_xcalloc(j->nareas, sizeof(*j->av));
	j->qfree = ot_xcalloc(j->nareas, sizeof(*j->qfree));
	j->retiring = ot_xcalloc(j->nareas, sizeof(*j->retiring));
	j->fn = ot_xcalloc(n, sizeof(*j->fn));
	j->nfn = n;
	for (i = 0; i < n; i++) {
		j->fn[i].label = t[i].label;
		j->fn[i].path = t[i].path;
		j->fn[i].offset = t[i].sym_offset;
		j->fn[i].size = t[i].sym_size;
	}
	ot_tsc_init(&j->tsc);
	ot_tsc_sample(&ticks, &ns);
	ot_tsc_add(&j->tsc, ticks, ns);
	ret = ot_inject_attach(pid, &o, &j->in);
	if (ret)
		return ret;
	ret = ot_inject_install(j->in, j->fn, n);
	if (ret < 0)
		return ret;
	for (i = 0; i < n; i++) {
		if (j->fn[i].refused) {
			ot_warn("not tracing %s: %s", t[i].label, j->fn[i].refused);
			continue;
		}
		armed++;
		ot_probes_id_insert(p, 4 * i + 1, (uint32_t)i, OT_PROBE_ENTRY,
				    ot_probes_target_value(&t[i], OT_PROBE_ENTRY));
		ot_probes_id_insert(p, 4 * i + 2, (uint32_t)i, OT_PROBE_EXACT_RET,
				    ot_probes_target_value(&t[i], OT_PROBE_EXACT_RET));
		ot_probes_id_insert(p, 4 * i + 3, (uint32_t)i, OT_PROBE_TAIL_ENTRY,
				    ot_probes_target_value(&t[i], OT_PROBE_ENTRY));
	}
	if (!armed) {
		ot_error("cannot inject into process %d: none of the %zu functions can be patched",
			 pid, n);
		return -ENOENT;
	}
	j->shm = ot_inject_shared(j->in, &j->shm_len);
	j->clock = ot_inject_info(j->in)->clock;
	fill_inproc(j);
	return 0;
}

/* Entries from now on; then the threads run. */
static int inject_enable(struct ot_probes *p)
{
	struct inj *j = p->priv;

	ot_inject_enable(j->in, 1);
	ot_inject_resume(j->in);
	return 0;
}

static void inject_disable(struct ot_probes *p)
{
	struct inj *j = p->priv;

	if (j && j->in)
		ot_inject_enable(j->in, 0);
}

static void fill_inproc(struct inj *j)
{
	const struct ot_inject_info *in;
	unsigned a;

	if (!j->in)
		return;
	in = ot_inject_info(j->in);
	j->inproc.clock = in->clock == OT_INJ_CLOCK_TSC ? "tsc" : "vdso";
	j->inproc.clock_why = in->clock_why;
	j->inproc.regions = in->regions;
	j->inproc.code_bytes = in->code_bytes;
	j->inproc.private_bytes = in->private_bytes;
	j->inproc.shared_bytes = in->shared_bytes;
	j->inproc.unwinder = in->unwinder;
	j->inproc.arm_pause_ns = in->arm_pause_ns;
	j->inproc.disarm_pause_ns = in->disarm_pause_ns;
	j->inproc.returns_restored = in->returns_restored;
	j->inproc.left_bytes = in->left_bytes;
	j->inproc.left_why = in->left_why;
	j->inproc.gone = in->gone;
	j->inproc.noret = j->noret;
	for (a = 0; j->shm && a < j->nareas; a++)
		if (j->av[a].tid)
			j->inproc.noret += load64(area(j, a) + OT_INJ_A_NORET);
}

static void inject_close(struct ot_probes *p)
{
	struct inj *j = p->priv;

	if (!j)
		return;
	if (j->in) {
		/* Arming failed with the command held: it does not run. */
		ot_inject_kill(j->in);
		fill_inproc(j);
		ot_inject_remove(j->in);
		fill_inproc(j);
		/* What removal did, for the report after the probes are gone. */
		p->last_inproc = j->inproc;
		p->have_inproc = 1;
		ot_inject_free(j->in);
	}
	free(j->av);
	free(j->qfree);
	free(j->retiring);
	free(j->fn);
	free(j);
	p->priv = NULL;
}

static size_t inject_nevents(const struct ot_probes *p)
{
	const struct inj *j = p->priv;

	return j && j->in ? ot_inject_info(j->in)->patched : 0;
}

static void lost(struct ot_drain *d, unsigned queue, uint64_t time, uint64_t n)
{
	struct ot_record rec = { .type = OT_REC_LOST, .time = time, .lost = n };

	if (n)
		ot_drain_record(d, queue, &rec);
}

/* A queue for a new thread: one given back, else the next. */
static unsigned queue_new(struct inj *j)
{
	if (j->nqfree)
		return j->qfree[--j->nqfree];
	return j->qnext < j->nareas ? j->qnext++ : j->nareas - 1;
}

static uint64_t to_ns(struct inj *j, uint64_t t)
{
	return j->clock == OT_INJ_CLOCK_VDSO ? t : ot_tsc_ns(&j->tsc, t);
}

/* Records area a's thread dropped, up to its count now (a marker's or
 * the area's own), reported at time t: what was not reported yet. */
static void area_lost(struct inj *j, struct ot_drain *d, unsigned a, uint64_t t, uint64_t upto)
{
	struct area_view *v = &j->av[a];

	if (upto > v->lost) {
		lost(d, v->queue, t, upto - v->lost);
		v->lost = upto;
	}
}

/*
 * Every record of area a since the last drain.  Drops happen only while
 * the ring is full, so those no marker in [tail, head) reports come after
 * its last record: the area's count, read after them, places them there
 * (a thread that stops calling after a burst writes no marker at all).
 */
static size_t drain_area(struct inj *j, struct ot_drain *d, unsigned a)
{
	uint8_t *ar = area(j, a);
	struct area_view *v = &j->av[a];
	uint64_t head = load64(ar + OT_INJ_A_HEAD), tail = *(uint64_t *)(ar + OT_INJ_A_TAIL);
	uint64_t n = head - tail, i, r;

	if (n > j->ring_n) {	/* a corrupt head (the process wrote over it) */
		lost(d, v->queue, ot_now_ns(), n - j->ring_n);
		tail = head - j->ring_n;
		n = j->ring_n;
	}
	if (n * OT_INJ_REC_SIZE > j->peak)
		j->peak = n * OT_INJ_REC_SIZE;
	for (i = 0; i < n; i++) {
		const uint64_t *rec;
		struct ot_record out = { .type = OT_REC_SAMPLE, .has_sp = 1 };
		unsigned kind;
		uint32_t func;

		r = (tail + i) & (j->ring_n - 1);
		rec = (const uint64_t *)(ar + OT_INJ_A_RING + r * OT_INJ_REC_SIZE);
		kind = (unsigned)(rec[1] >> 14) & 3;
		func = (uint32_t)(rec[1] & 0x3fff);
		out.time = to_ns(j, rec[0]);
		v->last_time = out.time;
		if (kind == OT_INJ_K_LOST) {
			area_lost(j, d, a, out.time, rec[1] >> 16);
			continue;
		}
		out.id = 4 * (uint64_t)func + (kind == OT_INJ_K_ENTRY ? 1 : kind == OT_INJ_K_RETURN ? 2 : 3);
		out.sp = rec[1] >> 16;
		out.pid = v->pid;
		out.tid = v->tid;
		ot_drain_record(d, v->queue, &out);
	}
	__atomic_store_n((uint64_t *)(ar + OT_INJ_A_TAIL), head, __ATOMIC_RELEASE);
	area_lost(j, d, a, v->last_time, load64(ar + OT_INJ_A_LOST));
	{
		uint64_t re = load64(ar + OT_INJ_A_REENTERED);

		/* A signal handler's calls inside the runtime: not recorded. */
		lost(d, v->queue, v->last_time, re - v->reentered);
		v->reentered = re;
	}
	return (size_t)n;
}

/* The area of a thread that exited: its last drops counted, its memory
 * given back, the area free for another thread. */
static void give_back(struct inj *j, struct ot_drain *d, unsigned a)
{
	uint8_t *ar = area(j, a);
	struct area_view *v = &j->av[a];

	drain_area(j, d, a);
	j->noret += load64(ar + OT_INJ_A_NORET);
	j->reentered += v->reentered;
	memset(ar, 0, OT_INJ_A_RING);
	/* The ring's pages back to the kernel: they read as zeros again. */
	fallocate(ot_inject_memfd(j->in), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  (off_t)(ar + OT_INJ_A_RING - j->shm), (off_t)(j->area_bytes - OT_INJ_A_RING));
	j->retiring[j->nretiring++] = v->queue;
	memset(v, 0, sizeof(*v));
	__atomic_store_n((uint32_t *)(ar + OT_INJ_A_STATE), 0, __ATOMIC_RELEASE);
}

static size_t inject_drain(struct ot_probes *p, struct ot_drain *d)
{
	struct inj *j = p->priv;
	uint64_t now = ot_now_ns(), v;
	size_t n = 0, k;
	unsigned a;
	int live;

	if (!j || !j->shm)
		return 0;
	if (now >= j->next_fit || !ot_tsc_ready(&j->tsc)) {
		uint64_t ticks, ns;

		ot_tsc_sample(&ticks, &ns);
		ot_tsc_add(&j->tsc, ticks, ns);
		j->next_fit = now + REFIT_NS;
	}
	/* Retired queues come back once the merge has taken their last events. */
	for (k = 0; k < j->nretiring;) {
		if (!ot_drain_queue_pending(d, j->retiring[k])) {
			j->qfree[j->nqfree++] = j->retiring[k];
			j->retiring[k] = j->retiring[--j->nretiring];
		} else {
			k++;
		}
	}
	/* Exited threads give their areas back: every 200 ms, or at every
	 * drain while more than half are taken (threads come and go fast). */
	live = now >= j->next_live || 2 * j->used > j->nareas;
	if (live)
		j->next_live = now + LIVENESS_NS;
	j->used = 0;
	j->peak = 0;
	for (a = 0; a < j->nareas; a++) {
		uint8_t *ar = area(j, a);
		uint32_t tid;

		if (!load32(ar + OT_INJ_A_STATE) || !(tid = load32(ar + OT_INJ_A_TID)))
			continue;
		if (j->av[a].tid != tid) {
			j->av[a].tid = tid;
			j->av[a].pid = load32(ar + OT_INJ_A_PID);
			j->av[a].queue = queue_new(j);
		}
		n += drain_area(j, d, a);
		if (live && kill((pid_t)tid, 0) && errno == ESRCH)
			give_back(j, d, a);
		else
			j->used++;
	}
	if (j->peak > j->high_water)
		j->high_water = j->peak;
	/* Threads the runtime had no room for: their calls were not recorded. */
	v = load64(j->shm + OT_INJ_H_NO_SLOT);
	lost(d, 0, now, v - j->no_slot);
	j->no_slot = v;
	v = load64(j->shm + OT_INJ_H_NO_AREA);
	lost(d, 0, now, v - j->no_area);
	j->no_area = v;
	return n;
}

static unsigned inject_nqueues(const struct ot_probes *p)
{
	const struct inj *j = p->priv;

	return j ? j->nareas : 1;
}

static int inject_poll_ms(const struct ot_probes *p, int drain_ms)
{
	const struct inj *j = p->priv;
	uint64_t ring = j ? j->ring_n * OT_INJ_REC_SIZE : 1;

	if (!j)
		return drain_ms;
	if (j->peak * 8 > ring)
		return 1;
	if (j->peak * 32 > ring)
		return drain_ms < 5 ? drain_ms : 5;
	return drain_ms;
}

static void inject_ring_peak(const struct ot_probes *p, uint64_t *pending, uint64_t *size,
			     uint64_t *high_water)
{
	const struct inj *j = p->priv;

	*pending = j ? j->high_water : 0;
	*size = j ? j->ring_n * OT_INJ_REC_SIZE : 1;
	*high_water = j ? j->high_water : 0;
}

static const char *inject_refused(const struct ot_probes *p, size_t i)
{
	const struct inj *j = p->priv;

	return j && i < j->nfn ? j->fn[i].refused : NULL;
}

static const struct ot_probes_inproc *inject_inproc(struct ot_probes *p)
{
	struct inj *j = p->priv;

	if (!j)
		return NULL;
	fill_inproc(j);
	return &j->inproc;
}

const struct ot_backend_ops ot_backend_inject = {
	.name = "inject",
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
	.inproc = inject_inproc,
};
