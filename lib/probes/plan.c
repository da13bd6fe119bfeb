/*
 * plan.c - from -f and the target to the probe targets the backends arm
 * (plan.h): the files opened, their functions selected, and per function where
 * its entry probe goes and where its returns are seen, or why it is refused.
 */
#include "plan.h"
#include "util/error.h"
#include "symbols/dwarfarg.h"
#include "symbols/gobin.h"
#include "symbols/retsite.h"
#include "symbols/switches.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Go: the Go release that built function i's file, or the program (a C
 * library's function in a Go process runs on its stacks too); NULL for
 * neither.  A return probe replaces the return address on the stack,
 * which Go's stack copier and unwinder read: the program dies ("fatal
 * error: unknown caller pc").  So a Go program's returns are seen at
 * return instructions, always, whatever else decides below.
 */
static const struct ot_go *go_of(const struct ot_selection *sel, const struct ot_elf *elf,
				 size_t i)
{
	const struct ot_go *go = ot_elf_go(sel->fn[i].bin->elf);

	return go ? go : elf ? ot_elf_go(elf) : NULL;
}

/*
 * What a Go program refuses, before anything is armed: a return probe
 * (--returns uretprobe), a backend that cannot trace Go (OT_CAN_GO: its
 * own words), a Go function of a release that keeps its goroutine only
 * in thread-local storage (before Go 1.17: its calls cannot be paired
 * per goroutine).  0, or -ENOENT after printing why.
 */
static int go_refuse(const struct ot_plan *p, const struct ot_plan_opts *o, size_t i)
{
	const struct ot_selected *f = &p->sel.fn[i];
	const struct ot_go *go = go_of(&p->sel, p->elf, i);

	if (!go)
		return 0;
	if (!(o->backend_can & OT_CAN_GO)) {
		ot_error("%s is a Go program: %s", ot_elf_go(f->bin->elf) ? f->bin->display :
			 o->display, o->why_not_go ? o->why_not_go : "this backend cannot trace it");
		return -ENOENT;
	}
	if (o->ret_mode_set && !o->ret_insn) {
		ot_error("%s is a Go program: a return probe (--returns uretprobe) replaces the "
			 "return address on the goroutine's stack, which Go's stack copier and "
			 "unwinder read (the program dies: fatal error: unknown caller pc); its "
			 "returns are seen at return instructions", o->display);
		return -ENOENT;
	}
	if (f->sym->go == OT_SYM_GO && !ot_go_regabi(go)) {
		ot_error("%s cannot be traced: %s was built by %s, and before Go 1.17 a "
			 "goroutine is found only through thread-local storage, which orbit-trace "
			 "does not read: its calls cannot be paired per goroutine", f->label,
			 f->bin->display, go->version[0] ? go->version : "an unknown Go release");
		return -ENOENT;
	}
	return 0;
}

/*
 * A Go function whose returns cannot all be found (an indirect jump that
 * may leave it, a tail call not followed) is refused: a return probe
 * cannot stand in for the missing ones.  0, or -ENOENT after printing.
 */
static int go_returns(const struct ot_plan *p, size_t i)
{
	if (!go_of(&p->sel, p->elf, i) || !p->ret[i].inexact)
		return 0;
	ot_error("%s cannot be traced: a Go function is seen returning only at return "
		 "instructions, and it may leave by %s, which no return instruction of its "
		 "own ends (leave it out: '!%s')", p->pt[i].label, p->ret[i].how,
		 p->sel.fn[i].name);
	return -ENOENT;
}

/* Where function i's entry probe goes: past a first instruction a uprobe
 * cannot sit on.  0, -ENOTSUP or -1, printed. */
static int entry(const struct ot_selection *sel, size_t i, struct ot_probe_target *pt)
{
	const struct ot_sym *s = sel->fn[i].sym;
	const char *why;
	uint64_t at;
	/* Go code: past its stack check (lib/symbols/retsite), so that a call
	 * whose prologue runs again after runtime.morestack is seen once. */
	int err = s->go == OT_SYM_GO ? ot_go_entry_point(pt->path, s->offset, s->size, &at, &why) :
		  ot_entry_point(pt->path, s->offset, s->size, &at, &why);

	if (err == -ENOTSUP) {
		ot_error("%s cannot be traced: %s", pt->label, why);
		return -ENOTSUP;
	}
	if (err) {
		ot_error_errno(-err, "cannot read the code of %s", pt->label);
		return -1;
	}
	if (why)
		ot_verbose("%s: %s (+0x%llx)", pt->label, why, (unsigned long long)at);
	pt->offset = at;
	return 0;
}

