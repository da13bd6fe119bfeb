/*
 * outfile.c - output files opened as outfile.h promises: the path walked
 * from held directories with the kernel's protected_symlinks rule, files
 * created O_EXCL 0600 and emptied at their first byte, or replaced
 * through unpredictable temporaries.
 */
#include "outfile.h"
#include "error.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

/* Symbolic links followed on one path, as the kernel's MAXSYMLINKS. */
#define MAX_LINKS 40

struct ot_outfile {
	char *path;		/* as given, for messages */
	int dirfd;		/* the directory the file is in (O_PATH) */
	char leaf[NAME_MAX + 1];
	int fd;			/* in place: the file; replacing: the version */
	FILE *f;
	int regular;		/* in place: emptied at the first byte */
	int created;		/* in place: created for this run */
	int started;		/* in place: a byte was written */
	int discard;		/* in place: closing a failed capture */
	int werr;		/* in place: the first failed write's errno */
	int replacing;		/* by versions (ot_outfile_replacing) */
	mode_t mode;		/* replacing: the versions' */
	char tmp[NAME_MAX + 1];	/* replacing: the version being written */
};

/* Where the path leads: dirfd and leaf, and the leaf's lstat when it exists. */
struct walk {
	int dirfd;
	char leaf[NAME_MAX + 1];
	struct stat st;
	int exists;
	int magic;		/* a link in /proc (/proc/self/fd/1): the kernel follows it */
};

/* A sticky, world-writable directory (/tmp): where others plant links. */
static int shared_dir(int dirfd, struct stat *d)
{
	if (fstat(dirfd, d))
		return 0;
	return (d->st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH);
}

/*
 * fs.protected_symlinks' rule (the kernel's may_follow_link), kept here
 * whatever the sysctl says: in a sticky world-writable directory, a link
 * is followed only if it is the caller's or the directory owner's.
 */
static int link_allowed(int dirfd, const char *name, const struct stat *link, char *why,
			size_t len)
{
	struct stat d;

	if (!shared_dir(dirfd, &d) || link->st_uid == geteuid() || link->st_uid == d.st_uid)
		return 0;
	snprintf(why, len, "not following the symbolic link '%s': it belongs to uid %u, in a "
		 "sticky world-writable directory of uid %u (as fs.protected_symlinks refuses)",
		 name, (unsigned)link->st_uid, (unsigned)d.st_uid);
	return -EACCES;
}

/* The leaf, once found, in a sticky world-writable directory: someone
 * else's file, or another name of some file, refused (fs.protected_regular). */
static int leaf_allowed(const struct walk *w, char *why, size_t len)
{
	struct stat d;

	if (!w->exists || w->magic || !shared_dir(w->dirfd, &d) || S_ISDIR(w->st.st_mode))
		return 0;
	if (w->st.st_uid != geteuid() && w->st.st_uid != d.st_uid) {
		snprintf(why, len, "it belongs to uid %u, in a sticky world-writable directory "
			 "of uid %u (as fs.protected_regular refuses)", (unsigned)w->st.st_uid,
			 (unsigned)d.st_uid);
		return -EACCES;
	}
	if (S_ISREG(w->st.st_mode) && w->st.st_nlink > 1) {
		snprintf(why, len, "it has %lu hard links, in a sticky world-writable directory",
			 (unsigned long)w->st.st_nlink);
		return -EACCES;
	}
	return 0;
}

static int reopen(int *dirfd, int at, const char *name)
{
	int fd = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(*dirfd);
	*dirfd = fd;
	return 0;
}

/* The next component of rest into name (rest keeps what follows):
 * 1, 0 when rest has none, or -ENAMETOOLONG. */
static int next_component(char *rest, char *name)
{
	char *c = rest, *after;
	size_t n;

	while (*c == '/')
		c++;
	if (!*c)
		return 0;
	n = strcspn(c, "/");
	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, c, n);
	name[n] = 0;
	after = c + n;
	while (*after == '/')
		after++;
	memmove(rest, after, strlen(after) + 1);
	return 1;
}

