/*
 * inject_recover.c - the recovery table a killed orbit-trace leaves in the
 * process, written at install and read back by a later one to take every
 * patch, hijacked return address and region back (inject_recover.h).
 */
#include "inject_recover.h"
#include "util/error.h"
#include "inject_remove.h"
#include "inject_sema.h"
#include "inject_state.h"
#include "process/mapfile.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The recovery table, in the first region: everything a later
 * orbit-trace needs to take it all back if this one dies
 * (ot_inject_recover).  Written with the region, before any patch.
 */
void inject_recovery_table(struct ot_inject *in)
{
	struct region *r0 = &in->reg[0];
	size_t at = (r0->used + 7) & ~(size_t)7, i;
	uint8_t *t = r0->buf + at;
	uint64_t addr = r0->addr + at, v;
	uint32_t w;

	v = OT_INJ_R_MAGIC;
	memcpy(t + OT_INJ_R_MAGIC_OFF, &v, 8);
	w = (uint32_t)getpid();
	memcpy(t + OT_INJ_R_TRACER, &w, 4);
	w = (uint32_t)in->npatches;
	memcpy(t + OT_INJ_R_NPATCH, &w, 4);
	w = (uint32_t)in->nreg;
	memcpy(t + OT_INJ_R_NREG, &w, 4);
	w = (uint32_t)in->nsemas;
	memcpy(t + OT_INJ_R_NSEMA, &w, 4);
	memcpy(t + OT_INJ_R_PRIV, &in->priv, 8);
	v = OT_INJ_PRIV_SIZE;
	memcpy(t + OT_INJ_R_PRIV_LEN, &v, 8);
	memcpy(t + OT_INJ_R_SHARED, &in->shared_t, 8);
	v = in->shared_len;
	memcpy(t + OT_INJ_R_SHARED_LEN, &v, 8);
	memcpy(t + OT_INJ_R_RET, &in->rt_ret, 8);
	t += OT_INJ_R_HEAD;
	for (i = 0; i < in->nreg; i++, t += OT_INJ_R_REG_SIZE) {
		v = in->reg[i].size;
		memcpy(t, &in->reg[i].addr, 8);
		memcpy(t + 8, &v, 8);
	}
	for (i = 0; i < in->npatches; i++, t += OT_INJ_R_PATCH_SIZE) {
		memset(t, 0, OT_INJ_R_PATCH_SIZE);
		memcpy(t, &in->patches[i].addr, 8);
		memcpy(t + 8, in->patches[i].orig, OT_PATCH_LEN);
		memcpy(t + 16, in->patches[i].jmp, OT_PATCH_LEN);
	}
	for (i = 0; i < in->nsemas; i++, t += OT_INJ_R_SEMA_SIZE)
		memcpy(t, &in->semas[i], 8);
	r0->used = (size_t)(t - r0->buf);
	memcpy(r0->buf + OT_INJ_REG_RECOVERY, &addr, 8);
}

/* ---- what a killed orbit-trace left ---- */

/* The first code region another orbit-trace mapped in the process (its
 * name, then its recovery table), or 0. */
static uint64_t leftover_table(struct ot_inject *in)
{
	size_t i;

	for (i = 0; i < in->nmaps; i++) {
		const struct ot_proc_map *m = &in->maps[i];
		uint8_t head[OT_INJ_REG_HEAD];
		uint64_t table, magic;

		if (m->perms[2] != 'x' || m->path[0] || m->ino ||
		    ot_tracee_read(in->t, m->lo, head, sizeof(head)) ||
		    memcmp(head + REG_NAME, "orbit-trace", 12))
			continue;
		memcpy(&table, head + OT_INJ_REG_RECOVERY, 8);
		if (table && !ot_tracee_read(in->t, table, &magic, 8) && magic == OT_INJ_R_MAGIC)
			return table;
	}
	return 0;
}

