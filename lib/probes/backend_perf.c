/*
 * The perf backend: one uprobe PMU perf event per probe and CPU.
 *
 * The uprobe PMU's type and retprobe bit are read from sysfs, never
 * hard-coded.  Per CPU: two disabled dummy group leaders (one for return
 * probes, one for entry probes), every uprobe a member of one of them, and
 * one ring that all of the CPU's events write into
 * (PERF_EVENT_IOC_SET_OUTPUT).  Enabling is then one ioctl per leader
 * instead of one IPI per event, and return probes can be switched on
 * before entry probes.
 *
 * Events are per CPU and system-wide (pid -1), chosen by measuring both
 * (docs/benchmarks.md, "pid-bound or system-wide"):
 * - a pid-bound event follows one thread: bound to a process whose two
 *   workers start after arming, it counted 0 of their 12,000 inner calls,
 *   where a system-wide event counted 12,000; the kernel's way to follow
 *   new threads (inherit=1) breaks the target's pthread_create (EFAULT)
 *   when the event belongs to another process;
 * - a system-wide event also fires for every other process running the
 *   same file: such a process paid ~4.8 us per hit (1.73 s instead of
 *   4.8 ms for 180,000 calls) and lib/rings/drain dropped its records by pid
 *   (counted as "foreign").
 * Missing threads is a wrong answer; slowing a bystander is a cost the
 * report shows.  Closing each fd waits for two grace periods: minutes for
 * a thousand functions.
 */
#include "symbols/dwarfarg.h"
#include "backend.h"
#include "process/procfs.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>


#define OT_PMU_DIR "/sys/bus/event_source/devices/uprobe"

struct perf_state {
	int type;		/* the uprobe PMU */
	unsigned retbit;	/* config bit of a return probe */
	int refshift;		/* config bits of ref_ctr_offset start here, or -1 */
	int *ent_leader;	/* per CPU; the ring owner leads the returns */
	int *fds;
	unsigned *fd_cpu;	/* the CPU (index) of each of fds */
	size_t nfds;
};

static int perf_load(struct ot_probes *p, char *why, size_t whylen)
{
	struct perf_state *s;
	char buf[64];
	unsigned c;
	int ret;

	ret = ot_proc_read_file(OT_PMU_DIR "/type", buf, sizeof(buf));
	if (ret) {
		snprintf(why, whylen, "no uprobe PMU (%s): %s", OT_PMU_DIR, strerror(-ret));
		return ret;
	}
	s = ot_xcalloc(1, sizeof(*s));
	s->type = atoi(buf);
	ret = ot_proc_read_file(OT_PMU_DIR "/format/retprobe", buf, sizeof(buf));
	if (!ret && (sscanf(buf, "config:%u", &s->retbit) != 1 || s->retbit > 63))
		ret = -EINVAL;
	if (ret) {
		snprintf(why, whylen, "cannot read %s/format/retprobe: %s", OT_PMU_DIR,
			 strerror(-ret));
		free(s);
		return ret;
	}
	/* A USDT semaphore (Linux 4.20): "config:32-63". */
	s->refshift = -1;
	if (!ot_proc_read_file(OT_PMU_DIR "/format/ref_ctr_offset", buf, sizeof(buf)) &&
	    sscanf(buf, "config:%d", &s->refshift) != 1)
		s->refshift = -1;
	s->ent_leader = ot_xcalloc(p->ncpus, sizeof(*s->ent_leader));
	for (c = 0; c < p->ncpus; c++)
		s->ent_leader[c] = -1;
	s->fds = ot_xcalloc(p->nuprobes * p->ncpus + 1, sizeof(*s->fds));
	s->fd_cpu = ot_xcalloc(p->nuprobes * p->ncpus + 1, sizeof(*s->fd_cpu));
	p->priv = s;
	return 0;
}

/* Up to what every event needs, if the hard limit allows. */
static void raise_nofile(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur >= need + 64)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (rl.rlim_cur < need + 64 && rl.rlim_max != RLIM_INFINITY) {
		rl.rlim_cur = rl.rlim_max = need + 64; /* needs CAP_SYS_RESOURCE */
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			getrlimit(RLIMIT_NOFILE, &rl);
			rl.rlim_cur = rl.rlim_max;
		}
	}
	setrlimit(RLIMIT_NOFILE, &rl);
}

