/*
 * inject_facts.h - what --backend inject must know of a process before
 * touching it: whether it can be instrumented at all (an x86-64 program,
 * not traced by another, no seccomp, no CET shadow stack), where glibc
 * keeps a thread's id (the runtime finds a thread's slot by it), and
 * which clock the runtime reads (the TSC, or the vDSO's
 * clock_gettime).  Read from /proc, the process's memory and libc's
 * symbols; nothing is written there.  For lib/inject/inject.c only.
 */
#ifndef OT_INJECT_FACTS_H
#define OT_INJECT_FACTS_H

struct ot_inject;

/* What in the process makes it impossible to instrument, or NULL (the
 * reason may be kept in in->why).  Prints nothing. */
const char *inject_refuse_process(struct ot_inject *in);

/*
 * With every thread stopped and in->maps read: in->tid_off, in->fsbase,
 * in->clock and clock_why, and in->vdso_fn when the clock is the
 * vDSO's.  0, or -errno after printing why the process cannot be traced.
 */
int inject_process_facts(struct ot_inject *in);

/*
 * LeakSanitizer's leak check at exit stops every thread with ptrace,
 * which fails in a process we hold (its exit status becomes 1, its
 * buffered output is lost).  With in->maps read: the address in the
 * process of its StopTheWorld, where it starts (the sanitizer runtime
 * mapped: libasan, liblsan, or linked into the program), or 0 when no
 * leak check will run (none mapped, or detect_leaks=0 or
 * leak_check_at_exit=0 in ASAN_OPTIONS/LSAN_OPTIONS); 0 with why set
 * when one will and its start cannot be found.
 */
#include <stddef.h>
#include <stdint.h>
uint64_t inject_leak_check(struct ot_inject *in, char *why, size_t len);

/*
 * With in->maps read: the runtime mapped in the process that walks its
 * threads' stacks itself (V8, the JVM, .NET, LuaJIT...; a table in
 * lib/inject/inject_facts.c), for which a moved return address is fatal,
 * or NULL.
 */
const char *inject_walker(const struct ot_inject *in);

#endif
