#include "inject_tramp.h"
#include "inject_state.h"
#include "inject_region.h"
#include "relocate.h"
#include "x86emit.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- functions ---- */

/* 1 and *tid when a stopped thread would break if [lo, hi) were patched:
 * its next instruction is inside (the start is fine: it runs the jmp). */
static int thread_inside(struct ot_inject *in, uint64_t lo, uint64_t hi, pid_t *tid)
{
	size_t i;

	if (!in->regs) {
		in->regs = ot_xcalloc(in->t->n + 1, sizeof(*in->regs));
		for (i = 0; i < in->t->n; i++)
			if (ot_tracee_regs(in->t, i, &in->regs[i]))
				in->regs[i].rip = 0;
	}
	for (i = 0; i < in->t->n; i++) {
		const struct user_regs_struct r = in->regs[i];

		/* In a system call, the kernel may restart it: 2 bytes back. */
		if ((r.rip > lo && r.rip < hi) ||
		    ((long long)r.orig_rax >= 0 && r.rip - 2 > lo && r.rip - 2 < hi)) {
			*tid = in->t->tids[i];
			return 1;
		}
	}
	return 0;
}

/* path, open in in->file_fd and stat'ed in in->file_st: 0 or -1 (errno). */
static int open_file(struct ot_inject *in, const char *path)
{
	if (in->file_path && !strcmp(in->file_path, path))
		return in->file_fd >= 0 ? 0 : -1;
	if (in->file_fd >= 0)
		close(in->file_fd);
	free(in->file_path);
	in->file_path = ot_xstrdup(path);
	in->file_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->file_fd >= 0 && fstat(in->file_fd, &in->file_st)) {
		close(in->file_fd);
		in->file_fd = -1;
	}
	return in->file_fd >= 0 ? 0 : -1;
}

/* Where fn is in the process, and its code; refuse it with why otherwise. */
static int locate(struct ot_inject *in, struct ot_inject_fn *fn, struct plan *pl, char *why,
		  size_t whylen)
{
	size_t len;

	if (open_file(in, fn->path)) {
		snprintf(why, whylen, "cannot read %s: %s", fn->path, strerror(errno));
		return -1;
	}
	pl->text = ot_proc_maps_text(in->maps, in->nmaps, in->file_st.st_dev, in->file_st.st_ino, fn->offset);
	if (!pl->text) {
		fn->unmapped = 1;
		snprintf(why, whylen, "%s is not mapped in the process (yet): inject patches "
			 "only code already loaded", fn->path);
		return -1;
	}
	pl->addr = pl->text->lo + fn->offset - pl->text->off;
	len = fn->size ? (size_t)fn->size : 16;
	if (len > CODE_MAX)
		len = CODE_MAX;
	if (pl->addr + len > pl->text->hi)
		len = (size_t)(pl->text->hi - pl->addr);
	pl->code = ot_xmalloc(len);
	pl->len = len;
	if (ot_tracee_read(in->t, pl->addr, pl->code, len)) {
		snprintf(why, whylen, "its code cannot be read in the process");
		return -1;
	}
	return 0;
}

/*
 * Write a trampoline for the function of plan pl into its region:
 * prologue (to the runtime's entry, or for a hook to its handler), the
 * moved instructions, the jump back.  Returns 0, or -1 with why.
 */
