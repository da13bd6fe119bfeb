/*
 * usdtterms.h - the usdt: terms of a -f list applied to a binset: which
 * USDT probes of which files they select (select.h's ot_select_is_usdt
 * says the grammar: usdt:FILE:PROVIDER:NAME, globs, (argN[:str]),
 * ENTRY..RETURN@argN pairs, !usdt: exclusions).
 *
 * Contract: a file's notes are read once (lib/symbols/usdt), when a term
 * first names it, and kept in its struct ot_binary with a stand-in
 * symbol per probe; errors are printed here, naming the term; out of
 * memory aborts (util/xalloc.h).
 */
#ifndef OT_USDTTERMS_H
#define OT_USDTTERMS_H

#include "select.h"

#include <stddef.h>

struct ot_binset;

/*
 * Every usdt: term of spec into out, after what out holds (functions),
 * with (*idx)[i] the index in b of out->fn[i]'s binary (grown with out);
 * then every !usdt: term, out of the probes.  A probe named twice is
 * selected once.  Returns 0, -ENOEXEC (a file cannot be opened) or
 * -ENOENT (anything else), after printing.
 */
int ot_usdt_terms(struct ot_binset *b, const char *spec, struct ot_selection *out,
		  size_t **idx);

#endif
