/*
 * inject_unwind.c - C++ exceptions through inject's trampolines
 * (inject_unwind.h): the unwind entry per thread slot, the unwinders hooked,
 * which files have EH tables.
 */
#include "inject_unwind.h"
#include "symbols/elfsym.h"
#include "inject_layout.h"
#include "inject_state.h"
#include "util/xalloc.h"
#include "arch/arch.h"

#include <stdio.h>
#include <string.h>

/* ---- the unwind entry ---- */

static size_t uleb(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		p[n++] = (uint8_t)(b | (v ? 0x80 : 0));
	} while (v);
	return n;
}

/* DW_OP_bra / DW_OP_skip at *p (its 2-byte operand at p + 1) to target. */
static void branch(uint8_t *expr, size_t at, size_t target)
{
	int16_t d = (int16_t)((long)target - (long)(at + 3));

	memcpy(expr + at + 1, &d, sizeof(d));
}

/*
 * The return address of the pseudo-frame at ot_inj_rt_ret: in the table,
 * the entry whose key is the slot just below the caller's SP (CFA - 8).
 * The same open addressing as rt_lookup, as a DWARF expression (a loop:
 * DW_OP_bra and DW_OP_skip); 0 if absent, which ends the unwinding.
 */
static size_t ra_expression(uint8_t *e, uint64_t table)
{
	size_t n = 0, loop, bra_check, skip_end, check, bra_found, skip_loop, found;

	/* The CFA stays at the bottom: libgcc's DW_OP_pick cannot reach the
	 * deepest element (it asserts offset < depth - 1). */
	e[n++] = 0x12;		/* dup */
	e[n++] = 0x40;		/* lit16 */
	e[n++] = 0x1c;		/* minus: [cfa, key = CFA - 16] */
	e[n++] = 0x12;		/* dup */
	e[n++] = 0x30 + OT_INJ_KEY_SHIFT;	/* lit: the key shift */
	e[n++] = 0x25;		/* shr */
	e[n++] = 0x10;		/* constu mask */
	n += uleb(e + n, OT_INJ_TABLE_MASK);
	e[n++] = 0x1a;		/* and: [key, h] */
	loop = n;
	e[n++] = 0x12;		/* dup */
	e[n++] = 0x30 + OT_INJ_ENT_SHIFT;	/* lit: the entry size shift */
	e[n++] = 0x24;		/* shl */
	e[n++] = 0x03;		/* addr table */
	memcpy(e + n, &table, 8);
	n += 8;
	e[n++] = 0x22;		/* plus: [key, h, &e] */
	e[n++] = 0x12;		/* dup */
	e[n++] = 0x06;		/* deref: [key, h, &e, ekey] */
	e[n++] = 0x12;		/* dup */
	bra_check = n;
	e[n++] = 0x28;		/* bra check (ekey != 0) */
	n += 2;
	e[n++] = 0x13;		/* drop x5: not found */
	e[n++] = 0x13;
	e[n++] = 0x13;
	e[n++] = 0x13;
	e[n++] = 0x13;
	e[n++] = 0x30;		/* lit0 */
	skip_end = n;
	e[n++] = 0x2f;		/* skip end */
	n += 2;
	check = n;
	e[n++] = 0x15;		/* pick 3: key, of [cfa, key, h, &e, ekey] */
	e[n++] = 3;
	e[n++] = 0x29;		/* eq */
	bra_found = n;
	e[n++] = 0x28;		/* bra found */
	n += 2;
	e[n++] = 0x13;		/* drop: [key, h] */
	e[n++] = 0x31;		/* lit1 */
	e[n++] = 0x22;		/* plus */
	e[n++] = 0x10;		/* constu mask */
	n += uleb(e + n, OT_INJ_TABLE_MASK);
	e[n++] = 0x1a;		/* and */
	skip_loop = n;
	e[n++] = 0x2f;		/* skip loop */
	n += 2;
	found = n;
	e[n++] = 0x23;		/* plus_uconst: &e.ret */
	e[n++] = OT_INJ_E_RET;
	e[n++] = 0x06;		/* deref: [cfa, key, h, ret] */
	e[n++] = 0x16;		/* (swap, drop) x3: [ret] */
	e[n++] = 0x13;
	e[n++] = 0x16;
	e[n++] = 0x13;
	e[n++] = 0x16;
	e[n++] = 0x13;
	branch(e, bra_check, check);
	branch(e, skip_end, n);
	branch(e, bra_found, found);
	branch(e, skip_loop, loop);
	return n;
}

