/*
 * elfsym.h - function symbols of an ELF file, and selecting them by name.
 *
 * Owns the file's libelf handle (lib/symbols/elffile: held open while e
 * lives, shared with every other question asked of the file meanwhile)
 * and a table of defined functions (STT_FUNC with a
 * section) from .symtab, or from .dynsym when the file is stripped (a
 * stripped Go program: .gopclntab's functions too, lib/symbols/gobin), each
 * with the file offset a uprobe needs: the symbol's address translated
 * through the executable PT_LOAD segment that contains it, which is right
 * for PIE and non-PIE files alike.  Errors are printed here, naming the
 * file and the reason; the caller only decides the exit status.
 */
#ifndef OT_ELFSYM_H
#define OT_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

struct ot_sym {
	const char *name;	/* the raw symbol; owned by the ot_elf */
	const char *demangled;	/* "app::parse(int)", or NULL if not mangled */
	const char *base;	/* "app::parse": no parameters, no Rust hash */
	uint64_t addr;		/* st_value */
	uint64_t size;		/* st_size */
	uint64_t offset;	/* file offset of the first instruction */
	/*
	 * Why no probe may go here, or NULL: a return probe hijacks the
	 * return address at the stack top, which is only one where a call
	 * landed.  gcc's ".cold" parts are entered by a jump, the ELF entry
	 * point by the kernel, PLT resolvers and the signal-return
	 * trampoline with other things at the stack top.
	 */
	const char *not_called;
	/* Go code (OT_SYM_GO: R14 holds the goroutine, Go 1.17's register
	 * ABI) or Go assembly (OT_SYM_GO_ASM), by the file's .gopclntab; 0
	 * for any other code. */
	uint8_t go;
};
#define OT_SYM_GO 1
#define OT_SYM_GO_ASM 2

struct ot_elf;

/*
 * Read the function symbols of path; display is the name used in messages.
 * Returns 0 and *out, or -errno (-ENOEXEC: not an ELF, wrong machine,
 * corrupt; -ENODATA: no symbol table) after printing why.
 */
int ot_elf_open(const char *path, const char *display, struct ot_elf **out);
void ot_elf_close(struct ot_elf *e);

size_t ot_elf_nsyms(const struct ot_elf *e);
/* Symbols sorted by name; valid until ot_elf_close. */
const struct ot_sym *ot_elf_sym(const struct ot_elf *e, size_t i);
/* The function whose bytes hold file offset off, or NULL. */
const struct ot_sym *ot_elf_sym_at(const struct ot_elf *e, uint64_t off);

/* vaddr - file offset of the executable segment holding off; 0 if none. */
int64_t ot_elf_text_delta(const struct ot_elf *e, uint64_t off);

/*
 * The function of this file that the pointer slot at got_vaddr is bound
 * to (a GOT slot with a JUMP_SLOT or GLOB_DAT relocation naming a
 * function defined here: what a PLT stub or a -fno-plt call jumps to,
 * unless another library interposes it), or NULL; *name is the
 * relocation's symbol either way (NULL without a relocation).
 */
const struct ot_sym *ot_elf_slot_target(const struct ot_elf *e, uint64_t got_vaddr,
					const char **name);
/*
 * The entries of a table of 8-byte code pointers at vaddr (a jump table:
 * a non-PIE switch's labels, or functions to tail-call), as the loaded
 * program holds them: the file offset of the code each points to,
 * OT_TABLE_NONE (no pointer into this file's code: null, data) or
 * OT_TABLE_UNKNOWN (set by the loader from a symbol another file may
 * define).  The table runs to the end of the data object holding vaddr
 * (*bounded 1: .symtab gives it); without one only its first entry is
 * read (*bounded 0).  path is the file e was read from (e's own open
 * handle reads it: lib/symbols/elffile).  Returns the
 * number of entries with *out malloc'd, or -errno: -EACCES the program can
 * change the table (writable memory), -ERANGE not in the file's loaded
 * memory, -ENOTSUP no section headers to find the relocations by, -E2BIG
 * too long to read, -EIO.
 */
