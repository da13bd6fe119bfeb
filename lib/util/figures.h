/*
 * figures.h - a backend's own figures, as a list the report prints
 * without knowing the backend: named values grouped in titled sections
 * (the JSON report's objects: a key each), and lines of the text report.
 * Each item has a place in the report: the target's object, the arming's
 * part, the warnings, the disarming's part.
 *
 *   JSON: a section at OT_FIG_TARGET is a member of "target"; one at
 *     OT_FIG_ARMING or OT_FIG_DISARMING is a top-level member after
 *     "arming" or "disarming" (the latter only once disarmed).  Members
 *     keep the order they were added in.
 *   text: OT_FIG_LINE items are lines at their place, as written (the
 *     backend escapes what a target controls: lib/util/escape); an
 *     OT_FIG_HEAD item is what follows "armed N of M functions in T" or
 *     "disarmed N functions in T" on the report's own line, which it then
 *     replaces.
 *
 * Data only, strings copied into the list: it can be copied by value and
 * outlives the backend that filled it.  Keys must be string literals.  A
 * list that runs out of room drops what does not fit and says so (full).
 */
#ifndef OT_FIGURES_H
#define OT_FIGURES_H

#include <stddef.h>
#include <stdint.h>

enum ot_fig_place { OT_FIG_TARGET, OT_FIG_ARMING, OT_FIG_WARNING, OT_FIG_DISARMING };

enum ot_fig_kind {
	OT_FIG_SECTION,		/* key: { the items up to its OT_FIG_END } */
	OT_FIG_END,
	OT_FIG_NUM,		/* key: u */
	OT_FIG_BOOL,		/* key: true or false (u) */
	OT_FIG_STR,		/* key: the string, or null (no string) */
	OT_FIG_REFUSED,		/* key: the report's functions the backend
				 * did not arm, [{"function", "reason"}] */
	OT_FIG_LINE,		/* text only: a line */
	OT_FIG_HEAD,		/* text only: the rest of the arming's or
				 * disarming's line */
};

struct ot_fig {
	uint8_t kind, place;
	uint16_t s;		/* the string's offset in pool + 1, 0: none */
	const char *key;
	uint64_t u;
};

#define OT_FIGS_MAX 80
#define OT_FIGS_POOL 12288

struct ot_figures {
	struct ot_fig v[OT_FIGS_MAX];
	size_t n;
	size_t used;		/* of pool */
	int full;		/* something did not fit */
	int depth;		/* sections open while filling */
	uint8_t place;		/* while filling: the open section's */
	char pool[OT_FIGS_POOL];
};

/* Filling: sections nest; an item outside any section is at place. */
void ot_figs_section(struct ot_figures *f, enum ot_fig_place place, const char *key);
void ot_figs_end(struct ot_figures *f);
void ot_figs_num(struct ot_figures *f, const char *key, uint64_t u);
void ot_figs_bool(struct ot_figures *f, const char *key, int b);
void ot_figs_str(struct ot_figures *f, const char *key, const char *s);
void ot_figs_refused(struct ot_figures *f, const char *key);
void ot_figs_line(struct ot_figures *f, enum ot_fig_place place, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ot_figs_head(struct ot_figures *f, enum ot_fig_place place, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Item g's string, or NULL. */
const char *ot_figs_string(const struct ot_figures *f, const struct ot_fig *g);

/* The OT_FIG_HEAD at place, or NULL (f may be NULL). */
const char *ot_figs_head_at(const struct ot_figures *f, enum ot_fig_place place);

/* The item after section i's OT_FIG_END (or f->n). */
size_t ot_figs_skip(const struct ot_figures *f, size_t i);

/* ns as every report writes a duration ("950 ns", "1.35 ms", "12.0 s"),
 * into buf; returns buf. */
const char *ot_figs_duration(uint64_t ns, char *buf, size_t len);

#endif
