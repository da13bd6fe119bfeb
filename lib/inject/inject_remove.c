/*
 * inject_remove.c - what inject put in a process taken back once its entries
 * are restored (inject_remove.h): threads stepped out of our code, hijacked
 * return addresses put back, our regions unmapped or kept, saying why.
 */
#include "inject_remove.h"
#include "inject_region.h"
#include "inject_pad.h"
#include "inject_state.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

/* Why memory stays when no gadget could be lent (inject_pad.h). */
#define NO_PAD "no file's padding could lend the munmap a gadget (the code is restored; " \
	       "the regions stay, unused)"

/*
 * Whether entry k of a table is the one the runtime finds for its key:
 * the first with that key from the key's home on (linear probing).  A
 * signal handler's longjmp out of the runtime midway through a deletion
 * can leave a second, stale copy further on.
 */
static int first_of_key(const uint8_t *table, size_t k, uint64_t key)
{
	size_t i = (size_t)(key >> OT_INJ_KEY_SHIFT) & OT_INJ_TABLE_MASK, n;

	for (n = 0; n < (1u << OT_INJ_TABLE_BITS); n++, i = (i + 1) & OT_INJ_TABLE_MASK) {
		uint64_t at;

		memcpy(&at, table + i * OT_INJ_ENT_SIZE + OT_INJ_E_KEY, 8);
		if (at == key)
			return i == k;
		if (!at)
			return 0;
	}
	return 0;
}

/* Put back every return address a thread's table still holds on its stack. */
static void restore_returns(struct ot_inject *in)
{
	uint64_t ret = in->rt_ret;
	uint8_t *slots = ot_xmalloc(OT_INJ_PRIV_FDES), *table = ot_xmalloc(OT_INJ_TABLE_SIZE);
	size_t i, k;

	if (ot_tracee_read(in->t, in->priv, slots, OT_INJ_PRIV_FDES))
		goto out;
	for (i = 0; i < OT_INJ_NSLOTS; i++) {
		const uint8_t *slot = slots + i * OT_INJ_SLOT_SIZE;
		uint64_t key, count, tab;

		memcpy(&key, slot + OT_INJ_PS_KEY, 8);
		memcpy(&count, slot + OT_INJ_PS_COUNT, 8);
		memcpy(&tab, slot + OT_INJ_PS_TABLE, 8);
		if (!key || !count || ot_tracee_read(in->t, tab, table, OT_INJ_TABLE_SIZE))
			continue;
		for (k = 0; k < (1u << OT_INJ_TABLE_BITS); k++) {
			const uint8_t *e = table + k * OT_INJ_ENT_SIZE;
			uint64_t at, orig, now;

			memcpy(&at, e + OT_INJ_E_KEY, 8);
			memcpy(&orig, e + OT_INJ_E_RET, 8);
			/* A frame gone without returning may have left its slot
			 * to other data, or unmapped: only our address is ours. */
			if (!at || !first_of_key(table, k, at) ||
			    ot_tracee_read(in->t, at, &now, 8) || now != ret)
				continue;
			if (!ot_tracee_write(in->t, at, &orig, 8))
				in->info.returns_restored++;
		}
	}
out:
	free(slots);
	free(table);
}

/*
 * Mappings of our rings' memfd the table does not name (a tracer killed
 * between their mmap and the table's next writing): found by its name.
 */
static void unmap_stray_rings(struct ot_inject *in)
{
	size_t i;

	for (i = 0; i < in->nmaps; i++) {
		const struct ot_proc_map *m = &in->maps[i];

		/* Named as the memfd_create in inject_region.c names it. */
		if (strcmp(m->path, "/memfd:orbit-trace") || m->lo == in->shared_t)
			continue;
		if (!inject_sys(in, SYS_munmap, (long)m->lo, (long)(m->hi - m->lo), 0, 0, 0, 0))
			in->info.shared_bytes += m->hi - m->lo;
	}
}

