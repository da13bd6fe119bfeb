/*
 * select.c - the -f selection language (select.h): terms parsed (globs,
 * exclusions, libraries, values, usdt: terms) and matched against files'
 * symbols and USDT notes, with close matches named when a term finds nothing.
 */
#include "select.h"
#include "debuginfo.h"
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

static int is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
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

/* The next comma-separated term; commas inside parentheses (a value list,
 * "read(arg1,arg3)", or a C++ parameter list) do not end it. */
static char *next_term(char **cursor)
{
	char *t = *cursor, *comma;
	int depth = 0;

	if (!t)
		return NULL;
	for (comma = t; *comma && (*comma != ',' || depth > 0); comma++)
		depth += *comma == '(' ? 1 : *comma == ')' ? -1 : 0;
	if (*comma) {
		*comma = 0;
		*cursor = comma + 1;
	} else {
		*cursor = NULL;
	}
	while (*t == ' ')
		t++;
	return t;
}

/* Values a term asks for: n at the entry, each an OT_SEL_* code (argN)
 * or a parameter's DWARF name ("flags", "req->len"; code 0); the return
 * value's code. */
struct vals {
	uint8_t n;
	uint8_t arg[OT_SEL_MAX_VALUES];
	char *name[OT_SEL_MAX_VALUES];
	uint8_t ret;
};

static void vals_free(struct vals *v)
{
	uint8_t i;

	for (i = 0; i < v->n; i++)
		free(v->name[i]);
	v->n = 0;
}

/* Value (arg, name) into v unless v has it: 1 added, 0 had, -1 full.
 * name is borrowed. */
static int vals_add(struct vals *v, uint8_t arg, char *name)
{
	uint8_t i;

	for (i = 0; i < v->n; i++)
		if (v->arg[i] == arg && !v->name[i] == !name && (!name || !strcmp(v->name[i], name)))
			return 0;
	if (v->n == OT_SEL_MAX_VALUES)
		return -1;
	v->arg[v->n] = arg;
	v->name[v->n++] = name;
	return 1;
}

/* One selection's working state over the symbols of one file. */
struct pick {
	const struct ot_elf *e;
	size_t n;		/* symbols */
	uint32_t *chosen;	/* per symbol: the 1-based term that chose it, or 0 */
	char *skipped;		/* per symbol: a glob matched it, but no call lands there */
	struct vals *tv;	/* per term (0-based): the values it asks for */
	struct vals *sv;	/* per symbol: what every term naming it asks, merged
				 * (names borrowed from tv) */
	int conflict;		/* terms asked one function more than it may record */
	const char *script;	/* e is the interpreter of this script, or NULL */
};

/*
 * Whether s (n bytes between a term's parentheses) is a C++ parameter
 * list rather than values: it has a type's punctuation, or a word that is
 * a C++ type keyword ("f(int)", "ns::f(long, char const*)").
 */
static int cxx_params(const char *s, size_t n)
{
	static const char *const kw[] = {
		"int", "long", "short", "char", "unsigned", "signed", "void", "bool",
		"float", "double", "const", "volatile", "wchar_t", "char8_t", "char16_t",
		"char32_t", "__int128", "std", "auto", "decltype", "...",
	};
	size_t i, w;

	if (!n)
		return 1;
	for (i = 0; i < n; i++)
		if (strchr(" *&<[.", s[i]) || (s[i] == ':' && i + 1 < n && s[i + 1] == ':'))
			return 1;
	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
		w = strlen(kw[i]);
		if (n >= w && !strncmp(s, kw[i], w) && (n == w || s[w] == ','))
			return 1;
	}
	return 0;
}

