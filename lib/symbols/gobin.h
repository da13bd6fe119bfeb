/*
 * gobin.h - Go programs: recognized by their build information (the
 * .go.buildinfo section, or the runtime.buildVersion string), the Go
 * release that built them, and their functions as the Go runtime's own
 * table names them (.gopclntab: what a stripped Go binary still has,
 * since the runtime needs it for tracebacks and the garbage collector).
 *
 * Contract: reads an ELF file the caller opened with libelf; prints
 * nothing, never exits; every offset the file gives is checked against
 * the section it points into, so a corrupt or hostile file gives an error,
 * never a read out of bounds.  Formats read: the pclntab of Go 1.2-1.15
 * (magic 0xfffffffb), 1.16-1.17 (0xfffffffa), 1.18-1.19 (0xfffffff0) and
 * 1.20 and later (0xfffffff1), little-endian, 8-byte pointers.
 * Called by lib/symbols/elfsym when it opens a file.
 */
#ifndef OT_GOBIN_H
#define OT_GOBIN_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct ot_go {
	char version[32];	/* "go1.19.8"; "" when the file does not say */
	unsigned major, minor;	/* 1, 19; 0, 0 when unknown */
};

/*
 * Whether elf is a Go binary by its .go.buildinfo section: 1 with *go
 * (its version, from the section's inline strings (Go 1.18+) or the
 * pointers before them), 0 when it has no such section.
 */
int ot_go_detect(Elf *elf, struct ot_go *go);

/*
 * The Go string (pointer, length) at vaddr of elf (runtime.buildVersion's
 * value, for a binary without .go.buildinfo) as *go's version: 0, or
 * -ENOENT when it cannot be read or is no "goN.M" version.
 */
int ot_go_version_at(Elf *elf, uint64_t vaddr, struct ot_go *go);

/* Go 1.17 and later pass arguments in registers and keep the running
 * goroutine (g) in R14 in every Go function (the register ABI,
 * "ABIInternal"): 1 if go says so, 0 if older or unknown. */
int ot_go_regabi(const struct ot_go *go);

/* A function written in Go assembly (the pclntab says so since Go 1.19;
 * .symtab names such ABI0 functions "NAME.abi0"): R14 need not hold g. */
#define OT_GO_FUNC_ASM 1

struct ot_go_func {
	uint64_t entry, end;	/* its code: [entry, end), vaddrs */
	uint32_t name;		/* offset of its name in ot_go_funcs.names */
	uint8_t flags;		/* OT_GO_FUNC_* */
};

struct ot_go_funcs {
	struct ot_go_func *fn;	/* sorted by entry, as the table keeps them */
	size_t n;
	char *names;		/* NUL-terminated names, one block */
	size_t names_size;
	const char *format;	/* "Go 1.18-1.19" and the like */
};

/*
 * Every function of elf's .gopclntab (go: what ot_go_detect said, for
 * the format's details; may be NULL).  Returns 0 with *out filled (free
 * with ot_go_funcs_free), or -errno with *why saying what is wrong:
 * -ENODATA no .gopclntab section (.data.rel.ro.gopclntab in a
 * position-independent one), -ENOTSUP a format not known,
 * -EBADMSG a table that contradicts itself.
 */
int ot_go_read_funcs(Elf *elf, const struct ot_go *go, struct ot_go_funcs *out,
		     const char **why);
void ot_go_funcs_free(struct ot_go_funcs *f);

/*
 * A Go stack's extent as the pairing sees it: lib/probes/uprobe_multi.bpf.c
 * records a Go function's SP as OT_GO_VSP_TOP - (g.stack.hi - SP), its
 * distance from the top of the goroutine's stack, which a stack copy
 * (the stack grown or shrunk: runtime.copystack) keeps.
 */
#define OT_GO_VSP_TOP (1ull << 62)

#endif
