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
 * report shows.  The batched BPF backend (uprobe_multi) can filter by pid
 * in the kernel.
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
};

/* What a sample's probe is: ot_probes_lookup's *kind. */
enum ot_probe_kind {
	OT_PROBE_ENTRY = 0,
	OT_PROBE_URETPROBE = 1,
	OT_PROBE_RET_INSN = 2,
};

struct ot_probes;

/*
 * Open (disabled) an entry uprobe and the return probes for each target on
 * every online CPU, with a ring of ring_kb KiB per CPU.  Returns 0 and *out, or
 * -errno after printing which probe failed and why; nothing stays armed
 * on failure.
 */
int ot_probes_arm(const struct ot_probe_target *t, size_t n, size_t ring_kb,
		  struct ot_probes **out);

/* Return probes first, then entry probes.  Returns 0 or -errno. */
int ot_probes_enable(struct ot_probes *p);

/* Entry probes first, so calls in flight still report their returns. */
void ot_probes_disable(struct ot_probes *p);

/*
 * Close every event and unmap every ring.  Slow: the kernel waits for two
 * grace periods per uprobe fd.  Print the report before calling this.
 */
void ot_probes_close(struct ot_probes *p);

unsigned ot_probes_ncpus(const struct ot_probes *p);
struct ot_ring *ot_probes_ring(struct ot_probes *p, unsigned i);
size_t ot_probes_nevents(const struct ot_probes *p); /* uprobe fds */

/* Map an event id from a sample to its target index and probe kind. */
int ot_probes_lookup(void *probes, uint64_t id, uint32_t *target, int *kind);

/* uprobes armed per CPU: entries + uretprobes + return instructions. */
size_t ot_probes_nuprobes(const struct ot_probes *p);

/* Read the uprobe PMU from sysfs: returns 0, or -errno if it is missing. */
int ot_uprobe_pmu(int *type, unsigned *retprobe_bit);

#endif
