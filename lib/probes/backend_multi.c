/*
 * The multi backend: uprobe_multi BPF links.
 *
 * One link attaches a BPF program to many offsets of one file in one
 * system call, and releasing it unregisters them together: the kernel's
 * batched answer to the perf backend's grace periods per fd (see
 * docs/benchmarks.md, "Arming cost").  One link per file, process and kind
 * of probe, filtered by pid in the kernel (new threads included,
 * bystanders untouched).  The program (uprobe_multi.bpf.c) writes each hit
 * into a BPF output event's ring per CPU; the probe id is the link's
 * cookie for the offset.  Enabling and disabling flip a word of the
 * program's .bss: no system call, no IPI.
 *
 * The kernel's pid filter follows the task that led the process when a
 * link was made; an exec from another thread ends that task, and the new
 * program would run unprobed.  A hook on the exec tracepoint
 * (ot_exec_watch) sees it first and may stop the process; the links are
 * made again for the new leader and the process continued (watch_poll).
 *
 * Return probes are uprobe sessions where the kernel has them (Linux
 * 6.13): the program declines, at the call, a return the kernel's one
 * chain of return probes per thread could not follow (a call on a fiber's
 * stack), which would kill the program; each decline is counted and said
 * (multi_say).  Older kernels: plain return probes, unguarded.
 *
 * Needs a kernel with BPF_TRACE_UPROBE_MULTI (Linux 6.6) and CAP_BPF +
 * CAP_PERFMON (or CAP_SYS_ADMIN).
 */
#include "backend.h"
#include "backend_figs.h"
#include "bpf_record.h"
#include "arch/arch.h"
#include "util/clock.h"
#include "util/error.h"
#include "process/procfs.h"
#include "util/xalloc.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The program, compiled by clang -target bpf (lib/probes/uprobe_multi_obj.S). */
extern const unsigned char ot_umulti_obj[], ot_umulti_obj_end[];

/*
 * Debian 12's libbpf (1.1) predates uprobe_multi (libbpf 1.3): it loads the
 * program, but the link is created here with bpf(BPF_LINK_CREATE), using
 * the kernel's layout of union bpf_attr's link_create.uprobe_multi (Linux
 * 6.6, include/uapi/linux/bpf.h), which Debian 12's headers lack too.
 */
#define OT_BPF_TRACE_UPROBE_MULTI 48
#define OT_BPF_F_UPROBE_MULTI_RETURN 1u
/* Uprobe sessions (Linux 6.13): one program at the call and at the return,
 * the call's answer deciding whether the return is probed. */
#define OT_BPF_TRACE_UPROBE_SESSION 57

struct ot_link_create_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t umulti_flags;
	uint32_t pid;
	uint32_t pad;
};

/* One link, and what made it: a link filtering on a pid is made again
 * when that process execs from a thread other than its first. */
struct umulti_link {
	int fd;			/* -1: it could not be made again */
	int kind;		/* enum ot_umulti_kind */
	pid_t pid;		/* its filter, 0 none */
	int path_fd;		/* pid > 0: the file, held (O_PATH), or -1 */
	char *path;		/* path_fd's /proc/self/fd link, else as armed */
	uint64_t *offsets, *cookies;
	uint64_t *ref_ctrs;	/* semaphores (USDT), or NULL: none */
	size_t n;
};

/* uprobe_multi.bpf.c's struct ot_watch, and its OT_UNHELD_* in order. */
struct umulti_watch {
	uint32_t tgid, stop_sig, cont_sig, why;
	uint64_t events;	/* execs + (those stopped) << 32 */
};

static const char *const unheld_why[] = {
	NULL,
	"--freeze holds a -p process there instead",
	"it was being traced (ptrace), so it was not stopped there",
	"it blocked SIGCONT, so it was not stopped there",
	"the kernel would not stop it there",
	"it did not stay stopped there",	/* seen by user space */
};
#define UNHELD_NOT_STOPPED 5

struct ot_umulti {
	struct bpf_object *obj;
	int entry_fd, return_fd, rings_fd;
	/* Return probes as guarded sessions (ot_session), or -1 where the
	 * kernel has none (plain uretprobes, unguarded); their declines. */
	int session_fd, guard_fd;
	volatile uint32_t *enabled;	/* the program's .bss, mapped here */
	size_t enabled_len;
	struct umulti_link *links;
	size_t nlinks;
	/* The process whose links filter on its pid, watched for execs from
	 * a thread other than its first (ot_exec_watch): the program's
	 * ot_watch, mapped here. */
	struct umulti_watch *watch;
	size_t watch_len;
	struct bpf_link *exec_hook;
	uint32_t seen_execs, seen_stops;	/* of watch->events, acted on */
	uint64_t polled_ns;			/* when it was last read */
	struct ot_probes_thread_execs texecs;
	uint64_t last_cookie;	/* probe ids are cookies 1, 2, ... */
	int specs_fd;		/* ot_usdt_specs: USDT operands, by index */
	uint32_t nspecs;
	/* --follow, -p PID,PID...: the probes keep to ot_followed's processes;
	 * its fork (--follow alone), exec and exit hooks; its drops. */
	int follow;
	struct bpf_link *hooks[3];
	int followed_fd, stats_fd;
	/* -a: ot_comms, each process's name at its latest traced call. */
	int all;
	int comms_fd;
	int cgroup;		/* --cgroup: the probes keep to ot_cgroup's */
	int owner;		/* the probes keep to ot_owner's processes */
};

/* uprobe_multi.bpf.c's struct ot_followed_proc and its states. */
struct followed_proc {
	uint32_t state, ppid;
	char comm[16];
};

#define FOLLOW_LIVE 1
#define FOLLOW_EXITED 2
static const char *const follow_hooks[] = { "ot_fork", "ot_exec", "ot_exit" };

