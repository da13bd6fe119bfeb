#include "plan.h"
#include "util/error.h"
#include "symbols/dwarfarg.h"
#include "symbols/retsite.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The stack-switching call the program makes, or NULL; with -a (no
 * program of its own) the function's own file is asked. */
static const char *stack_switch(const struct ot_selection *sel, const struct ot_elf *elf,
				size_t i)
{
	return ot_elf_stack_switch(elf ? elf : sel->fn[i].bin->elf);
}

/* Returns at return instructions for functions in files with C++
 * exception tables, unless --returns says otherwise. */
static int insn_returns(const struct ot_selection *sel, const struct ot_elf *elf,
			const struct ot_plan_opts *o, size_t i)
{
	if (o->patches_code)
		return 0;	/* every return comes to the backend's code */
	if (o->ret_mode_set)
		return o->ret_insn;
	/* A return probe kills a program whose threads switch stacks (the
	 * kernel's return chain is per thread, not per stack). */
	return stack_switch(sel, elf, i) || ot_elf_has_eh(sel->fn[i].bin->elf);
}

/* Where function i's entry probe goes: past a first instruction a uprobe
 * cannot sit on.  0, -ENOTSUP or -1, printed. */
static int entry(const struct ot_selection *sel, size_t i, struct ot_probe_target *pt)
{
	const struct ot_sym *s = sel->fn[i].sym;
	const char *why;
	uint64_t at;
	int err = ot_entry_point(pt->path, s->offset, s->size, &at, &why);

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
 * A return probe aborts a C++ program whose exception unwinds through the
 * probed frame; probing return instructions cannot.  Which file has
 * exception tables decides, per file: said once per file (the selection
 * keeps a file's functions together), and about stack switching once.
 */
static int first_of_file(const struct ot_selection *sel, size_t i)
{
	return !i || sel->fn[i - 1].bin != sel->fn[i].bin;
}

static void say_returns(const struct ot_selection *sel, const struct ot_elf *elf,
			const struct ot_plan_opts *o, size_t i)
{
	const struct ot_binary *bin = sel->fn[i].bin;

	if (!i && stack_switch(sel, elf, i) && !insn_returns(sel, elf, o, i))
		ot_warn("%s switches stacks (%s): a return probe kills it when a call "
			"returns on another stack than it was made on; --returns insn "
			"avoids that", o->display, stack_switch(sel, elf, i));
	else if (!i && stack_switch(sel, elf, i) && !o->ret_mode_set)
		ot_verbose("%s switches stacks (%s): returns are seen at return "
			   "instructions (--returns insn)", o->display, stack_switch(sel, elf, i));
	if (!o->ret_mode_set && ot_elf_has_eh(bin->elf) && !stack_switch(sel, elf, i) &&
	    first_of_file(sel, i))
		ot_verbose("%s has C++ exception tables: returns of its functions are "
			   "seen at return instructions (--returns insn)", bin->display);
}

/* Said after the return sites were looked for, as it always was. */
static void warn_exceptions(const struct ot_selection *sel, const struct ot_elf *elf,
			    const struct ot_plan_opts *o, size_t i)
{
	const struct ot_binary *bin = sel->fn[i].bin;

	if (!insn_returns(sel, elf, o, i) && ot_elf_has_eh(bin->elf) && first_of_file(sel, i))
		ot_warn("%s uses C++ exceptions: one thrown through a function with a "
			"return probe aborts the program; --returns insn avoids that "
			"(see BUGS in orbit-trace(1))", bin->display);
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

/*
 * Function i's entry values after the first ("read(arg1,arg3)"), each an
 * operand its probe reads: argN the ABI's register (its low half signed
 * with :32), a name where DWARF puts it.  0, or -ENOENT after printing.
 */
static int more_values(struct ot_plan *p, size_t i, struct ot_probe_target *pt)
{
	/* rdi, rsi, rdx, rcx, r8, r9 by perf number (asm/perf_regs.h). */
	static const int8_t abi[OT_SEL_MAX_ARG] = { 5, 4, 3, 2, 16, 17 };
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
			a[j].kind = OT_USDT_ARG_REG;
			a[j].reg = abi[OT_SEL_ARG(f->more[j]) - 1];
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
		if (pt->offset != f->sym->offset) {
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
		if (f->str && (err = str_param(f)))
			return err;
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
		pt[i].label = sel->fn[i].label;
		if (sel->fn[i].usdt) {
			if ((err = point_target(p, i, &pt[i])))
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
		if (!o->patches_code && (err = entry(sel, i, &pt[i])))
			return err == -ENOTSUP ? -ENOENT : err;
		if ((err = dwarf_values(p, i, &pt[i])))
			return err;
		if (o->refuse_target) {
			/* Refused before a command starts: what the backend
			 * cannot arm (inject: values not in a register). */
			char why[256];

			if (o->refuse_target(&pt[i], why, sizeof(why))) {
				ot_error("%s: %s", pt[i].label, why);
				return -ENOENT;
			}
		}
		if (o->patches_code)
			continue;
		say_returns(sel, p->elf, o, i);
		if (insn_returns(sel, p->elf, o, i)) {
			if (ot_returns_find(sel, i, pt[i].label, sel->fn[i].name, &ret[i]))
				return -1;
			pt[i].ret_sites = ret[i].sites;
			pt[i].nret_sites = ret[i].nsites;
			pt[i].ntail_sites = ret[i].ntail;
		}
		warn_exceptions(sel, p->elf, o, i);
	}
	return 0;
}

/* --expect's names must be functions -f traces: a typo must not pass. */
static int check_expect(const struct ot_plan *p, const struct ot_plan_opts *o)
{
	size_t i, k;

	for (i = 0; i < o->nexpect; i++) {
		for (k = 0; k < p->sel.n; k++)
			if (!strcmp(p->names[k], o->expect[i]))
				break;
		if (k == p->sel.n) {
			ot_error("--expect names '%s', which -f does not trace\n"
				 "Try 'orbit-trace --help' for more information.",
				 o->expect[i]);
			return -ENOENT;
		}
	}
	return 0;
}

int ot_plan_make(struct ot_plan *p, const struct ot_plan_opts *o)
{
	size_t i;
	int ret;

	if (o->exe && ot_elf_open(o->exe, o->display, &p->elf))
		return -1;
	p->bins = ot_binset_new(p->elf, o->exe ? o->exe : "", o->display, o->find_lib,
				o->find_lib_ctx);
	if (o->script)
		ot_binset_set_script(p->bins, o->script, o->interpreter);
	ret = ot_binset_select(p->bins, o->functions, &p->sel);
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
