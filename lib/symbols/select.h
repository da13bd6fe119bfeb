/*
 * select.h - the -f selection language: which functions of which files a
 * list of terms names.
 *
 * Terms are comma-separated: names or globs (fnmatch syntax), then
 * exclusions "!GLOB" applied after every inclusion, each optionally
 * prefixed with a library ("libc.so.6:malloc") and followed by the values
 * to record with each call ("malloc(arg1)", "read(arg3)%ret", up to
 * OT_SEL_MAX_VALUES at the entry: "read(fd,arg3)", a parameter by its
 * DWARF name located later by lib/probes/plan; one of them read as the
 * string it points to: "open(arg1:str,arg2)", "handle(path:str)").  A term matches a
 * symbol's raw name, its demangled form, or that form without parameters
 * and Rust hash; failing all, a bare last component.  Errors name the term
 * and the reason, with close matches.
 */
#ifndef OT_SELECT_H
#define OT_SELECT_H

#include "elfsym.h"
#include "usdt.h"	/* with lib/arch/$(ARCH)/arch_defs.h */

#include <stddef.h>
#include <stdint.h>

/* One function to arm: several names may share it (aliases). */
struct ot_binary;

/* Values a term may ask to record: "NAME(argN)" and "NAME%ret". */
#define OT_SEL_MAX_ARG OT_ARCH_NARGS
#define OT_SEL_ARG_REGS OT_ARCH_ARG_REGS

/* A Go function's (Go 1.17's register ABI): nine registers pass integers. */
#define OT_SEL_MAX_GO_ARG OT_ARCH_NGO_ARGS
#define OT_SEL_GO_ARG_REGS OT_ARCH_GO_ARG_REGS

/* The value grammar, for the error a malformed value gets. */
#define OT_SEL_SYNTAX "values are NAME(VALUE,...), NAME%ret, NAME(VALUE,...)%ret: up to 4 " \
	"VALUEs, each argN (N 1 to 6), argN:32, a parameter's name or NAME->MEMBER, " \
	"one of them VALUE:str (the string it points to); %ret:32 the low half"

/* Values one function may record at its entry: "read(arg1,arg2,nbytes)". */
#define OT_SEL_MAX_VALUES 4

#define OT_SEL_RET 1
#define OT_SEL_32 0x80
#define OT_SEL_ARG(v) ((v) & 0x7f)

struct ot_selected {
	const struct ot_sym *sym;  /* the first name that selected it */
	/* Values to record: the argument (1-based, | OT_SEL_32 for its low
	 * 32 bits) at entry, or 0; the return value (OT_SEL_RET, | OT_SEL_32),
	 * or 0. */
	uint8_t arg, ret;
	/* A parameter named instead of argN ("flags", "req->len"; owned, read
	 * from DWARF by lib/probes/plan), or NULL. */
	char *arg_name;
	/* The entry values after the first ("read(arg1,arg3)"): each an
	 * OT_SEL_* code or a name (owned; code 0), nmore of them. */
	uint8_t nmore;
	uint8_t more[OT_SEL_MAX_VALUES - 1];
	char *more_name[OT_SEL_MAX_VALUES - 1];
	/* %ret's width and sign from DWARF (plan fills them; 0: the register). */
	uint8_t ret_size, ret_signed;
	char *aliases;		   /* other names at the same offset, or NULL */
	const struct ot_binary *bin; /* with ot_binset_select; else NULL */
	/* With ot_binset_select: the name reports show ("libc.so.6:malloc"
	 * for a library's function, the function's alone in the program) and
	 * the label messages use ("FILE:FUNCTION"); owned. */
	char *name;
	char *label;
	/* A USDT probe ("usdt:FILE:PROVIDER:NAME"): a counted point at each
	 * of its sites, no scope; sym is a stand-in (its name the probe's,
	 * its offset the first site's); arg up to OT_USDT_MAX_ARGS.  NULL
	 * for a function. */
	const struct ot_usdt_probe *usdt;
	/* "(argN:str)", "@argN:str", a function's "(argN:str)" or
	 * "(PARAM:str)": arg (arg_name) is a pointer to a NUL-terminated
	 * string, read up to OT_USDT_STR_MAX bytes.  A function's string is
	 * its first value wherever the term put it (one a function). */
	uint8_t str;
	/* "usdt:FILE:PROVIDER:ENTRY..RETURN@argN": this probe is the entry
	 * (OT_SEL_PAIR_ENTRY) or the return (OT_SEL_PAIR_RETURN) of pair
	 * pair_id (1, 2, ... in term order; 0 none), keyed by arg. */
	uint8_t pair;
	uint16_t pair_id;
	/* A function pair "ENTRYFN..RETURNFN@argN": this function is its
	 * entry (OT_SEL_PAIR_ENTRY) or its return (OT_SEL_PAIR_RETURN), its
	 * first value (arg) argument N, the key: a scope from ENTRYFN's
	 * entry to the return of the RETURNFN call whose argument N was the
	 * same.  fpair_id 1, 2, ... in term order; 0 none. */
	uint8_t fpair;
	uint16_t fpair_id;
};

