/*
 * usdtterms.c - the usdt: terms of a -f list (usdtterms.h): each term's
 * FILE, PROVIDER, NAME and what it asks, matched against the notes of
 * the file it names; pairs, exclusions, and the probes a file has when a
 * term finds none.
 */
#include "usdtterms.h"
#include "binset.h"
#include "terms.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fnmatch.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a usdt: term asks beside its probes. */
struct usdt_ask {
	uint8_t arg, str;	/* argument (1-based, 0 none); read as a string */
	char *ret_name;		/* ENTRY..RETURN: RETURN (in the term), else NULL */
	uint8_t pair;		/* matching ENTRY or RETURN: OT_SEL_PAIR_* */
	uint16_t pair_id;
};

/* "argN" or "argN:str" at s, the whole of s: 0, or -EINVAL. */
static int usdt_argspec(const char *s, struct usdt_ask *a)
{
	char *end;
	long n;

	if (strncmp(s, "arg", 3))
		return -EINVAL;
	n = strtol(s + 3, &end, 10);
	if (end == s + 3 || n < 1 || n > OT_USDT_MAX_ARGS)
		return -EINVAL;
	a->str = !strcmp(end, ":str");
	if (*end && !a->str)
		return -EINVAL;
	a->arg = (uint8_t)n;
	return 0;
}

/* A usdt: term's suffix, "(argN[:str])" or "@argN[:str]" after
 * ENTRY..RETURN, cut off in place.  0, or -EINVAL after printing. */
static int usdt_suffix(char *term, const char *orig, struct usdt_ask *a)
{
	size_t len = strlen(term);
	char *open = strrchr(term, '('), *at = strrchr(term, '@'), *end = at ? at : term + len;
	/* ".." in NAME only: FILE may be a relative path ("../bin/app"). */
	char *name = memrchr(term, ':', (size_t)(end - term)), *dots = name ? strstr(name, "..") : NULL;

	if (dots && dots > end)
		dots = NULL;
	if (dots) {
		if (!at || usdt_argspec(at + 1, a) || dots == at - 2 || strchr(dots + 2, '.')) {
			ot_error("%s: a pair of probes is usdt:FILE:PROVIDER:ENTRY..RETURN@argN "
				 "or @argN:str (the argument both carry, its key)", orig);
			return -EINVAL;
		}
		*at = *dots = 0;
		a->ret_name = dots + 2;
		return 0;
	}
	if (len && term[len - 1] == ')' && open && !strncmp(open, "(arg", 4)) {
		term[len - 1] = 0;
		if (usdt_argspec(open + 1, a)) {
			ot_error("%s: the arguments of a probe are arg1 to arg%d, as its note "
				 "declares them, arg2:str for a string's", orig, OT_USDT_MAX_ARGS);
			return -EINVAL;
		}
		*open = 0;
	}
	return 0;
}

/* A usdt: term's parts (after its '!', if any), cut in place: FILE,
 * PROVIDER or NULL, NAME, and what it asks.  0, or -EINVAL after
 * printing. */
static int usdt_parts(char *term, char **file, char **prov, char **name, struct usdt_ask *a)
{
	char *orig = ot_xstrdup(term), *p = term + 5 + (*term == '!'), *c1, *c2;
	int ret = -EINVAL;

	memset(a, 0, sizeof(*a));
	if (usdt_suffix(term, orig, a))
		goto out;
	c1 = strchr(p, ':');
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c1 || c1 == p || !c1[1] || (c2 && (c2 == c1 + 1 || !c2[1] || strchr(c2 + 1, ':')))) {
		ot_error("%s: a probe is usdt:FILE:PROVIDER:NAME or usdt:FILE:NAME", orig);
		goto out;
	}
	*c1 = 0;
	*file = p;
	*prov = c2 ? c1 + 1 : NULL;
	if (c2)
		*c2 = 0;
	*name = c2 ? c2 + 1 : c1 + 1;
	ret = 0;
out:
	free(orig);
	return ret;
}

/* The binary a usdt: term's FILE names: the program by its path or file
 * name, else a library.  NULL after printing. */
static struct ot_binary *usdt_binary(struct ot_binset *b, const char *file)
{
	const struct ot_binary *m = &b->bin[0];
	char *copy = ot_xstrdup(m->display), *base = basename(copy);
	int is_main = m->elf && (!strcmp(file, m->path) || !strcmp(file, m->display) ||
				 !strcmp(file, m->file) || !strcmp(file, base));

	free(copy);
	return is_main ? &b->bin[0] : ot_binset_library(b, file);
}

/* bin's probes, read once, with a stand-in symbol each.  0, or -errno
 * after printing. */