/* libbpf explains refusals (the verifier log, missing kernel features) on
 * this callback; keep them for -v instead of the user's terminal. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	char buf[512];

	if (level == LIBBPF_DEBUG || ot_error_verbosity() < 1)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = 0;
	ot_verbose("%s", buf); /* libbpf's messages name it already */
	return 0;
}

enum ot_umulti_kind {
	OT_UMULTI_ENTRY,	/* uprobes at function entries */
	OT_UMULTI_RET_INSN,	/* uprobes on return instructions */
	OT_UMULTI_URETPROBE,	/* uretprobes */
};

static int link_create(const struct ot_umulti *m, const char *path,
		       enum ot_umulti_kind kind, const uint64_t *offsets,
		       const uint64_t *cookies, const uint64_t *ref_ctrs, size_t n, pid_t pid)
{
	/* Return probes as sessions where the kernel has them: no return
	 * flag, the program's answer at each call decides. */
	int session = kind == OT_UMULTI_URETPROBE && m->session_fd >= 0;
	struct ot_link_create_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)(session ? m->session_fd :
			       kind == OT_UMULTI_ENTRY ? m->entry_fd : m->return_fd);
	a.attach_type = session ? OT_BPF_TRACE_UPROBE_SESSION : OT_BPF_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offsets;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.ref_ctr_offsets = (uint64_t)(uintptr_t)ref_ctrs;
	a.cnt = (uint32_t)n;
	a.umulti_flags = kind == OT_UMULTI_URETPROBE && !session ? OT_BPF_F_UPROBE_MULTI_RETURN : 0;
	a.pid = pid > 0 ? (uint32_t)pid : 0;
	return (int)syscall(SYS_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

/*
 * Whether the kernel creates uprobe_multi links at all, so that --backend
 * auto can fall back before anything is armed: a link to a file that does
 * not exist fails with ENOENT where they exist, and with EINVAL (unknown
 * attach type) or EOPNOTSUPP (no CONFIG_UPROBES) where they do not.
 */
static int probe_link(const struct ot_umulti *m)
{
	static const uint64_t zero;
	int fd = link_create(m, "/nonexistent/orbit-trace-probe", OT_UMULTI_ENTRY,
			     &zero, NULL, NULL, 1, 0);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno == EINVAL || errno == EOPNOTSUPP ? -errno : 0;
}

/* ot_watch, read and written through a mapping (BPF_F_MMAPABLE). */
static int map_watch(struct ot_umulti *m)
{
	struct bpf_map *map = bpf_object__find_map_by_name(m->obj, "ot_watch");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *v;

	if (!map || bpf_map__value_size(map) != sizeof(*m->watch))
		return -EINVAL;
	m->watch_len = (bpf_map__value_size(map) + page - 1) / page * page;
	v = mmap(NULL, m->watch_len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);
	if (v == MAP_FAILED)
		return -errno;
	m->watch = v;
	return 0;
}

/*
 * Whether the kernel has uprobe sessions (the attach type and the kfunc
 * ot_session calls, Linux 6.13), from its BTF: without them return probes
 * are plain uretprobes, as before, unguarded.
 */
static int kernel_has_sessions(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	int id, found = 0;

	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, "bpf_attach_type", BTF_KIND_ENUM);
	if (id > 0 && btf__find_by_name_kind(btf, "bpf_session_is_return", BTF_KIND_FUNC) > 0) {
		const struct btf_enum *e;
		int k;

		t = btf__type_by_id(btf, (__u32)id);
		e = btf_enum(t);
		for (k = 0; k < btf_vlen(t) && !found; k++)
			found = !strcmp(btf__name_by_offset(btf, e[k].name_off),
					"BPF_TRACE_UPROBE_SESSION") &&
				e[k].val == OT_BPF_TRACE_UPROBE_SESSION;
	}
	btf__free(btf);
	return found;
}

/*
 * Before loading: the probes' "kprobe" programs made uprobe_multi ones by
 * their attach type; --follow's hooks loaded only for it, ot_exec_watch
 * always (an exec from a thread: see watch_poll); the rings sized to the
 * CPUs, the tables an option does not use to one entry.  0, or -EINVAL.
 */
static int configure(struct ot_umulti *m, int follow, int all, char *why, size_t whylen)
{
	int ncpu_ids = libbpf_num_possible_cpus();
	struct bpf_program *prog;
	struct bpf_map *map;

	bpf_object__for_each_program(prog, m->obj) {
		if (!strcmp(bpf_program__name(prog), "ot_session")) {
			bpf_program__set_autoload(prog, m->session_fd == 0);
			bpf_program__set_expected_attach_type(prog,
				(enum bpf_attach_type)OT_BPF_TRACE_UPROBE_SESSION);
		} else if (!strncmp(bpf_program__name(prog), "ot_entry", 9) ||
		    !strncmp(bpf_program__name(prog), "ot_return", 10))
			bpf_program__set_expected_attach_type(prog,
				(enum bpf_attach_type)OT_BPF_TRACE_UPROBE_MULTI);
		else if (strcmp(bpf_program__name(prog), "ot_exec_watch"))
			bpf_program__set_autoload(prog, follow);
	}
	map = bpf_object__find_map_by_name(m->obj, "ot_rings");
	if (!map || ncpu_ids <= 0 || bpf_map__set_max_entries(map, (uint32_t)ncpu_ids)) {
		snprintf(why, whylen, "the embedded program has no ring map");
		return -EINVAL;
	}
	/* Without --follow its table is never used: one entry, not 65,536. */
	if (!follow)
		bpf_map__set_max_entries(bpf_object__find_map_by_name(m->obj, "ot_followed"), 1);
	if (!all)
		bpf_map__set_max_entries(bpf_object__find_map_by_name(m->obj, "ot_comms"), 1);
	return 0;
}

