/*
 * select.c - the selection (select.h): the terms lib/symbols/terms cuts
 * matched against files' symbols, per binary of a binset, with close
 * matches named when a term finds nothing; usdt: terms go to usdtterms.c.
 */
#include "select.h"
#include "binset.h"
#include "debuginfo.h"
#include "terms.h"
#include "usdtterms.h"
#include "gobin.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t ot_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, *row, prev, d;

	row = ot_xcalloc(lb + 1, sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];

			d = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < d)
				d = row[j] + 1;
			if (row[j - 1] + 1 < d)
				d = row[j - 1] + 1;
			row[j] = d;
			prev = cur;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

/* forward */
static const char *last_component(const char *base);

/*
 * term names base by its last components: "middle" or
 * "orbit_stress::middle" for "crate::orbit_stress::middle", "twice" for
 * "app::twice<int>".
 */
static int bare_match(const char *base, const char *term)
{
	const char *c = last_component(base), *lt = strchr(c, '<');
	size_t n = strlen(term), bl = strlen(base);

	if (!strcmp(c, term) || (lt && (size_t)(lt - c) == n && !strncmp(c, term, n)))
		return 1;
	return strstr(term, "::") && bl > n + 2 && !strcmp(base + bl - n, term) &&
	       !strncmp(base + bl - n - 2, "::", 2);
}

/* term against every spelling of s: raw, demangled, without parameters.
 * A glob matches a name it spells too: Go's "main.(*T).M" and
 * "main.Sum[...]" hold '*' and '[' of their own. */
static int matches(const struct ot_sym *s, const char *term, int glob)
{
	if (glob)
		return !strcmp(term, s->name) || !fnmatch(term, s->name, 0) ||
		       (s->demangled && !fnmatch(term, s->demangled, 0)) ||
		       (s->base && !fnmatch(term, s->base, 0));
	return !strcmp(term, s->name) ||
	       (s->demangled && !strcmp(term, s->demangled)) ||
	       (s->base && !strcmp(term, s->base));
}

/* The last "::" component of a demangled base, outside template brackets. */
static const char *last_component(const char *base)
{
	const char *p, *last = base;
	int depth = 0;

	for (p = base; *p; p++) {
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth)
			depth--;
		else if (!depth && p[0] == ':' && p[1] == ':')
			last = p + 2;
	}
	return last;
}

/* "did you mean: a, b?" built from the closest names, or "" if none is close. */
/* a and b equal but for spaces ("req *" and "req*"). */
static int same_unspaced(const char *a, const char *b)
{
	for (;; a++, b++) {
		while (*a == ' ')
			a++;
		while (*b == ' ')
			b++;
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
	}
}

/*
 * A C++ name written with parameters that match no overload
 * ("app::parse(long)", "app::handle_get(req *)"): the demangled names
 * that differ only in spaces, else every overload of that name, as
 * " (did you mean: ...?)" into buf; 0 when there is none.
 */
static int suggest_overloads(const struct ot_elf *e, const char *name, char *buf, size_t len)
{
	const char *paren = strchr(name, '(');
	size_t i, used = 0;
	int pass, n = 0;
	char base[256];

	buf[0] = 0;
	if (!paren)
		return 0;
	/* "app::parse", without the parameters and the spaces before them. */
	snprintf(base, sizeof(base), "%.*s", (int)(paren - name), name);
	while (base[0] && base[strlen(base) - 1] == ' ')
		base[strlen(base) - 1] = 0;
	for (pass = 0; pass < 2 && !n; pass++) {
		for (i = 0; i < ot_elf_nsyms(e) && n < 4; i++) {
			const struct ot_sym *s = ot_elf_sym(e, i);
			int w;

			if (!s->demangled || !s->base || s->not_called)
				continue;
			if (pass ? strcmp(s->base, base) && !bare_match(s->base, base) :
				   !same_unspaced(s->demangled, name))
				continue;
			w = snprintf(buf + used, len - used, "%s%s", n ? ", " : " (did you mean: ",
				     s->demangled);
			if (w < 0 || (size_t)w >= len - used)
				break;
			used += (size_t)w;
			n++;
		}
	}
	if (n && used + 3 < len)
		strcat(buf, "?)");
	return n;
}

