#include "inject.h"
#include "clock.h"
#include "elfsym.h"
#include "error.h"
#include "inject_layout.h"
#include "procfs.h"
#include "relocate.h"
#include "tracee.h"
#include "xalloc.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The runtime (lib/inject_rt.S), as assembled into orbit-trace. */
extern const unsigned char ot_inj_rt_start[], ot_inj_rt_end[];
extern const unsigned char ot_inj_rt_priv[], ot_inj_rt_shared[], ot_inj_rt_areas[],
	ot_inj_rt_vdso[], ot_inj_rt_ring_mask[], ot_inj_rt_area_bytes[], ot_inj_rt_quarter[],
	ot_inj_rt_tid_off[],
	ot_inj_rt_nareas[], ot_inj_rt_clock[], ot_inj_rt_fsbase[], ot_inj_rt_syscall[],
	ot_inj_rt_entry[], ot_inj_rt_ret_lo[], ot_inj_rt_ret[], ot_inj_rt_ret_end[],
	ot_inj_rt_find_fde[];

#define RT_OFF(sym) ((size_t)((sym) - ot_inj_rt_start))

/* A code region: its head (lib/inject_layout.h), then in the first the
 * runtime, then the trampolines. */
#define REG_ENTRY_SLOT	OT_INJ_REG_ENTRY_SLOT
#define REG_FDE_SLOT	OT_INJ_REG_FDE_SLOT
#define REG_NAME	OT_INJ_REG_NAME
#define REG_HEAD	OT_INJ_REG_HEAD
#define TRAMP_MAX	128	/* a trampoline: prologue + moved code + jmp back */
#define TRAMP_PROLOGUE	13	/* push %rax; mov $id,%eax; call *slot(%rip); pop %rax */
#define HOOK_PROLOGUE	14	/* push %rax; lea orig(%rip),%rax; jmp *slot(%rip) */
#define CODE_MAX	(1ull << 20) /* bytes of a function read to relocate it */

struct map {
	uint64_t lo, hi, off;
	char perms[5];
	dev_t dev;
	ino_t ino;
	char *path;
};

struct region {
	uint64_t addr;		/* in the process */
	size_t size, used;
	uint8_t *buf;		/* its content, written at once */
	const struct map *text;	/* the text it serves */
};

/* A patched entry, to restore. */
struct patch {
	uint64_t addr;
	uint8_t orig[OT_PATCH_LEN];
	uint8_t jmp[OT_PATCH_LEN];	/* jmp rel32 to its trampoline */
	size_t fn;		/* index into the caller's functions; SIZE_MAX: a hook */
};

struct ot_inject {
	pid_t pid;
	struct ot_inject_opts o;
	struct ot_tracee *t;	/* the caller's: it holds the process */
	int stopped;
	uint64_t t_stop;
	struct map *maps;
	size_t nmaps;
	struct region *reg;
	size_t nreg;
	uint64_t rt;		/* the runtime in the process (first region) */
	uint64_t rt_ret;	/* where hijacked frames return, there */
	uint64_t priv;		/* the private region */
	uint64_t shared_t;	/* the shared region, there */
	void *shared;		/* and here */
	size_t shared_len;
	int memfd;
	struct patch *patches;
	size_t npatches;
	uint32_t tid_off;
	int fsbase;
	struct user_regs_struct *regs;	/* each stopped thread's, read once */
	int execd;		/* its program is gone (the process exec'd) */
	pthread_mutex_t *owner;	/* in the shared header, held (hold_owner) */
	/* The file last read, for the functions of one file in a row. */
	char *file_path;
	int file_fd;
	struct stat file_st;
	uint64_t vdso_fn;
	char why[256];
	struct ot_inject_info info;
};

static void put32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static int fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* ---- what the process is ---- */

/* A thread of the process that runs: its memory, maps and program are the
 * process's (a first thread that ended has none). */
static pid_t live_tid(const struct ot_inject *in)
{
	return in->t && in->t->n ? in->t->tids[0] : in->pid;
}

static void free_maps(struct ot_inject *in)
{
	size_t i;

	for (i = 0; i < in->nmaps; i++)
		free(in->maps[i].path);
	free(in->maps);
	in->maps = NULL;
	in->nmaps = 0;
}

static int read_maps(struct ot_inject *in)
{
	char path[64], line[4352];
	FILE *f;

	free_maps(in);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)in->pid, (int)live_tid(in));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		char perms[5];
		int pos = 0;
		struct map *m;

		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj,
			   &min, &ino, &pos) < 7)
			continue;
		line[strcspn(line, "\n")] = 0;
		in->maps = ot_xreallocarray(in->maps, in->nmaps + 1, sizeof(*in->maps));
		m = &in->maps[in->nmaps++];
		m->lo = lo;
		m->hi = hi;
		m->off = off;
		memcpy(m->perms, perms, sizeof(m->perms));
		m->dev = makedev(maj, min);
		m->ino = (ino_t)ino;
		m->path = ot_xstrdup(pos ? line + pos : "");
	}
	fclose(f);
	return 0;
}

/* The executable mapping of file (dev, ino) that holds file offset off. */
static const struct map *text_map(const struct ot_inject *in, const struct stat *st, uint64_t off)
{
	size_t i;

	for (i = 0; i < in->nmaps; i++) {
		const struct map *m = &in->maps[i];

		if (m->perms[2] == 'x' && m->ino == st->st_ino && m->dev == st->st_dev &&
		    off >= m->off && off - m->off < m->hi - m->lo)
			return m;
	}
	return NULL;
}

/* The first executable mapping whose file's name starts with prefix. */
static const struct map *mapped_lib(const struct ot_inject *in, const char *prefix)
{
	size_t i;

	for (i = 0; i < in->nmaps; i++)
		if (in->maps[i].perms[2] == 'x' && in->maps[i].path[0] == '/' &&
		    !strncmp(base_name(in->maps[i].path), prefix, strlen(prefix)))
			return &in->maps[i];
	return NULL;
}

