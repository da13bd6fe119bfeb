#include "uprobe.h"
#include "caps.h"
#include "uprobe_multi.h"
#include "error.h"
#include "xalloc.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#define OT_REG_SP PERF_REG_X86_SP
#elif defined(__aarch64__)
#define OT_REG_SP PERF_REG_ARM64_SP
#endif

#define OT_PMU_DIR "/sys/bus/event_source/devices/uprobe"

struct cpu_slot {
	int cpu;
	/* ret_leader owns the ring: perf, the return probes' group leader;
	 * multi, the BPF output event (and ent_leader is -1). */
	int ret_leader, ent_leader;
	void *map;
	size_t map_len;
	struct ot_ring ring;
};

struct id_slot {
	uint64_t id;	/* 0: empty (the kernel's ids start at 1) */
	uint32_t target;
	uint32_t kind;	/* enum ot_probe_kind */
};

struct ot_probes {
	enum ot_backend backend;
	struct ot_umulti *multi;	/* the multi backend's program and links */
	struct cpu_slot *cpus;
	unsigned ncpus;
	int *fds;
	size_t nfds;
	struct id_slot *ids;
	size_t idcap;
	size_t nuprobes;
	uint64_t last_cookie; /* multi: probe ids are cookies 1, 2, ... */
	struct id_slot last;	/* the last id looked up */
};

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return 0;
}

int ot_uprobe_pmu(int *type, unsigned *retprobe_bit)
{
	char buf[64];
	int ret;

	ret = read_file(OT_PMU_DIR "/type", buf, sizeof(buf));
	if (ret)
		return ret;
	*type = atoi(buf);
	ret = read_file(OT_PMU_DIR "/format/retprobe", buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "config:%u", retprobe_bit) != 1 || *retprobe_bit > 63)
		return -EINVAL;
	return 0;
}

/* Parse a cpulist such as "0-3,6" into an array of CPU numbers. */
static int online_cpus(int **out, unsigned *n)
{
	char buf[4096], *p, *end;
	int ret;

	ret = read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));
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

static int perf_open(struct perf_event_attr *attr, int cpu, int group)
{
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, group,
			    PERF_FLAG_FD_CLOEXEC);
}

/* Events sharing a ring must share a clock; CLOCK_MONOTONIC lets the drain
 * compare sample times with clock_gettime to know what can still arrive. */
static void base_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_id_all = 1;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME;
}

static void id_insert(struct ot_probes *p, uint64_t id, uint32_t target,
		      int kind)
{
	size_t s = (size_t)(id * 0x9E3779B97F4A7C15ull) & (p->idcap - 1);

	while (p->ids[s].id)
		s = (s + 1) & (p->idcap - 1);
	p->ids[s].id = id;
	p->ids[s].target = target;
	p->ids[s].kind = (uint32_t)kind;
}

int ot_probes_lookup(void *probes, uint64_t id, uint32_t *target, int *kind)
{
	struct ot_probes *p = probes;
	size_t s;

	/* Records come in runs of one probe (a loop calling one function). */
	if (id == p->last.id) {
		*target = p->last.target;
		*kind = (int)p->last.kind;
		return 0;
	}
	s = (size_t)(id * 0x9E3779B97F4A7C15ull) & (p->idcap - 1);

	while (p->ids[s].id) {
		if (p->ids[s].id == id) {
			p->last = p->ids[s];
			*target = p->ids[s].target;
			*kind = (int)p->ids[s].kind;
			return 0;
		}
		s = (s + 1) & (p->idcap - 1);
	}
	return -ENOENT;
}

static const char *arm_hint(int err)
{
	if (err == EACCES || err == EPERM)
		return ot_caps_have_sys_admin() ? "" : " (needs CAP_SYS_ADMIN)";
	if (err == EINVAL)
		return " (the kernel refused this offset or attribute)";
	return "";
}

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

/*
 * The ring's owner wakes a poller once a quarter of the ring is pending, so
 * the drain can sleep for --drain-ms and still never let a ring fill while
 * it has the CPU (docs/benchmarks.md, "Drain wake-ups").
 */
static void ring_wakeup(struct perf_event_attr *a, size_t data)
{
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(data / 4);
}

static int open_leader(int cpu, size_t data)
{
	struct perf_event_attr a;

	base_attr(&a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	if (data)
		ring_wakeup(&a, data);
	return perf_open(&a, cpu, -1);
}

const char *ot_backend_name(enum ot_backend b)
{
	return b == OT_BACKEND_PERF ? "perf" : b == OT_BACKEND_MULTI ? "multi" : "auto";
}

/* A BPF output event: the ring the multi backend's program writes into. */
static int open_bpf_output(int cpu, size_t data)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a.sample_period = 1;
	ring_wakeup(&a, data);
	return perf_open(&a, cpu, -1);
}