static int open_leader(struct ot_probes *p, int cpu, size_t data)
{
	struct perf_event_attr a;

	ot_probes_base_attr(&a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	if (data)
		ot_probes_ring_wakeup(&a, data);
	/* -a: the ring's owner also carries each exec's new name, so that a
	 * process gone before a drain reads its calls is still named
	 * (lib/rings/drain keeps them), as perf record's dummy event does. */
	if (data && p->opts.pid <= 0)
		a.comm = a.comm_exec = 1;
	return ot_probes_perf_open(p, &a, cpu, -1);
}

/* The ring's owner is the return probes' leader; the entry leader beside. */
static int perf_open_ring(struct ot_probes *p, unsigned c, size_t data)
{
	struct perf_state *s = p->priv;
	int cpu = p->cpus[c].cpu, fd, err;

	if (!c)
		raise_nofile(p->ncpus * (p->nuprobes + 2));
	fd = open_leader(p, cpu, data);
	if (fd >= 0)
		s->ent_leader[c] = open_leader(p, cpu, 0);
	if (fd < 0 || s->ent_leader[c] < 0) {
		err = errno;
		if (fd >= 0)
			close(fd);
		ot_error_errno(err, "cannot open a perf event on CPU %d%s", cpu,
			       ot_probes_arm_hint(err));
		return -err;
	}
	return fd;
}

static int perf_ring_mapped(struct ot_probes *p, unsigned c)
{
	struct perf_state *s = p->priv;

	if (ioctl(s->ent_leader[c], PERF_EVENT_IOC_SET_OUTPUT, p->cpus[c].fd)) {
		int err = errno;

		ot_error_errno(err, "cannot share the ring on CPU %d", p->cpus[c].cpu);
		return -err;
	}
	return 0;
}

/*
 * Why the perf backend cannot record operand a of t - a sample carries
 * the registers, no memory and no constant: -1 and why (k: a USDT site's
 * index, or -1 for a function's value at its entry), else 0.
 */
static int not_a_register(const struct ot_probe_target *t, const struct ot_usdt_arg *a,
			  long k, char *why, size_t len)
{
	char where[64];

	if (a->kind == OT_USDT_ARG_REG)
		return 0;
	if (k >= 0)
		snprintf(why, len, "arg%u at +0x%llx is %s: the perf backend reads only registers "
			 "(--backend multi reads every operand)", t->arg,
			 (unsigned long long)t->points[k],
			 a->kind == OT_USDT_ARG_CONST ? "a constant" : "in memory");
	else
		snprintf(why, len, "the argument asked is in memory at the entry (%s): the perf "
			 "backend reads only registers (--backend multi reads it)",
			 ot_dwarf_describe(a, where, sizeof(where)));
	return -1;
}

/*
 * The plan's check (ot_backend_info.refuse_target), before a command
 * starts: every value t asks is a register, else -1 and why - refused as
 * a usage error (exit status 2), as inject refuses what it cannot read.
 */
static int perf_refuse_target(const struct ot_probe_target *t, char *why, size_t len)
{
	size_t k;

	for (k = 0; t->arg && t->point_args && k < t->npoints; k++)
		if (not_a_register(t, &t->point_args[k], (long)k, why, len))
			return -1;
	if (t->entry_arg && not_a_register(t, t->entry_arg, -1, why, len))
		return -1;
	for (k = 0; k < t->nmore; k++)
		if (not_a_register(t, &t->more_args[k], -1, why, len))
			return -1;
	return 0;
}

/*
 * What USDT site k of t records: a register operand by its perf number
 * and size (the sample carries every register); 0 none.  Anything else
 * the plan refused (perf_refuse_target): -EINVAL after printing why.
 */
static int point_value(const struct ot_probe_target *t, size_t k)
{
	const struct ot_usdt_arg *a;
	char why[256];

	if (!t->arg)
		return 0;
	a = &t->point_args[k];
	if (a->kind == OT_USDT_ARG_REG)
		return OT_VALUE_REG(a->reg) | OT_VALUE_REG_SIZE(a->size, a->is_signed, a->shift == 8);
	not_a_register(t, a, (long)k, why, sizeof(why));
	ot_error("%s: %s", t->label, why);
	return -EINVAL;
}

/* An entry's operand (a name from DWARF, a value after the first): its
 * register, as a USDT operand's; in memory it is refused as a USDT
 * operand in memory is. */
static int entry_value(const struct ot_probe_target *t, const struct ot_usdt_arg *a)
{
	char why[256];

	if (a->kind == OT_USDT_ARG_REG)
		return OT_VALUE_REG(a->reg) | OT_VALUE_REG_SIZE(a->size, a->is_signed, 0);
	not_a_register(t, a, -1, why, sizeof(why));
	ot_error("%s: %s", t->label, why);
	return -EINVAL;
}

/* Its USDT semaphore into a's config (ref_ctr_offset).  0, or -EOPNOTSUPP
 * after printing. */
static int point_ref_ctr(const struct perf_state *s, const struct ot_probe_target *t,
			 struct perf_event_attr *a)
{
	if (!t->ref_ctr)
		return 0;
	if (s->refshift < 0 || s->refshift > 32) {
		ot_error("%s has a semaphore, and this kernel's uprobe PMU takes none "
			 "(%s/format/ref_ctr_offset, Linux 4.20)", t->label, OT_PMU_DIR);
		return -EOPNOTSUPP;
	}
	a->config |= t->ref_ctr << s->refshift;
	return 0;
}

static int perf_arm(struct ot_probes *p, const struct ot_probe_target *t, size_t n, int pid)
{
	struct perf_state *s = p->priv;
	size_t i, k;
	unsigned c;

	(void)pid;	/* system-wide: lib/rings/drain filters by pid */
	for (i = 0; i < n; i++) {
		for (c = 0; c < p->ncpus; c++) {
			int cpu = p->cpus[c].cpu;

			/* Return probes first: they go in the group enabled first. */
			for (k = 0; k < ot_probes_target_nprobes(&t[i]); k++) {
				struct perf_event_attr a;
				uint64_t id, off;
				int kind, fd, err, value;

				ot_probes_target_probe(&t[i], k, &kind, &off);
				ot_probes_base_attr(&a);
				a.type = (uint32_t)s->type;
				a.config = kind == OT_PROBE_URETPROBE ? 1ull << s->retbit : 0;
				value = kind == OT_PROBE_POINT ? point_value(&t[i], k) :
					kind == OT_PROBE_ENTRY && t[i].entry_arg ?
					entry_value(&t[i], t[i].entry_arg) :
					(kind & 0xff) == OT_PROBE_VALUE ?
					entry_value(&t[i], &t[i].more_args[kind >> OT_VALUE_SLOT_SHIFT]) :
					ot_probes_target_value(&t[i], kind);
				if (value < 0)
					return value;
				if (kind == OT_PROBE_POINT && (err = point_ref_ctr(s, &t[i], &a)))
					return err;
				a.config1 = (uint64_t)(uintptr_t)t[i].path;
				a.config2 = off;
				a.sample_period = 1;
				a.sample_type |= PERF_SAMPLE_REGS_USER;
				/* One layout for every sample of the ring: the
				 * registers values are in, for all, if any
				 * function records one (lib/rings/ring decodes it). */
				a.sample_regs_user = p->values ? ot_ring_value_regs() :
								  1ull << OT_ARCH_REG_SP;
				fd = ot_probes_perf_open(p, &a, cpu, kind == OT_PROBE_ENTRY ||
							 kind == OT_PROBE_POINT ? s->ent_leader[c] :
							 p->cpus[c].fd);
				if (fd < 0) {
					err = errno;
					ot_error_errno(err, "cannot arm %s on %s (+0x%llx)%s",
						       kind == OT_PROBE_URETPROBE ? "uretprobe" :
						       kind == OT_PROBE_POINT ? "USDT uprobe" :
						       kind != OT_PROBE_ENTRY ? "return-instruction uprobe" :
						       "uprobe", t[i].label, (unsigned long long)off,
						       ot_probes_arm_hint(err));
					if (err == EMFILE || err == ENFILE) {
						struct rlimit rl = { 0, 0 };

						getrlimit(RLIMIT_NOFILE, &rl);
						ot_error("%s (%llu fds) reached after arming %zu of %zu "
							 "functions on every CPU; disarmed them all: raise "
							 "the limit or use --backend multi",
							 err == EMFILE ? "RLIMIT_NOFILE" : "the system's file limit",
							 (unsigned long long)rl.rlim_cur, i, n);
					}
					return -err;
				}
				s->fd_cpu[s->nfds] = c;
				s->fds[s->nfds++] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, p->cpus[c].fd) ||
				    ioctl(fd, PERF_EVENT_IOC_ID, &id)) {
					err = errno;
					ot_error_errno(err, "cannot set up %s on CPU %d", t[i].label, cpu);
					return -err;
				}
				/* A string: read at its address afterwards (the drain's). */
				ot_probes_id_insert(p, id, (uint32_t)i, kind, value |
						    (value && ot_probes_target_str(&t[i], kind) ?
						     OT_VALUE_STR : 0));
			}
		}
	}
	return 0;
}

