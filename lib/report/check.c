/*
 * check.c - the verdict (check.h): --expect's counts, the loss limit and the
 * healing equation checked per function, and the status they give.
 */
#include "check.h"
#include "util/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/*
 * The next term of an --expect list, as -f splits its own: a comma inside
 * parentheses or brackets ("app::f(int, long)=3") or double quotes does
 * not end it.  Empty terms are skipped; NULL at the end.
 */
static char *next_expect(char **cursor)
{
	char *t, *p;
	int depth = 0, quoted = 0;

	while (*cursor && **cursor == ',')
		(*cursor)++;
	if (!*cursor || !**cursor)
		return NULL;
	t = *cursor;
	for (p = t; *p && (*p != ',' || depth > 0 || quoted); p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && (*p == '(' || *p == '['))
			depth++;
		else if (!quoted && (*p == ')' || *p == ']') && depth)
			depth--;
	}
	*cursor = *p ? p + 1 : NULL;
	*p = 0;
	return t;
}

/* "\"f(a, b)\"" as f(a, b): the quotes only keep its commas. */
static char *unquote(const char *name)
{
	size_t n = strlen(name);

	char *s = ot_xstrdup(name);

	if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
		memmove(s, s + 1, n - 2);
		s[n - 2] = 0;
	}
	return s;
}

int ot_expect_parse(const char *spec, struct ot_expect **out, char **bad)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	struct ot_expect *e = NULL;
	int n = 0;

	*out = NULL;
	*bad = NULL;
	while ((term = next_expect(&cursor))) {
		char *eq = strrchr(term, '='), *end = NULL;
		unsigned long long v = 0, d = 0;
		int has_depth = 0;

		errno = 0;
		if (eq && eq != term && eq[1] && eq[1] != '-')
			v = strtoull(eq + 1, &end, 10);
		if (end && *end == '@' && end[1] >= '0' && end[1] <= '9') {
			has_depth = 1;
			d = strtoull(end + 1, &end, 10);
		}
		if (!eq || eq == term || !end || end == eq + 1 || *end || errno ||
		    d > INT32_MAX) {
			*bad = ot_xstrdup(term);
			ot_expect_free(e, (size_t)n);
			free(copy);
			return -EINVAL;
		}
		*eq = 0;
		e = ot_xreallocarray(e, (size_t)n + 1, sizeof(*e));
		e[n].name = unquote(term);
		e[n].count = v;
		e[n].depth = has_depth ? (int)d : -1;
		n++;
	}
	free(copy);
	if (!n) {
		*bad = ot_xstrdup(spec);
		return -EINVAL;
	}
	*out = e;
	return n;
}

void ot_expect_free(struct ot_expect *e, size_t n)
{
	size_t i;

	for (i = 0; e && i < n; i++)
		free((char *)e[i].name);
	free(e);
}