static int is_ident(const char *s, size_t n)
{
	size_t i;

	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

/* A value's code bit in struct vals (never in ot_selected): ":str", the
 * string it points to. */
#define VAL_STR 0x40

/* One value, item (NUL-terminated, cut from the list), into *arg (its
 * OT_SEL_* code, | VAL_STR) and *name: 0, or -EINVAL after printing (if
 * print) why. */
static int one_value(const char *term, char *item, uint8_t *arg, char **name, int print,
		     int max_arg)
{
	char whole[256], *colon, *arrow, *end;
	uint8_t str = 0;
	size_t len;
	long n;

	snprintf(whole, sizeof(whole), "%s", item);
	colon = strchr(item, ':');
	if (colon && !strcmp(colon, ":str")) {
		*colon = 0;
		colon = NULL;
		str = VAL_STR;
	}
	arrow = strstr(item, "->");
	len = colon ? (size_t)(colon - item) : strlen(item);
	if (!strncmp(item, "arg", 3) && len > 3 && isdigit((unsigned char)item[3])) {
		n = strtol(item + 3, &end, 10);
		if (end != item + len || (colon && strcmp(colon, ":32")))
			goto bad;
		if (n < 1 || n > max_arg) {
			if (print && max_arg == OT_SEL_MAX_GO_ARG)
				ot_error("'%s': the arguments of a Go function are arg1 to arg%d "
					 "(the registers Go's register ABI passes integers in: %s)",
					 term, OT_SEL_MAX_GO_ARG, OT_SEL_GO_ARG_REGS);
			else if (print)
				ot_error("'%s': the arguments are arg1 to arg%d (the registers "
					 "that pass integers: %s)", term, OT_SEL_MAX_ARG,
					 OT_SEL_ARG_REGS);
			return -EINVAL;
		}
		*arg = (uint8_t)(n | (colon ? OT_SEL_32 : 0) | str);
		return 0;
	}
	if (colon)
		goto bad;
	if (arrow ? !is_ident(item, (size_t)(arrow - item)) || !is_ident(arrow + 2, strlen(arrow + 2))
		  : !is_ident(item, len))
		goto bad;
	*name = ot_xstrdup(item);
	*arg = str;
	return 0;
bad:
	if (print)
		ot_error("'%s': '%s' is no value: %s", term, whole, OT_SEL_SYNTAX);
	return -EINVAL;
}

/* How many of v's values are strings. */
static unsigned vals_strs(const struct vals *v)
{
	unsigned i, n = 0;

	for (i = 0; i < v->n; i++)
		n += !!(v->arg[i] & VAL_STR);
	return n;
}

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
static int value_suffix(char *term, struct vals *v, int print, int max_arg)
{
	int depth = 0;
	char whole[512], *open, *item, *comma;
	size_t len = strlen(term);
	memset(v, 0, sizeof(*v));
	snprintf(whole, sizeof(whole), "%s", term);
	if (len > 7 && !strcmp(term + len - 7, "%ret:32")) {
		v->ret = OT_SEL_RET | OT_SEL_32;
		term[len -= 7] = 0;
	} else if (len > 4 && !strcmp(term + len - 4, "%ret")) {
		v->ret = OT_SEL_RET;
		term[len -= 4] = 0;
	}
	if (strchr(term, '%')) {
		if (print)
			ot_error("'%s': %s", whole, OT_SEL_SYNTAX);
		return -EINVAL;
	}
	/* The parenthesis the last one closes. */
	for (open = len ? term + len - 1 : term; open > term; open--) {
		depth += *open == ')' ? 1 : *open == '(' ? -1 : 0;
		if (!depth)
			break;
	}
	if (!len || term[len - 1] != ')' || *open != '(' ||
	    cxx_params(open + 1, (size_t)(term + len - 1 - open - 1)))
		return 0;	/* no values, or a C++ parameter list */
	term[len - 1] = 0;
	for (item = open + 1; item; item = comma) {
		uint8_t arg = 0;
		char *name = NULL;
		int added;

		if ((comma = strchr(item, ',')))
			*comma++ = 0;
		if (one_value(whole, item, &arg, &name, print, max_arg)) {
			vals_free(v);
			return -EINVAL;
		}
		if ((added = vals_add(v, arg, name)) <= 0)
			free(name);
		if (added < 0) {
			if (print)
				ot_error("'%s': at most %d values at the entry of a function", whole,
					 OT_SEL_MAX_VALUES);
			vals_free(v);
			return -EINVAL;
		}
	}
	if (vals_strs(v) > 1) {
		if (print)
			ot_error("'%s': one value of a function may be read as a string (:str), "
				 "not %u", whole, vals_strs(v));
		vals_free(v);
		return -EINVAL;
	}
	*open = 0;
	return 0;
}

int ot_select_asks_values(const char *spec)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	int asks = 0;

	while (!asks && (term = next_term(&cursor))) {
		struct vals v;

		/* A probe's arguments are asked with the probe (OT_CAN_USDT). */
		if (ot_select_is_usdt(term))
			continue;
		/* A function pair's key is an argument: a value. */
		if (*term != '!' && strstr(term, "..") && strstr(term, "@arg")) {
			asks = 1;
			break;
		}
		asks = value_suffix(term, &v, 0, OT_SEL_MAX_GO_ARG) || v.n || v.ret;
		vals_free(&v);
	}
	free(copy);
	return asks;
}