/* The embedded object opened, configured and loaded into m->obj (NULL on
 * failure).  0, or -errno with why. */
static int open_load(struct ot_umulti *m, int follow, int all, char *why, size_t whylen)
{
	int ret;

	m->obj = bpf_object__open_mem(ot_umulti_obj,
				      (size_t)(ot_umulti_obj_end - ot_umulti_obj), NULL);
	if (!m->obj) {
		ret = -errno;
		snprintf(why, whylen, "libbpf cannot open the embedded program: %s",
			 strerror(errno));
		return ret;
	}
	ret = configure(m, follow, all, why, whylen);
	if (!ret && (ret = bpf_object__load(m->obj)))
		snprintf(why, whylen, "the kernel refused the BPF program: %s%s",
			 strerror(-ret),
			 ret == -EPERM ? " (needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)" : "");
	if (ret) {
		bpf_object__close(m->obj);
		m->obj = NULL;
	}
	return ret;
}

static int ot_umulti_load(struct ot_umulti **out, int follow, int all, char *why,
			  size_t whylen)
{
	struct ot_umulti *m = ot_xcalloc(1, sizeof(*m));
	struct bpf_map *map;
	int ret;

	*out = NULL;
	m->entry_fd = m->return_fd = m->rings_fd = m->followed_fd = m->stats_fd = -1;
	m->guard_fd = -1;
	m->session_fd = kernel_has_sessions() ? 0 : -1;	/* 0: to load (configure) */
	if (m->session_fd < 0)
		ot_verbose("this kernel has no uprobe sessions (Linux < 6.13): return probes are "
			   "not guarded against a stack switch no scan names");
	m->follow = follow;
	m->all = all;
	libbpf_set_print(libbpf_print);
	ret = open_load(m, follow, all, why, whylen);
	if (ret && ret != -EPERM && !m->session_fd) {
		/* A kernel with sessions that refuses the guard's program
		 * (its helpers, its kfunc): plain return probes, said. */
		ot_verbose("%s: without ot_session, return probes not guarded", why);
		m->session_fd = -1;
		ret = open_load(m, follow, all, why, whylen);
	}
	if (ret) {
		free(m);
		return ret;
	}
	m->rings_fd = bpf_map__fd(bpf_object__find_map_by_name(m->obj, "ot_rings"));
	if (follow) {
		m->followed_fd = bpf_map__fd(bpf_object__find_map_by_name(m->obj, "ot_followed"));
		m->stats_fd = bpf_map__fd(bpf_object__find_map_by_name(m->obj, "ot_follow_stats"));
	}
	m->comms_fd = bpf_map__fd(bpf_object__find_map_by_name(m->obj, "ot_comms"));
	m->specs_fd = bpf_map__fd(bpf_object__find_map_by_name(m->obj, "ot_usdt_specs"));
	m->entry_fd = bpf_program__fd(bpf_object__find_program_by_name(m->obj, "ot_entry"));
	m->return_fd = bpf_program__fd(bpf_object__find_program_by_name(m->obj, "ot_return"));
	if (!m->session_fd) {
		m->session_fd = bpf_program__fd(bpf_object__find_program_by_name(m->obj,
										  "ot_session"));
		m->guard_fd = bpf_map__fd(bpf_object__find_map_by_name(m->obj, "ot_guard_stats"));
		if (m->session_fd < 0 || m->guard_fd < 0)
			m->session_fd = m->guard_fd = -1;
	}
	/*
	 * libbpf 1.1 maps .bss onto the kernel's array only for skeletons; here
	 * its copy is private, so map the array itself (BPF_F_MMAPABLE).
	 */
	map = bpf_object__find_map_by_name(m->obj, ".bss");
	if (map && (bpf_map__map_flags(map) & BPF_F_MMAPABLE)) {
		m->enabled_len = (size_t)sysconf(_SC_PAGESIZE);
		void *v = mmap(NULL, m->enabled_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			       bpf_map__fd(map), 0);
		m->enabled = v == MAP_FAILED ? NULL : v;
	}
	if (!m->enabled || m->entry_fd < 0 || m->return_fd < 0) {
		snprintf(why, whylen, "cannot map the program's switch (.bss): %s",
			 strerror(errno));
		ret = -EINVAL;
		goto fail;
	}
	ret = map_watch(m);
	if (ret) {
		snprintf(why, whylen, "cannot map the program's table of watched processes: %s",
			 strerror(-ret));
		goto fail;
	}
	ret = probe_link(m);
	if (ret) {
		snprintf(why, whylen, "this kernel has no uprobe_multi links: %s%s",
			 strerror(-ret), ret == -EINVAL ? " (Linux < 6.6?)" :
			 ret == -EOPNOTSUPP ? " (CONFIG_UPROBES off?)" : "");
		goto fail;
	}
	*out = m;
	return 0;
fail:
	bpf_object__close(m->obj);
	free(m);
	return ret;
}

static int ot_umulti_set_ring(struct ot_umulti *m, int cpu, int fd)
{
	return bpf_map_update_elem(m->rings_fd, &cpu, &fd, BPF_ANY) ? -errno : 0;
}

