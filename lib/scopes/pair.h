/*
 * pair.h - pairing entry and return records into nested scopes.
 *
 * Input: one time-ordered stream of ot_event (lib/rings/drain merges the rings).
 * Per thread a shadow stack of open calls gives each scope its depth and
 * parent; a thread running several stacks (fibers) keeps the others set
 * aside, and a stack is the process's, not the thread's: a return that only
 * another thread's stack holds (same function, same entry SP), or an entry
 * just below another thread's innermost call on a thread new to the
 * pairing or once that happened, takes that stack over (a fiber resumed on
 * another thread).  The user stack pointer makes the pairing self-healing: a return
 * is matched to the open call of the same function whose entry SP it
 * mirrors, calls above it whose returns never came are discarded as
 * unclosed, and an entry reported twice for one call is dropped as a
 * duplicate.  Durations go into per-function histograms, so memory is
 * bounded by threads x depth, never by the number of scopes.  What it
 * counts goes into the report's tables (tables.h), which it owns.
 *
 * A Go function's events name their goroutine (ot_event.key): its calls
 * are paired on the goroutine's one stack, whichever thread runs it, their
 * SPs distances from the stack's top, which Go's stack copies keep.
 *
 * Keyed scopes (OT_EV_KEYED: a language runtime's function entry and
 * return probes, one row per function name) pair by function instead: a
 * return closes the innermost open scope of its row on its thread, the
 * keyed scopes above it counted skipped and ordinary calls above it
 * unclosed; a return with none open is an orphan.  Recursion nests: each
 * entry is a frame of its own, never a timestamp per (thread, key).
 */
#ifndef OT_PAIR_H
#define OT_PAIR_H

#include "hist.h"
#include "tables.h"
#include "rings/event.h"

#include <stddef.h>
#include <stdint.h>

/* struct ot_func_stats, struct ot_tree_node, OT_PAIR_TREE_MAX: the
 * report's tables (tables.h), which the pairing fills from records. */

/* Called for every closed scope, in the order scopes close. */
struct ot_scope {
	uint32_t pid;
	uint32_t tid;
	uint32_t func;
	uint32_t depth;
	uint32_t node;	/* call tree node, 0 if the tree was full */
	uint64_t start, end;
	/* The values its probes recorded: the argument at entry, the return
	 * value (as the registers held them: signed or not is the caller's
	 * to say). */
	uint64_t arg, ret;
	uint8_t has_arg, has_ret;
	/* A counted point's hit (a USDT probe): start == end, depth and node
	 * 0, arg its argument; no scope, so no duration to keep. */
	uint8_t point;
};
typedef void (*ot_scope_fn)(void *ctx, const struct ot_scope *s);

struct ot_pair;

/* A pairing for nfuncs functions; ot_pair_free releases it. */
struct ot_pair *ot_pair_new(size_t nfuncs);
void ot_pair_free(struct ot_pair *p);

/* Feed one event.  Events of one thread must arrive in time order. */
void ot_pair_feed(struct ot_pair *p, const struct ot_event *ev);

/* End of capture: every call still open is counted unclosed. */
void ot_pair_finish(struct ot_pair *p);

/* The tables it fills (gathered from records), valid until ot_pair_free:
 * what the report reads. */
const struct ot_tables *ot_pair_tables(const struct ot_pair *p);
/* The same, for a filler of what the pairing does not keep itself: the
 * scope hook's longest calls (lib/report/sinks). */
struct ot_tables *ot_pair_tables_fill(struct ot_pair *p);

/* Statistics of function f, valid until ot_pair_free (its tables'). */
const struct ot_func_stats *ot_pair_stats(const struct ot_pair *p, size_t f);

/*
 * Function f is seen returning at its return instructions (--returns
 * insn) and may also leave by a tail call (a jump out of its code): a call
 * at its SP is then its tail call even right after an unwind, and the
 * callee's return ends it too.
 */
void ot_pair_set_tail_calls(struct ot_pair *p, size_t f);

/*
 * Function f's returns are seen by a return probe: the kernel keeps at
 * most OT_PAIR_URETPROBE_MAX of them open per thread, and a call entered
 * past that gets none (counted in past_uretprobe_limit).
 */
#define OT_PAIR_URETPROBE_MAX 64
void ot_pair_set_uretprobe(struct ot_pair *p, size_t f);

/*
 * The stream reports every entry once (inject's records): an entry at the
 * SP of an open call is a new call whose slot that call left (longjmp,
 * exception) unless it says it is a tail call, never a duplicate.
 */
void ot_pair_set_exact(struct ot_pair *p);

/*
 * Also keep durations with the observer effect taken out: a scope's own
 * probes add own_ns to it, and each traced call inside it (at any depth)
 * adds pair_ns (lib/scopes/calib measures both).  compensated = raw - own_ns -
 * nested * pair_ns, at least 0.
 */
void ot_pair_compensate(struct ot_pair *p, uint64_t own_ns, uint64_t pair_ns);

/* Call fn for every scope closed from now on, and every point's hit
 * (ot_scope.point). */
void ot_pair_on_scope(struct ot_pair *p, ot_scope_fn fn, void *ctx);

/*
 * From now on call it only for function f's scopes that last at least
 * min_ns (end - start; 0, the default: every scope).  For a callback that
 * learns what it can skip (capture: the --slowest it keeps), so that the
 * scopes it would drop cost nothing; it may lower it again.
 */
void ot_pair_on_scope_min(struct ot_pair *p, size_t f, uint64_t min_ns);

/* Call tree nodes 0..n-1; valid until the next feed or ot_pair_free. */
const struct ot_tree_node *ot_pair_tree(const struct ot_pair *p, size_t *n);
uint64_t ot_pair_tree_dropped(const struct ot_pair *p);

/* Closed scopes of every function so far (for live status). */
uint64_t ot_pair_scopes(const struct ot_pair *p);

/* Threads seen, goroutines seen (a Go function's events: ot_event.key),
 * and records the kernel reported lost (from OT_EV_LOST). */
size_t ot_pair_threads(const struct ot_pair *p);
size_t ot_pair_goroutines(const struct ot_pair *p);
uint64_t ot_pair_lost(const struct ot_pair *p);

/*
 * Stack switches seen with a call under a return probe open on the stack
 * left or the one taken (an entry far below the thread's innermost call,
 * a stack set aside coming back, a fiber moving to another thread): the
 * kernel keeps one chain of return probes per thread, not per stack, and
 * follows such a switch by chance at best.  *tid (if tid): the first's
 * thread.  Go's goroutines, whose returns are never probed so, are not.
 */
uint64_t ot_pair_uret_switches(const struct ot_pair *p, uint32_t *tid);


#endif
