/*
 * target.c - the traced process: a command found like execvp and held
 * before its exec, or a running process (-p); the files -f names found
 * and opened as that process sees them (lib/process/mapfile.h).
 */
#include "target.h"
#include "exitinfo.h"
#include "util/error.h"
#include "mapfile.h"
#include "procfs.h"
#include "tracee.h"
#include "util/caps.h"
#include "util/xalloc.h"
#include "arch/arch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <stdint.h>
#include <sys/capability.h>
#include <sys/pidfd.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void init(struct ot_target *t)
{
	memset(t, 0, sizeof(*t));
	t->pidfd = t->go_fd = t->err_fd = -1;
}

/*
 * f held for the capture, each file once (by device and inode: a library
 * named twice is one binary); its "/proc/self/fd/N", malloc'd.
 */
static char *hold(struct ot_target *t, struct ot_mapfile *f)
{
	size_t i;

	for (i = 0; i < t->nfiles; i++) {
		if (t->files[i].dev == f->dev && t->files[i].ino == f->ino) {
			ot_mapfile_close(f);
			return ot_xstrdup(t->files[i].path);
		}
	}
	t->files = ot_xreallocarray(t->files, t->nfiles + 1, sizeof(*t->files));
	t->files[t->nfiles++] = *f;
	return ot_xstrdup(f->path);
}

/* The first mapping of file (dev, ino) in maps, or NULL. */
static const struct ot_proc_map *mapping_of(const struct ot_proc_map *maps, size_t n,
					    dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (maps[i].ino == ino && maps[i].dev == dev && maps[i].path[0] == '/')
			return &maps[i];
	return NULL;
}

/*
 * A -p process's program, opened through its exe link (path) and held
 * as t->exe: a regular file that it maps (a process may point its exe
 * link elsewhere, prctl PR_SET_MM_EXE_FILE).  0, or -ESRCH after printing.
 */
static int open_exe(struct ot_target *t, const char *path, pid_t live)
{
	struct ot_proc_map *maps = NULL;
	struct ot_mapfile f;
	char why[512];
	size_t n = 0;
	int ok;

	if (ot_mapfile_open_in_root(0, path, &f, why, sizeof(why))) {
		ot_error("cannot trace process %d: its program: %s", (int)t->pid, why);
		return -ESRCH;
	}
	ok = !ot_proc_maps(t->pid, live, &maps, &n) && mapping_of(maps, n, f.dev, f.ino);
	ot_proc_maps_free(maps, n);
	if (!ok) {
		ot_mapfile_close(&f);
		ot_error("cannot trace process %d: its executable (%s) is not a file it maps",
			 (int)t->pid, t->display);
		return -ESRCH;
	}
	t->exe = hold(t, &f);
	return 0;
}

/*
 * A pidfd tells when the process exits, ours or not.  Kernels before 5.3
 * and valgrind lack pidfd_open: then the drain loop polls instead.
 */
static int watch(struct ot_target *t)
{
	t->pidfd = pidfd_open(t->pid, 0);
	if (t->pidfd < 0 && errno != ENOSYS) {
		int e = errno;

		ot_error_errno(e, "cannot watch process %d", (int)t->pid);
		return -e;
	}
	return 0;
}

/*
 * Why the kernel denies us ptrace access (reading /proc/PID/exe is one):
 * another user's process, or one that is not dumpable, without
 * CAP_SYS_PTRACE; or, with it, a refusal that capability does not lift.
 * Into buf.
 */
static const char *ptrace_denied_why(pid_t pid, char *buf, size_t len)
{
	char path[64], uid[64] = "";

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	ot_proc_status_field(path, "Uid:", uid, sizeof(uid));
	if (ot_caps_have(CAP_SYS_PTRACE))
		snprintf(buf, len, "the kernel refuses it although orbit-trace has CAP_SYS_PTRACE "
			 "(a security module, or the system's protection of that process)");
	else if ((uid_t)strtoul(uid, NULL, 10) != geteuid())
		snprintf(buf, len, "it runs as uid %lu and orbit-trace as uid %lu, without "
			 "CAP_SYS_PTRACE (run it as that user, or with sudo)",
			 strtoul(uid, NULL, 10), (unsigned long)geteuid());
	else
		snprintf(buf, len, "it is not dumpable (a setuid or setgid program, or one that "
			 "called prctl(PR_SET_DUMPABLE, 0)): only CAP_SYS_PTRACE (sudo) may trace it");
	return buf;
}