static int ot_umulti_attach(struct ot_umulti *m, const char *path,
		     enum ot_umulti_kind kind, const uint64_t *offsets,
		     const uint64_t *cookies, const uint64_t *ref_ctrs, size_t n, pid_t pid)
{
	struct umulti_link *l;
	int fd;

	if (!n)
		return 0;
	fd = link_create(m, path, kind, offsets, cookies, ref_ctrs, n, pid);
	if (fd < 0)
		return -errno;
	m->links = ot_xreallocarray(m->links, m->nlinks + 1, sizeof(*m->links));
	l = &m->links[m->nlinks++];
	l->fd = fd;
	l->kind = (int)kind;
	l->pid = pid;
	l->n = n;
	/*
	 * The same file when made again, not what the path names then: a -p
	 * process's main program is /proc/PID/exe, which the exec itself
	 * changes, and which we may no longer open once privileges are gone.
	 * Our own descriptor's magic link needs no privilege.
	 */
	l->path_fd = pid > 0 ? open(path, O_PATH | O_CLOEXEC) : -1;
	if (l->path_fd >= 0) {
		char fdpath[32];

		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", l->path_fd);
		l->path = ot_xstrdup(fdpath);
	} else {
		l->path = ot_xstrdup(path);
	}
	l->offsets = ot_xmalloc(n * sizeof(*offsets));
	memcpy(l->offsets, offsets, n * sizeof(*offsets));
	l->cookies = ot_xmalloc(n * sizeof(*cookies));
	memcpy(l->cookies, cookies, n * sizeof(*cookies));
	l->ref_ctrs = NULL;
	if (ref_ctrs) {
		l->ref_ctrs = ot_xmalloc(n * sizeof(*ref_ctrs));
		memcpy(l->ref_ctrs, ref_ctrs, n * sizeof(*ref_ctrs));
	}
	return 0;
}

/*
 * pid's links made again, now that a thread other than its first exec'd:
 * the old ones go first, since their program would still run, with the
 * same cookies, on any breakpoint the new ones plant (the kernel checks a
 * hit against the old leader's signal_struct, which the process keeps).
 * Returns 0 or the first -errno (-ESRCH: the process has gone).
 */
static int relink(struct ot_umulti *m, pid_t pid)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < m->nlinks; i++) {
		struct umulti_link *l = &m->links[i];

		if (l->pid != pid)
			continue;
		if (l->fd >= 0)
			close(l->fd);
		l->fd = link_create(m, l->path, (enum ot_umulti_kind)l->kind, l->offsets,
				    l->cookies, l->ref_ctrs, l->n, pid);
		if (l->fd < 0 && !ret)
			ret = -errno;
	}
	return ret;
}

static void ot_umulti_enable(struct ot_umulti *m, int entries, int returns)
{
	__atomic_store_n(m->enabled, (entries ? 1u : 0u) | (returns ? 2u : 0u) |
			 (m->follow ? 4u : 0u) | (m->all ? 8u : 0u) | (m->cgroup ? 16u : 0u) |
			 (m->owner ? 32u : 0u),
			 __ATOMIC_SEQ_CST);
}

static size_t ot_umulti_nlinks(const struct ot_umulti *m)
{
	return m->nlinks;
}

static void ot_umulti_close(struct ot_umulti *m)
{
	size_t i;

	if (!m)
		return;
	/*
	 * One after another: closed from parallel threads, the links' releases
	 * contend for the kernel's uprobe registration lock (a percpu rwsem)
	 * and wake each other across CPUs - 184 to 1,303 IPIs for 1,000
	 * functions of a stopped target, against 10 in sequence, for no
	 * faster a release (docs/benchmarks.md, "Arming cost").
	 */
	for (i = 0; i < m->nlinks; i++) {
		if (m->links[i].fd >= 0)
			close(m->links[i].fd);
		if (m->links[i].path_fd >= 0)
			close(m->links[i].path_fd);
		free(m->links[i].path);
		free(m->links[i].offsets);
		free(m->links[i].cookies);
		free(m->links[i].ref_ctrs);
	}
	for (i = 0; i < sizeof(m->hooks) / sizeof(*m->hooks); i++)
		bpf_link__destroy(m->hooks[i]);
	if (m->enabled)
		munmap((void *)m->enabled, m->enabled_len);
	if (m->watch)
		munmap(m->watch, m->watch_len);
	bpf_object__close(m->obj);
	free(m->links);
	free(m);
}

/* A process into ot_followed, live, named as /proc names it now. */
static int follow_add(struct ot_umulti *m, uint32_t pid, uint32_t ppid)
{
	struct followed_proc v = { .state = FOLLOW_LIVE, .ppid = ppid };

	(void)ot_proc_comm((pid_t)pid, v.comm, sizeof(v.comm));
	return bpf_map_update_elem(m->followed_fd, &pid, &v, BPF_ANY) ? -errno : 0;
}

/* The processes of a followed one's subtree already there: every process
 * and its parent, read once, added until a pass adds nobody (a fork
 * between the hooks and the roots' entry is among them: /proc lists a
 * child before its parent's fork returns).  One the fork hook has added
 * already is left as the kernel has it (it may have exited meanwhile). */
static void follow_descendants(struct ot_umulti *m, const pid_t *roots, size_t nroots)
{
	struct followed_proc v;
	size_t i, n = 0, cap = 0;
	uint32_t *pids = NULL;	/* pid, parent, pid, parent... */
	struct dirent *e;
	int more;
	DIR *d = opendir("/proc");

	while (d && (e = readdir(d))) {
		char *end, path[300], state;
		unsigned long q = strtoul(e->d_name, &end, 10);
		uint32_t pp;

		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (*end || !q || ot_proc_stat(path, &state, &pp) || !pp)
			continue;
		for (i = 0; i < nroots && (uint32_t)roots[i] != q; i++)
			;
		if (i < nroots)
			continue;
		if (n == cap)
			pids = ot_xreallocarray(pids, cap = cap ? 2 * cap : 256, 2 * sizeof(*pids));
		pids[2 * n] = (uint32_t)q;
		pids[2 * n++ + 1] = pp;
	}
	if (d)
		closedir(d);
	do {
		more = 0;
		for (i = 0; i < n; i++) {
			if (!pids[2 * i] || !bpf_map_lookup_elem(m->followed_fd, &pids[2 * i], &v) ||
			    bpf_map_lookup_elem(m->followed_fd, &pids[2 * i + 1], &v))
				continue;
			if (!follow_add(m, pids[2 * i], pids[2 * i + 1]))
				more = 1;
			pids[2 * i] = 0;
		}
	} while (more);
	free(pids);
}

