/*
 * binset.h - the insides of select.h's struct ot_binset, shared by the
 * two files that select from it: select.c (functions, by symbol) and
 * usdtterms.c (USDT probes, by note).  Nothing else reads them.
 *
 * Contract: bin[] moves as libraries are added (ot_binset_library):
 * hold a binary's index across that call, not a pointer.
 */
#ifndef OT_BINSET_H
#define OT_BINSET_H

#include "select.h"

#include <stddef.h>

struct ot_binset {
	struct ot_binary *bin;	/* bin[0] is the main executable */
	size_t n;
	ot_lib_resolve_fn resolve;
	void *ctx;
	char *script;		/* bin[0] runs this script, for messages */
};


/* The binary for library name (soname or path, resolved by b's
 * resolver), opened on first use; NULL after printing. */
struct ot_binary *ot_binset_library(struct ot_binset *b, const char *name);

#endif
