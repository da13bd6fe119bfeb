/*
 * event.h - what the drain hands on: one event of the merged, time-ordered
 * stream (an entry, a return, a loss), as lib/rings/drain makes it from
 * every backend's records and lib/scopes/pair pairs it into scopes.
 */
#ifndef OT_EVENT_H
#define OT_EVENT_H

#include "arch_defs.h"	/* lib/arch/$(ARCH)/ */

#include <stdint.h>

/*
 * Distance between the SP a return probe (uretprobe) sees and the SP its
 * call's entry probe saw: the machine's (8 on x86-64, where `ret` pops the
 * return address; 0 on arm64).  lib/rings/drain subtracts it, so events
 * carry entry SPs.
 */
#define OT_RET_SP_DELTA OT_ARCH_RET_SP_DELTA

enum ot_event_kind {
	OT_EV_ENTRY = 1,
	OT_EV_RETURN,
	OT_EV_LOST,	/* the kernel dropped records on ev.cpu at about ev.time */
	OT_EV_POINT,	/* a USDT probe hit: counted, no scope (value: its argument) */
	OT_EV_VALUE,	/* one more value of an entry: flags is its slot, no scope */
};

/* A return seen at a return instruction: a tail caller returns with it. */
#define OT_EV_RET_INSN 1
/*
 * Seen at a return instruction of a function ev.func tail-calls: it ends
 * ev.func only if ev.func's call at that SP is the innermost open call
 * there; otherwise it is that callee returning from an ordinary call, and
 * it is dropped without a trace.
 */
#define OT_EV_RET_TAIL 2
/* An entry by a jump from a traced function open at the same SP (inject
 * sees that): it returns with that call, not after it. */
#define OT_EV_TAIL_ENTRY 4
/*
 * An entry or return of a keyed scope (a pair of USDT probes, ev.func the
 * row of its key): matched by its function on the thread's stack, not by
 * its SP - a language runtime's probes fire at SPs that say nothing of
 * its calls' nesting.
 */
#define OT_EV_KEYED 8
/* An entry at its caller's SP may be a tail call from it, not a sign that
 * the caller is gone: returns at return instructions, where nothing at
 * the entry tells (inject where a runtime walks the stacks). */
#define OT_EV_MAY_TAIL 16

struct ot_event {
	uint64_t time;
	uint64_t sp;	/* at entry; for returns, the SP the entry saw */
	uint32_t tid;
	uint32_t func;	/* index into the capture's function table */
	uint16_t cpu;
	uint8_t kind;	/* enum ot_event_kind */
	uint8_t flags;	/* OT_EV_RET_INSN, OT_EV_RET_TAIL */
	uint32_t pid;	/* the thread's process */
	/* A Go function's goroutine (g, its stack's owner): paired by it, not
	 * by the thread, its sp a distance from the stack's top; 0 none. */
	uint64_t key;
	uint64_t lost;	/* OT_EV_LOST only */
	uint64_t value;	/* an entry's argument or a return's value, when has_value */
	uint8_t has_value;
};

#endif