/* Per CPU: the event that owns the ring (and, for perf, the entry leader). */
static int open_rings(struct ot_probes *p, size_t page, size_t ring_kb)
{
	size_t data = ring_kb * 1024;
	unsigned c;

	for (c = 0; c < p->ncpus; c++) {
		struct cpu_slot *s = &p->cpus[c];

		if (p->backend == OT_BACKEND_MULTI) {
			s->ret_leader = open_bpf_output(s->cpu, data);
		} else {
			s->ret_leader = open_leader(s->cpu, data);
			s->ent_leader = s->ret_leader >= 0 ? open_leader(s->cpu, 0) : -1;
		}
		if (s->ret_leader < 0 || (p->backend == OT_BACKEND_PERF && s->ent_leader < 0)) {
			int err = errno;

			ot_error_errno(err, "cannot open a perf event on CPU %d%s",
				       s->cpu, arm_hint(err));
			return -err;
		}
		s->map_len = page + data;
		s->map = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE,
			      MAP_SHARED, s->ret_leader, 0);
		if (s->map == MAP_FAILED) {
			int err = errno;

			s->map = NULL;
			ot_error_errno(err, "cannot map a %zu KB ring on CPU %d%s",
				       ring_kb, s->cpu,
				       err == EPERM ? " (perf_event_mlock_kb; needs CAP_IPC_LOCK)" : "");
			return -err;
		}
		ot_ring_init(&s->ring, s->map, page, data);
		s->ring.bpf = p->backend == OT_BACKEND_MULTI;
		if (p->backend == OT_BACKEND_MULTI) {
			int err = ot_umulti_set_ring(p->multi, s->cpu, s->ret_leader);

			if (err) {
				ot_error_errno(-err, "cannot give the BPF program the ring of CPU %d",
					       s->cpu);
				return err;
			}
		} else if (ioctl(s->ent_leader, PERF_EVENT_IOC_SET_OUTPUT, s->ret_leader)) {
			int err = errno;

			ot_error_errno(err, "cannot share the ring on CPU %d", s->cpu);
			return -err;
		}
	}
	return 0;
}

/* One probe for a link: its offset, and a fresh cookie as its id. */
static void link_probe(struct ot_probes *p, uint64_t *off, uint64_t *cookie,
		       size_t *m, uint64_t offset, size_t target, int kind)
{
	off[*m] = offset;
	cookie[*m] = ++p->last_cookie;
	id_insert(p, cookie[*m], (uint32_t)target, kind);
	(*m)++;
}

/* The probes of targets idx[0..nidx), which share one file: a link per kind. */
static int attach_file(struct ot_probes *p, const struct ot_probe_target *t,
		       const size_t *idx, size_t nidx, int pid)
{
	/* Returns first, as the perf backend enables them first. */
	static const struct {
		enum ot_umulti_kind link;
		int probe;
		const char *what;
	} kinds[] = {
		{ OT_UMULTI_URETPROBE, OT_PROBE_URETPROBE, "uretprobes" },
		{ OT_UMULTI_RET_INSN, OT_PROBE_RET_INSN, "return-instruction uprobes" },
		{ OT_UMULTI_ENTRY, OT_PROBE_ENTRY, "entry uprobes" },
	};
	size_t cap = 0, k, x, m, r;
	uint64_t *off, *cookie;
	int ret = 0;

	for (x = 0; x < nidx; x++)
		cap += 1 + (t[idx[x]].ret_sites ? t[idx[x]].nret_sites : 1);
	off = ot_xcalloc(cap + 1, sizeof(*off));
	cookie = ot_xcalloc(cap + 1, sizeof(*cookie));
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !ret; k++) {
		int kind = kinds[k].probe;

		for (m = 0, x = 0; x < nidx; x++) {
			const struct ot_probe_target *ti = &t[idx[x]];

			if (kind == OT_PROBE_ENTRY || (kind == OT_PROBE_URETPROBE && !ti->ret_sites))
				link_probe(p, off, cookie, &m, ti->offset, idx[x], kind);
			else if (kind == OT_PROBE_RET_INSN && ti->ret_sites)
				for (r = 0; r < ti->nret_sites; r++)
					link_probe(p, off, cookie, &m, ti->ret_sites[r], idx[x],
						   r < ti->nret_sites - ti->ntail_sites ?
						   OT_PROBE_RET_INSN : OT_PROBE_TAIL_RET);
		}
		ret = ot_umulti_attach(p->multi, t[idx[0]].path, kinds[k].link, off, cookie, m, pid);
		if (ret)
			ot_error_errno(-ret, "cannot attach %zu %s to %s (first %s)%s", m,
				       kinds[k].what, t[idx[0]].path, t[idx[0]].label,
				       ret == -EINVAL ? " (the kernel refused an offset; --backend perf "
						       "names the function)" : arm_hint(-ret));
	}
	free(off);
	free(cookie);
	return ret;
}

