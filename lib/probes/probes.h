/*
 * probes.h - arming a probe at the entry and returns of each target
 * function, through one of the backends, and the rings their records
 * arrive in (one per online CPU, or one per thread with inject), which
 * lib/rings/drain reads.  The backends are known by name and by what they
 * can do (struct ot_backend_info): the layers above ask that, never which
 * backend it is.
 *
 * What every backend shares lives in lib/probes/probes.c: the online CPUs, the
 * rings (mapped here, decoded by lib/rings/ring), the table from a sample's probe
 * id to its target and kind, and the order of the life cycle (arm
 * disabled; enable returns before entries; disable entries before
 * returns; close).  Each backend is one file behind the table of
 * operations in lib/probes/backend.h:
 *
 *   multi  (lib/probes/backend_multi.c) every probe of a file in one uprobe_multi
 *          BPF link, filtered by pid in the kernel (new threads included,
 *          bystanders untouched); a small BPF program writes each hit
 *          into a BPF output event's ring.  Arming and disarming are a few
 *          system calls (docs/benchmarks.md, "Arming cost").
 *   perf   (lib/probes/backend_perf.c) one uprobe PMU perf event per probe and
 *          CPU, system-wide and filtered by pid in lib/rings/drain; the
 *          fallback where the kernel has no uprobe_multi.
 *   inject (lib/probes/backend_inject.c) no uprobe: the process's own code is
 *          patched to jump to trampolines in its memory (lib/inject/inject), and
 *          each of its threads writes a ring in memory shared with us.
 *          Only by name (--backend inject), never by auto.
 *
 * --backend auto takes multi where it loads, else perf: the first in the
 * table that may be taken by auto, can do what is asked (--follow) and
 * loads.  A fourth backend is one file (lib/probes/backend_NAME.c: its
 * operations and its ot_backend_info) and one line of lib/probes/probes.c's
 * table; options, auto, -V and the report follow from its info.
 */
#ifndef OT_PROBES_H
#define OT_PROBES_H

#include "util/figures.h"
#include "process/procfs.h"
#include "rings/kinds.h"
#include "rings/ring.h"
#include "symbols/usdt.h"

#include <stddef.h>
#include <stdint.h>

struct ot_probe_target {
	const char *path;   /* file the kernel resolves, e.g. /proc/self/fd/N */
	const char *file;   /* that file for people (its process's name); NULL: path */
	const char *label;  /* "BINARY:FUNCTION" for messages */
	uint64_t offset;    /* file offset of the function */
	/*
	 * NULL: a return probe (uretprobe) sees the function return.
	 * Otherwise a plain uprobe on each of these return instructions
	 * (lib/symbols/retsite); with nret_sites 0 no return is seen at all.
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
	/* The function's symbol: where it starts and how long it is (inject
	 * patches its first bytes; offset may be past them, a uprobe's). */
	uint64_t sym_offset, sym_size;
	/* Values recorded with each call: the integer argument arg (1-based,
	 * 0 none; 1 with entry_arg) at entry, the return value when
	 * ret_value. */
	uint8_t arg, ret_value;
	/*
	 * A USDT probe: a counted point (OT_PROBE_POINT) at each of its
	 * npoints sites (file offsets), no entry or return of its own;
	 * ref_ctr its semaphore's file offset, raised by the kernel while a
	 * probe is armed (0: none); with arg, the operand each site reads
	 * (point_args[k], parsed from the note).  offset, ret_sites unused.
	 */
	const uint64_t *points;
	size_t npoints;
	uint64_t ref_ctr;
	const struct ot_usdt_arg *point_args;
	/* And each site as its note has it (its link-time address too). */
	const struct ot_usdt_site *sites;
	/* The argument (a USDT probe's, or a function's first value at its
	 * entry) is a string's address: the multi backend reads the string
	 * (OT_PROBE_STR_MAX bytes) into the record; the drain reads what a
	 * record does not carry (ot_probes_target_str). */
	uint8_t str;
	/* An argument asked by its DWARF name (with arg set): the operand
	 * the entry probe reads, a USDT argument's form; NULL: argN's
	 * register. */
	const struct ot_usdt_arg *entry_arg;
	/*
	 * Values after the first at the entry ("read(arg1,arg3)"): nmore
	 * probes of their own at the entry (OT_PROBE_VALUE, after the entry
	 * in the probe order), each recording one operand, its slot j in
	 * its id's kind (OT_VALUE_SLOT).
	 */
	const struct ot_usdt_arg *more_args;
	uint8_t nmore;
	/* Go code (lib/probes/plan): its calls paired per goroutine, which
	 * R14 holds at every probe of it (a backend with OT_CAN_GO). */
	uint8_t go;
};