/* The link name in dirfd, read and put before rest ("TARGET/REST"). */
static int splice_link(int *dirfd, const char *name, char *rest, size_t size)
{
	char target[PATH_MAX];
	ssize_t k = readlinkat(*dirfd, name, target, sizeof(target));
	size_t r = strlen(rest);

	if (k < 0)
		return -errno;
	if ((size_t)k >= sizeof(target) || (size_t)k + 1 + r >= size)
		return -ENAMETOOLONG;
	target[k] = 0;
	memmove(rest + k + (r ? 1 : 0), rest, r + 1);
	memcpy(rest, target, (size_t)k);
	if (r)
		rest[k] = '/';
	return target[0] == '/' ? reopen(dirfd, AT_FDCWD, "/") : 0;
}

/* A symbolic link met on the way: refused, followed, or (in /proc, last)
 * left to the kernel. */
static int on_link(struct walk *w, const char *name, const struct stat *st, char *rest,
		   size_t size, char *why, size_t len)
{
	struct statfs fs;
	int ret = link_allowed(w->dirfd, name, st, why, len);

	if (ret)
		return ret;
	/* /proc/self/fd/1 and the like name an open file, not a path. */
	if (!*rest && !fstatfs(w->dirfd, &fs) && fs.f_type == PROC_SUPER_MAGIC) {
		snprintf(w->leaf, sizeof(w->leaf), "%s", name);
		w->exists = w->magic = 1;
		w->st = *st;
		return 1;
	}
	return splice_link(&w->dirfd, name, rest, size);
}

/* One component in w->dirfd: 1 when the walk ended at it, 0 to go on. */
static int step(struct walk *w, const char *name, char *rest, size_t size, int *links,
		char *why, size_t len)
{
	struct stat st;
	int last = !*rest;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return last ? -EISDIR : !strcmp(name, ".") ? 0 : reopen(&w->dirfd, w->dirfd, "..");
	if (fstatat(w->dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT || !last)
			return -errno;
		snprintf(w->leaf, sizeof(w->leaf), "%s", name);
		return 1;
	}
	if (S_ISLNK(st.st_mode))
		return ++*links > MAX_LINKS ? -ELOOP : on_link(w, name, &st, rest, size, why, len);
	if (last) {
		snprintf(w->leaf, sizeof(w->leaf), "%s", name);
		w->exists = 1;
		w->st = st;
		return 1;
	}
	return S_ISDIR(st.st_mode) ? reopen(&w->dirfd, w->dirfd, name) : -ENOTDIR;
}

/* path walked to the directory that holds its file (outfile.h's rules):
 * 0 and w->dirfd held, or -errno (why said when a rule refused). */
static int walk(const char *path, struct walk *w, char *why, size_t len)
{
	char rest[2 * PATH_MAX], name[NAME_MAX + 1];
	int links = 0, ret = 0;

	memset(w, 0, sizeof(*w));
	w->dirfd = -1;
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (!*path)
		return -ENOENT;		/* as open("") */
	if (path[strlen(path) - 1] == '/')
		return -EISDIR;		/* "dir/": a directory, no file named */
	snprintf(rest, sizeof(rest), "%s", path);
	w->dirfd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->dirfd < 0)
		return -errno;
	while (!ret) {
		ret = next_component(rest, name);
		if (ret == 0)
			ret = -EISDIR;	/* a link to "/" or "dir/": no file named */
		else if (ret > 0)
			ret = step(w, name, rest, sizeof(rest), &links, why, len);
	}
	if (ret > 0)
		ret = leaf_allowed(w, why, len);
	if (ret < 0) {
		close(w->dirfd);
		w->dirfd = -1;
		return ret;
	}
	return 0;
}

/* "cannot write PATH: why" (or strerror), once; returns err. */
static int refused(const char *path, int err, const char *why)
{
	if (*why)
		ot_error("cannot write %s: %s", path, why);
	else
		ot_error_errno(-err, "cannot write %s", path);
	return err;
}

