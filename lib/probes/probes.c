/*
 * probes.c - what every backend shares (probes.h): picking one, the CPUs, the
 * rings, probe ids to targets, and the life cycle's order around its
 * operations.
 */
#include "probes.h"
#include "process/procfs.h"
#include "backend.h"
#include "util/caps.h"
#include "rings/drain.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* --backend auto tries those it may take (OT_CAN_AUTO), in this order. */
static const struct ot_backend_ops *const backends[] = {
	&ot_backend_multi,
	&ot_backend_perf,
	&ot_backend_inject,
};
#define NBACKENDS (sizeof(backends) / sizeof(*backends))

/* auto: what some backend it may take can do (it takes one that can). */
static struct ot_backend_info auto_info = { .name = "auto" };

static const struct ot_backend_info *auto_backend(void)
{
	size_t i;

	if (!auto_info.can) {
		auto_info.built_on = "the first of the others that loads";
		for (i = 0; i < NBACKENDS; i++)
			if (backends[i]->info.can & OT_CAN_AUTO)
				auto_info.can |= backends[i]->info.can;
	}
	return &auto_info;
}

const struct ot_backend_info *ot_backend_at(size_t i)
{
	if (i == 0)
		return auto_backend();
	return i <= NBACKENDS ? &backends[i - 1]->info : NULL;
}

const struct ot_backend_info *ot_backend_find(const char *name)
{
	const struct ot_backend_info *b;
	size_t i;

	for (i = 0; (b = ot_backend_at(i)); i++)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

const char *ot_backend_why_not(const struct ot_backend_info *b, unsigned can)
{
	unsigned k = (unsigned)__builtin_ctz(can);

	if (b->can & can || k >= sizeof(b->why_not) / sizeof(*b->why_not))
		return NULL;
	return b->why_not[k];
}

/* Parse a cpulist such as "0-3,6" into an array of CPU numbers. */
static int online_cpus(int **out, unsigned *n)
{
	char buf[4096], *p, *end;
	int ret;

	ret = ot_proc_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (ret)
		return ret;
	*out = NULL;
	*n = 0;
	for (p = buf; *p && *p != '\n';) {
		long a = strtol(p, &end, 10), b = a, c;

		if (end == p)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		for (c = a; c <= b; c++) {
			*out = ot_xreallocarray(*out, *n + 1, sizeof(**out));
			(*out)[(*n)++] = (int)c;
		}
		if (*p == ',')
			p++;
	}
	return *n ? 0 : -EINVAL;
}

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1u << 4)	/* Linux 6.0 */
#endif

/*
 * Every event also counts the records it could not write (ring full):
 * the kernel reports them in the ring only with the next record that
 * fits, and after a ring's last burst nothing may fit again
 * (ot_probes_final_lost).  The count costs nothing until read.
 */
int ot_probes_perf_open(struct ot_probes *p, struct perf_event_attr *attr, int cpu,
			int group)
{
	int fd;

	if (p->lost_format >= 0)
		attr->read_format |= PERF_FORMAT_LOST;
	fd = (int)syscall(SYS_perf_event_open, attr, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && !p->lost_format) {
		attr->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		fd = (int)syscall(SYS_perf_event_open, attr, -1, cpu, group,
				  PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			p->lost_format = -1;
			ot_verbose("this kernel does not count each event's lost records "
				   "(PERF_FORMAT_LOST, Linux 6.0): a ring's last drops may go "
				   "uncounted");
		}
	}
	if (fd >= 0 && !p->lost_format)
		p->lost_format = 1;
	return fd;
}

int ot_probes_perf_lost(int fd, uint64_t *lost)
{
	uint64_t v[2];	/* read_format PERF_FORMAT_LOST: the count, the lost */
	ssize_t n = read(fd, v, sizeof(v));

	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(v))
		return -EIO;
	*lost = v[1];
	return 0;
}

/* Events sharing a ring must share a clock; CLOCK_MONOTONIC lets the drain
 * compare sample times with clock_gettime to know what can still arrive. */
void ot_probes_base_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_id_all = 1;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME;
}

/*
 * The ring's owner wakes a poller once a quarter of the ring is pending, so
 * the drain can sleep for --drain-ms and still never let a ring fill while
 * it has the CPU (docs/benchmarks.md, "Drain wake-ups").
 */
void ot_probes_ring_wakeup(struct perf_event_attr *a, size_t data)
{
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(data / 4);
}

