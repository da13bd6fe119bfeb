/*
 * plan.h - from -f and the target to what the backends arm: the program
 * and the libraries -f names opened, the functions selected in them, and
 * one probe target per function (its file, where its entry probe goes,
 * and with --returns insn where its returns are seen).  Also says what a
 * program that switches stacks or throws C++ exceptions risks.
 *
 * Which returns a function gets is decided here, per file: return
 * instructions where a return probe would kill the program (stack
 * switching, an exception thrown through a probed frame) or where
 * --returns insn says so; a return probe (uretprobe) otherwise; neither
 * with inject, whose trampolines see every return.  Reads files and the
 * functions' code; arms nothing.  Called by lib/capture/capture when it opens.
 */
#ifndef OT_PLAN_H
#define OT_PLAN_H

#include "symbols/elfsym.h"
#include "probes.h"
#include "symbols/returns.h"
#include "symbols/select.h"

struct ot_plan_opts {
	const char *exe;	/* the program's file; NULL with -a: every term names its file */
	const char *display;	/* the program, for people */
	/* A "#!" script: the command as -- gave it and the interpreter run;
	 * NULL otherwise. */
	const char *script, *interpreter;
	ot_lib_resolve_fn find_lib;	/* a library -f names, to a file */
	void *find_lib_ctx;
	const char *functions;	/* -f */
	const char *const *expect;	/* --expect's names: each must be selected */
	size_t nexpect;
	int patches_code;	/* the backend patches entries and sees returns itself */
	/* The backend's own check of a planned target (ot_backend_info's
	 * refuse_target), or NULL. */
	int (*refuse_target)(const struct ot_probe_target *t, char *why, size_t len);
	int ret_mode_set;	/* --returns given ... */
	int ret_insn;		/* ... and it said insn */
	int list;		/* -l: the symbols, no code read */
};

struct ot_plan {
	struct ot_elf *elf;		/* the program; NULL with -a */
	struct ot_binset *bins;		/* it and the libraries -f names */
	struct ot_selection sel;
	const char **names;		/* per function: sel.fn[i].name */
	struct ot_probe_target *pt;	/* per function; points into sel and ret */
	struct ot_returns *ret;		/* per function, where --returns insn sees it */
	/* Per USDT probe: its sites' file offsets, and the operand each site
	 * reads for the argument asked (a sym(%rip)'s off made relative to
	 * the site); NULL for a function. */
	struct ot_plan_point {
		uint64_t *sites;
		struct ot_usdt_arg *args;
	} *points;
	/* Per function: where a parameter asked by name is at its entry
	 * (from DWARF; kind 0 for the others); NULL when none asks one. */
	struct ot_usdt_arg *entry_args;
	/* Per function, OT_SEL_MAX_VALUES - 1 each: its entry values after
	 * the first, as operands; NULL when none asks more than one. */
	struct ot_usdt_arg *more_args;
};

/*
 * Fill p (zeroed by the caller).  Returns 0; -ENOENT when something
 * named cannot be traced (a file, a function, an --expect name); or -1
 * on another failure; after printing why.  Either way ot_plan_free
 * releases what was made.
 */
int ot_plan_make(struct ot_plan *p, const struct ot_plan_opts *o);
void ot_plan_free(struct ot_plan *p);

/*
 * Function i's return instructions and its tail callees' (p->ret[i],
 * found now if it was not yet: what --returns insn gives a uprobe
 * backend), for a backend that patches them.  0 with *out (valid until
 * ot_plan_free), or -1 after printing why the code cannot be read.
 */
struct ot_probe_returns;
int ot_plan_returns(struct ot_plan *p, size_t i, struct ot_probe_returns *out);

/*
 * --compensate's probe target: orbit-trace's own ot_calib_target
 * (lib/scopes/calib) in this process - path, offset, and with ret_insn its
 * return instructions (free pt->ret_sites).  0, or -ENOENT after printing
 * why.
 */
int ot_plan_calib_target(int ret_insn, struct ot_probe_target *pt);

#endif