int ot_target_attach(struct ot_target *t, pid_t pid)
{
	char path[64], real[PATH_MAX];
	ssize_t n;
	pid_t live;

	init(t);
	t->pid = pid;
	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH)) {
		ot_error("no process with pid %d", (int)pid);
		return -ESRCH;
	}
	/* Its first thread may have ended (pthread_exit) while others run:
	 * the program is reached through one that runs. */
	live = ot_proc_live_task(pid);
	if (!live) {
		ot_error("process %d is a zombie: it has exited and has no code to trace",
			 (int)pid);
		return -ESRCH;
	}
	if (live == pid)
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/%d/task/%d/exe", (int)pid, (int)live);
	n = readlink(path, real, sizeof(real) - 1);
	if (n < 0) {
		if (errno == ENOENT)
			ot_error("process %d is a kernel thread: it has no user-space code",
				 (int)pid);
		else if (errno == EACCES || errno == EPERM)
			ot_error("cannot trace process %d: ptrace access to it is denied: %s",
				 (int)pid, ptrace_denied_why(pid, real, sizeof(real)));
		else
			ot_error_errno(errno, "cannot read %s", path);
		return -ESRCH;
	}
	real[n] = 0;
	/*
	 * The magic link reaches the file even when it was deleted or lives
	 * in another mount namespace; the descriptor keeps naming it when
	 * the process execs another program.
	 */
	t->display = ot_xstrdup(real);
	if (open_exe(t, path, live))
		return -ESRCH;
	return watch(t);
}

/* execvp's search, done up front: the ELF must be read before the exec. */
/*
 * The first regular file named name in the colon-separated dirs that we
 * may use with access mode, as a real path; NULL if none.
 */
static char *find_in_dirs(const char *dirs, const char *name, int mode)
{
	char *copy = ot_xstrdup(dirs), *dir, *save = NULL, *found = NULL;

	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *cand = NULL;
		struct stat st;

		if (asprintf(&cand, "%s/%s", *dir ? dir : ".", name) < 0)
			break;
		if (!stat(cand, &st) && S_ISREG(st.st_mode) && !access(cand, mode))
			found = cand;
		else
			free(cand);
	}
	free(copy);
	return found;
}

/* The path execvp would exec for cmd, not resolved; NULL if none. */
static char *find_in_path(const char *cmd)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? NULL : ot_xstrdup(cmd);
	return find_in_dirs(path && *path ? path : "/usr/local/bin:/usr/bin:/bin", cmd, X_OK);
}

/* The interpreter a "#!" file names, malloc'd; NULL if it is no script. */
static char *interpreter(const char *path)
{
	char buf[256], *p, *end;
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return NULL;
	for (p = buf + 2; *p == ' ' || *p == '\t'; p++)
		;
	for (end = p; *end && *end != ' ' && *end != '\t' && *end != '\n'; end++)
		;
	if (*end == ' ' || *end == '\t') {
		char *arg = end + 1, *aend;

		*end = 0;
		/* "#!/usr/bin/env python3": env execs python3, found in PATH. */
		while (*arg == ' ' || *arg == '\t')
			arg++;
		for (aend = arg; *aend && *aend != ' ' && *aend != '\t' && *aend != '\n'; aend++)
			;
		*aend = 0;
		if (!strcmp(strrchr(p, '/') ? strrchr(p, '/') + 1 : p, "env") && *arg && *arg != '-')
			return find_in_path(arg);
	}
	*end = 0;
	return *p ? ot_xstrdup(p) : NULL;
}

