/*
 * trampcode.h - the machine code --backend inject writes around what the
 * relocator moved: each trampoline's head (what runs before the moved
 * instructions), and the patch that jumps from a function to its
 * trampoline.  x86-64's; lib/inject/inject_tramp.c decides where and for
 * what, this only encodes.
 *
 * Contract: pure (no I/O, no printing).  tramp is the address the head is
 * written at (t[0]); a slot is the address of a region's 8-byte pointer to
 * a runtime function (lib/inject/inject_layout.h), called through it.
 * Every head keeps every register and flag the function sees, and the red
 * zone below its stack pointer.
 */
#ifndef OT_TRAMPCODE_H
#define OT_TRAMPCODE_H

#include "symbols/usdt.h"

#include <stddef.h>
#include <stdint.h>

/* An entry's head: push %rax; mov $id,%eax; call *slot(%rip); pop %rax. */
#define OT_TRAMP_ENTRY_LEN	13
/* A hook's: push %rax; lea orig(%rip),%rax; jmp *slot(%rip) (orig: the
 * moved instructions right after it). */
#define OT_TRAMP_HOOK_LEN	14
/* One call of an exit site's head (ot_tramp_exit): mov $number,%eax;
 * call *slot(%rip). */
#define OT_TRAMP_CALL_LEN	11

/* The entry's head, number id to the runtime's entry through slot. */
size_t ot_tramp_entry(uint8_t *t, uint64_t tramp, uint32_t id, uint64_t slot);

/* A hook's head: the runtime's function at slot replaces the moved one,
 * which it may call at the address after the head. */
size_t ot_tramp_hook(uint8_t *t, uint64_t tramp, uint64_t slot);

/*
 * A USDT site's head: past the red zone, rax saved, the operand arg (if
 * any) read and pushed (red is how far below the site's stack pointer the
 * operand code runs), id to the runtime's point through slot, all put
 * back.  Its length, or 0 with *why when the operand cannot be read.
 */
size_t ot_tramp_point(uint8_t *t, uint64_t tramp, uint64_t slot, uint32_t id,
		      const struct ot_usdt_arg *arg, uint64_t site, int32_t red, const char **why);

/* An exit site's head: past the red zone, rax saved, each of the n
 * numbers ids to the runtime's exit through slot, each call's address
 * into calls[k] (OT_TRAMP_CALL_LEN bytes, to be made nops), all put back.
 * Its length. */
size_t ot_tramp_exit(uint8_t *t, uint64_t tramp, uint64_t slot, const uint32_t *ids, size_t n,
		     uint64_t *calls);

/* One call of an exit site's head made nops (OT_TRAMP_CALL_LEN bytes). */
void ot_tramp_nop_call(uint8_t *p);

/* The patch at address at that jumps to tramp (OT_PATCH_LEN bytes into
 * p): 0, or -1 when tramp is out of its reach. */
int ot_tramp_jump(uint8_t *p, uint64_t at, uint64_t tramp);

#endif