/* In place: the stream's writes; the file emptied first. */
static ssize_t write_fn(void *cookie, const char *buf, size_t size)
{
	struct ot_outfile *o = cookie;
	size_t done = 0;

	if (o->discard)
		return (ssize_t)size;
	if (!o->started && o->regular && ftruncate(o->fd, 0)) {
		o->werr = o->werr ? o->werr : errno;
		return 0;
	}
	o->started = 1;
	while (done < size) {
		ssize_t n = write(o->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->werr = o->werr ? o->werr : n ? errno : ENOSPC;
			return (ssize_t)done;	/* short: the stream's error */
		}
		done += (size_t)n;
	}
	return (ssize_t)size;
}

static int close_fn(void *cookie)
{
	struct ot_outfile *o = cookie;
	int ret = close(o->fd);

	o->fd = -1;
	return ret;
}

/* The file of w opened for writing, not emptied: created 0600 O_EXCL if
 * it is not there, else the one walked to (checked to be it). */
static int open_leaf(struct ot_outfile *o, const struct walk *w)
{
	struct stat st;

	if (!w->exists) {
		o->fd = openat(w->dirfd, w->leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			       O_CLOEXEC, 0600);
		o->created = o->fd >= 0;
	} else if (S_ISDIR(w->st.st_mode)) {
		return -EISDIR;
	} else {
		/* The magic link is the kernel's to follow; anything else
		 * must still be what was walked to. */
		o->fd = openat(w->dirfd, w->leaf, O_WRONLY | O_NOCTTY | O_CLOEXEC |
			       (w->magic ? 0 : O_NOFOLLOW));
		if (o->fd >= 0 && !w->magic && (fstat(o->fd, &st) || st.st_ino != w->st.st_ino ||
						st.st_dev != w->st.st_dev)) {
			close(o->fd);
			return -EAGAIN;	/* replaced meanwhile: walk again */
		}
	}
	if (o->fd < 0)
		return errno == EEXIST ? -EAGAIN : -errno;
	o->regular = !fstat(o->fd, &st) && S_ISREG(st.st_mode);
	return 0;
}

static struct ot_outfile *new_outfile(const char *path)
{
	struct ot_outfile *o = ot_xcalloc(1, sizeof(*o));

	o->path = ot_xstrdup(path);
	o->dirfd = o->fd = -1;
	return o;
}

static void free_outfile(struct ot_outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->path);
	free(o);
}

int ot_outfile_open(const char *path, struct ot_outfile **out)
{
	static const cookie_io_functions_t io = { .write = write_fn, .close = close_fn };
	struct ot_outfile *o = new_outfile(path);
	char why[512] = "";
	struct walk w;
	int ret = -EAGAIN, tries;

	/* Walked again when the file changed between the walk and the open. */
	for (tries = 0; ret == -EAGAIN && tries < 3; tries++) {
		ret = walk(path, &w, why, sizeof(why));
		if (!ret && (ret = open_leaf(o, &w)))
			close(w.dirfd);
	}
	if (ret) {
		free_outfile(o);
		return refused(path, ret == -EAGAIN ? -EBUSY : ret, why);
	}
	o->dirfd = w.dirfd;
	snprintf(o->leaf, sizeof(o->leaf), "%s", w.leaf);
	o->f = fopencookie(o, "w", io);
	if (!o->f) {
		ret = -errno;
		ot_outfile_close(o, 0);
		return refused(path, ret, "");
	}
	*out = o;
	return 0;
}

FILE *ot_outfile_stream(struct ot_outfile *o)
{
	return o->f;
}