static void suggest(const struct ot_elf *e, const char *name, char *buf,
		    size_t len)
{
	size_t best[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX };
	size_t dist[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX };
	size_t limit = strlen(name) / 3 + 1, i, k, used = 0;

	if (limit > 3)
		limit = 3;
	if (suggest_overloads(e, name, buf, len))
		return;
	for (i = 0; i < ot_elf_nsyms(e); i++) {
		const struct ot_sym *s = ot_elf_sym(e, i);
		size_t d = ot_edit_distance(name, s->base ? s->base : s->name);

		if (s->base) {
			size_t d2 = ot_edit_distance(name, last_component(s->base));

			if (d2 < d)
				d = d2;
		}

		if (d > limit)
			continue;
		for (k = 0; k < 3; k++) {
			if (d < dist[k]) {
				memmove(&dist[k + 1], &dist[k], (2 - k) * sizeof(*dist));
				memmove(&best[k + 1], &best[k], (2 - k) * sizeof(*best));
				dist[k] = d;
				best[k] = i;
				break;
			}
		}
	}
	buf[0] = 0;
	for (k = 0; k < 3 && best[k] != SIZE_MAX; k++) {
		const struct ot_sym *s = ot_elf_sym(e, best[k]);
		int w = snprintf(buf + used, len - used, "%s%s",
				 k ? ", " : " (did you mean: ",
				 s->base ? s->base : s->name);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	if (used && used + 3 < len)
		strcat(buf, "?)");
}

/* One selection's working state over the symbols of one file. */
struct pick {
	const struct ot_elf *e;
	size_t n;		/* symbols */
	uint32_t *chosen;	/* per symbol: the 1-based term that chose it, or 0 */
	char *skipped;		/* per symbol: a glob matched it, but no call lands there */
	struct ot_term_vals *tv;	/* per term (0-based): the values it asks for */
	struct ot_term_vals *sv;	/* per symbol: what every term naming it asks, merged
				 * (names borrowed from tv) */
	int conflict;		/* terms asked one function more than it may record */
	const char *script;	/* e is the interpreter of this script, or NULL */
};

#define SYM(k, i) ot_elf_sym((k)->e, (i))

/* After a miss in a stripped file: what was searched, and where the
 * rest of its functions' names would be. */
static void stripped_note(const struct ot_elf *e)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	/* With servers named, the fetch said which were asked. */
	if (!ot_elf_symbols_stripped(e) || (urls && *urls))
		return;
	ot_note("%s is stripped: only the %zu functions its .dynsym exports were searched, no "
		"debug info was found for it (/usr/lib/debug, .gnu_debuglink); install its "
		"debug symbols (a -dbgsym package) or set DEBUGINFOD_URLS to a debuginfod server "
		"that has them", ot_elf_display(e), ot_elf_nsyms(e));
}

/* Why a name that is no function here cannot be traced (after a miss). */
static void explain_miss(const struct pick *k, const char *term, const struct ot_sym *refused)
{
	const char *file = ot_elf_display(k->e);
	char hint[512];

	if (ot_term_is_glob(term) && refused) {
		ot_error("no function that can be traced matches '%s' in %s: %s is %s", term,
			 file, ot_sym_display(refused), refused->not_called);
		return;
	}
	/* The script may exec the program the user means: a hint from the
	 * interpreter's own names would only mislead. */
	if (k->script) {
		ot_error("no function %s'%s' in %s, which runs the script %s; a script may exec "
			 "another program: name that program's file, as in -f /path/to/program:%s",
			 ot_term_is_glob(term) ? "matches " : "", term, file, k->script, term);
		return;
	}
	if (ot_term_is_glob(term)) {
		ot_error("no function matches '%s' in %s", term, file);
		stripped_note(k->e);
		return;
	}
	switch (ot_elf_other(k->e, term)) {
	case OT_OTHER_IFUNC:
		/* Probing the resolver would count one call at load. */
		ot_error("'%s' in %s is an IFUNC: the loader picks one of its implementations "
			 "when the program starts; trace that one by name (internal names need "
			 "the library's .symtab)", term, file);
		return;
	case OT_OTHER_IMPORTED:
		ot_error("'%s' is not defined in %s: it is imported from a shared library; "
			 "name the library's function instead", term, file);
		return;
	case OT_OTHER_DATA:
		ot_error("'%s' in %s is a data object, not a function", term, file);
		return;
	case OT_OTHER_NONE:
		break;
	}
	suggest(k->e, term, hint, sizeof(hint));
	ot_error("no function '%s' in %s%s", term, file, hint);
	stripped_note(k->e);
}