int ot_target_find(struct ot_target *t, const char *cmd)
{
	char *file, *interp, why[512];
	struct ot_mapfile f;
	int depth;

	init(t);
	t->run = find_in_path(cmd);
	if (!t->run) {
		ot_error("cannot run %s: %s", cmd,
			 strchr(cmd, '/') ? strerror(errno)
					  : "command not found in PATH");
		return -ENOENT;
	}
	file = ot_xstrdup(t->run);
	for (depth = 0; depth < 4 && (interp = interpreter(file)); depth++) {
		ot_verbose("%s is a script for %s: tracing the interpreter", file, interp);
		free(file);
		file = interp;
	}
	t->display = realpath(file, NULL);
	if (!t->display) {
		ot_error_errno(errno, "cannot run %s: its interpreter %s", cmd, file);
		free(file);
		return -ENOENT;
	}
	free(file);
	/* Read and armed through one descriptor: the file read is the file
	 * armed, whatever its path names later. */
	if (ot_mapfile_open_in_root(0, t->display, &f, why, sizeof(why))) {
		ot_error("cannot run %s: %s", cmd, why);
		return -ENOENT;
	}
	t->exe = hold(t, &f);
	return 0;
}

int ot_target_is_script(const struct ot_target *t)
{
	char *interp = t->run ? interpreter(t->run) : NULL;

	free(interp);
	return interp != NULL;
}

int ot_user_resolve(const char *spec, struct ot_user *u)
{
	const struct passwd *pw = NULL;
	const char *sudo_uid = getenv("SUDO_UID"), *sudo_gid = getenv("SUDO_GID");
	char *end;
	unsigned long id;

	memset(u, 0, sizeof(*u));
	if (!spec) {
		if (getuid() != 0 || !sudo_uid)
			return 0;
		errno = 0;
		id = strtoul(sudo_uid, &end, 10);
		if (!*sudo_uid || *end || errno) {
			ot_error("SUDO_UID '%s' is not a user id", sudo_uid);
			return -ENOENT;
		}
		u->set = 1;
		u->uid = (uid_t)id;
		pw = getpwuid(u->uid);
		u->gid = pw ? pw->pw_gid : u->uid;
		if (sudo_gid && *sudo_gid) {
			id = strtoul(sudo_gid, &end, 10);
			if (!*end)
				u->gid = (gid_t)id;
		}
	} else {
		errno = 0;
		id = strtoul(spec, &end, 10);
		pw = (*spec && !*end && !errno) ? getpwuid((uid_t)id) : getpwnam(spec);
		if (!pw) {
			ot_error("no user '%s'", spec);
			return -ENOENT;
		}
		u->set = 1;
		u->uid = pw->pw_uid;
		u->gid = pw->pw_gid;
	}
	if (pw)
		snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	return 0;
}

/* In the child: become user, or return errno. */
static int become(const struct ot_user *u)
{
	if (!u || !u->set || (u->uid == getuid() && u->uid == geteuid()))
		return 0;
	if (u->name[0] ? initgroups(u->name, u->gid) : setgroups(0, NULL))
		return errno;
	if (setgid(u->gid) || setuid(u->uid))
		return errno;
	return 0;
}

/*
 * System calls made without libc: once the probes are armed, the held
 * child must not run a single function that a -f term could name
 * (libc.so.6:read, execve...), or its half-seen calls would reach the
 * report as orbit-trace's own orphans and unclosed calls.
 */
static long raw_syscall3(long nr, long a, long b, long c)
{
	return ot_arch_syscall3(nr, a, b, c);
}

int ot_target_spawn(struct ot_target *t, char *const argv[],
		    const void *sigmask, const struct ot_user *user)
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		ot_error_errno(errno, "cannot create a pipe");
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		ot_error_errno(e, "cannot fork %s", argv[0]);
		return -e;
	}
	if (!pid) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		sigprocmask(SIG_SETMASK, sigmask, NULL);
		/* As orbit-trace was started, not as it runs: a traced command
		 * must still die writing to a closed pipe. */
		signal(SIGPIPE, t->sigpipe_ignored ? SIG_IGN : SIG_DFL);
		/* Everything that uses libc happens before the probes exist. */
		e = become(user);
		if (raw_syscall3(SYS_read, go[0], (long)&c, 1) != 1)
			raw_syscall3(SYS_exit_group, 127, 0, 0); /* the tracer gave up before arming */
		if (!e)
			e = (int)-raw_syscall3(SYS_execve, (long)t->run, (long)argv, (long)environ);
		raw_syscall3(SYS_write, err[1], (long)&e, sizeof(e));
		raw_syscall3(SYS_exit_group, 127, 0, 0);
	}
	close(go[0]);
	close(err[1]);
	t->pid = pid;
	t->is_child = 1;
	t->go_fd = go[1];
	t->err_fd = err[0];
	return watch(t);
}

