/*
 * tracee.c - a live process held with ptrace (tracee.h): threads stopped,
 * memory read and written, system calls run in it; watched while it runs.
 */
#include "tracee.h"
#include "procfs.h"
#include "util/xalloc.h"
#include "arch/arch.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

/* Thread states (struct ot_tracee st[]). */
enum { TH_HELD, TH_RUNNING, TH_GSTOP_HELD, TH_GSTOP };

/* mem_fd when /proc/PID/mem is not ours to open: ptrace, a word at a time. */
#define MEM_BY_PTRACE (-2)

/* TRACESYSGOOD: a system-call stop of ours the kernel would turn into a
 * SIGTRAP, were we killed there, becomes an invalid signal, dropped. */
#define WATCH_OPTIONS (PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
		       PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACESYSGOOD)

static ssize_t index_of(const struct ot_tracee *t, pid_t tid)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->tids[i] == tid)
			return (ssize_t)i;
	return -1;
}

static size_t add(struct ot_tracee *t, pid_t tid, int state)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->tids = ot_xreallocarray(t->tids, t->cap, sizeof(*t->tids));
		t->nstids = ot_xreallocarray(t->nstids, t->cap, sizeof(*t->nstids));
		t->sig = ot_xreallocarray(t->sig, t->cap, sizeof(*t->sig));
		t->st = ot_xreallocarray(t->st, t->cap, sizeof(*t->st));
	}
	t->tids[t->n] = tid;
	/* Read while it is there to be read: a new thread is, at its clone. */
	t->nstids[t->n] = t->nested ? ot_proc_nstid(t->pid, tid) : tid;
	t->sig[t->n] = 0;
	t->st[t->n] = (unsigned char)state;
	return t->n++;
}

static void drop(struct ot_tracee *t, size_t i)
{
	if (t->nested) {
		pid_t *g = t->gone[t->ngone++ % OT_TRACEE_GONE];

		g[0] = t->tids[i];
		g[1] = t->nstids[i];
	}
	t->n--;
	t->tids[i] = t->tids[t->n];
	t->nstids[i] = t->nstids[t->n];
	t->sig[i] = t->sig[t->n];
	t->st[i] = t->st[t->n];
	if (t->adopted > t->n)
		t->adopted = t->n;
}

/* ---- children the kernel attached (forks and vforks) ---- */

static struct ot_tracee_kid *kid_of(struct ot_tracee *t, pid_t pid)
{
	size_t i;

	for (i = 0; i < t->nkids; i++)
		if (t->kids[i].pid == pid)
			return &t->kids[i];
	return NULL;
}

/* Child pid is known: its parent thread (0 not yet), whether a vfork's,
 * whether its first stop was seen. */
static void kid_add(struct ot_tracee *t, pid_t pid, pid_t parent, int vfork, int stopped)
{
	struct ot_tracee_kid *k = kid_of(t, pid);

	if (!k) {
		if (t->nkids == t->kidcap) {
			t->kidcap = t->kidcap ? 2 * t->kidcap : 4;
			t->kids = ot_xreallocarray(t->kids, t->kidcap, sizeof(*t->kids));
		}
		k = &t->kids[t->nkids++];
		memset(k, 0, sizeof(*k));
		k->pid = pid;
	}
	if (parent) {
		k->parent = parent;
		k->vfork = (unsigned char)vfork;
	}
	k->stopped |= (unsigned char)stopped;
}

static void vdone_add(struct ot_tracee *t, pid_t tid)
{
	if (t->nvdone == t->vdonecap) {
		t->vdonecap = t->vdonecap ? 2 * t->vdonecap : 4;
		t->vdone = ot_xreallocarray(t->vdone, t->vdonecap, sizeof(*t->vdone));
	}
	t->vdone[t->nvdone++] = tid;
}

/* Whether tid, stopped under us and not one of our threads, is a thread
 * of another process: a child the kernel attached before its parent's
 * event said so. */
static int other_process(const struct ot_tracee *t, pid_t tid)
{
	char path[64], val[32];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	return !ot_proc_status_field(path, "Tgid:", val, sizeof(val)) && atoi(val) != (int)t->pid;
}

