/*
 * retsite.h - where a function returns: the offsets of its return
 * instructions, found by disassembling its bytes (capstone).
 *
 * A probe on each return instruction sees a function leave without
 * touching its stack, unlike a return probe (uretprobe), which swaps the
 * return address for a kernel trampoline and so breaks C++ exception
 * unwinding through the function.  Calls that leave otherwise (tail call,
 * exception, longjmp) are not seen returning; the pairing heals them.
 */
#ifndef OT_RETSITE_H
#define OT_RETSITE_H

#include <stddef.h>
#include <stdint.h>

/*
 * File offsets of the return instructions in the size bytes at offset of
 * path.  Returns the number found (0: none) with *sites malloc'd (free
 * it), or -errno (-EIO: the bytes cannot be read, -ENOTSUP: no
 * disassembler for this machine).  *tail_calls tells whether the code
 * jumps to a direct target outside itself: a tail call, another way out.
 */
int ot_ret_sites(const char *path, uint64_t offset, uint64_t size,
		 uint64_t **sites, int *tail_calls);

/* Same, on bytes in memory that start at file offset offset. */
int ot_ret_sites_mem(const uint8_t *code, size_t size, uint64_t offset,
		     uint64_t **sites, int *tail_calls);

#endif
