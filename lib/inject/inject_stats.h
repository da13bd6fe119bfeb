/*
 * inject_stats.h - what --backend inject did to the traced process, in
 * one struct: lib/inject/inject fills a program's part of it, lib/probes/backend_inject
 * adds what it counted over every program the process ran, and
 * lib/probes/backend_figs turns it into the report's figures (JSON
 * "inject" and "inject_removal", the arming's and disarming's lines).
 *
 * Data only, with no pointer into memory that goes with the backend.
 */
#ifndef OT_INJECT_STATS_H
#define OT_INJECT_STATS_H

#include <stddef.h>
#include <stdint.h>

struct ot_inject_stats {
	const char *clock;		/* "tsc", "vdso" */
	size_t regions;			/* code regions mapped */
	uint64_t code_bytes, private_bytes, shared_bytes;
	int unwinder;			/* an _Unwind_Find_FDE hooked */
	uint64_t arm_pause_ns;		/* its threads stopped, at arming */
	unsigned execs;			/* programs it exec'd, instrumented again */
	char exec_why[256];		/* why a program it exec'd is not traced */
	/* Why the process was let go before the capture ended (its calls
	 * after that not counted), or "". */
	char let_go[256];
	/* The runtime that walks its stacks (a moved return address would
	 * kill it), or NULL: then functions' returns are seen at their
	 * return instructions, exits_functions of them. */
	const char *walker;
	size_t exits_functions;
	/* Calls not recorded at all (neither entry nor return): of threads
	 * beyond its slots or ring areas, and of signal handlers that
	 * interrupted the runtime on their thread. */
	uint64_t unrecorded_threads, unrecorded_handlers;
	/* Runtime calls a signal handler left by a longjmp (the runtime was
	 * reset on that thread and recorded on): the call each was recording
	 * may have lost its entry's or its return's record. */
	uint64_t resets;
	/* Calls made by vfork children (vfork, posix_spawn) in the parent's
	 * memory, another process's: not recorded. */
	uint64_t vfork_calls;
	/* Children it forked: taken back at their fork (their copy of the
	 * patches, return addresses and memory) and let go untraced; kept
	 * instrumented (the first one's pid and why). */
	size_t children, children_kept;
	char child_why[192];
	/* Known once disarmed: */
	uint64_t noret;			/* calls whose return could not be seen */
	uint64_t disarm_pause_ns;
	size_t returns_restored;	/* hijacked return addresses put back */
	uint64_t left_bytes;		/* left mapped in the process */
	const char *left_why;		/* a constant string */
	int gone;			/* the process had exited: nothing to remove */
	/* Patches found no longer as written (another tool's breakpoint or
	 * patch on the function): calls of theirs went unseen. */
	size_t overwritten;
	size_t overwritten_fn;		/* the first's function (SIZE_MAX: a hook) */
};

#endif