/* A fork or vfork event of thread tid: its child, to hand out. */
static void forked(struct ot_tracee *t, pid_t tid, int event)
{
	unsigned long msg;

	if (!ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) && msg)
		kid_add(t, (pid_t)msg, tid, event == PTRACE_EVENT_VFORK, 0);
}

static int kids_pending(const struct ot_tracee *t)
{
	size_t i;

	for (i = 0; i < t->nkids; i++)
		if (t->kids[i].parent)
			return 1;
	return t->nvdone > 0;
}

pid_t ot_tracee_next_kid(struct ot_tracee *t, int *vfork, pid_t *parent)
{
	size_t i;

	for (i = 0; i < t->nkids; i++) {
		struct ot_tracee_kid k = t->kids[i];
		int status;

		if (!k.parent)
			continue;	/* its parent's event is still to come */
		t->kids[i] = t->kids[--t->nkids];
		/* Its first stop comes at once (it was just made): then it is
		 * held at its first instruction. */
		while (!k.stopped) {
			if (waitpid(k.pid, &status, __WALL) < 0 || !WIFSTOPPED(status))
				break;
			k.stopped = 1;
		}
		if (!k.stopped)
			return ot_tracee_next_kid(t, vfork, parent);	/* gone already */
		*vfork = k.vfork;
		*parent = k.parent;
		return k.pid;
	}
	return 0;
}

void ot_tracee_kid_detach(pid_t pid)
{
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
}

pid_t ot_tracee_next_vfork_done(struct ot_tracee *t)
{
	return t->nvdone ? t->vdone[--t->nvdone] : 0;
}

static int is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Seize and stop tid; 0 with *sig the signal it stopped for first (to
 * deliver later; 0 none), 1 if it is gone already, or -errno. */
static int stop_one(pid_t tid, int *sig)
{
	int status;

	*sig = 0;
	if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)(long)PTRACE_O_TRACESYSGOOD))
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
		/* A signal arrived first: kept, and delivered when it runs on
		 * (our interrupt is still to come). */
		if (WIFSTOPPED(status)) {
			*sig = WSTOPSIG(status);
			if (ptrace(PTRACE_CONT, tid, NULL, NULL))
				return errno == ESRCH ? 1 : -errno;
		}
	}
}

/* Thread tid of pid has ended (a first thread that called pthread_exit
 * while the others run on): nothing to stop. */
static int ended(pid_t pid, pid_t tid)
{
	char path[64], st;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	return !ot_proc_stat(path, &st, NULL) && (st == 'Z' || st == 'X');
}

/* Why PTRACE_SEIZE of pid was refused (EPERM): the tracer named, an
 * orbit-trace capture's said to be one (--restore must wait for its end). */
static const char *refused_why(pid_t pid)
{
	static char why[160];
	char path[64], val[64] = "", comm[16];

	if (pid == getpid())
		return "it is this orbit-trace: no process may ptrace itself";
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!ot_proc_status_field(path, "TracerPid:", val, sizeof(val)) && atoi(val)) {
		if (ot_proc_comm(atoi(val), comm, sizeof(comm)))
			snprintf(comm, sizeof(comm), "?");
		if (!strcmp(comm, "orbit-trace"))
			snprintf(why, sizeof(why), "an orbit-trace capture (pid %d) holds it: it "
				 "takes its patches back itself when it ends (SIGINT); wait for "
				 "that, or end it", atoi(val));
		else
			snprintf(why, sizeof(why), "the kernel refuses ptrace: another tracer "
				 "holds it (pid %d, %s)", atoi(val), comm);
		return why;
	}
	if (!ot_proc_read_file("/proc/sys/kernel/yama/ptrace_scope", val, sizeof(val)) &&
	    atoi(val) >= 1)
		return atoi(val) >= 3 ? "the kernel refuses ptrace: Yama's ptrace_scope is 3 "
					"(no process may be traced)" :
					"the kernel refuses ptrace: Yama's ptrace_scope only "
					"lets a parent trace it without CAP_SYS_PTRACE (sudo, or "
					"sysctl kernel.yama.ptrace_scope=0)";
	return "the kernel refuses ptrace (another tracer holds it - gdb, strace - or a "
	       "security module)";
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
			int ret, sig;
			size_t k;

			if (tid <= 0 || index_of(t, tid) >= 0 || ended(t->pid, tid))
				continue;
			ret = stop_one(tid, &sig);
			if (ret < 0) {
				closedir(dir);
				*why = ret == -EPERM ? refused_why(t->pid) : "cannot stop it with ptrace";
				return ret;
			}
			if (ret)
				continue;	/* exited meanwhile */
			k = add(t, tid, TH_HELD);
			t->sig[k] = sig;	/* after add: it may move the array */
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
	pid_t ns = ot_proc_nstid(pid, pid);

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->mem_fd = -1;
	/* Its pid namespace's id for its first thread: another than ours in
	 * a container (0: gone, which stop_all then says). */
	t->nested = ns && ns != pid;
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
	add(t, pid, TH_HELD);
	t->adopted = 1;
	ret = stop_all(t, why);
	if (ret)
		ot_tracee_detach(t);
	return ret;
}