static size_t lib_prefix(const char *term);

int ot_select_includes(const char *spec)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	int any = 0;

	while (!any && (term = next_term(&cursor))) {
		const char *name;

		if (*term == '!')
			continue;
		/* A probe's term is checked whole when its file is read. */
		if (ot_select_is_usdt(term)) {
			any = 1;
			continue;
		}
		name = term + lib_prefix(term);
		if (name > term)
			name++;		/* the ':' after "libc.so.6" */
		any = strcspn(name, "(%") > strspn(name, " ");
	}
	free(copy);
	return any;
}

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

	if (is_glob(term) && refused) {
		ot_error("no function that can be traced matches '%s' in %s: %s is %s", term,
			 file, ot_sym_display(refused), refused->not_called);
		return;
	}
	/* The script may exec the program the user means: a hint from the
	 * interpreter's own names would only mislead. */
	if (k->script) {
		ot_error("no function %s'%s' in %s, which runs the script %s; a script may exec "
			 "another program: name that program's file, as in -f /path/to/program:%s",
			 is_glob(term) ? "matches " : "", term, file, k->script, term);
		return;
	}
	if (is_glob(term)) {
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
static void merge_vals(struct pick *k, struct vals *dst, const struct vals *src,
		       const char *fn)
{
	uint8_t i;

	for (i = 0; i < src->n; i++) {
		if (vals_add(dst, src->arg[i], src->name[i]) < 0 && !k->conflict) {
			ot_error("%s: terms ask more than %d values at its entry", fn,
				 OT_SEL_MAX_VALUES);
			k->conflict = 1;
		}
	}
	if (vals_strs(dst) > 1 && !k->conflict) {
		ot_error("%s: terms ask %u of its values as strings (:str): one may be", fn,
			 vals_strs(dst));
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

		if (!matches(s, term, is_glob(term)))
			continue;
		if (s->not_called) {
			k->skipped[i] = 1;
			*refused = s;
			continue;
		}
		choose(k, i, nterm);
		hits++;
	}
	if (!hits && *refused && !is_glob(term)) {
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
 * value_suffix cut) without "%ret".
 */
static int spells_symbol(const struct pick *k, const char *whole, char *term)
{
	char name[512];
	char *pct;
	size_t i;

	snprintf(name, sizeof(name), "%s", whole);
	if ((pct = strstr(name, "%ret")))
		*pct = 0;
	if (is_glob(name))
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
	while ((term = next_term(&cursor))) {
		const struct ot_sym *refused = NULL;
		struct vals v;
		size_t hits;

		if (!*term || *term == '!')
			continue;
		snprintf(whole, sizeof(whole), "%s", term);
		if (value_suffix(term, &v, 1, max_arg(k))) {
			ret = -ENOENT;
			continue;
		}
		/* "ns::f(Foo)": a C++ name with its parameter list spells a
		 * symbol, and is that, not a value named Foo. */
		if (v.n && v.name[0] && spells_symbol(k, whole, term))
			vals_free(&v);
		(*nterm)++;
		k->tv = ot_xreallocarray(k->tv, *nterm, sizeof(*k->tv));
		k->tv[*nterm - 1] = v;
		hits = by_spelling(k, term, *nterm, &refused);
		if (!hits && !is_glob(term))
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

	while ((term = next_term(&cursor))) {
		struct vals v;

		if (*term != '!' || value_suffix(term, &v, 1, max_arg(k)))
			continue;
		vals_free(&v);
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
static void set_values(struct ot_selected *f, const struct vals *v)
{
	uint8_t i, first = 0;

	f->ret = v->ret;
	if (!v->n)
		return;
	for (i = 0; i < v->n; i++)
		if (v->arg[i] & VAL_STR)
			first = i;
	f->str = !!(v->arg[first] & VAL_STR);
	f->arg = v->arg[first] & (uint8_t)~VAL_STR;
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
	struct vals *fv = ot_xcalloc(k->n ? k->n : 1, sizeof(*fv));
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
		vals_free(&k.tv[i]);
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

struct ot_binset {
	struct ot_binary *bin;	/* bin[0] is the main executable */
	size_t n;
	ot_lib_resolve_fn resolve;
	void *ctx;
	char *script;		/* bin[0] runs this script, for messages */
};

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

/* Length of term's library prefix, or 0: "libc.so.6:malloc" -> 9. */
static size_t lib_prefix(const char *term)
{
	const char *p;

	/* "::" is C++'s, never a prefix's; a ':' may end the term ("f:::"). */
	for (p = term; (p = strchr(p, ':')); p++) {
		if (p[1] == ':') {
			p++;
			continue;
		}
		if (p > term && p[-1] == ':')
			continue;
		if (memchr(term, '/', (size_t)(p - term)) ||
		    memmem(term, (size_t)(p - term), ".so", 3))
			return (size_t)(p - term);
		return 0;
	}
	return 0;
}

/* The binary for library name, opened on first use; NULL after printing. */
static struct ot_binary *library(struct ot_binset *b, const char *name)
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

static void append(char **s, const char *term, size_t len)
{
	size_t old = *s ? strlen(*s) : 0;

	*s = ot_xreallocarray(*s, old + len + 2, 1);
	if (old)
		(*s)[old++] = ',';
	memcpy(*s + old, term, len);
	(*s)[old + len] = 0;
}

/*
 * The terms of -f grouped by the binary they name, each group's terms
 * joined by commas in the order they came in.  A "!NAME" naming no
 * binary excludes in every group, so it is kept apart.
 */
struct term_groups {
	char **terms;
	char **keys;		/* LIB of LIB:NAME, or NULL: the program */
	size_t n;
	char *global_excl;
};

static void group_terms(const char *spec, struct term_groups *tg)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	size_t g;

	memset(tg, 0, sizeof(*tg));
	while ((term = next_term(&cursor))) {
		int neg = *term == '!';
		size_t pre = lib_prefix(term + neg);
		char *key = pre ? ot_xstrdup(term + neg) : NULL;
		char *name = term + neg + (pre ? pre + 1 : 0);
		char buf[4096];

		if (ot_select_is_usdt(term)) {
			free(key);
			continue;	/* usdt_terms' */
		}
		if (key)
			key[pre] = 0;
		if (!*name) {
			free(key);
			continue;
		}
		if (neg && !key) {
			append(&tg->global_excl, term, strlen(term));
			continue;
		}
		for (g = 0; g < tg->n; g++)
			if ((!key && !tg->keys[g]) || (key && tg->keys[g] && !strcmp(key, tg->keys[g])))
				break;
		if (g == tg->n) {
			tg->terms = ot_xreallocarray(tg->terms, tg->n + 1, sizeof(*tg->terms));
			tg->keys = ot_xreallocarray(tg->keys, tg->n + 1, sizeof(*tg->keys));
			tg->terms[tg->n] = NULL;
			tg->keys[tg->n++] = key;
		} else {
			free(key);
		}
		snprintf(buf, sizeof(buf), "%s%s", neg ? "!" : "", name);
		append(&tg->terms[g], buf, strlen(buf));
	}
	free(copy);
}

static void term_groups_free(struct term_groups *tg)
{
	size_t g;

	for (g = 0; g < tg->n; g++) {
		free(tg->terms[g]);
		free(tg->keys[g]);
	}
	free(tg->terms);
	free(tg->keys);
	free(tg->global_excl);
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

int ot_select_is_usdt(const char *term)
{
	return !strncmp(term + (*term == '!'), "usdt:", 5);
}

int ot_select_asks_usdt(const char *spec)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	int asks = 0;

	while (!asks && (term = next_term(&cursor)))
		asks = ot_select_is_usdt(term) && *term != '!';
	free(copy);
	return asks;
}

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
	return is_main ? &b->bin[0] : library(b, file);
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
static int usdt_terms(struct ot_binset *b, const char *spec, struct ot_selection *out,
		      size_t **idx)
{
	size_t nfn = out->n;
	uint16_t npairs = 0;
	int ret = 0, excl;

	for (excl = 0; excl < 2 && !ret; excl++) {
		char *copy = ot_xstrdup(spec), *cursor = copy, *term;

		while (!ret && (term = next_term(&cursor)))
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
	struct vals v;

	while ((term = next_term(&cursor)) && need < 2) {
		if (!*term || *term == '!')
			continue;
		snprintf(whole, sizeof(whole), "%s", term);
		if (value_suffix(term, &v, 0, max_arg(&k)))
			continue;
		for (i = 0, named = 0; i < v.n; i++)
			named |= v.name[i] != NULL;
		if (named && spells_symbol(&k, whole, term))
			named = 0;
		vals_free(&v);
		if (named) {
			need = 2;
		} else if (is_glob(term)) {
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

int ot_select_fn_pair(const char *term, char **entry, char **ret, unsigned *arg)
{
	size_t pre = lib_prefix(term);
	const char *a = term + pre + (pre ? 1 : 0), *dots = strstr(a, ".."), *at;
	char *end;
	unsigned long n;

	*entry = *ret = NULL;
	if (*term == '!' || ot_select_is_usdt(term) || !dots || !(at = strstr(dots, "@arg")))
		return 0;
	errno = 0;
	n = strtoul(at + 4, &end, 10);
	if (dots == a || at == dots + 2 || strchr(at + 4, '@') || is_glob(a) ||
	    strpbrk(a, "(%") || at[4] < '1' || at[4] > '9' || *end || errno ||
	    n > OT_SEL_MAX_GO_ARG) {
		ot_error("'%s' is not a function pair: expected [FILE:]ENTRYFN..RETURNFN@argN, "
			 "two functions named (no glob, no other value) and N from 1 to %d",
			 term, OT_SEL_MAX_GO_ARG);
		return -EINVAL;
	}
	if (asprintf(entry, "%.*s%.*s(arg%lu)", (int)(a - term), term, (int)(dots - a), a, n) < 0 ||
	    asprintf(ret, "%.*s%.*s(arg%lu)", (int)(a - term), term, (int)(at - dots - 2),
		     dots + 2, n) < 0) {
		free(*entry);
		*entry = *ret = NULL;
		return -ENOMEM;
	}
	*arg = (unsigned)n;
	return 1;
}

/* spec's function pairs: each term "A..B@argN" as its two functions'
 * terms "A(argN),B(argN)" in *rewritten, the pair's terms in order in
 * pairs (2 per pair, malloc'd).  Returns the number of pairs, or -1. */
static int fn_pairs(const char *spec, char **rewritten, char ***pairs)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term, *e, *r;
	int n = 0, ret = 0;
	unsigned arg;

	*rewritten = NULL;
	*pairs = NULL;
	while (!ret && (term = next_term(&cursor))) {
		int is = ot_select_fn_pair(term, &e, &r, &arg);

		if (is < 0) {
			ret = -1;
			break;
		}
		if (!is) {
			append(rewritten, term, strlen(term));
			continue;
		}
		append(rewritten, e, strlen(e));
		append(rewritten, r, strlen(r));
		*pairs = ot_xreallocarray(*pairs, 2 * (size_t)n + 2, sizeof(**pairs));
		(*pairs)[2 * n] = e;
		(*pairs)[2 * n + 1] = r;
		n++;
	}
	free(copy);
	if (ret) {
		while (n-- > 0) {
			free((*pairs)[2 * n]);
			free((*pairs)[2 * n + 1]);
		}
		free(*pairs);
		free(*rewritten);
		*pairs = NULL;
		*rewritten = NULL;
		return ret;
	}
	if (!*rewritten)
		*rewritten = ot_xstrdup("");
	return n;
}

/* The one selected function that a pair's term ("FILE:NAME(argN)")
 * named, or -1 after printing. */
static ssize_t pair_member(const struct ot_selection *out, const char *term, const char *pair)
{
	char name[512], *paren;
	size_t pre = lib_prefix(term), i;
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

/* The pairs' keys: argN of each, in order. */
static unsigned *pair_args(char **pairs, int n)
{
	unsigned *args = ot_xcalloc((size_t)n + 1, sizeof(*args));
	int p;

	for (p = 0; p < n; p++) {
		const char *a = strrchr(pairs[2 * p], '(');

		args[p] = a ? (unsigned)strtoul(a + 4, NULL, 10) : 0;
	}
	return args;
}

char **ot_select_plain_names(const char *spec, size_t *n)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term, **names = NULL;

	*n = 0;
	while ((term = next_term(&cursor))) {
		struct vals v;

		/* A function pair's names are its own to name (quietly). */
		if (!*term || *term == '!' || ot_select_is_usdt(term) || lib_prefix(term) ||
		    is_glob(term) || (strstr(term, "..") && strstr(term, "@arg")))
			continue;
		if (value_suffix(term, &v, 0, OT_SEL_MAX_GO_ARG) || !*term)
			continue;
		vals_free(&v);
		names = ot_xreallocarray(names, *n + 1, sizeof(*names));
		names[(*n)++] = ot_xstrdup(term);
	}
	free(copy);
	return names;
}

static int binset_select(struct ot_binset *b, const char *spec, struct ot_selection *out);

int ot_binset_select(struct ot_binset *b, const char *spec,
		     struct ot_selection *out)
{
	char *rewritten, **pairs;
	int n = fn_pairs(spec, &rewritten, &pairs), ret, p;
	unsigned *args;

	if (n < 0) {
		memset(out, 0, sizeof(*out));
		return -ENOENT;
	}
	ret = binset_select(b, rewritten, out);
	args = pair_args(pairs, n);
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
	struct term_groups tg;
	size_t g, i, *idx = NULL, *skidx = NULL, *gbin;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	group_terms(spec, &tg);
	gbin = ot_xcalloc(tg.n + 1, sizeof(*gbin));
	/* Every binary opened, and given what debuginfod has for it, before
	 * any is selected from: its symbols may be replaced. */
	for (g = 0; g < tg.n; g++) {
		struct ot_binary *bin = tg.keys[g] ? library(b, tg.keys[g]) : &b->bin[0];

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
			append(&tg.terms[g], tg.global_excl, strlen(tg.global_excl));
		if (select_in(bin->elf, tg.terms[g], bin->is_main ? b->script : NULL, &part)) {
			ret = -ENOENT;
			break;
		}
		take_part(out, &part, (size_t)(bin - b->bin), &idx, &skidx);
	}
	if (!ret)
		ret = usdt_terms(b, spec, out, &idx);
	/* bin[] moves as libraries are added: point into it once all are open. */
	for (i = 0; !ret && i < out->n; i++)
		name_it(&out->fn[i], &b->bin[idx[i]]);
	for (i = 0; !ret && i < out->nskipped; i++)
		out->skipped[i].bin = &b->bin[skidx[i]];
	free(idx);
	free(skidx);
	free(gbin);
	term_groups_free(&tg);
	if (ret)
		ot_selection_free(out);
	return ret;
}

