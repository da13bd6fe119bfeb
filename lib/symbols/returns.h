/*
 * returns.h - where a function is seen returning with --returns insn: its
 * return instructions, and those of the functions it tail-calls.
 *
 * A function that leaves by a tail call returns with its callee's return
 * instruction.  Direct jumps, jumps through the PLT or a GOT slot bound
 * to a function of the same file, and jumps through a table of function
 * pointers the file holds (read-only, its length known), are followed
 * transitively (up to 64 functions), and their callees' return
 * instructions reported after the function's own: lib/scopes/pair accepts those
 * only at the call's own entry SP.  An exit that cannot be followed (an
 * indirect jump, a table that is writable or of unknown length, another
 * library's function) leaves some calls unseen; the result says so, for
 * the verdict.
 */
#ifndef OT_RETURNS_H
#define OT_RETURNS_H

#include "elfsym.h"
#include "select.h"

#include <stddef.h>
#include <stdint.h>

struct ot_returns {
	uint64_t *sites;	/* file offsets: its own, then its tail callees' */
	size_t nsites;
	size_t ntail;		/* the last ntail of sites are tail callees' */
	int tail_calls;		/* it may leave by a tail call */
	char *inexact;		/* why some calls may go unseen, or NULL */
	const char *how;	/* with inexact: "an indirect tail call" and the like */
	/* The functions whose return instructions are among sites because
	 * it tail-calls them (their display names, the ELF's): every call
	 * of them, from any caller, hits those probes (the report says so:
	 * php-fpm's _efree trapped 22 times a request for one function). */
	const char **tail_funcs;
	size_t ntail_funcs;
};

/*
 * For function i of sel: label names it in messages, name in *inexact.
 * sites is never NULL on success (an empty list still says "not a
 * uretprobe").  Returns 0, or -1 after printing why the code cannot be
 * read.
 */
int ot_returns_find(const struct ot_selection *sel, size_t i, const char *label,
		    const char *name, struct ot_returns *out);
void ot_returns_free(struct ot_returns *r);

#endif