/*
 * Step 1a: the symbols term names by any of their spellings.  What no
 * call enters is skipped: "leaf" names leaf(long) and, without its
 * parameters, its "leaf(long) [clone .cold]" too.  A name that selects
 * nothing else is refused.  Returns how many it chose, or SIZE_MAX after
 * printing a refusal.
 */
/* src's values into dst (names borrowed); a function asked more than it
 * may record is refused (k->conflict), never one value dropped. */
static void merge_vals(struct pick *k, struct ot_term_vals *dst, const struct ot_term_vals *src,
		       const char *fn)
{
	uint8_t i;

	for (i = 0; i < src->n; i++) {
		if (ot_term_vals_add(dst, src->arg[i], src->name[i]) < 0 && !k->conflict) {
			ot_error("%s: terms ask more than %d values at its entry", fn,
				 OT_SEL_MAX_VALUES);
			k->conflict = 1;
		}
	}
	if (ot_term_vals_strs(dst) > 1 && !k->conflict) {
		ot_error("%s: terms ask %u of its values as strings (:str): one may be", fn,
			 ot_term_vals_strs(dst));
		k->conflict = 1;
	}
	if (src->ret && !dst->ret)
		dst->ret = src->ret;
}

/*
 * Symbol i named by term nterm: chosen by the first term that names it,
 * with what every term naming it asks ("take(arg1),take%ret" is both).
 */
static void choose(struct pick *k, size_t i, uint32_t nterm)
{
	if (!k->chosen[i])
		k->chosen[i] = nterm;
	merge_vals(k, &k->sv[i], &k->tv[nterm - 1], ot_sym_display(SYM(k, i)));
}

static size_t by_spelling(struct pick *k, const char *term, uint32_t nterm,
			  const struct ot_sym **refused)
{
	size_t i, hits = 0;

	for (i = 0; i < k->n; i++) {
		const struct ot_sym *s = SYM(k, i);

		if (!matches(s, term, ot_term_is_glob(term)))
			continue;
		if (s->not_called) {
			k->skipped[i] = 1;
			*refused = s;
			continue;
		}
		choose(k, i, nterm);
		hits++;
	}
	if (!hits && *refused && !ot_term_is_glob(term)) {
		ot_error("'%s' in %s cannot be traced: %s", term, ot_elf_display(k->e),
			 (*refused)->not_called);
		return SIZE_MAX;
	}
	return hits;
}

/*
 * Step 1b: "middle" for "orbit_stress::middle", when no spelling matched
 * and exactly one function's name ends so (its overloads included).
 * Returns how many it chose, or SIZE_MAX after printing the candidates.
 */
static size_t by_last_component(struct pick *k, const char *term, uint32_t nterm)
{
	const struct ot_sym *one = NULL;
	char list[1024];
	size_t i, used = 0, hits = 0;

	for (i = 0; i < k->n; i++) {
		const struct ot_sym *s = SYM(k, i);

		if (!s->base || !bare_match(s->base, term))
			continue;
		if (!one)
			one = s;
		else if (strcmp(one->base, s->base))
			break;
	}
	if (i < k->n) {
		for (i = 0; i < k->n && used + 2 < sizeof(list); i++) {
			const struct ot_sym *o = SYM(k, i);
			int w;

			if (!o->base || !bare_match(o->base, term))
				continue;
			w = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
				     o->demangled);
			if (w > 0)
				used += (size_t)w;
		}
		ot_error("'%s' is ambiguous in %s: %s; name one", term, ot_elf_display(k->e), list);
		return SIZE_MAX;
	}
	for (i = 0; one && i < k->n; i++) {
		const struct ot_sym *s = SYM(k, i);

		if (s->base && !strcmp(s->base, one->base) && !s->not_called) {
			choose(k, i, nterm);
			hits++;
		}
	}
	return hits;
}