int ot_probes_target_value(const struct ot_probe_target *t, int kind)
{
	if (kind == OT_PROBE_POINT)
		return t->arg ? OT_VALUE_USDT : 0;
	if ((kind & 0xff) == OT_PROBE_VALUE)
		return OT_VALUE_USDT;
	if (kind == OT_PROBE_ENTRY && t->entry_arg)
		return OT_VALUE_USDT;
	if (kind == OT_PROBE_ENTRY)
		return t->arg ? OT_VALUE_ARG1 + t->arg - 1 : 0;
	return t->ret_value ? OT_VALUE_RET : 0;
}

int ot_probes_target_str(const struct ot_probe_target *t, int kind)
{
	return t->str && t->arg && (kind == OT_PROBE_POINT || kind == OT_PROBE_ENTRY);
}

void ot_probes_id_insert(struct ot_probes *p, uint64_t id, uint32_t target, int kind, int value)
{
	size_t s = (size_t)(id * 0x9E3779B97F4A7C15ull) & (p->idcap - 1);

	while (p->ids[s].id)
		s = (s + 1) & (p->idcap - 1);
	p->ids[s].id = id;
	p->ids[s].target = target;
	p->ids[s].kind = (uint32_t)kind | (uint32_t)value << 8;
}

int ot_probes_lookup(void *probes, uint64_t id, uint32_t *target, int *kind)
{
	struct ot_probes *p = probes;
	size_t s;

	/* Records come in runs of one probe (a loop calling one function). */
	if (p->last && id == p->last->id) {
		*target = p->last->target;
		*kind = (int)p->last->kind;
		return 0;
	}
	s = (size_t)(id * 0x9E3779B97F4A7C15ull) & (p->idcap - 1);

	while (p->ids[s].id) {
		if (p->ids[s].id == id) {
			p->last = &p->ids[s];
			*target = p->ids[s].target;
			*kind = (int)p->ids[s].kind;
			return 0;
		}
		s = (s + 1) & (p->idcap - 1);
	}
	return -ENOENT;
}

size_t ot_probes_target_nprobes(const struct ot_probe_target *t)
{
	if (t->points)
		return t->npoints;
	return 1 + (t->ret_sites ? t->nret_sites : 1) + t->nmore;
}

void ot_probes_target_probe(const struct ot_probe_target *t, size_t k, int *kind,
			    uint64_t *offset)
{
	size_t nret = ot_probes_target_nprobes(t) - 1 - (t->points ? 0 : t->nmore);

	if (t->points) {
		*kind = OT_PROBE_POINT;
		*offset = t->points[k];
	} else if (k > nret) {
		/* Value j's probe, at the entry: its slot in the kind. */
		*kind = OT_PROBE_VALUE | (int)(k - nret - 1) << OT_VALUE_SLOT_SHIFT;
		*offset = t->offset;
	} else if (k == nret) {
		*kind = OT_PROBE_ENTRY;
		*offset = t->offset;
	} else if (!t->ret_sites) {
		*kind = OT_PROBE_URETPROBE;
		*offset = t->offset;
	} else {
		*kind = k < nret - t->ntail_sites ? OT_PROBE_RET_INSN : OT_PROBE_TAIL_RET;
		*offset = t->ret_sites[k];
	}
}

const char *ot_probes_arm_hint(int err)
{
	if (err == EACCES || err == EPERM)
		return ot_caps_have_sys_admin() ? "" : " (needs CAP_SYS_ADMIN)";
	if (err == EINVAL)
		return " (the kernel refused this offset or attribute)";
	return "";
}