/*
 * Whether the process may switch stacks, asked once (p->switches, with
 * why): of every file it maps or will map, or with -a (no process of its
 * own) of each function's file as it comes.
 */
static void switches(struct ot_plan *p, const struct ot_plan_opts *o)
{
	char **paths = NULL, **names = NULL;
	size_t n = 0, k;

	if (!o->objects || o->objects(o->objects_ctx, &paths, &names, &n))
		return;
	p->switches = ot_switch_process((const char *const *)paths, (const char *const *)names,
					n, p->switch_why, sizeof(p->switch_why));
	if (p->switches)
		ot_verbose("%s switches stacks (%s): no function gets a return probe",
			   o->display, p->switch_why);
	for (k = 0; k < n; k++) {
		free(paths[k]);
		free(names[k]);
	}
	free(paths);
	free(names);
}

/* Why a return probe kills function i's process, that switches stacks,
 * or NULL: into why.  With -a (no process of its own) its file is asked. */
static const char *switch_kills(const struct ot_plan *p, size_t i, char *why, size_t len)
{
	const char *own = p->elf ? NULL : ot_elf_stack_switch(p->sel.fn[i].bin->elf);

	if (!p->switches && !own)
		return NULL;
	snprintf(why, len, "the process switches stacks (%s): a return probe kills a call that "
		 "returns on another stack than the last one entered (SIGILL)",
		 p->switches ? p->switch_why : own);
	return why;
}

/* Why a return probe may kill the program around function i, or NULL:
 * into why. */
static const char *uretprobe_kills(const struct ot_plan *p, size_t i, char *why, size_t len)
{
	const struct ot_binary *bin = p->sel.fn[i].bin;

	if (!ot_elf_has_eh(bin->elf))
		return switch_kills(p, i, why, len);
	snprintf(why, len, "%s has exception tables (C++ or Rust): an exception or panic "
		 "unwinding through a function with a return probe aborts the program",
		 bin->display);
	return why;
}

/*
 * How function i's returns are seen: 1 at return instructions (r filled
 * by ot_returns_find), 0 by a return probe (r empty), or -ENOENT refused
 * after printing why.
 *   --returns insn:      return instructions.
 *   --returns uretprobe: a return probe, refused where one may kill the
 *                        program (uretprobe_kills).
 *   default:             return instructions where every exit of the
 *                        function is found (r->inexact NULL); a return
 *                        probe where not, unless one may kill the
 *                        program: then return instructions all the same
 *                        (the status lossy: r->inexact says why) - and
 *                        in a process that switches stacks, refused
 *                        where there is none to probe (only a return
 *                        probe could see it return).  A backend whose
 *                        return probes are not guarded (OT_GUARDS_RETURNS:
 *                        a switch no scan names would make one kill)
 *                        gets return instructions all the same, none
 *                        where there are none (its calls' entries alone).
 *   a Go program:        return instructions, always (go_refuse and
 *                        go_returns refuse what cannot be seen so).
 */
static int return_mode(const struct ot_plan *p, const struct ot_plan_opts *o, size_t i,
		       struct ot_returns *r)
{
	const char *label = p->pt[i].label, *name = p->sel.fn[i].name, *kills;
	char why[512];

	if (o->ret_mode_set && !o->ret_insn) {
		if ((kills = uretprobe_kills(p, i, why, sizeof(why)))) {
			ot_error("%s: --returns uretprobe refused: %s; the default, or --returns "
				 "insn, sees its returns at return instructions", label, kills);
			return -ENOENT;
		}
		return 0;
	}
	if (ot_returns_find(&p->sel, i, label, name, r))
		return -1;
	/* Go: return instructions always (go_of); go_returns refuses a
	 * function whose exits are not all found, go_refuse a forced return
	 * probe. */
	if (o->ret_mode_set || !r->inexact || go_of(&p->sel, p->elf, i))
		return 1;
	if (!r->nsites && (kills = switch_kills(p, i, why, sizeof(why)))) {
		ot_error("%s cannot be traced: only a return probe could see it return (it has "
			 "no return instruction to probe), and %s", label, kills);
		return -ENOENT;
	}
	kills = uretprobe_kills(p, i, why, sizeof(why));
	if (kills) {
		ot_verbose("%s: not every exit is a return instruction, but a return probe would "
			   "be worse: %s", label, kills);
		return 1;
	}
	if (!(o->backend_can & OT_GUARDS_RETURNS)) {
		ot_verbose("%s: not every exit is a return instruction, but this backend's return "
			   "probes are not guarded against a stack switch no scan names, which would "
			   "make one kill the program (--returns uretprobe forces one)", label);
		return 1;
	}
	ot_verbose("%s: not every exit is a return instruction: a return probe sees its returns",
		   label);
	ot_returns_free(r);
	return 0;
}