/*
 * --follow from pids[0], or the n processes of -p PID,PID... (forks 0):
 * the hooks first (the fork hook only to follow), then the processes,
 * then with forks the descendants they already have.
 */
static int follow_start(struct ot_umulti *m, const pid_t *pids, size_t n, int forks)
{
	const char *what = forks ? "--follow" : "-p PID,PID...";
	size_t i;
	int ret;
	struct stat st;

	/*
	 * The hooks see pids of the initial namespace: ours must be those.
	 * Its inode is fixed (PROC_PID_INIT_INO, include/linux/proc_ns.h),
	 * and /proc/self/ns says it whichever /proc is mounted.
	 */
	if (!stat("/proc/self/ns/pid", &st) && st.st_ino != 0xEFFFFFFCu) {
		ot_error("%s: orbit-trace runs in a nested PID namespace (a container), "
			 "whose pids the kernel's hooks do not see", what);
		return -EOPNOTSUPP;
	}
	for (i = !forks; i < sizeof(follow_hooks) / sizeof(*follow_hooks); i++) {
		struct bpf_program *prog = bpf_object__find_program_by_name(m->obj,
									    follow_hooks[i]);

		m->hooks[i] = prog ? bpf_program__attach(prog) : NULL;
		if (!m->hooks[i]) {
			ret = -errno;
			ot_error_errno(-ret, "%s: cannot attach %s to the scheduler's "
				       "tracepoint", what, follow_hooks[i]);
			return ret;
		}
	}
	for (i = 0; i < n; i++) {
		ret = follow_add(m, (uint32_t)pids[i], 0);
		if (ret) {
			ot_error_errno(-ret, "%s: cannot follow process %d", what, (int)pids[i]);
			return ret;
		}
	}
	if (forks)
		follow_descendants(m, pids, n);
	return 0;
}

static int multi_follow_poll(struct ot_probes *p, int all,
			     void (*fn)(void *ctx, const struct ot_follow_proc *proc),
			     void *ctx, uint64_t *dropped)
{
	struct ot_umulti *m = p->priv;
	uint32_t key, next, *keys = NULL, zero = 0;
	size_t n = 0, cap = 0, i;
	int alive = 0, more;

	if (bpf_map_lookup_elem(m->stats_fd, &zero, dropped))
		*dropped = 0;
	/* Keys first: deleting while walking a hash restarts the walk. */
	for (more = !bpf_map_get_next_key(m->followed_fd, NULL, &next); more;
	     more = !bpf_map_get_next_key(m->followed_fd, &key, &next)) {
		if (n == cap)
			keys = ot_xreallocarray(keys, cap = cap ? 2 * cap : 64, sizeof(*keys));
		keys[n++] = key = next;
	}
	for (i = 0; i < n; i++) {
		struct followed_proc v;
		struct ot_follow_proc out = { .pid = keys[i] };

		if (bpf_map_lookup_elem(m->followed_fd, &keys[i], &v))
			continue;
		out.ppid = v.ppid;
		memcpy(out.comm, v.comm, sizeof(out.comm));
		out.comm[sizeof(out.comm) - 1] = 0;
		out.exited = v.state != FOLLOW_LIVE;
		if (out.exited || all)
			fn(ctx, &out);
		if (out.exited)
			bpf_map_delete_elem(m->followed_fd, &keys[i]);
		else
			alive++;
	}
	free(keys);
	return alive;
}

/* -a: the process's name at its latest traced call, from ot_comms;
 * --follow, -p PID,PID...: its name as the kernel's table of followed
 * processes has it (its parent's at the fork, its own after an exec),
 * until the exit is reported - so a child gone before its records are
 * drained still has a name. */
static int multi_comm(struct ot_probes *p, uint32_t pid, char *buf, size_t len)
{
	struct ot_umulti *m = p->priv;
	struct followed_proc v;
	char comm[16];

	if (!m || len == 0)
		return -ENOENT;
	if (m->all && !bpf_map_lookup_elem(m->comms_fd, &pid, comm)) {
		comm[sizeof(comm) - 1] = 0;
		snprintf(buf, len, "%s", comm);
		return 0;
	}
	if (m->follow && m->followed_fd >= 0 && !bpf_map_lookup_elem(m->followed_fd, &pid, &v) &&
	    v.comm[0]) {
		v.comm[sizeof(v.comm) - 1] = 0;
		snprintf(buf, len, "%s", v.comm);
		return 0;
	}
	return -ENOENT;
}

/* uprobe_multi.bpf.c's struct ot_usdt_spec. */
struct usdt_spec {
	uint8_t kind, size, is_signed, shift;
	int16_t reg_off, idx_off;
	uint32_t scale;
	int64_t off;
};

/* Where struct pt_regs keeps each register, by perf number. */
static int16_t pt_regs_off(int reg)
{
	return (int16_t)ot_arch_pt_regs_off(reg);
}

