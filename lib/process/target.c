#include "target.h"
#include "exitinfo.h"
#include "util/error.h"
#include "procfs.h"
#include "tracee.h"
#include "util/xalloc.h"

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
 * another user's process, or one that is not dumpable.  Into buf.
 */
static const char *ptrace_denied_why(pid_t pid, char *buf, size_t len)
{
	char path[64], uid[64] = "";

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	ot_proc_status_field(path, "Uid:", uid, sizeof(uid));
	if ((uid_t)strtoul(uid, NULL, 10) != geteuid())
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
	 * in another mount namespace; the kernel resolves it the same way
	 * when the uprobe is created.
	 */
	t->exe = ot_xstrdup(path);
	t->display = ot_xstrdup(real);
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
	char *file, *interp;
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
	t->exe = realpath(file, NULL);
	if (!t->exe) {
		ot_error_errno(errno, "cannot run %s: its interpreter %s", cmd, file);
		free(file);
		return -ENOENT;
	}
	free(file);
	t->display = ot_xstrdup(t->exe);
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
	long ret;
#if defined(__x86_64__)
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr, x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b, x2 __asm__("x2") = c;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	ret = x0;
#endif
	return ret;
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
#if defined(__x86_64__)
	char path[64];
	uint64_t entry = 0;
	uint8_t orig, trap = 0xcc;
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
	if (!ret && WIFSTOPPED(status) && !ot_ptrace_regs(t->pid, &r) && r.rip == entry + 1) {
		r.rip = entry;
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
	ot_error("--backend inject is for x86-64");
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
	init(t);
}

/* The mapped file of pid whose basename is name, or NULL. */
static char *mapped_lib(pid_t pid, const char *name)
{
	char maps[64], line[4096], *found = NULL;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/'), *base;

		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		base = strrchr(path, '/') + 1;
		if (!strcmp(base, name))
			found = ot_xstrdup(path);
	}
	fclose(f);
	return found;
}

#if defined(__x86_64__)
#define LDSO "/lib64/ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define LDSO "/lib/ld-linux-aarch64.so.1"
#endif

/*
 * Where the dynamic loader finds soname name for exe, asked of the loader
 * itself ("ld.so --list", what ldd runs: it maps the libraries without
 * running the program), so DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH with
 * $ORIGIN, the ld.so cache and the default directories all count, in its
 * order.  NULL if it does not load name (dlopen'ed later, or not at all).
 */
static char *loader_lib(const char *exe, const char *name)
{
	char *argv[] = { (char *)LDSO, (char *)"--list", (char *)exe, NULL };
	char line[4096], *found = NULL;
	posix_spawn_file_actions_t fa;
	int out[2], status;
	pid_t pid;
	FILE *f;

	if (pipe2(out, O_CLOEXEC))
		return NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, LDSO, &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(out[0]);
		close(out[1]);
		return NULL;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	f = fdopen(out[0], "re");
	while (f && fgets(line, sizeof(line), f)) {
		/* "\tlibfoo.so.1 => /opt/app/lib/libfoo.so.1 (0x...)" */
		char *so = line + strspn(line, " \t"), *arrow = strstr(so, " => ");

		if (found || !arrow || (size_t)(arrow - so) != strlen(name) ||
		    strncmp(so, name, strlen(name)) || arrow[4] != '/')
			continue;
		arrow[4 + strcspn(arrow + 4, " \n")] = 0;
		found = ot_xstrdup(arrow + 4);
	}
	if (f)
		fclose(f);
	else
		close(out[0]);
	waitpid(pid, &status, 0);
	return found;
}

int ot_target_find_lib(void *target, const char *name, char **path)
{
	static const char std_dirs[] =
#if defined(__x86_64__)
		"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
#elif defined(__aarch64__)
		"/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu:"
#endif
		"/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib";
	struct ot_target *t = target;
	const char *env = getenv("LD_LIBRARY_PATH");

	*path = NULL;
	if (strchr(name, '/')) {
		*path = realpath(name, NULL);
		if (!*path) {
			ot_error_errno(errno, "cannot use library %s", name);
			return -ENOENT;
		}
		return 0;
	}
	if (!t->is_child && t->pid > 0)
		*path = mapped_lib(t->pid, name);
	if (!*path && t->exe)
		*path = loader_lib(t->exe, name);
	if (!*path && env)
		*path = find_in_dirs(env, name, R_OK);
	if (!*path)
		*path = find_in_dirs(std_dirs, name, R_OK);
	if (*path) {
		char *real = realpath(*path, NULL);

		free(*path);
		*path = real;
		if (real)
			return 0;
	}
	if (!t->is_child && t->pid > 0)
		ot_error("no library '%s' mapped by process %d, in LD_LIBRARY_PATH or in the "
			 "standard directories", name, (int)t->pid);
	else
		ot_error("no library '%s' loaded by %s (ld.so --list), in LD_LIBRARY_PATH or "
			 "the standard directories (name it by path)", name, t->exe ? t->exe : "the program");
	return -ENOENT;
}