#define OT_SEL_PAIR_ENTRY 1
#define OT_SEL_PAIR_RETURN 2
/* A string argument's bytes read, its NUL included. */
#define OT_USDT_STR_MAX 64

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
 * never selected: a glob skips them into out->skipped, and so does a name
 * that also selects a function ("leaf" for leaf(long) and its "leaf(long)
 * [clone .cold]"); a name that selects only such symbols is refused with
 * the reason.  Returns 0, or -ENOENT after printing.
 */
int ot_elf_select(const struct ot_elf *e, const char *spec,
		  struct ot_selection *out);
void ot_selection_free(struct ot_selection *s);

/*
 * Whether a -f list asks for a value ("NAME(argN)", "NAME(PARAM)",
 * "NAME%ret") in any term but a usdt: one, for options that refuse values
 * (--backend inject records none).  A word in parentheses counts as a
 * parameter's name ("g(Foo)"): without the symbols, a C++ parameter list
 * of a user type cannot be told from it.
 * Prints nothing; a malformed suffix counts as asking.
 */
int ot_select_asks_values(const char *spec);

/*
 * Whether a -f list has a term that may select something: a name, glob
 * or usdt: term that is not an exclusion ("!GLOB") and not empty ("",
 * ",,", "libc.so.6:", "(arg1)").  Without one nothing would be armed.
 * Prints nothing.
 */
int ot_select_includes(const char *spec);

/*
 * Several ELF files at once: the main executable and the libraries that
 * -f names with a FILE: or SONAME: prefix ("libc.so.6:malloc",
 * "/opt/app/lib/libfoo.so:init").  A prefix is the text before a single
 * ':' (not C++'s "::") that holds a '/' or ".so".
 */
struct ot_binary {
	char *path;		/* read by libelf and resolved by the kernel */
	char *display;		/* for people: the name -f gave ("libc.so.6") */
	char *file;		/* for people: the file as its process names it */
	struct ot_elf *elf;
	int is_main;
	/* Its USDT probes, read when a usdt: term first names it, and a
	 * stand-in symbol per probe; NULL until then. */
	struct ot_usdt_notes *usdt;
	struct ot_sym *usdt_syms;
};

/* Map a library's name (soname or path) to a file to read (*path) and
 * the file's name for people (*file), both malloc'd: 0 or -errno.  The
 * same file must come back as the same path. */
typedef int (*ot_lib_resolve_fn)(void *ctx, const char *name, char **path, char **file);

struct ot_binset;

/* The program is read at path and shown as display (also its file). */
struct ot_binset *ot_binset_new(struct ot_elf *main_elf, const char *path,
				const char *display, ot_lib_resolve_fn resolve,
				void *ctx);
/* main_elf may be NULL (no program: every term must name its file).
 * Frees every library opened; main_elf is the caller's. */
void ot_binset_free(struct ot_binset *b);

/*
 * The main executable is the interpreter of a "#!" script, run as cmd
 * (found at path): a name missing from it is said to be perhaps in a
 * program the script execs.
 */
void ot_binset_set_script(struct ot_binset *b, const char *cmd, const char *path);

/*
 * Select across binaries: terms without a prefix (and exclusions without
 * one) go to the main executable, the others to their library, each
 * through ot_elf_select.  Entries carry their binary.  Returns 0, or
 * -ENOENT (a name) / -ENOEXEC (a library) after printing.
 */
int ot_binset_select(struct ot_binset *b, const char *spec,
		     struct ot_selection *out);

/*
 * USDT terms ("usdt:FILE:PROVIDER:NAME", "usdt:FILE:NAME", globs in
 * PROVIDER and NAME, "(argN)" after NAME, N from 1 as the note numbers
 * them) select probes of FILE's .note.stapsdt: FILE is the program (its
 * path or file name) or a library (resolved as LIB:NAME's).  They go
 * with ot_binset_select's other terms, after them in out; a probe named
 * twice is selected once.  "!usdt:..." excludes, after every inclusion.
 * "(argN:str)" reads the argument as a string's address.
 * "usdt:FILE:PROVIDER:ENTRY..RETURN@argN[:str]" selects two probes (each
 * name must match one) as a pair keyed by their argument N.
 * A term that selects no probe is refused naming the probes FILE has.
 */
int ot_select_is_usdt(const char *term);

/*
 * Whether term is a function pair, "[FILE:]ENTRYFN..RETURNFN@argN"
 * (N from 1; no glob, no other value): then *entry and *ret are each
 * function's term ("FILE:ENTRYFN(argN)"), malloc'd, and *arg is N.
 * Returns 1, 0 for any other term, or -EINVAL after printing why a
 * term that reads as one is malformed.
 */
int ot_select_fn_pair(const char *term, char **entry, char **ret, unsigned *arg);

/*
 * The plain names of a -f list, for a hint after a miss: each term that
 * names no file, no glob, no USDT probe and excludes nothing, its values
 * cut ("malloc" of "malloc(arg1)%ret"); malloc'd, *n of them.  Prints
 * nothing.
 */
char **ot_select_plain_names(const char *spec, size_t *n);

/* Whether a -f list has a usdt: term (for a backend without uprobes). */
int ot_select_asks_usdt(const char *spec);

/* Edit distance, exposed for the unit tests of suggestions. */
size_t ot_edit_distance(const char *a, const char *b);

#endif