/* The n-th (1-based) operand of a note's argument specs, into buf. */
static const char *spec_of(const char *args, unsigned n, char *buf, size_t len)
{
	const char *p = args;
	size_t w;

	for (;;) {
		p += strspn(p, " ");
		w = strcspn(p, " ");
		if (!--n || !*p)
			break;
		p += w;
	}
	snprintf(buf, len, "%.*s", (int)w, p);
	return buf;
}

/* Site k's operand for the argument probe i asks (1-based) into *a; a
 * sym(%rip)'s off made the distance from the site.  0, or -ENOENT after
 * printing why. */
static int point_arg(const struct ot_plan *p, size_t i, size_t k, struct ot_usdt_arg *a)
{
	const struct ot_selected *f = &p->sel.fn[i];
	const struct ot_usdt_site *site = &f->usdt->sites[k];
	struct ot_usdt_arg all[OT_USDT_MAX_ARGS];
	char why[256];
	uint64_t addr;
	int n, err;

	n = ot_usdt_args_parse(site->args, all, OT_USDT_MAX_ARGS, why, sizeof(why));
	if (n < 0 || n < f->arg) {
		ot_error("%s: cannot read arg%u at its site +0x%llx: %s", f->label, f->arg,
			 (unsigned long long)site->offset, n < 0 ? why : "the site has fewer");
		return -ENOENT;
	}
	*a = all[f->arg - 1];
	/* A string's address is 8 bytes; an int is no address (as a DWARF
	 * parameter that is no pointer is refused, str_param). */
	if (f->str && a->size != 8) {
		ot_error("%s: cannot read arg%u as a string (:str): at its site +0x%llx it is "
			 "%s, a %u-byte integer, not an address", f->label, f->arg,
			 (unsigned long long)site->offset, spec_of(site->args, f->arg, why,
								   sizeof(why)), a->size);
		return -ENOENT;
	}
	if (a->kind != OT_USDT_ARG_RIP)
		return 0;
	addr = 0;
	err = a->sym[0] ? ot_usdt_sym_addr(f->bin->path, a->sym, &addr) : 0;
	if (err) {
		ot_error("%s: arg%u is %s's memory, and %s has no symbol %s", f->label, f->arg,
			 a->sym, f->bin->display, a->sym);
		return -ENOENT;
	}
	a->off = (int64_t)(addr + (uint64_t)a->off - site->vaddr);
	return 0;
}

/* Probe i's target: its sites, its semaphore, what each site reads. */
static int point_target(struct ot_plan *p, size_t i, struct ot_probe_target *pt)
{
	const struct ot_selected *f = &p->sel.fn[i];
	struct ot_plan_point *pp = &p->points[i];
	size_t k, n = f->usdt->nsites;

	pp->sites = ot_xcalloc(n, sizeof(*pp->sites));
	for (k = 0; k < n; k++)
		pp->sites[k] = f->usdt->sites[k].offset;
	pt->points = pp->sites;
	pt->npoints = n;
	pt->sites = f->usdt->sites;
	pt->offset = pt->sym_offset = pp->sites[0];
	pt->ref_ctr = f->usdt->sema_vaddr ? f->usdt->sema_offset : 0;
	pt->arg = f->arg;
	pt->str = f->str;
	ot_verbose("%s: %zu site%s%s", pt->label, n, n == 1 ? "" : "s",
		   pt->ref_ctr ? ", a semaphore" : "");
	if (!f->arg)
		return 0;
	pp->args = ot_xcalloc(n, sizeof(*pp->args));
	pt->point_args = pp->args;
	for (k = 0; k < n; k++)
		if (point_arg(p, i, k, &pp->args[k]))
			return -ENOENT;
	return 0;
}

/* The registers that pass integers, by perf number (asm/perf_regs.h):
 * the machine's C ABI's, and Go's register ABI's (Go 1.17). */