/* Step 1: every inclusion term.  Returns the number of terms, or -ENOENT. */
/*
 * Whether whole (a term as written, value suffix and all), without its
 * "%ret", spells a symbol; if so, put it back into term (which
 * ot_term_values cut) without "%ret".
 */
static int spells_symbol(const struct pick *k, const char *whole, char *term)
{
	char name[512];
	char *pct;
	size_t i;

	snprintf(name, sizeof(name), "%s", whole);
	if ((pct = strstr(name, "%ret")))
		*pct = 0;
	if (ot_term_is_glob(name))
		return 0;
	for (i = 0; i < k->n; i++) {
		if (matches(SYM(k, i), name, 0)) {
			strcpy(term, name);
			return 1;
		}
	}
	return 0;
}

/* argN's N at most: Go's register ABI has nine. */
static int max_arg(const struct pick *k)
{
	return ot_elf_go(k->e) ? OT_SEL_MAX_GO_ARG : OT_SEL_MAX_ARG;
}

static int include_terms(struct pick *k, const char *spec, uint32_t *nterm)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term, whole[512];
	int ret = 0;

	*nterm = 0;
	while ((term = ot_term_next(&cursor))) {
		const struct ot_sym *refused = NULL;
		struct ot_term_vals v;
		size_t hits;

		if (!*term || *term == '!')
			continue;
		snprintf(whole, sizeof(whole), "%s", term);
		if (ot_term_values(term, &v, 1, max_arg(k))) {
			ret = -ENOENT;
			continue;
		}
		/* "ns::f(Foo)": a C++ name with its parameter list spells a
		 * symbol, and is that, not a value named Foo. */
		if (v.n && v.name[0] && spells_symbol(k, whole, term))
			ot_term_vals_free(&v);
		(*nterm)++;
		k->tv = ot_xreallocarray(k->tv, *nterm, sizeof(*k->tv));
		k->tv[*nterm - 1] = v;
		hits = by_spelling(k, term, *nterm, &refused);
		if (!hits && !ot_term_is_glob(term))
			hits = by_last_component(k, term, *nterm);
		if (!hits)
			explain_miss(k, term, refused);
		if (!hits || hits == SIZE_MAX)
			ret = -ENOENT;
	}
	free(copy);
	if (!*nterm && !ret) {
		ot_error("no function named in '%s'", spec);
		ret = -ENOENT;
	}
	return ret;
}

/* Step 2: "!GLOB" terms, after every inclusion. */
static void exclude_terms(struct pick *k, const char *spec)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	size_t i;

	while ((term = ot_term_next(&cursor))) {
		struct ot_term_vals v;

		if (*term != '!' || ot_term_values(term, &v, 1, max_arg(k)))
			continue;
		ot_term_vals_free(&v);
		for (i = 0; i < k->n; i++)
			if (matches(SYM(k, i), term + 1, 1))
				k->chosen[i] = 0;
	}
	free(copy);
}

/*
 * Step 3: the chosen symbols in the order the terms named them (names
 * within a glob sorted), names at one offset merged into one function
 * with aliases: the kernel would count one hit twice.
 */
/* f's values from v: the first entry value in arg/arg_name (what USDT
 * and one-value code read), the others in more, in order; names copied.
 * A string is the first wherever it was asked: it rides the entry's own
 * record, which the backends read strings with. */
static void set_values(struct ot_selected *f, const struct ot_term_vals *v)
{
	uint8_t i, first = 0;

	f->ret = v->ret;
	if (!v->n)
		return;
	for (i = 0; i < v->n; i++)
		if (v->arg[i] & OT_TERM_STR)
			first = i;
	f->str = !!(v->arg[first] & OT_TERM_STR);
	f->arg = v->arg[first] & (uint8_t)~OT_TERM_STR;
	f->arg_name = v->name[first] ? ot_xstrdup(v->name[first]) : NULL;
	for (i = 0; i < v->n; i++) {
		if (i == first)
			continue;
		f->more[f->nmore] = v->arg[i];
		f->more_name[f->nmore++] = v->name[i] ? ot_xstrdup(v->name[i]) : NULL;
	}
}