static int arm_multi(struct ot_probes *p, const struct ot_probe_target *t,
		     size_t n, int pid)
{
	size_t *idx = ot_xcalloc(n + 1, sizeof(*idx)), i, j, m;
	char *done = ot_xcalloc(n + 1, 1);
	int ret = 0;

	/* One link per file, process and kind: group the targets by both. */
	for (i = 0; i < n && !ret; i++) {
		if (done[i])
			continue;
		for (m = 0, j = i; j < n; j++)
			if (!done[j] && !strcmp(t[j].path, t[i].path) && t[j].pid == t[i].pid) {
				done[j] = 1;
				idx[m++] = j;
			}
		ret = attach_file(p, t, idx, m, t[i].pid > 0 ? t[i].pid : pid);
	}
	free(idx);
	free(done);
	return ret;
}

static int arm_perf(struct ot_probes *p, const struct ot_probe_target *t,
		    size_t n, int type, unsigned retbit)
{
	size_t i;
	unsigned c;

	for (i = 0; i < n; i++) {
		size_t nret = t[i].ret_sites ? t[i].nret_sites : 1, k;

		for (c = 0; c < p->ncpus; c++) {
			struct cpu_slot *s = &p->cpus[c];

			/* Return probes first: they go in the group enabled first. */
			for (k = 0; k <= nret; k++) {
				int kind = k == nret ? OT_PROBE_ENTRY :
					   !t[i].ret_sites ? OT_PROBE_URETPROBE :
					   k < nret - t[i].ntail_sites ? OT_PROBE_RET_INSN : OT_PROBE_TAIL_RET;
				uint64_t off = kind == OT_PROBE_ENTRY || kind == OT_PROBE_URETPROBE ?
					       t[i].offset : t[i].ret_sites[k];
				struct perf_event_attr a;
				uint64_t id;
				int fd, err;

				base_attr(&a);
				a.type = (uint32_t)type;
				a.config = kind == OT_PROBE_URETPROBE ? 1ull << retbit : 0;
				a.config1 = (uint64_t)(uintptr_t)t[i].path;
				a.config2 = off;
				a.sample_period = 1;
				a.sample_type |= PERF_SAMPLE_REGS_USER;
				a.sample_regs_user = 1ull << OT_REG_SP;
				fd = perf_open(&a, s->cpu,
					       kind == OT_PROBE_ENTRY ? s->ent_leader : s->ret_leader);
				if (fd < 0) {
					err = errno;
					ot_error_errno(err, "cannot arm %s on %s (+0x%llx)%s",
						       kind == OT_PROBE_URETPROBE ? "uretprobe" :
						       kind != OT_PROBE_ENTRY ? "return-instruction uprobe" :
						       "uprobe", t[i].label, (unsigned long long)off,
						       arm_hint(err));
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
				p->fds[p->nfds++] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->ret_leader) ||
				    ioctl(fd, PERF_EVENT_IOC_ID, &id)) {
					err = errno;
					ot_error_errno(err, "cannot set up %s on CPU %d",
						       t[i].label, s->cpu);
					return -err;
				}
				id_insert(p, id, (uint32_t)i, kind);
			}
		}
	}
	return 0;
}

static struct ot_probes *probes_new(enum ot_backend b, const int *cpus,
				    unsigned ncpus, const struct ot_probe_target *t,
				    size_t n)
{
	struct ot_probes *p = ot_xcalloc(1, sizeof(*p));
	size_t i, per_cpu;
	unsigned c;

	p->backend = b;
	p->ncpus = ncpus;
	for (i = 0; i < n; i++)
		p->nuprobes += 1 + (t[i].ret_sites ? t[i].nret_sites : 1);
	p->cpus = ot_xcalloc(p->ncpus, sizeof(*p->cpus));
	for (c = 0; c < p->ncpus; c++) {
		p->cpus[c].cpu = cpus[c];
		p->cpus[c].ret_leader = p->cpus[c].ent_leader = -1;
	}
	per_cpu = b == OT_BACKEND_PERF ? p->ncpus : 1;
	p->fds = ot_xcalloc(b == OT_BACKEND_PERF ? p->nuprobes * p->ncpus + 1 : 1,
			    sizeof(*p->fds));
	for (p->idcap = 16; p->idcap < 2 * p->nuprobes * per_cpu; p->idcap *= 2)
		;
	p->ids = ot_xcalloc(p->idcap, sizeof(*p->ids));
	return p;
}