/* Per CPU: the event that owns the ring, mapped. */
static int open_rings(struct ot_probes *p, size_t page, size_t ring_kb)
{
	size_t data = ring_kb * 1024;
	unsigned c;

	for (c = 0; c < p->ncpus; c++) {
		struct ot_cpu_ring *s = &p->cpus[c];
		int ret;

		s->fd = p->ops->open_ring(p, c, data);
		if (s->fd < 0) {
			ret = s->fd;
			s->fd = -1;
			return ret;
		}
		s->map_len = page + data;
		s->map = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
		if (s->map == MAP_FAILED) {
			int err = errno;

			s->map = NULL;
			ot_error_errno(err, "cannot map a %zu KB ring on CPU %d%s",
				       ring_kb, s->cpu,
				       err == EPERM ? " (perf_event_mlock_kb; needs CAP_IPC_LOCK)" : "");
			return -err;
		}
		ot_ring_init(&s->ring, s->map, page, data);
		s->ring.decode = p->ops->decode;
		/* The perf backend samples the registers values may be in. */
		s->ring.regs_mask = p->values ? ot_ring_value_regs() : 0;
		ret = p->ops->ring_mapped(p, c);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * With --backend auto the backend is known only once one loads: what it
 * cannot arm is refused now as the plan refuses it for a backend named
 * (a usage error, the same words): -EDOM after printing, else 0.
 */
static int refuse_picked(const struct ot_probes *p, const struct ot_probe_target *t, size_t n,
			 const struct ot_probes_opts *o)
{
	char why[256];
	size_t i;

	if ((o->backend && o->backend != auto_backend()) || !p->ops->info.refuse_target)
		return 0;
	for (i = 0; i < n; i++)
		if (p->ops->info.refuse_target(&t[i], why, sizeof(why))) {
			ot_error("%s: %s", t[i].label, why);
			return -EDOM;
		}
	return 0;
}

/* The backend --backend names, loaded; for auto the first that loads and
 * can do what need asks. */
static int pick(struct ot_probes *p, const struct ot_backend_info *want, unsigned need)
{
	int any = want == auto_backend(), ret = -ENOENT;
	const char *next;
	char why[256];
	size_t i, k;

	for (i = 0; i < NBACKENDS; i++) {
		const struct ot_backend_ops *ops = backends[i];

		if (any ? (ops->info.can & (OT_CAN_AUTO | need)) != (OT_CAN_AUTO | need) :
			  want != &ops->info)
			continue;
		p->ops = ops;
		why[0] = 0;
		ret = ops->load(p, why, sizeof(why));
		if (!ret)
			return 0;
		if (!any) {
			ot_error("cannot use the %s backend: %s", ops->info.name, why);
			return ret;
		}
		for (next = "none", k = i + 1; k < NBACKENDS; k++)
			if ((backends[k]->info.can & (OT_CAN_AUTO | need)) == (OT_CAN_AUTO | need)) {
				next = backends[k]->info.name;
				break;
			}
		ot_verbose("%s backend unavailable (%s): using %s", ops->info.name, why, next);
	}
	p->ops = NULL;
	ot_error("no probe backend can be used here (-v says why)");
	return ret;
}

/*
 * A user's capture that could reach other users' processes (-a, --follow,
 * -p PID,PID...) must be kept to the user's own in the kernel; a single
 * -p process the kernel checks as ptrace does when the probes are made.
 */
static unsigned owner_asked(const struct ot_probes_opts *o)
{
	return o->owner && (o->pid <= 0 || o->follow || o->npids > 1) ? OT_CAN_OWNER : 0;
}

static int refuse_owner(const struct ot_probes *p, const struct ot_probes_opts *o)
{
	const char *why = owner_asked(o) ? ot_backend_why_not(&p->ops->info, OT_CAN_OWNER) : NULL;

	if (!why)
		return 0;
	ot_error("%s", why);
	return -EPERM;
}

int ot_probes_arm(const struct ot_probe_target *t, size_t n,
		  const struct ot_probes_opts *o, struct ot_probes **out)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), i;
	struct ot_probes *p;
	int *cpus = NULL, ret, go = 0;
	unsigned ncpus, c;

	*out = NULL;
	ret = online_cpus(&cpus, &ncpus);
	if (ret) {
		ot_error_errno(-ret, "cannot read /sys/devices/system/cpu/online");
		free(cpus);
		return ret;
	}
	p = ot_xcalloc(1, sizeof(*p));
	p->opts = *o;
	p->ncpus = ncpus;
	p->cpus = ot_xcalloc(ncpus, sizeof(*p->cpus));
	for (c = 0; c < ncpus; c++) {
		p->cpus[c].cpu = cpus[c];
		p->cpus[c].fd = -1;
	}
	free(cpus);
	for (i = 0; i < n; i++) {
		p->nuprobes += ot_probes_target_nprobes(&t[i]);
		p->values |= t[i].arg || t[i].ret_value;
		go |= t[i].go;
	}
	/* Room for one id per probe and CPU (the perf backend's events). */
	for (p->idcap = 16; p->idcap < 2 * p->nuprobes * ncpus; p->idcap *= 2)
		;
	p->ids = ot_xcalloc(p->idcap, sizeof(*p->ids));
	/* auto takes a backend that can trace Go for Go code. */
	ret = pick(p, o->backend ? o->backend : auto_backend(),
		   (o->follow ? OT_CAN_FOLLOW : 0) | (o->npids > 1 ? OT_CAN_PIDS : 0) |
		   (o->cgroup_fd >= 0 ? OT_CAN_CGROUP : 0) | (go ? OT_CAN_GO : 0) |
		   owner_asked(o));
	if (!ret)
		ret = refuse_owner(p, o);
	if (!ret)
		ret = refuse_picked(p, t, n, o);
	if (!ret && !p->opts.ring_kb)
		p->opts.ring_kb = p->ops->ring_kb;
	if (!ret && (p->opts.ring_kb * 1024 < page || (p->opts.ring_kb & (p->opts.ring_kb - 1)))) {
		ot_error("ring size %zu KB is not a power-of-two multiple of the %zu-byte page",
			 p->opts.ring_kb, page);
		ret = -EINVAL;
	}
	if (!ret && p->ops->open_ring)
		ret = open_rings(p, page, p->opts.ring_kb);
	if (!ret)
		ret = p->ops->arm(p, t, n, o->pid);
	if (ret) {
		ot_probes_close(p);
		return ret;
	}
	*out = p;
	return 0;
}

