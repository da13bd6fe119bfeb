/*
 * inject_facts.c - what a process must be before inject touches it
 * (inject_facts.h): its refusals, glibc's thread-id offset, the clock the
 * runtime reads.
 */
#include "inject_facts.h"
#include "util/clock.h"
#include "symbols/elfsym.h"
#include "util/error.h"
#include "inject_state.h"
#include "process/mapfile.h"
#include "process/procfs.h"
#include "util/xalloc.h"
#include "arch/arch.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

/* What in the process makes it impossible to instrument, or NULL. */
const char *inject_refuse_process(struct ot_inject *in)
{
	char path[320], val[256];
	unsigned char ident[EI_NIDENT + 4];
	struct dirent *d;
	DIR *dir;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/exe", (int)in->pid, (int)inject_live_tid(in));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, ident, sizeof(ident));

		close(fd);
		if (n == (ssize_t)sizeof(ident) &&
		    (ident[EI_CLASS] != ELFCLASS64 || ident[EI_NIDENT + 2] != OT_ARCH_EM))
			return "it is not an " OT_ARCH_NAME " process (inject patches " OT_ARCH_NAME
			       " code)";
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)in->pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		int tid = atoi(d->d_name);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)in->pid, tid);
		ot_proc_status_field(path, "Seccomp:", val, sizeof(val));
		if (atoi(val) == 1) {
			snprintf(in->why, sizeof(in->why), "thread %d runs in seccomp strict mode "
				 "(the system calls inject makes there would kill it)", tid);
			closedir(dir);
			return in->why;
		}
		if (atoi(val) == 2) {
			snprintf(in->why, sizeof(in->why), "thread %d runs under a seccomp filter "
				 "(the system calls inject makes there may be refused or kill it)",
				 tid);
			closedir(dir);
			return in->why;
		}
		ot_proc_status_field(path, OT_ARCH_THREAD_FEATURES, val, sizeof(val));
		if (strstr(val, "shstk")) {
			snprintf(in->why, sizeof(in->why), "thread %d runs with a CET shadow stack "
				 "(a moved return address would kill it)", tid);
			closedir(dir);
			return in->why;
		}
		ot_proc_status_field(path, "TracerPid:", val, sizeof(val));
		if (atoi(val) && atoi(val) != (int)getpid()) {
			char comm[64];

			if (ot_proc_comm(atoi(val), comm, sizeof(comm)))
				snprintf(comm, sizeof(comm), "?");
			snprintf(in->why, sizeof(in->why), "it is already traced by process %d (%s)",
				 atoi(val), comm);
			closedir(dir);
			return in->why;
		}
	}
	if (dir)
		closedir(dir);
	return NULL;
}

/* ---- LeakSanitizer ---- */

/* Whether options (ASAN_OPTIONS's or LSAN_OPTIONS's value) turn the leak
 * check at exit off. */
static int leaks_off(const char *options)
{
	static const char *const off[] = { "detect_leaks=0", "detect_leaks=false",
					   "leak_check_at_exit=0", "leak_check_at_exit=false" };
	size_t k, n;

	for (k = 0; k < sizeof(off) / sizeof(*off); k++) {
		const char *p = strstr(options, off[k]);

		n = strlen(off[k]);
		if (p && (p == options || p[-1] == ':' || p[-1] == ',' || p[-1] == ' ') &&
		    (!p[n] || p[n] == ':' || p[n] == ',' || p[n] == ' '))
			return 1;
	}
	return 0;
}

/* The process's environment says the leak check is off. */
static int leaks_off_by_env(pid_t pid)
{
	char path[64], *env = ot_xcalloc(1, 65536), *p;
	ssize_t n = 0;
	int fd, off = 0;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, env, 65535);
		close(fd);
	}
	for (p = env; n > 0 && p < env + n; p += strlen(p) + 1)
		if (!strncmp(p, "ASAN_OPTIONS=", 13) || !strncmp(p, "LSAN_OPTIONS=", 13))
			off |= leaks_off(p + 13);
	free(env);
	return off;
}

/* The sanitizer runtime among the mapped files: a library of its own, or
 * the program (clang links it in, exporting its interface). */
