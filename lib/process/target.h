/*
 * target.h - the traced process: started by us (-- CMD) or found (-p PID).
 *
 * A started command is forked at once but held before exec until the
 * probes are armed, so not one call is missed; an exec failure is passed
 * back through a close-on-exec pipe.  Exit is watched through a pidfd,
 * which works the same for our child and for any other process.
 */
#ifndef OT_TARGET_H
#define OT_TARGET_H

#include <stddef.h>
#include <sys/types.h>

struct ot_mapfile;

/* Who a started command runs as. */
struct ot_user {
	int set;	 /* 0: as orbit-trace itself */
	uid_t uid;
	gid_t gid;
	char name[64];	 /* for initgroups; empty: no supplementary groups */
};

/*
 * Resolve spec (a user name or numeric uid) into *u.  With spec NULL, a
 * root orbit-trace started by sudo runs commands as the invoking user
 * (SUDO_UID, SUDO_GID), anything else as itself.  Returns 0, or -ENOENT
 * after printing.
 */
int ot_user_resolve(const char *spec, struct ot_user *u);

struct ot_target {
	pid_t pid;
	int pidfd;	 /* readable when the process has exited */
	int is_child;
	int go_fd;	 /* child: write a byte to let it exec */
	int err_fd;	 /* child: errno of a failed exec, or EOF */
	/* The program's file for the ELF reader and the kernel:
	 * "/proc/self/fd/N" of a descriptor in files (lib/process/mapfile.h),
	 * the very file it runs (a -p process's as it sees it). */
	char *exe;
	char *run;	 /* -- CMD: the path exec'd, as execvp finds it (a #!
			  * script's own, where exe is its interpreter's) */
	char *display;	 /* the binary's name for people */
	int exited;
	int status;	 /* wait status, if exited and exit_from is not 0 */
	int exit_from;	 /* where status came from (exitinfo.h's enum
			  * ot_exit_from); 0: unknown, exit_why says why */
	const char *exit_why;
	int frozen;	 /* stopped by ot_target_freeze, to be continued */
	int sigpipe_ignored; /* -- CMD starts with SIGPIPE ignored (else default) */
	/* Every file opened for it (its program, the libraries -f names),
	 * each once, held until ot_target_fini. */
	struct ot_mapfile *files;
	size_t nfiles;
};

/*
 * Find process pid.  Its program is opened through /proc/PID/exe (a
 * deleted file, or one in another mount namespace, is reached) and must
 * be a file it maps.  Returns 0, or -errno after printing why it cannot
 * be traced (no such process, kernel thread, zombie, an executable it
 * does not map).
 */
int ot_target_attach(struct ot_target *t, pid_t pid);

/*
 * Find the executable argv[0] names, the way execvp would, without running
 * it.  The path found is exec'd as it is, so the process keeps the name
 * the user typed (python3, not python3.11); its real path is read.  For a
 * "#!" script the interpreter is read (its functions and libraries are
 * what runs), up to 4 levels.  Returns 0, or -ENOENT after printing.
 */
int ot_target_find(struct ot_target *t, const char *cmd);

/* 1 if the command ot_target_find found (t->run) is a "#!" script. */
int ot_target_is_script(const struct ot_target *t);

/*
 * Fork argv (after ot_target_find), held before exec.  sigmask is restored
 * in the child, and it takes user's identity (groups, gid, uid) before the
 * exec.  Returns 0, or -errno after printing.
 */
int ot_target_spawn(struct ot_target *t, char *const argv[],
		    const void *sigmask, const struct ot_user *user);

/*
 * Find the library name names for target t (an ot_lib_resolve_fn).
 * With -p, as the process sees it: a soname (a file name) or an absolute
 * path among the files it maps (through lib/process/mapfile.h: proven to
 * be the mapped one, deleted or in a container; one that cannot be is
 * refused with the reason, never replaced by another), else in its own
 * root (not loaded yet: uprobes bind to the file); a process that sees
 * our files (our root and mount namespace) is searched as a command is.
 * For a command, -a and -l: a path is taken as it is (a /proc/PID/root/
 * path reaches a container's file); a soname as ld.so --list finds it
 * for the program, then in LD_LIBRARY_PATH and the standard library
 * directories.  Returns 0 with *path ("/proc/self/fd/N", held by t) and
 * *file (the file as its process names it, for people) malloc'd, or
 * -ENOENT after printing what was searched or why it was refused.
 */
int ot_target_find_lib(void *t, const char *name, char **path, char **file);

/*
 * The files process t maps or will map, its program first (an
 * ot_plan_opts objects callback): paths to open (a -p process's through
 * /proc/PID/exe and /proc/PID/map_files) and names for people, malloc'd
 * arrays of n malloc'd strings.  A command's are its program and the
 * libraries the loader loads for it (ld.so --list: not those dlopen'ed
 * later); a -p process's, every file with code it maps now.  Returns 0
 * (n 0 with no program: -a).
 */
int ot_target_objects(void *t, char ***paths, char ***names, size_t *n);

/* Let a held child exec.  Returns 0, or -errno (printed) if exec failed. */
int ot_target_release(struct ot_target *t);

/*
 * Let a held child exec under ptrace, stopped right after the exec
 * (before the new program's first instruction) while at_exec(ctx) reads
 * what it must of the new program (its maps, its memory), then let go
 * untraced.  Returns 0, or -errno after printing.
 */
int ot_target_release_at_exec(struct ot_target *t, void (*at_exec)(void *ctx), void *ctx);

/*
 * --backend inject: let a held child exec under ptrace and stop it at its
 * entry point (AT_ENTRY), the loader having mapped its libraries and run
 * their initialisers; it stays stopped there, seized by us, for the
 * backend to patch and let go.  Returns 0, or -errno after printing.
 */
int ot_target_exec_stopped(struct ot_target *t);

/* Non-blocking: 1 if the process has exited (and is reaped if ours), else
 * 0.  Once it has, t->status is how it ended when that can be known
 * (t->exit_from; lib/process/exitinfo.h for a process not ours). */
int ot_target_check_exit(struct ot_target *t);

/*
 * --freeze: stop every thread of the process (SIGSTOP) and wait until the
 * kernel shows each one stopped, so that no CPU runs its memory while its
 * breakpoints are written: no TLB shootdowns and no threads waiting on its
 * mmap_lock (docs/benchmarks.md, "Arming cost").  A process that was
 * already stopped is left as it is (and not continued by ot_target_thaw).
 * Returns 0, or -errno after printing (then nothing is left stopped).
 */
int ot_target_freeze(struct ot_target *t);

/* Continue the process if ot_target_freeze stopped it; safe to repeat. */
void ot_target_thaw(struct ot_target *t);

/* Stop a started command we no longer trace (SIGTERM, then reap). */
void ot_target_stop(struct ot_target *t);

void ot_target_fini(struct ot_target *t);

#endif
