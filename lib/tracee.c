#include "tracee.h"
#include "xalloc.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static int known(const struct ot_tracee *t, pid_t tid)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->tids[i] == tid)
			return 1;
	return 0;
}

/* Seize and stop tid; 0, 1 if it is gone already, or -errno. */
static int stop_one(pid_t tid)
{
	int status;

	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL))
		return errno == ESRCH ? 1 : -errno;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL))
		return errno == ESRCH ? 1 : -errno;
	/* __WALL: it is a thread of another process, not our child. */
	for (;;) {
		if (waitpid(tid, &status, __WALL) < 0)
			return errno == ECHILD ? 1 : -errno;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return 1;
		if (WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_STOP)
			return 0;
		/* A signal arrived first: it stays pending, delivered on detach. */
		if (WIFSTOPPED(status) &&
		    ptrace(PTRACE_CONT, tid, NULL, (void *)(long)WSTOPSIG(status)))
			return errno == ESRCH ? 1 : -errno;
	}
}

/* Stop every thread of t->pid not in t yet, until a pass finds none new. */
static int stop_all(struct ot_tracee *t, const char **why)
{
	char path[64];
	int added;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pid);
	do {
		struct dirent *d;
		DIR *dir = opendir(path);

		if (!dir) {
			int err = errno;

			*why = err == ENOENT ? "no such process" : "cannot read its threads";
			return -err;
		}
		added = 0;
		while ((d = readdir(dir))) {
			pid_t tid = (pid_t)atoi(d->d_name);
			int ret;

			if (tid <= 0 || known(t, tid))
				continue;
			ret = stop_one(tid);
			if (ret < 0) {
				closedir(dir);
				*why = ret == -EPERM ? "the kernel refuses ptrace (another tracer holds "
						       "it - gdb, strace - or Yama's ptrace_scope)" :
						       "cannot stop it with ptrace";
				return ret;
			}
			if (ret)
				continue;	/* exited meanwhile */
			t->tids = ot_xreallocarray(t->tids, t->n + 1, sizeof(*t->tids));
			t->tids[t->n++] = tid;
			added = 1;
		}
		closedir(dir);
	} while (added);	/* until a pass finds no new thread */
	if (!t->n) {
		*why = "it has exited";
		return -ESRCH;
	}
	return 0;
}

static void init(struct ot_tracee *t, pid_t pid)
{
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->mem_fd = -1;
}

int ot_tracee_attach(pid_t pid, struct ot_tracee *t, const char **why)
{
	int ret;

	init(t, pid);
	*why = NULL;
	ret = stop_all(t, why);
	if (ret)
		ot_tracee_detach(t);
	return ret;
}

int ot_tracee_adopt(pid_t pid, struct ot_tracee *t, const char **why)
{
	int ret;

	init(t, pid);
	*why = NULL;
	t->tids = ot_xreallocarray(NULL, 1, sizeof(*t->tids));
	t->tids[t->n++] = pid;
	t->adopted = 1;
	ret = stop_all(t, why);
	if (ret)
		ot_tracee_detach(t);
	return ret;
}

int ot_ptrace_regs(pid_t tid, struct user_regs_struct *r)
{
	struct iovec io = { r, sizeof(*r) };

	return ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &io) ? -errno : 0;
}

int ot_ptrace_set_regs(pid_t tid, struct user_regs_struct *r)
{
	struct iovec io = { r, sizeof(*r) };

	return ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &io) ? -errno : 0;
}