int ot_tracee_watch(struct ot_tracee *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (ptrace(PTRACE_SETOPTIONS, t->tids[i], NULL, (void *)(long)WATCH_OPTIONS) &&
		    errno != ESRCH)
			return -errno;
	t->watching = 1;
	return 0;
}

/* Let thread i run on: its signal delivered, a group stop kept. */
static void run_one(struct ot_tracee *t, size_t i)
{
	if (t->st[i] == TH_GSTOP_HELD) {
		ptrace(PTRACE_LISTEN, t->tids[i], NULL, NULL);
		t->st[i] = TH_GSTOP;
		return;
	}
	ptrace(PTRACE_CONT, t->tids[i], NULL, (void *)(long)t->sig[i]);
	t->sig[i] = 0;
	t->st[i] = TH_RUNNING;
}

void ot_tracee_resume(struct ot_tracee *t)
{
	size_t i;

	if (!t->watching) {
		ot_tracee_detach(t);
		return;
	}
	for (i = 0; i < t->n; i++)
		if (t->st[i] == TH_HELD || t->st[i] == TH_GSTOP_HELD)
			run_one(t, i);
}

/*
 * The process exec'd (tid is its one thread now, with the leader's id):
 * every other thread is gone, and with the old program its memory.
 */
static void execed(struct ot_tracee *t, pid_t tid)
{
	size_t i;

	for (i = t->n; i-- > 0;)
		if (t->tids[i] != tid)
			drop(t, i);
	if (!t->n)
		add(t, tid, TH_HELD);
	t->st[0] = TH_HELD;
	t->sig[0] = 0;
	t->gadget = t->gadget_saved = 0;
	t->bp = 0;
	t->ntraps = 0;		/* the caller's were in the old program */
	t->trap_tid = 0;
	if (t->mem_fd >= 0)
		close(t->mem_fd);	/* it was the old program's memory */
	t->mem_fd = -1;
}

int ot_tracee_trap_add(struct ot_tracee *t, uint64_t addr)
{
	if (t->ntraps == sizeof(t->traps) / sizeof(*t->traps))
		return -ENOSPC;
	t->traps[t->ntraps++] = addr;
	return 0;
}

/* Thread i stopped by SIGTRAP: 1 if at a breakpoint of the caller's (it
 * is held there, back at its address, reported once), else 0. */
static int at_trap(struct ot_tracee *t, size_t i)
{
	struct user_regs_struct r;
	size_t k;

	if (!t->ntraps || ot_ptrace_regs(t->tids[i], &r))
		return 0;
	for (k = 0; k < t->ntraps && t->traps[k] + OT_ARCH_TRAP_ADVANCE != ot_ptregs_pc(&r); k++)
		;
	if (k == t->ntraps)
		return 0;
	ot_ptregs_set_pc(&r, t->traps[k]);
	if (ot_ptrace_set_regs(t->tids[i], &r))
		return 0;
	if (!t->trap_tid) {
		t->trap_tid = t->tids[i];
		t->trap_addr = t->traps[k];
	}
	return 1;
}