/* Operand a into the program's table: its index, or -errno after printing. */
static int64_t usdt_spec(struct ot_umulti *um, const struct ot_usdt_arg *a, const char *label)
{
	struct usdt_spec s = {
		.kind = (uint8_t)a->kind, .size = a->size, .is_signed = a->is_signed,
		.shift = a->shift, .reg_off = pt_regs_off(a->reg), .idx_off = pt_regs_off(a->idx),
		.scale = a->kind == OT_USDT_ARG_DEREF ? a->member : a->scale, .off = a->off,
	};
	uint32_t idx = um->nspecs;

	if (idx >= 4096 || bpf_map_update_elem(um->specs_fd, &idx, &s, BPF_ANY)) {
		int err = idx >= 4096 ? E2BIG : errno;

		ot_error_errno(err, "cannot give the BPF program %s's argument", label);
		return -err;
	}
	um->nspecs++;
	return idx;
}

/*
 * One probe for a link: its offset, and a fresh cookie as its id, whose top
 * byte tells the BPF program which register to record (OT_VALUE_*), and
 * bits 32-47 a USDT site's operand (OT_VALUE_USDT).  0 or -errno.
 */
static int link_probe(struct ot_probes *p, uint64_t *off, uint64_t *cookie, uint64_t *ref,
		      size_t *m, const struct ot_probe_target *t, size_t target, size_t r)
{
	struct ot_umulti *um = p->priv;
	uint64_t offset;
	int64_t spec = 0;
	int kind, value, str;

	ot_probes_target_probe(t, r, &kind, &offset);
	value = ot_probes_target_value(t, kind);
	if (value == OT_VALUE_USDT &&
	    (spec = usdt_spec(um, kind == OT_PROBE_POINT ? &t->point_args[r] :
			      (kind & 0xff) == OT_PROBE_VALUE ?
			      &t->more_args[kind >> OT_VALUE_SLOT_SHIFT] : t->entry_arg,
			      t->label)) < 0)
		return (int)spec;
	off[*m] = offset;
	ref[*m] = kind == OT_PROBE_POINT ? t->ref_ctr : 0;
	str = value && ot_probes_target_str(t, kind);
	cookie[*m] = ++um->last_cookie | (uint64_t)spec << 32 | (uint64_t)value << 56 |
		     (str ? OT_PROBE_COOKIE_STR : 0) | (t->go ? OT_PROBE_COOKIE_GO : 0);
	ot_probes_id_insert(p, cookie[*m], (uint32_t)target, kind,
			    value | (str ? OT_VALUE_STR : 0));
	(*m)++;
	return 0;
}

/* The probes of targets idx[0..nidx), which share one file: a link per kind. */
static int attach_file(struct ot_probes *p, const struct ot_probe_target *t,
		       const size_t *idx, size_t nidx, int pid)
{
	/* Returns first, as they are enabled first. */
	static const struct {
		enum ot_umulti_kind link;
		const char *what;
	} kinds[] = {
		{ OT_UMULTI_URETPROBE, "uretprobes" },
		{ OT_UMULTI_RET_INSN, "return-instruction uprobes" },
		{ OT_UMULTI_ENTRY, "entry uprobes" },
	};
	size_t cap = 0, k, x, m, r;
	uint64_t *off, *cookie, *ref;
	int ret = 0, refs;

	for (x = 0; x < nidx; x++)
		cap += ot_probes_target_nprobes(&t[idx[x]]);
	off = ot_xcalloc(cap + 1, sizeof(*off));
	cookie = ot_xcalloc(cap + 1, sizeof(*cookie));
	ref = ot_xcalloc(cap + 1, sizeof(*ref));
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !ret; k++) {
		for (m = 0, refs = 0, x = 0; x < nidx && !ret; x++) {
			const struct ot_probe_target *ti = &t[idx[x]];

			for (r = 0; r < ot_probes_target_nprobes(ti) && !ret; r++) {
				uint64_t o;
				int kind, entry;

				/* A USDT site, a value's probe: an entry's kind. */
				ot_probes_target_probe(ti, r, &kind, &o);
				entry = kind == OT_PROBE_ENTRY || kind == OT_PROBE_POINT ||
					(kind & 0xff) == OT_PROBE_VALUE;
				if ((kinds[k].link == OT_UMULTI_ENTRY) == entry &&
				    (kinds[k].link == OT_UMULTI_URETPROBE) == (kind == OT_PROBE_URETPROBE))
					ret = link_probe(p, off, cookie, ref, &m, ti, idx[x], r);
				refs |= kind == OT_PROBE_POINT && ti->ref_ctr;
			}
		}
		if (ret)
			break;
		/* The kernel raises each semaphore while its uprobe is armed. */
		ret = ot_umulti_attach(p->priv, t[idx[0]].path, kinds[k].link, off, cookie,
				       refs ? ref : NULL, m, pid);
		if (ret)
			ot_error_errno(-ret, "cannot attach %zu %s to %s (first %s)%s", m,
				       kinds[k].what, t[idx[0]].file ? t[idx[0]].file : t[idx[0]].path,
				       t[idx[0]].label,
				       ret == -EINVAL ? " (the kernel refused an offset; --backend perf "
						       "names the function)" : ot_probes_arm_hint(-ret));
	}
	free(off);
	free(cookie);
	free(ref);
	return ret;
}

/*
 * pid watched for execs from a thread other than its first: its slot
 * filled and the hook attached before its links exist, so that no such
 * exec falls between (one before them only has them made again).
 */
static int watch_start(struct ot_probes *p, pid_t pid)
{
	struct ot_umulti *m = p->priv;
	struct bpf_program *prog = bpf_object__find_program_by_name(m->obj, "ot_exec_watch");
	int ret;

	m->watch->stop_sig = p->opts.hold_exec ? SIGSTOP : 0;
	m->watch->cont_sig = SIGCONT;
	__atomic_store_n(&m->watch->tgid, (uint32_t)pid, __ATOMIC_RELEASE);
	m->polled_ns = ot_now_ns();
	m->exec_hook = prog ? bpf_program__attach(prog) : NULL;
	if (!m->exec_hook) {
		ret = errno ? -errno : -ENOENT;
		ot_error_errno(-ret, "cannot attach ot_exec_watch to the scheduler's exec tracepoint");
		return ret;
	}
	return 0;
}

