/*
 * caps.h - the capabilities the uprobe PMU asks for (libcap).
 *
 * The kernel gates the uprobe PMU on capable(CAP_SYS_ADMIN); CAP_PERFMON
 * alone gets EACCES.  Checking first turns a bare EACCES into a message
 * that says what is missing and how to get it.
 */
#ifndef OT_CAPS_H
#define OT_CAPS_H

/* 1 if CAP_SYS_ADMIN is in the effective set, else 0. */
int ot_caps_have_sys_admin(void);

/* 1 if cap (a CAP_* of <sys/capability.h>) is in the effective set, else 0. */
int ot_caps_have(int cap);

/*
 * Print why the process cannot arm uprobes, naming the capabilities it has
 * (e.g. "cap_perfmon=ep") and how to run it.  Returns 0 if CAP_SYS_ADMIN
 * is effective, else -EPERM after printing.
 */
int ot_caps_check(void);

/*
 * Once every probe is armed and every ring mapped, the capture needs no
 * privilege: its fds and mappings stay usable.  Clear the effective,
 * permitted and inheritable sets (keeping only CAP_KILL when keep_kill, to
 * stop a command started as another user, and CAP_SYS_PTRACE when
 * keep_ptrace, for --backend inject to stop the process again and restore
 * its code; each only if the process has it).  Returns 0 or -errno.
 */
int ot_caps_drop(int keep_kill, int keep_ptrace);

#endif