static const struct ot_proc_map *sanitizer_file(const struct ot_inject *in)
{
	static const char *const libs[] = { "libasan.so", "liblsan.so", "libclang_rt.asan",
					    "libclang_rt.lsan" };
	uint64_t off, size;
	size_t k;

	for (k = 0; k < sizeof(libs) / sizeof(*libs); k++) {
		const struct ot_proc_map *m = ot_proc_maps_lib(in->maps, in->nmaps, libs[k]);

		if (m)
			return m;
	}
	for (k = 0; k < in->nmaps; k++)
		if (in->maps[k].path[0] == '/')		/* the program: mapped first */
			return ot_elf_lookup_dynamic(in->maps[k].path, "__lsan_do_leak_check", &off,
						     &size) ? NULL : &in->maps[k];
	return NULL;
}

uint64_t inject_leak_check(struct ot_inject *in, char *why, size_t len)
{
	/* sanitizer_common's, the same name in gcc's and clang's runtimes. */
	static const char stw[] =
		"_ZN11__sanitizer12StopTheWorldEPFvRKNS_20SuspendedThreadsListEPvES3_";
	const struct ot_proc_map *m = sanitizer_file(in), *text;
	uint64_t off, size;
	struct stat st;

	*why = 0;
	if (!m || leaks_off_by_env(in->pid))
		return 0;
	if (ot_elf_lookup(m->path, stw, &off, &size, NULL, 0) || stat(m->path, &st) ||
	    !(text = ot_proc_maps_text(in->maps, in->nmaps, st.st_dev, st.st_ino, off))) {
		snprintf(why, len, "it runs LeakSanitizer (%s), whose leak check at exit cannot "
			 "stop threads held with ptrace, and its StopTheWorld is not found there "
			 "(set ASAN_OPTIONS=detect_leaks=0, or use --backend multi)", m->path);
		return 0;
	}
	return text->lo + off - text->off;
}

/* ---- runtimes that walk their stacks ---- */

/*
 * Runtimes that walk their threads' stacks themselves - a garbage
 * collector looking for roots, deoptimization, their own exceptions -
 * and die on a return address they do not know (V8's collector met
 * inject's and node died of SIGSEGV).  Recognized by a library they map,
 * or by an interface the program exports when it links one in.  A new
 * one is a line (Go's, when it is decided, is one).
 */
static const struct walker {
	const char *name;
	const char *lib;	/* a mapped file's base name starts so, or NULL */
	const char *symbol;	/* the program's .dynsym defines it, or NULL */
} walkers[] = {
	{ "V8 (node)", "libnode.so", NULL },
	{ "V8", "libv8.so", NULL },
	{ "V8", NULL, "_ZN2v87Isolate3NewERKNS0_12CreateParamsE" },	/* v8::Isolate::New */
	{ "the JVM", "libjvm.so", NULL },
	{ ".NET (CoreCLR)", "libcoreclr.so", NULL },
	{ "Mono", "libmonosgen-2.0.so", NULL },
	/* Debian's mono links its runtime in: an exception thrown through a
	 * patched C frame was "unhandled" (exit status 1, said ok). */
	{ "Mono", NULL, "mono_jit_init" },
	{ "LuaJIT", "libluajit-5.1.so", NULL },
	{ "LuaJIT", NULL, "luaJIT_setmode" },
};

const char *inject_walker(const struct ot_inject *in)
{
	const char *program = NULL;
	uint64_t off, size;
	size_t k;

	for (k = 0; k < in->nmaps && !program; k++)
		if (in->maps[k].path[0] == '/')
			program = in->maps[k].path;	/* mapped first */
	for (k = 0; k < sizeof(walkers) / sizeof(*walkers); k++) {
		const struct walker *w = &walkers[k];

		if (w->lib && ot_proc_maps_lib(in->maps, in->nmaps, w->lib))
			return w->name;
		if (w->symbol && program && !ot_elf_lookup_dynamic(program, w->symbol, &off, &size))
			return w->name;
	}
	return NULL;
}

/* ---- the thread id, the clock ---- */

/*
 * glibc publishes where struct pthread keeps the thread's id, for
 * libthread_db: {bits, count, offset}, read in the libc the process maps
 * (a container's own).  Checked against every stopped thread, whose %fs
 * base is its struct pthread, and whose id there is the one its own pid
 * namespace gave it.
 */
