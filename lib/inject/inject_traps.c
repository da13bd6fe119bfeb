/*
 * Breakpoints where a traced process must be let go: LeakSanitizer's
 * StopTheWorld, and execve under an unprivileged capture (a set-user-ID
 * program would run without its privileges); what a thread held at one
 * is about.
 */
#include "inject_traps.h"
#include "inject.h"
#include "inject_state.h"
#include "process/procfs.h"
#include "symbols/elfsym.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

/* An int3 at addr as a patch of one byte (not over another patch, nor
 * over someone's breakpoint): 0, or -1. */
static int trap_at(struct ot_inject *in, uint64_t addr)
{
	struct patch *pa = &in->patches[in->npatches];
	size_t i;

	for (i = 0; i < in->npatches; i++)
		if (in->patches[i].addr < addr + OT_PATCH_LEN &&
		    addr < in->patches[i].addr + in->patches[i].covered)
			return -1;	/* traced: the function's own patch is there */
	if (ot_tracee_read(in->t, addr, pa->orig, OT_PATCH_LEN) || pa->orig[0] == 0xcc)
		return -1;
	pa->addr = addr;
	memcpy(pa->jmp, pa->orig, OT_PATCH_LEN);
	pa->jmp[0] = 0xcc;
	pa->covered = 1;
	pa->fn = SIZE_MAX;
	in->npatches++;
	return 0;
}

/* Whether this process holds CAP_SYS_PTRACE: then the kernel keeps a
 * set-user-ID program's privileges under our ptrace. */
static int may_ptrace(void)
{
	char val[64];

	return !ot_proc_status_field("/proc/self/status", "CapEff:", val, sizeof(val)) &&
	       (strtoull(val, NULL, 16) >> 19 & 1);	/* CAP_SYS_PTRACE */
}

/* libc's execve in the process, or 0. */
static uint64_t execve_at(const struct ot_inject *in)
{
	const struct ot_proc_map *libc = ot_proc_maps_lib(in->maps, in->nmaps, "libc.so.6");
	uint64_t off, size;

	if (!libc || ot_elf_lookup_dynamic(libc->path, "execve", &off, &size) ||
	    off < libc->off || off - libc->off >= libc->hi - libc->lo)
		return 0;
	return libc->lo + off - libc->off;
}

void inject_traps_plan(struct ot_inject *in)
{
	if (in->leak_check && trap_at(in, in->leak_check)) {
		ot_verbose("process %d: LeakSanitizer's start is patched (traced): its leak check "
			   "at exit will fail under ptrace", (int)in->pid);
		in->leak_check = 0;
	}
	in->exec_trap = may_ptrace() ? 0 : execve_at(in);
	if (in->exec_trap && trap_at(in, in->exec_trap))
		in->exec_trap = 0;
	if (in->exec_trap)
		in->exec_orig = in->patches[in->npatches - 1].orig[0];
}

void inject_traps_armed(struct ot_inject *in)
{
	if (in->leak_check)
		ot_tracee_trap_add(in->t, in->leak_check);
	if (in->exec_trap)
		ot_tracee_trap_add(in->t, in->exec_trap);
}

void inject_exec_trap(struct ot_inject *in, int on)
{
	uint8_t b = on ? 0xcc : in->exec_orig;

	if (!in->exec_trap || in->removed || in->execd || in->exec_trap_out == !on)
		return;
	if (!ot_tracee_write(in->t, in->exec_trap, &b, 1))
		in->exec_trap_out = !on;
}

/* The path thread tid passes execve (its first argument) into path, and resolved as
 * the process sees it into full: 0, or -1. */
static int exec_path(struct ot_inject *in, pid_t tid, char *path, size_t plen, char *full,
		     size_t len)
{
	struct user_regs_struct r;
	size_t k;

	if (ot_ptrace_regs(tid, &r))
		return -1;
	for (k = 0; k < plen - 1; k++)
		if (ot_tracee_read(in->t, ot_ptregs_arg1(&r) + k, &path[k], 1) || !path[k])
			break;
	path[k] = 0;
	if (!k)
		return -1;
	snprintf(full, len, "/proc/%d/%s/%s", (int)in->pid, path[0] == '/' ? "root" : "cwd", path);
	return 0;
}

/* Whether the program at full would run with privileges thread tid lacks
 * (set-user-ID or -group to another, or file capabilities): why. */
static int privileged(pid_t pid, pid_t tid, const char *full, const char *shown, char *why,
		      size_t len)
{
	unsigned long ruid, euid, rgid, egid;
	char path[64], val[128];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (stat(full, &st) || !S_ISREG(st.st_mode) ||
	    ot_proc_status_field(path, "Uid:", val, sizeof(val)) ||
	    sscanf(val, "%lu %lu", &ruid, &euid) != 2 ||
	    ot_proc_status_field(path, "Gid:", val, sizeof(val)) ||
	    sscanf(val, "%lu %lu", &rgid, &egid) != 2)
		return 0;
	if (((st.st_mode & S_ISUID) && euid != (unsigned long)st.st_uid) ||
	    ((st.st_mode & S_ISGID) && egid != (unsigned long)st.st_gid) ||
	    getxattr(full, "security.capability", NULL, 0) > 0) {
		snprintf(why, len, "before it exec'd %s, a program with privileges of its own "
			 "(set-user-ID, set-group-ID or file capabilities), which the kernel runs "
			 "without them under a tracer without CAP_SYS_PTRACE", shown);
		return 1;
	}
	return 0;
}

int ot_inject_trapped(struct ot_inject *in, char *why, size_t len)
{
	char path[4096], full[4200];
	pid_t tid = in->t->trap_tid;
	uint64_t at = in->t->trap_addr;

	if (at == in->leak_check) {
		snprintf(why, len, "at its LeakSanitizer leak check at exit, which cannot stop "
			 "threads held with ptrace");
		return 1;
	}
	if (at != in->exec_trap)
		return -EINVAL;
	if (!exec_path(in, tid, path, sizeof(path), full, sizeof(full)) &&
	    privileged(in->pid, tid, full, path, why, len))
		return 1;
	/* An ordinary program: execve's first instruction run, then on. */
	return ot_tracee_step_over(in->t, tid, at, in->exec_orig);
}