/* What in the process makes it impossible to instrument, or NULL. */
static const char *refuse_process(struct ot_inject *in)
{
	char path[320], val[256];
	unsigned char ident[EI_NIDENT + 4];
	struct dirent *d;
	DIR *dir;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/exe", (int)in->pid, (int)live_tid(in));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, ident, sizeof(ident));

		close(fd);
		if (n == (ssize_t)sizeof(ident) &&
		    (ident[EI_CLASS] != ELFCLASS64 || ident[EI_NIDENT + 2] != EM_X86_64))
			return "it is not an x86-64 process (inject patches x86-64 code)";
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
		ot_proc_status_field(path, "x86_Thread_features:", val, sizeof(val));
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
	why = refuse_process(in);
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

/* ---- the thread id, the clock ---- */

/*
 * glibc publishes where struct pthread keeps the thread's id, for
 * libthread_db: {bits, count, offset}.  Checked against every stopped
 * thread, whose %fs base is its struct pthread.
 */
static int find_tid_off(struct ot_inject *in, const char **why)
{
	const struct map *libc = mapped_lib(in, "libc.so.6");
	uint32_t desc[3];
	uint64_t off, size, hwcap2 = 0;
	size_t i;

	if (!libc) {
		*why = "inject needs glibc's threads and libc.so.6 is not mapped (a static or "
		       "non-glibc program)";
		return -ENOTSUP;
	}
	if (ot_elf_lookup(libc->path, "_thread_db_pthread_tid", &off, &size, desc, sizeof(desc)) ||
	    desc[0] != 32 || desc[1] != 1) {
		*why = "this glibc does not say where a thread's id is (_thread_db_pthread_tid)";
		return -ENOTSUP;
	}
	in->tid_off = desc[2];
	for (i = 0; i < in->t->n; i++) {
		struct user_regs_struct r;
		uint32_t tid = 0;

		if (ot_tracee_regs(in->t, i, &r) || !r.fs_base ||
		    ot_tracee_read(in->t, r.fs_base + in->tid_off, &tid, sizeof(tid)) ||
		    tid != (uint32_t)in->t->tids[i]) {
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
	uint64_t base = getauxval(AT_SYSINFO_EHDR), tbase = 0, len = 0, found = 0, first = 0;
	size_t i;
	unsigned char *copy;
	Elf *elf;
	Elf_Scn *scn = NULL;

	for (i = 0; i < in->nmaps; i++)
		if (!strcmp(in->maps[i].path, "[vdso]"))
			tbase = in->maps[i].lo;
	{
		FILE *f = fopen("/proc/self/maps", "re");
		char line[512];
		unsigned long long lo, hi;

		while (f && fgets(line, sizeof(line), f))
			if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2)
				len = hi - lo;
		if (f)
			fclose(f);
	}
	if (!base || !tbase || !len || elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	copy = ot_xmalloc(len);
	memcpy(copy, (const void *)base, len);
	elf = elf_memory((char *)copy, len);
	for (i = 0; elf; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			break;
		if (ph.p_type == PT_LOAD) {
			first = ph.p_vaddr;
			break;
		}
	}
	while (elf && !found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (k = 0; data && k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, (int)k, &s))
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (name && !strcmp(name, "__vdso_clock_gettime") && s.st_value)
				found = tbase + s.st_value - first;
		}
	}
	if (elf)
		elf_end(elf);
	free(copy);
	return found;
}

static void pick_clock(struct ot_inject *in)
{
	char cs[64];

	if (in->o.clock >= 0) {
		in->info.clock = in->o.clock;
		in->info.clock_why = "chosen (ORBIT_INJECT_CLOCK)";
		return;
	}
	ot_proc_read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			  cs, sizeof(cs));
	cs[strcspn(cs, "\n")] = 0;
	/* The kernel keeps time with the TSC only once it found it stable and
	 * in step across CPUs: then its ticks convert to CLOCK_MONOTONIC. */
	if (!strcmp(cs, "tsc")) {
		in->info.clock = OT_INJ_CLOCK_TSC;
		in->info.clock_why = "the kernel's clocksource is the TSC";
	} else {
		in->info.clock = OT_INJ_CLOCK_VDSO;
		in->info.clock_why = "the kernel's clocksource is not the TSC";
	}
}

/* ---- the unwind entry ---- */

static size_t uleb(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		p[n++] = (uint8_t)(b | (v ? 0x80 : 0));
	} while (v);
	return n;
}

/* DW_OP_bra / DW_OP_skip at *p (its 2-byte operand at p + 1) to target. */
static void branch(uint8_t *expr, size_t at, size_t target)
{
	int16_t d = (int16_t)((long)target - (long)(at + 3));

	memcpy(expr + at + 1, &d, sizeof(d));
}

/*
 * The return address of the pseudo-frame at ot_inj_rt_ret: in the table,
 * the entry whose key is the slot just below the caller's SP (CFA - 8).
 * The same open addressing as rt_lookup, as a DWARF expression (a loop:
 * DW_OP_bra and DW_OP_skip); 0 if absent, which ends the unwinding.
 */
static size_t ra_expression(uint8_t *e, uint64_t table)
{
	size_t n = 0, loop, bra_check, skip_end, check, bra_found, skip_loop, found;

	/* The CFA stays at the bottom: libgcc's DW_OP_pick cannot reach the
	 * deepest element (it asserts offset < depth - 1). */
	e[n++] = 0x12;		/* dup */
	e[n++] = 0x40;		/* lit16 */
	e[n++] = 0x1c;		/* minus: [cfa, key = CFA - 16] */
	e[n++] = 0x12;		/* dup */
	e[n++] = 0x33;		/* lit3 */
	e[n++] = 0x25;		/* shr */
	e[n++] = 0x10;		/* constu mask */
	n += uleb(e + n, OT_INJ_TABLE_MASK);
	e[n++] = 0x1a;		/* and: [key, h] */
	loop = n;
	e[n++] = 0x12;		/* dup */
	e[n++] = 0x35;		/* lit5 */
	e[n++] = 0x24;		/* shl */
	e[n++] = 0x03;		/* addr table */
	memcpy(e + n, &table, 8);
	n += 8;
	e[n++] = 0x22;		/* plus: [key, h, &e] */
	e[n++] = 0x12;		/* dup */
	e[n++] = 0x06;		/* deref: [key, h, &e, ekey] */
	e[n++] = 0x12;		/* dup */
	bra_check = n;
	e[n++] = 0x28;		/* bra check (ekey != 0) */
	n += 2;
	e[n++] = 0x13;		/* drop x5: not found */
	e[n++] = 0x13;
	e[n++] = 0x13;
	e[n++] = 0x13;
	e[n++] = 0x13;
	e[n++] = 0x30;		/* lit0 */
	skip_end = n;
	e[n++] = 0x2f;		/* skip end */
	n += 2;
	check = n;
	e[n++] = 0x15;		/* pick 3: key, of [cfa, key, h, &e, ekey] */
	e[n++] = 3;
	e[n++] = 0x29;		/* eq */
	bra_found = n;
	e[n++] = 0x28;		/* bra found */
	n += 2;
	e[n++] = 0x13;		/* drop: [key, h] */
	e[n++] = 0x31;		/* lit1 */
	e[n++] = 0x22;		/* plus */
	e[n++] = 0x10;		/* constu mask */
	n += uleb(e + n, OT_INJ_TABLE_MASK);
	e[n++] = 0x1a;		/* and */
	skip_loop = n;
	e[n++] = 0x2f;		/* skip loop */
	n += 2;
	found = n;
	e[n++] = 0x23;		/* plus_uconst 8: &e.ret */
	e[n++] = 8;
	e[n++] = 0x06;		/* deref: [cfa, key, h, ret] */
	e[n++] = 0x16;		/* (swap, drop) x3: [ret] */
	e[n++] = 0x13;
	e[n++] = 0x16;
	e[n++] = 0x13;
	e[n++] = 0x16;
	e[n++] = 0x13;
	branch(e, bra_check, check);
	branch(e, skip_end, n);
	branch(e, bra_found, found);
	branch(e, skip_loop, loop);
	return n;
}

