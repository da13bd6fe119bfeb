/*
 * coderefs.h - everything in an ELF file that can send control into the
 * middle of a range of its code: the proof --backend inject needs before
 * it writes a 5-byte jmp over a USDT site's nop and the whole
 * instructions after it, [lo, hi).  A transfer to lo itself runs the
 * patch; one strictly inside (lo, hi) lands in the middle of the jmp.
 *
 * x86-64 only.  Addresses are the file's link-time virtual addresses.
 * Conservative: what might be a reference counts as one, and a refusal
 * names it.  What counts, each a check of its own (enum ot_coderef):
 *
 *  - REL32: the 4-byte windows at every byte of every executable section
 *    that some instruction can read as a rel32 or RIP-relative
 *    displacement (target = the window's address + 4 + its value): those
 *    right after a call (e8), jmp (e9), jcc (0f 8x) or xbegin (c7 f8)
 *    opcode or a ModRM of mod 00, rm 101.  Bytes, not decoding: every such
 *    field follows one of these wherever instructions start, so no
 *    desync hides one.  Covers call, jmp and jcc rel32 from anywhere in
 *    the file (gcc's .cold parts jump back into their function), and lea
 *    label(%rip) (computed goto in PIC code).  Every window of code, as
 *    first written, refused 22 of the 65 USDT sites of Debian 12's
 *    php8.2, libstdc++, python3.11 and libruby-3.1, for immediates and
 *    displacements of other instructions; these windows refuse 1 (the
 *    SIB byte 0x25 of a %fs:0x28, read as a ModRM).
 *  - REL8: a byte 0xeb, 0x70-0x7f or 0xe0-0xe3 (jmp, jcc, loop, jrcxz
 *    rel8) within reach of the range but outside the containing function's
 *    bounds [func_lo, func_hi).  Inside them, branches are decoded and
 *    refused by lib/arch/x86_64/relocate.c.
 *  - POINTER: every 8-byte value at a 4-aligned address of an allocated,
 *    non-executable section (.data, .data.rel.ro, .rodata, .init_array,
 *    .dynsym's values, .dynamic's DT_INIT...): absolute code pointers,
 *    computed-goto label tables, non-PIC switch tables; with DT_RELR the
 *    loader adds the load address to values the file holds.
 *  - RELOC: the pointer a dynamic relocation writes: a RELATIVE's
 *    and IRELATIVE's addend, a 64-bit absolute one's symbol defined here plus
 *    addend (with RELA a PIE's slot holds 0, the address is the addend).
 *  - ABS32: in a non-PIE file (ET_EXEC), every 4-byte window of code (mov
 *    $label,%eax) and every 4-aligned one of data read as an address.
 *  - TABLE: PIC switch tables, int32 entries relative to the table's start
 *    (gcc and clang: lea table(%rip),%rdx; movslq (%rdx,%rax,4),%rax; add
 *    %rdx,%rax; jmp *%rax).  Every REL32 of a lea (8d before the ModRM)
 *    landing in an allocated non-executable section is a table's possible
 *    start; its entries are read while they land in executable sections,
 *    65536 at most, and to the next 4-aligned start unless the entry
 *    there still lands in the function part (FDE) of the first (compilers
 *    lay tables back to back; a lea-like byte pattern landing inside a
 *    table must not cut it short).
 *  - LANDING_PAD: every C++ exception landing pad of every FDE of
 *    .eh_frame with an LSDA (.gcc_except_table), pointer encodings absptr,
 *    [us]leb128, [us]data2/4/8, plain or pcrel (read by lib/symbols/ehframe).
 *  - BAD_LSDA: an LSDA (or .eh_frame itself) that cannot be read: its
 *    landing pads are unknown, so every range of the file is refused.
 *  - ENTRY: the ELF entry point.
 *
 * Not seen: tables inside executable sections whose entries are relative
 * to the table (hand-written assembly), a table entry past a lea-like
 * byte pattern landing inside it that lands in another FDE than the
 * table's first entry (a .cold part), addresses computed at run time
 * (pointer arithmetic, JIT code), and threads stopped inside (lo, hi) or
 * returning into it from a call in the patched bytes: the patching code's
 * and relocate.c's to refuse.
 *
 * Contract: reads the file with libelf, prints nothing, never exits.
 * Out of memory aborts (util/xalloc.h).  The file is read once at open
 * (php8.2 in 0.03 s, libLLVM-14 in 0.4 s, 8 bytes a reference kept);
 * each query is a binary search per check, plus a scan of 260 bytes for
 * REL8.
 */
#ifndef OT_CODEREFS_H
#define OT_CODEREFS_H

#include <stddef.h>
#include <stdint.h>

/* The checks, in the order a query tries them: the first that finds a
 * reference names it.  Bits for ot_coderefs_which. */
enum ot_coderef {
	OT_CODEREF_BAD_LSDA = 1 << 0,
	OT_CODEREF_LANDING_PAD = 1 << 1,
	OT_CODEREF_TABLE = 1 << 2,
	OT_CODEREF_RELOC = 1 << 3,
	OT_CODEREF_POINTER = 1 << 4,
	OT_CODEREF_ABS32 = 1 << 5,
	OT_CODEREF_ENTRY = 1 << 6,
	OT_CODEREF_REL8 = 1 << 7,
	OT_CODEREF_REL32 = 1 << 8,
};

/* One file's references to its code, read once, queried many times. */
struct ot_coderefs;

/*
 * Read the file at path.  Returns 0 with *out (free with
 * ot_coderefs_free), or -errno with why filled: -ENOEXEC not an x86-64
 * ELF executable or shared object, its sections cannot be read, overlap
 * or span more than 4 GiB; -errno opening it.
 */
int ot_coderefs_open(const char *path, struct ot_coderefs **out, char *why, size_t len);

/*
 * 0: nothing in the file can transfer control into (lo, hi), lo itself
 * excluded.  -1 with why naming the first reference found, its kind, the
 * address it is at and that address's section ("a jump table entry at
 * 0x2008 (.rodata) lands at 0x1105, inside the patched bytes"); also -1
 * when [lo, hi) is empty, outside [func_lo, func_hi) or not in one
 * executable section.  func_lo and func_hi are the bounds of the function
 * part holding the range (its symbol's, or its FDE's: ot_coderefs_fde).
 */
int ot_coderefs_inside(const struct ot_coderefs *r, uint64_t func_lo, uint64_t func_hi,
		       uint64_t lo, uint64_t hi, char *why, size_t len);

/* Every check that finds a reference into (lo, hi): enum ot_coderef bits,
 * 0 for none.  For diagnostics; ot_coderefs_inside is the decision. */
unsigned ot_coderefs_which(const struct ot_coderefs *r, uint64_t func_lo, uint64_t func_hi,
			   uint64_t lo, uint64_t hi);

/* The check's name ("REL32"), "?" for anything but one bit. */
const char *ot_coderef_name(unsigned check);

/*
 * The bounds of the .eh_frame FDE whose code holds addr (a function or a
 * part of one, as the unwinder sees it; what a stripped file still says):
 * 0 with [*lo, *hi), or -ENOENT.
 */
int ot_coderefs_fde(const struct ot_coderefs *r, uint64_t addr, uint64_t *lo, uint64_t *hi);

void ot_coderefs_free(struct ot_coderefs *r);

#endif
