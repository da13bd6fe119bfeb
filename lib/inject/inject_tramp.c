#include "inject_tramp.h"
#include "inject_state.h"
#include "inject_region.h"
#include "operand.h"
#include "symbols/coderefs.h"
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

/* Whether the open file's len bytes at off are code's. */
static int same_as_file(struct ot_inject *in, uint64_t off, const uint8_t *code, size_t len)
{
	uint8_t buf[4096];
	size_t k, n;

	for (k = 0; k < len; k += n) {
		n = len - k < sizeof(buf) ? len - k : sizeof(buf);
		if (pread(in->file_fd, buf, n, (off_t)(off + k)) != (ssize_t)n ||
		    memcmp(buf, code + k, n))
			return 0;
	}
	return 1;
}

/* The references to code of the file at path, read once per file: NULL
 * with *why when it cannot be read. */
static const struct ot_coderefs *refs_of(struct ot_inject *in, const char *path,
					 const char **why)
{
	struct inject_refs *e;
	size_t i;

	for (i = 0; i < in->nrefs && strcmp(in->refs[i].path, path); i++)
		;
	if (i == in->nrefs) {
		in->refs = ot_xreallocarray(in->refs, in->nrefs + 1, sizeof(*in->refs));
		e = &in->refs[in->nrefs++];
		e->path = ot_xstrdup(path);
		if (ot_coderefs_open(path, &e->r, e->why, sizeof(e->why)))
			e->r = NULL;
	}
	*why = in->refs[i].why;
	return in->refs[i].r;
}

/*
 * A USDT site's code: the part of a function its unwind entry bounds
 * (what a stripped file still says), into fn->offset and fn->size, and
 * what may jump into it into pl.  0, or -1 with why.
 */
static int site_code(struct ot_inject *in, struct ot_inject_fn *fn, struct plan *pl, char *why,
		     size_t whylen)
{
	const char *rwhy;
	uint64_t lo, hi;

	pl->refs = refs_of(in, fn->path, &rwhy);
	if (!pl->refs) {
		snprintf(why, whylen, "cannot tell what jumps into its code: %.150s", rwhy);
		return -1;
	}
	if (ot_coderefs_fde(pl->refs, fn->site_vaddr, &lo, &hi) || fn->site_vaddr - lo > fn->site) {
		snprintf(why, whylen, "its site at +0x%llx is in no function's unwind entry: the "
			 "code around it is unknown", (unsigned long long)fn->site);
		return -1;
	}
	pl->vaddr = lo;
	fn->offset = fn->site - (fn->site_vaddr - lo);
	fn->size = hi - lo;
	return 0;
}

