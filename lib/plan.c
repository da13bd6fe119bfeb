#include "plan.h"
#include "error.h"
#include "retsite.h"

#include <errno.h>

/* The stack-switching call the program makes, or NULL; with -a (no
 * program of its own) the function's own file is asked. */
static const char *stack_switch(const struct ot_selection *sel, const struct ot_plan_opts *o,
				size_t i)
{
	return ot_elf_stack_switch(o->elf ? o->elf : sel->fn[i].bin->elf);
}

/* Returns at return instructions for functions in files with C++
 * exception tables, unless --returns says otherwise. */
static int insn_returns(const struct ot_selection *sel, const struct ot_plan_opts *o, size_t i)
{
	if (o->inject)
		return 0;	/* every return comes to its trampoline */
	if (o->ret_mode_set)
		return o->ret_insn;
	/* A return probe kills a program whose threads switch stacks (the
	 * kernel's return chain is per thread, not per stack). */
	return stack_switch(sel, o, i) || ot_elf_has_eh(sel->fn[i].bin->elf);
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

static void say_returns(const struct ot_selection *sel, const struct ot_plan_opts *o, size_t i)
{
	const struct ot_binary *bin = sel->fn[i].bin;

	if (!i && stack_switch(sel, o, i) && !insn_returns(sel, o, i))
		ot_warn("%s switches stacks (%s): a return probe kills it when a call "
			"returns on another stack than it was made on; --returns insn "
			"avoids that", o->display, stack_switch(sel, o, i));
	else if (!i && stack_switch(sel, o, i) && !o->ret_mode_set)
		ot_verbose("%s switches stacks (%s): returns are seen at return "
			   "instructions (--returns insn)", o->display, stack_switch(sel, o, i));
	if (!o->ret_mode_set && ot_elf_has_eh(bin->elf) && !stack_switch(sel, o, i) &&
	    first_of_file(sel, i))
		ot_verbose("%s has C++ exception tables: returns of its functions are "
			   "seen at return instructions (--returns insn)", bin->display);
}

/* Said after the return sites were looked for, as it always was. */
static void warn_exceptions(const struct ot_selection *sel, const struct ot_plan_opts *o,
			    size_t i)
{
	const struct ot_binary *bin = sel->fn[i].bin;

	if (!insn_returns(sel, o, i) && ot_elf_has_eh(bin->elf) && first_of_file(sel, i))
		ot_warn("%s uses C++ exceptions: one thrown through a function with a "
			"return probe aborts the program; --returns insn avoids that "
			"(see BUGS in orbit-trace(1))", bin->display);
}

int ot_plan_targets(const struct ot_selection *sel, const struct ot_plan_opts *o,
		    struct ot_probe_target *pt, struct ot_returns *ret)
{
	size_t i;
	int err;

	for (i = 0; i < sel->n; i++) {
		const struct ot_sym *s = sel->fn[i].sym;

		pt[i].path = sel->fn[i].bin->path;
		pt[i].label = sel->fn[i].label;
		pt[i].offset = s->offset;
		pt[i].sym_offset = s->offset;
		pt[i].sym_size = s->size;
		pt[i].arg = OT_SEL_ARG(sel->fn[i].arg);
		pt[i].ret_value = sel->fn[i].ret != 0;
		ot_verbose("%s (+0x%llx, %llu bytes, from .%s)", pt[i].label,
			   (unsigned long long)s->offset,
			   (unsigned long long)s->size, ot_elf_source(sel->fn[i].bin->elf));
		/* -l lists symbols; inject patches the symbol's own first bytes. */
		if (o->list || o->inject)
			continue;
		if ((err = entry(sel, i, &pt[i])))
			return err;
		say_returns(sel, o, i);
		if (insn_returns(sel, o, i)) {
			if (ot_returns_find(sel, i, pt[i].label, sel->fn[i].name, &ret[i]))
				return -1;
			pt[i].ret_sites = ret[i].sites;
			pt[i].nret_sites = ret[i].nsites;
			pt[i].ntail_sites = ret[i].ntail;
		}
		warn_exceptions(sel, o, i);
	}
	return 0;
}
