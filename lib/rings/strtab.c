/*
 * strtab.c - the strings USDT probes recorded, each interned once under a
 * small id and counted per probe (strtab.h).
 */
#include "strtab.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct count {
	uint64_t key;	/* f << 32 | id; 0 empty (ids start at 1) */
	uint64_t n;
};

struct ot_strtab {
	char **s;		/* s[id - 1] */
	size_t n, cap;
	uint32_t *hash;		/* ids by string; 0 empty */
	size_t hcap;
	struct count *c;	/* open addressing on key */
	size_t nc, ccap;
};

struct ot_strtab *ot_strtab_new(void)
{
	return ot_xcalloc(1, sizeof(struct ot_strtab));
}

void ot_strtab_free(struct ot_strtab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->hash);
	free(t->c);
	free(t);
}

static size_t str_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return (size_t)h;
}

static void hash_put(struct ot_strtab *t, uint32_t id)
{
	const char *s = t->s[id - 1];
	size_t h = str_hash(s, strlen(s)) & (t->hcap - 1);

	while (t->hash[h])
		h = (h + 1) & (t->hcap - 1);
	t->hash[h] = id;
}

uint32_t ot_strtab_intern(struct ot_strtab *t, const char *s, size_t len)
{
	const char *nul = memchr(s, 0, len);
	size_t h, i;

	len = nul ? (size_t)(nul - s) : len;
	if (t->hcap) {
		for (h = str_hash(s, len) & (t->hcap - 1); t->hash[h]; h = (h + 1) & (t->hcap - 1)) {
			const char *k = t->s[t->hash[h] - 1];

			if (!strncmp(k, s, len) && !k[len])
				return t->hash[h];
		}
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->s = ot_xreallocarray(t->s, t->cap, sizeof(*t->s));
	}
	t->s[t->n] = ot_xmalloc(len + 1);
	memcpy(t->s[t->n], s, len);
	t->s[t->n][len] = 0;
	t->n++;
	if (2 * t->n > t->hcap) {
		free(t->hash);
		t->hcap = t->hcap ? 2 * t->hcap : 128;
		t->hash = ot_xcalloc(t->hcap, sizeof(*t->hash));
		for (i = 1; i <= t->n; i++)
			hash_put(t, (uint32_t)i);
	} else {
		hash_put(t, (uint32_t)t->n);
	}
	return (uint32_t)t->n;
}

const char *ot_strtab_get(const struct ot_strtab *t, uint32_t id)
{
	return id && id <= t->n ? t->s[id - 1] : NULL;
}

size_t ot_strtab_n(const struct ot_strtab *t)
{
	return t->n;
}

static size_t count_slot(uint64_t key, size_t cap)
{
	return (size_t)(key * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);
}

void ot_strtab_count(struct ot_strtab *t, uint32_t f, uint32_t id)
{
	uint64_t key = (uint64_t)f << 32 | id;
	size_t s, i;

	if (2 * (t->nc + 1) > t->ccap) {
		struct count *old = t->c;
		size_t oldcap = t->ccap;

		t->ccap = t->ccap ? 2 * t->ccap : 256;
		t->c = ot_xcalloc(t->ccap, sizeof(*t->c));
		for (i = 0; i < oldcap; i++) {
			if (!old[i].key)
				continue;
			for (s = count_slot(old[i].key, t->ccap); t->c[s].key; s = (s + 1) & (t->ccap - 1))
				;
			t->c[s] = old[i];
		}
		free(old);
	}
	for (s = count_slot(key, t->ccap); t->c[s].key; s = (s + 1) & (t->ccap - 1)) {
		if (t->c[s].key == key) {
			t->c[s].n++;
			return;
		}
	}
	t->c[s].key = key;
	t->c[s].n = 1;
	t->nc++;
}

/* a before b: more hits, then first seen. */
static int before(const struct ot_strtab_hit *a, const struct ot_strtab_hit *b)
{
	return a->count > b->count || (a->count == b->count && a->id < b->id);
}

size_t ot_strtab_top(const struct ot_strtab *t, uint32_t f, struct ot_strtab_hit *out,
		     size_t max, size_t *distinct)
{
	size_t i, n = 0, k;

	*distinct = 0;
	for (i = 0; i < t->ccap; i++) {
		struct ot_strtab_hit h;

		if (!t->c[i].key || t->c[i].key >> 32 != f)
			continue;
		++*distinct;
		h.id = (uint32_t)t->c[i].key;
		h.count = t->c[i].n;
		/* Insertion into the sorted top max: max is small (--top). */
		for (k = n; k > 0 && before(&h, &out[k - 1]); k--)
			if (k < max)
				out[k] = out[k - 1];
		if (k < max) {
			out[k] = h;
			if (n < max)
				n++;
		}
	}
	return n;
}