/* Stopped, or a SIGSTOP on its way (it stops before running more): held
 * since the exec, unless someone else continued it and stopped it again. */
static int still_stopped(pid_t pid)
{
	char path[64], pend[32];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!ot_proc_status_field(path, "ShdPnd:", pend, sizeof(pend)) &&
	    ((strtoull(pend, NULL, 16) >> (SIGSTOP - 1)) & 1))
		return 1;
	return ot_proc_state(pid) == 'T';
}

/*
 * The watched process's execs from a thread other than its first since
 * the last look: its links made again for the new program (while the
 * capture runs), then the process continued if the program stopped it.
 * Held, it ran nothing meanwhile; otherwise it ran unprobed since the
 * last look at most.
 */
static void watch_poll(struct ot_probes *p, int rearm)
{
	struct ot_umulti *m = p->priv;
	struct umulti_watch *w = m ? m->watch : NULL;
	uint64_t t0 = ot_now_ns(), ev, now;
	uint32_t execs, stops, why;
	pid_t pid;
	int err = 0, held;

	if (!w || !w->tgid)
		return;
	ev = __atomic_load_n(&w->events, __ATOMIC_ACQUIRE);
	execs = (uint32_t)ev - m->seen_execs;
	stops = (uint32_t)(ev >> 32) - m->seen_stops;
	if (!execs) {
		m->polled_ns = t0;
		return;
	}
	m->seen_execs += execs;
	m->seen_stops += stops;
	pid = (pid_t)w->tgid;
	if (rearm)
		err = relink(m, pid);
	if (err && err != -ESRCH && !m->texecs.rearm_err) {
		m->texecs.rearm_err = -err;
		ot_error_errno(-err, "cannot arm process %d again after it exec'd from a "
			       "thread other than its first", (int)pid);
	}
	held = stops == execs && still_stopped(pid);
	if (stops && kill(pid, SIGCONT) && errno != ESRCH)
		ot_error_errno(errno, "cannot continue process %d, stopped at its exec "
			       "(kill -CONT %d)", (int)pid, (int)pid);
	m->texecs.count += execs;
	if (held) {
		m->texecs.held += execs;
	} else {
		why = stops == execs ? UNHELD_NOT_STOPPED : __atomic_load_n(&w->why, __ATOMIC_RELAXED);
		m->texecs.why = why < sizeof(unheld_why) / sizeof(*unheld_why) ? unheld_why[why] : NULL;
		now = ot_now_ns();
		if (now - m->polled_ns > m->texecs.unprobed_ns)
			m->texecs.unprobed_ns = now - m->polled_ns;
	}
	m->polled_ns = t0;
}

static void multi_events(struct ot_probes *p)
{
	watch_poll(p, p->enabled);
}

static const struct ot_probes_thread_execs *multi_thread_execs(const struct ot_probes *p)
{
	const struct ot_umulti *m = p->priv;

	return m && m->exec_hook ? &m->texecs : NULL;
}