int ot_target_release(struct ot_target *t)
{
	ssize_t n;
	int e = 0;

	if (t->go_fd < 0)
		return 0;
	if (write(t->go_fd, "g", 1) != 1)
		e = errno;
	close(t->go_fd);
	t->go_fd = -1;
	if (!e) {
		n = read(t->err_fd, &e, sizeof(e));
		if (n != sizeof(e))
			e = 0;
	}
	close(t->err_fd);
	t->err_fd = -1;
	if (e) {
		ot_error_errno(e, "cannot run %s", t->display);
		return -e;
	}
	return 0;
}

/* Wait for a stop of our traced child, passing signals on to it; 0 with
 * *status, or -errno; *status says when it exited instead. */
static int traced_wait(struct ot_target *t, int *status)
{
	for (;;) {
		if (waitpid(t->pid, status, __WALL) < 0)
			return -errno;
		if (!WIFSTOPPED(*status))
			return 0;
		if (WSTOPSIG(*status) == SIGTRAP)
			return 0;
		/* A group stop (a SIGSTOP sent to it) ends with a continue; a
		 * signal is delivered as it would have been. */
		if (ptrace(PTRACE_CONT, t->pid, NULL,
			   (void *)(long)((*status >> 16) == PTRACE_EVENT_STOP ? 0 : WSTOPSIG(*status))))
			return -errno;
	}
}

/*
 * The command held before its exec seized (for what, in the error), let
 * go and stopped again at its exec: 0, or -errno after printing (it exits
 * or did not exec: nothing to detach).
 */
static int seize_to_exec(struct ot_target *t, const char *what)
{
	int status, ret;

	if (ptrace(PTRACE_SEIZE, t->pid, NULL, (void *)(long)PTRACE_O_TRACEEXEC)) {
		ret = -errno;
		ot_error_errno(-ret, "cannot trace %s (pid %d) %s", t->display, (int)t->pid, what);
		return ret;
	}
	ret = ot_target_release(t);
	if (ret)
		return ret;
	ret = traced_wait(t, &status);
	if (!ret && (status >> 8) != (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
		ret = WIFSTOPPED(status) ? -EPROTO : -ESRCH;
	if (ret)
		ot_error("%s did not start (%s)", t->display,
			 ret == -ESRCH ? "it exited at once" : strerror(-ret));
	return ret;
}

int ot_target_release_at_exec(struct ot_target *t, void (*at_exec)(void *ctx), void *ctx)
{
	int ret = seize_to_exec(t, "to its exec");

	if (ret)
		return ret;
	at_exec(ctx);
	if (ptrace(PTRACE_DETACH, t->pid, NULL, NULL)) {
		ret = -errno;
		ot_error_errno(-ret, "cannot let %s (pid %d) run after its exec", t->display,
			       (int)t->pid);
	}
	return ret;
}

int ot_target_exec_stopped(struct ot_target *t)
{
#if OT_ARCH_INJECT
	char path[64];
	uint64_t entry = 0;
	uint8_t orig, trap = OT_ARCH_TRAP_BYTE;
	struct user_regs_struct r;
	int status, fd, ret;

	ret = seize_to_exec(t, "for --backend inject");
	if (ret)
		return ret;
	/* Its entry point: the loader has mapped and initialised its libraries. */
	(void)ot_proc_auxv(t->pid, AT_ENTRY, &entry);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)t->pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (!entry || fd < 0 || pread(fd, &orig, 1, (off_t)entry) != 1 ||
	    pwrite(fd, &trap, 1, (off_t)entry) != 1) {
		ret = errno ? -errno : -EIO;
		if (fd >= 0)
			close(fd);
		ot_error("cannot stop %s at its entry point: its auxv or memory cannot be read",
			 t->display);
		return ret;
	}
	ret = ptrace(PTRACE_CONT, t->pid, NULL, NULL) ? -errno : traced_wait(t, &status);
	if (!ret && WIFSTOPPED(status) && !ot_ptrace_regs(t->pid, &r) &&
	    ot_ptregs_pc(&r) == entry + OT_ARCH_TRAP_ADVANCE) {
		ot_ptregs_set_pc(&r, entry);
		if (pwrite(fd, &orig, 1, (off_t)entry) != 1 || ot_ptrace_set_regs(t->pid, &r))
			ret = -EIO;
	} else if (!ret) {
		ret = WIFSTOPPED(status) ? -EPROTO : -ESRCH;
	}
	close(fd);
	if (ret == -ESRCH) {
		t->exited = 1;
		t->status = status;
		t->exit_from = OT_EXIT_WAIT;
		ot_error("%s exited before its entry point (its libraries' initialisers)",
			 t->display);
	} else if (ret) {
		ot_error_errno(-ret, "cannot stop %s at its entry point", t->display);
	}
	return ret;
#else
	ot_error("--backend inject has no trampolines for %s code", OT_ARCH_NAME);
	(void)t;
	return -ENOTSUP;
#endif
}

/* Reap our child's exit into t->status; block: wait for it.  Only its
 * exit: a stop of it under ptrace (inject holds it) is not ours to take. */
static int reap(struct ot_target *t, int block)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)t->pid, &si, WEXITED | __WALL | (block ? 0 : WNOHANG)) ||
	    si.si_pid != t->pid)
		return 0;
	t->status = si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8 :
		    (si.si_status & 0x7f) | (si.si_code == CLD_DUMPED ? 0x80 : 0);
	t->exit_from = OT_EXIT_WAIT;
	return 1;
}

