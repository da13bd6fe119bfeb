/*
 * procfs.h - a process's /proc files, read in one place: stat's fields
 * after the "(comm)" (which may hold spaces and parentheses), status's
 * "Key:" lines, comm, auxv's pairs, the states of its threads, its
 * mappings (maps); and any small /proc or /sys file.  Nothing here
 * prints or exits (out of memory aside: lib/util/xalloc.h); a file that
 * cannot be read is a process gone.
 */
#ifndef OT_PROCFS_H
#define OT_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One line of /proc/PID/maps. */
struct ot_proc_map {
	uint64_t lo, hi, off;
	char perms[5];		/* "r-xp": perms[2] == 'x' is executable */
	dev_t dev;
	ino_t ino;		/* 0: anonymous (or [vdso], [stack]...) */
	/* The file, "[vdso]", or "": as the kernel names it to us (in the
	 * process's own mount namespace when ours cannot reach it), without
	 * the " (deleted)" of a file removed or replaced on disk since. */
	char *path;
	int deleted;		/* maps said " (deleted)" after the path */
};

/* A small /proc or /sys file, whole, into buf (NUL-terminated, cut at
 * len - 1): 0, or -errno. */
int ot_proc_read_file(const char *path, char *buf, size_t len);

/* The state letter and parent in a stat file (/proc/PID/stat or a task's):
 * 0, or -errno.  ppid may be NULL. */
int ot_proc_stat(const char *path, char *state, uint32_t *ppid);

/* The state letter of /proc/PID/stat, or 0 when it cannot be read. */
char ot_proc_state(pid_t pid);

/* /proc/PID/stat's state letter and exit_code (field 52, Linux 3.5: the
 * wait status the kernel keeps for a zombie): 0, or -errno. */
int ot_proc_exit_code(pid_t pid, char *state, int *code);

/* /proc/PID/comm, without its newline, into buf: 0, or -errno (buf ""). */
int ot_proc_comm(pid_t pid, char *buf, size_t len);

/* The rest of the line of a status file that starts with key ("TracerPid:"),
 * without its newline: 0, or -ENOENT (out ""). */
int ot_proc_status_field(const char *path, const char *key, char *out, size_t len);

/* The auxv entry type of pid: 0 and *val, or -errno (-ENOENT: absent). */
int ot_proc_auxv(pid_t pid, unsigned long type, uint64_t *val);

/* Thread tid of pid as its own pid namespace numbers it (the last of
 * NSpid in its status; tid itself outside any nested namespace), or 0
 * when it cannot be read (it has gone). */
pid_t ot_proc_nstid(pid_t pid, pid_t tid);

/*
 * Our ids of thread nstid of process nspid, both numbered as the pid
 * namespace of process inside numbers them: every process of ours in that
 * namespace is looked at (a scan of /proc: for the rare thread no tracer
 * saw being made).  0 with *hpid and *htid, or -ESRCH (none has them).
 */
int ot_proc_ns_host(pid_t inside, pid_t nspid, pid_t nstid, pid_t *hpid, pid_t *htid);

/* A thread of pid that runs user code: pid itself unless its first
 * thread has ended (pthread_exit) while others run on; 0 when none does
 * (the process is gone, or a zombie). */
pid_t ot_proc_live_task(pid_t pid);

/* How many threads of pid have a state letter in states (a thread that
 * went meanwhile counts as 'X'); *ntasks, all of them (0: pid is gone). */
size_t ot_proc_tasks_in(pid_t pid, const char *states, size_t *ntasks);

/*
 * The mappings of pid as thread tid sees them (a first thread that ended
 * has none: pass one that runs): 0 with *maps (malloc'd, free with
 * ot_proc_maps_free) and *n, or -errno with *maps NULL and *n 0.
 */
int ot_proc_maps(pid_t pid, pid_t tid, struct ot_proc_map **maps, size_t *n);
void ot_proc_maps_free(struct ot_proc_map *maps, size_t n);

/* The executable mapping of file (dev, ino) that holds file offset off,
 * or NULL. */
const struct ot_proc_map *ot_proc_maps_text(const struct ot_proc_map *maps, size_t n,
					    dev_t dev, ino_t ino, uint64_t off);

/* The first executable mapping of a file whose base name starts with
 * prefix ("libc.so.6"), or NULL.  Its path is the process's: open it
 * with lib/process/mapfile.h, never by the name. */
const struct ot_proc_map *ot_proc_maps_lib(const struct ot_proc_map *maps, size_t n,
					   const char *prefix);

/* One process of a tree followed (--follow), as the kernel last saw it. */
struct ot_follow_proc {
	uint32_t pid, ppid;	/* ppid 0: the target itself */
	char comm[16];		/* its name after its last exec */
	int exited;
};

#endif
