/*
 * backend.h - the probe backends' interface, for lib/probes/probes.c and the
 * backend files only (lib/probes/backend_*.c).
 *
 * lib/probes/probes.c owns the CPUs, the rings and the probe-id table, and calls
 * a backend through struct ot_backend_ops in this order: load (may refuse,
 * saying why: auto then tries the next backend), open_ring for each CPU
 * (the event that owns the ring; probes.c maps it), ring_mapped, arm,
 * enable/disable any number of times, close.  A backend without per-CPU
 * rings (open_ring NULL: inject) drains its own, handing the drain each
 * thread's compact records, whose ids say the function and kind
 * (ot_drain_thread); a backend with per-CPU rings registers every probe
 * it arms with ot_probes_id_insert.  A new backend is one new file
 * and one entry in lib/probes/probes.c's table; what it can do (info.can) is all
 * the layers above know of it.
 */
#ifndef OT_BACKEND_H
#define OT_BACKEND_H

#include "probes.h"
#include "rings/ring.h"

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct ot_cpu_ring {
	int cpu;
	int fd;		/* the event that owns the ring, -1 when none */
	void *map;
	size_t map_len;
	struct ot_ring ring;
};

struct ot_backend_ops {
	struct ot_backend_info info;	/* its name and what it can do */
	const char *objects;	/* what holds the probes, for people */
	/* Its rings' samples, when they are not the uprobe PMU's layout
	 * (ot_ring.decode): its own decoder, else NULL. */
	int (*decode)(const struct perf_event_header *rec, struct ot_record *out);
	int quick_close;	/* releasing takes a few system calls */
	size_t ring_kb;		/* its rings' size unless --ring-kb says */
	/* Prepare (load programs, read sysfs): 0, or -errno with why. */
	int (*load)(struct ot_probes *p, char *why, size_t whylen);
	/* Open the ring owner for CPU c with data bytes of ring: an fd, or
	 * -errno after printing. */
	int (*open_ring)(struct ot_probes *p, unsigned c, size_t data);
	/* The ring of CPU c is mapped: 0 or -errno after printing. */
	int (*ring_mapped)(struct ot_probes *p, unsigned c);
	/* Arm n targets, disabled; pid: the traced process.  0 or -errno
	 * after printing which probe failed and why. */
	int (*arm)(struct ot_probes *p, const struct ot_probe_target *t, size_t n, int pid);
	int (*enable)(struct ot_probes *p);	/* returns, then entries */
	void (*disable)(struct ot_probes *p);	/* entries, then returns */
	void (*close)(struct ot_probes *p);	/* release probes, not rings */
	size_t (*nevents)(const struct ot_probes *p);
	/*
	 * Optional, for a backend with rings of its own (open_ring NULL):
	 * read them into the drain, say how many queues it needs, how soon
	 * to poll, its fullest ring, why a target was refused.
	 */
	size_t (*drain)(struct ot_probes *p, struct ot_drain *d);
	unsigned (*nqueues)(const struct ot_probes *p);
	int (*poll_ms)(const struct ot_probes *p, int drain_ms);
	void (*ring_peak)(const struct ot_probes *p, uint64_t *pending, uint64_t *size,
			  uint64_t *high_water);
	const char *(*refused)(const struct ot_probes *p, size_t i);
	/* Optional: its own part of the report into out (zeroed): why its
	 * counts are not exact, what it did in the process.  A backend that
	 * works there says its last word into p->last_said when it closes. */
	void (*say)(struct ot_probes *p, struct ot_probes_said *out);
	/* Optional: what the traced process did that the backend must see
	 * (inject: its execs; multi: its execs from a thread other than its
	 * first), called when SIGCHLD comes and at every drain. */
	void (*events)(struct ot_probes *p);
	/* Optional, for rings of its own: an fd that polls readable when
	 * they want draining now (or -1). */
	int (*wake_fd)(const struct ot_probes *p);
	/* Optional: execs it re-armed after (ot_probes_thread_execs). */
	const struct ot_probes_thread_execs *(*thread_execs)(const struct ot_probes *p);
	/*
	 * Optional, for rings owned per CPU: into lost[c], for each CPU c,
	 * the records the kernel could not write into ring c since it was
	 * opened - the PERF_FORMAT_LOST counts (ot_probes_perf_lost) of
	 * every event that writes into it, summed.  0, or -errno.  Called
	 * once, after disable: reading an enabled event may interrupt the
	 * CPU it runs on.  Only when p->lost_format is 1.
	 */
	int (*rings_lost)(const struct ot_probes *p, uint64_t *lost);
	/* Optional: -a's name of a process (ot_probes_comm). */
	int (*comm)(struct ot_probes *p, uint32_t pid, char *buf, size_t len);
	/* Optional: --follow's processes (ot_probes_follow_poll). */
	int (*follow_poll)(struct ot_probes *p, int alive,
			   void (*fn)(void *ctx, const struct ot_follow_proc *proc),
			   void *ctx, uint64_t *dropped);
	/* Optional, for a backend that leaves things in a process (code
	 * patches, memory): what a capture of it left in pid taken back
	 * before another backend's probes go in (ot_probes_take_back), and
	 * --restore's (ot_probes_restore); no struct ot_probes needed. */
	int (*take_back)(pid_t pid, const char *const *paths, const uint64_t *offs, size_t n);
	int (*restore)(pid_t pid, struct ot_probes_restored *out);
};