static void collect(struct pick *k, uint32_t nterm, struct ot_selection *out)
{
	struct ot_term_vals *fv = ot_xcalloc(k->n ? k->n : 1, sizeof(*fv));
	size_t i, j, t;

	out->fn = ot_xcalloc(k->n ? k->n : 1, sizeof(*out->fn));
	for (t = 1; t <= nterm; t++) {
		for (i = 0; i < k->n; i++) {
			const struct ot_sym *s = SYM(k, i);

			if (k->chosen[i] != t)
				continue;
			out->requested++;
			for (j = 0; j < out->n && out->fn[j].sym->offset != s->offset; j++)
				;
			/* Aliases: what each name asks for, together. */
			merge_vals(k, &fv[j], &k->sv[i], ot_sym_display(s));
			if (j < out->n) {
				struct ot_selected *f = &out->fn[j];
				char *a = NULL;

				if (asprintf(&a, "%s%s%s", f->aliases ? f->aliases : "",
					     f->aliases ? "," : "", ot_sym_display(s)) < 0)
					a = NULL;
				free(f->aliases);
				f->aliases = a;
				continue;
			}
			out->fn[out->n++].sym = s;
		}
	}
	for (j = 0; j < out->n; j++)
		set_values(&out->fn[j], &fv[j]);
	free(fv);
	/* Step 4: what globs skipped, for -v and -l. */
	out->skipped = ot_xcalloc(k->n ? k->n : 1, sizeof(*out->skipped));
	for (i = 0; i < k->n; i++) {
		if (!k->skipped[i])
			continue;
		out->skipped[out->nskipped++].sym = SYM(k, i);
		ot_verbose("%s: skipping %s: %s", ot_elf_display(k->e), ot_sym_display(SYM(k, i)),
			   SYM(k, i)->not_called);
	}
}

/* ot_elf_select, with e the interpreter of script (or NULL) for messages. */
static int select_in(const struct ot_elf *e, const char *spec, const char *script,
		     struct ot_selection *out)
{
	struct pick k = { .e = e, .n = ot_elf_nsyms(e), .script = script };
	uint32_t nterm, i;
	int ret;

	memset(out, 0, sizeof(*out));
	k.chosen = ot_xcalloc(k.n ? k.n : 1, sizeof(*k.chosen));
	k.skipped = ot_xcalloc(k.n ? k.n : 1, 1);
	k.sv = ot_xcalloc(k.n ? k.n : 1, sizeof(*k.sv));
	ret = include_terms(&k, spec, &nterm);
	if (!ret && k.conflict)
		ret = -ENOENT;
	if (!ret) {
		exclude_terms(&k, spec);
		collect(&k, nterm, out);
		if (k.conflict) {
			ret = -ENOENT;
			ot_selection_free(out);
		} else if (!out->n) {
			ot_error("every function selected by '%s' is excluded", spec);
			ret = -ENOENT;
			ot_selection_free(out);
		}
	}
	free(k.skipped);
	free(k.chosen);
	for (i = 0; i < nterm; i++)
		ot_term_vals_free(&k.tv[i]);
	free(k.tv);
	free(k.sv);
	return ret;
}

int ot_elf_select(const struct ot_elf *e, const char *spec,
		  struct ot_selection *out)
{
	return select_in(e, spec, NULL, out);
}

void ot_selection_free(struct ot_selection *s)
{
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		free(s->fn[i].aliases);
		free(s->fn[i].arg_name);
		for (k = 0; k < s->fn[i].nmore; k++)
			free(s->fn[i].more_name[k]);
		free(s->fn[i].name);
		free(s->fn[i].label);
	}
	free(s->fn);
	free(s->skipped);
	memset(s, 0, sizeof(*s));
}

/* f lives in bin: "libname:function" for a library's, "FILE:FUNCTION" for
 * messages; a probe "usdt:PROVIDER:NAME", "usdt:LIB:PROVIDER:NAME" and
 * "usdt:FILE:PROVIDER:NAME". */
static void name_it(struct ot_selected *f, const struct ot_binary *bin)
{
	const char *fn = ot_sym_display(f->sym);

	f->bin = bin;
	if (f->usdt) {
		if (bin->is_main ? asprintf(&f->name, "usdt:%s", fn) < 0 :
				   asprintf(&f->name, "usdt:%s:%s", bin->display, fn) < 0)
			f->name = ot_xstrdup(fn);
		if (asprintf(&f->label, "usdt:%s:%s", bin->display, fn) < 0)
			f->label = ot_xstrdup(fn);
		return;
	}
	if (bin->is_main || asprintf(&f->name, "%s:%s", bin->display, fn) < 0)
		f->name = ot_xstrdup(fn);
	if (asprintf(&f->label, "%s:%s", bin->display, fn) < 0)
		f->label = ot_xstrdup(fn);
}