/* A string argument's bytes read, its NUL included (uprobe_multi.bpf.c's
 * OT_STR_MAX, select.h's OT_USDT_STR_MAX). */
#define OT_PROBE_STR_MAX 64
/* A cookie's bit that asks the BPF program for the string. */
#define OT_PROBE_COOKIE_STR (1ull << 48)
/* A cookie's bit that asks it for the goroutine (a Go function's probe:
 * ot_probe_target.go); its record carries it (lib/rings/ring's key). */
#define OT_PROBE_COOKIE_GO (1ull << 49)

/* Which value target t's probe of kind (enum ot_probe_kind) records:
 * OT_VALUE_* of lib/rings/kinds.h, 0 none. */
int ot_probes_target_value(const struct ot_probe_target *t, int kind);

/* Whether t's probe of kind records a string's address (its value's
 * OT_VALUE_STR): a USDT site's or a function entry's, with str. */
int ot_probes_target_str(const struct ot_probe_target *t, int kind);

struct ot_probes;

/*
 * What a backend can do.  The layers above ask these, never a backend's
 * name: a new backend is one file and one line of lib/probes/probes.c's table.
 */
enum ot_backend_can {
	OT_CAN_AUTO = 1 << 0,		/* --backend auto may take it */
	OT_CAN_FOLLOW = 1 << 1,		/* --follow: forks followed in the kernel */
	OT_CAN_ALL = 1 << 2,		/* -a: every process running the files */
	OT_CAN_FREEZE = 1 << 3,		/* --freeze: worth stopping a -p target for */
	OT_CAN_COMPENSATE = 1 << 4,	/* --compensate: a probe's cost to take out */
	OT_CAN_RETURNS = 1 << 5,	/* --returns chooses how returns are seen */
	OT_CAN_VALUES = 1 << 6,		/* NAME(argN), NAME%ret */
	OT_NEEDS_SYS_ADMIN = 1 << 7,	/* arms uprobes: the uprobe PMU's CAP_SYS_ADMIN */
	/* Patches code that is there: a command it starts runs to its entry
	 * point (its libraries mapped) before arming, held with ptrace. */
	OT_HOLDS_AT_ENTRY = 1 << 8,
	/* Its rings are in the traced process's memory: what they drop is
	 * the process's, counted apart from the kernel's. */
	OT_RINGS_IN_PROCESS = 1 << 9,
	/* Patches each function's own first bytes and sees its returns in
	 * its own code: no uprobe, no entry point or return probe to plan,
	 * and every return paired with its call exactly. */
	OT_PATCHES_CODE = 1 << 10,
	/* usdt:FILE:PROVIDER:NAME terms (which of their operands it reads
	 * is the backend's to say when it arms) */
	OT_CAN_USDT = 1 << 11,
	/* -p PID,PID...: several processes, each its own rows, the capture
	 * over when all have exited (opts.pids) */
	OT_CAN_PIDS = 1 << 12,
	/* --cgroup: -a kept to one cgroup's processes (opts.cgroup_fd) */
	OT_CAN_CGROUP = 1 << 13,
	/* A Go program: its functions' returns seen at return instructions,
	 * their calls paired per goroutine (each hit reads the goroutine's
	 * stack bounds, so a stack that moves keeps its calls' nesting). */
	OT_CAN_GO = 1 << 14,
	/* A capture kept in the kernel to one user's processes, those a
	 * caller of that uid could ptrace (opts.owner): what a user of a
	 * capability install may trace with -a, --follow, -p PID,PID... or
	 * --cgroup (a single -p process is checked as ptrace checks it). */
	OT_CAN_OWNER = 1 << 15,
	/* Its return probes are guarded: a call on a stack the kernel's one
	 * chain of return probes per thread cannot follow (a fiber's) gets
	 * none, counted, so a stack switch no scan names cannot kill the
	 * program.  A backend without it gets a return probe only when
	 * --returns uretprobe asks. */
	OT_GUARDS_RETURNS = 1 << 16,
	OT_CAN_END_	/* keep last: the highest bit + 1, for the check below */
};
/* How many bits the capabilities use: a backend's why_not[] has a slot for
 * each, so a bit added above without raising this does not compile. */