size_t ot_inject_fde(uint8_t *out, size_t size, uint64_t table, uint64_t lo, uint64_t len)
{
	uint8_t expr[96], buf[256];
	size_t elen = ra_expression(expr, table), n = 4, cie_len, fde, fde_len;
	uint32_t v;

	/* CIE: version 1, "zR" (FDE addresses absolute), code 1, data -8, RA 16. */
	memset(buf, 0, sizeof(buf));
	v = 0;
	memcpy(buf + n, &v, 4);		/* CIE id */
	n += 4;
	buf[n++] = 1;
	memcpy(buf + n, "zR", 3);
	n += 3;
	buf[n++] = 1;			/* code alignment */
	buf[n++] = 0x78;		/* data alignment -8 */
	buf[n++] = 16;			/* return address column */
	buf[n++] = 1;			/* augmentation data: */
	buf[n++] = 0x00;		/* DW_EH_PE_absptr */
	/*
	 * The CFA is the SP at the trampoline + 8, and the caller's SP that
	 * SP (val_offset rsp, CFA - 8): unwinders tell frames apart by CFA,
	 * and libgcc's phase 2 would take this frame, whose CFA would
	 * otherwise be its caller's identity, for the handler's.
	 */
	buf[n++] = 0x0c;		/* def_cfa rsp + 8 */
	buf[n++] = 7;
	buf[n++] = 8;
	buf[n++] = 0x14;		/* val_offset rsp: CFA + 1 * -8 */
	buf[n++] = 7;
	buf[n++] = 1;
	buf[n++] = 0x16;		/* val_expression r16 (the return address) */
	buf[n++] = 16;
	n += uleb(buf + n, elen);
	memcpy(buf + n, expr, elen);
	n += elen;
	while (n % 8)
		buf[n++] = 0;		/* DW_CFA_nop */
	cie_len = n;
	v = (uint32_t)(cie_len - 4);
	memcpy(buf, &v, 4);
	/* FDE: [lo, lo + len), no instructions of its own. */
	fde = n;
	n += 4;
	v = (uint32_t)(n - 0);		/* CIE pointer: back to the CIE at 0 */
	memcpy(buf + n, &v, 4);
	n += 4;
	memcpy(buf + n, &lo, 8);
	n += 8;
	memcpy(buf + n, &len, 8);
	n += 8;
	buf[n++] = 0;			/* augmentation data length */
	while (n % 8)
		buf[n++] = 0;
	fde_len = n - fde;
	v = (uint32_t)(fde_len - 4);
	memcpy(buf + fde, &v, 4);
	/* A zero terminator: readers walking a section stop there. */
	n += 4;
	if (n > size)
		return 0;
	memcpy(out, buf, n);
	return fde;
}

/* ---- regions ---- */

/* A system call in the process: the runtime's gadget once it is there. */
static long sys(struct ot_inject *in, long nr, long a, long b, long c, long d, long e, long f)
{
	long args[6] = { a, b, c, d, e, f };

	return ot_tracee_syscall(in->t, nr, args);
}

/* The index of the code region for text, added if new. */
static size_t region_for(struct ot_inject *in, const struct map *text)
{
	size_t i;

	for (i = 0; i < in->nreg; i++)
		if (in->reg[i].text->ino == text->ino && in->reg[i].text->dev == text->dev)
			return i;
	in->reg = ot_xreallocarray(in->reg, in->nreg + 1, sizeof(*in->reg));
	memset(&in->reg[in->nreg], 0, sizeof(*in->reg));
	in->reg[in->nreg].text = text;
	return in->nreg++;
}

static size_t page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

/* Map every code region, near its text; the first holds the runtime. */
static int map_regions(struct ot_inject *in, const size_t *need)
{
	size_t i, rt_len = (size_t)(ot_inj_rt_end - ot_inj_rt_start);

	for (i = 0; i < in->nreg; i++) {
		struct region *r = &in->reg[i];
		const char *why;

		r->size = page_round(REG_HEAD + (i ? 0 : rt_len) + need[i]);
		r->addr = ot_tracee_mmap_near(in->t, r->text->lo, r->size, PROT_READ | PROT_EXEC,
					      &why);
		if (!r->addr) {
			ot_error("cannot inject into process %d: no memory for trampolines near %s: %s",
				 (int)in->pid, r->text->path, why);
			return -ENOMEM;
		}
		r->buf = ot_xcalloc(1, r->size);
		r->used = REG_HEAD;
		if (!i) {
			in->rt = r->addr + REG_HEAD;
			in->rt_ret = in->rt + RT_OFF(ot_inj_rt_ret);
			memcpy(r->buf + REG_HEAD, ot_inj_rt_start, rt_len);
			memcpy(r->buf + REG_NAME, "orbit-trace", 12);
			r->used += (rt_len + 15) & ~(size_t)15;
			/* From now on system calls run at the gadget: no code of
			 * the process is rewritten for them. */
		}
		in->info.code_bytes += r->size;
	}
	for (i = 0; i < in->nreg; i++) {
		uint64_t entry = in->rt + RT_OFF(ot_inj_rt_entry), fde = in->rt + RT_OFF(ot_inj_rt_find_fde);

		memcpy(in->reg[i].buf + REG_ENTRY_SLOT, &entry, 8);
		memcpy(in->reg[i].buf + REG_FDE_SLOT, &fde, 8);
	}
	in->info.regions = in->nreg;
	return 0;
}

