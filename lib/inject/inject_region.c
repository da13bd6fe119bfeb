/*
 * inject_region.c - inject's memory in the traced process (inject_region.h):
 * code regions near the patched files, the private and shared regions, the
 * runtime's constants.
 */
#include "inject_region.h"
#include "inject_pad.h"
#include "inject_recover.h"
#include "util/error.h"
#include "inject_state.h"
#include "inject_unwind.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- regions ---- */

/* A system call in the process: the runtime's gadget once it is there. */
long inject_sys(struct ot_inject *in, long nr, long a, long b, long c, long d, long e, long f)
{
	long args[6] = { a, b, c, d, e, f };

	return ot_tracee_syscall(in->t, nr, args);
}

/* The index of the code region for text, added if new. */
size_t inject_region_for(struct ot_inject *in, const struct ot_proc_map *text)
{
	size_t i;

	for (i = 0; i < in->nreg; i++)
		if (in->reg[i].text->ino == text->ino && in->reg[i].text->dev == text->dev)
			return i;
	in->reg = ot_xreallocarray(in->reg, in->nreg + 1, sizeof(*in->reg));
	memset(&in->reg[in->nreg], 0, sizeof(*in->reg));
	in->reg[in->nreg].text = text;
	return in->nreg++;
}

static size_t page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

/* The runtime written into the first region, its gadget in use: 0, or
 * -errno after printing. */
static int gadget_ready(struct ot_inject *in)
{
	int ret = ot_tracee_write(in->t, in->reg[0].addr, in->reg[0].buf, in->reg[0].size);

	if (ret) {
		ot_error_errno(-ret, "cannot write into process %d", (int)in->pid);
		return ret;
	}
	in->t->gadget = in->rt + RT_OFF(ot_inj_rt_syscall);
	in->t->gadget_saved = in->rt + RT_OFF(ot_inj_rt_saved);
	/* The padding lent for the first mmap, as it was. */
	inject_pad_clear(in);
	return 0;
}

/* Map every code region, near its text; the first holds the runtime. */
static int map_regions(struct ot_inject *in, const size_t *need)
{
	size_t i, rt_len = (size_t)(ot_inj_rt_end - ot_inj_rt_start);

	for (i = 0; i < in->nreg; i++) {
		struct region *r = &in->reg[i];
		const char *why;

		r->size = page_round(REG_HEAD + (i ? 0 : rt_len) + need[i]);
		r->addr = ot_tracee_mmap_near(in->t, r->text->lo, r->size, PROT_READ | PROT_EXEC,
					      &why);
		if (!r->addr) {
			ot_error("cannot inject into process %d: no memory for trampolines near %s: %s",
				 (int)in->pid, r->text->path, why);
			return -ENOMEM;
		}
		r->buf = ot_xcalloc(1, r->size);
		r->used = REG_HEAD;
		if (!i) {
			in->rt = r->addr + REG_HEAD;
			in->rt_ret = in->rt + RT_OFF(ot_inj_rt_ret);
			memcpy(r->buf + REG_HEAD, ot_inj_rt_start, rt_len);
			memcpy(r->buf + REG_NAME, "orbit-trace", 12);
			r->used += (rt_len + 15) & ~(size_t)15;
			/* From now on system calls run at the gadget: no code of
			 * the process is rewritten for them, and a tracer killed
			 * during one leaves the thread as it was. */
			int ret = gadget_ready(in);

			if (ret)
				return ret;
		}
		in->info.code_bytes += r->size;
	}
	for (i = 0; i < in->nreg; i++) {
		uint64_t entry = in->rt + RT_OFF(ot_inj_rt_entry), fde = in->rt + RT_OFF(ot_inj_rt_find_fde);
		uint64_t point = in->rt + RT_OFF(ot_inj_rt_point);
		uint64_t exit = in->rt + RT_OFF(ot_inj_rt_exit);

		memcpy(in->reg[i].buf + REG_ENTRY_SLOT, &entry, 8);
		memcpy(in->reg[i].buf + REG_FDE_SLOT, &fde, 8);
		memcpy(in->reg[i].buf + REG_POINT_SLOT, &point, 8);
		memcpy(in->reg[i].buf + REG_EXIT_SLOT, &exit, 8);
	}
	in->info.regions = in->nreg;
	return 0;
}

/*
 * A recovery table of what is mapped so far, no patch yet, written into
 * the first region where the full one will go: killed before that, a
 * later orbit-trace (--restore) still finds every region to unmap.
 */
