/*
 * elfsym.h - function symbols of an ELF file, and selecting them by name.
 *
 * Owns the libelf handle and a table of defined functions (STT_FUNC with a
 * section) from .symtab, or from .dynsym when the file is stripped, each
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
};

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
/* "symtab" or "dynsym": where the symbols came from. */
const char *ot_elf_source(const struct ot_elf *e);

/* 1 if the file has C++ exception tables (.gcc_except_table). */
int ot_elf_has_eh(const struct ot_elf *e);

/*
 * The stack-switching function the file calls or defines (swapcontext,
 * boost.context's jump_fcontext...), or NULL: its threads may run
 * several stacks, which return probes do not survive.
 */
const char *ot_elf_stack_switch(const struct ot_elf *e);

/* One function to arm: several names may share it (aliases). */
struct ot_binary;

struct ot_selected {
	const struct ot_sym *sym;  /* the first name that selected it */
	char *aliases;		   /* other names at the same offset, or NULL */
	const struct ot_binary *bin; /* with ot_binset_select; else NULL */
};

struct ot_selection {
	struct ot_selected *fn;
	size_t n;
	size_t requested;	   /* names selected, before merging aliases */
	/* Matched by a glob but not call targets (sym->not_called says why). */
	struct ot_selected *skipped;
	size_t nskipped;
};

/*
 * Select functions by a -f list: comma-separated names or globs (fnmatch
 * syntax), then exclusions "!GLOB" applied after every inclusion.  A term
 * matches a symbol's raw name, its demangled form, or that form without
 * parameters and Rust hash (C++ and Rust names, demangled by libiberty);
 * failing all, a bare last component ("middle") matches "ns::middle" when
 * only one function has that name.  A versioned name from a .symtab
 * ("fopen@@GLIBC_2.2.5") is matched without its version.  A name that is
 * not a glob must exist;
 * the error offers close matches, or lists the candidates of an ambiguous
 * bare name.  Symbols that are not call targets (ot_sym.not_called) are
 * never selected: a glob skips them into out->skipped, an exact name is
 * refused with the reason.  Returns 0, or -ENOENT after printing.
 */
int ot_elf_select(const struct ot_elf *e, const char *spec,
		  struct ot_selection *out);
void ot_selection_free(struct ot_selection *s);

/*
 * Several ELF files at once: the main executable and the libraries that
 * -f names with a FILE: or SONAME: prefix ("libc.so.6:malloc",
 * "/opt/app/lib/libfoo.so:init").  A prefix is the text before a single
 * ':' (not C++'s "::") that holds a '/' or ".so".
 */
struct ot_binary {
	char *path;		/* read by libelf and resolved by the kernel */
	char *display;		/* for people */
	struct ot_elf *elf;
	int is_main;
};

/* Map a library's name (soname or path) to a file to read: 0 or -errno. */
typedef int (*ot_lib_resolve_fn)(void *ctx, const char *name, char **path);

struct ot_binset;

struct ot_binset *ot_binset_new(struct ot_elf *main_elf, const char *path,
				const char *display, ot_lib_resolve_fn resolve,
				void *ctx);
/* Frees every library opened; main_elf is the caller's. */
void ot_binset_free(struct ot_binset *b);

/*
 * Select across binaries: terms without a prefix (and exclusions without
 * one) go to the main executable, the others to their library, each
 * through ot_elf_select.  Entries carry their binary.  Returns 0, or
 * -ENOENT (a name) / -ENOEXEC (a library) after printing.
 */
int ot_binset_select(struct ot_binset *b, const char *spec,
		     struct ot_selection *out);

/*
 * How many inlined copies of each selected function DWARF records in path
 * (or its separate debug info): counts[i] for sel->fn[i].  Calls to those
 * copies never reach the probe.  Returns 0, or -ENODATA without DWARF.
 */
int ot_elf_inlined(const char *path, const struct ot_selection *sel,
		   uint64_t *counts);

/* The name to show for s: demangled with parameters, else raw. */
const char *ot_sym_display(const struct ot_sym *s);

/* Edit distance, exposed for the unit tests of suggestions. */
size_t ot_edit_distance(const char *a, const char *b);

#endif