/* Its table read back into in: regions, patches, data. 0 or -EIO. */
static int read_table(struct ot_inject *in, uint64_t table, uint32_t *tracer)
{
	uint8_t h[OT_INJ_R_HEAD];
	uint32_t np, nr, ns;
	uint64_t v;
	size_t i;

	if (ot_tracee_read(in->t, table, h, sizeof(h)))
		return -EIO;
	memcpy(&ns, h + OT_INJ_R_NSEMA, 4);
	memcpy(tracer, h + OT_INJ_R_TRACER, 4);
	memcpy(&np, h + OT_INJ_R_NPATCH, 4);
	memcpy(&nr, h + OT_INJ_R_NREG, 4);
	memcpy(&in->priv, h + OT_INJ_R_PRIV, 8);
	memcpy(&v, h + OT_INJ_R_PRIV_LEN, 8);
	if (in->priv && v != OT_INJ_PRIV_SIZE)
		return -EIO;	/* another layout than ours */
	memcpy(&in->shared_t, h + OT_INJ_R_SHARED, 8);
	memcpy(&v, h + OT_INJ_R_SHARED_LEN, 8);
	in->shared_len = (size_t)v;
	memcpy(&in->rt_ret, h + OT_INJ_R_RET, 8);
	if (np > OT_INJ_MAX_FUNCS + 2 || nr > OT_INJ_MAX_FUNCS + 2 || ns > OT_INJ_MAX_FUNCS)
		return -EIO;
	in->reg = ot_xcalloc(nr + 1, sizeof(*in->reg));
	in->patches = ot_xcalloc(np + 1, sizeof(*in->patches));
	table += OT_INJ_R_HEAD;
	for (i = 0; i < nr; i++, table += OT_INJ_R_REG_SIZE) {
		uint64_t e[2];

		if (ot_tracee_read(in->t, table, e, sizeof(e)))
			return -EIO;
		in->reg[i].addr = e[0];
		in->reg[i].size = (size_t)e[1];
		in->info.code_bytes += e[1];
		in->nreg++;
	}
	for (i = 0; i < np; i++, table += OT_INJ_R_PATCH_SIZE) {
		uint8_t e[OT_INJ_R_PATCH_SIZE];

		if (ot_tracee_read(in->t, table, e, sizeof(e)))
			return -EIO;
		memcpy(&in->patches[i].addr, e, 8);
		memcpy(in->patches[i].orig, e + 8, OT_PATCH_LEN);
		memcpy(in->patches[i].jmp, e + 16, OT_PATCH_LEN);
		in->npatches++;
	}
	in->semas = ot_xcalloc(ns + 1, sizeof(*in->semas));
	for (i = 0; i < ns; i++, table += OT_INJ_R_SEMA_SIZE, in->nsemas++)
		if (ot_tracee_read(in->t, table, &in->semas[i], 8))
			return -EIO;
	in->info.private_bytes = in->priv ? OT_INJ_PRIV_SIZE : 0;
	in->info.shared_bytes = in->shared_len;
	return 0;
}

/*
 * Put patch pa back if the file agrees: its saved bytes must be the
 * file's, and the process must hold the jump (or the bytes already).
 * 1 restored, 0 nothing to do, -1 kept with why.
 */
static int unpatch(struct ot_inject *in, const struct patch *pa, char *why, size_t whylen)
{
	uint8_t now[OT_PATCH_LEN], file[OT_PATCH_LEN];
	size_t i;

	for (i = 0; i < in->nmaps; i++)
		if (in->maps[i].path[0] == '/' && pa->addr >= in->maps[i].lo &&
		    pa->addr + OT_PATCH_LEN <= in->maps[i].hi)
			break;
	if (ot_tracee_read(in->t, pa->addr, now, sizeof(now)))
		return 0;	/* no longer mapped */
	if (!memcmp(now, pa->orig, sizeof(now)))
		return 0;
	if (i == in->nmaps) {
		snprintf(why, whylen, "0x%" PRIx64 " is in no file", pa->addr);
		return -1;
	}
	/* The file the process maps, proven so: a name it may have pointed
	 * at a FIFO or another file since would hang or mislead us. */
	if (ot_mapfile_pread(inject_live_tid(in), &in->maps[i],
			     pa->addr - in->maps[i].lo + in->maps[i].off, file,
			     sizeof(file)) != (ssize_t)sizeof(file) ||
	    memcmp(file, pa->orig, sizeof(file)) || memcmp(now, pa->jmp, sizeof(now))) {
		snprintf(why, whylen, "the bytes at %s+0x%" PRIx64 " are neither its patch nor "
			 "the file's", in->maps[i].path, pa->addr - in->maps[i].lo + in->maps[i].off);
		return -1;
	}
	return ot_tracee_write(in->t, pa->addr, pa->orig, OT_PATCH_LEN) ? -1 : 1;
}