struct ot_binset *ot_binset_new(struct ot_elf *main_elf, const char *path,
				const char *display, ot_lib_resolve_fn resolve,
				void *ctx)
{
	struct ot_binset *b = ot_xcalloc(1, sizeof(*b));

	b->bin = ot_xcalloc(1, sizeof(*b->bin));
	b->bin[0].path = ot_xstrdup(path);
	b->bin[0].display = ot_xstrdup(display);
	b->bin[0].file = ot_xstrdup(display);
	b->bin[0].elf = main_elf;
	b->bin[0].is_main = 1;
	b->n = 1;
	b->resolve = resolve;
	b->ctx = ctx;
	return b;
}

void ot_binset_free(struct ot_binset *b)
{
	size_t i, k;

	if (!b)
		return;
	for (i = 0; i < b->n; i++) {
		if (!b->bin[i].is_main)
			ot_elf_close(b->bin[i].elf);
		if (b->bin[i].usdt) {
			for (k = 0; k < b->bin[i].usdt->n; k++)
				free((char *)b->bin[i].usdt_syms[k].name);
			ot_usdt_free(b->bin[i].usdt);
			free(b->bin[i].usdt);
			free(b->bin[i].usdt_syms);
		}
		free(b->bin[i].path);
		free(b->bin[i].display);
		free(b->bin[i].file);
	}
	free(b->bin);
	free(b->script);
	free(b);
}

void ot_binset_set_script(struct ot_binset *b, const char *cmd, const char *path)
{
	free(b->script);
	b->script = NULL;
	if (!strcmp(cmd, path))
		b->script = ot_xstrdup(path);
	else if (asprintf(&b->script, "%s (%s)", cmd, path) < 0)
		b->script = NULL;
}

/* The binary for library name, opened on first use; NULL after printing. */
struct ot_binary *ot_binset_library(struct ot_binset *b, const char *name)
{
	struct ot_binary *lib;
	const char *slash;
	char *path = NULL, *file = NULL;
	size_t i;

	if (b->resolve(b->ctx, name, &path, &file))
		return NULL;
	for (i = 1; i < b->n; i++) {
		if (!strcmp(b->bin[i].path, path)) {
			free(path);
			free(file);
			return &b->bin[i];
		}
	}
	b->bin = ot_xreallocarray(b->bin, b->n + 1, sizeof(*b->bin));
	lib = &b->bin[b->n];
	memset(lib, 0, sizeof(*lib));
	lib->path = path;
	lib->file = file;
	/* Shown by its file name: "libwork.so:work_add". */
	slash = strrchr(name, '/');
	lib->display = ot_xstrdup(slash ? slash + 1 : name);
	if (ot_elf_open(path, file, &lib->elf)) {
		free(lib->path);
		free(lib->display);
		free(lib->file);
		return NULL;
	}
	b->n++;
	return lib;
}

/*
 * One binary's selection, part, moved to the end of out.  Which binary
 * (its index bin) is kept in *idx and *skidx, not as a pointer: bin[]
 * moves while later groups open their libraries.
 */
static void take_part(struct ot_selection *out, struct ot_selection *part, size_t bin,
		      size_t **idx, size_t **skidx)
{
	size_t i;

	out->fn = ot_xreallocarray(out->fn, out->n + part->n, sizeof(*out->fn));
	*idx = ot_xreallocarray(*idx, out->n + part->n, sizeof(**idx));
	for (i = 0; i < part->n; i++) {
		out->fn[out->n + i] = part->fn[i];
		(*idx)[out->n + i] = bin;
	}
	out->n += part->n;
	out->requested += part->requested;
	out->skipped = ot_xreallocarray(out->skipped, out->nskipped + part->nskipped + 1,
					sizeof(*out->skipped));
	*skidx = ot_xreallocarray(*skidx, out->nskipped + part->nskipped + 1, sizeof(**skidx));
	for (i = 0; i < part->nskipped; i++) {
		out->skipped[out->nskipped + i] = part->skipped[i];
		(*skidx)[out->nskipped + i] = bin;
	}
	out->nskipped += part->nskipped;
	free(part->skipped);
	free(part->fn);
}