size_t ot_inject_fde(uint8_t *out, size_t size, uint64_t table, uint64_t lo, uint64_t len)
{
	uint8_t expr[96], buf[256];
	size_t elen = ra_expression(expr, table), n = 4, cie_len, fde, fde_len;
	uint32_t v;

	/* CIE: version 1, "zR" (FDE addresses absolute), code 1, data and RA
	 * column the machine's (x86-64: -8, 16). */
	memset(buf, 0, sizeof(buf));
	v = 0;
	memcpy(buf + n, &v, 4);		/* CIE id */
	n += 4;
	buf[n++] = 1;
	memcpy(buf + n, "zR", 3);
	n += 3;
	buf[n++] = 1;			/* code alignment */
	buf[n++] = (uint8_t)(OT_ARCH_DWARF_DATA_ALIGN & 0x7f);	/* data alignment (sleb128) */
	buf[n++] = OT_ARCH_DWARF_RA;	/* return address column */
	buf[n++] = 1;			/* augmentation data: */
	buf[n++] = 0x00;		/* DW_EH_PE_absptr */
	/*
	 * The CFA is the SP at the trampoline + 8, and the caller's SP that
	 * SP (val_offset SP, CFA - 8): unwinders tell frames apart by CFA,
	 * and libgcc's phase 2 would take this frame, whose CFA would
	 * otherwise be its caller's identity, for the handler's.
	 */
	buf[n++] = 0x0c;		/* def_cfa SP + 8 */
	buf[n++] = OT_ARCH_DWARF_SP;
	buf[n++] = OT_ARCH_CFA_FROM_SP;
	buf[n++] = 0x14;		/* val_offset SP: CFA + 1 * data alignment */
	buf[n++] = OT_ARCH_DWARF_SP;
	buf[n++] = 1;
	buf[n++] = 0x16;		/* val_expression of the return address */
	buf[n++] = OT_ARCH_DWARF_RA;
	n += uleb(buf + n, elen);
	memcpy(buf + n, expr, elen);
	n += elen;
	while (n % 8)
		buf[n++] = 0;		/* DW_CFA_nop */
	cie_len = n;
	v = (uint32_t)(cie_len - 4);
	memcpy(buf, &v, 4);
	/* FDE: [lo, lo + len), no instructions of its own. */
	fde = n;
	n += 4;
	v = (uint32_t)(n - 0);		/* CIE pointer: back to the CIE at 0 */
	memcpy(buf + n, &v, 4);
	n += 4;
	memcpy(buf + n, &lo, 8);
	n += 8;
	memcpy(buf + n, &len, 8);
	n += 8;
	buf[n++] = 0;			/* augmentation data length */
	while (n % 8)
		buf[n++] = 0;
	fde_len = n - fde;
	v = (uint32_t)(fde_len - 4);
	memcpy(buf + fde, &v, 4);
	/* A zero terminator: readers walking a section stop there. */
	n += 4;
	if (n > size)
		return 0;
	memcpy(out, buf, n);
	return fde;
}

/* Files with C++ exception tables among the mapped ones, or NULL: each
 * read as the process maps it (a container's, never ours by its name);
 * one that cannot be proven to be the mapped file counts as having them. */
const char *inject_mapped_eh(const struct ot_inject *in)
{
	struct ot_mapfile f;
	size_t i, k;
	int eh;

	for (i = 0; i < in->nmaps; i++) {
		const struct ot_proc_map *m = &in->maps[i];

		if (m->perms[2] != 'x' || m->path[0] != '/')
			continue;
		for (k = 0; k < i; k++)
			if (in->maps[k].ino == m->ino && in->maps[k].dev == m->dev)
				break;
		if (k < i)
			continue;
		/* One that cannot be read may have them: counted as having them,
		 * an exception through a traced frame would abort the program. */
		if (ot_mapfile_open(inject_live_tid(in), m, &f, NULL, 0))
			return m->path;
		eh = ot_elf_file_has_section(f.path, ".gcc_except_table") > 0;
		ot_mapfile_close(&f);
		if (eh)
			return m->path;
	}
	return NULL;
}

/* The unwinders to hook into hooks[]: libgcc's (the one the process maps,
 * held in in->unwind_file), and one linked into the program.  Returns how
 * many (their paths are ours to free). */
size_t inject_unwinders(struct ot_inject *in, struct ot_inject_fn *hooks)
{
	const struct ot_proc_map *gcc = ot_proc_maps_lib(in->maps, in->nmaps, "libgcc_s.so");
	char exe[64];
	size_t i, nhook = 0;

	snprintf(exe, sizeof(exe), "/proc/%d/task/%d/exe", (int)in->pid, (int)inject_live_tid(in));
	memset(hooks, 0, 2 * sizeof(*hooks));
	ot_mapfile_close(&in->unwind_file);
	if (gcc && !ot_mapfile_open(inject_live_tid(in), gcc, &in->unwind_file, NULL, 0)) {
		hooks[nhook].path = ot_xstrdup(in->unwind_file.path);
		hooks[nhook++].label = gcc->path;
	}
	hooks[nhook].path = ot_xstrdup(exe);
	hooks[nhook++].label = "the program";
	for (i = 0; i < nhook; i++) {
		uint64_t size;

		if (ot_elf_lookup(hooks[i].path, "_Unwind_Find_FDE", &hooks[i].offset, &size,
				  NULL, 0) || !size)
			hooks[i].refused = "no _Unwind_Find_FDE";
		hooks[i].size = size;
	}
	return nhook;
}