static void table_so_far(struct ot_inject *in)
{
	size_t used = in->reg[0].used, np = in->npatches, ns = in->nsemas;

	in->npatches = in->nsemas = 0;
	inject_recovery_table(in);
	in->npatches = np;
	in->nsemas = ns;
	in->reg[0].used = used;
	ot_tracee_write(in->t, in->reg[0].addr, in->reg[0].buf, in->reg[0].size);
}

/* The private and shared regions; the shared one mapped here too. */
static int map_data(struct ot_inject *in)
{
	size_t ring = in->o.ring_kb * 1024, area = OT_INJ_A_RING + ring;
	long fd, got;
	int ours;

	in->priv = (uint64_t)inject_sys(in, SYS_mmap, 0, OT_INJ_PRIV_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if ((int64_t)in->priv < 0 && (int64_t)in->priv > -4096) {
		ot_error_errno((int)-(int64_t)in->priv, "cannot inject into process %d: cannot map "
			       "%zu MB for its threads' return tables", (int)in->pid,
			       (size_t)OT_INJ_PRIV_SIZE >> 20);
		in->priv = 0;
		return -ENOMEM;
	}
	in->info.private_bytes = OT_INJ_PRIV_SIZE;
	table_so_far(in);
	in->shared_len = OT_INJ_HDR_SIZE + (size_t)in->o.nareas * area;
	fd = inject_sys(in, SYS_memfd_create, (long)(in->reg[0].addr + REG_NAME), MFD_CLOEXEC, 0, 0, 0, 0);
	if (fd < 0) {
		ot_error_errno((int)-fd, "cannot inject into process %d: memfd_create there failed",
			       (int)in->pid);
		return (int)fd;
	}
	got = inject_sys(in, SYS_ftruncate, fd, (long)in->shared_len, 0, 0, 0, 0);
	if (!got)
		got = inject_sys(in, SYS_mmap, 0, (long)in->shared_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			  fd, 0);
	if (got < 0 && got > -4096) {
		ot_error_errno((int)-got, "cannot inject into process %d: cannot map its %zu MB of "
			       "rings", (int)in->pid, in->shared_len >> 20);
		inject_sys(in, SYS_close, fd, 0, 0, 0, 0, 0);
		return (int)got;
	}
	in->shared_t = (uint64_t)got;
	/* Its memfd, here: from its fd table (pidfd_getfd), else by /proc. */
	ours = in->o.pidfd >= 0 ? (int)syscall(SYS_pidfd_getfd, in->o.pidfd, (int)fd, 0) : -1;
	if (ours < 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/task/%d/fd/%ld", (int)in->pid, (int)inject_live_tid(in), fd);
		ours = open(path, O_RDWR | O_CLOEXEC);
	}
	inject_sys(in, SYS_close, fd, 0, 0, 0, 0, 0);
	if (ours < 0) {
		ot_error_errno(errno, "cannot inject into process %d: cannot open its rings' memfd",
			       (int)in->pid);
		return -errno;
	}
	in->memfd = ours;
	in->shared = mmap(NULL, in->shared_len, PROT_READ | PROT_WRITE, MAP_SHARED, ours, 0);
	if (in->shared == MAP_FAILED) {
		in->shared = NULL;
		ot_error_errno(errno, "cannot map the rings of process %d", (int)in->pid);
		return -errno;
	}
	in->info.shared_bytes = in->shared_len;
	return 0;
}

/*
 * The owner mutex in the shared header, locked by this thread (which
 * lives as long as orbit-trace): robust, so that the kernel marks its
 * owner dead when orbit-trace ends without unlocking - killed - and the
 * runtime, reading its word, stops recording.
 */
static int hold_owner(struct ot_inject *in)
{
	pthread_mutex_t *m = (pthread_mutex_t *)((uint8_t *)in->shared + OT_INJ_H_OWNER);
	pthread_mutexattr_t a;
	int err;

	_Static_assert(sizeof(pthread_mutex_t) <= OT_INJ_H_STEAL - OT_INJ_H_OWNER,
		       "the owner mutex fits the shared header");
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	err = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	if (!err)
		err = pthread_mutex_lock(m);
	if (err) {
		ot_error_errno(err, "cannot set up the rings of process %d", (int)in->pid);
		return -err;
	}
	in->owner = m;
	return 0;
}

/* The slots and FDEs of the private region, and the shared header. */
static int init_data(struct ot_inject *in)
{
	size_t len = OT_INJ_PRIV_TABLES, i;
	uint8_t *img = ot_xcalloc(1, len);
	uint64_t lo = in->rt + RT_OFF(ot_inj_rt_ret_lo);
	uint64_t span = RT_OFF(ot_inj_rt_ret_end) - RT_OFF(ot_inj_rt_ret_lo);
	uint8_t *h = in->shared;
	uint64_t magic = OT_INJ_MAGIC;
	uint32_t nareas = in->o.nareas;
	int ret;

	for (i = 0; i < OT_INJ_NSLOTS; i++) {
		uint8_t *slot = img + i * OT_INJ_SLOT_SIZE;
		uint64_t table = in->priv + OT_INJ_PRIV_TABLES + i * (uint64_t)OT_INJ_TABLE_SIZE;
		uint64_t fde_at = OT_INJ_PRIV_FDES + i * OT_INJ_FDE_SIZE;
		size_t fde = ot_inject_fde(img + fde_at, OT_INJ_FDE_SIZE, table, lo, span);
		uint64_t fde_addr = in->priv + fde_at + fde;

		if (!fde) {
			free(img);
			ot_error("internal error: the unwind entry does not fit %d bytes", OT_INJ_FDE_SIZE);
			return -EOVERFLOW;
		}
		memcpy(slot + OT_INJ_PS_TABLE, &table, 8);
		memcpy(slot + OT_INJ_PS_FDE, &fde_addr, 8);
	}
	ret = ot_tracee_write(in->t, in->priv, img, len);
	free(img);
	if (ret) {
		ot_error_errno(-ret, "cannot write into process %d", (int)in->pid);
		return ret;
	}
	memcpy(h + OT_INJ_H_NAREAS, &nareas, 4);
	memcpy(h + OT_INJ_H_MAGIC, &magic, 8);
	return hold_owner(in);
}

/* Fill the runtime's constants in its copy. */
static void set_constants(struct ot_inject *in)
{
	uint8_t *rt = in->reg[0].buf + REG_HEAD;
	uint64_t areas = in->shared_t + OT_INJ_HDR_SIZE;
	uint64_t mask = in->o.ring_kb * 1024 / OT_INJ_REC_SIZE - 1, quarter = (mask + 1) / 4 - 1;
	uint64_t area_bytes = OT_INJ_A_RING + in->o.ring_kb * 1024;
	uint32_t nareas = in->o.nareas, clock = (uint32_t)in->clock, fsb = (uint32_t)in->fsbase;

	memcpy(rt + RT_OFF(ot_inj_rt_priv), &in->priv, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_shared), &in->shared_t, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_areas), &areas, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_vdso), &in->vdso_fn, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_ring_mask), &mask, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_area_bytes), &area_bytes, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_quarter), &quarter, 8);
	memcpy(rt + RT_OFF(ot_inj_rt_tid_off), &in->tid_off, 4);
	memcpy(rt + RT_OFF(ot_inj_rt_nareas), &nareas, 4);
	memcpy(rt + RT_OFF(ot_inj_rt_clock), &clock, 4);
	memcpy(rt + RT_OFF(ot_inj_rt_fsbase), &fsb, 4);
}

