/*
 * ehframe.h - the .eh_frame and LSDA reader: every FDE's code range and
 * LSDA, and every landing pad of an LSDA's call-site table, read from the
 * section bytes the caller holds, as the unwinder and gcc's
 * __gxx_personality_v0 read them.
 *
 * Ours rather than libdw's dwarf_getcfi: libdw answers "the CFI row for
 * this address" (a row's range, not the FDE's), and has no LSDA reader;
 * lib/symbols/coderefs needs the FDEs' own bounds and every landing pad.
 *
 * Contract: pure (reads only the bytes given), prints nothing, never
 * exits, allocates nothing.  Addresses are the file's link-time virtual
 * addresses; x86-64's little-endian 8-byte pointers.  Pointer encodings
 * read: absptr, [us]leb128, [us]data2/4/8, plain or pcrel; any other base
 * (textrel, datarel, funcrel, aligned) or indirect is "cannot be read":
 * guessing its base would guess landing pads.
 */
#ifndef OT_EHFRAME_H
#define OT_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

/* A section's bytes as loaded at vaddr. */
struct ot_eh_bytes {
	const uint8_t *b;
	uint64_t vaddr;
	size_t size;
};

/* What ot_eh_frame_walk tells its caller, each with arg. */
struct ot_eh_visit {
	/* An FDE covering [lo, hi), at entry (its length field's address);
	 * lsda its LSDA's address, 0 for none. */
	void (*fde)(void *arg, uint64_t entry, uint64_t lo, uint64_t hi, uint64_t lsda);
	/* The entry at at cannot be read (its CIE, its encodings, its
	 * length); fde_lo the FDE's start when known, else 0.  A bad length
	 * ends the walk (what follows cannot be found), others do not. */
	void (*bad)(void *arg, uint64_t at, uint64_t fde_lo);
	void *arg;
};

/*
 * Every FDE of .eh_frame eh, walked as the unwinder's linear search does:
 * past a zero terminator too, since .eh_frame_hdr's table may point there.
 */
void ot_eh_frame_walk(const struct ot_eh_bytes *eh, const struct ot_eh_visit *v);

/*
 * The call-site table of the LSDA at lsda in s (the section holding it),
 * for the FDE starting at start (the landing pads' base unless LPStart
 * says otherwise): pad(arg, landing pad, its call-site entry's address)
 * for each entry with a landing pad.  0, or -1 when it cannot be read
 * (pads already given stand; the rest are unknown).
 */
int ot_eh_lsda_pads(const struct ot_eh_bytes *s, uint64_t lsda, uint64_t start,
		    void (*pad)(void *arg, uint64_t lp, uint64_t at), void *arg);

#endif