/*
 * What one binary's terms ask of its debug info: 2 a name its symbols
 * lack, or a parameter by its DWARF name (nothing can be armed without
 * it); 1 a glob, whose answer from a stripped file's .dynsym would miss
 * the functions it does not export; 0 nothing more.  Quiet: select_in
 * judges the terms.
 */
static int asks_debuginfo(const struct ot_elf *e, const char *terms)
{
	char *copy = ot_xstrdup(terms), *cursor = copy, *term, whole[512];
	struct pick k = { .e = e, .n = ot_elf_nsyms(e) };
	int need = 0, named;
	size_t i, hit;
	struct ot_term_vals v;

	while ((term = ot_term_next(&cursor)) && need < 2) {
		if (!*term || *term == '!')
			continue;
		snprintf(whole, sizeof(whole), "%s", term);
		if (ot_term_values(term, &v, 0, max_arg(&k)))
			continue;
		for (i = 0, named = 0; i < v.n; i++)
			named |= v.name[i] != NULL;
		if (named && spells_symbol(&k, whole, term))
			named = 0;
		ot_term_vals_free(&v);
		if (named) {
			need = 2;
		} else if (ot_term_is_glob(term)) {
			need = 1;
		} else if (ot_elf_symbols_stripped(e)) {
			for (i = 0, hit = 0; i < k.n && !hit; i++)
				hit = matches(SYM(&k, i), term, 0) ||
				      (SYM(&k, i)->base && bare_match(SYM(&k, i)->base, term));
			if (!hit)
				need = 2;
		}
	}
	free(copy);
	return need;
}

/*
 * debuginfod asked for what bin's terms need that its own symbols and
 * DWARF lack (lib/symbols/debuginfo): a stripped file's symbols are
 * replaced by its debug info's, before anything is selected from it.  A
 * failure is said, and the selection then says what is missing.
 */
static void fetch_debuginfo(struct ot_binary *bin, const char *terms)
{
	char *file = NULL;
	int need;

	if (!bin->elf || !ot_debuginfod_enabled())
		return;
	need = asks_debuginfo(bin->elf, terms);
	if (!need)
		return;
	if (ot_elf_symbols_stripped(bin->elf))
		(void)ot_elf_fetch_symbols(bin->elf, bin->path, need == 2);
	else if (need == 2 && !ot_debuginfo_has_dwarf(bin->path) &&
		   !ot_debuginfo_fetch(bin->path, bin->display, 1, &file)) {
		free(file);
	}
}

/* The one selected function that a pair's term ("FILE:NAME(argN)")
 * named, or -1 after printing. */
static ssize_t pair_member(const struct ot_selection *out, const char *term, const char *pair)
{
	char name[512], *paren;
	size_t pre = ot_term_lib_prefix(term), i;
	ssize_t hit = -1;
	const char *bare;

	snprintf(name, sizeof(name), "%s", term);
	if ((paren = strrchr(name, '(')))
		*paren = 0;
	bare = name + pre + (pre ? 1 : 0);
	for (i = 0; i < out->n; i++) {
		const struct ot_sym *s = out->fn[i].sym;

		if (out->fn[i].usdt || (pre ? out->fn[i].bin->is_main ||
					strncmp(out->fn[i].bin->display, name, pre) :
					!out->fn[i].bin->is_main))
			continue;
		if (!matches(s, bare, 0) && !(s->base && bare_match(s->base, bare)))
			continue;
		if (hit >= 0) {
			ot_error("%s: '%s' names several functions (%s, %s): a pair is two functions, "
				 "name each one", pair, bare, out->fn[hit].name, out->fn[i].name);
			return -1;
		}
		hit = (ssize_t)i;
	}
	if (hit < 0)
		ot_error("%s: '%s' selects no function", pair, bare);
	return hit;
}