/* Where fn is in the process, and its code; refuse it with why otherwise. */
static int locate(struct ot_inject *in, struct ot_inject_fn *fn, struct plan *pl, char *why,
		  size_t whylen)
{
	size_t len;

	if (fn->point && site_code(in, fn, pl, why, whylen))
		return -1;
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

/* A call through the region's slot at byte k of the head at tramp. */
static size_t call_slot(uint8_t *t, size_t k, uint64_t tramp, uint64_t slot)
{
	t[k] = 0xff, t[k + 1] = 0x15;			/* call *slot(%rip) */
	put32(t + k + 2, (int32_t)((int64_t)slot - (int64_t)(tramp + k + 6)));
	return k + 6;
}

/*
 * What a USDT site's trampoline runs before the moved instructions: the
 * stack pointer past the red zone (the function may keep data there),
 * rax saved, the operand read and pushed, the runtime's point called
 * with the number in eax, all put back.  Its length, or 0 with why.
 */
static size_t point_head(const struct ot_inject_fn *f, uint64_t site, uint64_t tramp,
			 uint64_t slot, uint32_t id, uint8_t *t, char *why, size_t whylen)
{
	size_t k = 0;
	const char *owhy;
	int n;

	memcpy(t + k, "\x48\x8d\x64\x24\x80", 5);		/* lea -128(%rsp),%rsp */
	k += 5;
	t[k++] = 0x50;					/* push %rax */
	if (f->arg) {
		n = ot_operand_code(f->arg, site, OT_INJ_PT_RED + 8, t + k, &owhy);
		if (n < 0) {
			snprintf(why, whylen, "cannot read its argument at the site: %s", owhy);
			return 0;
		}
		k += (size_t)n;
		t[k++] = 0x50;				/* push %rax: the value */
		id |= 1u << OT_INJ_F_NVALS_SHIFT;
	}
	t[k++] = 0xb8;					/* mov $id,%eax */
	put32(t + k, (int32_t)id);
	k = call_slot(t, k + 4, tramp, slot);
	if (f->arg) {
		memcpy(t + k, "\x48\x8d\x64\x24\x08", 5);	/* lea 8(%rsp),%rsp */
		k += 5;
	}
	t[k++] = 0x58;					/* pop %rax */
	memcpy(t + k, "\x48\x8d\xa4\x24\x80\x00\x00\x00", 8);	/* lea 128(%rsp),%rsp */
	return k + 8;
}

/* What an entry's (or a hook's) trampoline runs before the moved
 * instructions: its length. */
static size_t entry_head(const struct region *r, uint64_t tramp, uint32_t id, int hook,
			 uint8_t *t)
{
	if (hook) {
		t[0] = 0x50;				/* push %rax */
		t[1] = 0x48, t[2] = 0x8d, t[3] = 0x05;	/* lea orig(%rip),%rax */
		put32(t + 4, HOOK_PROLOGUE - 8);
		t[8] = 0xff, t[9] = 0x25;		/* jmp *slot(%rip) */
		put32(t + 10, (int32_t)((int64_t)(r->addr + REG_FDE_SLOT) - (int64_t)(tramp + 14)));
		return HOOK_PROLOGUE;
	}
	t[0] = 0x50;					/* push %rax */
	t[1] = 0xb8;					/* mov $id,%eax */
	put32(t + 2, (int32_t)id);
	call_slot(t, 6, tramp, r->addr + REG_ENTRY_SLOT);
	t[12] = 0x58;					/* pop %rax */
	return TRAMP_PROLOGUE;
}

/* Nothing in the file may jump into rel's patch but at its start: 0, or
 * -1 with *why (in buf) naming what does. */
static int nothing_jumps_in(const struct plan *pl, const struct ot_reloc *rel, char *buf,
			    size_t len, const char **why)
{
	uint64_t lo = pl->vaddr + rel->patch_at;

	if (!ot_coderefs_inside(pl->refs, pl->vaddr, pl->vaddr + pl->len, lo, lo + rel->covered,
				buf, len))
		return 0;
	*why = buf;
	return -1;
}

/*
 * A USDT site's trampoline into body at tramp: the patch over the nop
 * and the instructions after it (the probe, then them, then back), else
 * over the instructions before it and the nop (them, the probe, then on
 * past the nop).  Its length, with the patch in *rel; or 0 with why
 * (both ways' reasons).
 */
static size_t point_body(const struct ot_inject_fn *f, const struct plan *pl, uint64_t tramp,
			 uint64_t slot, uint32_t id, uint8_t *body, struct ot_reloc *rel,
			 char *why, size_t whylen)
{
	size_t at = (size_t)(f->site - f->offset), head;
	uint64_t site = pl->addr + at;
	const char *after, *before;
	char afterbuf[160], beforebuf[160];
	int64_t d;

	if (f->site < f->offset || at >= pl->len) {
		snprintf(why, whylen, "its site is outside the code its unwind entry bounds");
		return 0;
	}
	head = point_head(f, site, tramp, slot, id, body, why, whylen);
	if (!head)
		return 0;
	if (!ot_relocate_at(pl->code, pl->len, pl->addr, at, tramp + head, rel, &after) &&
	    !nothing_jumps_in(pl, rel, afterbuf, sizeof(afterbuf), &after)) {
		memcpy(body + head, rel->code, rel->len);
		return head + rel->len;
	}
	if (ot_relocate_before(pl->code, pl->len, pl->addr, at, tramp, rel, &before) ||
	    nothing_jumps_in(pl, rel, beforebuf, sizeof(beforebuf), &before)) {
		snprintf(why, whylen, "a patch after the site: %.190s; before it: %.190s", after,
			 before);
		return 0;
	}
	memcpy(body, rel->code, rel->len);
	head = point_head(f, site, tramp + rel->len, slot, id, body + rel->len, why, whylen);
	body[rel->len + head] = 0xe9;				/* jmp past the nop */
	d = (int64_t)(site + 1) - (int64_t)(tramp + rel->len + head + 5);
	if (!fits32(d)) {
		snprintf(why, whylen, "the site is out of rel32 reach of its trampoline");
		return 0;
	}
	put32(body + rel->len + head + 1, (int32_t)d);
	return rel->len + head + 5;
}

/* f's trampoline into body at tramp (see trampoline()): its length, with
 * the patch in *rel; or 0 with why. */
static size_t body_of(const struct ot_inject_fn *f, const struct plan *pl, const struct region *r,
		      uint64_t tramp, uint32_t id, int hook, uint8_t *body, struct ot_reloc *rel,
		      char *why, size_t whylen)
{
	size_t head;
	const char *rwhy;

	if (f->point)
		return point_body(f, pl, tramp, r->addr + REG_POINT_SLOT, id, body, rel, why,
				  whylen);
	head = entry_head(r, tramp, id, hook, body);
	if (ot_relocate(pl->code, pl->len, pl->addr, tramp + head, rel, &rwhy)) {
		snprintf(why, whylen, "%s", rwhy);
		return 0;
	}
	memcpy(body + head, rel->code, rel->len);
	return head + rel->len;
}

/*
 * Write the trampoline of f (plan pl) into its region: the head (to the
 * runtime's entry or point, or for a hook to its handler), the moved
 * instructions, the jump back; and its patch into pa.  0, or -1 with why.
 */
static int trampoline(struct ot_inject *in, const struct ot_inject_fn *f, struct plan *pl,
		      uint32_t id, int hook, char *why, size_t whylen, struct patch *pa)
{
	struct region *r = &in->reg[pl->reg];
	uint64_t tramp = r->addr + r->used;
	uint8_t body[TRAMP_MAX + OT_RELOC_MAX + 64];
	size_t len, end;
	struct ot_reloc rel;
	int64_t d;
	pid_t tid;

	if (r->used + TRAMP_MAX > r->size) {
		snprintf(why, whylen, "internal error: its trampoline does not fit");
		return -1;
	}
	len = body_of(f, pl, r, tramp, id, hook, body, &rel, why, whylen);
	if (!len)
		return -1;
	if (len > TRAMP_MAX) {
		snprintf(why, whylen, "the moved instructions do not fit the trampoline");
		return -1;
	}
	/* What runs must be the file's code: not a breakpoint (a debugger's,
	 * a uprobe's) or another tool's patch. */
	end = rel.patch_at + rel.covered;
	if (open_file(in, f->path) || !same_as_file(in, f->offset, pl->code, end)) {
		snprintf(why, whylen, "its %s in the process differ from %s (a breakpoint or "
			 "another tool's patch is there)", f->point ? "bytes up to the site's patch" :
			 "first bytes", f->path);
		return -1;
	}
	if (thread_inside(in, pl->addr + rel.patch_at, pl->addr + end, &tid)) {
		snprintf(why, whylen, "thread %d is stopped inside its %s %zu bytes", (int)tid,
			 f->point ? "site's" : "first", end - (f->point ? rel.patch_at : 0));
		return -1;
	}
	memcpy(r->buf + r->used, body, len);
	d = (int64_t)tramp - (int64_t)(pl->addr + rel.patch_at + OT_PATCH_LEN);
	if (!fits32(d)) {
		snprintf(why, whylen, "its trampoline is out of jmp rel32 reach");
		return -1;
	}
	pa->addr = pl->addr + rel.patch_at;
	memcpy(pa->orig, pl->code + rel.patch_at, OT_PATCH_LEN);
	pa->jmp[0] = 0xe9;
	put32(pa->jmp + 1, (int32_t)d);
	r->used += (len + 15) & ~(size_t)15;
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
		if (trampoline(in, f, &pl[i], (i < n ? f->id : 0) | f->values, i >= n,
			       f->refused_buf, sizeof(f->refused_buf), pa)) {
			f->refused = f->refused_buf;
			continue;
		}
		pa->fn = i < n ? f->id : SIZE_MAX;
		in->npatches++;
		if (i < n)
			patched++;
		else
			in->info.unwinder = 1;
	}
	return patched;
}
