/*
 * relocate.h - moving a function's first instructions elsewhere so that
 * they still do the same thing: the part of in-process instrumentation
 * (--backend inject) that patches a function's entry with a
 * 5-byte jmp rel32 to a trampoline, which runs the overwritten
 * instructions and jumps back.  x86-64 only, decoded with capstone.
 *
 * The patch goes after an endbr64 (indirect calls must still land on it).
 * Whole instructions are moved until 5 bytes are covered.  Moved:
 * RIP-relative operands get a displacement for their new address (an
 * addr32 one, EIP-relative, wraps at 4 GiB: modulo 2^32); short
 * and near jumps and conditional jumps become their rel32 forms aimed at
 * the same target; a call becomes a push of the address after it in the
 * function and a jump, so that its callee returns into the function's own
 * code (unwinders, exceptions and __builtin_return_address see nothing
 * moved; the one trace of it: an indirect call whose target is not
 * canonical faults at the jump, after the push, not before it).  The
 * fuzzer in tests/fuzz/reloc_*.c runs moved code against the original.
 * Refused, with the reason: a function shorter
 * than the patch, an instruction that cannot move (loop, jrcxz, a target
 * or operand out of rel32 reach from the trampoline; pushf, which a thread
 * single-stepped out of the trampoline would run with the trap flag set;
 * a branch with an operand-size prefix, 16-bit on AMD and not on Intel),
 * a call followed by
 * another moved instruction (a thread inside its callee when the patch is
 * written would return into the middle of the jmp), and a branch
 * anywhere in the function, moved or not, into the middle of the patched
 * bytes (it would land inside the jmp).  A branch to the entry itself runs
 * the patch again, as a uprobe there would fire again.
 */
#ifndef OT_RELOCATE_H
#define OT_RELOCATE_H

#include <stddef.h>
#include <stdint.h>

#define OT_PATCH_LEN 5		/* jmp rel32 */
#define OT_RELOC_MAX 512	/* moved code (with marks' code) and the jump back */

struct ot_reloc {
	size_t patch_at;	/* offset in the function where the patch goes */
	size_t covered;		/* bytes the patch replaces: whole instructions */
	uint8_t code[OT_RELOC_MAX]; /* for tramp_addr: the moved code, then jmp back */
	size_t len;
	size_t moved;		/* instructions moved */
};

/*
 * The function's size bytes at code (loaded at addr); the trampoline will
 * be at tramp_addr.  Returns 0 with *out, or -EINVAL with *why saying
 * which instruction or branch makes it impossible (-ENOTSUP: not x86-64).
 */
int ot_relocate(const uint8_t *code, size_t size, uint64_t addr, uint64_t tramp_addr,
		struct ot_reloc *out, const char **why);

/*
 * Code to run before some of the moved instructions: a USDT site's probe
 * before its nop, when a patch covers several sites.  at[k] is an
 * instruction's address (in the process, as addr);
 * emit writes mark k's code for the address where it will run into out
 * and returns its length (at most OT_MARK_MAX), or 0 when it cannot.
 * Marks outside the moved instructions are left out; one inside that is
 * not an instruction's start refuses the patch.  placed counts the marks
 * the moved code holds.
 */
#define OT_MARK_MAX 64
struct ot_reloc_marks {
	const uint64_t *at;
	size_t n;
	size_t (*emit)(void *ctx, size_t k, uint64_t where, uint8_t *out);
	void *ctx;
	size_t placed;
};

/*
 * The patch at code + at, inside the function (a USDT probe's nop),
 * covering whole instructions up to code + end at least (and 5 bytes):
 * code is the whole function, for the check that none of its branches
 * lands inside the patched bytes (one to at itself runs the patch, as a
 * uprobe there would fire).  marks (NULL: none) go before their
 * instructions.  What this cannot see - a jump table's or another
 * function's way in - is lib/symbols/coderefs' to rule out.  0, or
 * -EINVAL with *why ("the patched bytes would run past the end of the
 * function", a mark that cannot be placed, or ot_relocate's reasons).
 */
int ot_relocate_at(const uint8_t *code, size_t size, uint64_t addr, size_t at, size_t end,
		   struct ot_reloc_marks *marks, uint64_t tramp_addr, struct ot_reloc *out,
		   const char **why);

/*
 * For a USDT site whose next instructions cannot take the patch (the
 * function ends, or a branch lands among them): the patch ends with the
 * nop at code + site instead, over the whole instructions before it,
 * found by decoding from the function's start ("the site is too close
 * to the function's start", "the instructions before the site cannot be
 * decoded up to it"); as ot_relocate_at otherwise.
 */
int ot_relocate_before(const uint8_t *code, size_t size, uint64_t addr, size_t site,
		       struct ot_reloc_marks *marks, uint64_t tramp_addr, struct ot_reloc *out,
		       const char **why);

#endif