/* Mark each pair's two functions (after the selection made them). */
static int mark_pairs(struct ot_selection *out, char **pairs, int n, unsigned *args)
{
	int p, m;

	for (p = 0; p < n; p++) {
		char pair[1024];
		ssize_t at[2];

		snprintf(pair, sizeof(pair), "pair %d (%s..%s)", p + 1, pairs[2 * p], pairs[2 * p + 1]);
		for (m = 0; m < 2; m++) {
			struct ot_selected *f;

			if ((at[m] = pair_member(out, pairs[2 * p + m], pair)) < 0)
				return -ENOENT;
			f = &out->fn[at[m]];
			if (f->fpair || f->str || f->arg_name || f->nmore ||
			    OT_SEL_ARG(f->arg) != args[p] || (f->arg & OT_SEL_32)) {
				ot_error("%s: %s is %s: a pair's function records its key alone, "
					 "in one pair", pair, f->name, f->fpair ? "in two pairs" :
					 "asked other values too");
				return -ENOENT;
			}
			f->fpair = m ? OT_SEL_PAIR_RETURN : OT_SEL_PAIR_ENTRY;
			f->fpair_id = (uint16_t)(p + 1);
		}
		if (at[0] == at[1]) {
			ot_error("%s: a pair is two functions: ENTRYFN and RETURNFN are one", pair);
			return -ENOENT;
		}
	}
	return 0;
}

static int binset_select(struct ot_binset *b, const char *spec, struct ot_selection *out);

int ot_binset_select(struct ot_binset *b, const char *spec,
		     struct ot_selection *out)
{
	char *rewritten, **pairs;
	int n = ot_term_fn_pairs(spec, &rewritten, &pairs), ret, p;
	unsigned *args;

	if (n < 0) {
		memset(out, 0, sizeof(*out));
		return -ENOENT;
	}
	ret = binset_select(b, rewritten, out);
	args = ot_term_pair_args(pairs, n);
	if (!ret && n && (ret = mark_pairs(out, pairs, n, args)))
		ot_selection_free(out);
	for (p = 0; p < 2 * n; p++)
		free(pairs[p]);
	free(pairs);
	free(args);
	free(rewritten);
	return ret;
}

static int binset_select(struct ot_binset *b, const char *spec,
			 struct ot_selection *out)
{
	struct ot_term_groups tg;
	size_t g, i, *idx = NULL, *skidx = NULL, *gbin;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	ot_term_group(spec, &tg);
	gbin = ot_xcalloc(tg.n + 1, sizeof(*gbin));
	/* Every binary opened, and given what debuginfod has for it, before
	 * any is selected from: its symbols may be replaced. */
	for (g = 0; g < tg.n; g++) {
		struct ot_binary *bin = tg.keys[g] ? ot_binset_library(b, tg.keys[g]) : &b->bin[0];

		if (!bin) {
			ret = -ENOEXEC;
			break;
		}
		gbin[g] = (size_t)(bin - b->bin);
	}
	for (g = 0; g < tg.n && !ret; g++)
		fetch_debuginfo(&b->bin[gbin[g]], tg.terms[g]);
	for (g = 0; g < tg.n && !ret; g++) {
		struct ot_binary *bin = &b->bin[gbin[g]];
		struct ot_selection part;

		if (!bin->elf) {
			/* No program of its own (-a): every term names its file. */
			ot_error("'%s' names no file: give it as FILE:NAME or SONAME:NAME",
				 tg.terms[g]);
			ret = -ENOENT;
			break;
		}
		if (tg.global_excl)
			ot_term_append(&tg.terms[g], tg.global_excl, strlen(tg.global_excl));
		if (select_in(bin->elf, tg.terms[g], bin->is_main ? b->script : NULL, &part)) {
			ret = -ENOENT;
			break;
		}
		take_part(out, &part, (size_t)(bin - b->bin), &idx, &skidx);
	}
	if (!ret)
		ret = ot_usdt_terms(b, spec, out, &idx);
	/* bin[] moves as libraries are added: point into it once all are open. */
	for (i = 0; !ret && i < out->n; i++)
		name_it(&out->fn[i], &b->bin[idx[i]]);
	for (i = 0; !ret && i < out->nskipped; i++)
		out->skipped[i].bin = &b->bin[skidx[i]];
	free(idx);
	free(skidx);
	free(gbin);
	ot_term_groups_free(&tg);
	if (ret)
		ot_selection_free(out);
	return ret;
}