int ot_probes_follow_poll(struct ot_probes *p, int alive,
			  void (*fn)(void *ctx, const struct ot_follow_proc *proc),
			  void *ctx, uint64_t *dropped)
{
	*dropped = 0;
	if (!p || !(p->opts.follow || p->opts.npids > 1) || !p->ops->follow_poll)
		return -ENOTSUP;
	return p->ops->follow_poll(p, alive, fn, ctx, dropped);
}

int ot_probes_take_back(const struct ot_backend_info *using, pid_t pid,
			const char *const *paths, const uint64_t *offs, size_t n)
{
	size_t i;

	if (using->can & OT_PATCHES_CODE)
		return 0;
	for (i = 0; i < NBACKENDS; i++)
		if (backends[i]->take_back && backends[i]->take_back(pid, paths, offs, n))
			return -1;
	return 0;
}

int ot_probes_restore(pid_t pid, struct ot_probes_restored *out)
{
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < NBACKENDS; i++) {
		if (!backends[i]->restore)
			continue;
		if ((ret = backends[i]->restore(pid, out)) || out->found)
			return ret;
	}
	return 0;
}

int ot_probes_comm(struct ot_probes *p, uint32_t pid, char *buf, size_t len)
{
	if (!p || !p->ops->comm)
		return -ENOTSUP;
	return p->ops->comm(p, pid, buf, len);
}

size_t ot_probes_ring_kb(const struct ot_probes *p)
{
	return p->opts.ring_kb;
}

const char *ot_probes_backend(const struct ot_probes *p)
{
	return p->ops->info.name;
}

unsigned ot_probes_can(const struct ot_probes *p)
{
	return p->ops->info.can;
}

const char *ot_probes_returns(const struct ot_probes *p)
{
	return p->ops->info.returns;
}

const char *ot_probes_objects(const struct ot_probes *p)
{
	return p->ops->objects;
}

int ot_probes_quick_close(const struct ot_probes *p)
{
	return p->ops->quick_close;
}

int ot_probes_enable(struct ot_probes *p)
{
	int ret = p->ops->enable(p);

	if (ret)
		ot_error_errno(-ret, "cannot enable the probes");
	p->enabled = !ret;
	return ret;
}

void ot_probes_disable(struct ot_probes *p)
{
	p->enabled = 0;
	p->ops->disable(p);
}

void ot_probes_close(struct ot_probes *p)
{
	unsigned c;

	if (!p)
		return;
	/* Probes before rings: no hit may look for a ring being closed. */
	if (p->ops)
		p->ops->close(p);
	for (c = 0; c < p->ncpus; c++) {
		struct ot_cpu_ring *s = &p->cpus[c];

		if (s->map) {
			ot_ring_fini(&s->ring);
			munmap(s->map, s->map_len);
		}
		if (s->fd >= 0)
			close(s->fd);
	}
	free(p->cpus);
	free(p->ids);
	free(p);
}

unsigned ot_probes_ncpus(const struct ot_probes *p)
{
	return p->ncpus;
}

int ot_probes_ring_fd(const struct ot_probes *p, unsigned i)
{
	return p->cpus[i].fd;
}

int ot_probes_wake_fd(const struct ot_probes *p)
{
	return p->ops->wake_fd ? p->ops->wake_fd(p) : -1;
}

size_t ot_probes_nevents(const struct ot_probes *p)
{
	return p->ops->nevents(p);
}

size_t ot_probes_nuprobes(const struct ot_probes *p)
{
	return p->ops->info.can & OT_PATCHES_CODE ? 0 : p->nuprobes;
}

size_t ot_probes_drain(struct ot_probes *p, struct ot_drain *d)
{
	size_t n = 0;
	unsigned i;

	if (p->ops->drain)
		return p->ops->drain(p, d);
	for (i = 0; i < p->ncpus; i++)
		n += ot_drain_ring(d, i, &p->cpus[i].ring);
	return n;
}

unsigned ot_probes_nqueues(const struct ot_probes *p)
{
	return p->ops->nqueues ? p->ops->nqueues(p) : p->ncpus;
}

