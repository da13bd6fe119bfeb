/*
 * terms.c - the -f list's syntax (terms.h): terms cut at commas, library
 * prefixes, value suffixes, function pairs and the questions asked of a
 * list before any symbol is read.
 */
#include "terms.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ot_term_is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* The next comma-separated term; commas inside parentheses (a value list,
 * "read(arg1,arg3)", or a C++ parameter list) do not end it. */
char *ot_term_next(char **cursor)
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

void ot_term_vals_free(struct ot_term_vals *v)
{
	uint8_t i;

	for (i = 0; i < v->n; i++)
		free(v->name[i]);
	v->n = 0;
}

/* Value (arg, name) into v unless v has it: 1 added, 0 had, -1 full.
 * name is borrowed. */
int ot_term_vals_add(struct ot_term_vals *v, uint8_t arg, char *name)
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

/* One value, item (NUL-terminated, cut from the list), into *arg (its
 * OT_SEL_* code, | OT_TERM_STR) and *name: 0, or -EINVAL after printing (if
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
		str = OT_TERM_STR;
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
unsigned ot_term_vals_strs(const struct ot_term_vals *v)
{
	unsigned i, n = 0;

	for (i = 0; i < v->n; i++)
		n += !!(v->arg[i] & OT_TERM_STR);
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
int ot_term_values(char *term, struct ot_term_vals *v, int print, int max_arg)
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
			ot_term_vals_free(v);
			return -EINVAL;
		}
		if ((added = ot_term_vals_add(v, arg, name)) <= 0)
			free(name);
		if (added < 0) {
			if (print)
				ot_error("'%s': at most %d values at the entry of a function", whole,
					 OT_SEL_MAX_VALUES);
			ot_term_vals_free(v);
			return -EINVAL;
		}
	}
	if (ot_term_vals_strs(v) > 1) {
		if (print)
			ot_error("'%s': one value of a function may be read as a string (:str), "
				 "not %u", whole, ot_term_vals_strs(v));
		ot_term_vals_free(v);
		return -EINVAL;
	}
	*open = 0;
	return 0;
}

int ot_select_asks_values(const char *spec)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	int asks = 0;

	while (!asks && (term = ot_term_next(&cursor))) {
		struct ot_term_vals v;

		/* A probe's arguments are asked with the probe (OT_CAN_USDT). */
		if (ot_select_is_usdt(term))
			continue;
		/* A function pair's key is an argument: a value. */
		if (*term != '!' && strstr(term, "..") && strstr(term, "@arg")) {
			asks = 1;
			break;
		}
		asks = ot_term_values(term, &v, 0, OT_SEL_MAX_GO_ARG) || v.n || v.ret;
		ot_term_vals_free(&v);
	}
	free(copy);
	return asks;
}

int ot_select_includes(const char *spec)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	int any = 0;

	while (!any && (term = ot_term_next(&cursor))) {
		const char *name;

		if (*term == '!')
			continue;
		/* A probe's term is checked whole when its file is read. */
		if (ot_select_is_usdt(term)) {
			any = 1;
			continue;
		}
		name = term + ot_term_lib_prefix(term);
		if (name > term)
			name++;		/* the ':' after "libc.so.6" */
		any = strcspn(name, "(%") > strspn(name, " ");
	}
	free(copy);
	return any;
}

/* Length of term's library prefix, or 0: "libc.so.6:malloc" -> 9. */
size_t ot_term_lib_prefix(const char *term)
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

void ot_term_append(char **s, const char *term, size_t len)
{
	size_t old = *s ? strlen(*s) : 0;

	*s = ot_xreallocarray(*s, old + len + 2, 1);
	if (old)
		(*s)[old++] = ',';
	memcpy(*s + old, term, len);
	(*s)[old + len] = 0;
}

void ot_term_group(const char *spec, struct ot_term_groups *tg)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	size_t g;

	memset(tg, 0, sizeof(*tg));
	while ((term = ot_term_next(&cursor))) {
		int neg = *term == '!';
		size_t pre = ot_term_lib_prefix(term + neg);
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
			ot_term_append(&tg->global_excl, term, strlen(term));
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
		ot_term_append(&tg->terms[g], buf, strlen(buf));
	}
	free(copy);
}

void ot_term_groups_free(struct ot_term_groups *tg)
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

int ot_select_is_usdt(const char *term)
{
	return !strncmp(term + (*term == '!'), "usdt:", 5);
}

int ot_select_asks_usdt(const char *spec)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	int asks = 0;

	while (!asks && (term = ot_term_next(&cursor)))
		asks = ot_select_is_usdt(term) && *term != '!';
	free(copy);
	return asks;
}

int ot_select_fn_pair(const char *term, char **entry, char **ret, unsigned *arg)
{
	size_t pre = ot_term_lib_prefix(term);
	const char *a = term + pre + (pre ? 1 : 0), *dots = strstr(a, ".."), *at;
	char *end;
	unsigned long n;

	*entry = *ret = NULL;
	if (*term == '!' || ot_select_is_usdt(term) || !dots || !(at = strstr(dots, "@arg")))
		return 0;
	errno = 0;
	n = strtoul(at + 4, &end, 10);
	if (dots == a || at == dots + 2 || strchr(at + 4, '@') || ot_term_is_glob(a) ||
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
int ot_term_fn_pairs(const char *spec, char **rewritten, char ***pairs)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term, *e, *r;
	int n = 0, ret = 0;
	unsigned arg;

	*rewritten = NULL;
	*pairs = NULL;
	while (!ret && (term = ot_term_next(&cursor))) {
		int is = ot_select_fn_pair(term, &e, &r, &arg);

		if (is < 0) {
			ret = -1;
			break;
		}
		if (!is) {
			ot_term_append(rewritten, term, strlen(term));
			continue;
		}
		ot_term_append(rewritten, e, strlen(e));
		ot_term_append(rewritten, r, strlen(r));
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

/* The pairs' keys: argN of each, in order. */
unsigned *ot_term_pair_args(char **pairs, int n)
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
	while ((term = ot_term_next(&cursor))) {
		struct ot_term_vals v;

		/* A function pair's names are its own to name (quietly). */
		if (!*term || *term == '!' || ot_select_is_usdt(term) || ot_term_lib_prefix(term) ||
		    ot_term_is_glob(term) || (strstr(term, "..") && strstr(term, "@arg")))
			continue;
		if (ot_term_values(term, &v, 0, OT_SEL_MAX_GO_ARG) || !*term)
			continue;
		ot_term_vals_free(&v);
		names = ot_xreallocarray(names, *n + 1, sizeof(*names));
		names[(*n)++] = ot_xstrdup(term);
	}
	free(copy);
	return names;
}