/*
 * Every munmap at a gadget lent by a file's padding: the runtime's own
 * would go with its region, and a recovery (--restore, a capture taking
 * back what a killed one left) has none it wrote.  Without one, a call
 * stepped at the thread's own instruction would leave it a SIGTRAP to die
 * of were we killed then: what only that could unmap stays, unused.
 */
static void unmap_all(struct ot_inject *in)
{
	uint64_t rt = in->t->gadget;	/* the runtime's, while arming's state holds */
	int lent = !inject_pad_set(in);
	size_t i;

	if (!lent && !rt) {
		in->info.left_bytes = in->info.code_bytes + in->info.private_bytes +
				      in->info.shared_bytes;
		in->info.left_why = NO_PAD;
		return;
	}
	unmap_stray_rings(in);
	if (in->shared_t)
		inject_sys(in, SYS_munmap, (long)in->shared_t, (long)in->shared_len, 0, 0, 0, 0);
	if (in->priv)
		inject_sys(in, SYS_munmap, (long)in->priv, OT_INJ_PRIV_SIZE, 0, 0, 0, 0);
	for (i = in->nreg; i > 1; i--)
		inject_sys(in, SYS_munmap, (long)in->reg[i - 1].addr, (long)in->reg[i - 1].size, 0, 0, 0, 0);
	if (in->nreg && !lent) {
		/* The runtime's gadget cannot unmap its own region. */
		in->info.left_bytes = in->reg[0].size;
		in->info.left_why = NO_PAD;
	} else if (in->nreg && inject_sys(in, SYS_munmap, (long)in->reg[0].addr,
					  (long)in->reg[0].size, 0, 0, 0, 0)) {
		in->info.left_bytes = in->reg[0].size;
	}
	inject_pad_clear(in);
	in->t->gadget = in->t->gadget_saved = 0;
}

void inject_take_back(struct ot_inject *in)
{
	uint64_t *lo = ot_xcalloc(in->nreg + 1, sizeof(*lo)), *hi = ot_xcalloc(in->nreg + 1, sizeof(*hi));
	const struct ot_proc_map *gcc;
	size_t i, stuck = 0, in_unwinder = 0;

	for (i = 0; i < in->nreg; i++) {
		lo[i] = in->reg[i].addr;
		hi[i] = in->reg[i].addr + in->reg[i].size;
	}
	inject_read_maps(in);
	gcc = ot_proc_maps_lib(in->maps, in->nmaps, "libgcc_s.so");
	for (i = 0; i < in->t->n; i++) {
		struct user_regs_struct r;

		if (ot_tracee_step_out(in->t, i, lo, hi, in->nreg, 400) > 0)
			stuck++;
		/* An unwinder midway may hold one of the FDEs. */
		if (gcc && !ot_tracee_regs(in->t, i, &r) && ot_ptregs_pc(&r) >= gcc->lo &&
		    ot_ptregs_pc(&r) < gcc->hi)
			in_unwinder++;
	}
	if (in->priv)
		restore_returns(in);
	if (ot_tracee_seccomp(in->t) > 0) {
		/* Installed after arming (inject refuses a process under one):
		 * the code and return addresses are back by ptrace writes; a
		 * munmap could be the call that kills it. */
		in->info.left_bytes = in->info.code_bytes + in->info.private_bytes +
				      in->info.shared_bytes;
		in->info.left_why = "the process runs under seccomp since arming: no system call "
				    "made in it (the code is restored; the regions stay, unused)";
	} else if (stuck || in_unwinder) {
		in->info.left_bytes = in->info.code_bytes + in->info.private_bytes +
				      in->info.shared_bytes;
		in->info.left_why = stuck ? "a thread was in a system call inside a trampoline" :
					    "a thread was unwinding its stack";
	} else {
		unmap_all(in);
		if (in->info.left_bytes && !in->info.left_why)
			in->info.left_why = "the last munmap in the process failed";
	}
	free(lo);
	free(hi);
}
