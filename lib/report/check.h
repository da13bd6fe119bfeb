/*
 * check.h - the verdict a CI script can trust: expected counts, loss and
 * the pairing's own consistency.
 *
 * For a function with an expected count, missing = expected - scopes.
 * Every unclosed call and every orphan return is one scope that could not
 * be formed, so missing >= unclosed + orphans; a dropped duplicate costs a
 * scope only when it was a real call, so with nothing lost by the kernel
 * missing <= unclosed + orphans + duplicates ("the healing equation" of
 * the stress test this project grew from).  A violation means the pairing
 * itself is wrong.  With records lost only the lower bound holds.
 *
 * A pair's row (ENTRYFN..RETURNFN@argN, a USDT pair's key) is no call:
 * its orphans are returns of a key no entry opened (nginx frees requests
 * it never processed), its unclosed entries whose key never ended, so
 * neither bound holds for it; its expected count is judged, and the
 * pairing's counts make the status lossy (lib/capture/keyed).
 */
#ifndef OT_CHECK_H
#define OT_CHECK_H

#include "scopes/pair.h"

#include <stddef.h>
#include <stdint.h>

enum ot_status { OT_STATUS_OK, OT_STATUS_LOSSY, OT_STATUS_FAILED };

struct ot_expect {
	const char *name;
	uint64_t count;
	int depth;		/* NAME=N@DEPTH: every scope at this depth; -1: any */
};

struct ot_func_check {
	int has_expected;
	uint64_t expected;
	int64_t missing;	/* negative: more scopes than expected */
	double loss_pct;	/* missing / expected * 100 */
	int has_depth;		/* an expected depth was given */
	unsigned depth;
	uint64_t wrong_depth;	/* scopes at another depth than expected */
};

struct ot_check {
	enum ot_status status;
	char **reasons;		/* one sentence each, owned */
	size_t nreasons;
	struct ot_func_check *fn; /* per function */
};

/*
 * Parse "NAME=N,NAME=N@DEPTH" (DEPTH 0 for an outermost traced call, as
 * the report's DEPTH column counts).  Returns the number of entries (>= 1) and *out
 * (free with ot_expect_free), or -EINVAL with *bad pointing at the term
 * that does not parse.
 */
int ot_expect_parse(const char *spec, struct ot_expect **out, char **bad);
void ot_expect_free(struct ot_expect *e, size_t n);

/*
 * Judge a capture.  names[i] and st[i] describe function i; expectations
 * name some of them (every name must exist: the caller checks).
 * max_loss_pct bounds |loss| per function; lost is the records reported
 * lost, by lost_by ("the kernel" when NULL); lost_exact 0 when that may be
 * short (then lossy, and "no records lost" explains nothing).  A scope at
 * another depth than an expected one fails.  Rows from nplain on are
 * pairs' (the healing equation is not theirs); nplain >= nfuncs: none.
 */
void ot_check_run(struct ot_check *c, size_t nfuncs, size_t nplain, const char *const *names,
		  const struct ot_func_stats *const *st,
		  const struct ot_expect *exp, size_t nexp,
		  double max_loss_pct, uint64_t lost, int lost_exact, const char *lost_by);
/* Add a reason found outside the counts (e.g. an exit no probe sees). */
void ot_check_add(struct ot_check *c, enum ot_status s, const char *why);

/*
 * 1 for a signal a program dies of only when something went wrong in it -
 * a fault, a failed assertion, a forbidden system call, a trap or an
 * arithmetic error: SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGSYS, SIGTRAP,
 * SIGFPE.  Not SIGKILL, SIGTERM, SIGINT...: another process ends it so.
 */
int ot_check_crash_signal(int sig);

/*
 * The target (process pid) ended with wait status wstatus during the
 * capture: killed by a crash signal, that is a reason, and the capture
 * failed (the counts stop at a crash the tracing may have caused).
 */
void ot_check_target_end(struct ot_check *c, int pid, int wstatus);

/* A signal's name ("SIGSEGV", "SIGRTMIN+2"), or "signal N", into buf. */
const char *ot_signal_name(int sig, char *buf, size_t len);
void ot_check_free(struct ot_check *c);

const char *ot_status_name(enum ot_status s);

#endif