int ot_target_check_exit(struct ot_target *t)
{
	struct pollfd pfd = { .fd = t->pidfd, .events = POLLIN };

	if (t->exited)
		return 1;
	if (t->pidfd < 0) {
		char state;

		if (t->is_child) {
			if (t->go_fd >= 0 || !reap(t, 0))
				return 0;
			return t->exited = 1;
		}
		state = ot_proc_state(t->pid);
		if (state && state != 'Z' && state != 'X')
			return 0;
		t->exit_from = ot_exit_learn(t->pid, -1, &t->status, &t->exit_why);
		return t->exited = 1;
	}
	if (poll(&pfd, 1, 0) <= 0)
		return 0;
	t->exited = 1;
	if (t->is_child)
		reap(t, 1);
	else
		t->exit_from = ot_exit_learn(t->pid, t->pidfd, &t->status, &t->exit_why);
	return 1;
}

/* 1 when no thread of pid can run: each is stopped, traced-stopped or dead. */
static int all_stopped(pid_t pid)
{
	size_t all, n = ot_proc_tasks_in(pid, "TtZX", &all);

	return n == all;
}

/*
 * 1 when someone else has stopped pid or is stopping it: a thread stopped,
 * or a stop signal pending for the process (kill(1) returns before the
 * group stop is done; continuing it then would undo theirs).
 */
static int stopped_by_others(pid_t pid)
{
	const unsigned long long stops = 1ull << (SIGSTOP - 1) | 1ull << (SIGTSTP - 1) |
					 1ull << (SIGTTIN - 1) | 1ull << (SIGTTOU - 1);
	char path[64], pend[32];
	size_t all;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!ot_proc_status_field(path, "ShdPnd:", pend, sizeof(pend)) &&
	    (strtoull(pend, NULL, 16) & stops))
		return 1;
	return ot_proc_tasks_in(pid, "T", &all) > 0;
}

int ot_target_freeze(struct ot_target *t)
{
	int i;

	if (stopped_by_others(t->pid))
		return 0; /* someone else's stop: theirs to end */
	if (kill(t->pid, SIGSTOP)) {
		ot_error_errno(errno, "cannot stop process %d for --freeze", (int)t->pid);
		return -errno;
	}
	t->frozen = 1;
	/* Delivery is asynchronous: a thread in a long system call stops on
	 * its way out.  Two seconds, then give up rather than arm half-frozen. */
	for (i = 0; i < 2000 && !all_stopped(t->pid); i++)
		usleep(1000);
	if (i == 2000) {
		ot_error("process %d did not stop within 2 s for --freeze", (int)t->pid);
		ot_target_thaw(t);
		return -ETIMEDOUT;
	}
	return 0;
}

