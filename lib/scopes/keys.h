/*
 * keys.h - rows made while a capture runs: one per distinct key of a pair
 * of probes (usdt:FILE:PROVIDER:ENTRY..RETURN@argN: a function name a
 * language runtime passes to both), so that each key's scopes are a
 * function of their own in the pairing and the report.
 *
 * The rows come from a range reserved when the capture is sized (the
 * pairing's and the report's per-function arrays are made at start):
 * first the keys' rows, given in the order keys are first seen, then one
 * overflow row per pair: when the keys' rows are all taken, a new key
 * gets its pair's overflow row, so that no scope is dropped, only merged
 * with others.  Rows in use are contiguous: first .. first +
 * ot_keys_used() - 1, and the overflow rows after them once a key
 * overflowed (the keys' rows are all taken then).
 *
 * Contract: pure memory, no I/O; allocation failure dies (ot_x*).
 */
#ifndef OT_KEYS_H
#define OT_KEYS_H

#include <stddef.h>
#include <stdint.h>

struct ot_keys;

/* The keys' rows are first .. first + nrows - 1; pair k's overflow row
 * is first + nrows + k - 1 (pairs are 1 .. npairs). */
struct ot_keys *ot_keys_new(uint32_t first, uint32_t nrows, uint32_t npairs);
void ot_keys_free(struct ot_keys *k);

/*
 * The row of key of pair (1 .. npairs): the one it has, a new one, or
 * the pair's overflow row when none is left (*is_new then 0).  *is_new: 1
 * when the row was given just now (the caller names it).
 */
uint32_t ot_keys_row(struct ot_keys *k, uint32_t pair, uint64_t key, int *is_new);

/* Rows given so far (not counting overflow rows), and keys that went to
 * an overflow row. */
uint32_t ot_keys_used(const struct ot_keys *k);
uint64_t ot_keys_overflowed(const struct ot_keys *k);

#endif