static int steps_done(pid_t tid, int ret);

int ot_tracee_step_over(struct ot_tracee *t, pid_t tid, uint64_t addr, unsigned char orig)
{
	unsigned char trap = 0xcc;
	ssize_t i = index_of(t, tid);
	int status, sig = 0, ret;

	if (i < 0)
		return -ESRCH;
	ret = ot_tracee_write(t, addr, &orig, 1);
	while (!ret) {
		if (ptrace(PTRACE_SINGLESTEP, tid, NULL, (void *)(long)sig)) {
			ret = -errno;
			break;
		}
		if (waitpid(tid, &status, __WALL) < 0 || !WIFSTOPPED(status)) {
			ret = -ESRCH;
			break;
		}
		if (WSTOPSIG(status) == SIGTRAP)
			break;
		sig = WSTOPSIG(status);	/* a signal first: delivered with the step */
	}
	/* Back, whatever happened: a thread that died there needs it no more. */
	ot_tracee_write(t, addr, &trap, 1);
	t->trap_tid = 0;
	return ret ? ret : steps_done(tid, 0);
}

/* Thread i reached the breakpoint of run_to_entry: put the byte back, the
 * thread on it.  1 if it is there, else 0. */
static int at_entry(struct ot_tracee *t, size_t i)
{
	struct user_regs_struct r;

	if (t->tids[i] != t->pid || ot_ptrace_regs(t->pid, &r) ||
	    ot_ptregs_pc(&r) != t->bp + OT_ARCH_TRAP_ADVANCE)
		return 0;
	ot_ptregs_set_pc(&r, t->bp);
	if (ot_tracee_write(t, t->bp, &t->bp_orig, 1) || ot_ptrace_set_regs(t->pid, &r))
		return 0;
	t->bp = 0;
	return 1;
}

/*
 * One stop of thread tid (status from waitpid) while the process runs:
 * handled, and 0 - or the event the caller must see, the thread held.
 */
static enum ot_tracee_ev on_stop(struct ot_tracee *t, pid_t tid, int status)
{
	ssize_t at = index_of(t, tid);
	int sig = WSTOPSIG(status), event = status >> 16;
	unsigned long msg;
	size_t i;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (at >= 0)
			drop(t, (size_t)at);
		return OT_TEV_NONE;
	}
	if (!WIFSTOPPED(status))
		return OT_TEV_NONE;
	/* A child's first stop, before or after its parent's event: it stays
	 * held until the caller takes it. */
	if (at < 0 && (kid_of(t, tid) || other_process(t, tid))) {
		kid_add(t, tid, 0, 0, 1);
		return kids_pending(t) ? OT_TEV_KIDS : OT_TEV_NONE;
	}
	/* A new thread may stop before its creator's event names it. */
	i = at >= 0 ? (size_t)at : add(t, tid, TH_RUNNING);
	t->st[i] = TH_HELD;
	switch (event) {
	case PTRACE_EVENT_EXEC:
		execed(t, tid);
		return OT_TEV_EXEC;
	case PTRACE_EVENT_CLONE:
		if (!ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) && index_of(t, (pid_t)msg) < 0)
			add(t, (pid_t)msg, TH_RUNNING);	/* its own stop comes */
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		/* Held, with its child, until the caller has seen it. */
		forked(t, tid, event);
		return OT_TEV_KIDS;
	case PTRACE_EVENT_VFORK_DONE:
		vdone_add(t, tid);
		return OT_TEV_KIDS;
	case PTRACE_EVENT_STOP:
		if (is_stop_signal(sig))
			t->st[i] = TH_GSTOP_HELD;	/* a group stop: it stays stopped */
		break;
	case 0:
		if (t->bp && sig == SIGTRAP && at_entry(t, i))
			return OT_TEV_ENTRY;
		if (sig == SIGTRAP && at_trap(t, i))
			return OT_TEV_TRAP;
		t->sig[i] = sig;	/* a signal: passed on as it was sent */
		break;
	default:
		break;
	}
	run_one(t, i);
	return OT_TEV_NONE;
}

