/*
 * inject_tramp.c - each traced function's trampoline and patch
 * (inject_tramp.h): its code read and checked, relocated behind a prologue,
 * the jmp rel32 to it.
 */
#include "inject_tramp.h"
#include "inject_state.h"
#include "inject_region.h"
#include "symbols/coderefs.h"
#include "relocate.h"
#include "trampcode.h"
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
				ot_ptregs_set_pc(&in->regs[i], 0);
	}
	for (i = 0; i < in->t->n; i++) {
		const struct user_regs_struct r = in->regs[i];
		uint64_t pc = ot_ptregs_pc(&r), back = pc - OT_PTREGS_SYSCALL_LEN;

		/* In a system call, the kernel may restart it: its insn back. */
		if ((pc > lo && pc < hi) || (ot_ptregs_in_syscall(&r) && back > lo && back < hi)) {
			*tid = in->t->tids[i];
			return 1;
		}
	}
	return 0;
}

/* fn's file as people know it. */
static const char *fn_file(const struct ot_inject_fn *fn)
{
	return fn->file ? fn->file : fn->path;
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

/*
 * A USDT site's code: the part of a function its unwind entry bounds
 * (what a stripped file still says), into fn->offset and fn->size, and
 * what may jump into it into pl.  0, or -1 with why.
 */
static int site_code(struct ot_inject_fn *fn, struct plan *pl, char *why, size_t whylen)
{
	uint64_t lo, hi;

	pl->refs = fn->refs;
	if (!pl->refs) {
		snprintf(why, whylen, "cannot tell what jumps into its code: %.150s",
			 fn->refs_why ? fn->refs_why : "not read");
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

	if (fn->point && site_code(fn, pl, why, whylen))
		return -1;
	if (open_file(in, fn->path)) {
		snprintf(why, whylen, "cannot read %s: %s", fn_file(fn), strerror(errno));
		return -1;
	}
	pl->text = ot_proc_maps_text(in->maps, in->nmaps, in->file_st.st_dev, in->file_st.st_ino, fn->offset);
	if (!pl->text) {
		fn->unmapped = 1;
		snprintf(why, whylen, "%s is not mapped in the process (yet): inject patches "
			 "only code already loaded", fn_file(fn));
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
 * What a USDT site's trampoline runs before the moved instructions
 * (lib/arch's ot_tramp_point), the number of values it pushes in id.  Its
 * length, or 0 with why.
 */
static size_t point_head(const struct ot_inject_fn *f, uint64_t site, uint64_t tramp,
			 uint64_t slot, uint32_t id, uint8_t *t, char *why, size_t whylen)
{
	const char *owhy = NULL;
	size_t n;

	if (f->arg)
		id |= 1u << OT_INJ_F_NVALS_SHIFT;
	n = ot_tramp_point(t, tramp, slot, id, f->arg, site, OT_INJ_PT_RED + 8, &owhy);
	if (!n)
		snprintf(why, whylen, "cannot read its argument at the site: %s", owhy);
	return n;
}

/* What a return instruction's trampoline runs before it (an exit site):
 * each number returning there to the runtime's exit, where each call is
 * written into exit_call (a refused function's becomes nops).  Its
 * length. */
static size_t exit_head(struct ot_inject_fn *f, uint64_t tramp, uint64_t slot, uint8_t *t)
{
	return ot_tramp_exit(t, tramp, slot, f->exit_ids, f->nexit, f->exit_call);
}

/* What an entry's (or a hook's) trampoline runs before the moved
 * instructions: its length. */
static size_t entry_head(const struct region *r, uint64_t tramp, uint32_t id, int hook,
			 uint8_t *t)
{
	if (hook)
		return ot_tramp_hook(t, tramp, r->addr + REG_FDE_SLOT);
	return ot_tramp_entry(t, tramp, id, r->addr + REG_ENTRY_SLOT);
}

/* Nothing in the file may jump into rel's patch but at its start, and no
 * other patch is among its bytes: 0, or -1 with *why (in buf). */
static int nothing_jumps_in(const struct ot_inject *in, const struct plan *pl,
			    const struct ot_reloc *rel, char *buf, size_t len, const char **why)
{
	uint64_t lo = pl->vaddr + rel->patch_at, at = pl->addr + rel->patch_at;
	size_t k;

	for (k = 0; k < in->npatches; k++)
		if (in->patches[k].addr < at + rel->covered &&
		    at < in->patches[k].addr + in->patches[k].covered) {
			*why = "another patch is among the bytes to patch";
			return -1;
		}
	if (!ot_coderefs_inside(pl->refs, pl->vaddr, pl->vaddr + pl->len, lo, lo + rel->covered,
				buf, len))
		return 0;
	*why = buf;
	return -1;
}

/*
 * The USDT sites one patch may cover: every site of the install not
 * patched yet near the one being patched (itself first); each one's
 * probe goes before its nop in the trampoline (struct ot_reloc_marks).
 */
#define NEAR_SITES 8
struct sites_near {
	struct ot_inject_fn *fn;	/* the install's functions */
	const struct plan *pl;
	size_t idx[NEAR_SITES];		/* which, by mark */
	uint64_t at[NEAR_SITES];	/* their nops, in the process */
	uint8_t placed[NEAR_SITES];
	uint64_t slot;			/* the region's point slot */
	char why[192];			/* why a probe's code cannot be */
};

static size_t emit_site(void *ctx, size_t k, uint64_t where, uint8_t *out)
{
	struct sites_near *sn = ctx;
	struct ot_inject_fn *f = &sn->fn[sn->idx[k]];
	size_t n = f->exit ? exit_head(f, where, sn->slot - REG_POINT_SLOT + REG_EXIT_SLOT, out) :
			     point_head(f, sn->at[k], where, sn->slot, f->id | f->values, out,
					sn->why, sizeof(sn->why));

	sn->placed[k] = n > 0;
	return n;
}

/* The sites within reach of fn[self]'s patch (it first), into sn and m. */
static void sites_near(struct ot_inject_fn *fn, size_t n, const struct plan *pl,
		       const uint8_t *done, size_t self, uint64_t slot, struct sites_near *sn,
		       struct ot_reloc_marks *m)
{
	uint64_t site = pl[self].addr + (fn[self].site - fn[self].offset);
	size_t k;

	memset(sn, 0, sizeof(*sn));
	sn->fn = fn;
	sn->pl = pl;
	sn->slot = slot;
	sn->idx[0] = self;
	sn->at[0] = site;
	memset(m, 0, sizeof(*m));
	m->at = sn->at;
	m->n = 1;
	m->emit = emit_site;
	m->ctx = sn;
	for (k = 0; k < n && m->n < NEAR_SITES; k++) {
		uint64_t a;

		if (k == self || !fn[k].point || done[k] || fn[k].refused ||
		    pl[k].reg == SIZE_MAX || pl[k].text != pl[self].text)
			continue;
		a = pl[k].addr + (fn[k].site - fn[k].offset);
		if (a + 32 > site && a < site + 32) {
			sn->idx[m->n] = k;
			sn->at[m->n++] = a;
		}
	}
}

/*
 * A USDT site's trampoline into body at tramp: the patch over the nop
 * and the whole instructions after it, else over those before it and
 * the nop; the probe of every site among them (the self first) before its
 * nop, then the jump back.  Its length, with the patch in *rel and the
 * sites it holds in sn; or 0 with why (both ways' reasons).
 */
static size_t point_body(const struct ot_inject *in, struct ot_inject_fn *fn, size_t n,
			 const struct plan *pl, const uint8_t *done, size_t self, uint64_t tramp,
			 uint64_t slot, uint8_t *body, struct ot_reloc *rel, struct sites_near *sn,
			 char *why, size_t whylen)
{
	const struct ot_inject_fn *f = &fn[self];
	const struct plan *p = &pl[self];
	size_t at = (size_t)(f->site - f->offset);
	struct ot_reloc_marks m;
	const char *after, *before;
	char afterbuf[160], beforebuf[160];

	if (f->site < f->offset || at >= p->len) {
		snprintf(why, whylen, "its site is outside the code its unwind entry bounds");
		return 0;
	}
	sites_near(fn, n, pl, done, self, slot, sn, &m);
	if (!ot_relocate_at(p->code, p->len, p->addr, at, at + 1, &m, tramp, rel, &after) &&
	    !nothing_jumps_in(in, p, rel, afterbuf, sizeof(afterbuf), &after))
		goto done;
	sites_near(fn, n, pl, done, self, slot, sn, &m);
	if (!ot_relocate_before(p->code, p->len, p->addr, at, &m, tramp, rel, &before) &&
	    !nothing_jumps_in(in, p, rel, beforebuf, sizeof(beforebuf), &before))
		goto done;
	if (sn->why[0])
		snprintf(why, whylen, "%s", sn->why);
	else
		snprintf(why, whylen, "a patch after the site: %.190s; before it: %.190s", after,
			 before);
	return 0;
done:
	memcpy(body, rel->code, rel->len);
	return rel->len;
}

/* What inject_trampolines works through. */
struct job {
	struct ot_inject_fn *fn, *hooks;	/* functions, then hooks from n on */
	size_t n, nhook;
	struct plan *pl;
	uint8_t *done;		/* per function: patched, or covered by another's patch */
	struct sites_near sn;	/* the sites the latest point's patch holds */
};

static struct ot_inject_fn *job_fn(const struct job *j, size_t i)
{
	return i < j->n ? &j->fn[i] : &j->hooks[i - j->n];
}

/* Function (or hook) i's trampoline into body at tramp (see
 * trampoline()): its length, with the patch in *rel; or 0 with why. */
static size_t body_of(const struct ot_inject *in, struct job *j, size_t i, const struct region *r,
		      uint64_t tramp, uint8_t *body, struct ot_reloc *rel, char *why, size_t whylen)
{
	const struct ot_inject_fn *f = job_fn(j, i);
	const struct plan *pl = &j->pl[i];
	size_t head;
	const char *rwhy;

	if (f->point)
		return point_body(in, j->fn, j->n, j->pl, j->done, i, tramp,
				  r->addr + REG_POINT_SLOT, body, rel, &j->sn, why, whylen);
	/* Seen at its return instructions: recorded under its number plus
	 * the offset, nothing moved at its entry. */
	head = entry_head(r, tramp, i >= j->n ? 0 : f->exits ? (f->id + in->o.exit_alias) |
			  f->values | OT_INJ_F_EXITS : f->id | f->values, i >= j->n, body);
	if (ot_relocate(pl->code, pl->len, pl->addr, tramp + head, rel, &rwhy)) {
		snprintf(why, whylen, "%s", rwhy);
		return 0;
	}
	memcpy(body + head, rel->code, rel->len);
	return head + rel->len;
}

/*
 * Write the trampoline of function (or hook) i into its region: the head
 * (to the runtime's entry, or for a hook to its handler) or a USDT site's
 * probes, the moved instructions, the jump back; and its patch into pa.
 * 0, or -1 with why.
 */
static int trampoline(struct ot_inject *in, struct job *j, size_t i, char *why, size_t whylen,
		      struct patch *pa)
{
	const struct ot_inject_fn *f = job_fn(j, i);
	struct plan *pl = &j->pl[i];
	struct region *r = &in->reg[pl->reg];
	uint64_t tramp = r->addr + r->used;
	uint8_t body[TRAMP_POINT_MAX + TRAMP_MAX];
	size_t len, end;
	struct ot_reloc rel;
	pid_t tid;

	if (r->used + pl->reserve > r->size) {
		snprintf(why, whylen, "internal error: its trampoline does not fit");
		return -1;
	}
	len = body_of(in, j, i, r, tramp, body, &rel, why, whylen);
	if (!len)
		return -1;
	if (len > pl->reserve) {
		snprintf(why, whylen, "the moved instructions do not fit the trampoline");
		return -1;
	}
	/* What runs must be the file's code: not a breakpoint (a debugger's,
	 * a uprobe's) or another tool's patch. */
	end = rel.patch_at + rel.covered;
	if (open_file(in, f->path) || !same_as_file(in, f->offset, pl->code, end)) {
		snprintf(why, whylen, "its %s in the process differ from %s (a breakpoint or "
			 "another tool's patch is there)", f->point ? "bytes up to the site's patch" :
			 "first bytes", fn_file(f));
		return -1;
	}
	if (thread_inside(in, pl->addr + rel.patch_at, pl->addr + end, &tid)) {
		snprintf(why, whylen, "thread %d is stopped inside its %s %zu bytes", (int)tid,
			 f->point ? "site's" : "first", end - (f->point ? rel.patch_at : 0));
		return -1;
	}
	memcpy(r->buf + r->used, body, len);
	if (ot_tramp_jump(pa->jmp, pl->addr + rel.patch_at, tramp)) {
		snprintf(why, whylen, "its trampoline is out of jmp rel32 reach");
		return -1;
	}
	pa->addr = pl->addr + rel.patch_at;
	pa->covered = rel.covered;
	memcpy(pa->orig, pl->code + rel.patch_at, OT_PATCH_LEN);
	r->used += (len + 15) & ~(size_t)15;
	return 0;
}

/* Where f is and its code, into pl: the region it needs, or refused. */
void inject_plan_one(struct ot_inject *in, struct ot_inject_fn *f, struct plan *pl)
{
	pl->reg = SIZE_MAX;
	pl->reserve = f->point ? TRAMP_POINT_MAX : TRAMP_MAX;
	if (f->refused)
		return;
	if (locate(in, f, pl, f->refused_buf, sizeof(f->refused_buf)))
		f->refused = f->refused_buf;
	else
		pl->reg = inject_region_for(in, pl->text);
}

/* The sites the point patch just made holds besides i's: patched. */
static void covered(struct job *j, size_t i)
{
	size_t k;

	j->done[i] = 1;
	for (k = 1; job_fn(j, i)->point && k < NEAR_SITES; k++)
		if (j->sn.placed[k]) {
			j->done[j->sn.idx[k]] = 1;
			j->fn[j->sn.idx[k]].refused = NULL;
		}
}

/*
 * Each function's trampoline, and the patch that leads there (not yet
 * written); the refused ones say why.  USDT sites near each other may
 * share one patch (each its own probe in it).  Returns the functions
 * (not hooks) patched.
 */
size_t inject_trampolines(struct ot_inject *in, struct ot_inject_fn *fn, size_t n,
			  struct ot_inject_fn *hooks, size_t nhook, struct plan *pl)
{
	struct job j = { .fn = fn, .hooks = hooks, .n = n, .nhook = nhook, .pl = pl };
	size_t i, patched = 0;

	j.done = ot_xcalloc(n + nhook + 1, 1);
	for (i = 0; i < n + nhook; i++) {
		struct ot_inject_fn *f = job_fn(&j, i);
		struct patch *pa = &in->patches[in->npatches];

		if (f->refused || j.done[i])
			continue;
		if (trampoline(in, &j, i, f->refused_buf, sizeof(f->refused_buf), pa)) {
			f->refused = f->refused_buf;
			continue;
		}
		covered(&j, i);
		pa->fn = i < n && !f->exit ? f->id : SIZE_MAX;
		in->npatches++;
		if (i >= n)
			in->info.unwinder = 1;
	}
	for (i = 0; i < n; i++)
		patched += j.done[i] && !fn[i].refused && !fn[i].exit;
	free(j.done);
	return patched;
}