/* The private and shared regions; the shared one mapped here too. */
static int map_data(struct ot_inject *in)
{
	size_t ring = in->o.ring_kb * 1024, area = OT_INJ_A_RING + ring;
	long fd, got;
	int ours;

	in->priv = (uint64_t)sys(in, SYS_mmap, 0, OT_INJ_PRIV_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if ((int64_t)in->priv < 0 && (int64_t)in->priv > -4096) {
		ot_error_errno((int)-(int64_t)in->priv, "cannot inject into process %d: cannot map "
			       "%zu MB for its threads' return tables", (int)in->pid,
			       (size_t)OT_INJ_PRIV_SIZE >> 20);
		in->priv = 0;
		return -ENOMEM;
	}
	in->info.private_bytes = OT_INJ_PRIV_SIZE;
	in->shared_len = OT_INJ_HDR_SIZE + (size_t)in->o.nareas * area;
	fd = sys(in, SYS_memfd_create, (long)(in->reg[0].addr + REG_NAME), MFD_CLOEXEC, 0, 0, 0, 0);
	if (fd < 0) {
		ot_error_errno((int)-fd, "cannot inject into process %d: memfd_create there failed",
			       (int)in->pid);
		return (int)fd;
	}
	got = sys(in, SYS_ftruncate, fd, (long)in->shared_len, 0, 0, 0, 0);
	if (!got)
		got = sys(in, SYS_mmap, 0, (long)in->shared_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			  fd, 0);
	if (got < 0 && got > -4096) {
		ot_error_errno((int)-got, "cannot inject into process %d: cannot map its %zu MB of "
			       "rings", (int)in->pid, in->shared_len >> 20);
		sys(in, SYS_close, fd, 0, 0, 0, 0, 0);
		return (int)got;
	}
	in->shared_t = (uint64_t)got;
	/* Its memfd, here: from its fd table (pidfd_getfd), else by /proc. */
	ours = in->o.pidfd >= 0 ? (int)syscall(SYS_pidfd_getfd, in->o.pidfd, (int)fd, 0) : -1;
	if (ours < 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/task/%d/fd/%ld", (int)in->pid, (int)live_tid(in), fd);
		ours = open(path, O_RDWR | O_CLOEXEC);
	}
	sys(in, SYS_close, fd, 0, 0, 0, 0, 0);
	if (ours < 0) {
		ot_error_errno(errno, "cannot inject into process %d: cannot open its rings' memfd",
			       (int)in->pid);
		return -errno;
	}
	in->memfd = ours;
	in->shared = mmap(NULL, in->shared_len, PROT_READ | PROT_WRITE, MAP_SHARED, ours, 0);
	if (in->shared == MAP_FAILED) {
		in->shared = NULL;
		ot_error_errno(errno, "cannot map the rings of process %d", (int)in->pid);
		return -errno;
	}
	in->info.shared_bytes = in->shared_len;
	return 0;
}

/*
 * The owner mutex in the shared header, locked by this thread (which
 * lives as long as orbit-trace): robust, so that the kernel marks its
 * owner dead when orbit-trace ends without unlocking - killed - and the
 * runtime, reading its word, stops recording.
 */
static int hold_owner(struct ot_inject *in)
{
	pthread_mutex_t *m = (pthread_mutex_t *)((uint8_t *)in->shared + OT_INJ_H_OWNER);
	pthread_mutexattr_t a;
	int err;

	_Static_assert(sizeof(pthread_mutex_t) <= OT_INJ_H_STEAL - OT_INJ_H_OWNER,
		       "the owner mutex fits the shared header");
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	err = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	if (!err)
		err = pthread_mutex_lock(m);
	if (err) {
		ot_error_errno(err, "cannot set up the rings of process %d", (int)in->pid);
		return -err;
	}
	in->owner = m;
	return 0;
}

/* The slots and FDEs of the private region, and the shared header. */
static int init_data(struct ot_inject *in)
{
	size_t len = OT_INJ_PRIV_TABLES, i;
	uint8_t *img = ot_xcalloc(1, len);
	uint64_t lo = in->rt + RT_OFF(ot_inj_rt_ret_lo);
	uint64_t span = RT_OFF(ot_inj_rt_ret_end) - RT_OFF(ot_inj_rt_ret_lo);
	uint8_t *h = in->shared;
	uint64_t magic = OT_INJ_MAGIC;
	uint32_t nareas = in->o.nareas;
	int ret;

	for (i = 0; i < OT_INJ_NSLOTS; i++) {
		uint8_t *slot = img + i * OT_INJ_SLOT_SIZE;
		uint64_t table = in->priv + OT_INJ_PRIV_TABLES + i * (uint64_t)OT_INJ_TABLE_SIZE;
		uint64_t fde_at = OT_INJ_PRIV_FDES + i * OT_INJ_FDE_SIZE;
		size_t fde = ot_inject_fde(img + fde_at, OT_INJ_FDE_SIZE, table, lo, span);
		uint64_t fde_addr = in->priv + fde_at + fde;

		if (!fde) {
			free(img);
			ot_error("internal error: the unwind entry does not fit %d bytes", OT_INJ_FDE_SIZE);
			return -EOVERFLOW;
		}
		memcpy(slot + OT_INJ_PS_TABLE, &table, 8);
		memcpy(slot + OT_INJ_PS_FDE, &fde_addr, 8);
	}
	ret = ot_tracee_write(in->t, in->priv, img, len);
	free(img);
	if (ret) {
		ot_error_errno(-ret, "cannot write into process %d", (int)in->pid);
		return ret;
	}
	memcpy(h + OT_INJ_H_NAREAS, &nareas, 4);
	memcpy(h + OT_INJ_H_MAGIC, &magic, 8);
	return hold_owner(in);
}

/* Fill the runtime's constants in its copy. */
static void set_constants(struct ot_inject *in)
{
	uint8_t *rt = in->reg[0].buf + REG_HEAD;
	uint64_t areas = in->shared_t + OT_INJ_HDR_SIZE;
	uint64_t mask = in->o.ring_kb * 1024 / OT_INJ_REC_SIZE - 1, quarter = (mask + 1) / 4 - 1;
	uint64_t area_bytes = OT_INJ_A_RING + in->o.ring_kb * 1024;
	uint32_t nareas = in->o.nareas, clock = (uint32_t)in->info.clock, fsb = (uint32_t)in->fsbase;

	memcpy(rt + RT_OFF(ot_inj_rt_priv), &in->priv, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_shared), &in->shared_t, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_areas), &areas, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_vdso), &in->vdso_fn, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_ring_mask), &mask, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_area_bytes), &area_bytes, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_quarter), &quarter, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_tid_off), &in->tid_off, 4);
	memcpy(rt + RT_OFF(ot_inj_rt_nareas), &nareas, 4);
	memcpy(rt + RT_OFF(ot_inj_rt_clock), &clock, 4);
	memcpy(rt + RT_OFF(ot_inj_rt_fsbase), &fsb, 4);
}

