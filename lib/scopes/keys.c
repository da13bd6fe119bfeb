/*
 * keys.c - the rows of keyed pairs of USDT probes (keys.h): a row per distinct
 * key from a range reserved at start, then one overflow row per pair.
 */
#include "keys.h"
#include "util/xalloc.h"

#include <stdlib.h>

struct slot {
	uint64_t key;
	uint32_t pair;	/* 0: empty */
	uint32_t row;
};

struct ot_keys {
	uint32_t first, nrows, npairs, used;
	uint64_t overflowed;
	struct slot *s;
	size_t cap;	/* a power of two, at least twice the rows */
};

struct ot_keys *ot_keys_new(uint32_t first, uint32_t nrows, uint32_t npairs)
{
	struct ot_keys *k = ot_xcalloc(1, sizeof(*k));

	k->first = first;
	k->nrows = nrows;
	k->npairs = npairs;
	for (k->cap = 16; k->cap < 2 * (size_t)nrows + 2; k->cap *= 2)
		;
	k->s = ot_xcalloc(k->cap, sizeof(*k->s));
	return k;
}

void ot_keys_free(struct ot_keys *k)
{
	if (!k)
		return;
	free(k->s);
	free(k);
}

uint32_t ot_keys_row(struct ot_keys *k, uint32_t pair, uint64_t key, int *is_new)
{
	size_t h = (size_t)((key ^ (uint64_t)pair << 56) * 0x9E3779B97F4A7C15ull >> 17) & (k->cap - 1);

	*is_new = 0;
	for (; k->s[h].pair; h = (h + 1) & (k->cap - 1))
		if (k->s[h].pair == pair && k->s[h].key == key)
			return k->s[h].row;
	if (k->used == k->nrows || !pair || pair > k->npairs) {
		k->overflowed++;
		return k->first + k->nrows + (pair && pair <= k->npairs ? pair - 1 : 0);
	}
	k->s[h].pair = pair;
	k->s[h].key = key;
	k->s[h].row = k->first + k->used++;
	*is_new = 1;
	return k->s[h].row;
}

uint32_t ot_keys_used(const struct ot_keys *k)
{
	return k->used;
}

uint64_t ot_keys_overflowed(const struct ot_keys *k)
{
	return k->overflowed;
}