enum ot_tracee_ev ot_tracee_poll(struct ot_tracee *t)
{
	/* Children a hold saw, a breakpoint it met: the caller's first. */
	if (kids_pending(t))
		return OT_TEV_KIDS;
	if (t->trap_tid)
		return OT_TEV_TRAP;
	for (;;) {
		siginfo_t si;
		int status;
		enum ot_tracee_ev ev;

		memset(&si, 0, sizeof(si));
		/* A look first: the process's own exit is not ours to reap. */
		if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) ||
		    !si.si_pid)
			return OT_TEV_NONE;
		if (si.si_pid == t->pid && si.si_code != CLD_TRAPPED && si.si_code != CLD_STOPPED &&
		    si.si_code != CLD_CONTINUED) {
			t->n = 0;
			return OT_TEV_GONE;
		}
		if (waitpid(si.si_pid, &status, __WALL | WNOHANG) <= 0)
			return OT_TEV_NONE;
		ev = on_stop(t, si.si_pid, status);
		if (ev != OT_TEV_NONE)
			return ev;
	}
}

/* Wait until thread i is held; 0, 1 if it exec'd meanwhile (the one
 * thread left), or -ESRCH if it is gone. */
static int hold_one(struct ot_tracee *t, size_t i)
{
	pid_t tid = t->tids[i];
	int status, sig, event;
	unsigned long msg;
	char st = ot_proc_state(tid);

	/* A leader that ended (pthread_exit) while others run stops no more. */
	if (!st || st == 'Z' || st == 'X') {
		t->st[i] = TH_HELD;
		return 0;
	}
	if (waitpid(tid, &status, __WALL) < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
		drop(t, i);
		return -ESRCH;
	}
	if (!WIFSTOPPED(status))
		return 0;
	sig = WSTOPSIG(status);
	event = status >> 16;
	t->st[i] = TH_HELD;
	if (event == PTRACE_EVENT_EXEC) {
		execed(t, tid);
		return 1;
	}
	if (event == PTRACE_EVENT_CLONE &&
	    !ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) && index_of(t, (pid_t)msg) < 0)
		add(t, (pid_t)msg, TH_RUNNING);
	else if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK)
		forked(t, tid, event);	/* handed out after the hold */
	else if (event == PTRACE_EVENT_VFORK_DONE)
		vdone_add(t, tid);
	else if (!event && sig == SIGTRAP && at_trap(t, i))
		;	/* reported after the hold */
	else if (event == PTRACE_EVENT_STOP && is_stop_signal(sig))
		t->st[i] = TH_GSTOP_HELD;
	else if (!event)
		t->sig[i] = sig;
	return 0;
}

int ot_tracee_hold(struct ot_tracee *t)
{
	size_t i;
	int ret;

	for (i = 0; i < t->n; i++)
		if (t->st[i] == TH_RUNNING || t->st[i] == TH_GSTOP)
			ptrace(PTRACE_INTERRUPT, t->tids[i], NULL, NULL);
	for (;;) {
		for (i = 0; i < t->n; i++)
			if (t->st[i] == TH_RUNNING || t->st[i] == TH_GSTOP)
				break;
		if (i == t->n)
			return t->n ? 0 : -ESRCH;
		ret = hold_one(t, i);
		if (ret > 0)
			return 1;
		/* A thread it created (its event seen) is interrupted too. */
		for (i = 0; i < t->n; i++)
			if (t->st[i] == TH_RUNNING && ptrace(PTRACE_INTERRUPT, t->tids[i], NULL, NULL) &&
			    errno == ESRCH)
				drop(t, i--);
	}
}