static void reason(struct ot_check *c, enum ot_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void reason(struct ot_check *c, enum ot_status s, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	c->reasons = ot_xreallocarray(c->reasons, c->nreasons + 1, sizeof(*c->reasons));
	c->reasons[c->nreasons++] = msg ? msg : ot_xstrdup(fmt);
	if (s > c->status)
		c->status = s;
}

/*
 * What makes a function's counts untrustworthy whatever was expected:
 * calls past the kernel's limit on nested return probes (never seen
 * returning), and entries or returns dropped as reported twice - which
 * is also what a call left by a longjmp out of a signal handler looks
 * like when the next call enters at its stack pointer, its scope then
 * merged with that call's.
 */
static void limits(struct ot_check *c, const char *name, const struct ot_func_stats *s)
{
	if (s->past_uretprobe_limit)
		reason(c, OT_STATUS_LOSSY, "%s: depth > %d at %" PRIu64 " call%s: the kernel "
		       "gives a thread no more return probes, so %s not seen returning",
		       name, OT_PAIR_URETPROBE_MAX, s->past_uretprobe_limit,
		       s->past_uretprobe_limit == 1 ? "" : "s",
		       s->past_uretprobe_limit == 1 ? "it is" : "they are");
	if (s->duplicates)
		reason(c, OT_STATUS_LOSSY, "%s: %" PRIu64 " entr%s or return%s dropped as "
		       "reported twice; a call left by a longjmp from a signal handler looks the "
		       "same, its scope then merged with the next call's", name, s->duplicates,
		       s->duplicates == 1 ? "y" : "ies", s->duplicates == 1 ? "" : "s");
}

void ot_check_run(struct ot_check *c, size_t nfuncs, size_t nplain, const char *const *names,
		  const struct ot_func_stats *const *st,
		  const struct ot_expect *exp, size_t nexp,
		  double max_loss_pct, uint64_t lost, int lost_exact, const char *lost_by)
{
	size_t i, k;

	memset(c, 0, sizeof(*c));
	c->fn = ot_xcalloc(nfuncs, sizeof(*c->fn));
	if (lost)
		reason(c, OT_STATUS_LOSSY, "%s lost %" PRIu64 " records",
		       lost_by ? lost_by : "the kernel", lost);
	if (!lost_exact)
		reason(c, OT_STATUS_LOSSY, "the count of records lost may be short: a ring "
		       "filled, and this kernel reports the last records it drops in a ring "
		       "only with a later record there (counting them needs "
		       "PERF_FORMAT_LOST, Linux 6.0)");
	for (i = 0; i < nfuncs; i++) {
		const struct ot_func_stats *s = st[i];
		struct ot_func_check *f = &c->fn[i];
		uint64_t floor, ceiling;
		/* A counted point (a USDT probe) has hits, never scopes. */
		uint64_t seen = s->scopes + s->points;
		const char *what = s->points ? "hits" : "scopes";

		limits(c, names[i], s);
		for (k = 0; k < nexp; k++)
			if (!strcmp(exp[k].name, names[i]))
				break;
		if (k == nexp)
			continue;
		f->has_expected = 1;
		f->expected = exp[k].count;
		if (exp[k].depth >= 0) {
			f->has_depth = 1;
			f->depth = (unsigned)exp[k].depth;
			f->wrong_depth = s->scopes - ot_func_stats_depth(s, f->depth);
			if (f->wrong_depth)
				reason(c, OT_STATUS_FAILED,
				       "%s: %" PRIu64 " of %" PRIu64 " scopes at another depth than %u",
				       names[i], f->wrong_depth, s->scopes, f->depth);
		}
		f->missing = (int64_t)f->expected - (int64_t)seen;
		f->loss_pct = f->expected ? 100.0 * (double)f->missing / (double)f->expected
					  : (seen ? -100.0 : 0.0);
		if (f->missing > 0 && f->loss_pct > max_loss_pct) {
			reason(c, OT_STATUS_FAILED,
			       "%s: %" PRId64 " of %" PRIu64 " expected %s missing (%.3f%% > %g%%)",
			       names[i], f->missing, f->expected, what, f->loss_pct, max_loss_pct);
			continue;
		}
		if (f->missing < 0 && -f->loss_pct > max_loss_pct) {
			reason(c, OT_STATUS_FAILED,
			       "%s: %" PRIu64 " %s, %" PRId64 " more than the %" PRIu64 " expected",
			       names[i], seen, what, -f->missing, f->expected);
			continue;
		}
		/* Within tolerance: now every missing scope must be explained
		 * (a function's: a pair's orphans need be no missing scope). */
		if (i >= nplain)
			continue;
		floor = s->unclosed + s->orphans;
		ceiling = floor + s->duplicates;
		if (f->missing < (int64_t)floor)
			reason(c, OT_STATUS_FAILED,
			       "%s: pairing inconsistent: %" PRId64 " missing < %" PRIu64
			       " unclosed + %" PRIu64 " orphans",
			       names[i], f->missing, s->unclosed, s->orphans);
		else if (!lost && lost_exact && f->missing > (int64_t)ceiling)
			reason(c, OT_STATUS_FAILED,
			       "%s: pairing inconsistent: %" PRId64 " missing > %" PRIu64
			       " unclosed + %" PRIu64 " orphans + %" PRIu64
			       " duplicates, with no records lost",
			       names[i], f->missing, s->unclosed, s->orphans, s->duplicates);
	}
}

void ot_check_add(struct ot_check *c, enum ot_status s, const char *why)
{
	reason(c, s, "%s", why);
}

int ot_check_crash_signal(int sig)
{
	switch (sig) {
	case SIGSEGV: case SIGBUS: case SIGILL: case SIGABRT:
	case SIGSYS: case SIGTRAP: case SIGFPE:
		return 1;
	default:
		return 0;
	}
}

void ot_check_target_end(struct ot_check *c, int pid, int wstatus)
{
	char name[32];

	if (!WIFSIGNALED(wstatus) || !ot_check_crash_signal(WTERMSIG(wstatus)))
		return;
	reason(c, OT_STATUS_FAILED, "the target (pid %d) was killed by %s during the capture: "
	       "a crash, of the program or of its tracing", pid,
	       ot_signal_name(WTERMSIG(wstatus), name, sizeof(name)));
}

const char *ot_signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sig > 0 && sig < SIGRTMIN ? sigabbrev_np(sig) : NULL;

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else if (sig == SIGRTMIN)
		snprintf(buf, len, "SIGRTMIN");
	else if (sig > SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, len, "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

void ot_check_free(struct ot_check *c)
{
	size_t i;

	for (i = 0; i < c->nreasons; i++)
		free(c->reasons[i]);
	free(c->reasons);
	free(c->fn);
	memset(c, 0, sizeof(*c));
}

const char *ot_status_name(enum ot_status s)
{
	return s == OT_STATUS_OK ? "ok" : s == OT_STATUS_LOSSY ? "lossy" : "failed";
}