/* len bytes of the tracee at addr, through /proc/PID/mem (kept open). */
static int mem_io(struct ot_tracee *t, uint64_t addr, void *buf, size_t len, int write)
{
	size_t done = 0;

	if (t->mem_fd < 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)t->pid);
		t->mem_fd = open(path, O_RDWR | O_CLOEXEC);
		if (t->mem_fd < 0)
			return -errno;
	}
	while (done < len) {
		ssize_t n = write ? pwrite(t->mem_fd, (char *)buf + done, len - done,
					   (off_t)(addr + done)) :
				    pread(t->mem_fd, (char *)buf + done, len - done,
					  (off_t)(addr + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 && errno != EIO ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

int ot_tracee_read(struct ot_tracee *t, uint64_t addr, void *buf, size_t len)
{
	return mem_io(t, addr, buf, len, 0);
}

int ot_tracee_write(struct ot_tracee *t, uint64_t addr, const void *buf, size_t len)
{
	return mem_io(t, addr, (void *)buf, len, 1);
}

int ot_tracee_regs(const struct ot_tracee *t, size_t i, struct user_regs_struct *r)
{
	return i < t->n ? ot_ptrace_regs(t->tids[i], r) : -EINVAL;
}

long ot_tracee_syscall(struct ot_tracee *t, long nr, const long args[6])
{
#if defined(__x86_64__)
	uint8_t insn[2] = { 0x0f, 0x05 };	/* syscall */
	struct user_regs_struct saved, r;
	pid_t tid = t->tids[0];
	uint8_t orig[2];
	long ret;
	int status, err;

	err = ot_ptrace_regs(tid, &saved);
	if (err)
		return err;
	r = saved;
	if (t->gadget) {
		r.rip = t->gadget;
	} else {
		/* The stopped thread's own instruction becomes `syscall` for one step. */
		err = mem_io(t, saved.rip, orig, sizeof(orig), 0);
		if (!err)
			err = mem_io(t, saved.rip, insn, sizeof(insn), 1);
		if (err)
			return err;
	}
	r.rax = (unsigned long long)nr;
	r.rdi = (unsigned long long)args[0];
	r.rsi = (unsigned long long)args[1];
	r.rdx = (unsigned long long)args[2];
	r.r10 = (unsigned long long)args[3];
	r.r8 = (unsigned long long)args[4];
	r.r9 = (unsigned long long)args[5];
	/* Not inside a system call to restart: ours runs as it is. */
	r.orig_rax = (unsigned long long)-1;
	err = ot_ptrace_set_regs(tid, &r);
	if (!err && ptrace(PTRACE_SINGLESTEP, tid, NULL, NULL))
		err = -errno;
	while (!err) {
		if (waitpid(tid, &status, __WALL) < 0) {
			err = -errno;
			break;
		}
		if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP)
			break;
		if (!WIFSTOPPED(status)) {
			err = -ESRCH;
			break;
		}
		/* Another signal stopped it first: step again, keep it pending. */
		if (ptrace(PTRACE_SINGLESTEP, tid, NULL, NULL))
			err = -errno;
	}
	ret = err;
	if (!err && !ot_ptrace_regs(tid, &r))
		ret = (long)r.rax;
	/* As it was: code, then registers (an interrupted call restarts). */
	if (!t->gadget)
		mem_io(t, saved.rip, orig, sizeof(orig), 1);
	ot_ptrace_set_regs(tid, &saved);
	return ret;
#else
	(void)t;
	(void)nr;
	(void)args;
	return -ENOTSUP;
#endif
}

uint64_t ot_tracee_mmap_near(struct ot_tracee *t, uint64_t near, size_t size, int prot,
			     const char **why)
{
	const uint64_t reach = 1ull << 31, step = 1ull << 24;
	uint64_t hint;

	*why = NULL;
	/* Ask for free places below and above near until one is given in reach. */
	for (hint = step; hint < reach - size; hint += step) {
		int dir;

		for (dir = -1; dir <= 1; dir += 2) {
			uint64_t want = dir < 0 ? near - hint : near + hint;
			long args[6] = { (long)(want & ~0xfffull), (long)size, prot,
					 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0 };
			long got;

			if (dir < 0 && hint > near)
				continue;
			got = ot_tracee_syscall(t, SYS_mmap, args);
			if (got == -EEXIST || got == -ENOMEM)
				continue;	/* taken: try further away */
			if (got < 0 && got > -4096) {
				*why = "mmap in the target failed";
				return 0;
			}
			if ((uint64_t)got - near + reach < 2 * reach - size)
				return (uint64_t)got;
			/* Given elsewhere (an old kernel ignoring the flag): give it back. */
			args[0] = got;
			args[1] = (long)size;
			ot_tracee_syscall(t, SYS_munmap, args);
		}
	}
	*why = "no free address within 2 GiB of the code";
	return 0;
}

/*
 * A step through popf (code that saves and restores the flags, as the
 * inject runtime does) pushes the kernel's trap flag and pops it back as
 * the program's own: the kernel then no longer clears it, and the thread
 * would trap (SIGTRAP) once let go.  Clear it after stepping.
 */
static int steps_done(pid_t tid, int ret)
{
	struct user_regs_struct r;

	if (!ot_ptrace_regs(tid, &r) && (r.eflags & 0x100)) {	/* X86_EFLAGS_TF */
		r.eflags &= ~0x100ull;
		ot_ptrace_set_regs(tid, &r);
	}
	return ret;
}

int ot_tracee_step_out(struct ot_tracee *t, size_t i, const uint64_t *lo, const uint64_t *hi,
		       size_t nranges, unsigned max_steps)
{
	pid_t tid = t->tids[i];
	unsigned step;

	for (step = 0;; step++) {
		struct user_regs_struct r;
		int status, sig = 0, err = ot_ptrace_regs(tid, &r);
		size_t k;

		if (err)
			return err;
		for (k = 0; k < nranges; k++)
			if (r.rip >= lo[k] && r.rip < hi[k])
				break;
		if (k == nranges)
			return step ? steps_done(tid, 0) : 0;
		/* In a system call (one the code made, in a trampoline): a step
		 * would run it to its end, however long that is. */
		if ((long long)r.orig_rax >= 0 || step == max_steps)
			return step ? steps_done(tid, 1) : 1;
		for (;;) {
			if (ptrace(PTRACE_SINGLESTEP, tid, NULL, (void *)(long)sig))
				return errno == ESRCH ? -ESRCH : -errno;
			if (waitpid(tid, &status, __WALL) < 0)
				return -errno;
			if (!WIFSTOPPED(status))
				return -ESRCH;
			if (WSTOPSIG(status) == SIGTRAP)
				break;
			/* A signal came first: deliver it with the step (its
			 * handler's code is out of the range). */
			sig = WSTOPSIG(status);
		}
	}
}

void ot_tracee_detach(struct ot_tracee *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		ptrace(PTRACE_DETACH, t->tids[i], NULL, NULL);
	free(t->tids);
	t->tids = NULL;
	t->n = 0;
	t->adopted = 0;
	if (t->mem_fd >= 0)
		close(t->mem_fd);
	t->mem_fd = -1;
}