struct ot_probes {
	const struct ot_backend_ops *ops;
	void *priv;			/* the backend's own state */
	struct ot_probes_opts opts;	/* as ot_probes_arm was given them */
	/* An in-process backend's last word, set by its close (removal's
	 * pauses and what it left): ot_probes_close_said copies it out. */
	struct ot_probes_said last_said;
	int have_said;
	int enabled;			/* between ot_probes_enable and _disable */
	/* Events count the records they could not write (PERF_FORMAT_LOST,
	 * Linux 6.0): 0 not known yet, 1 yes, -1 the kernel refused it. */
	int lost_format;
	struct ot_cpu_ring *cpus;
	unsigned ncpus;
	size_t nuprobes;		/* entries + uretprobes + return insns */
	int values;			/* some probe records an argument or return value */
	struct ot_probe_id *ids;	/* open addressing on the id */
	size_t idcap;
	struct ot_probe_id *last;	/* the last id looked up */
};

struct ot_probe_id {
	uint64_t id;	/* 0: empty (the kernel's ids start at 1) */
	uint32_t target;
	uint32_t kind;	/* enum ot_probe_kind | its OT_VALUE_* << 8 */
};

/* A sample with this id is probe kind of target, recording value
 * (OT_VALUE_*, 0 none). */
void ot_probes_id_insert(struct ot_probes *p, uint64_t id, uint32_t target, int kind, int value);

/* The probes of target t, in the order a backend arms them: return
 * probes (the uretprobe, or each return instruction), then the entry;
 * a USDT probe's sites (OT_PROBE_POINT), each armed with t->ref_ctr. */
size_t ot_probes_target_nprobes(const struct ot_probe_target *t);
void ot_probes_target_probe(const struct ot_probe_target *t, size_t k, int *kind,
			    uint64_t *offset);

/* " (needs CAP_SYS_ADMIN)" and the like, for an errno from arming. */
const char *ot_probes_arm_hint(int err);

/* A perf_event_open attribute with what every ring's events share. */
void ot_probes_base_attr(struct perf_event_attr *a);
/* The ring owner wakes a poller once a quarter of data is pending. */
void ot_probes_ring_wakeup(struct perf_event_attr *a, size_t data);
/*
 * perf_event_open(attr, pid -1, cpu, group), asking for PERF_FORMAT_LOST
 * too while p->lost_format is not -1: the first EINVAL before the kernel
 * has accepted it once is retried without it, and if that opens, the
 * kernel has none (p->lost_format -1, said with -v).  An fd, or -1 and
 * errno.
 */
int ot_probes_perf_open(struct ot_probes *p, struct perf_event_attr *attr, int cpu,
			int group);
/* An event's PERF_FORMAT_LOST count (opened by ot_probes_perf_open with
 * p->lost_format 1): 0 and *lost, or -errno. */
int ot_probes_perf_lost(int fd, uint64_t *lost);

extern const struct ot_backend_ops ot_backend_multi;
extern const struct ot_backend_ops ot_backend_perf;
extern const struct ot_backend_ops ot_backend_inject;

#endif
