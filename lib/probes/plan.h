/*
 * plan.h - from -f and the target to what the backends arm: the program
 * and the libraries -f names opened, the functions selected in them, and
 * one probe target per function (its file, where its entry probe goes,
 * and where its returns are seen).
 *
 * Which returns a function gets is decided here, per function: by
 * default at its return instructions wherever every exit of it is found
 * (lib/symbols/returns), a return probe (uretprobe) only where not, on a
 * backend whose return probes are guarded against a stack switch no scan
 * names (OT_GUARDS_RETURNS; else return instructions all the same) - and
 * never where one may kill the program: a file with exception tables (an
 * exception or panic unwinding through the probed frame), or a process
 * that switches stacks (lib/symbols/switches, over every file it maps or
 * will map).  --returns forces one way; a forced return probe that may
 * kill is refused.  Neither with inject, whose trampolines see every
 * return.  A Go program is a clause of its own: return instructions
 * always, its functions' entry probes past their stack check, their calls
 * paired per goroutine, and what cannot be traced so refused with the
 * reason.  Reads files and the functions' code; arms nothing.  Called by
 * lib/capture/capture when it opens.
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
	/* --expect's names: each must name a function selected; one -f
	 * would name it by (ot_plan_make) becomes its row name (in names). */
	const char **expect;
	size_t nexpect;
	int patches_code;	/* the backend patches entries and sees returns itself */
	/* The backend's own check of a planned target (ot_backend_info's
	 * refuse_target), or NULL. */
	int (*refuse_target)(const struct ot_probe_target *t, char *why, size_t len);
	/* The files the process maps or will map, its program first
	 * (lib/process/target's ot_target_objects), or NULL: whether it
	 * switches stacks is asked of them. */
	int (*objects)(void *ctx, char ***paths, char ***names, size_t *n);
	void *objects_ctx;
	/* The backend's capabilities (OT_CAN_*), and its own words for why it
	 * cannot trace a Go program when it lacks OT_CAN_GO. */
	unsigned backend_can;
	const char *why_not_go;
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
	struct ot_returns *ret;		/* per function, where return instructions see it */
	int switches;			/* the process may switch stacks ... */
	char switch_why[256];		/* ... by this ("swapcontext, in libcoro.so") */
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
	const char *exe;		/* the program's file (o->exe), or NULL */
	/* A Go program: where its runtime ends it (OT_PLAN_GO_DEATHS). */
	uint64_t go_death_sites[2];
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

/*
 * A Go program's deaths by its own runtime: runtime.fatalthrow (a fatal
 * error: Go prints "fatal error: ..." and exits 2) and runtime.fatalpanic
 * (a panic nobody recovered, exit 2), each a counted point (a probe at
 * its entry, no scope) into pt[k] for k = OT_PLAN_GO_THROW, _PANIC (its
 * site kept in p).  Returns how many of pt it filled: 0 when the program
 * is no Go one or has neither function.
 */
#define OT_PLAN_GO_THROW 0
#define OT_PLAN_GO_PANIC 1
#define OT_PLAN_GO_DEATHS 2
size_t ot_plan_go_deaths(struct ot_plan *p, struct ot_probe_target *pt);

#endif
