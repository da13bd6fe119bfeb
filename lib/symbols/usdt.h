/*
 * usdt.h - statically defined probes (USDT, systemtap's <sys/sdt.h>):
 * the .note.stapsdt notes of an ELF file, and the argument specs they
 * carry ("-4@112(%rsp)"), the machine's assembler operands (lib/arch).
 *
 * Contract: reads files with libelf, prints nothing, never exits; the
 * caller says what a failure means.  ot_usdt_arg_parse is pure.  Each
 * note is one site of a probe; the sites of one provider:name are
 * gathered into one struct ot_usdt_probe, in the order of the notes.
 * Addresses are adjusted as libbpf's usdt.c and bcc do: a note's pc and
 * base are link-time addresses, and when the file's .stapsdt.base section
 * lies elsewhere (prelink moved the file) the pc moves by the same
 * distance.  A site's file offset (what a uprobe takes) and the
 * semaphore's (the kernel's ref_ctr_offset) come from the PT_LOAD segment
 * holding the address.
 */
#ifndef OT_USDT_H
#define OT_USDT_H

#include "arch_defs.h"	/* lib/arch/$(ARCH)/ */

#include <stddef.h>
#include <stdint.h>

enum ot_usdt_arg_kind {
	OT_USDT_ARG_REG = 1,	/* a register's value */
	OT_USDT_ARG_MEM,	/* memory at off(%reg) or off(%reg,%idx,scale) */
	OT_USDT_ARG_CONST,	/* $off */
	OT_USDT_ARG_RIP,	/* memory at sym+off(%rip): the symbol's address */
	/* Not in notes: a DWARF parameter's member through a pointer kept in
	 * memory (lib/symbols/dwarfarg): memory at member + the pointer
	 * read at off(%reg). */
	OT_USDT_ARG_DEREF,
	/* Not in notes: a Go string (lib/probes/plan, lib/symbols/dwarfarg):
	 * its pointer in reg, its length in idx (two registers of Go's
	 * register ABI); read as a string (:str) of that length. */
	OT_USDT_ARG_GOSTR,
};

/* Registers by their perf numbers (asm/perf_regs.h): the machine's
 * (lib/arch/$(ARCH)/arch_defs.h). */
#define OT_USDT_NREGS OT_ARCH_NREGS

struct ot_usdt_arg {
	int kind;		/* enum ot_usdt_arg_kind */
	uint8_t size;		/* bytes read: 1, 2, 4 or 8 */
	uint8_t is_signed;	/* a negative size in the spec */
	int8_t reg;		/* base register (perf number), -1 none */
	int8_t idx;		/* index register, -1 none */
	uint8_t scale;		/* 1, 2, 4, 8 with idx */
	uint8_t shift;		/* bits to shift right first: %ah is bits 8-15 */
	int64_t off;		/* displacement, or the constant */
	char sym[64];		/* OT_USDT_ARG_RIP: the symbol, "" for none */
	uint32_t member;	/* OT_USDT_ARG_DEREF: the offset past the pointer */
};

#define OT_USDT_MAX_ARGS 12

/*
 * One operand ("8@%rdi", "-4@112(%rsp)", "8@-8(%rbp,%rax,8)", "$5",
 * "-4@$5", "8@foo+8(%rip)").  A spec without "N@" is 8 bytes, unsigned.
 * Register names of 8, 16, 32 and 64 bits read the register's low bits
 * (the size says how many).  Returns 0, or -EINVAL with why filled
 * ("unknown register %foo").
 */
int ot_usdt_arg_parse(const char *spec, struct ot_usdt_arg *out, char *why, size_t whylen);

/* A note's whole argument string, space-separated: the count, or -EINVAL
 * with why (naming the operand); more than max is -E2BIG. */
int ot_usdt_args_parse(const char *specs, struct ot_usdt_arg *out, size_t max, char *why,
		       size_t whylen);

/* The register's name as the spec writes it for 8 bytes ("rax"), or "?". */
const char *ot_usdt_reg_name(int reg);

struct ot_usdt_site {
	uint64_t vaddr;		/* the probe's address, adjusted */
	uint64_t offset;	/* its file offset */
	char *args;		/* the note's argument specs, "" if none */
};

struct ot_usdt_probe {
	char *provider, *name;
	struct ot_usdt_site *sites;
	size_t nsites;
	uint64_t sema_vaddr;	/* 0: no semaphore */
	uint64_t sema_offset;	/* its file offset (ref_ctr_offset) */
};

struct ot_usdt_notes {
	struct ot_usdt_probe *probe;
	size_t n;
};

/*
 * Every probe of the file at path into *out (zeroed first; none is not an
 * error).  Returns 0, or -errno: -ENOENT/-EACCES opening, -ENOEXEC not an
 * ELF file, -EINVAL a malformed note or an address in no PT_LOAD.
 */
int ot_usdt_read(const char *path, struct ot_usdt_notes *out);
void ot_usdt_free(struct ot_usdt_notes *n);

/*
 * The link-time address of symbol name in the file at path (.symtab, else
 * .dynsym), for a sym(%rip) operand: 0 and *addr, or -ENOENT (no such
 * symbol), -errno opening, -ENOEXEC not an ELF file.  The lookup
 * ot_elf_lookup makes too (lib/symbols/elffile's ot_elf_file_symbol), in
 * the order and for any symbol, data in .bss included.
 */
int ot_usdt_sym_addr(const char *path, const char *name, uint64_t *addr);

/*
 * Up to len bytes of the file at path as loaded at link-time address
 * vaddr (through the PT_LOAD holding it, its bytes in the file only):
 * what a string in its .rodata is before the process touches its page.
 * The count read, or -ENOENT (no segment holds vaddr), -errno, -ENOEXEC.
 */
int ot_usdt_file_read(const char *path, uint64_t vaddr, char *buf, size_t len);

#endif