#define OT_CAN_NBITS 17
_Static_assert(OT_CAN_END_ - 1 == 1u << (OT_CAN_NBITS - 1),
	       "OT_CAN_NBITS must be the number of OT_CAN_* bits (why_not[]'s size)");
/* The options' capabilities, in the order their refusals are checked. */
#define OT_CAN_OPTIONS (OT_CAN_FOLLOW | OT_CAN_ALL | OT_CAN_FREEZE | OT_CAN_COMPENSATE | \
			OT_CAN_RETURNS | OT_CAN_VALUES | OT_CAN_USDT | OT_CAN_PIDS | \
			OT_CAN_CGROUP)
_Static_assert(OT_CAN_OPTIONS >> OT_CAN_NBITS == 0, "an option's bit past why_not[]");

struct ot_backend_info {
	const char *name;	/* --backend NAME */
	const char *built_on;	/* for -V: what its probes are */
	unsigned can;		/* enum ot_backend_can */
	const char *returns;	/* how it sees returns, with OT_PATCHES_CODE */
	/* Why it cannot do what an OT_CAN_* it lacks asks, as the option's
	 * refusal: why_not[k] for the bit 1 << k. */
	const char *why_not[OT_CAN_NBITS];
	/* Optional: whether it can arm t as planned (values it cannot read,
	 * say), asked by the plan before a command starts: 0, or -1 with why. */
	int (*refuse_target)(const struct ot_probe_target *t, char *why, size_t len);
};

/* The backend NAME ("auto": the capabilities of those auto may take), or
 * NULL. */
const struct ot_backend_info *ot_backend_find(const char *name);
/* The table in order, auto first; NULL past its end. */
const struct ot_backend_info *ot_backend_at(size_t i);
/* b's own words for refusing what the capability can (one bit) asks, or
 * NULL when it can.  Every backend has words for each option capability
 * it lacks (tests/unit/test_options.c checks the table). */
const char *ot_backend_why_not(const struct ot_backend_info *b, unsigned can);

/* The rings' default sizes, KiB: per CPU (the uprobe backends), per
 * thread (inject: a thread alone can outpace a drain for a while). */
#define OT_RING_KB_DEFAULT 4096
#define OT_RING_KB_INJECT_DEFAULT 16384

/* Where a function returns, for a backend that must see its returns at
 * return instructions (ot_probes_opts.returns). */
struct ot_probe_returns {
	const uint64_t *sites;	/* file offsets: its own, then its tail callees' */
	size_t n, ntail;	/* the last ntail are the tail callees' */
	int64_t delta;		/* link-time address - file offset, in its file */
	const char *inexact;	/* why some returns cannot be seen there, or NULL */
};

/*
 * Knobs only one backend reads, each in its own member: the capture
 * carries them from the command line (lib/cli) as they came, naming
 * none.
 */
struct ot_backend_knobs {
	struct ot_inject_knobs {
		int clock;	/* OT_INJ_CLOCK_*, or -1 for its choice
				 * (ORBIT_INJECT_CLOCK) */
	} inject;
};

struct ot_probes_opts {
	size_t ring_kb;		/* 0: the backend's own default; else per CPU (per
				 * thread with inject), a power-of-two
				 * number of pages */
	const struct ot_backend_info *backend;	/* --backend's (ot_backend_find) */
	int pid;		/* the traced process (multi filters on it) */
	int pidfd;		/* its pidfd, or -1 (inject) */
	int held;		/* pid is the command, stopped under our ptrace at
				 * its entry point (a backend that
				 * OT_HOLDS_AT_ENTRY takes it over) */
	int follow;		/* --follow: pid and the processes it forks, from
				 * their first instruction (multi only) */
	int hold_exec;		/* pid may be stopped (SIGSTOP) while the backend
				 * arms a program it exec'd (the command, or
				 * --freeze): a backend that must arm it again
				 * stops it until then (ot_probes_thread_execs) */
	struct ot_backend_knobs knobs;	/* each backend's own */
	/* -p PID,PID... (OT_CAN_PIDS): every process traced, pid the first;
	 * npids 1 (or 0) for one.  They end as --follow's do
	 * (ot_probes_follow_poll), without their children. */
	const pid_t *pids;
	size_t npids;
	int cgroup_fd;		/* -a --cgroup (OT_CAN_CGROUP): the cgroup v2
				 * directory, open; -1 none */
	/* A caller whose real uid is not 0 (a capability install): only the
	 * processes whose every uid is owner_uid and every gid owner_gid, and
	 * that are dumpable, record anything - none other has a value or a
	 * string read (OT_CAN_OWNER; asked of -a, --follow, -p PID,PID...). */
	int owner;
	uint32_t owner_uid, owner_gid;
	/* inject: target i's return instructions, asked only where they must
	 * be patched (a runtime that walks its stacks); 0, or -1 after
	 * printing.  NULL: none to give. */
	int (*returns)(void *ctx, size_t i, struct ot_probe_returns *out);
	void *returns_ctx;
};

