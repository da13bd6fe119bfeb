/*
 * inject_unwind.h - C++ exceptions through traced functions.  A traced
 * function returns through the runtime's trampoline (its return address
 * hijacked into a per-thread table), so an unwinder walking the stack
 * must be told where the real return address is: a DWARF unwind entry
 * (a CIE and an FDE) per thread slot, whose return-address rule is an
 * expression that looks the address up in that thread's table, and a
 * hook on _Unwind_Find_FDE (libgcc's, and one linked into the program)
 * that hands it out for the trampoline.  Here: the encoder of that
 * entry, the unwinders to hook, and whether any mapped file has
 * exception tables at all.  Prints nothing.
 */
#ifndef OT_INJECT_UNWIND_H
#define OT_INJECT_UNWIND_H

#include <stddef.h>
#include <stdint.h>

struct ot_inject;
struct ot_inject_fn;

/*
 * The unwind entry (a CIE and an FDE, DWARF CFI) that describes the
 * return trampoline at [lo, lo + len) for a thread whose table of return
 * addresses is at table: the frame's caller's SP is its own and its return
 * address the table's entry for the slot below it.  Written at out,
 * followed by a 4-byte zero terminator; returns the offset of the FDE in
 * out (what _Unwind_Find_FDE returns), or 0 if it does not fit in size
 * bytes.  Pure: any caller.
 */
size_t ot_inject_fde(uint8_t *out, size_t size, uint64_t table, uint64_t lo, uint64_t len);

/* With in->maps read: a mapped file with C++ exception tables (or one that
 * cannot be proven to be the file mapped, lib/process/mapfile.h), or NULL. */
const char *inject_mapped_eh(const struct ot_inject *in);

/*
 * The unwinders to hook into hooks[2]: libgcc's, and one linked into the
 * program, each with its _Unwind_Find_FDE's file offset and size, or
 * refused ("no _Unwind_Find_FDE"); libgcc_s opened as the process maps it
 * (lib/process/mapfile.h), held in in->unwind_file.  Returns how many;
 * their paths are the caller's to free.
 */
size_t inject_unwinders(struct ot_inject *in, struct ot_inject_fn *hooks);

#endif
