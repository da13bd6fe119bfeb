/*
 * inject_traps.h - breakpoints of ours in a traced process, where it must
 * be let go before it goes on: LeakSanitizer's leak check at exit (which
 * stops every thread with ptrace, and fails in a process we hold) and,
 * under an unprivileged capture, execve (the kernel runs a set-user-ID
 * program without its privileges under a tracer without CAP_SYS_PTRACE).
 * Each is a one-byte patch (an int3) kept with the others (the recovery
 * table, removal); the tracee holds a thread that reaches one
 * (lib/process/tracee's OT_TEV_TRAP), and ot_inject_trapped
 * (lib/inject/inject.h) says what to do.  For lib/inject/inject.c.
 */
#ifndef OT_INJECT_TRAPS_H
#define OT_INJECT_TRAPS_H

struct ot_inject;

/* After the trampolines, before the recovery table: the breakpoints as
 * patches (in->leak_check found by inject_facts.c; execve's in libc when
 * this process lacks CAP_SYS_PTRACE). */
void inject_traps_plan(struct ot_inject *in);

/* Once written: the tracee told where they are. */
void inject_traps_armed(struct ot_inject *in);

/* execve's breakpoint out (on 0: a vfork child, untraced, execs in this
 * memory) or back (on 1).  Nothing without one. */
void inject_exec_trap(struct ot_inject *in, int on);

#endif
