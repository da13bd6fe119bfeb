/*
 * figures.c - a backend's own figures as a list (figures.h): filled with
 * its strings copied in, read by the report's printers.
 */
#include "figures.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A new item, or NULL when the list is full (said by f->full). */
static struct ot_fig *add(struct ot_figures *f, enum ot_fig_kind kind, const char *key)
{
	struct ot_fig *g;

	if (f->n == OT_FIGS_MAX) {
		f->full = 1;
		return NULL;
	}
	g = &f->v[f->n++];
	memset(g, 0, sizeof(*g));
	g->kind = (uint8_t)kind;
	g->place = f->place;
	g->key = key;
	return g;
}

/* s copied into the pool as g's string. */
static void keep(struct ot_figures *f, struct ot_fig *g, const char *s, size_t len)
{
	if (!g || !s)
		return;
	if (f->used + len + 1 > sizeof(f->pool) || f->used + 1 > UINT16_MAX) {
		f->full = 1;
		return;
	}
	memcpy(f->pool + f->used, s, len);
	f->pool[f->used + len] = '\0';
	g->s = (uint16_t)(f->used + 1);
	f->used += len + 1;
}

void ot_figs_section(struct ot_figures *f, enum ot_fig_place place, const char *key)
{
	if (!f->depth)
		f->place = (uint8_t)place;
	f->depth++;
	add(f, OT_FIG_SECTION, key);
}

void ot_figs_end(struct ot_figures *f)
{
	if (f->depth)
		f->depth--;
	/* A section cut short by a full list still ends. */
	if (f->n == OT_FIGS_MAX)
		f->v[f->n - 1].kind = OT_FIG_END;
	else
		add(f, OT_FIG_END, NULL);
}

void ot_figs_num(struct ot_figures *f, const char *key, uint64_t u)
{
	struct ot_fig *g = add(f, OT_FIG_NUM, key);

	if (g)
		g->u = u;
}

void ot_figs_bool(struct ot_figures *f, const char *key, int b)
{
	struct ot_fig *g = add(f, OT_FIG_BOOL, key);

	if (g)
		g->u = !!b;
}

void ot_figs_str(struct ot_figures *f, const char *key, const char *s)
{
	keep(f, add(f, OT_FIG_STR, key), s, s ? strlen(s) : 0);
}

void ot_figs_refused(struct ot_figures *f, const char *key)
{
	add(f, OT_FIG_REFUSED, key);
}

static void vtext(struct ot_figures *f, enum ot_fig_kind kind, enum ot_fig_place place,
		  const char *fmt, va_list ap)
{
	char buf[2048];
	uint8_t was = f->place;
	int len;

	f->place = (uint8_t)place;
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (len < 0)
		len = 0;
	if ((size_t)len >= sizeof(buf))
		len = sizeof(buf) - 1;
	keep(f, add(f, kind, NULL), buf, (size_t)len);
	f->place = was;
}

void ot_figs_line(struct ot_figures *f, enum ot_fig_place place, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtext(f, OT_FIG_LINE, place, fmt, ap);
	va_end(ap);
}

void ot_figs_head(struct ot_figures *f, enum ot_fig_place place, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtext(f, OT_FIG_HEAD, place, fmt, ap);
	va_end(ap);
}

const char *ot_figs_string(const struct ot_figures *f, const struct ot_fig *g)
{
	return g->s ? f->pool + g->s - 1 : NULL;
}

const char *ot_figs_head_at(const struct ot_figures *f, enum ot_fig_place place)
{
	size_t i;

	for (i = 0; f && i < f->n; i++)
		if (f->v[i].kind == OT_FIG_HEAD && f->v[i].place == place)
			return ot_figs_string(f, &f->v[i]);
	return NULL;
}

size_t ot_figs_skip(const struct ot_figures *f, size_t i)
{
	int depth = 0;

	for (; i < f->n; i++) {
		if (f->v[i].kind == OT_FIG_SECTION)
			depth++;
		else if (f->v[i].kind == OT_FIG_END && --depth == 0)
			return i + 1;
	}
	return f->n;
}

const char *ot_figs_duration(uint64_t ns, char *buf, size_t len)
{
	static const char units[] = "ns\0us\0ms\0s"; /* 3 bytes each */
	double v = (double)ns;
	unsigned u = 0;

	while (u < 3 && v >= 1000) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else
		snprintf(buf, len, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v,
			 &units[3 * u]);
	return buf;
}