/*
 * Arm (disabled) an entry probe and the return probes for each target,
 * with a ring of ring_kb KiB per online CPU.  Returns 0 and *out, or
 * -errno after printing which probe failed and why - and, when a limit was
 * hit, how many functions had been armed; nothing stays armed on failure.
 * -EDOM: a target the backend --backend auto took cannot arm (its
 * refuse_target), refused as the plan refuses it for a backend named.
 */
int ot_probes_arm(const struct ot_probe_target *t, size_t n,
		  const struct ot_probes_opts *o, struct ot_probes **out);

/* The size of each ring armed, in KiB (the backend's default, or asked). */
size_t ot_probes_ring_kb(const struct ot_probes *p);

/* The backend that armed the probes, by name ("multi", "perf"). */
const char *ot_probes_backend(const struct ot_probes *p);
/* What it can do (its OT_CAN_* and the like). */
unsigned ot_probes_can(const struct ot_probes *p);
/* How it sees returns when it alone decides ("trampoline"), or NULL:
 * where the probe targets say. */
const char *ot_probes_returns(const struct ot_probes *p);

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
/* Polls readable once a quarter of ring i is waiting to be drained. */
int ot_probes_ring_fd(const struct ot_probes *p, unsigned i);
/* A backend with rings of its own: readable when one passed a quarter
 * (inject's doorbell), or -1. */
int ot_probes_wake_fd(const struct ot_probes *p);
/* Kernel objects holding the probes: perf event fds, or BPF links. */
size_t ot_probes_nevents(const struct ot_probes *p);

/* Map an event id from a sample to its target index and probe kind, the
 * value it records (OT_VALUE_*) in bits 8-15 of *kind. */
int ot_probes_lookup(void *probes, uint64_t id, uint32_t *target, int *kind);

/* uprobes armed (per CPU with perf): entries + uretprobes + return insns. */
size_t ot_probes_nuprobes(const struct ot_probes *p);

/* What holds the probes, for people: "uprobe_multi links", "perf events". */
const char *ot_probes_objects(const struct ot_probes *p);

/* Whether releasing takes a few system calls (multi), not seconds (perf):
 * worth stopping a -p target for (--freeze). */
int ot_probes_quick_close(const struct ot_probes *p);

struct ot_drain;

/* Read every ring into d (per CPU, or per thread).  Returns records read. */
size_t ot_probes_drain(struct ot_probes *p, struct ot_drain *d);

/*
 * After the last drain (probes disabled, every ring read to its end), and
 * before the drain's last flush: the records the kernel dropped that no
 * PERF_RECORD_LOST reported, counted into d (ot_drain_lost).  The kernel
 * reports a full ring's drops only with the next record it writes there,
 * so a burst that overflows a ring and is followed by nothing is reported
 * by nobody; each event's own count (PERF_FORMAT_LOST, Linux 6.0) is read
 * here instead, once (no cost per record).  Returns 1 when d's lost count
 * is exact: the counts were read, or the backend counts its rings' drops
 * itself (inject), or no ring ever came within a record of full; 0 when
 * it may be short (the kernel has no such count, and a ring filled).
 */
int ot_probes_final_lost(struct ot_probes *p, struct ot_drain *d);

/* The drain's queues: one per CPU, or per thread for inject. */
unsigned ot_probes_nqueues(const struct ot_probes *p);

/* How long the drain may sleep, given --drain-ms: inject's rings wake
 * nobody, so it polls sooner while they fill. */
int ot_probes_poll_ms(const struct ot_probes *p, int drain_ms);

/* The fullest ring at the latest drain: bytes pending and ring size. */
void ot_probes_ring_peak(const struct ot_probes *p, uint64_t *pending, uint64_t *size);
/* The most bytes pending in one ring at any drain. */
uint64_t ot_probes_high_water(const struct ot_probes *p);

/* Why target i was not armed (inject refuses functions one by one), or NULL. */
const char *ot_probes_refused(const struct ot_probes *p, size_t i);