void ot_target_thaw(struct ot_target *t)
{
	if (!t->frozen)
		return;
	t->frozen = 0;
	kill(t->pid, SIGCONT);
}

void ot_target_stop(struct ot_target *t)
{
	if (!t->is_child || t->pid <= 0)
		return;
	if (t->go_fd >= 0) { /* never released: it exits on EOF */
		close(t->go_fd);
		t->go_fd = -1;
	} else if (!ot_target_check_exit(t)) {
		kill(t->pid, SIGTERM);
	}
	if (!t->exited) {
		waitpid(t->pid, &t->status, 0);
		t->exited = 1;
		t->exit_from = OT_EXIT_WAIT;
	}
}

void ot_target_fini(struct ot_target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->err_fd >= 0)
		close(t->err_fd);
	free(t->exe);
	free(t->run);
	free(t->display);
	while (t->nfiles)
		ot_mapfile_close(&t->files[--t->nfiles]);
	free(t->files);
	init(t);
}

/* The first mapping of a file whose path (name holds a '/') or file name
 * is name, or NULL. */
static const struct ot_proc_map *mapped_lib(const struct ot_proc_map *maps, size_t n,
					    const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *base = strrchr(maps[i].path, '/');

		if (!maps[i].ino || maps[i].path[0] != '/')
			continue;
		if (!strcmp(strchr(name, '/') ? maps[i].path : base + 1, name))
			return &maps[i];
	}
	return NULL;
}

#define LDSO OT_ARCH_LDSO

/*
 * Every library the dynamic loader loads for exe, asked of the loader
 * itself ("ld.so --list", what ldd runs: it maps the libraries without
 * relocating or running anything), so DT_RPATH, LD_LIBRARY_PATH,
 * DT_RUNPATH with $ORIGIN, the ld.so cache and the default directories
 * all count, in its order: fn(ctx, soname, path) for each, until it
 * returns nonzero.  Nothing when the loader cannot be run.
 */
static void loader_list(const char *exe, int (*fn)(void *ctx, const char *so, const char *path),
			void *ctx)
{
	char *argv[] = { (char *)LDSO, (char *)"--list", (char *)exe, NULL };
	char line[4096];
	posix_spawn_file_actions_t fa;
	int out[2], status, done = 0;
	pid_t pid;
	FILE *f;

	if (pipe2(out, O_CLOEXEC))
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, LDSO, &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(out[0]);
		close(out[1]);
		return;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	f = fdopen(out[0], "re");
	while (f && fgets(line, sizeof(line), f)) {
		/* "\tlibfoo.so.1 => /opt/app/lib/libfoo.so.1 (0x...)" */
		char *so = line + strspn(line, " \t"), *arrow = strstr(so, " => ");

		if (done || !arrow || arrow[4] != '/')
			continue;
		*arrow = 0;
		arrow[4 + strcspn(arrow + 4, " \n")] = 0;
		done = fn(ctx, so, arrow + 4);
	}
	if (f)
		fclose(f);
	else
		close(out[0]);
	waitpid(pid, &status, 0);
}

struct lib_search {
	const char *name;
	char *found;
};

static int match_lib(void *ctx, const char *so, const char *path)
{
	struct lib_search *s = ctx;

	if (strcmp(so, s->name))
		return 0;
	s->found = ot_xstrdup(path);
	return 1;
}

/* Where the dynamic loader finds soname name for exe (loader_list), or
 * NULL if it does not load name (dlopen'ed later, or not at all). */
static char *loader_lib(const char *exe, const char *name)
{
	struct lib_search s = { name, NULL };

	loader_list(exe, match_lib, &s);
	return s.found;
}

static const char std_dirs[] =
	OT_ARCH_LIB_DIRS "/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib";

/* path (ours) held: *path its "/proc/self/fd/N", *file shown.  0, or
 * -ENOENT after printing. */