static int set_leaders(struct ot_probes *p, int returns, unsigned long req)
{
	struct perf_state *s = p->priv;
	unsigned c;

	for (c = 0; c < p->ncpus; c++) {
		int fd = returns ? p->cpus[c].fd : s->ent_leader[c];

		if (fd >= 0 && ioctl(fd, req, 0))
			return -errno;
	}
	return 0;
}

static int perf_enable(struct ot_probes *p)
{
	int ret = set_leaders(p, 1, PERF_EVENT_IOC_ENABLE);

	return ret ? ret : set_leaders(p, 0, PERF_EVENT_IOC_ENABLE);
}

static void perf_disable(struct ot_probes *p)
{
	set_leaders(p, 0, PERF_EVENT_IOC_DISABLE);
	set_leaders(p, 1, PERF_EVENT_IOC_DISABLE);
}

static void perf_close(struct ot_probes *p)
{
	struct perf_state *s = p->priv;
	size_t i;
	unsigned c;

	if (!s)
		return;
	for (i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	for (c = 0; c < p->ncpus; c++)
		if (s->ent_leader[c] >= 0)
			close(s->ent_leader[c]);
	free(s->ent_leader);
	free(s->fds);
	free(s->fd_cpu);
	free(s);
	p->priv = NULL;
}

/*
 * Every uprobe writes its own samples into its CPU's ring and counts its
 * own drops: their sum, with the leaders' (which write nothing of their
 * own, so far), is the ring's.  One read per event (~1 us each), once: a
 * group read of a leader would do a CPU's in one, but asking for it caps
 * a group at 16 KB of read values, 1,022 members with their counts, where
 * a return group holds one member per return probe.
 */
static int perf_rings_lost(const struct ot_probes *p, uint64_t *lost)
{
	const struct perf_state *s = p->priv;
	uint64_t n;
	size_t i;
	unsigned c;
	int ret;

	for (c = 0; c < p->ncpus; c++) {
		lost[c] = 0;
		if ((ret = ot_probes_perf_lost(p->cpus[c].fd, &n)))
			return ret;
		lost[c] += n;
		if ((ret = ot_probes_perf_lost(s->ent_leader[c], &n)))
			return ret;
		lost[c] += n;
	}
	for (i = 0; i < s->nfds; i++) {
		if ((ret = ot_probes_perf_lost(s->fds[i], &n)))
			return ret;
		lost[s->fd_cpu[i]] += n;
	}
	return 0;
}

static size_t perf_nevents(const struct ot_probes *p)
{
	const struct perf_state *s = p->priv;

	return s ? s->nfds : 0;
}

const struct ot_backend_ops ot_backend_perf = {
	.ring_kb = OT_RING_KB_DEFAULT,
	.info = {
		.name = "perf",
		.built_on = "uprobe PMU perf events",
		.can = OT_CAN_AUTO | OT_CAN_ALL | OT_CAN_FREEZE | OT_CAN_COMPENSATE | OT_CAN_RETURNS |
		       OT_CAN_VALUES | OT_NEEDS_SYS_ADMIN | OT_CAN_USDT,
		.why_not = {
			[1] = "--follow needs the multi backend (its BPF program follows forks "
			      "in the kernel): not with --backend perf",
			[12] = "-p PID,PID... needs the multi backend (its BPF program keeps to "
			       "those processes in the kernel): not with --backend perf",
			[13] = "--cgroup needs the multi backend (its BPF program keeps to the "
			       "cgroup's processes in the kernel): not with --backend perf",
			[14] = "the perf backend reads registers only, and a goroutine's calls "
			       "cannot be paired without reading where its stack is (it moves "
			       "when it grows); the multi backend (the default, Linux 6.6) "
			       "traces Go programs",
			[15] = "-a run by a user needs the multi backend (its BPF program keeps "
			       "to the user's own processes in the kernel; the perf backend's "
			       "events would read every user's): not with --backend perf",
		},
		.refuse_target = perf_refuse_target,
	},
	.objects = "perf events",
	.quick_close = 0,
	.load = perf_load,
	.open_ring = perf_open_ring,
	.ring_mapped = perf_ring_mapped,
	.arm = perf_arm,
	.enable = perf_enable,
	.disable = perf_disable,
	.close = perf_close,
	.nevents = perf_nevents,
	.rings_lost = perf_rings_lost,
};
