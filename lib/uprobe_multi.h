/*
 * uprobe_multi.h - the batched backend: uprobe_multi BPF links.
 *
 * One link attaches a BPF program to many offsets of one file in one
 * system call, and releasing it unregisters them together: the kernel's
 * batched answer to the perf backend's grace periods per fd (see
 * docs/benchmarks.md, "Arming cost").  The program (uprobe_multi.bpf.c)
 * writes each hit into per-CPU perf rings that lib/uprobe opens and maps;
 * the probe id is the cookie given here for the offset.
 *
 * Needs a kernel with BPF_TRACE_UPROBE_MULTI (Linux 6.6) and CAP_BPF +
 * CAP_PERFMON (or CAP_SYS_ADMIN).
 */
#ifndef OT_UPROBE_MULTI_H
#define OT_UPROBE_MULTI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ot_umulti;

/*
 * Load the program, with a ring slot for every possible CPU.  Returns 0,
 * or -errno with a one-line reason in why (the kernel or libbpf refused).
 */
int ot_umulti_load(struct ot_umulti **out, char *why, size_t whylen);

/* The ring (a PERF_COUNT_SW_BPF_OUTPUT event fd) hits on cpu write into. */
int ot_umulti_set_ring(struct ot_umulti *m, int cpu, int fd);

enum ot_umulti_kind {
	OT_UMULTI_ENTRY,	/* uprobes at function entries */
	OT_UMULTI_RET_INSN,	/* uprobes on return instructions */
	OT_UMULTI_URETPROBE,	/* uretprobes */
};

/*
 * Attach one link: a probe of kind at each of n file offsets of path, the
 * i-th reporting cookies[i] as its id; pid > 0 limits it to that process
 * (the kernel then plants no breakpoint in other processes).  Returns 0
 * or -errno; the kernel does not say which offset it refused.
 */
int ot_umulti_attach(struct ot_umulti *m, const char *path,
		     enum ot_umulti_kind kind, const uint64_t *offsets,
		     const uint64_t *cookies, size_t n, pid_t pid);

/* Let entry and/or return probes record (takes effect at once, no IPI). */
void ot_umulti_enable(struct ot_umulti *m, int entries, int returns);

size_t ot_umulti_nlinks(const struct ot_umulti *m);

/* Release the links (the kernel unregisters each link's uprobes together). */
void ot_umulti_close(struct ot_umulti *m);

#endif