static int hold_ours(struct ot_target *t, const char *real, const char *shown, char **path,
		     char **file)
{
	struct ot_mapfile f;
	char why[512];

	if (ot_mapfile_open_in_root(0, real, &f, why, sizeof(why))) {
		ot_error("cannot use library %s", why);
		return -ENOENT;
	}
	*path = hold(t, &f);
	*file = ot_xstrdup(shown);
	return 0;
}

/*
 * Library name as we see it: a command's, -a's, -l's, and a -p process
 * that sees our files.  A path as it is (a /proc/PID/root/... one not
 * resolved by us, which would leave the process's root); a soname where
 * the loader finds it for the program, in LD_LIBRARY_PATH, in the
 * standard directories.  0, or -ENOENT after printing.
 */
static int our_lib(struct ot_target *t, const char *name, char **path, char **file)
{
	const char *env = getenv("LD_LIBRARY_PATH");
	char *found = NULL, *real;
	int ret;

	if (!strncmp(name, "/proc/", 6))
		return hold_ours(t, name, name, path, file);
	if (strchr(name, '/')) {
		real = realpath(name, NULL);
		if (!real) {
			ot_error_errno(errno, "cannot use library %s", name);
			return -ENOENT;
		}
	} else {
		if (t->display && t->exe)
			found = loader_lib(t->display, name);
		if (!found && env)
			found = find_in_dirs(env, name, R_OK);
		if (!found)
			found = find_in_dirs(std_dirs, name, R_OK);
		real = found ? realpath(found, NULL) : NULL;
		free(found);
		if (!real) {
			if (!t->is_child && t->pid > 0)
				ot_error("no library '%s' mapped by process %d, in LD_LIBRARY_PATH or "
					 "in the standard directories", name, (int)t->pid);
			else
				ot_error("no library '%s' loaded by %s (ld.so --list), in "
					 "LD_LIBRARY_PATH or the standard directories (name it by path)",
					 name, t->display && t->exe ? t->display : "the program");
			return -ENOENT;
		}
	}
	ret = hold_ours(t, real, real, path, file);
	free(real);
	return ret;
}

/*
 * Library name not mapped by process pid (seen through its thread live),
 * which has a root of its own: a path there, or a soname in its standard
 * directories; not loaded yet, so proven by nothing but being its file.
 * 0, or -ENOENT after printing.
 */
static int root_lib(struct ot_target *t, pid_t live, const char *name, char **path,
		    char **file)
{
	char *copy = ot_xstrdup(std_dirs), *dir, *save = NULL, *cand = NULL, why[512] = "";
	struct ot_mapfile f = { .fd = -1 };
	int found = 0;

	if (name[0] == '/')
		found = !ot_mapfile_open_in_root(live, name, &f, why, sizeof(why));
	for (dir = strtok_r(copy, ":", &save); !found && name[0] != '/' && dir;
	     dir = strtok_r(NULL, ":", &save)) {
		free(cand);
		if (asprintf(&cand, "%s/%s", dir, name) < 0)
			cand = NULL;
		found = cand && !ot_mapfile_open_in_root(live, cand, &f, NULL, 0);
	}
	free(copy);
	if (!found) {
		free(cand);
		if (name[0] == '/')
			ot_error("no library %s in the root of process %d: %s", name, (int)t->pid, why);
		else
			ot_error("no library '%s' mapped by process %d or in the standard directories "
				 "of its root (it sees other files than ours: a container's)", name,
				 (int)t->pid);
		return -ENOENT;
	}
	ot_verbose("%s: not mapped by process %d; %s in its root", name, (int)t->pid,
		   name[0] == '/' ? name : cand);
	*path = hold(t, &f);
	*file = ot_xstrdup(name[0] == '/' ? name : cand);
	free(cand);
	return 0;
}

/*
 * Library name of a -p process, as it sees it: among its mappings (by
 * file name, or by path, or the file a path leads to in its root), each
 * proven the mapped one; else in its root.  0, or -ENOENT after printing.
 */