#define OT_TABLE_NONE UINT64_MAX
#define OT_TABLE_UNKNOWN (UINT64_MAX - 1)
int ot_elf_code_table(const struct ot_elf *e, const char *path, uint64_t vaddr,
		      uint64_t **out, int *bounded);

/* The file's name for people (as given to ot_elf_open). */
const char *ot_elf_display(const struct ot_elf *e);
/* "symtab", "dynsym", "symtab of the separate debug info" or of
 * debuginfod's, or "gopclntab": where the symbols came from. */
const char *ot_elf_source(const struct ot_elf *e);

/* 1 when e's symbols are its .dynsym's alone: stripped, and no separate
 * debug info found (exported functions only). */
int ot_elf_symbols_stripped(const struct ot_elf *e);

/*
 * e's symbols from the debug info debuginfod has for path, the file e
 * was read from (lib/symbols/debuginfo's ot_debuginfo_fetch: a note while
 * it downloads), read with the file's own segments: the functions are
 * still the file's, found where it has them.  0, or -errno after saying
 * why (an error when required, else a warning); e unchanged then.  The
 * symbols e gave before are invalid after a 0.
 */
int ot_elf_fetch_symbols(struct ot_elf *e, const char *path, int required);

struct ot_go;
/* The Go release that built the file (lib/symbols/gobin: .go.buildinfo,
 * or runtime.buildVersion), or NULL when it is no Go binary. */
const struct ot_go *ot_elf_go(const struct ot_elf *e);

/* 1 if the file has C++ exception tables (.gcc_except_table). */
int ot_elf_has_eh(const struct ot_elf *e);

/* 1 if the ELF file at path has a section named name, 0 if not (or it is
 * no ELF file), -errno if it cannot be opened.  Quiet, without reading
 * its symbols. */
int ot_elf_file_has_section(const char *path, const char *name);

/*
 * The stack-switching function the file calls or defines (swapcontext,
 * boost.context's jump_fcontext...), or NULL: its threads may run
 * several stacks, which return probes do not survive.
 */
const char *ot_elf_stack_switch(const struct ot_elf *e);

/* What a name is in a file when it is no function defined there. */
enum ot_other {
	OT_OTHER_NONE,		/* nothing by that name */
	OT_OTHER_DATA,		/* a data object */
	OT_OTHER_IMPORTED,	/* a function another library defines */
	OT_OTHER_IFUNC,		/* an IFUNC resolver's symbol */
};
enum ot_other ot_elf_other(const struct ot_elf *e, const char *name);

/*
 * The defined symbol name of path (.dynsym first, then .symtab), read
 * quietly, without the rest of the file's symbols: its file offset and
 * size, and with buf its first len bytes.  Returns 0, -ENOENT (no such
 * symbol), -ENOEXEC (not ELF), -EIO or -errno.
 */
int ot_elf_lookup(const char *path, const char *name, uint64_t *offset, uint64_t *size,
		  void *buf, size_t len);
/* The same in .dynsym alone (what the file exports: quick on a program
 * whose .symtab is large). */
int ot_elf_lookup_dynamic(const char *path, const char *name, uint64_t *offset, uint64_t *size);

/*
 * The defined symbol name in the .dynsym of an ELF image in memory, len
 * bytes at image (the vDSO: no file to open), read from a copy: 0 with
 * *off, its address less the first PT_LOAD's (where it is once that
 * segment is mapped at the image's start), or -ENOENT, -ENOEXEC.  Quiet.
 */
int ot_elf_image_lookup(const void *image, size_t len, const char *name, uint64_t *off);

/* The name to show for s: demangled with parameters, else raw. */
const char *ot_sym_display(const struct ot_sym *s);

#endif
