/*
 * report.h - the scope/loss report, as text for people and JSON for scripts.
 *
 * A printer: takes a filled struct ot_report and writes it, calling
 * nothing in symbols, probes, rings or calibration; computes nothing that
 * the pairing or drain could lie about.  The JSON keys are documented
 * field by field in orbit-trace(1), OUTPUT FIELDS: change both together.
 * tests/unit/test_report.c pins the output byte for byte
 * (tests/unit/expected/).  Written by lib/report/report*.c, one file per job
 * (lib/report/report_priv.h says which).
 */
#ifndef OT_REPORT_H
#define OT_REPORT_H

#include "inject/inject_stats.h"
#include "check.h"
#include "scopes/pair.h"
#include "scopes/values.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Every JSON object orbit-trace writes (report, interval, slow, restore)
 * carries "type" and this "version": it changes when a field is removed,
 * renamed or changes its type or meaning, never for one added (the man
 * page's JSON VERSIONS). */
#define OT_JSON_VERSION 2

/* One slow scope: when (since the capture began), where, how long. */
/* Values of an entry after its first (select.h's OT_SEL_MAX_VALUES - 1). */
#define OT_REPORT_MORE 3

struct ot_report_slow {
	uint64_t at_ns;
	uint64_t duration_ns;
	uint32_t tid;
	const char *path;	/* its chain of traced callers: "outer > middle > inner" */
	/* The same chain name by name, outermost first (JSON's "path"
	 * array: a C++ name may hold " > "); NULL: path is one name. */
	const char *const *chain;
	size_t nchain;
	/* --slower-than's lines (not --slowest's rows): the process's name
	 * ("" unknown), and the values the call recorded by their names
	 * (NULL: none). */
	char comm[16];
	const char *arg_name, *ret_name;
	int64_t arg, ret;
	/* --wall-clock: when it began, CLOCK_REALTIME ns (0: not asked). */
	uint64_t wall_ns;
	/* The entry's further values (after arg), nmore of them. */
	const char *more_name[OT_REPORT_MORE];
	int64_t more[OT_REPORT_MORE];
	size_t nmore;
	/* A string the call's entry recorded (-f 'NAME(PARAM:str)'):
	 * "path:str" and the string (NULL: none), shown first. */
	const char *str_name, *str;
};

struct ot_report_func {
	const char *name;	/* demangled when mangled */
	int not_armed;		/* the backend refused it: its row says so */
	const char *symbol;	/* the raw symbol */
	const char *aliases;	/* other names at this offset, or NULL */
	const char *binary;
	uint64_t offset;
	/* How its returns are seen: "insn" (return instructions),
	 * "uretprobe" (a return probe), "trampoline" (inject); NULL for a
	 * counted point or a pair's row. */
	const char *returns;
	/* Functions probed only because it tail-calls them: their return
	 * instructions are its returns too, so every call of them, from
	 * anywhere, traps (ntail_funcs 0: none). */
	const char *const *tail_funcs;
	size_t ntail_funcs;
	const struct ot_func_stats *st;
	const struct ot_report_slow *slowest;	/* longest first */
	size_t nslowest;
	/* -f 'NAME(argN)', 'NAME%ret': what was recorded, or NULL. */
	const struct ot_values *arg, *ret;
	const char *arg_name, *ret_name;	/* "arg3", "arg1:32"; "ret", "ret:32" */
	/* The entry's values after arg ("read(arg1,arg3)"'s arg3), nmore. */
	const struct ot_values *more[OT_REPORT_MORE];
	const char *more_name[OT_REPORT_MORE];
	size_t nmore;
	/* A counted point (a USDT probe): its hits are st->points, it has no
	 * scopes, so no durations; the text shows it in the PROBE table. */
	int point;
	/* Its argument read as a string (":str"): the most frequent, count
	 * down, nstrs of them out of strs_distinct; strs_name "arg2:str". */
	const struct ot_report_str { const char *value; uint64_t count; } *strs;
	size_t nstrs, strs_distinct;
	const char *strs_name;
	/* A row of a pair's key (usdt:...:ENTRY..RETURN@argN): its scopes
	 * are the runtime's calls of one function; pair its term's label. */
	const char *pair;
};

/*
 * A function's recorded value k, in the order its values are shown: its
 * first argument, the others, its return value; *what names it ("arg2",
 * "flags", "ret").  NULL when k is past them or that one is not recorded.
 */
const struct ot_values *ot_report_value(const struct ot_report_func *fn, size_t k,
					const char **what);

/* -a: one process's scopes of one function. */
struct ot_report_proc {
	uint32_t pid;
	uint32_t ppid;		/* --follow: its parent, 0 for the target */
	char comm[16];		/* its name when first seen, "?" if gone */
	uint32_t func;
	uint64_t scopes, total_ns, max_ns;
};

/* What the drain counted (lib/rings/drain's ot_drain_stats, copied). */
struct ot_report_records {
	uint64_t samples, lost, malformed, foreign, late, no_sp, unknown;
	uint64_t foreign_lost;	/* lost in other processes' rings */
	uint64_t lost_at_end;	/* of lost: no record reported them, the
				 * kernel's count read at the end did */
	int lost_inexact;	/* lost may be short: the kernel cannot count
				 * a ring's last drops, and a ring filled */
};

/* --compensate's figures (lib/scopes/calib's, copied). */
struct ot_report_calib {
	uint64_t pair_ns;	/* a traced call's cost to its caller */
	uint64_t own_ns;	/* of which inside its own scope */
	uint64_t empty_ns;	/* the empty function untraced */
	uint64_t live_calls;	/* calibration scopes during the capture; 0: before only */
};

/* A function the backend did not arm (inject: could not patch), and why. */
struct ot_report_refused {
	const char *name;
	const char *why;
};

/* orbit-trace --restore: what a killed orbit-trace had left, and what of
 * it was taken back. */
struct ot_report_restore {
	int pid;
	const char *comm;
	int found;			/* there was something */
	int tracer;			/* the orbit-trace that left it */
	size_t patches, restored, kept;	/* patched entries; put back; left */
	const char *kept_why;
	size_t returns_restored;
	size_t semaphores, semaphores_lowered;	/* USDT semaphores it had raised */
	uint64_t unmapped_bytes, left_bytes;
	const char *left_why;
};

/* USDT arguments read as strings: by the probe, afterwards (the probe
 * could not: a page the process had not touched), and neither. */
struct ot_report_strings {
	int any;		/* some probe reads one */
	uint64_t probe, late, unreadable;
};

struct ot_report {
	const char *binary;
	int pid;
	/* -p PID,PID...: every process named (pid the first), npids > 1;
	 * else NULL. */
	const int *pids;
	size_t npids;
	const char *cgroup;	/* -a --cgroup: the directory, else NULL */
	/* --comm, --tid: what the records were kept to ("--comm nginx"), and
	 * how many of other processes or threads were dropped; NULL none. */
	const char *filter;
	uint64_t filtered;
	size_t functions_requested, functions_armed, uprobes, events;
	const char *returns;	/* "uretprobe", "insn", "mixed" (per file), "trampoline" */
	size_t insn_returns;	/* functions whose returns are seen at return insns */
	const char *backend;	/* "perf" or "multi" (--backend) */
	const char *objects;	/* what holds the probes: "uprobe_multi links" */
	int frozen;		/* --freeze: the target was stopped meanwhile */
	uint64_t arm_ns;	/* opening, mapping and enabling the probes */
	uint64_t arm_ipis, arm_tlb; /* CAL and TLB deltas of /proc/interrupts */
	int disarmed;		/* the probes are released: disarm_* hold its cost */
	uint64_t disarm_ns, disarm_ipis, disarm_tlb;
	int disarm_frozen;	/* --freeze stopped the target while disarming */
	unsigned cpus;
	size_t ring_kb;
	unsigned drain_ms;
	uint64_t duration_ns;
	const char *ended_by;	/* "target exit", "duration", "signal" */
	int target_exited;
	int target_status;	/* wait status when target_exited and known, else -1 */
	/* -p: who said how it ended ("ptrace", "kernel", "pidfd", "procfs";
	 * NULL: its parent's wait, ours), or why that is unknown. */
	const char *target_exit_from, *target_exit_why;
	struct ot_report_records records;
	uint64_t ring_high_water; /* most bytes pending in one ring at a drain */
	size_t threads;
	size_t nfuncs;
	const struct ot_report_func *funcs;
	const struct ot_check *check;	/* status, reasons, expectations */
	int has_expect;
	double max_loss_pct;
	const struct ot_tree_node *tree; /* call tree, node 0 the root */
	size_t ntree;
	uint64_t tree_dropped;
	const char *const *names;	/* function index -> name */
	int draw_hist;			/* --hist: log2 histograms in the text */
	const struct ot_report_calib *calib; /* --compensate, else NULL */
	const struct ot_report_proc *procs;	/* -a: by pid, then function */
	size_t nprocs;
	uint64_t tracer_cpu_ns;		/* orbit-trace's own user+sys so far */
	uint64_t tracer_max_rss_kb;
	int rings_in_process;	/* the records' rings are in the process's memory */
	/* What an in-process backend (inject) did to the process, else NULL. */
	const struct ot_inject_stats *inject;
	const struct ot_report_refused *refused;	/* by the backend, in the last program */
	size_t nrefused;
	/* --follow: the processes followed (the target among them) and the
	 * children the kernel could not follow; else NULL. */
	const struct ot_report_follow { uint64_t processes, dropped; } *follow;
	/* multi: the process's execs from a thread other than its first, after
	 * each of which its probes were armed again; how many it was held
	 * stopped for until then; the longest another ran unprobed (else NULL:
	 * perf, inject, --follow, -a). */
	const struct ot_report_thread_execs { uint64_t count, held, unprobed_ns; } *thread_execs;
	const struct ot_report_strings *strings;	/* NULL: no string argument */
};

/*
 * -I: what one interval of the capture saw, since the previous one: per
 * function the scopes that closed in it and their durations.
 */
struct ot_report_interval {
	uint64_t seq;			/* 1, 2, ... */
	uint64_t start_ns, end_ns;	/* since the capture began */
	uint64_t lost;			/* records the kernel lost in it */
	size_t nfuncs;
	const char *const *names;
	const struct ot_hist *hist;	/* per function */
};

/* --slower-than: one line as a slow scope closes, or one JSON object
 * ("type": "slow"); pid is the traced process; its name and the call's
 * values when s has them. */
void ot_report_slow_text(FILE *f, int pid, const char *name, const struct ot_report_slow *s);
void ot_report_slow_json(FILE *f, int pid, const char *name, const struct ot_report_slow *s);

/* One block of text, or one line of JSON (NDJSON, "type": "interval"). */
void ot_report_interval_text(FILE *f, const struct ot_report_interval *iv);
void ot_report_interval_json(FILE *f, const struct ot_report_interval *iv);

void ot_report_text(FILE *f, const struct ot_report *r);
/* The text report's last line, printed once disarming is done. */
void ot_report_text_disarm(FILE *f, const struct ot_report *r);
void ot_report_json(FILE *f, const struct ot_report *r);
/* The same report on one line, "type": "report" (NDJSON, after -I's). */
void ot_report_json_line(FILE *f, const struct ot_report *r);

/* -l: one selected function. */
struct ot_list_fn {
	const char *file;	/* rows of one file are consecutive */
	size_t file_functions;	/* functions in its symbol table */
	const char *file_source; /* "symtab", "dynsym", ... */
	uint64_t offset, size;
	const char *symbol, *demangled, *aliases; /* demangled, aliases: or NULL */
	uint64_t inlined;	/* inlined copies DWARF records (never probed) */
};

/* -l: a symbol a glob matched but that cannot be traced, and why. */
struct ot_list_skip {
	const char *file, *name, *why;
};

/* -l: a USDT probe's site: its address, file offset, argument specs. */
struct ot_list_site {
	uint64_t addr, offset;
	const char *args;	/* as the note has them, "" for none */
};

/* -l: a USDT probe (usdt:FILE:...), its sites and semaphore. */
struct ot_list_probe {
	const char *file;	/* rows of one file are consecutive */
	const char *provider, *name;
	uint64_t sema_addr, sema_offset;	/* 0: no semaphore */
	const struct ot_list_site *sites;
	size_t nsites;
};

struct ot_list {
	const struct ot_list_fn *fn;
	size_t n;
	const struct ot_list_skip *skipped;
	size_t nskipped;
	const struct ot_list_probe *probes;
	size_t nprobes;
};

/*
 * -l: the selected functions, grouped by file, with offsets, sizes,
 * demangled names, aliases, inlined copies, and what was skipped; then the
 * USDT probes by file, each with its semaphore and a line per site
 * (address, file offset, argument specs), as bcc's tplist -v shows them.
 * Returns 0, or -EIO if f could not be written.
 */
int ot_report_list(FILE *f, const struct ot_list *l);

/* "1.23 us"-style duration with three significant digits, into buf. */
const char *ot_report_duration(uint64_t ns, char *buf, size_t len);

/* orbit-trace --restore's report. */
void ot_report_restore_text(FILE *f, const struct ot_report_restore *r);
void ot_report_restore_json(FILE *f, const struct ot_report_restore *r);

#endif