/* ---- functions ---- */

/* Why thread i stopped where patching [lo, hi) would break it, or NULL:
 * its next instruction is inside (the start is fine: it runs the jmp). */
static int thread_inside(struct ot_inject *in, uint64_t lo, uint64_t hi, pid_t *tid)
{
	size_t i;

	if (!in->regs) {
		in->regs = ot_xcalloc(in->t->n + 1, sizeof(*in->regs));
		for (i = 0; i < in->t->n; i++)
			if (ot_tracee_regs(in->t, i, &in->regs[i]))
				in->regs[i].rip = 0;
	}
	for (i = 0; i < in->t->n; i++) {
		const struct user_regs_struct r = in->regs[i];

		/* In a system call, the kernel may restart it: 2 bytes back. */
		if ((r.rip > lo && r.rip < hi) ||
		    ((long long)r.orig_rax >= 0 && r.rip - 2 > lo && r.rip - 2 < hi)) {
			*tid = in->t->tids[i];
			return 1;
		}
	}
	return 0;
}

struct plan {
	uint64_t addr;		/* the function in the process */
	const struct map *text;
	size_t reg;		/* its code region; SIZE_MAX: none */
	uint8_t *code;		/* its bytes, from the process */
	size_t len;
};

/* path, open in in->file_fd and stat'ed in in->file_st: 0 or -1 (errno). */
static int open_file(struct ot_inject *in, const char *path)
{
	if (in->file_path && !strcmp(in->file_path, path))
		return in->file_fd >= 0 ? 0 : -1;
	if (in->file_fd >= 0)
		close(in->file_fd);
	free(in->file_path);
	in->file_path = ot_xstrdup(path);
	in->file_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->file_fd >= 0 && fstat(in->file_fd, &in->file_st)) {
		close(in->file_fd);
		in->file_fd = -1;
	}
	return in->file_fd >= 0 ? 0 : -1;
}

/* Where fn is in the process, and its code; refuse it with why otherwise. */
static int locate(struct ot_inject *in, struct ot_inject_fn *fn, struct plan *pl, char *why,
		  size_t whylen)
{
	size_t len;

	if (open_file(in, fn->path)) {
		snprintf(why, whylen, "cannot read %s: %s", fn->path, strerror(errno));
		return -1;
	}
	pl->text = text_map(in, &in->file_st, fn->offset);
	if (!pl->text) {
		fn->unmapped = 1;
		snprintf(why, whylen, "%s is not mapped in the process (yet): inject patches "
			 "only code already loaded", fn->path);
		return -1;
	}
	pl->addr = pl->text->lo + fn->offset - pl->text->off;
	len = fn->size ? (size_t)fn->size : 16;
	if (len > CODE_MAX)
		len = CODE_MAX;
	if (pl->addr + len > pl->text->hi)
		len = (size_t)(pl->text->hi - pl->addr);
	pl->code = ot_xmalloc(len);
	pl->len = len;
	if (ot_tracee_read(in->t, pl->addr, pl->code, len)) {
		snprintf(why, whylen, "its code cannot be read in the process");
		return -1;
	}
	return 0;
}

/*
 * Write a trampoline for the function of plan pl into its region:
 * prologue (to the runtime's entry, or for a hook to its handler), the
 * moved instructions, the jump back.  Returns 0, or -1 with why.
 */
static int trampoline(struct ot_inject *in, const char *file, uint64_t file_off, struct plan *pl,
		      uint32_t id, int hook, char *why, size_t whylen, struct patch *pa)
{
	struct region *r = &in->reg[pl->reg];
	size_t pro = hook ? HOOK_PROLOGUE : TRAMP_PROLOGUE;
	uint64_t tramp = r->addr + r->used;
	uint8_t filecode[64], *t = r->buf + r->used;
	struct ot_reloc rel;
	const char *rwhy;
	int64_t d;
	pid_t tid;

	if (r->used + TRAMP_MAX > r->size) {
		snprintf(why, whylen, "internal error: its trampoline does not fit");
		return -1;
	}
	if (ot_relocate(pl->code, pl->len, pl->addr, tramp + pro, &rel, &rwhy)) {
		snprintf(why, whylen, "%s", rwhy);
		return -1;
	}
	if (pro + rel.len > TRAMP_MAX) {
		snprintf(why, whylen, "the moved instructions do not fit the trampoline");
		return -1;
	}
	/* What runs must be the file's code: not a breakpoint (a debugger's,
	 * a uprobe's) or another tool's patch. */
	if (open_file(in, file) ||
	    pread(in->file_fd, filecode, rel.patch_at + rel.covered, (off_t)file_off) !=
		    (ssize_t)(rel.patch_at + rel.covered) ||
	    memcmp(filecode, pl->code, rel.patch_at + rel.covered)) {
		snprintf(why, whylen, "its first bytes in the process differ from %s (a breakpoint "
			 "or another tool's patch is there)", file);
		return -1;
	}
	if (thread_inside(in, pl->addr + rel.patch_at, pl->addr + rel.patch_at + rel.covered, &tid)) {
		snprintf(why, whylen, "thread %d is stopped inside its first %zu bytes", (int)tid,
			 rel.patch_at + rel.covered);
		return -1;
	}
	if (hook) {
		t[0] = 0x50;				/* push %rax */
		t[1] = 0x48, t[2] = 0x8d, t[3] = 0x05;	/* lea orig(%rip),%rax */
		put32(t + 4, HOOK_PROLOGUE - 8);
		t[8] = 0xff, t[9] = 0x25;		/* jmp *slot(%rip) */
		d = (int64_t)(r->addr + REG_FDE_SLOT) - (int64_t)(tramp + 14);
		put32(t + 10, (int32_t)d);
	} else {
		t[0] = 0x50;				/* push %rax */
		t[1] = 0xb8;				/* mov $id,%eax */
		put32(t + 2, (int32_t)id);
		t[6] = 0xff, t[7] = 0x15;		/* call *slot(%rip) */
		d = (int64_t)(r->addr + REG_ENTRY_SLOT) - (int64_t)(tramp + 12);
		put32(t + 8, (int32_t)d);
		t[12] = 0x58;				/* pop %rax */
	}
	memcpy(t + pro, rel.code, rel.len);
	d = (int64_t)tramp - (int64_t)(pl->addr + rel.patch_at + OT_PATCH_LEN);
	if (!fits32(d)) {
		snprintf(why, whylen, "its trampoline is out of jmp rel32 reach");
		return -1;
	}
	pa->addr = pl->addr + rel.patch_at;
	memcpy(pa->orig, pl->code + rel.patch_at, OT_PATCH_LEN);
	pa->jmp[0] = 0xe9;
	put32(pa->jmp + 1, (int32_t)d);
	r->used += (pro + rel.len + 15) & ~(size_t)15;
	return 0;
}