static const int8_t c_abi[OT_SEL_MAX_ARG] = OT_ARCH_ARG_REGS_PERF;
static const int8_t go_abi[OT_SEL_MAX_GO_ARG] = OT_ARCH_GO_ARG_REGS_PERF;

/* argN's register for function f, or -1 (after printing) past them. */
static int arg_reg(const struct ot_selected *f, unsigned n)
{
	if (f->sym->go == OT_SYM_GO && n >= 1 && n <= OT_SEL_MAX_GO_ARG)
		return go_abi[n - 1];
	if (f->sym->go != OT_SYM_GO && n >= 1 && n <= OT_SEL_MAX_ARG)
		return c_abi[n - 1];
	ot_error("%s: arg%u: it is no Go function: its arguments are arg1 to arg%d (the "
		 "registers that pass integers: %s)", f->label, n, OT_SEL_MAX_ARG, OT_SEL_ARG_REGS);
	return -1;
}

/*
 * A Go function's first value by argN (Go's registers are not the C
 * ABI's the backends read argN from): an operand, as a DWARF name's; with
 * :str a Go string, its pointer argN, its length the register after.  0,
 * or -ENOENT after printing.
 */
static int go_first_value(struct ot_plan *p, size_t i, struct ot_probe_target *pt)
{
	const struct ot_selected *f = &p->sel.fn[i];
	unsigned n = OT_SEL_ARG(f->arg);
	struct ot_usdt_arg *a;

	if (f->sym->go != OT_SYM_GO || !n || f->arg_name)
		return 0;
	if (f->str && n == OT_SEL_MAX_GO_ARG) {
		ot_error("%s: arg%u:str: a Go string's length is in the register after its "
			 "pointer, and arg%u is the last", f->label, n, n);
		return -ENOENT;
	}
	if (!p->entry_args)
		p->entry_args = ot_xcalloc(p->sel.n, sizeof(*p->entry_args));
	a = &p->entry_args[i];
	a->kind = f->str ? OT_USDT_ARG_GOSTR : OT_USDT_ARG_REG;
	a->reg = go_abi[n - 1];
	a->idx = f->str ? go_abi[n] : -1;
	a->size = f->arg & OT_SEL_32 ? 4 : 8;
	a->is_signed = 1;
	pt->arg = 1;
	pt->entry_arg = a;
	return 0;
}

/*
 * Function i's entry values after the first ("read(arg1,arg3)"), each an
 * operand its probe reads: argN the ABI's register (its low half signed
 * with :32; Go's register ABI's for a Go function), a name where DWARF
 * puts it.  0, or -ENOENT after printing.
 */
static int more_values(struct ot_plan *p, size_t i, struct ot_probe_target *pt)
{
	struct ot_selected *f = &p->sel.fn[i];
	struct ot_usdt_arg *a;
	char why[256];
	uint8_t j;
	int err;

	if (!f->nmore)
		return 0;
	if (!p->more_args)
		p->more_args = ot_xcalloc(p->sel.n * (OT_SEL_MAX_VALUES - 1), sizeof(*p->more_args));
	a = &p->more_args[i * (OT_SEL_MAX_VALUES - 1)];
	for (j = 0; j < f->nmore; j++) {
		if (!f->more_name[j]) {
			int reg = arg_reg(f, OT_SEL_ARG(f->more[j]));

			if (reg < 0)
				return -ENOENT;
			a[j].kind = OT_USDT_ARG_REG;
			a[j].reg = (int8_t)reg;
			a[j].idx = -1;
			a[j].size = f->more[j] & OT_SEL_32 ? 4 : 8;
			a[j].is_signed = 1;
			continue;
		}
		err = ot_dwarf_param(f->bin->path, f->sym->addr, f->more_name[j], &a[j], why,
				     sizeof(why));
		if (err) {
			ot_error("%s: cannot read '%s': %s", f->label, f->more_name[j],
				 err == -ENODATA ? "no DWARF for it (name the argument argN: the "
				 "ABI's registers)" : why);
			return -ENOENT;
		}
		if (a[j].kind == OT_USDT_ARG_GOSTR) {
			ot_error("%s: cannot read '%s': a Go string, read as one with '%s:str' "
				 "(one value of a function may be)", f->label, f->more_name[j],
				 f->more_name[j]);
			return -ENOENT;
		}
		ot_verbose("%s: %s is %s (DWARF, at the entry)", f->label, f->more_name[j],
			   ot_dwarf_describe(&a[j], why, sizeof(why)));
	}
	pt->more_args = a;
	pt->nmore = f->nmore;
	return 0;
}

