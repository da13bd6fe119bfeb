/*
 * retsite.h - how a function leaves: the offsets of its return
 * instructions, the targets of its tail calls, and the exits that cannot
 * be followed, found by disassembling its bytes (capstone).  The machine's
 * code implements it: lib/arch/$(ARCH)/retsite.c (lib/arch/arch.h).  The
 * examples below are x86-64's.
 *
 * A probe on each return instruction sees a function leave without
 * touching its stack, unlike a return probe (uretprobe), which swaps the
 * return address for a kernel trampoline and so breaks C++ exception
 * unwinding through the function.  A function that leaves by a tail call
 * returns with its callee's return instruction; the caller follows the
 * direct targets (ot_exits.tails) to probe those too.  A jump through
 * a table of pointers (jmp *(%rax,%rdx,8), or a register loaded from one)
 * lands wherever the table says: a switch's labels or other functions
 * (ot_exits.tables, for the caller to read from the file).  Any other
 * indirect jump that is not a switch's may be a tail call to anywhere
 * (ot_exits.indirect): its returns cannot be seen this way.
 */
#ifndef OT_RETSITE_H
#define OT_RETSITE_H

#include <stddef.h>
#include <stdint.h>

struct ot_table_jump {
	uint64_t addr;		/* the table's address: in the file offset space
				 * of the code, or a vaddr if vaddr */
	int vaddr;
};

struct ot_exits {
	uint64_t *rets;		/* file offsets of return instructions */
	size_t nrets;
	uint64_t *tails;	/* direct jump targets outside the function */
	size_t ntails;
	size_t indirect;	/* indirect jumps that may leave it */
	/*
	 * Jumps through a RIP-relative pointer (jmp *slot(%rip): a GOT slot,
	 * as in a PLT stub or -fno-plt code): the slot's address, in the file
	 * offset space of the code (add the segment's vaddr - offset).
	 */
	uint64_t *slots;
	size_t nslots;
	/*
	 * Jumps through a table of 8-byte code pointers whose address the
	 * code makes plain (lea tab(%rip),%rax shortly before, or an absolute
	 * jmp *tab(,%rdx,8)): the table's address, for the caller to read its
	 * entries.  A table whose address the code does not show counts as
	 * indirect.
	 */
	struct ot_table_jump *tables;
	size_t ntables;
};

/*
 * The exits of the size bytes at file offset offset of path.  Returns 0
 * with *x filled (free with ot_exits_free), or -errno (-EIO: the bytes
 * cannot be read, -ENOTSUP: no disassembler for this machine).
 */
int ot_exits_file(const char *path, uint64_t offset, uint64_t size, struct ot_exits *x);
/* Same, on bytes in memory that start at file offset offset. */
int ot_exits_mem(const uint8_t *code, size_t size, uint64_t offset, struct ot_exits *x);
void ot_exits_free(struct ot_exits *x);

/*
 * Only the return instructions: returns their number (0: none) with
 * *sites malloc'd (free it), or -errno as above.  *tail_calls tells
 * whether the code may leave otherwise (a tail call, direct or not).
 */
int ot_ret_sites(const char *path, uint64_t offset, uint64_t size,
		 uint64_t **sites, int *tail_calls);
int ot_ret_sites_mem(const uint8_t *code, size_t size, uint64_t offset,
		     uint64_t **sites, int *tail_calls);

/*
 * Where an entry probe can go for the function of size bytes at file
 * offset offset of path.  The kernel will not probe an instruction with a
 * LOCK prefix (it cannot step it out of line): the probe then goes on the
 * next instruction, which sees the same stack (a locked instruction never
 * moves the SP), unless a branch of the function lands on either of the
 * two, which would run the probe twice for one call.  Returns 0 with
 * *probe (offset, or the next instruction's) and *why NULL when moved not,
 * or a reason in *why when moved; -ENOTSUP with *why when it cannot be
 * probed; -errno otherwise.
 */
int ot_entry_point(const char *path, uint64_t offset, uint64_t size,
		   uint64_t *probe, const char **why);

/*
 * Where a Go function's entry probe goes: past its stack check (cmp
 * %rsp or %r12 against 16(%r14), g.stackguard0, then jbe to the call of
 * runtime.morestack, which grows the stack and jumps back to the
 * function's start): only a call that proceeds passes there, once, with
 * the SP and the argument registers of its entry.  Returns 0 with *probe
 * past the check, or at offset when none is found (a NOSPLIT function
 * has none), *why saying which; -errno as above.
 */
int ot_go_entry_point(const char *path, uint64_t offset, uint64_t size, uint64_t *probe,
		      const char **why);

#endif
