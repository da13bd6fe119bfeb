/*
 * mapfile.h - the files a traced process maps, opened as that process
 * sees them and proven to be the ones it maps: never a file of the same
 * name elsewhere (the host's libc.so.6 for a container's), never a link,
 * FIFO or device a hostile process put where its file was.
 *
 * A mapping's file is reached, in this order, through
 * /proc/PID/map_files/LO-HI (the mapping itself, a deleted file too; the
 * kernel lets CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE holders open it),
 * through the process's root (/proc/PID/root: a container's files), or
 * by its path in ours (a chroot's, which maps names from our root); each
 * opened O_PATH (no open of a device or FIFO happens, nothing can block),
 * with no symbolic link followed (the kernel names mapped files by their
 * real paths), and kept only if it is a regular file with the device and
 * inode maps gives.  What is kept is an O_PATH descriptor and its
 * "/proc/self/fd/N" path: libelf, libdw and every reader open that path,
 * and the kernel resolves it to the inode when a uprobe is made on it,
 * so the file read and the file armed are the one the process maps,
 * deleted or not.  Nothing here prints or exits.
 */
#ifndef OT_MAPFILE_H
#define OT_MAPFILE_H

#include "procfs.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ot_mapfile {
	int fd;			/* O_PATH, close-on-exec; -1: none */
	char path[32];		/* "/proc/self/fd/N" */
	dev_t dev;
	ino_t ino;
};

/*
 * Open the file of mapping m of process pid (pid may be any of its
 * threads that runs: a first thread that ended has no maps).  Returns 0
 * with *f filled, or -errno with why (one line, no path of ours): the
 * mapping has no file, or none of the ways reaches a regular file with
 * m's device and inode (a deleted one without the capability for
 * map_files, a link or FIFO in its place, another file there).
 */
int ot_mapfile_open(pid_t pid, const struct ot_proc_map *m, struct ot_mapfile *f,
		    char *why, size_t len);

/*
 * Open path as process pid sees it: an absolute path resolved inside its
 * root (/proc/PID/root; symbolic links followed but never out of it, no
 * magic link), with pid 0 in ours, every link followed as a user's shell
 * would (a /proc/PID/root/... path reaches a container's file).  Only a
 * regular file is kept.  Returns 0, or -errno with why.
 */
int ot_mapfile_open_in_root(pid_t pid, const char *path, struct ot_mapfile *f,
			    char *why, size_t len);

/* Close f's descriptor (safe on a closed one). */
void ot_mapfile_close(struct ot_mapfile *f);

/*
 * Up to len bytes at file offset off of the file of mapping m of pid
 * (pid 0: the process is gone; only the path in our root is tried),
 * opened as ot_mapfile_open does.  Returns the count read, or -1 when the
 * file cannot be proven to be m's (nothing is read then).
 */
ssize_t ot_mapfile_pread(pid_t pid, const struct ot_proc_map *m, uint64_t off, void *buf,
			 size_t len);

/*
 * 1 when process pid sees files as we do: the same root directory and
 * the same mount namespace (a name means the same file to both); 0 when
 * it does not or that cannot be read.
 */
int ot_mapfile_same_view(pid_t pid);

#endif