int ot_probes_arm(const struct ot_probe_target *t, size_t n,
		  const struct ot_probes_opts *o, struct ot_probes **out)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), data = o->ring_kb * 1024;
	enum ot_backend b = o->backend;
	struct ot_umulti *multi = NULL;
	struct ot_probes *p;
	unsigned retbit = 0, ncpus;
	int type = 0, *cpus = NULL, ret;

	*out = NULL;
	if (data < page || (data & (data - 1))) {
		ot_error("ring size %zu KB is not a power-of-two multiple of the %zu-byte page",
			 o->ring_kb, page);
		return -EINVAL;
	}
	ret = online_cpus(&cpus, &ncpus);
	if (ret) {
		ot_error_errno(-ret, "cannot read /sys/devices/system/cpu/online");
		free(cpus);
		return ret;
	}
	if (b != OT_BACKEND_PERF) {
		char why[256];

		ret = ot_umulti_load(&multi, why, sizeof(why));
		if (ret && b == OT_BACKEND_MULTI) {
			ot_error("cannot use the multi backend: %s", why);
			free(cpus);
			return ret;
		}
		if (ret)
			ot_verbose("multi backend unavailable (%s): using perf", why);
		b = ret ? OT_BACKEND_PERF : OT_BACKEND_MULTI;
	}
	if (b == OT_BACKEND_PERF) {
		ret = ot_uprobe_pmu(&type, &retbit);
		if (ret) {
			ot_error_errno(-ret, "cannot use the uprobe PMU (%s)", OT_PMU_DIR);
			free(cpus);
			return ret;
		}
	}
	p = probes_new(b, cpus, ncpus, t, n);
	p->multi = multi;
	free(cpus);
	if (b == OT_BACKEND_PERF)
		raise_nofile(p->ncpus * (p->nuprobes + 2));
	ret = open_rings(p, page, o->ring_kb);
	if (!ret)
		ret = b == OT_BACKEND_MULTI ? arm_multi(p, t, n, o->pid) :
					      arm_perf(p, t, n, type, retbit);
	if (ret) {
		ot_probes_close(p);
		return ret;
	}
	*out = p;
	return 0;
}

enum ot_backend ot_probes_backend(const struct ot_probes *p)
{
	return p->backend;
}

static int set_leaders(struct ot_probes *p, int returns, unsigned long req)
{
	unsigned c;

	for (c = 0; c < p->ncpus; c++) {
		int fd = returns ? p->cpus[c].ret_leader : p->cpus[c].ent_leader;

		if (fd >= 0 && ioctl(fd, req, 0))
			return -errno;
	}
	return 0;
}

int ot_probes_enable(struct ot_probes *p)
{
	int ret;

	if (p->multi) {
		ot_umulti_enable(p->multi, 0, 1);
		ot_umulti_enable(p->multi, 1, 1);
		return 0;
	}
	ret = set_leaders(p, 1, PERF_EVENT_IOC_ENABLE);

	if (!ret)
		ret = set_leaders(p, 0, PERF_EVENT_IOC_ENABLE);
	if (ret)
		ot_error_errno(-ret, "cannot enable the probes");
	return ret;
}

void ot_probes_disable(struct ot_probes *p)
{
	if (p->multi) {
		ot_umulti_enable(p->multi, 0, 1);
		ot_umulti_enable(p->multi, 0, 0);
		return;
	}
	set_leaders(p, 0, PERF_EVENT_IOC_DISABLE);
	set_leaders(p, 1, PERF_EVENT_IOC_DISABLE);
}

void ot_probes_close(struct ot_probes *p)
{
	unsigned c;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nfds; i++)
		close(p->fds[i]);
	/* Links before rings: no hit may look for a ring being closed. */
	ot_umulti_close(p->multi);
	for (c = 0; c < p->ncpus; c++) {
		struct cpu_slot *s = &p->cpus[c];

		if (s->map) {
			ot_ring_fini(&s->ring);
			munmap(s->map, s->map_len);
		}
		if (s->ent_leader >= 0)
			close(s->ent_leader);
		if (s->ret_leader >= 0)
			close(s->ret_leader);
	}
	free(p->cpus);
	free(p->fds);
	free(p->ids);
	free(p);
}

unsigned ot_probes_ncpus(const struct ot_probes *p)
{
	return p->ncpus;
}

struct ot_ring *ot_probes_ring(struct ot_probes *p, unsigned i)
{
	return &p->cpus[i].ring;
}

int ot_probes_ring_fd(const struct ot_probes *p, unsigned i)
{
	return p->cpus[i].ret_leader;
}

size_t ot_probes_nevents(const struct ot_probes *p)
{
	return p->multi ? ot_umulti_nlinks(p->multi) : p->nfds;
}

size_t ot_probes_nuprobes(const struct ot_probes *p)
{
	return p->nuprobes;
}