/* ---- install ---- */

/* Files with C++ exception tables among the mapped ones, or NULL. */
static const char *mapped_eh(const struct ot_inject *in)
{
	size_t i, k;

	for (i = 0; i < in->nmaps; i++) {
		const struct map *m = &in->maps[i];
		int fd, eh = 0;
		Elf *elf;

		if (m->perms[2] != 'x' || m->path[0] != '/')
			continue;
		for (k = 0; k < i; k++)
			if (in->maps[k].ino == m->ino && in->maps[k].dev == m->dev)
				break;
		if (k < i)
			continue;
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		elf = elf_begin(fd, ELF_C_READ, NULL);
		if (elf && elf_kind(elf) == ELF_K_ELF) {
			size_t shstrndx;
			Elf_Scn *scn = NULL;

			if (!elf_getshdrstrndx(elf, &shstrndx)) {
				while (!eh && (scn = elf_nextscn(elf, scn))) {
					GElf_Shdr sh;
					const char *name;

					if (!gelf_getshdr(scn, &sh))
						continue;
					name = elf_strptr(elf, shstrndx, sh.sh_name);
					eh = name && !strcmp(name, ".gcc_except_table");
				}
			}
		}
		if (elf)
			elf_end(elf);
		close(fd);
		if (eh)
			return m->path;
	}
	return NULL;
}

/* What the runtime needs to know of the process: where glibc keeps a
 * thread's id, and which clock to read.  0, or -errno after printing. */