int ot_tracee_run_to_entry(struct ot_tracee *t)
{
	uint64_t entry = 0;
	unsigned char trap = 0xcc;
	int ret;

	ret = ot_proc_auxv(t->pid, AT_ENTRY, &entry);
	if (!ret && !entry)
		ret = -ENOENT;
	if (!ret)
		ret = ot_tracee_read(t, entry, &t->bp_orig, 1);
	if (!ret)
		ret = ot_tracee_write(t, entry, &trap, 1);
	if (ret)
		return ret;
	t->bp = entry;
	ot_tracee_resume(t);
	return 0;
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


/*
 * len bytes at addr through ptrace, a word at a time, the ends read back
 * first: for a process whose /proc/PID/mem the kernel no longer lets us
 * open (another user's, once capabilities are dropped after arming: a
 * child it forked, a program it exec'd), while we hold its thread.
 */
static int peek_poke(const struct ot_tracee *t, uint64_t addr, uint8_t *buf, size_t len,
		     int write)
{
	pid_t tid = t->n ? t->tids[0] : t->pid;
	uint64_t at = addr & ~7ull;

	for (; at < addr + len; at += 8) {
		uint64_t lo = at < addr ? addr : at, hi = at + 8 < addr + len ? at + 8 : addr + len;
		long word;

		errno = 0;
		word = ptrace(PTRACE_PEEKDATA, tid, (void *)at, NULL);
		if (errno)
			return errno == EFAULT ? -EIO : -errno;
		if (!write) {
			memcpy(buf + (lo - addr), (uint8_t *)&word + (lo - at), hi - lo);
			continue;
		}
		memcpy((uint8_t *)&word + (lo - at), buf + (lo - addr), hi - lo);
		if (ptrace(PTRACE_POKEDATA, tid, (void *)at, (void *)word))
			return errno == EFAULT ? -EIO : -errno;
	}
	return 0;
}

/* len bytes of the tracee at addr, through /proc/PID/mem (kept open), or
 * ptrace where that is not ours to open. */
static int mem_io(struct ot_tracee *t, uint64_t addr, void *buf, size_t len, int write)
{
	size_t done = 0;

	if (t->mem_fd == MEM_BY_PTRACE)
		return peek_poke(t, addr, buf, len, write);
	if (t->mem_fd < 0) {
		char path[64];

		/* Through a thread we hold: a first thread that ended has no
		 * memory to show. */
		snprintf(path, sizeof(path), "/proc/%d/task/%d/mem", (int)t->pid,
			 (int)(t->n ? t->tids[0] : t->pid));
		t->mem_fd = open(path, O_RDWR | O_CLOEXEC);
		if (t->mem_fd < 0 && (errno == EACCES || errno == EPERM) && t->n) {
			t->mem_fd = MEM_BY_PTRACE;
			return peek_poke(t, addr, buf, len, write);
		}
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

int ot_tracee_seccomp(const struct ot_tracee *t)
{
	char path[64], val[32] = "";

	if (!t->n)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)t->pid, (int)t->tids[0]);
	if (ot_proc_status_field(path, "Seccomp:", val, sizeof(val)) || !val[0])
		return -ESRCH;
	return atoi(val);
}

#if OT_ARCH_INJECT	/* the registers below are inject's machine's */
/*
 * The thread's registers into t->gadget_saved, as the code after the
 * gadget reloads them should we die mid-call (a system call it was
 * stopped in, which the kernel would restart when it runs on, already
 * restarted by the caller: no handler runs, the stop held no signal).
 */
static int save_for_gadget(struct ot_tracee *t, const struct user_regs_struct *r)
{
	struct ot_tracee_saved s = ot_ptregs_saved(r);

	return mem_io(t, t->gadget_saved, &s, sizeof(s), 1);
}

/* Resume tid (stepping, or to its next system-call stop) until it stops
 * for that, keeping a signal that stopped it first for when it runs on. */
static int run_until(struct ot_tracee *t, pid_t tid, int req)
{
	int status;

	for (;;) {
		if (ptrace(req, tid, NULL, NULL))
			return -errno;
		if (waitpid(tid, &status, __WALL) < 0)
			return -errno;
		if (!WIFSTOPPED(status))
			return -ESRCH;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80) || WSTOPSIG(status) == SIGTRAP)
			return 0;
		/* Another signal stopped it first: kept for when it runs on. */
		if (!(status >> 16))
			t->sig[0] = WSTOPSIG(status);
	}
}
#endif