static int multi_arm(struct ot_probes *p, const struct ot_probe_target *t, size_t n, int pid)
{
	size_t *idx = ot_xcalloc(n + 1, sizeof(*idx)), i, j, m;
	char *done = ot_xcalloc(n + 1, 1);
	int ret = 0;

	/* --follow, -p PID,PID...: links for every process, the program keeps
	 * the tree's, or the processes named. */
	if (p->opts.follow || p->opts.npids > 1) {
		pid_t one = (pid_t)pid;

		ret = follow_start(p->priv, p->opts.npids > 1 ? p->opts.pids : &one,
				   p->opts.npids > 1 ? p->opts.npids : 1, p->opts.follow);
		pid = 0;
	} else if (pid > 0) {
		ret = watch_start(p, pid);
	}
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

/* --cgroup: the directory into ot_cgroup, for the program to keep to. */
static int cgroup_set(struct ot_umulti *m, int cgroup_fd, char *why, size_t whylen)
{
	struct bpf_map *map = bpf_object__find_map_by_name(m->obj, "ot_cgroup");
	uint32_t zero = 0, fd = (uint32_t)cgroup_fd;

	if (!map || bpf_map_update_elem(bpf_map__fd(map), &zero, &fd, BPF_ANY)) {
		int err = map ? errno : ENOENT;

		snprintf(why, whylen, "cannot give the BPF program the cgroup: %s", strerror(err));
		return -err;
	}
	m->cgroup = 1;
	return 0;
}

/* A user's capture: the uid and gid into ot_owner, for the program to keep
 * to their processes (before any link exists, so no hit escapes it). */
static int owner_set(struct ot_umulti *m, uint32_t uid, uint32_t gid, char *why,
		     size_t whylen)
{
	struct bpf_map *map = bpf_object__find_map_by_name(m->obj, "ot_owner");
	uint32_t zero = 0, ids[2] = { uid, gid };

	if (!map || bpf_map_update_elem(bpf_map__fd(map), &zero, ids, BPF_ANY)) {
		int err = map ? errno : ENOENT;

		snprintf(why, whylen, "cannot give the BPF program the caller's uid: %s",
			 strerror(err));
		return -err;
	}
	m->owner = 1;
	return 0;
}

static int multi_load(struct ot_probes *p, char *why, size_t whylen)
{
	struct ot_umulti *m;
	int ret;

	/* The kernel binds a link's pid filter to the process's first thread:
	 * ended (pthread_exit, the others running on), no breakpoint is ever
	 * placed for it. */
	if (p->opts.pid > 0 && p->opts.npids <= 1 &&
	    ot_proc_live_task(p->opts.pid) != p->opts.pid) {
		snprintf(why, whylen, "the first thread of process %d has ended, and uprobe_multi's "
			 "filter is bound to it (it would arm nothing)", p->opts.pid);
		return -ESRCH;
	}
	ret = ot_umulti_load(&m, p->opts.follow || p->opts.npids > 1,
			     p->opts.pid <= 0 && !p->opts.follow, why, whylen);
	if (!ret && p->opts.cgroup_fd >= 0)
		ret = cgroup_set(m, p->opts.cgroup_fd, why, whylen);
	if (!ret && p->opts.owner)
		ret = owner_set(m, p->opts.owner_uid, p->opts.owner_gid, why, whylen);
	if (!ret)
		p->priv = m;
	else if (m)
		ot_umulti_close(m);
	return ret;
}

/* A BPF output event: the ring the program writes into. */
static int multi_open_ring(struct ot_probes *p, unsigned c, size_t data)
{
	struct perf_event_attr a;
	int fd, err;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a.sample_period = 1;
	ot_probes_ring_wakeup(&a, data);
	fd = ot_probes_perf_open(p, &a, p->cpus[c].cpu, -1);
	if (fd < 0) {
		err = errno;
		ot_error_errno(err, "cannot open a perf event on CPU %d%s", p->cpus[c].cpu,
			       ot_probes_arm_hint(err));
		return -err;
	}
	return fd;
}

/* The program writes each CPU's ring through its output event alone:
 * that event's drops are the ring's. */
static int multi_rings_lost(const struct ot_probes *p, uint64_t *lost)
{
	unsigned c;
	int ret;

	for (c = 0; c < p->ncpus; c++)
		if ((ret = ot_probes_perf_lost(p->cpus[c].fd, &lost[c])))
			return ret;
	return 0;
}

static int multi_ring_mapped(struct ot_probes *p, unsigned c)
{
	int err = ot_umulti_set_ring(p->priv, p->cpus[c].cpu, p->cpus[c].fd);

	if (err)
		ot_error_errno(-err, "cannot give the BPF program the ring of CPU %d",
			       p->cpus[c].cpu);
	return err;
}

static int multi_enable(struct ot_probes *p)
{
	ot_umulti_enable(p->priv, 0, 1);
	ot_umulti_enable(p->priv, 1, 1);
	return 0;
}

static void multi_disable(struct ot_probes *p)
{
	ot_umulti_enable(p->priv, 0, 1);
	ot_umulti_enable(p->priv, 0, 0);
}

static void multi_close(struct ot_probes *p)
{
	struct ot_umulti *m = p->priv;

	/* The hook first, then a last look: a process it stopped is
	 * continued, never left stopped. */
	if (m && m->exec_hook) {
		bpf_link__destroy(m->exec_hook);
		watch_poll(p, 0);
		m->exec_hook = NULL;
	}
	ot_umulti_close(m);
	p->priv = NULL;
}

/*
 * Its own figures: the execs from other threads it armed again.  And the
 * calls whose return instance ot_session declined (on a stack the
 * kernel's chain of return probes could not follow): their returns are
 * not seen, so the status is lossy.
 */
static void multi_say(struct ot_probes *p, struct ot_probes_said *out)
{
	const struct ot_probes_thread_execs *te = multi_thread_execs(p);
	struct ot_umulti *m = p->priv;
	uint64_t declined = 0;
	uint32_t zero = 0;

	if (te)
		ot_figs_thread_execs(&out->figs, te);
	if (!m || m->guard_fd < 0 || out->nwhy >= OT_PROBES_WHY_MAX ||
	    bpf_map_lookup_elem(m->guard_fd, &zero, &declined) || !declined)
		return;
	snprintf(out->why[out->nwhy++], sizeof(out->why[0]),
		 "%" PRIu64 " call%s on another stack than their thread's own (a fiber or "
		 "coroutine): %s return%s not probed, as a return probe there would kill the "
		 "program (SIGILL); --returns insn sees returns at return instructions",
		 declined, declined == 1 ? "" : "s", declined == 1 ? "its" : "their",
		 declined == 1 ? "" : "s");
}

static size_t multi_nevents(const struct ot_probes *p)
{
	return p->priv ? ot_umulti_nlinks(p->priv) : 0;
}

const struct ot_backend_ops ot_backend_multi = {
	.ring_kb = OT_RING_KB_DEFAULT,
	.info = {
		.name = "multi",
		.built_on = "uprobe_multi BPF links, libbpf " OT_LIBBPF_VERSION,
		.can = OT_CAN_AUTO | OT_CAN_FOLLOW | OT_CAN_ALL | OT_CAN_FREEZE | OT_CAN_COMPENSATE |
		       OT_CAN_RETURNS | OT_CAN_VALUES | OT_NEEDS_SYS_ADMIN | OT_CAN_USDT |
		       OT_CAN_PIDS | OT_CAN_CGROUP | OT_CAN_GO | OT_CAN_OWNER |
		       OT_GUARDS_RETURNS,
	},
	.objects = "uprobe_multi links",
	.decode = ot_record_parse_bpf,
	.quick_close = 1,
	.load = multi_load,
	.open_ring = multi_open_ring,
	.ring_mapped = multi_ring_mapped,
	.arm = multi_arm,
	.enable = multi_enable,
	.disable = multi_disable,
	.close = multi_close,
	.nevents = multi_nevents,
	.events = multi_events,
	.thread_execs = multi_thread_execs,
	.say = multi_say,
	.follow_poll = multi_follow_poll,
	.comm = multi_comm,
	.rings_lost = multi_rings_lost,
};
