/*
 * strtab.h - the strings USDT probes recorded (an argument read with
 * ":str"), each kept once and named by a small id, and how often each
 * probe saw each.
 *
 * Contract: pure memory, no I/O, nothing printed; allocation failure
 * dies (ot_x*).  Ids are 1, 2, ... in the order strings are first seen,
 * valid until ot_strtab_free; 0 is never an id.  The drain
 * (lib/rings/drain) interns what the records carry, so an event's value
 * is an id; the capture counts ids per probe and names keyed scopes'
 * rows with them.
 */
#ifndef OT_STRTAB_H
#define OT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct ot_strtab;

struct ot_strtab *ot_strtab_new(void);
void ot_strtab_free(struct ot_strtab *t);

/* The id of the len bytes at s (cut at a NUL), added if new. */
uint32_t ot_strtab_intern(struct ot_strtab *t, const char *s, size_t len);

/* The string of id, or NULL for an id never given. */
const char *ot_strtab_get(const struct ot_strtab *t, uint32_t id);

/* Strings kept. */
size_t ot_strtab_n(const struct ot_strtab *t);

/* One more hit of id by probe f. */
void ot_strtab_count(struct ot_strtab *t, uint32_t f, uint32_t id);

struct ot_strtab_hit {
	uint32_t id;
	uint64_t count;
};

/*
 * Probe f's most frequent strings, at most max into out (count down, then
 * id up: first seen first); returns how many; *distinct the number of
 * distinct strings f saw.
 */
size_t ot_strtab_top(const struct ot_strtab *t, uint32_t f, struct ot_strtab_hit *out,
		     size_t max, size_t *distinct);

#endif