/*
 * A parameter read as a string (":str") is a pointer by its DWARF type:
 * a char one, or another (the user's choice: its bytes up to a NUL, said
 * with -v).  An integer, or an array member (its bytes are in the
 * struct, not behind a pointer), is refused.  0, or -ENOENT after
 * printing.
 */
static int str_param(const struct ot_selected *f)
{
	char type[96], why[256];
	int k = ot_dwarf_param_type(f->bin->path, f->sym->addr, f->arg_name, type, sizeof(type),
				    why, sizeof(why));

	if (k < 0) {
		ot_error("%s: cannot read '%s': %s", f->label, f->arg_name, why);
		return -ENOENT;
	}
	if (!k) {
		ot_error("%s: cannot read '%s' as a string (:str): it is %s, not a pointer",
			 f->label, f->arg_name, type);
		return -ENOENT;
	}
	if (k == 1)
		ot_verbose("%s: %s is %s, not a char pointer: the bytes it points to are read "
			   "as a string (up to a NUL, %d at most)", f->label, f->arg_name, type,
			   OT_USDT_STR_MAX);
	return 0;
}

/*
 * Function i's values typed by DWARF: a parameter asked by name, where it
 * is at the entry (p->entry_args[i], the operand the multi backend's
 * program reads as a USDT argument's); %ret's width and sign.  Without
 * DWARF a name is refused and %ret is the whole register (said with -v).
 * 0, or -ENOENT after printing.
 */
static int dwarf_values(struct ot_plan *p, size_t i, struct ot_probe_target *pt)
{
	struct ot_selected *f = &p->sel.fn[i];
	char why[256];
	int err;

	if (f->arg_name) {
		/* Go's stack check moves no argument: DWARF's entry holds past it. */
		if (pt->offset != f->sym->offset && f->sym->go != OT_SYM_GO) {
			ot_error("%s: cannot read '%s': its probe is past its first instruction, "
				 "where DWARF's entry locations hold", f->label, f->arg_name);
			return -ENOENT;
		}
		if (!p->entry_args)
			p->entry_args = ot_xcalloc(p->sel.n, sizeof(*p->entry_args));
		err = ot_dwarf_param(f->bin->path, f->sym->addr, f->arg_name, &p->entry_args[i],
				     why, sizeof(why));
		if (err == -ENODATA) {
			ot_error("%s: cannot read '%s': %s has no DWARF for it (install its debug "
				 "info, or name the argument argN: the ABI's registers)", f->label,
				 f->arg_name, f->bin->display);
			return -ENOENT;
		}
		if (err) {
			ot_error("%s: cannot read '%s': %s", f->label, f->arg_name, why);
			return -ENOENT;
		}
		pt->arg = 1;
		pt->entry_arg = &p->entry_args[i];
		ot_verbose("%s: %s is %s (DWARF, at the entry)", f->label, f->arg_name,
			   ot_dwarf_describe(&p->entry_args[i], why, sizeof(why)));
		if (p->entry_args[i].kind == OT_USDT_ARG_GOSTR && !f->str) {
			ot_error("%s: cannot read '%s' as an integer: it is a Go string, read "
				 "as one with '%s:str'", f->label, f->arg_name, f->arg_name);
			return -ENOENT;
		}
		if (f->str && (err = str_param(f)))
			return err;
	} else if ((err = go_first_value(p, i, pt))) {
		return err;
	} else if (f->arg && !pt->entry_arg && arg_reg(f, OT_SEL_ARG(f->arg)) < 0) {
		return -ENOENT;
	}
	if ((err = more_values(p, i, pt)))
		return err;
	if (f->ret && !(f->ret & OT_SEL_32)) {
		err = ot_dwarf_ret(f->bin->path, f->sym->addr, &f->ret_size, &f->ret_signed,
				   why, sizeof(why));
		if (err == -ENODATA) {
			ot_verbose("%s: no DWARF: %%ret is the whole return register", f->label);
		} else if (err) {
			ot_error("%s: cannot record %%ret: %s", f->label, why);
			return -ENOENT;
		} else {
			ot_verbose("%s: %%ret is %s %u bytes (DWARF)", f->label,
				   f->ret_signed ? "signed" : "unsigned", f->ret_size);
		}
	}
	return 0;
}

/* Refused before a command starts (a usage error, exit status 2): what
 * the backend cannot arm (values not in a register: inject, perf). */
