/*
 * A service's processes for a capture: the -p list checked against its
 * first process's program, --cgroup's directory found and opened (a
 * backend that can keep to it, OT_CAN_CGROUP, does in the kernel).
 */
#include "services.h"
#include "process/procfs.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

size_t ot_services_threads(pid_t *pids, size_t n)
{
	size_t i, k, out = 0;

	for (i = 0; i < n; i++) {
		char path[64], tgid[32];
		pid_t p = pids[i];

		snprintf(path, sizeof(path), "/proc/%d/status", (int)p);
		if (!ot_proc_status_field(path, "Tgid:", tgid, sizeof(tgid)) &&
		    (pid_t)strtol(tgid, NULL, 10) != p && strtol(tgid, NULL, 10) > 0) {
			p = (pid_t)strtol(tgid, NULL, 10);
			ot_note("%d is a thread of process %d: tracing process %d, all its threads",
				(int)pids[i], (int)p, (int)p);
		}
		for (k = 0; k < out && pids[k] != p; k++)
			;
		if (k == out)
			pids[out++] = p;
	}
	return out;
}

int ot_services_pids(const struct ot_target *first, const pid_t *pids, size_t n)
{
	struct stat want, got;
	size_t i;
	int ret = 0;

	if (stat(first->exe, &want)) {
		ot_error_errno(errno, "cannot read %s", first->exe);
		return -1;
	}
	for (i = 1; i < n && !ret; i++) {
		struct ot_target t;

		if (ot_target_attach(&t, pids[i])) {
			ot_target_fini(&t);
			return -1;
		}
		/* The probes are on the first's file: another would go unseen. */
		if (stat(t.exe, &got)) {
			ot_error_errno(errno, "cannot read %s", t.exe);
			ret = -1;
		} else if (got.st_dev != want.st_dev || got.st_ino != want.st_ino) {
			ot_error("process %d runs %s, not %s as process %d does: -p PID,PID... "
				 "traces the processes of one program (for several, -a with "
				 "FILE:NAME terms, and --cgroup)", (int)pids[i], t.display,
				 first->display, (int)first->pid);
			ret = -1;
		}
		ot_target_fini(&t);
	}
	return ret;
}

/* Where the cgroup v2 file system is mounted, into dir: 0 or -1. */
static int cgroup2_mount(char *dir, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mnt[PATH_MAX];
	int ret = -1;

	while (f && ret && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ... - TYPE SOURCE ..." */
		if (sep && !strncmp(sep + 3, "cgroup2 ", 8) &&
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 && !strchr(mnt, '\\'))
			ret = snprintf(dir, len, "%s", mnt) >= (int)len ? -1 : 0;
	}
	if (f)
		fclose(f);
	return ret;
}

int ot_services_cgroup(const char *path, char **resolved)
{
	char full[PATH_MAX], real[PATH_MAX];
	struct statfs fs;
	int fd;

	*resolved = NULL;
	if (path[0] == '/') {
		snprintf(full, sizeof(full), "%s", path);
	} else if (cgroup2_mount(real, sizeof(real))) {
		ot_error("--cgroup %s: no cgroup v2 file system is mounted to find it in", path);
		return -1;
	} else if (strlen(real) + strlen(path) + 2 > sizeof(full)) {
		ot_error_errno(ENAMETOOLONG, "--cgroup %s", path);
		return -1;
	} else {
		memcpy(full, real, strlen(real));
		full[strlen(real)] = '/';
		memcpy(full + strlen(real) + 1, path, strlen(path) + 1);
	}
	fd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ot_error_errno(errno, "--cgroup %s", full);
		return -1;
	}
	if (fstatfs(fd, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) {
		ot_error("--cgroup %s is not a cgroup v2 directory (one of the cgroup2 file "
			 "system, as under /sys/fs/cgroup)", full);
		close(fd);
		return -1;
	}
	*resolved = ot_xstrdup(realpath(full, real) ? real : full);
	return fd;
}