static int usdt_notes(struct ot_binary *bin, const char *term)
{
	size_t k;
	int err;

	if (bin->usdt)
		return 0;
	bin->usdt = ot_xcalloc(1, sizeof(*bin->usdt));
	err = ot_usdt_read(bin->path, bin->usdt);
	if (err) {
		ot_error_errno(-err, "%s: cannot read the probes of %s", term, bin->display);
		free(bin->usdt);
		bin->usdt = NULL;
		return err;
	}
	bin->usdt_syms = ot_xcalloc(bin->usdt->n + 1, sizeof(*bin->usdt_syms));
	for (k = 0; k < bin->usdt->n; k++) {
		const struct ot_usdt_probe *p = &bin->usdt->probe[k];
		char *nm = NULL;

		if (asprintf(&nm, "%s:%s", p->provider, p->name) < 0)
			nm = ot_xstrdup(p->name);
		bin->usdt_syms[k].name = nm;
		bin->usdt_syms[k].offset = p->sites[0].offset;
		bin->usdt_syms[k].addr = p->sites[0].vaddr;
	}
	return 0;
}

/* "(probes: a:b, c:d)" of bin, or "(it has no USDT probes)", into buf. */
static void usdt_list(const struct ot_binary *bin, char *buf, size_t len)
{
	size_t k, used = 0;

	if (!bin->usdt->n) {
		snprintf(buf, len, "(it has no USDT probes)");
		return;
	}
	for (k = 0; k < bin->usdt->n && used + 8 < len; k++) {
		int w = snprintf(buf + used, len - used, "%s%s", k ? ", " : "(probes: ",
				 bin->usdt_syms[k].name);

		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	if (used + 2 < len)
		strcat(buf, ")");
}

/* The probes term selects in bin into out, and their binary's index. */
static int usdt_match(struct ot_binset *b, size_t bi, const char *term, const char *prov,
		      const char *name, const struct usdt_ask *ask, struct ot_selection *out,
		      size_t **idx)
{
	uint8_t arg = ask->arg;
	const struct ot_binary *bin = &b->bin[bi];
	size_t k, hits = 0;
	char list[1024];

	for (k = 0; k < bin->usdt->n; k++) {
		const struct ot_usdt_probe *p = &bin->usdt->probe[k];
		struct ot_usdt_arg a[OT_USDT_MAX_ARGS];
		char why[128];
		size_t j;
		int nargs;

		if ((prov && fnmatch(prov, p->provider, 0)) || fnmatch(name, p->name, 0))
			continue;
		nargs = ot_usdt_args_parse(p->sites[0].args, a, OT_USDT_MAX_ARGS, why, sizeof(why));
		if (arg && nargs >= 0 && arg > nargs) {
			ot_error("%s: %s has %d argument%s%s%s%s: no arg%u", term,
				 bin->usdt_syms[k].name, nargs, nargs == 1 ? "" : "s",
				 nargs ? " (" : "", p->sites[0].args, nargs ? ")" : "", arg);
			return -ENOENT;
		}
		hits++;
		/* Named twice: armed once, with what either term asks - one
		 * argument, a pair's key or a value, never two. */
		for (j = 0; j < out->n && out->fn[j].usdt != p; j++)
			;
		if (j < out->n && arg && out->fn[j].arg &&
		    (out->fn[j].arg != arg || out->fn[j].str != ask->str)) {
			ot_error("%s: %s is asked for arg%u%s and for arg%u%s (%s): a probe records "
				 "one argument, its value or its pair's key", term,
				 bin->usdt_syms[k].name, out->fn[j].arg, out->fn[j].str ? ":str" : "",
				 arg, ask->str ? ":str" : "",
				 out->fn[j].pair || ask->pair ? "one as a pair's key" : "by two terms");
			return -ENOENT;
		}
		if (j < out->n) {
			if (!out->fn[j].arg) {
				out->fn[j].arg = arg;
				out->fn[j].str = ask->str;
			}
			if (ask->pair) {
				out->fn[j].pair = ask->pair;
				out->fn[j].pair_id = ask->pair_id;
			}
			continue;
		}
		out->fn = ot_xreallocarray(out->fn, out->n + 1, sizeof(*out->fn));
		*idx = ot_xreallocarray(*idx, out->n + 1, sizeof(**idx));
		memset(&out->fn[out->n], 0, sizeof(*out->fn));
		out->fn[out->n].sym = &bin->usdt_syms[k];
		out->fn[out->n].usdt = p;
		out->fn[out->n].arg = arg;
		out->fn[out->n].str = ask->str;
		out->fn[out->n].pair = ask->pair;
		out->fn[out->n].pair_id = ask->pair_id;
		(*idx)[out->n++] = bi;
		out->requested++;
	}
	if (ask->pair && hits > 1) {
		ot_error("%s: %s matches %zu probes of %s: each of a pair names one", term,
			 name, hits, bin->display);
		return -ENOENT;
	}
	if (!hits) {
		usdt_list(bin, list, sizeof(list));
		ot_error("%s: no such probe in %s %s", term, bin->display, list);
		return -ENOENT;
	}
	return 0;
}

/* "!usdt:FILE:PROVIDER:NAME": the probes of bin it matches out of out,
 * which holds first functions (before nfn), then probes. */
static void usdt_exclude(struct ot_selection *out, size_t *idx, size_t nfn, size_t bi,
			 const char *prov, const char *name)
{
	size_t i, k;

	for (i = k = nfn; i < out->n; i++) {
		const struct ot_usdt_probe *p = out->fn[i].usdt;

		if (idx[i] == bi && (!prov || !fnmatch(prov, p->provider, 0)) &&
		    !fnmatch(name, p->name, 0))
			continue;
		out->fn[k] = out->fn[i];
		idx[k++] = idx[i];
	}
	out->requested -= out->n - k;
	out->n = k;
}

/* Whether pair id's entry probe is in out (its return may have taken it). */
static int pair_has_entry(const struct ot_selection *out, uint16_t id)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		if (out->fn[i].pair_id == id && out->fn[i].pair == OT_SEL_PAIR_ENTRY)
			return 1;
	return 0;
}

