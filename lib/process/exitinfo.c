/*
 * exitinfo.c - how a -p process ended, from what the kernel keeps once it
 * has exited (exitinfo.h): its tracer's wait, its pidfd, its zombie's stat.
 */
#include "exitinfo.h"
#include "procfs.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * <linux/pidfd.h>'s PIDFD_GET_INFO (Linux 6.13) and its struct, as far as
 * exit_code (PIDFD_INFO_EXIT, 6.15): Debian 12's headers predate them.
 * The kernel takes the struct's size from the ioctl's number and fills
 * what both know.
 */
struct ot_pidfd_info {
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
	uint32_t coredump_mask, spare;
};

#define OT_PIDFD_GET_INFO _IOWR(0xFF, 11, struct ot_pidfd_info)
#define OT_PIDFD_INFO_EXIT (1ull << 3)

const char *ot_exit_from_name(enum ot_exit_from from)
{
	static const char *const names[] = { NULL, "wait", "ptrace", "kernel", "pidfd", "procfs" };

	return (unsigned)from < sizeof(names) / sizeof(names[0]) ? names[from] : NULL;
}

/* The pidfd's exit information: 1 and *status once its parent reaped it
 * (6.15), else 0; *old 1 when this kernel has none (ENOTTY before 6.13,
 * EINVAL or ESRCH until 6.15). */
static int pidfd_exit(int pidfd, int *status, int *old)
{
	struct ot_pidfd_info info;

	memset(&info, 0, sizeof(info));
	info.mask = OT_PIDFD_INFO_EXIT;
	if (ioctl(pidfd, OT_PIDFD_GET_INFO, &info)) {
		*old = errno == ENOTTY || errno == EINVAL || errno == ESRCH;
		return 0;
	}
	if (!(info.mask & OT_PIDFD_INFO_EXIT))
		return 0;
	*status = info.exit_code;
	return 1;
}

/* Every id of a status line ("Uid:", "Gid:": real, effective, saved,
 * filesystem) is want. */
static int ids_all(const char *path, const char *key, unsigned long want)
{
	char line[128], *p, *end;
	int n = 0;

	if (ot_proc_status_field(path, key, line, sizeof(line)))
		return 0;
	for (p = line; n < 4; n++, p = end) {
		unsigned long id = strtoul(p, &end, 10);

		if (end == p || id != want)
			return 0;
	}
	return 1;
}

/* A status file's capability set ("CapPrm:", "CapEff:"), or ~0 unread. */
static uint64_t caps_of(const char *path, const char *key)
{
	char line[64];

	return ot_proc_status_field(path, key, line, sizeof(line)) ? ~0ull :
	       strtoull(line, NULL, 16);
}

/*
 * The kernel shows a task's exit_code only to a reader that may trace it
 * (do_task_stat's ptrace_may_access, PTRACE_MODE_READ_FSCREDS), and a 0
 * in its place: the reader's fs ids are all of its ids and its permitted
 * capabilities are a subset of the reader's effective ones, or the reader
 * has CAP_SYS_PTRACE.  orbit-trace has dropped its capabilities by the
 * end, so a root process's zombie is hidden from it.
 */
static int may_read_exit_code(pid_t pid)
{
	char path[64];
	uint64_t mine = caps_of("/proc/self/status", "CapEff:");

	if (mine != ~0ull && (mine >> CAP_SYS_PTRACE) & 1)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	return ids_all(path, "Uid:", (unsigned long)geteuid()) &&
	       ids_all(path, "Gid:", (unsigned long)getegid()) &&
	       (caps_of(path, "CapPrm:") & ~mine) == 0;
}

/*
 * Its zombie's exit_code: 1 and *status while its parent has not reaped
 * it, and the kernel shows it to us.  The pid may be another process's
 * by the time /proc is read: it was ours if the pidfd's process is still
 * there after (a signal 0 finds a zombie, not a reaped process).  Without
 * a pidfd (valgrind), a zombie at that pid is taken as ours.
 */
static int zombie_exit(pid_t pid, int pidfd, int *status, int *hidden)
{
	char state = 0;
	int code = 0;

	if (ot_proc_exit_code(pid, &state, &code) || state != 'Z')
		return 0;
	if (!may_read_exit_code(pid)) {
		*hidden = 1;
		return 0;
	}
	if (pidfd >= 0 && pidfd_send_signal(pidfd, 0, NULL, 0))
		return 0;
	*status = code;
	return 1;
}

enum ot_exit_from ot_exit_learn(pid_t pid, int pidfd, int *status, const char **why)
{
	int st = 0, old = 0, hidden = 0;

	*why = NULL;
	/* Traced by us (inject): its exit is ours to take first, and its
	 * parent may reap it only once we have. */
	if (waitpid(pid, &st, WNOHANG | __WALL) == pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
		*status = st;
		return OT_EXIT_PTRACE;
	}
	if (pidfd >= 0 && pidfd_exit(pidfd, status, &old))
		return OT_EXIT_PIDFD;
	if (zombie_exit(pid, pidfd, status, &hidden))
		return OT_EXIT_PROCFS;
	/* Reaped between the two looks. */
	if (pidfd >= 0 && !old && pidfd_exit(pidfd, status, &old))
		return OT_EXIT_PIDFD;
	if (hidden)
		*why = "a zombie its parent had not reaped, whose exit status the kernel shows "
		       "only to a process that may trace it; orbit-trace drops its capabilities "
		       "once armed";
	else if (old || pidfd < 0)
		*why = "reaped by its parent before orbit-trace could read it; a pidfd keeps it "
		       "from Linux 6.15";
	else
		*why = "the kernel did not say";
	return OT_EXIT_UNKNOWN;
}
