/*
 * uprobe.h - arming entry and return uprobes through perf_event_open.
 *
 * Owns every perf event fd and ring mapping of a capture.  The uprobe PMU's
 * type and retprobe bit are read from sysfs, never hard-coded.  Per CPU:
 * two disabled dummy group leaders (one for return probes, one for entry
 * probes), every uprobe a member of one of them, and one ring that all of
 * the CPU's events write into (PERF_EVENT_IOC_SET_OUTPUT).  Enabling is
 * then one ioctl per leader instead of one IPI per event, and return
 * probes can be switched on before entry probes.
 *
 * Events are per CPU and system-wide (pid -1), chosen by measuring both
 * (docs/benchmarks.md, "pid-bound or system-wide"):
 * - a pid-bound event follows one thread: bound to a process whose two
 *   workers start after arming, it counted 0 of their 12,000 inner calls,
 *   where a system-wide event counted 12,000; the kernel's way to follow
 *   new threads (inherit=1) breaks the target's pthread_create (EFAULT)
 *   when the event belongs to another process;
 * - a system-wide event also fires for every other process running the
 *   same file: such a process paid ~4.8 us per hit (1.73 s instead of
 *   4.8 ms for 180,000 calls) and lib/drain dropped its records by pid
 *   (counted as "foreign").
 * Missing threads is a wrong answer; slowing a bystander is a cost the
 * report shows.
 *
 * That is the perf backend.  The multi backend (lib/uprobe_multi) attaches
 * every probe of a file with one uprobe_multi BPF link, filtered by pid in
 * the kernel (new threads included, bystanders untouched), and writes into
 * one BPF output event's ring per CPU.  Arming and disarming are then a few
 * system calls instead of four fds per function and CPU, each closed after
 * two grace periods (docs/benchmarks.md, "Arming cost").
 */
#ifndef OT_UPROBE_H
#define OT_UPROBE_H

#include "ring.h"

#include <stddef.h>
#include <stdint.h>

struct ot_probe_target {
	const char *path;   /* file the kernel resolves, e.g. /proc/PID/exe */
	const char *label;  /* "BINARY:FUNCTION" for messages */
	uint64_t offset;    /* file offset of the function */
	/*
	 * NULL: a return probe (uretprobe) sees the function return.
	 * Otherwise a plain uprobe on each of these return instructions
	 * (lib/retsite); with nret_sites 0 no return is seen at all.
	 */
	const uint64_t *ret_sites;
	size_t nret_sites;
	/*
	 * The last ntail_sites of ret_sites are return instructions of the
	 * functions it tail-calls: they end this function only when the SP
	 * is the one its entry saw (OT_PROBE_TAIL_RET).
	 */
	size_t ntail_sites;
	/* > 0: probe this process rather than the capture's (the multi
	 * backend filters on it; the perf backend's drain must accept it). */
	int pid;
};

/* What a sample's probe is: ot_probes_lookup's *kind. */
enum ot_probe_kind {
	OT_PROBE_ENTRY = 0,
	OT_PROBE_URETPROBE = 1,
	OT_PROBE_RET_INSN = 2,
	OT_PROBE_TAIL_RET = 3,	/* a return instruction of a tail callee */
};

struct ot_probes;

enum ot_backend {
	OT_BACKEND_AUTO,	/* multi where the kernel has it, else perf */
	OT_BACKEND_PERF,
	OT_BACKEND_MULTI,
};

const char *ot_backend_name(enum ot_backend b);

struct ot_probes_opts {
	size_t ring_kb;		/* per CPU, a power-of-two number of pages */
	enum ot_backend backend;
	int pid;		/* the traced process (multi filters on it) */
};

/*
 * Arm (disabled) an entry probe and the return probes for each target,
 * with a ring of ring_kb KiB per online CPU.  Returns 0 and *out, or
 * -errno after printing which probe failed and why - and, when a limit was
 * hit, how many functions had been armed; nothing stays armed on failure.
 */
int ot_probes_arm(const struct ot_probe_target *t, size_t n,
		  const struct ot_probes_opts *o, struct ot_probes **out);

/* The backend that armed the probes (never OT_BACKEND_AUTO). */
enum ot_backend ot_probes_backend(const struct ot_probes *p);

/* Return probes first, then entry probes.  Returns 0 or -errno. */
int ot_probes_enable(struct ot_probes *p);

/* Entry probes first, so calls in flight still report their returns. */
void ot_probes_disable(struct ot_probes *p);

/*
 * Close every event and link and unmap every ring.  Slow with the perf
 * backend: the kernel waits for two grace periods per uprobe fd.  Print the
 * report before calling this.
 */
void ot_probes_close(struct ot_probes *p);

unsigned ot_probes_ncpus(const struct ot_probes *p);
struct ot_ring *ot_probes_ring(struct ot_probes *p, unsigned i);
/* Polls readable once a quarter of ring i is waiting to be drained. */
int ot_probes_ring_fd(const struct ot_probes *p, unsigned i);
/* Kernel objects holding the probes: perf event fds, or BPF links. */
size_t ot_probes_nevents(const struct ot_probes *p);

/* Map an event id from a sample to its target index and probe kind. */
int ot_probes_lookup(void *probes, uint64_t id, uint32_t *target, int *kind);

/* uprobes armed (per CPU with perf): entries + uretprobes + return insns. */
size_t ot_probes_nuprobes(const struct ot_probes *p);

/* Read the uprobe PMU from sysfs: returns 0, or -errno if it is missing. */
int ot_uprobe_pmu(int *type, unsigned *retprobe_bit);

#endif
