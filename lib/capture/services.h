/*
 * services.h - the processes of a service, as a capture names them:
 * -p PID,PID... (a master and its workers) checked to be processes of one
 * program, and --cgroup's directory (a systemd unit, a container) found
 * and checked to be a cgroup v2 one.  Each prints why it refuses and
 * returns -1; nothing here exits.  Called by lib/capture/capture.
 */
#ifndef OT_SERVICES_H
#define OT_SERVICES_H

#include "process/target.h"

#include <stddef.h>
#include <sys/types.h>

/*
 * The processes after the first (first, attached by ot_target_attach)
 * found as -p finds one, and running its program: the same file, which
 * the probes are on.  0, or -1 after saying which process and why.
 */
int ot_services_pids(const struct ot_target *first, const pid_t *pids, size_t n);

/*
 * -p's ids that are a thread's, not a process's (the kernel's hooks see
 * a process by its first thread's id), replaced by their process's with a
 * note saying so; a process then named twice kept once.  Returns how
 * many remain in pids.
 */
size_t ot_services_threads(pid_t *pids, size_t n);

/*
 * --cgroup PATH opened: absolute, or under the cgroup v2 file system's
 * mount (/sys/fs/cgroup), as perf --cgroup names it; a directory of that
 * file system.  Returns the fd (close-on-exec) with *resolved, its real
 * path (malloc'd), or -1 after saying why.
 */
int ot_services_cgroup(const char *path, char **resolved);

#endif
