/*
 * terms.h - the -f selection language's syntax, before any symbol is
 * read: a list cut into terms (commas inside parentheses do not cut),
 * a term's library prefix ("libc.so.6:malloc"), its value suffix
 * ("read(arg1,count:str)%ret"), function pairs ("A..B@argN") and the
 * terms grouped by the file they name.  select.c matches the terms
 * against symbols, usdtterms.c against USDT notes; the questions
 * select.h answers from a list alone (ot_select_asks_values,
 * ot_select_includes, ot_select_is_usdt, ot_select_asks_usdt,
 * ot_select_fn_pair, ot_select_plain_names) are answered here.
 *
 * Contract: terms are cut in place (the caller's copy); errors are
 * printed only where a function says so (print, or "after printing");
 * out of memory aborts (util/xalloc.h).
 */
#ifndef OT_TERMS_H
#define OT_TERMS_H

#include "select.h"

#include <stddef.h>
#include <stdint.h>

/* Values a term asks for: n at the entry, each an OT_SEL_* code (argN)
 * or a parameter's DWARF name ("flags", "req->len"; code 0); the return
 * value's code. */
struct ot_term_vals {
	uint8_t n;
	uint8_t arg[OT_SEL_MAX_VALUES];
	char *name[OT_SEL_MAX_VALUES];
	uint8_t ret;
};

void ot_term_vals_free(struct ot_term_vals *v);
/* Value (arg, name) into v unless v has it: 1 added, 0 had, -1 full.
 * name is borrowed. */
int ot_term_vals_add(struct ot_term_vals *v, uint8_t arg, char *name);

/* A value's code bit in struct ot_term_vals (never in ot_selected): ":str", the
 * string it points to. */
#define OT_TERM_STR 0x40

/* How many of v's values are strings. */
unsigned ot_term_vals_strs(const struct ot_term_vals *v);

/*
 * A term's value suffix, cut off: "(VALUE)" records an argument at entry
 * (argN, its low half argN:32, or a parameter by its DWARF name, or a
 * member through it: NAME->MEMBER), "%ret" (or "%ret:32") the return
 * value; "read(arg3)%ret" both.  Parentheses that read as a C++
 * parameter list are left to the name, and so are those inside it (Go's
 * "main.(*T).M(arg1)": the values are the last parenthesis's).  argN up
 * to max_arg.  Returns 0, or -EINVAL (printed if print); v->name is the
 * caller's to free.
 */
int ot_term_values(char *term, struct ot_term_vals *v, int print, int max_arg);

/* The next comma-separated term of *cursor, cut in place and advanced
 * past; NULL at the end.  Commas inside parentheses (a value list,
 * "read(arg1,arg3)", or a C++ parameter list) do not end it. */
char *ot_term_next(char **cursor);

/* Whether s is a glob (fnmatch's *, ? or [). */
int ot_term_is_glob(const char *s);

/* Length of term's library prefix, or 0: "libc.so.6:malloc" -> 9. */
size_t ot_term_lib_prefix(const char *term);

/* The len bytes of term appended to the list *s (malloc'd), after a comma. */
void ot_term_append(char **s, const char *term, size_t len);

/*
 * The terms of -f grouped by the binary they name, each group's terms
 * joined by commas in the order they came in.  A "!NAME" naming no
 * binary excludes in every group, so it is kept apart.
 */
struct ot_term_groups {
	char **terms;
	char **keys;		/* LIB of LIB:NAME, or NULL: the program */
	size_t n;
	char *global_excl;
};

void ot_term_group(const char *spec, struct ot_term_groups *tg);
void ot_term_groups_free(struct ot_term_groups *tg);

/* spec's function pairs: each term "A..B@argN" as its two functions'
 * terms "A(argN),B(argN)" in *rewritten, the pair's terms in order in
 * pairs (2 per pair, malloc'd).  Returns the number of pairs, or -1
 * after printing. */
int ot_term_fn_pairs(const char *spec, char **rewritten, char ***pairs);

/* The pairs' keys: argN of each, in order (malloc'd, n of them). */
unsigned *ot_term_pair_args(char **pairs, int n);

#endif