long ot_tracee_syscall(struct ot_tracee *t, long nr, const long args[6])
{
#if OT_ARCH_INJECT	/* the registers below are inject's machine's */
	uint8_t insn[OT_PTREGS_SYSCALL_LEN] = OT_PTREGS_SYSCALL_INSN;
	struct user_regs_struct saved, r;
	pid_t tid = t->tids[0];
	uint8_t orig[OT_PTREGS_SYSCALL_LEN];
	long ret;
	int err;

	/* A seccomp filter (or strict mode) since we looked may kill the
	 * process for the call: none is made (the caller leaves what it would
	 * have undone). */
	err = ot_tracee_seccomp(t);
	if (err)
		return err > 0 ? -EPERM : err;
	err = ot_ptrace_regs(tid, &saved);
	if (err)
		return err;
	/*
	 * Inside a system call the kernel would restart (a read interrupted
	 * by our stop): restarted now.  At a gadget the thread is let go
	 * from our call's exit, where the kernel restarts nothing, as it
	 * would from a signal-delivery stop.  (With a signal kept for it, a
	 * call restarted so is not cut short by its handler: EINTR becomes
	 * a restart, as with SA_RESTART.)
	 */
	if (t->gadget_saved)
		ot_ptregs_restart(&saved);
	r = saved;
	if (t->gadget) {
		ot_ptregs_set_pc(&r, t->gadget);
		if (t->gadget_saved)
			err = save_for_gadget(t, &saved);
	} else {
		/* The stopped thread's own instruction becomes `syscall` for one step. */
		err = mem_io(t, ot_ptregs_pc(&saved), orig, sizeof(orig), 0);
		if (!err)
			err = mem_io(t, ot_ptregs_pc(&saved), insn, sizeof(insn), 1);
	}
	if (err)
		return err;
	/* Not inside a system call to restart: ours runs as it is. */
	ot_ptregs_set_syscall(&r, nr, args);
	err = ot_ptrace_set_regs(tid, &r);
	if (!err && t->gadget_saved) {
		/* Its entry, then its exit: the call runs in between. */
		err = run_until(t, tid, PTRACE_SYSCALL);
		if (!err)
			err = run_until(t, tid, PTRACE_SYSCALL);
	} else if (!err) {
		err = run_until(t, tid, PTRACE_SINGLESTEP);
	}
	ret = err;
	if (!err && !ot_ptrace_regs(tid, &r))
		ret = ot_ptregs_syscall_ret(&r);
	/* As it was: code, then registers (an interrupted call restarts). */
	if (!t->gadget)
		mem_io(t, ot_ptregs_pc(&saved), orig, sizeof(orig), 1);
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

	if (!ot_ptrace_regs(tid, &r) && ot_ptregs_clear_step(&r))
		ot_ptrace_set_regs(tid, &r);
	return ret;
}

/* Where thread tid is: 1 inside a range, 0 outside, or -errno; *r its
 * registers. */
static int inside(pid_t tid, const uint64_t *lo, const uint64_t *hi, size_t n,
		  struct user_regs_struct *r)
{
	int err = ot_ptrace_regs(tid, r);
	size_t k;

	if (err)
		return err;
	for (k = 0; k < n; k++)
		if (ot_ptregs_pc(r) >= lo[k] && ot_ptregs_pc(r) < hi[k])
			return 1;
	return 0;
}

/*
 * Let tid run a moment, then stop it again (PTRACE_INTERRUPT): a signal
 * that stops it first is delivered as it runs on (*sig, its handler's
 * code is the program's).  0 once stopped, or -errno (-ESRCH: it ended).
 */