static int process_facts(struct ot_inject *in)
{
	const char *fatal = NULL;
	int ret = find_tid_off(in, &fatal);

	if (ret) {
		ot_error("cannot inject into process %d: %s", (int)in->pid, fatal);
		return ret;
	}
	pick_clock(in);
	if (in->info.clock == OT_INJ_CLOCK_VDSO) {
		in->vdso_fn = vdso_gettime(in);
		if (!in->vdso_fn) {
			ot_error("cannot inject into process %d: the TSC is not the kernel's clock "
				 "and its vDSO has no __vdso_clock_gettime", (int)in->pid);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* The unwinders to hook into hooks[]: libgcc's, and one linked into the
 * program.  Returns how many (the last one's path is ours to free). */
static size_t unwinders(struct ot_inject *in, struct ot_inject_fn *hooks)
{
	const struct map *gcc = mapped_lib(in, "libgcc_s.so");
	char exe[64];
	size_t i, nhook = 0;

	snprintf(exe, sizeof(exe), "/proc/%d/task/%d/exe", (int)in->pid, (int)live_tid(in));
	memset(hooks, 0, 2 * sizeof(*hooks));
	if (gcc) {
		hooks[nhook].path = gcc->path;
		hooks[nhook++].label = gcc->path;
	}
	hooks[nhook].path = ot_xstrdup(exe);
	hooks[nhook++].label = "the program";
	for (i = 0; i < nhook; i++) {
		uint64_t size;

		if (ot_elf_lookup(hooks[i].path, "_Unwind_Find_FDE", &hooks[i].offset, &size,
				  NULL, 0) || !size)
			hooks[i].refused = "no _Unwind_Find_FDE";
		hooks[i].size = size;
	}
	return nhook;
}

/* Where f is and its code, into pl: the region it needs, or refused. */
static void plan_one(struct ot_inject *in, struct ot_inject_fn *f, struct plan *pl)
{
	pl->reg = SIZE_MAX;
	if (f->refused)
		return;
	if (locate(in, f, pl, f->refused_buf, sizeof(f->refused_buf)))
		f->refused = f->refused_buf;
	else
		pl->reg = region_for(in, pl->text);
}

static size_t recovery_size(const struct ot_inject *in, size_t npatches)
{
	return 8 + OT_INJ_R_HEAD + in->nreg * OT_INJ_R_REG_SIZE + npatches * OT_INJ_R_PATCH_SIZE;
}

/* The regions (code, private, shared), mapped and set up in the process;
 * the first one, holding the system call gadget, written at once. */
static int map_all(struct ot_inject *in, const struct plan *pl, size_t n, size_t npatches)
{
	size_t *need = ot_xcalloc(in->nreg + 1, sizeof(*need)), i;
	int ret;

	for (i = 0; i < n; i++)
		if (pl[i].reg != SIZE_MAX)
			need[pl[i].reg] += TRAMP_MAX;
	need[0] += recovery_size(in, npatches);
	ret = map_regions(in, need);
	free(need);
	if (ret)
		return ret;
	in->t->gadget = in->rt + RT_OFF(ot_inj_rt_syscall);
	/* The gadget must be there before it runs. */
	ret = ot_tracee_write(in->t, in->reg[0].addr, in->reg[0].buf, in->reg[0].size);
	if (ret) {
		in->t->gadget = 0;
		ot_error_errno(-ret, "cannot write into process %d", (int)in->pid);
		return ret;
	}
	ret = map_data(in);
	if (!ret)
		ret = init_data(in);
	if (!ret)
		set_constants(in);
	return ret;
}

/*
 * The recovery table, in the first region: everything a later
 * orbit-trace needs to take it all back if this one dies
 * (ot_inject_recover).  Written with the region, before any patch.
 */
static void recovery_table(struct ot_inject *in)
{
	struct region *r0 = &in->reg[0];
	size_t at = (r0->used + 7) & ~(size_t)7, i;
	uint8_t *t = r0->buf + at;
	uint64_t addr = r0->addr + at, v;
	uint32_t w;

	v = OT_INJ_R_MAGIC;
	memcpy(t + OT_INJ_R_MAGIC_OFF, &v, 8);
	w = (uint32_t)getpid();
	memcpy(t + OT_INJ_R_TRACER, &w, 4);
	w = (uint32_t)in->npatches;
	memcpy(t + OT_INJ_R_NPATCH, &w, 4);
	w = (uint32_t)in->nreg;
	memcpy(t + OT_INJ_R_NREG, &w, 4);
	memcpy(t + OT_INJ_R_PRIV, &in->priv, 8);
	v = OT_INJ_PRIV_SIZE;
	memcpy(t + OT_INJ_R_PRIV_LEN, &v, 8);
	memcpy(t + OT_INJ_R_SHARED, &in->shared_t, 8);
	v = in->shared_len;
	memcpy(t + OT_INJ_R_SHARED_LEN, &v, 8);
	memcpy(t + OT_INJ_R_RET, &in->rt_ret, 8);
	t += OT_INJ_R_HEAD;
	for (i = 0; i < in->nreg; i++, t += OT_INJ_R_REG_SIZE) {
		v = in->reg[i].size;
		memcpy(t, &in->reg[i].addr, 8);
		memcpy(t + 8, &v, 8);
	}
	for (i = 0; i < in->npatches; i++, t += OT_INJ_R_PATCH_SIZE) {
		memset(t, 0, OT_INJ_R_PATCH_SIZE);
		memcpy(t, &in->patches[i].addr, 8);
		memcpy(t + 8, in->patches[i].orig, OT_PATCH_LEN);
		memcpy(t + 16, in->patches[i].jmp, OT_PATCH_LEN);
	}
	r0->used = (size_t)(t - r0->buf);
	memcpy(r0->buf + OT_INJ_REG_RECOVERY, &addr, 8);
}

/* Each function's trampoline, and the patch that leads there (not yet
 * written); the refused ones say why.  Returns the functions (not hooks). */
static size_t trampolines(struct ot_inject *in, struct ot_inject_fn *fn, size_t n,
			  struct ot_inject_fn *hooks, size_t nhook, struct plan *pl)
{
	size_t i, patched = 0;

	for (i = 0; i < n + nhook; i++) {
		struct ot_inject_fn *f = i < n ? &fn[i] : &hooks[i - n];
		struct patch *pa = &in->patches[in->npatches];

		if (f->refused)
			continue;
		if (trampoline(in, f->path, f->offset, &pl[i], (uint32_t)i, i >= n,
			       f->refused_buf, sizeof(f->refused_buf), pa)) {
			f->refused = f->refused_buf;
			continue;
		}
		pa->fn = i < n ? i : SIZE_MAX;
		in->npatches++;
		if (i < n)
			patched++;
		else
			in->info.unwinder = 1;
	}
	return patched;
}

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
	ret = read_maps(in);
	if (ret) {
		ot_error_errno(-ret, "cannot read the mappings of process %d", (int)in->pid);
		goto out;
	}
	for (i = 0; i < n; i++) {
		fn[i].refused = NULL;
		fn[i].unmapped = 0;
		plan_one(in, &fn[i], &pl[i]);
	}
	/* Nothing to patch in this program (each says why): nothing to ask of it. */
	if (!in->nreg)
		goto out;
	ret = process_facts(in);
	if (ret)
		goto out;
	nhook = unwinders(in, hooks);
	for (i = 0; i < nhook; i++)
		plan_one(in, &hooks[i], &pl[n + i]);
	ret = map_all(in, pl, n + nhook, n + nhook);
	if (ret)
		goto out;
	patched = trampolines(in, fn, n, hooks, nhook, pl);
	eh = mapped_eh(in);
	if (eh && !in->info.unwinder) {
		ot_error("cannot inject into process %d: %s has C++ exception tables and no unwinder "
			 "orbit-trace can hook (_Unwind_Find_FDE) is mapped: an exception through a "
			 "traced function would abort it", (int)in->pid, eh);
		ret = -ENOTSUP;
		in->npatches = 0;
		goto out;
	}
	recovery_table(in);
	ret = write_all(in);
	if (!ret) {
		in->info.patched = patched;
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
		sys(in, SYS_munmap, (long)in->shared_t, (long)in->shared_len, 0, 0, 0, 0);
	if (in->priv)
		sys(in, SYS_munmap, (long)in->priv, OT_INJ_PRIV_SIZE, 0, 0, 0, 0);
	for (i = in->nreg; i > 1; i--)
		sys(in, SYS_munmap, (long)in->reg[i - 1].addr, (long)in->reg[i - 1].size, 0, 0, 0, 0);
	/* The gadget's own region last, by the thread's own instruction. */
	in->t->gadget = 0;
	if (in->nreg && sys(in, SYS_munmap, (long)in->reg[0].addr, (long)in->reg[0].size,
			    0, 0, 0, 0))
		in->info.left_bytes = in->reg[0].size;
}

/*
 * With the threads held and the entries restored: no thread left inside
 * our code, every hijacked return address put back, our memory unmapped
 * - or left, saying why, when a thread may still need it.
 */
static void take_back(struct ot_inject *in)
{
	uint64_t *lo = ot_xcalloc(in->nreg + 1, sizeof(*lo)), *hi = ot_xcalloc(in->nreg + 1, sizeof(*hi));
	const struct map *gcc;
	size_t i, stuck = 0, in_unwinder = 0;

	for (i = 0; i < in->nreg; i++) {
		lo[i] = in->reg[i].addr;
		hi[i] = in->reg[i].addr + in->reg[i].size;
	}
	read_maps(in);
	gcc = mapped_lib(in, "libgcc_s.so");
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
		if (ot_tracee_write(in->t, in->patches[i].addr, in->patches[i].orig, OT_PATCH_LEN))
			ot_warn("cannot restore the entry of a function at 0x%" PRIx64 " in process %d",
				in->patches[i].addr, (int)in->pid);
	in->npatches = 0;
	take_back(in);
	ot_tracee_detach(in->t);
	in->info.disarm_pause_ns = ot_now_ns() - t0;
	return 0;
}

/* ---- what a killed orbit-trace left ---- */

/* The first code region another orbit-trace mapped in the process (its
 * name, then its recovery table), or 0. */
static uint64_t leftover_table(struct ot_inject *in)
{
	size_t i;

	for (i = 0; i < in->nmaps; i++) {
		const struct map *m = &in->maps[i];
		uint8_t head[OT_INJ_REG_HEAD];
		uint64_t table, magic;

		if (m->perms[2] != 'x' || m->path[0] || m->ino ||
		    ot_tracee_read(in->t, m->lo, head, sizeof(head)) ||
		    memcmp(head + REG_NAME, "orbit-trace", 12))
			continue;
		memcpy(&table, head + OT_INJ_REG_RECOVERY, 8);
		if (table && !ot_tracee_read(in->t, table, &magic, 8) && magic == OT_INJ_R_MAGIC)
			return table;
	}
	return 0;
}

/* Its table read back into in: regions, patches, data. 0 or -EIO. */
static int read_table(struct ot_inject *in, uint64_t table, uint32_t *tracer)
{
	uint8_t h[OT_INJ_R_HEAD];
	uint32_t np, nr;
	uint64_t v;
	size_t i;

	if (ot_tracee_read(in->t, table, h, sizeof(h)))
		return -EIO;
	memcpy(tracer, h + OT_INJ_R_TRACER, 4);
	memcpy(&np, h + OT_INJ_R_NPATCH, 4);
	memcpy(&nr, h + OT_INJ_R_NREG, 4);
	memcpy(&in->priv, h + OT_INJ_R_PRIV, 8);
	memcpy(&v, h + OT_INJ_R_PRIV_LEN, 8);
	if (in->priv && v != OT_INJ_PRIV_SIZE)
		return -EIO;	/* another layout than ours */
	memcpy(&in->shared_t, h + OT_INJ_R_SHARED, 8);
	memcpy(&v, h + OT_INJ_R_SHARED_LEN, 8);
	in->shared_len = (size_t)v;
	memcpy(&in->rt_ret, h + OT_INJ_R_RET, 8);
	if (np > OT_INJ_MAX_FUNCS + 2 || nr > OT_INJ_MAX_FUNCS + 2)
		return -EIO;
	in->reg = ot_xcalloc(nr + 1, sizeof(*in->reg));
	in->patches = ot_xcalloc(np + 1, sizeof(*in->patches));
	table += OT_INJ_R_HEAD;
	for (i = 0; i < nr; i++, table += OT_INJ_R_REG_SIZE) {
		uint64_t e[2];

		if (ot_tracee_read(in->t, table, e, sizeof(e)))
			return -EIO;
		in->reg[i].addr = e[0];
		in->reg[i].size = (size_t)e[1];
		in->info.code_bytes += e[1];
		in->nreg++;
	}
	for (i = 0; i < np; i++, table += OT_INJ_R_PATCH_SIZE) {
		uint8_t e[OT_INJ_R_PATCH_SIZE];

		if (ot_tracee_read(in->t, table, e, sizeof(e)))
			return -EIO;
		memcpy(&in->patches[i].addr, e, 8);
		memcpy(in->patches[i].orig, e + 8, OT_PATCH_LEN);
		memcpy(in->patches[i].jmp, e + 16, OT_PATCH_LEN);
		in->npatches++;
	}
	in->info.private_bytes = in->priv ? OT_INJ_PRIV_SIZE : 0;
	in->info.shared_bytes = in->shared_len;
	return 0;
}

/*
 * Put patch pa back if the file agrees: its saved bytes must be the
 * file's, and the process must hold the jump (or the bytes already).
 * 1 restored, 0 nothing to do, -1 kept with why.
 */
static int unpatch(struct ot_inject *in, const struct patch *pa, char *why, size_t whylen)
{
	uint8_t now[OT_PATCH_LEN], file[OT_PATCH_LEN];
	size_t i;
	int fd;

	for (i = 0; i < in->nmaps; i++)
		if (in->maps[i].path[0] == '/' && pa->addr >= in->maps[i].lo &&
		    pa->addr + OT_PATCH_LEN <= in->maps[i].hi)
			break;
	if (ot_tracee_read(in->t, pa->addr, now, sizeof(now)))
		return 0;	/* no longer mapped */
	if (!memcmp(now, pa->orig, sizeof(now)))
		return 0;
	if (i == in->nmaps) {
		snprintf(why, whylen, "0x%" PRIx64 " is in no file", pa->addr);
		return -1;
	}
	fd = open(in->maps[i].path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, file, sizeof(file), (off_t)(pa->addr - in->maps[i].lo +
							  in->maps[i].off)) != sizeof(file) ||
	    memcmp(file, pa->orig, sizeof(file)) || memcmp(now, pa->jmp, sizeof(now))) {
		snprintf(why, whylen, "the bytes at %s+0x%" PRIx64 " are neither its patch nor "
			 "the file's", in->maps[i].path, pa->addr - in->maps[i].lo + in->maps[i].off);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return ot_tracee_write(in->t, pa->addr, pa->orig, OT_PATCH_LEN) ? -1 : 1;
}

int ot_inject_recover(pid_t pid, struct ot_tracee *t, struct ot_inject_recovery *out)
{
	struct ot_inject *in = ot_xcalloc(1, sizeof(*in));
	uint64_t table;
	uint32_t tracer = 0, owner = 0;
	size_t i;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	in->pid = pid;
	in->t = t;
	in->memfd = in->file_fd = -1;
	if ((ret = read_maps(in)) || !(table = leftover_table(in)))
		goto out;
	ret = read_table(in, table, &tracer);
	if (ret)
		goto out;
	out->found = 1;
	out->tracer = (pid_t)tracer;
	/* Its owner mutex: held still, the orbit-trace that wrote it lives. */
	if (in->shared_t && !ot_tracee_read(t, in->shared_t + OT_INJ_H_OWNER, &owner, 4) &&
	    (owner & OT_INJ_OWNER_TID)) {
		ret = -EBUSY;
		goto out;
	}
	out->patches = in->npatches;
	for (i = 0; i < in->npatches; i++) {
		int r = unpatch(in, &in->patches[i], out->why, sizeof(out->why));

		out->restored += r > 0;
		out->kept += r < 0;
	}
	in->npatches = 0;
	/* Code a patch still leads to stays: a thread may run it. */
	if (out->kept) {
		out->left_bytes = in->info.code_bytes + in->info.private_bytes + in->info.shared_bytes;
		out->left_why = "a patch could not be taken back";
		goto out;
	}
	take_back(in);
	out->returns_restored = in->info.returns_restored;
	out->left_bytes = in->info.left_bytes;
	out->left_why = in->info.left_why;
	out->unmapped_bytes = in->info.code_bytes + in->info.private_bytes +
			      in->info.shared_bytes - in->info.left_bytes;
out:
	ot_inject_free(in);
	return ret;
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
	free_maps(in);
	free(in);
}

const struct ot_inject_info *ot_inject_info(const struct ot_inject *in)
{
	return &in->info;
}