int ot_probes_poll_ms(const struct ot_probes *p, int drain_ms)
{
	return p->ops->poll_ms ? p->ops->poll_ms(p, drain_ms) : drain_ms;
}

static void cpu_peak(const struct ot_probes *p, uint64_t *pending, uint64_t *size,
		     uint64_t *high_water)
{
	unsigned i;

	*pending = *high_water = 0;
	*size = 1;
	for (i = 0; i < p->ncpus && p->cpus[i].map; i++) {
		const struct ot_ring *r = &p->cpus[i].ring;

		/* The ring whose high water is the largest share of it. */
		if (r->high_water * *size > *pending * r->size) {
			*pending = r->high_water;
			*size = r->size;
		}
		if (r->high_water > *high_water)
			*high_water = r->high_water;
	}
}

void ot_probes_ring_peak(const struct ot_probes *p, uint64_t *pending, uint64_t *size)
{
	uint64_t hw;

	if (p->ops->ring_peak)
		p->ops->ring_peak(p, pending, size, &hw);
	else
		cpu_peak(p, pending, size, &hw);
}

uint64_t ot_probes_high_water(const struct ot_probes *p)
{
	uint64_t pending, size, hw;

	if (p->ops->ring_peak)
		p->ops->ring_peak(p, &pending, &size, &hw);
	else
		cpu_peak(p, &pending, &size, &hw);
	return hw;
}

/*
 * A ring that held this close to full at a drain may have dropped a record
 * meanwhile: more than the longest record the backends' events write (a
 * perf sample with the value registers, 104 bytes) with the
 * PERF_RECORD_LOST the kernel may put before it (48).  Any less full, it
 * never dropped one: what it holds only grows until the next drain.
 */
#define OT_RING_RECORD_ROOM 256

/* Whether a ring of p may have dropped a record (without a kernel count). */
static int rings_may_have_dropped(const struct ot_probes *p)
{
	unsigned c;

	for (c = 0; c < p->ncpus && p->cpus[c].map; c++)
		if (p->cpus[c].ring.high_water + OT_RING_RECORD_ROOM > p->cpus[c].ring.size)
			return 1;
	return 0;
}

int ot_probes_final_lost(struct ot_probes *p, struct ot_drain *d)
{
	uint64_t *lost;
	unsigned c;
	int ret = -EOPNOTSUPP;

	if (!p->ops->open_ring)
		return 1;	/* rings of its own, counted as they drop */
	lost = ot_xcalloc(p->ncpus, sizeof(*lost));
	if (p->lost_format > 0 && p->ops->rings_lost)
		ret = p->ops->rings_lost(p, lost);
	for (c = 0; !ret && c < p->ncpus; c++) {
		uint64_t seen = ot_drain_ring_lost(d, c);

		/* Fewer than its records reported: a writer not summed. */
		if (lost[c] < seen) {
			ot_verbose("CPU %d: the kernel counts %llu records lost, its ring "
				   "reported %llu", p->cpus[c].cpu, (unsigned long long)lost[c],
				   (unsigned long long)seen);
			ret = -EPROTO;
		}
	}
	for (c = 0; !ret && c < p->ncpus; c++)
		ot_drain_lost(d, c, lost[c] - ot_drain_ring_lost(d, c));
	free(lost);
	if (ret && ret != -EOPNOTSUPP)
		ot_verbose("cannot read the kernel's counts of lost records: %s",
			   strerror(-ret));
	return !ret || !rings_may_have_dropped(p);
}

const char *ot_probes_refused(const struct ot_probes *p, size_t i)
{
	return p->ops->refused ? p->ops->refused(p, i) : NULL;
}

void ot_probes_events(struct ot_probes *p)
{
	if (p && p->ops->events)
		p->ops->events(p);
}

const struct ot_probes_thread_execs *ot_probes_thread_execs(const struct ot_probes *p)
{
	return p && p->ops && p->ops->thread_execs ? p->ops->thread_execs(p) : NULL;
}

void ot_probes_say(struct ot_probes *p, struct ot_probes_said *out)
{
	memset(out, 0, sizeof(*out));
	if (p && p->ops && p->ops->say)
		p->ops->say(p, out);
}

int ot_probes_close_said(struct ot_probes *p, struct ot_probes_said *out)
{
	int have;

	if (!p)
		return 0;
	/* The backend first, as ot_probes_close would, to read its last word. */
	if (p->ops) {
		p->ops->close(p);
		p->ops = NULL;
	}
	have = p->have_said;
	if (have)
		*out = p->last_said;
	ot_probes_close(p);
	return have;
}