static int refuse(const struct ot_plan_opts *o, const struct ot_probe_target *t)
{
	char why[256];

	if (!o->refuse_target || !o->refuse_target(t, why, sizeof(why)))
		return 0;
	ot_error("%s: %s", t->label, why);
	return -ENOENT;
}

/* pt and ret for every function selected. */
static int targets(struct ot_plan *p, const struct ot_plan_opts *o)
{
	struct ot_selection *sel = &p->sel;
	struct ot_probe_target *pt = p->pt;
	struct ot_returns *ret = p->ret;
	size_t i;
	int err;

	for (i = 0; i < sel->n; i++) {
		const struct ot_sym *s = sel->fn[i].sym;

		pt[i].path = sel->fn[i].bin->path;
		pt[i].file = sel->fn[i].bin->file;
		pt[i].label = sel->fn[i].label;
		if (sel->fn[i].usdt) {
			if ((err = point_target(p, i, &pt[i])) || (!o->list && (err = refuse(o, &pt[i]))))
				return err;
			continue;
		}
		pt[i].offset = s->offset;
		pt[i].sym_offset = s->offset;
		pt[i].sym_size = s->size;
		pt[i].arg = OT_SEL_ARG(sel->fn[i].arg);
		pt[i].str = sel->fn[i].str;
		pt[i].ret_value = sel->fn[i].ret != 0;
		ot_verbose("%s (+0x%llx, %llu bytes, from .%s)", pt[i].label,
			   (unsigned long long)s->offset,
			   (unsigned long long)s->size, ot_elf_source(sel->fn[i].bin->elf));
		/* -l lists symbols; a patching backend patches the symbol's own
		 * first bytes, where its values are what they are at the entry. */
		if (o->list)
			continue;
		if ((err = go_refuse(p, o, i)))
			return err;
		if (!o->patches_code && (err = entry(sel, i, &pt[i])))
			return err == -ENOTSUP ? -ENOENT : err;
		/* Go code: its calls paired per goroutine (R14 is g). */
		pt[i].go = s->go == OT_SYM_GO;
		if ((err = dwarf_values(p, i, &pt[i])))
			return err;
		if ((err = refuse(o, &pt[i])))
			return err;
		if (o->patches_code)
			continue;
		/* A pair's ENTRYFN: its entry records the key, its return is
		 * nothing of the pair's; probed, it only cost a trap a call, and
		 * its tail calls' returns (nginx's) made the status lossy. */
		if (sel->fn[i].fpair == OT_SEL_PAIR_ENTRY) {
			ret[i].sites = ot_xcalloc(1, sizeof(*ret[i].sites));
			pt[i].ret_sites = ret[i].sites;
			pt[i].nret_sites = 0;
			ot_verbose("%s: a pair's entry: its entry alone is probed", pt[i].label);
			continue;
		}
		if ((err = return_mode(p, o, i, &ret[i])) < 0)
			return err;
		if (err) {
			pt[i].ret_sites = ret[i].sites;
			pt[i].nret_sites = ret[i].nsites;
			pt[i].ntail_sites = ret[i].ntail;
			if ((err = go_returns(p, i)))
				return err;
		}
	}
	return 0;
}

/*
 * Whether an --expect name spells function f as -f would name it: its
 * row name ("libc.so.6:malloc"), its raw, demangled or parameterless
 * spelling, its last "::" components ("handle_get" for
 * "app::handle_get"), or any of them followed by the values -f may ask
 * ("read(arg3)%ret").
 */
static int expect_spells(const struct ot_selected *f, const char *name)
{
	const struct ot_sym *s = f->sym;
	const char *b = s->base ? s->base : s->name;
	size_t n = strlen(name), bl = strlen(b);

	if (!strcmp(name, f->name) || !strcmp(name, s->name) ||
	    (s->demangled && !strcmp(name, s->demangled)) || !strcmp(name, b))
		return 1;
	if (!f->usdt && bl > n + 2 && !strcmp(b + bl - n, name) && !strncmp(b + bl - n - 2, "::", 2))
		return 1;
	return 0;
}

/* The same, name with a value suffix cut: "read(arg3)%ret" as "read". */
static int expect_names(const struct ot_selected *f, const char *name)
{
	char cut[512], *p;

	if (expect_spells(f, name))
		return 1;
	snprintf(cut, sizeof(cut), "%s", name);
	if ((p = strstr(cut, "%ret")))
		*p = 0;
	if (expect_spells(f, cut))
		return 1;
	if ((p = strrchr(cut, '(')) && p != cut && cut[strlen(cut) - 1] == ')') {
		*p = 0;
		return expect_spells(f, cut);
	}
	return 0;
}

