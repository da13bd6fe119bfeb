/*
 * procfs.c - a process's /proc files read in one place (procfs.h): stat after
 * its "(comm)", status's keys, comm, auxv, its threads' states, its maps.
 */
#include "procfs.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int ot_proc_read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	buf[0] = 0;
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return 0;
}

int ot_proc_stat(const char *path, char *state, uint32_t *ppid)
{
	char buf[512], *p;
	unsigned pp;
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* Past the last ')': the command name may hold either parenthesis. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %u", state, &pp) != 2)
		return -EBADMSG;
	if (ppid)
		*ppid = pp;
	return 0;
}

char ot_proc_state(pid_t pid)
{
	char path[64], st;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return ot_proc_stat(path, &st, NULL) ? 0 : st;
}

int ot_proc_exit_code(pid_t pid, char *state, int *code)
{
	char path[64], buf[1024], *p;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (ot_proc_read_file(path, buf, sizeof(buf)))
		return -ESRCH;
	/* Past the last ')' is field 3, the state; exit_code is field 52. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c", state) != 1)
		return -EBADMSG;
	for (field = 2; field < 52 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%d", code) != 1)
		return -EBADMSG;
	return 0;
}

int ot_proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	ret = ot_proc_read_file(path, buf, len);
	/* The kernel's newline ends it; one the process put in its name
	 * (prctl) is the name's, for the printers to escape. */
	if (!ret && *buf && buf[strlen(buf) - 1] == '\n')
		buf[strlen(buf) - 1] = 0;
	return ret;
}

int ot_proc_status_field(const char *path, const char *key, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen(path, "re");
	int ret = -ENOENT;

	out[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, strlen(key))) {
			snprintf(out, len, "%s", line + strlen(key));
			out[strcspn(out, "\n")] = 0;
			ret = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	return ret;
}

int ot_proc_auxv(pid_t pid, unsigned long type, uint64_t *val)
{
	char path[64];
	uint64_t av[2];
	int fd, ret = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (read(fd, av, sizeof(av)) == sizeof(av) && av[0] != AT_NULL) {
		if (av[0] == type) {
			*val = av[1];
			ret = 0;
			break;
		}
	}
	close(fd);
	return ret;
}

pid_t ot_proc_nstid(pid_t pid, pid_t tid)
{
	char path[64], ids[256], *last;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (ot_proc_status_field(path, "NSpid:", ids, sizeof(ids)))
		return 0;
	/* "NSpid:\t9652\t5": outermost first, the thread's own namespace last. */
	ids[strcspn(ids, "\n")] = 0;
	while (*ids && strchr(" \t", ids[strlen(ids) - 1]))
		ids[strlen(ids) - 1] = 0;
	last = strrchr(ids, '\t');
	return (pid_t)strtol(last ? last + 1 : ids, NULL, 10);
}

/* The inode of /proc/PID/ns/pid, or 0. */
static ino_t pidns_of(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	return stat(path, &st) ? 0 : st.st_ino;
}

/* The thread of process pid whose own namespace's id is nstid, or 0. */
static pid_t task_of(pid_t pid, pid_t nstid)
{
	char path[64];
	struct dirent *e;
	pid_t found = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && !found && (e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid > 0 && ot_proc_nstid(pid, tid) == nstid)
			found = tid;
	}
	if (d)
		closedir(d);
	return found;
}

int ot_proc_ns_host(pid_t inside, pid_t nspid, pid_t nstid, pid_t *hpid, pid_t *htid)
{
	ino_t ns = pidns_of(inside);
	struct dirent *e;
	DIR *d;

	*hpid = *htid = 0;
	if (!ns)
		return -ESRCH;
	d = opendir("/proc");
	while (d && !*htid && (e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid <= 0 || ot_proc_nstid(pid, pid) != nspid || pidns_of(pid) != ns)
			continue;
		*hpid = pid;
		*htid = task_of(pid, nstid);
	}
	if (d)
		closedir(d);
	return *htid ? 0 : -ESRCH;
}

size_t ot_proc_tasks_in(pid_t pid, const char *states, size_t *ntasks)
{
	char path[64];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	*ntasks = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		char task[320], st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(task, sizeof(task), "/proc/%d/task/%s/stat", (int)pid, e->d_name);
		if (ot_proc_stat(task, &st, NULL))
			st = 'X';
		(*ntasks)++;
		n += strchr(states, st) != NULL;
	}
	if (d)
		closedir(d);
	return n;
}

pid_t ot_proc_live_task(pid_t pid)
{
	char path[64];
	struct dirent *e;
	pid_t live = 0;
	char st = ot_proc_state(pid);
	DIR *d;

	if (st && st != 'Z' && st != 'X')
		return pid;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && !live && (e = readdir(d))) {
		char task[320];

		if (e->d_name[0] == '.')
			continue;
		snprintf(task, sizeof(task), "/proc/%d/task/%s/stat", (int)pid, e->d_name);
		if (!ot_proc_stat(task, &st, NULL) && st != 'Z' && st != 'X')
			live = (pid_t)atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return live;
}

void ot_proc_maps_free(struct ot_proc_map *maps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

int ot_proc_maps(pid_t pid, pid_t tid, struct ot_proc_map **maps, size_t *n)
{
	char path[64], line[4352];
	FILE *f;

	*maps = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)pid, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		char perms[5];
		int pos = 0;
		struct ot_proc_map *m;

		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj,
			   &min, &ino, &pos) < 7)
			continue;
		line[strcspn(line, "\n")] = 0;
		*maps = ot_xreallocarray(*maps, *n + 1, sizeof(**maps));
		m = &(*maps)[*n];
		/* The kernel appends this to the name of a file unlinked (an
		 * upgrade renamed another over it): the path names no longer it. */
		m->deleted = ino && pos && strlen(line + pos) > 10 &&
			     !strcmp(line + strlen(line) - 10, " (deleted)");
		if (m->deleted)
			line[strlen(line) - 10] = 0;
		(*n)++;
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

const struct ot_proc_map *ot_proc_maps_text(const struct ot_proc_map *maps, size_t n,
					    dev_t dev, ino_t ino, uint64_t off)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ot_proc_map *m = &maps[i];

		if (m->perms[2] == 'x' && m->ino == ino && m->dev == dev &&
		    off >= m->off && off - m->off < m->hi - m->lo)
			return m;
	}
	return NULL;
}

const struct ot_proc_map *ot_proc_maps_lib(const struct ot_proc_map *maps, size_t n,
					   const char *prefix)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *base = strrchr(maps[i].path, '/');

		if (maps[i].perms[2] == 'x' && maps[i].path[0] == '/' &&
		    !strncmp(base ? base + 1 : maps[i].path, prefix, strlen(prefix)))
			return &maps[i];
	}
	return NULL;
}