/*
 * What a backend says of its own part of a capture, beyond its rings: why
 * some of its counts are not exact, and its own figures for the report
 * (what it did in the process, what it re-armed: lib/util/figures.h, the
 * report prints them as they are).  A copy, valid after ot_probes_close.
 */
#define OT_PROBES_WHY_MAX 8
struct ot_probes_said {
	char why[OT_PROBES_WHY_MAX][384];	/* a line each; the status is lossy */
	size_t nwhy;
	struct ot_figures figs;
};
/* What it says now: after ot_probes_enable its arming, after the last
 * drain its counts. */
void ot_probes_say(struct ot_probes *p, struct ot_probes_said *out);

/*
 * What the traced process did that the backend must act on now (inject:
 * an exec, after which its new program is instrumented; multi: an exec
 * from a thread other than its first, after which its links are made
 * again and the process, if held, continued).  Call it when SIGCHLD
 * arrives and at every drain.
 */
void ot_probes_events(struct ot_probes *p);

/*
 * multi: the traced process exec'd from a thread other than its first.
 * The kernel's uprobe_multi links follow the task that led the process
 * when they were made, which such an exec ends: the new program would run
 * unprobed.  The backend makes the process's links again for each one
 * (ot_probes_events), the process stopped until then where hold_exec
 * allows and nothing stands in the way; an exec it could not hold ran
 * unprobed for up to unprobed_ns, its calls meanwhile not seen.
 */
struct ot_probes_thread_execs {
	uint64_t count;		/* such execs seen */
	uint64_t held;		/* of them, stopped until armed again */
	uint64_t unprobed_ns;	/* the longest any other ran unprobed */
	const char *why;	/* why the latest other was not held, or NULL */
	int rearm_err;		/* a positive errno: links could not be made again */
};
/* NULL for a backend without them (perf, inject) or when no link filters
 * on a pid (--follow, -a). */
const struct ot_probes_thread_execs *ot_probes_thread_execs(const struct ot_probes *p);


/*
 * --follow, and -p PID,PID...: calls fn once for each process that exited
 * since the last call (then forgotten), and with alive for those still
 * running too; returns how many are alive, *dropped the children the
 * kernel could not follow (its table full); -ENOTSUP when neither.
 */
int ot_probes_follow_poll(struct ot_probes *p, int alive,
			  void (*fn)(void *ctx, const struct ot_follow_proc *proc),
			  void *ctx, uint64_t *dropped);

/*
 * -a: the name process pid had at its latest traced call, as the backend
 * saw it then (whether or not the process is still there): 0, -ENOENT
 * when it has none, -ENOTSUP for a backend that keeps no names.
 */
int ot_probes_comm(struct ot_probes *p, uint32_t pid, char *buf, size_t len);

/*
 * Before probes of backend `using` go into process pid (-p, --follow, or
 * with n places - paths[k] a file, offs[k] a probe's offset in it - a
 * process -a reaches only there): what a capture of another backend that
 * leaves things in processes (code patches, memory) left there, a killed
 * one's, taken back (said in a warning).  0 when nothing is there or it
 * was taken back; -1 after printing why not (naming --restore), when the
 * capture that left it still runs or it cannot be taken back.  A backend
 * that patches code takes back its own leftovers itself.
 */
int ot_probes_take_back(const struct ot_backend_info *using, pid_t pid,
			const char *const *paths, const uint64_t *offs, size_t n);

/* What --restore found in a process of a capture killed before its end,
 * and did. */
struct ot_probes_restored {
	int found;			/* there was something */
	pid_t tracer;			/* the orbit-trace that left it */
	size_t patches, restored, kept;	/* patched entries; put back; left */
	size_t returns_restored;	/* moved return addresses put back */
	size_t semaphores, semaphores_lowered; /* USDT semaphores raised; lowered */
	uint64_t unmapped_bytes, left_bytes;	/* memory given back; left, and why */
	const char *left_why;
	char why[256];			/* why kept */
};

/*
 * --restore -p PID: whatever a killed capture of any backend left in pid
 * taken back.  0 (out->found: whether there was anything), or -errno after
 * printing.
 */
int ot_probes_restore(pid_t pid, struct ot_probes_restored *out);

/* ot_probes_close, with what the backend said last (its removal's figures)
 * in *out; 1 if it said anything. */
int ot_probes_close_said(struct ot_probes *p, struct ot_probes_said *out);

#endif