/*
 * --expect's names must be functions -f traces: a typo must not pass.
 * A name -f accepts for a function is rewritten to the function's row
 * name, the name the check compares; several functions so named are an
 * error, as -f's ambiguous names are.
 */
/* A function pair's row name, "ENTRYFN..RETURNFN" as the report names it. */
static int names_fn_pair(const struct ot_plan *p, const char *name)
{
	size_t i, j, el;

	for (i = 0; i < p->sel.n; i++) {
		if (p->sel.fn[i].fpair != OT_SEL_PAIR_ENTRY)
			continue;
		el = strlen(p->sel.fn[i].name);
		for (j = 0; j < p->sel.n; j++)
			if (p->sel.fn[j].fpair == OT_SEL_PAIR_RETURN &&
			    p->sel.fn[j].fpair_id == p->sel.fn[i].fpair_id &&
			    !strncmp(name, p->sel.fn[i].name, el) && !strncmp(name + el, "..", 2) &&
			    !strcmp(name + el + 2, p->sel.fn[j].name))
				return 1;
	}
	return 0;
}

static int check_expect(const struct ot_plan *p, const struct ot_plan_opts *o)
{
	size_t i, k, hit, n;

	for (i = 0; i < o->nexpect; i++) {
		for (k = 0; k < p->sel.n && strcmp(p->names[k], o->expect[i]); k++)
			;
		if (k < p->sel.n || names_fn_pair(p, o->expect[i]))
			continue;
		for (k = 0, n = 0, hit = 0; k < p->sel.n; k++)
			if (expect_names(&p->sel.fn[k], o->expect[i]) && n++ == 0)
				hit = k;
		if (n == 1) {
			o->expect[i] = p->names[hit];
			continue;
		}
		if (n > 1)
			ot_error("--expect names '%s', which names %zu of the functions -f traces "
				 "('%s' among them): give one's name as the report shows it\n"
				 "Try 'orbit-trace --help' for more information.",
				 o->expect[i], n, p->names[hit]);
		else
			ot_error("--expect names '%s', which -f does not trace\n"
				 "Try 'orbit-trace --help' for more information.",
				 o->expect[i]);
		return -ENOENT;
	}
	return 0;
}

/*
 * After a miss: each plain name -f gave that a library the process maps
 * (or will) exports, said as the term to write ("libc.so.6:malloc").
 */
static void suggest_libs(const struct ot_plan_opts *o)
{
	char **paths = NULL, **names = NULL, **want;
	size_t n = 0, nwant, k, w;

	want = ot_select_plain_names(o->functions, &nwant);
	if (nwant && o->exe && o->objects &&
	    !o->objects(o->objects_ctx, &paths, &names, &n)) {
		for (w = 0; w < nwant; w++) {
			uint64_t off, size;

			/* The program's own file is [0]: a miss there is the error. */
			for (k = 1; k < n; k++)
				if (!ot_elf_lookup_dynamic(paths[k], want[w], &off, &size))
					break;
			if (k < n)
				ot_note("did you mean %s:%s? %s is not defined in %s but in the "
					"library %s (-f '%s:%s')", basename(names[k]), want[w],
					want[w], o->display, names[k], basename(names[k]), want[w]);
		}
	}
	for (k = 0; k < n; k++) {
		free(paths[k]);
		free(names[k]);
	}
	for (w = 0; w < nwant; w++)
		free(want[w]);
	free(want);
	free(paths);
	free(names);
}

int ot_plan_make(struct ot_plan *p, const struct ot_plan_opts *o)
{
	size_t i;
	int ret;

	if (o->exe && ot_elf_open(o->exe, o->display, &p->elf))
		return -1;
	p->exe = o->exe;
	p->bins = ot_binset_new(p->elf, o->exe ? o->exe : "", o->display, o->find_lib,
				o->find_lib_ctx);
	if (o->script)
		ot_binset_set_script(p->bins, o->script, o->interpreter);
	ret = ot_binset_select(p->bins, o->functions, &p->sel);
	if (ret == -ENOENT)
		suggest_libs(o);
	if (ret)
		return ret == -ENOENT ? -ENOENT : -1;
	p->pt = ot_xcalloc(p->sel.n, sizeof(*p->pt));
	p->ret = ot_xcalloc(p->sel.n, sizeof(*p->ret));
	p->points = ot_xcalloc(p->sel.n, sizeof(*p->points));
	/* The pairing, the report and the exports index names by function. */
	p->names = ot_xcalloc(p->sel.n, sizeof(*p->names));
	for (i = 0; i < p->sel.n; i++)
		p->names[i] = p->sel.fn[i].name;
	if ((ret = check_expect(p, o)))
		return ret;
	if (!o->patches_code && !o->list)
		switches(p, o);
	return targets(p, o);
}

