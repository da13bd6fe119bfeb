/*
 * plan.h - from the functions -f selected to what the backends arm: one
 * probe target per function (its file, where its entry probe goes, and
 * with --returns insn where its returns are seen), and the warnings a
 * program that switches stacks or throws C++ exceptions calls for.
 *
 * Which returns a function's file gets is decided here, per file: return
 * instructions where a return probe would kill the program (stack
 * switching, exceptions thrown through a probed frame) or where --returns
 * insn says so; a return probe (uretprobe) otherwise; neither with inject,
 * whose trampolines see every return.  Reads the functions' code; arms
 * nothing.  Called by lib/capture once the selection is made.
 */
#ifndef OT_PLAN_H
#define OT_PLAN_H

#include "elfsym.h"
#include "probes.h"
#include "returns.h"
#include "select.h"

struct ot_plan_opts {
	const struct ot_elf *elf; /* the program; NULL with -a: each function's file is asked */
	const char *display;	  /* the program, for people */
	int inject;		  /* --backend inject: entries and returns are its own */
	int ret_mode_set;	  /* --returns given ... */
	int ret_insn;		  /* ... and it said insn */
	int list;		  /* -l: where the symbols are, nothing read */
};

/*
 * Fill pt[i] and ret[i] (zeroed by the caller, sel->n of each) for every
 * function of sel.  pt[i] points into sel and ret[i]: they must outlive
 * it; ret[i] is the caller's to free (ot_returns_free).  Returns 0,
 * -ENOTSUP when a function cannot be traced, or -1 when its code cannot
 * be read, after printing why.
 */
int ot_plan_targets(const struct ot_selection *sel, const struct ot_plan_opts *o,
		    struct ot_probe_target *pt, struct ot_returns *ret);

#endif