/* The regions (code, private, shared), mapped and set up in the process;
 * the first one, holding the system call gadget, written at once. */
int inject_map_all(struct ot_inject *in, const struct plan *pl, size_t n, size_t npatches)
{
	size_t *need = ot_xcalloc(in->nreg + 1, sizeof(*need)), i;
	int ret;

	for (i = 0; i < n; i++)
		if (pl[i].reg != SIZE_MAX)
			need[pl[i].reg] += pl[i].reserve;
	need[0] += OT_INJ_R_SIZE(in->nreg, npatches, npatches);
	/* Nothing of ours is mapped yet: the first region's mmap runs at a
	 * gadget lent by a file's padding (without one, stepped at the
	 * thread's own instruction: a kill then leaves it a SIGTRAP). */
	inject_pad_set(in);
	ret = map_regions(in, need);
	inject_pad_clear(in);
	free(need);
	if (ret)
		return ret;
	/* Again, with every region's slots. */
	ret = ot_tracee_write(in->t, in->reg[0].addr, in->reg[0].buf, in->reg[0].size);
	if (ret) {
		ot_error_errno(-ret, "cannot write into process %d", (int)in->pid);
		return ret;
	}
	table_so_far(in);
	ret = map_data(in);
	if (!ret)
		table_so_far(in);
	if (!ret)
		ret = init_data(in);
	if (!ret)
		set_constants(in);
	return ret;
}