int ot_outfile_close(struct ot_outfile *o, int keep)
{
	int ret = 0;

	if (!o)
		return 0;
	if (o->replacing) {
		/* A version begun and not committed goes. */
		if (o->f) {
			fclose(o->f);
			unlinkat(o->dirfd, o->tmp, 0);
		}
		free_outfile(o);
		return 0;
	}
	o->discard = !keep;
	errno = 0;
	if (o->f && (fflush(o->f) || ferror(o->f)))
		ret = -(o->werr ? o->werr : errno ? errno : EIO);
	/* Kept with nothing written: empty, as a report of nothing is. */
	if (keep && !ret && !o->started && o->regular && ftruncate(o->fd, 0))
		ret = -errno;
	if (o->f && fclose(o->f) && !ret)
		ret = -(errno ? errno : EIO);
	o->f = NULL;
	if (!keep)
		ret = 0;
	/* Nothing was written to a file made for it: as if never made. */
	if (!keep && o->created && !o->started)
		unlinkat(o->dirfd, o->leaf, 0);
	if (ret)
		ot_error_errno(-ret, "cannot write %s", o->path);
	free_outfile(o);
	return ret;
}

int ot_outfile_replacing(const char *path, struct ot_outfile **out)
{
	struct ot_outfile *o;
	char why[512] = "";
	struct walk w;
	mode_t mask;
	int ret = walk(path, &w, why, sizeof(why));
	FILE *f;

	if (!ret && (w.magic || (w.exists && !S_ISREG(w.st.st_mode))))
		ret = w.exists && S_ISDIR(w.st.st_mode) ? -EISDIR : -EINVAL;
	if (ret) {
		if (ret == -EINVAL)
			snprintf(why, sizeof(why), "not a regular file: it is replaced by each write");
		if (w.dirfd >= 0)
			close(w.dirfd);
		return refused(path, ret, why);
	}
	o = new_outfile(path);
	o->replacing = 1;
	o->dirfd = w.dirfd;
	snprintf(o->leaf, sizeof(o->leaf), "%s", w.leaf);
	mask = umask(0);
	umask(mask);
	o->mode = w.exists ? (w.st.st_mode & 07777) : (0644 & ~mask);
	/* A temporary made and removed now: a directory we cannot write to
	 * is said before arming. */
	if (!(f = ot_outfile_next(o))) {
		ret = -errno;
		free_outfile(o);
		return refused(path, ret, "");
	}
	fclose(f);
	o->f = NULL;
	unlinkat(o->dirfd, o->tmp, 0);
	*out = o;
	return 0;
}

/*
 * ".NAME.XXXXXXXX" beside NAME, created O_EXCL: mkstemp(3)'s loop, but
 * in the directory already walked (mkstemp takes a path, which would be
 * resolved again).  Hidden, and not *.prom: a collector skips it.
 */
static int make_temp(struct ot_outfile *o)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[8];
	int tries, fd, k;

	for (tries = 0; tries < 100; tries++) {
		char sfx[sizeof(r) + 1];

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -1;
		for (k = 0; k < (int)sizeof(r); k++)
			sfx[k] = set[r[k] % (sizeof(set) - 1)];
		sfx[sizeof(r)] = 0;
		if (snprintf(o->tmp, sizeof(o->tmp), ".%s.%s", o->leaf, sfx) >= (int)sizeof(o->tmp)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

FILE *ot_outfile_next(struct ot_outfile *o)
{
	int fd = make_temp(o), err;

	if (fd < 0)
		return NULL;
	/* The mode asked for, whatever the umask made of it. */
	if (fchmod(fd, o->mode) || !(o->f = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		unlinkat(o->dirfd, o->tmp, 0);
		errno = err;
		return NULL;
	}
	return o->f;
}

int ot_outfile_commit(struct ot_outfile *o)
{
	int err = 0;

	errno = 0;
	if (fflush(o->f) || ferror(o->f))
		err = errno ? errno : EIO;
	if (fclose(o->f) && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (!err && renameat(o->dirfd, o->tmp, o->dirfd, o->leaf))
		err = errno;
	if (err)
		unlinkat(o->dirfd, o->tmp, 0);
	return -err;
}