/* One usdt: term (!usdt: excluding, when excl) applied to out; a pair
 * is numbered *npairs + 1. */
static int usdt_term(struct ot_binset *b, const char *term, int excl, size_t nfn,
		     struct ot_selection *out, size_t **idx, uint16_t *npairs)
{
	char *t = ot_xstrdup(term), *file, *prov, *name;
	struct ot_binary *bin = NULL;
	struct usdt_ask ask;
	int ret;

	ret = usdt_parts(t, &file, &prov, &name, &ask);
	if (!ret && excl && ask.ret_name) {
		ot_error("%s: a pair is not excluded: exclude each probe", term);
		ret = -EINVAL;
	}
	if (!ret && ask.ret_name && !strcmp(name, ask.ret_name)) {
		ot_error("%s: a pair is two probes: ENTRY and RETURN are one", term);
		ret = -EINVAL;
	}
	if (!ret && !(bin = usdt_binary(b, file)))
		ret = -ENOEXEC;
	if (!ret)
		ret = usdt_notes(bin, term);
	if (!ret && excl) {
		usdt_exclude(out, *idx, nfn, (size_t)(bin - b->bin), prov, name);
	} else if (!ret && ask.ret_name) {
		ask.pair_id = ++*npairs;
		ask.pair = OT_SEL_PAIR_ENTRY;
		ret = usdt_match(b, (size_t)(bin - b->bin), term, prov, name, &ask, out, idx);
		ask.pair = OT_SEL_PAIR_RETURN;
		if (!ret)
			ret = usdt_match(b, (size_t)(bin - b->bin), term, prov, ask.ret_name,
					 &ask, out, idx);
		/* The same probe by two globs: its entry role taken over. */
		if (!ret && !pair_has_entry(out, ask.pair_id)) {
			ot_error("%s: a pair is two probes: ENTRY and RETURN are one", term);
			ret = -EINVAL;
		}
	} else if (!ret) {
		ret = usdt_match(b, (size_t)(bin - b->bin), term, prov, name, &ask, out, idx);
	}
	free(t);
	return ret;
}

/* Every usdt: term of spec into out (after what is there), with idx;
 * then every !usdt: term. */
int ot_usdt_terms(struct ot_binset *b, const char *spec, struct ot_selection *out,
		      size_t **idx)
{
	size_t nfn = out->n;
	uint16_t npairs = 0;
	int ret = 0, excl;

	for (excl = 0; excl < 2 && !ret; excl++) {
		char *copy = ot_xstrdup(spec), *cursor = copy, *term;

		while (!ret && (term = ot_term_next(&cursor)))
			if (ot_select_is_usdt(term) && (*term == '!') == excl)
				ret = usdt_term(b, term, excl, nfn, out, idx, &npairs);
		free(copy);
	}
	/* Nothing left to trace at all: as select_in says of functions. */
	if (!ret && !out->n && ot_select_asks_usdt(spec)) {
		ot_error("every probe selected by '%s' is excluded", spec);
		ret = -ENOENT;
	}
	return ret == -ENOEXEC ? ret : ret ? -ENOENT : 0;
}