static int trampoline(struct ot_inject *in, const char *file, uint64_t file_off, struct plan *pl,
		      uint32_t id, int hook, char *why, size_t whylen, struct patch *pa)
{
	struct region *r = &in->reg[pl->reg];
	size_t pro = hook ? HOOK_PROLOGUE : TRAMP_PROLOGUE;
	uint64_t tramp = r->addr + r->used;
	uint8_t filecode[64], *t = r->buf + r->used;
	struct ot_reloc rel;
	const char *rwhy;
	int64_t d;
	pid_t tid;

	if (r->used + TRAMP_MAX > r->size) {
		snprintf(why, whylen, "internal error: its trampoline does not fit");
		return -1;
	}
	if (ot_relocate(pl->code, pl->len, pl->addr, tramp + pro, &rel, &rwhy)) {
		snprintf(why, whylen, "%s", rwhy);
		return -1;
	}
	if (pro + rel.len > TRAMP_MAX) {
		snprintf(why, whylen, "the moved instructions do not fit the trampoline");
		return -1;
	}
	/* What runs must be the file's code: not a breakpoint (a debugger's,
	 * a uprobe's) or another tool's patch. */
	if (open_file(in, file) ||
	    pread(in->file_fd, filecode, rel.patch_at + rel.covered, (off_t)file_off) !=
		    (ssize_t)(rel.patch_at + rel.covered) ||
	    memcmp(filecode, pl->code, rel.patch_at + rel.covered)) {
		snprintf(why, whylen, "its first bytes in the process differ from %s (a breakpoint "
			 "or another tool's patch is there)", file);
		return -1;
	}
	if (thread_inside(in, pl->addr + rel.patch_at, pl->addr + rel.patch_at + rel.covered, &tid)) {
		snprintf(why, whylen, "thread %d is stopped inside its first %zu bytes", (int)tid,
			 rel.patch_at + rel.covered);
		return -1;
	}
	if (hook) {
		t[0] = 0x50;				/* push %rax */
		t[1] = 0x48, t[2] = 0x8d, t[3] = 0x05;	/* lea orig(%rip),%rax */
		put32(t + 4, HOOK_PROLOGUE - 8);
		t[8] = 0xff, t[9] = 0x25;		/* jmp *slot(%rip) */
		d = (int64_t)(r->addr + REG_FDE_SLOT) - (int64_t)(tramp + 14);
		put32(t + 10, (int32_t)d);
	} else {
		t[0] = 0x50;				/* push %rax */
		t[1] = 0xb8;				/* mov $id,%eax */
		put32(t + 2, (int32_t)id);
		t[6] = 0xff, t[7] = 0x15;		/* call *slot(%rip) */
		d = (int64_t)(r->addr + REG_ENTRY_SLOT) - (int64_t)(tramp + 12);
		put32(t + 8, (int32_t)d);
		t[12] = 0x58;				/* pop %rax */
	}
	memcpy(t + pro, rel.code, rel.len);
	d = (int64_t)tramp - (int64_t)(pl->addr + rel.patch_at + OT_PATCH_LEN);
	if (!fits32(d)) {
		snprintf(why, whylen, "its trampoline is out of jmp rel32 reach");
		return -1;
	}
	pa->addr = pl->addr + rel.patch_at;
	memcpy(pa->orig, pl->code + rel.patch_at, OT_PATCH_LEN);
	pa->jmp[0] = 0xe9;
	put32(pa->jmp + 1, (int32_t)d);
	r->used += (pro + rel.len + 15) & ~(size_t)15;
	return 0;
}

/* Where f is and its code, into pl: the region it needs, or refused. */
void inject_plan_one(struct ot_inject *in, struct ot_inject_fn *f, struct plan *pl)
{
	pl->reg = SIZE_MAX;
	if (f->refused)
		return;
	if (locate(in, f, pl, f->refused_buf, sizeof(f->refused_buf)))
		f->refused = f->refused_buf;
	else
		pl->reg = inject_region_for(in, pl->text);
}

/* Each function's trampoline, and the patch that leads there (not yet
 * written); the refused ones say why.  Returns the functions (not hooks). */
size_t inject_trampolines(struct ot_inject *in, struct ot_inject_fn *fn, size_t n,
			  struct ot_inject_fn *hooks, size_t nhook, struct plan *pl)
{
	size_t i, patched = 0;

	for (i = 0; i < n + nhook; i++) {
		struct ot_inject_fn *f = i < n ? &fn[i] : &hooks[i - n];
		struct patch *pa = &in->patches[in->npatches];

		if (f->refused)
			continue;
		if (trampoline(in, f->path, f->offset, &pl[i], (uint32_t)i | f->values, i >= n,
			       f->refused_buf, sizeof(f->refused_buf), pa)) {
			f->refused = f->refused_buf;
			continue;
		}
		pa->fn = i < n ? i : SIZE_MAX;
		in->npatches++;
		if (i < n)
			patched++;
		else
			in->info.unwinder = 1;
	}
	return patched;
}