void ot_plan_free(struct ot_plan *p)
{
	size_t i;

	free(p->names);
	for (i = 0; p->ret && i < p->sel.n; i++)
		ot_returns_free(&p->ret[i]);
	free(p->ret);
	for (i = 0; p->points && i < p->sel.n; i++) {
		free(p->points[i].sites);
		free(p->points[i].args);
	}
	free(p->points);
	free(p->entry_args);
	free(p->more_args);
	free(p->pt);
	ot_selection_free(&p->sel);
	ot_binset_free(p->bins);
	ot_elf_close(p->elf);
	memset(p, 0, sizeof(*p));
}

size_t ot_plan_go_deaths(struct ot_plan *p, struct ot_probe_target *pt)
{
	static const char *const names[OT_PLAN_GO_DEATHS] = {
		[OT_PLAN_GO_THROW] = "runtime.fatalthrow",
		[OT_PLAN_GO_PANIC] = "runtime.fatalpanic",
	};
	size_t k, i, n = 0;

	if (!p->elf || !p->exe || !ot_elf_go(p->elf))
		return 0;
	for (k = 0; k < OT_PLAN_GO_DEATHS; k++) {
		for (i = 0; i < ot_elf_nsyms(p->elf) &&
			    strcmp(ot_elf_sym(p->elf, i)->name, names[k]); i++)
			;
		if (i == ot_elf_nsyms(p->elf)) {
			ot_verbose("%s: a Go program without %s: a death by it is not seen",
				   ot_elf_display(p->elf), names[k]);
			return 0;
		}
		p->go_death_sites[k] = ot_elf_sym(p->elf, i)->offset;
		memset(&pt[k], 0, sizeof(pt[k]));
		pt[k].path = p->exe;
		pt[k].label = names[k];
		pt[k].points = &p->go_death_sites[k];
		pt[k].npoints = 1;
		pt[k].offset = pt[k].sym_offset = p->go_death_sites[k];
		n++;
	}
	return n;
}

int ot_plan_returns(struct ot_plan *p, size_t i, struct ot_probe_returns *out)
{
	const struct ot_selected *f = &p->sel.fn[i];

	memset(out, 0, sizeof(*out));
	if (i >= p->sel.n || f->usdt)
		return -1;
	if (!p->ret[i].sites && ot_returns_find(&p->sel, i, f->label, f->name, &p->ret[i]))
		return -1;
	out->sites = p->ret[i].sites;
	out->n = p->ret[i].nsites;
	out->ntail = p->ret[i].ntail;
	out->delta = ot_elf_text_delta(f->bin->elf, f->sym->offset);
	out->inexact = p->ret[i].inexact;
	return 0;
}

int ot_plan_calib_target(int ret_insn, struct ot_probe_target *pt)
{
	struct ot_selection sel = { 0 };
	struct ot_elf *elf = NULL;
	uint64_t *sites = NULL;
	int ret = 0, tail;

	memset(pt, 0, sizeof(*pt));
	pt->path = "/proc/self/exe";
	pt->label = "orbit-trace:ot_calib_target";
	if (ot_elf_open("/proc/self/exe", "orbit-trace", &elf) ||
	    ot_elf_select(elf, "ot_calib_target", &sel)) {
		ot_error("cannot calibrate: orbit-trace's own ot_calib_target is not found");
		ot_elf_close(elf);
		return -ENOENT;
	}
	pt->offset = sel.fn[0].sym->offset;
	if (ret_insn) {
		int n = ot_ret_sites(pt->path, pt->offset, sel.fn[0].sym->size, &sites, &tail);

		if (n <= 0) {
			ot_error("cannot calibrate: no return instruction in ot_calib_target");
			free(sites);
			ret = -ENOENT;
		} else {
			pt->ret_sites = sites;
			pt->nret_sites = (size_t)n;
		}
	}
	ot_selection_free(&sel);
	ot_elf_close(elf);
	return ret;
}