static int process_lib(struct ot_target *t, const char *name, char **path, char **file)
{
	pid_t live = ot_proc_live_task(t->pid);
	const struct ot_proc_map *m;
	struct ot_proc_map *maps = NULL;
	struct ot_mapfile f;
	char why[512];
	size_t n = 0;
	int ret = 0;

	if (!live || ot_proc_maps(t->pid, live, &maps, &n)) {
		ot_error("cannot read the mappings of process %d: it has exited", (int)t->pid);
		return -ENOENT;
	}
	m = mapped_lib(maps, n, name);
	/* A path with links ("/lib/..." for "/usr/lib/...") is found by its file. */
	if (!m && name[0] == '/' && !ot_mapfile_open_in_root(live, name, &f, NULL, 0)) {
		m = mapping_of(maps, n, f.dev, f.ino);
		ot_mapfile_close(&f);
	}
	if (m && ot_mapfile_open(live, m, &f, why, sizeof(why))) {
		ot_error("cannot trace %s, which process %d maps: %s", name, (int)t->pid, why);
		ret = -ENOENT;
	} else if (m) {
		*path = hold(t, &f);
		/* Said as maps says it: the file at that name now is another. */
		if (asprintf(file, "%s%s", m->path, m->deleted ? " (deleted)" : "") < 0)
			*file = ot_xstrdup(m->path);
		if (m->deleted)
			ot_verbose("%s: process %d maps %s, deleted or replaced on disk since: that "
				   "file is traced, as mapped", name, (int)t->pid, m->path);
	} else if (name[0] != '/' && strchr(name, '/')) {
		ret = our_lib(t, name, path, file);	/* relative: the user's own file */
	} else if (ot_mapfile_same_view(live)) {
		ret = our_lib(t, name, path, file);
	} else {
		ret = root_lib(t, live, name, path, file);
	}
	ot_proc_maps_free(maps, n);
	return ret;
}

int ot_target_find_lib(void *target, const char *name, char **path, char **file)
{
	struct ot_target *t = target;

	*path = *file = NULL;
	if (!t->is_child && t->pid > 0)
		return process_lib(t, name, path, file);
	return our_lib(t, name, path, file);
}

struct objects {
	char **paths, **names;
	size_t n;
};

static void add_object(struct objects *o, const char *path, const char *name)
{
	o->paths = ot_xreallocarray(o->paths, o->n + 1, sizeof(*o->paths));
	o->names = ot_xreallocarray(o->names, o->n + 1, sizeof(*o->names));
	o->paths[o->n] = ot_xstrdup(path);
	o->names[o->n++] = ot_xstrdup(name);
}

static int add_loaded(void *ctx, const char *so, const char *path)
{
	(void)so;
	add_object(ctx, path, path);
	return 0;
}

/*
 * A -p process's mapped files with code, each once, read through
 * /proc/PID/map_files: the file the process maps, in its own mount
 * namespace, even deleted.
 */
static void mapped_objects(const struct ot_target *t, struct objects *o)
{
	struct ot_proc_map *maps;
	size_t n, i, k;
	pid_t live = ot_proc_live_task(t->pid);

	if (!live || ot_proc_maps(t->pid, live, &maps, &n))
		return;
	for (i = 0; i < n; i++) {
		char path[96];

		if (!maps[i].ino || maps[i].perms[2] != 'x' || maps[i].path[0] != '/')
			continue;
		for (k = 0; k < i; k++)
			if (maps[k].ino == maps[i].ino && maps[k].dev == maps[i].dev &&
			    maps[k].perms[2] == 'x')
				break;
		if (k < i || !strcmp(maps[i].path, t->display))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)t->pid,
			 (unsigned long long)maps[i].lo, (unsigned long long)maps[i].hi);
		add_object(o, path, maps[i].path);
	}
	ot_proc_maps_free(maps, n);
}

int ot_target_objects(void *target, char ***paths, char ***names, size_t *n)
{
	struct ot_target *t = target;
	struct objects o = { NULL, NULL, 0 };

	if (!t->exe) {
		*paths = *names = NULL;
		*n = 0;
		return 0;
	}
	add_object(&o, t->exe, t->display ? t->display : t->exe);
	if (!t->is_child && t->pid > 0)
		mapped_objects(t, &o);
	else
		/* ld.so resolves $ORIGIN from the path, not a descriptor. */
		loader_list(t->display ? t->display : t->exe, add_loaded, &o);
	*paths = o.paths;
	*names = o.names;
	*n = o.n;
	return 0;
}