/* What ot_inject_recover and ot_inject_forked share; ours: the table is
 * this orbit-trace's (a forked child's copy), its owner's mutex held. */
static int recover(pid_t pid, struct ot_tracee *t, struct ot_inject_recovery *out, int ours)
{
	struct ot_inject *in = ot_xcalloc(1, sizeof(*in));
	uint64_t table;
	uint32_t tracer = 0, owner = 0;
	size_t i;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	in->pid = pid;
	in->t = t;
	in->memfd = in->file_fd = -1;
	in->unwind_file.fd = -1;
	if ((ret = inject_read_maps(in)) || !(table = leftover_table(in)))
		goto out;
	ret = read_table(in, table, &tracer);
	if (ret)
		goto out;
	out->found = 1;
	out->tracer = (pid_t)tracer;
	/* Its owner mutex: held still, the orbit-trace that wrote it lives. */
	if (!ours && in->shared_t && !ot_tracee_read(t, in->shared_t + OT_INJ_H_OWNER, &owner, 4) &&
	    (owner & OT_INJ_OWNER_TID)) {
		ret = -EBUSY;
		goto out;
	}
	out->patches = in->npatches;
	for (i = 0; i < in->npatches; i++) {
		int r = unpatch(in, &in->patches[i], out->why, sizeof(out->why));

		out->restored += r > 0;
		out->kept += r < 0;
	}
	in->npatches = 0;
	out->semaphores = in->nsemas;
	out->semaphores_lowered = in->nsemas - inject_semas_add(in, -1);
	/* Code a patch still leads to stays: a thread may run it. */
	if (out->kept) {
		out->left_bytes = in->info.code_bytes + in->info.private_bytes + in->info.shared_bytes;
		out->left_why = "a patch could not be taken back";
		goto out;
	}
	inject_take_back(in);
	out->returns_restored = in->info.returns_restored;
	out->left_bytes = in->info.left_bytes;
	out->left_why = in->info.left_why;
	out->unmapped_bytes = in->info.code_bytes + in->info.private_bytes +
			      in->info.shared_bytes - in->info.left_bytes;
out:
	inject_state_free(in);
	return ret;
}

/* Whether one of pa's bytes is at one of the n places (file, offset). */
static int patch_at(const struct ot_inject *in, const struct patch *pa, const struct stat *st,
		    const uint64_t *offs, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		const struct ot_proc_map *m = st[k].st_ino ?
			ot_proc_maps_text(in->maps, in->nmaps, st[k].st_dev, st[k].st_ino, offs[k]) : NULL;
		uint64_t a = m ? m->lo + offs[k] - m->off : 0;

		if (m && a + 1 > pa->addr && a < pa->addr + (pa->covered ? pa->covered : OT_PATCH_LEN))
			return 1;
	}
	return 0;
}

int ot_inject_patches_any(pid_t pid, const char *const *paths, const uint64_t *offs, size_t n)
{
	struct ot_inject *in = ot_xcalloc(1, sizeof(*in));
	struct stat *st = ot_xcalloc(n + 1, sizeof(*st));
	struct ot_tracee t;
	uint64_t table;
	uint32_t tracer;
	size_t i;
	int ret;

	/* Not held: its memory read through /proc/PID/mem as it runs. */
	memset(&t, 0, sizeof(t));
	t.pid = pid;
	t.mem_fd = -1;
	in->pid = pid;
	in->t = &t;
	in->memfd = in->file_fd = -1;
	for (i = 0; i < n; i++)
		if (stat(paths[i], &st[i]))
			st[i].st_ino = 0;
	ret = inject_read_maps(in);
	if (!ret)
		ret = (table = leftover_table(in)) ? read_table(in, table, &tracer) : -ENOENT;
	for (i = 0; !ret && i < in->npatches; i++)
		if (patch_at(in, &in->patches[i], st, offs, n))
			ret = 1;
	if (t.mem_fd >= 0)
		close(t.mem_fd);
	inject_state_free(in);
	free(st);
	return ret == -ENOENT ? 0 : ret;
}

int ot_inject_recover(pid_t pid, struct ot_tracee *t, struct ot_inject_recovery *out)
{
	return recover(pid, t, out, 0);
}

int inject_recover_child(pid_t pid, struct ot_tracee *t, struct ot_inject_recovery *out)
{
	return recover(pid, t, out, 1);
}