static int run_a_moment(pid_t tid, int *sig, unsigned us)
{
	int status;

	if (ptrace(PTRACE_CONT, tid, NULL, (void *)(long)*sig))
		return -errno;
	*sig = 0;
	/* Interrupted at once, it would stop on its way back to user space
	 * without running an instruction: let it be scheduled first. */
	usleep(us);
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL))
		return -errno;
	for (;;) {
		if (waitpid(tid, &status, __WALL) < 0)
			return -errno;
		if (!WIFSTOPPED(status))
			return -ESRCH;
		if (status >> 16)
			return 0;	/* the interrupt's stop, or an event's */
		/* A signal first: kept, and the interrupt still to come. */
		*sig = WSTOPSIG(status);
		if (ptrace(PTRACE_CONT, tid, NULL, NULL))
			return -errno;
	}
}

/*
 * Not stepped (a single step ends in a SIGTRAP stop, which the kernel
 * delivers to the process if we die there): run a moment and interrupted,
 * until it is out.  Our entries are put back by then, so it leaves our
 * code for good but through a return address of ours on its stack.
 */
int ot_tracee_step_out(struct ot_tracee *t, size_t i, const uint64_t *lo, const uint64_t *hi,
		       size_t nranges, unsigned max_steps)
{
	pid_t tid = t->tids[i];
	unsigned round;
	int sig = 0;

	for (round = 0;; round++) {
		struct user_regs_struct r;
		int in = inside(tid, lo, hi, nranges, &r), err;

		if (in <= 0) {
			if (sig && !t->sig[i])
				t->sig[i] = sig;	/* for when it runs on */
			return in;
		}
		/* In a system call (one the code made, in a trampoline): it
		 * may not end while we wait. */
		if (ot_ptregs_in_syscall(&r) || round == max_steps)
			return 1;
		/* 20 us, doubling up to 5 ms: a busy machine may take a while
		 * to schedule it. */
		err = run_a_moment(tid, &sig, round < 8 ? 20u << round : 5000u);
		if (err)
			return err == -ESRCH ? -ESRCH : err;
	}
}

pid_t ot_tracee_host_tid(const struct ot_tracee *t, pid_t nstid)
{
	size_t i, n = t->ngone < OT_TRACEE_GONE ? t->ngone : OT_TRACEE_GONE;

	if (!t->nested)
		return nstid;
	for (i = 0; i < t->n; i++)
		if (t->nstids[i] == nstid)
			return t->tids[i];
	/* Latest first: an id the namespace gave again is its last thread's. */
	for (i = 1; i <= n; i++)
		if (t->gone[(t->ngone - i) % OT_TRACEE_GONE][1] == nstid)
			return t->gone[(t->ngone - i) % OT_TRACEE_GONE][0];
	return 0;
}

void ot_tracee_detach(struct ot_tracee *t)
{
	size_t i;

	/* Only a stopped thread can be detached. */
	if (t->watching && t->n)
		ot_tracee_hold(t);
	if (t->bp)
		ot_tracee_write(t, t->bp, &t->bp_orig, 1);
	for (i = 0; i < t->n; i++)
		ptrace(PTRACE_DETACH, t->tids[i], NULL, (void *)(long)t->sig[i]);
	/* Children no one took: let go as they are. */
	while (t->nkids) {
		int vfork;
		pid_t parent, kid;

		for (i = 0; i < t->nkids; i++)
			t->kids[i].parent = t->kids[i].parent ? t->kids[i].parent : -1;
		if ((kid = ot_tracee_next_kid(t, &vfork, &parent)))
			ot_tracee_kid_detach(kid);
	}
	free(t->kids);
	free(t->vdone);
	t->kids = NULL;
	t->vdone = NULL;
	t->nkids = t->kidcap = t->nvdone = t->vdonecap = 0;
	free(t->tids);
	free(t->nstids);
	free(t->sig);
	free(t->st);
	t->tids = NULL;
	t->nstids = NULL;
	t->sig = NULL;
	t->st = NULL;
	t->n = t->cap = 0;
	t->adopted = 0;
	t->watching = 0;
	t->bp = 0;
	t->ntraps = 0;
	t->trap_tid = 0;
	if (t->mem_fd >= 0)
		close(t->mem_fd);
	t->mem_fd = -1;
}
