/*
 * mapfile.c - a traced process's files opened as it sees them (map_files,
 * its root, ours), each kept only once proven to be the one it maps
 * (mapfile.h).
 */
#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The ways to a mapping's file, in the order they are tried. */
enum way { BY_MAP_FILES, BY_ROOT, BY_OURS, NWAYS };

/*
 * path opened O_PATH from dirfd with openat2's resolve flags; before
 * Linux 5.6 (no openat2) with openat alone, the device and inode check
 * then the only guard.  A descriptor, or -1 with errno.
 */
static int open_how(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC | flags, .resolve = resolve };
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS) {
		if (dirfd != AT_FDCWD)
			while (*path == '/')
				path++;
		fd = openat(dirfd, path, (int)how.flags);
	}
	return (int)fd;
}

/* Way w to m's file: an O_PATH descriptor, or -1 with errno. */
static int open_way(pid_t pid, const struct ot_proc_map *m, enum way w)
{
	char path[96];
	int root, fd, e;

	switch (w) {
	case BY_MAP_FILES:
		/* Named by us, a magic link to the mapping's own file: followed. */
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
			 (unsigned long long)m->lo, (unsigned long long)m->hi);
		return open(path, O_PATH | O_CLOEXEC);
	case BY_ROOT:
		snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
		root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0)
			return -1;
		fd = open_how(root, m->path, O_NOFOLLOW, RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS);
		e = errno;
		close(root);
		errno = e;
		return fd;
	default:
		return open_how(AT_FDCWD, m->path, O_NOFOLLOW, RESOLVE_NO_SYMLINKS);
	}
}

/* fd into *f if it is a regular file (with m's device and inode when m
 * is given): 0, else -EINVAL (not regular) or -ESTALE (another file),
 * fd closed. */
static int keep(int fd, const struct ot_proc_map *m, struct ot_mapfile *f)
{
	struct stat st;
	int ret = 0;

	if (fstat(fd, &st))
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -EINVAL;
	else if (m && (st.st_dev != m->dev || st.st_ino != m->ino))
		ret = -ESTALE;
	if (ret) {
		close(fd);
		return ret;
	}
	f->fd = fd;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", fd);
	return 0;
}

static void say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* Why no way reached m's file, from what each did (err[w]: -errno, or 0
 * not tried). */
static void why_not(pid_t pid, const struct ot_proc_map *m, const int *err, char *why,
		    size_t len)
{
	int found = 0;
	size_t w;

	if (m->deleted) {
		if (err[BY_MAP_FILES] == -EPERM || err[BY_MAP_FILES] == -EACCES)
			say(why, len, "it was deleted or replaced on disk since it was mapped (%s), "
			    "and only /proc/%d/map_files reaches it, which needs CAP_SYS_ADMIN or "
			    "CAP_CHECKPOINT_RESTORE",
			    m->path, (int)pid);
		else
			say(why, len, "it was deleted or replaced on disk since it was mapped (%s), "
			    "and /proc/%d/map_files no longer has it", m->path, (int)pid);
		return;
	}
	for (w = BY_ROOT; w < NWAYS; w++)
		found |= err[w] == -EINVAL || err[w] == -ESTALE || err[w] == -ELOOP;
	if (found)
		say(why, len, "%s is not the file the process maps (process %d): another file, "
		    "a link or not a regular file is there now", m->path, (int)pid);
	else
		say(why, len, "%s cannot be reached in the root of process %d or in ours",
		    m->path, (int)pid);
}

int ot_mapfile_open(pid_t pid, const struct ot_proc_map *m, struct ot_mapfile *f,
		    char *why, size_t len)
{
	int err[NWAYS] = { 0 }, fd;
	size_t w;

	f->fd = -1;
	f->path[0] = 0;
	if (!m->ino || m->path[0] != '/') {
		say(why, len, "%s is not a file", m->path[0] ? m->path : "the mapping");
		return -ENOENT;
	}
	for (w = pid ? BY_MAP_FILES : BY_OURS; w < NWAYS; w++) {
		/* A deleted file's name is another file's, or nothing's. */
		if (w != BY_MAP_FILES && m->deleted)
			break;
		fd = open_way(pid, m, (enum way)w);
		err[w] = fd < 0 ? -errno : keep(fd, m, f);
		if (!err[w])
			return 0;
	}
	why_not(pid, m, err, why, len);
	return -ESTALE;
}

int ot_mapfile_open_in_root(pid_t pid, const char *path, struct ot_mapfile *f,
			    char *why, size_t len)
{
	char proc[64];
	int root, fd, e, ret;

	f->fd = -1;
	f->path[0] = 0;
	if (!pid) {
		fd = open(path, O_PATH | O_CLOEXEC);
	} else {
		snprintf(proc, sizeof(proc), "/proc/%d/root", (int)pid);
		root = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0) {
			e = errno;
			say(why, len, "the root of process %d cannot be opened: %s", (int)pid,
			    strerror(e));
			return -e;
		}
		fd = open_how(root, path, 0, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
		e = errno;
		close(root);
		errno = e;
	}
	if (fd < 0) {
		e = errno;
		say(why, len, "%s: %s", path, strerror(e));
		return -e;
	}
	ret = keep(fd, NULL, f);
	if (ret)
		say(why, len, "%s is not a regular file", path);
	return ret;
}

void ot_mapfile_close(struct ot_mapfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->path[0] = 0;
}

ssize_t ot_mapfile_pread(pid_t pid, const struct ot_proc_map *m, uint64_t off, void *buf,
			 size_t len)
{
	struct ot_mapfile f;
	ssize_t n = -1;
	int fd;

	if (ot_mapfile_open(pid, m, &f, NULL, 0))
		return -1;
	/* A regular file, proven: opening it for reading cannot block. */
	fd = open(f.path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd >= 0) {
		n = pread(fd, buf, len, (off_t)off);
		close(fd);
	}
	ot_mapfile_close(&f);
	return n;
}

/* The device and inode path names (links followed): 0, or -1. */
static int id_of(const char *path, dev_t *dev, ino_t *ino)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

int ot_mapfile_same_view(pid_t pid)
{
	char root[64], ns[64];
	dev_t d1, d2, n1, n2;
	ino_t i1, i2, j1, j2;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)pid);
	if (id_of(root, &d1, &i1) || id_of("/", &d2, &i2) || id_of(ns, &n1, &j1) ||
	    id_of("/proc/self/ns/mnt", &n2, &j2))
		return 0;
	return d1 == d2 && i1 == i2 && n1 == n2 && j1 == j2;
}