static int find_tid_off(struct ot_inject *in, const char **why)
{
	const struct ot_proc_map *libc = ot_proc_maps_lib(in->maps, in->nmaps, "libc.so.6");
	struct ot_mapfile f;
	uint32_t desc[3];
	uint64_t off, size, hwcap2 = 0;
	size_t i;
	int err;

	if (!libc) {
		*why = "inject needs glibc's threads and libc.so.6 is not mapped (a static or "
		       "non-glibc program)";
		return -ENOTSUP;
	}
	if (ot_mapfile_open(inject_live_tid(in), libc, &f, in->why, sizeof(in->why))) {
		*why = in->why;
		return -ENOTSUP;
	}
	err = ot_elf_lookup(f.path, "_thread_db_pthread_tid", &off, &size, desc, sizeof(desc));
	ot_mapfile_close(&f);
	if (err || desc[0] != 32 || desc[1] != 1) {
		*why = "this glibc does not say where a thread's id is (_thread_db_pthread_tid)";
		return -ENOTSUP;
	}
	in->tid_off = desc[2];
	for (i = 0; i < in->t->n; i++) {
		struct user_regs_struct r;
		uint32_t tid = 0;

		if (ot_tracee_regs(in->t, i, &r) || !ot_ptregs_tp(&r) ||
		    ot_tracee_read(in->t, ot_ptregs_tp(&r) + in->tid_off, &tid, sizeof(tid)) ||
		    tid != (uint32_t)in->t->nstids[i]) {
			*why = "a thread's id is not where glibc says (a thread without glibc's "
			       "thread pointer)";
			return -ENOTSUP;
		}
	}
	if (!ot_proc_auxv(in->pid, AT_HWCAP2, &hwcap2))
		in->fsbase = (hwcap2 & 2) != 0;		/* HWCAP2_FSGSBASE */
	return 0;
}

/* __vdso_clock_gettime in the process: its vDSO is this one's, elsewhere. */
static uint64_t vdso_gettime(const struct ot_inject *in)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), tbase = 0, len = 0, off;
	struct ot_proc_map *self;
	size_t i, nself;

	for (i = 0; i < in->nmaps; i++)
		if (!strcmp(in->maps[i].path, "[vdso]"))
			tbase = in->maps[i].lo;
	if (!ot_proc_maps(getpid(), getpid(), &self, &nself))
		for (i = 0; i < nself; i++)
			if (!strcmp(self[i].path, "[vdso]"))
				len = self[i].hi - self[i].lo;
	ot_proc_maps_free(self, nself);
	if (!base || !tbase || !len ||
	    ot_elf_image_lookup((const void *)base, (size_t)len, "__vdso_clock_gettime", &off))
		return 0;
	return tbase + off;
}

static void pick_clock(struct ot_inject *in)
{
	char cs[64];

	if (in->o.clock >= 0) {
		in->clock = in->o.clock;
		in->clock_why = "chosen (ORBIT_INJECT_CLOCK)";
		return;
	}
	ot_proc_read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			  cs, sizeof(cs));
	cs[strcspn(cs, "\n")] = 0;
	/* The kernel keeps time with the TSC only once it found it stable and
	 * in step across CPUs: then its ticks convert to CLOCK_MONOTONIC. */
	if (!strcmp(cs, "tsc")) {
		in->clock = OT_INJ_CLOCK_TSC;
		in->clock_why = "the kernel's clocksource is the TSC";
	} else {
		in->clock = OT_INJ_CLOCK_VDSO;
		in->clock_why = "the kernel's clocksource is not the TSC";
	}
}

/* What the runtime needs to know of the process: where glibc keeps a
 * thread's id, and which clock to read.  0, or -errno after printing. */
int inject_process_facts(struct ot_inject *in)
{
	const char *fatal = NULL;
	int ret = find_tid_off(in, &fatal);

	if (ret) {
		ot_error("cannot inject into process %d: %s", (int)in->pid, fatal);
		return ret;
	}
	pick_clock(in);
	in->info.clock = in->clock == OT_INJ_CLOCK_TSC ? "tsc" : "vdso";
	if (in->clock == OT_INJ_CLOCK_VDSO) {
		in->vdso_fn = vdso_gettime(in);
		if (!in->vdso_fn) {
			ot_error("cannot inject into process %d: the TSC is not the kernel's clock "
				 "and its vDSO has no __vdso_clock_gettime", (int)in->pid);
			return -ENOTSUP;
		}
	}
	return 0;
}
