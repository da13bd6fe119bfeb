/*
 * report_safe.c - the report as the text shows it: every name and path a
 * target controls (its files' symbols, its paths, the names of rows it
 * made with its strings, the reasons that quote them) escaped for a
 * terminal (lib/util/escape), so that the text's printers print as they
 * always did.
 */
#include "report_priv.h"
#include "util/escape.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* s, or its escaped copy, kept to be freed with s. */
static const char *esc(struct ot_report_safe *sf, const char *s)
{
	char *e = ot_escape_text_dup(s, 0);

	if (!e)
		return s;
	sf->owned = ot_xreallocarray(sf->owned, sf->nowned + 1, sizeof(*sf->owned));
	sf->owned[sf->nowned++] = e;
	return e;
}

static void safe_func(struct ot_report_safe *sf, struct ot_report_func *fn)
{
	size_t k;

	fn->name = esc(sf, fn->name);
	fn->symbol = esc(sf, fn->symbol);
	fn->aliases = esc(sf, fn->aliases);
	fn->binary = esc(sf, fn->binary);
	fn->arg_name = esc(sf, fn->arg_name);
	fn->ret_name = esc(sf, fn->ret_name);
	fn->strs_name = esc(sf, fn->strs_name);
	fn->pair = esc(sf, fn->pair);
	for (k = 0; k < fn->nmore && k < OT_REPORT_MORE; k++)
		fn->more_name[k] = esc(sf, fn->more_name[k]);
	if (fn->ntail_funcs) {
		const char **t = ot_xcalloc(fn->ntail_funcs, sizeof(*t));

		for (k = 0; k < fn->ntail_funcs; k++)
			t[k] = esc(sf, fn->tail_funcs[k]);
		fn->tail_funcs = t;
		sf->owned = ot_xreallocarray(sf->owned, sf->nowned + 1, sizeof(*sf->owned));
		sf->owned[sf->nowned++] = (char *)t;
	}
	if (fn->nslowest) {
		struct ot_report_slow *sl = ot_xcalloc(fn->nslowest, sizeof(*sl));

		memcpy(sl, fn->slowest, fn->nslowest * sizeof(*sl));
		for (k = 0; k < fn->nslowest; k++)
			sl[k].path = esc(sf, sl[k].path);
		fn->slowest = sl;
		sf->slows = ot_xreallocarray(sf->slows, sf->nslows + 1, sizeof(*sf->slows));
		sf->slows[sf->nslows++] = sl;
	}
}

const struct ot_report *ot_report_safe(struct ot_report_safe *sf, const struct ot_report *r)
{
	size_t i;

	sf->r = *r;
	sf->r.binary = esc(sf, r->binary);
	sf->funcs = ot_xcalloc(r->nfuncs + 1, sizeof(*sf->funcs));
	memcpy(sf->funcs, r->funcs, r->nfuncs * sizeof(*sf->funcs));
	for (i = 0; i < r->nfuncs; i++)
		safe_func(sf, &sf->funcs[i]);
	sf->r.funcs = sf->funcs;
	if (r->names) {
		sf->names = ot_xcalloc(r->nfuncs + 1, sizeof(*sf->names));
		for (i = 0; i < r->nfuncs; i++)
			sf->names[i] = esc(sf, r->names[i]);
		sf->r.names = sf->names;
	}
	sf->refused = ot_xcalloc(r->nrefused + 1, sizeof(*sf->refused));
	for (i = 0; i < r->nrefused; i++) {
		sf->refused[i].name = esc(sf, r->refused[i].name);
		sf->refused[i].why = esc(sf, r->refused[i].why);
	}
	sf->r.refused = sf->refused;
	if (r->check) {
		sf->check = *r->check;
		sf->reasons = ot_xcalloc(r->check->nreasons + 1, sizeof(*sf->reasons));
		for (i = 0; i < r->check->nreasons; i++)
			sf->reasons[i] = (char *)esc(sf, r->check->reasons[i]);
		sf->check.reasons = sf->reasons;
		sf->r.check = &sf->check;
	}
	return &sf->r;
}

void ot_report_safe_free(struct ot_report_safe *sf)
{
	size_t i;

	for (i = 0; i < sf->nowned; i++)
		free(sf->owned[i]);
	for (i = 0; i < sf->nslows; i++)
		free(sf->slows[i]);
	free(sf->owned);
	free(sf->slows);
	free(sf->funcs);
	free(sf->names);
	free(sf->refused);
	free(sf->reasons);
	memset(sf, 0, sizeof(*sf));
}
