#include "uprobe.h"
#include "caps.h"
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
	struct cpu_slot *cpus;
	unsigned ncpus;
	int *fds;
	size_t nfds;
	struct id_slot *ids;
	size_t idcap;
	size_t nuprobes;
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
	if (err == EMFILE || err == ENFILE)
		return " (too many open files: RLIMIT_NOFILE)";
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

static int open_leader(int cpu)
{
	struct perf_event_attr a;

	base_attr(&a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	return perf_open(&a, cpu, -1);
}

int ot_probes_arm(const struct ot_probe_target *t, size_t n, size_t ring_kb,
		  struct ot_probes **out)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), data = ring_kb * 1024, i;
	struct ot_probes *p;
	unsigned retbit, c;
	int type, *cpus = NULL, ret;

	*out = NULL;
	ret = ot_uprobe_pmu(&type, &retbit);
	if (ret) {
		ot_error_errno(-ret, "cannot use the uprobe PMU (%s)", OT_PMU_DIR);
		return ret;
	}
	if (data < page || (data & (data - 1))) {
		ot_error("ring size %zu KB is not a power-of-two multiple of the %zu-byte page",
			 ring_kb, page);
		return -EINVAL;
	}
	p = ot_xcalloc(1, sizeof(*p));
	ret = online_cpus(&cpus, &p->ncpus);
	if (ret) {
		ot_error_errno(-ret, "cannot read /sys/devices/system/cpu/online");
		free(p);
		return ret;
	}
	for (i = 0; i < n; i++)
		p->nuprobes += 1 + (t[i].ret_sites ? t[i].nret_sites : 1);
	raise_nofile(p->ncpus * (p->nuprobes + 2));
	p->cpus = ot_xcalloc(p->ncpus, sizeof(*p->cpus));
	for (c = 0; c < p->ncpus; c++)
		p->cpus[c].ret_leader = p->cpus[c].ent_leader = -1;
	p->fds = ot_xcalloc(p->nuprobes * p->ncpus + 1, sizeof(*p->fds));
	for (p->idcap = 16; p->idcap < 2 * p->nuprobes * p->ncpus; p->idcap *= 2)
		;
	p->ids = ot_xcalloc(p->idcap, sizeof(*p->ids));

	for (c = 0; c < p->ncpus; c++) {
		struct cpu_slot *s = &p->cpus[c];

		s->cpu = cpus[c];
		s->ret_leader = open_leader(s->cpu);
		s->ent_leader = s->ret_leader >= 0 ? open_leader(s->cpu) : -1;
		if (s->ent_leader < 0) {
			ret = -errno;
			ot_error_errno(errno, "cannot open a perf event on CPU %d%s",
				       s->cpu, arm_hint(errno));
			goto fail;
		}
		s->map_len = page + data;
		s->map = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE,
			      MAP_SHARED, s->ret_leader, 0);
		if (s->map == MAP_FAILED) {
			s->map = NULL;
			ret = -errno;
			ot_error_errno(errno, "cannot map a %zu KB ring on CPU %d%s",
				       ring_kb, s->cpu,
				       errno == EPERM ? " (perf_event_mlock_kb; needs CAP_IPC_LOCK)" : "");
			goto fail;
		}
		ot_ring_init(&s->ring, s->map, page, data);
		if (ioctl(s->ent_leader, PERF_EVENT_IOC_SET_OUTPUT, s->ret_leader)) {
			ret = -errno;
			ot_error_errno(errno, "cannot share the ring on CPU %d", s->cpu);
			goto fail;
		}
	}

	for (i = 0; i < n; i++) {
		size_t nret = t[i].ret_sites ? t[i].nret_sites : 1, k;

		for (c = 0; c < p->ncpus; c++) {
			struct cpu_slot *s = &p->cpus[c];

			/* Return probes first: they go in the group enabled first. */
			for (k = 0; k <= nret; k++) {
				int kind = k == nret ? OT_PROBE_ENTRY :
					   t[i].ret_sites ? OT_PROBE_RET_INSN : OT_PROBE_URETPROBE;
				uint64_t off = kind == OT_PROBE_RET_INSN ? t[i].ret_sites[k] : t[i].offset;
				struct perf_event_attr a;
				uint64_t id;
				int fd;

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
					ret = -errno;
					ot_error_errno(errno, "cannot arm %s on %s (+0x%llx)%s",
						       kind == OT_PROBE_URETPROBE ? "uretprobe" :
						       kind == OT_PROBE_RET_INSN ? "return-instruction uprobe" :
						       "uprobe", t[i].label, (unsigned long long)off,
						       arm_hint(errno));
					goto fail;
				}
				p->fds[p->nfds++] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->ret_leader) ||
				    ioctl(fd, PERF_EVENT_IOC_ID, &id)) {
					ret = -errno;
					ot_error_errno(errno, "cannot set up %s on CPU %d",
						       t[i].label, s->cpu);
					goto fail;
				}
				id_insert(p, id, (uint32_t)i, kind);
			}
		}
	}
	free(cpus);
	*out = p;
	return 0;
fail:
	free(cpus);
	ot_probes_close(p);
	return ret;
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
	int ret = set_leaders(p, 1, PERF_EVENT_IOC_ENABLE);

	if (!ret)
		ret = set_leaders(p, 0, PERF_EVENT_IOC_ENABLE);
	if (ret)
		ot_error_errno(-ret, "cannot enable the probes");
	return ret;
}

void ot_probes_disable(struct ot_probes *p)
{
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

size_t ot_probes_nevents(const struct ot_probes *p)
{
	return p->nfds;
}

size_t ot_probes_nuprobes(const struct ot_probes *p)
{
	return p->nuprobes;
}
