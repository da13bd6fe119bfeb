/*
 * pair.c - entry and return records paired into nested scopes (pair.h): a
 * shadow stack per thread (or fiber, or goroutine), healed by the user stack
 * pointer, durations into per-function histograms.
 */
#include "pair.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct frame {
	uint64_t start;
	uint64_t sp;	     /* SP at entry */
	uint64_t child_end;  /* latest end of a closed child */
	uint32_t func;
	uint32_t child_func; /* the child that ended at child_end */
	uint32_t node;	     /* call tree node */
	uint32_t epoch;	     /* loss epoch at entry */
	uint64_t nested;     /* traced calls closed inside, at any depth */
	uint64_t arg;	     /* the value its entry recorded, when has_arg */
	/* Its latest traced callee and that callee's tree node (0: none):
	 * a loop calling one function finds the node without a lookup. */
	uint32_t kid_func, kid_node;
	uint8_t has_arg;
	uint8_t keyed;	     /* OT_EV_KEYED: paired by func, not SP */
	/* Calls with a return probe open on this stack, this one included:
	 * the kernel gives a thread no more than OT_PAIR_URETPROBE_MAX. */
	uint32_t nret;
};

/*
 * Calls set aside when the thread left them without returning: a lost
 * return, a longjmp or an exception - or a switch to another stack (a
 * fiber, a coroutine) that will come back and return them.  A return that
 * matches one of them exactly (same function, same entry SP) brings its
 * stack back; what is never brought back is unclosed at the end.
 */
#define SUSPENDED_MAX 16
/*
 * Calls on one stack are this close: an entry further below the thread's
 * innermost call, or further above its outermost, is on another stack.
 * (A frame larger than this between two traced calls puts the callee at
 * depth 0 of its own stack: its count stays exact.)
 */
#define STACK_WINDOW (64u << 10)

struct segment {
	struct frame *f;
	uint32_t n, cap;
};

/*
 * A stack of calls: a thread's, or a goroutine's (key: its g, with pid:
 * the same g in two processes is two goroutines).  A goroutine runs on
 * one stack, whichever thread runs it, and Go moves that stack whole
 * when it grows; its events' SPs are distances from the stack's top
 * (lib/probes/uprobe_multi.bpf.c), so no SP comes from another stack: a
 * call left without its return (a panic recovered above it, Goexit) is
 * unclosed at once, never set aside.
 */
struct thread {
	uint32_t tid;	/* 0: free slot (tid 0 is the idle task, never traced);
			 * a goroutine's: the thread of its latest event */
	uint32_t pid;	/* its process, from its latest event */
	uint64_t key;	/* a goroutine (ot_event.key), 0: the thread tid */
	uint32_t depth, cap;
	struct frame *stack;
	struct segment susp[SUSPENDED_MAX]; /* oldest first */
	uint32_t nsusp;
	/* The last return closed on this thread, to spot one reported twice. */
	uint64_t last_ret_time, last_ret_sp;
	uint32_t last_ret_func;
	int has_last_ret;
	uint32_t root_func, root_node; /* as a frame's kid_*, for depth 0 */
	/* No entry of it seen yet: a fiber another thread ran may be what it
	 * runs first (adopt_near). */
	uint8_t fresh;
	uint8_t listed;	/* in ot_pair.holders */
};

struct ot_pair {
	size_t nfuncs;
	struct ot_tables tab;	/* what the report reads: stats, tree */
	unsigned char *tail_calls; /* per function */
	struct thread *threads;	/* open addressing on tid, or key and pid */
	size_t nthreads, cap;
	size_t goroutines;	/* of nthreads, goroutines' stacks */
	uint32_t *tids;		/* threads seen (open addressing), 0 empty */
	size_t ntids, tidcap;
	struct thread *last;	/* the latest thread fed: events come in runs */
	uint64_t lost;
	uint32_t loss_epoch;	/* bumped by every OT_EV_LOST */
	uint64_t scopes;
	int compensate;
	int exact;		/* entries are never reported twice */
	unsigned char *uretprobe; /* per function: its returns by return probe */
	int migrated;		/* a stack was seen moving to another thread */
	/* Switches of stacks seen with a call under a return probe open on
	 * the stack left or the one taken, and the first one's thread. */
	uint64_t uret_switches;
	uint32_t uret_switch_tid;
	/* Threads that may hold open calls, the ones a stack can move from
	 * (kept lazily: one that holds none is dropped when met). */
	uint32_t *holders;
	size_t nholders, holders_cap;
	uint64_t own_ns, pair_ns;
	ot_scope_fn on_scope;
	void *on_scope_ctx;
	uint64_t *scope_min;	/* per function, ot_pair_on_scope_min; 0s */
};

struct ot_pair *ot_pair_new(size_t nfuncs)
{
	struct ot_pair *p = ot_xcalloc(1, sizeof(*p));

	p->nfuncs = nfuncs;
	ot_tables_init(&p->tab, nfuncs);
	p->tail_calls = ot_xcalloc(nfuncs, 1);
	p->uretprobe = ot_xcalloc(nfuncs, 1);
	p->scope_min = ot_xcalloc(nfuncs, sizeof(*p->scope_min));
	p->cap = 64;
	p->threads = ot_xcalloc(p->cap, sizeof(*p->threads));
	return p;
}

void ot_pair_free(struct ot_pair *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->cap; i++) {
		uint32_t k;

		free(p->threads[i].stack);
		for (k = 0; k < p->threads[i].nsusp; k++)
			free(p->threads[i].susp[k].f);
	}
	free(p->threads);
	free(p->tids);
	ot_tables_fini(&p->tab);
	free(p->tail_calls);
	free(p->uretprobe);
	free(p->holders);
	free(p->scope_min);
	free(p);
}

/* A stack's slot: by its thread, or by its goroutine and process. */
static size_t slot_of(uint32_t tid, uint64_t key, uint32_t pid, size_t cap)
{
	if (key)
		return (size_t)(((key ^ (uint64_t)pid << 40) * 0x9E3779B97F4A7C15ull) >> 32) &
		       (cap - 1);
	return (tid * 2654435761u) & (cap - 1);
}

static inline int same(const struct thread *t, const struct ot_event *ev)
{
	return ev->key ? t->key == ev->key && t->pid == ev->pid : t->tid == ev->tid && !t->key;
}

/* Thread tid seen (once per thread; a goroutine's when it moves). */
static void seen_tid(struct ot_pair *p, uint32_t tid)
{
	size_t s;

	if (2 * (p->ntids + 1) > p->tidcap) {
		uint32_t *old = p->tids;
		size_t oldcap = p->tidcap, i;

		p->tidcap = p->tidcap ? 2 * p->tidcap : 64;
		p->tids = ot_xcalloc(p->tidcap, sizeof(*p->tids));
		p->ntids = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i])
				seen_tid(p, old[i]);
		free(old);
	}
	for (s = slot_of(tid, 0, 0, p->tidcap); p->tids[s]; s = (s + 1) & (p->tidcap - 1))
		if (p->tids[s] == tid)
			return;
	p->tids[s] = tid;
	p->tab.threads = ++p->ntids;
}

static void grow_threads(struct ot_pair *p)
{
	struct thread *old = p->threads;
	size_t oldcap = p->cap, i;

	p->cap *= 2;
	p->threads = ot_xcalloc(p->cap, sizeof(*p->threads));
	for (i = 0; i < oldcap; i++) {
		size_t s;

		if (!old[i].tid)
			continue;
		s = slot_of(old[i].tid, old[i].key, old[i].pid, p->cap);
		while (p->threads[s].tid)
			s = (s + 1) & (p->cap - 1);
		p->threads[s] = old[i];
	}
	free(old);
	p->last = NULL;
}

/* A thread (or goroutine) seen for the first time: its slot, the table
 * grown at half full.  Not inlined, nor are the general paths below:
 * ot_pair_feed stays small. */
static __attribute__((noinline)) struct thread *thread_new(struct ot_pair *p,
							   const struct ot_event *ev)
{
	size_t s;

	if (2 * (p->nthreads + 1) > p->cap)
		grow_threads(p);
	s = slot_of(ev->tid, ev->key, ev->pid, p->cap);
	while (p->threads[s].tid)
		s = (s + 1) & (p->cap - 1);
	p->threads[s].tid = ev->tid;
	p->threads[s].key = ev->key;
	p->threads[s].pid = ev->pid;
	p->threads[s].fresh = 1;
	p->nthreads++;
	p->goroutines += ev->key != 0;
	seen_tid(p, ev->tid);
	return p->last = &p->threads[s];
}

/* A goroutine's latest thread (it moves between them at any call). */
static __attribute__((noinline)) void moved(struct ot_pair *p, struct thread *t, uint32_t tid)
{
	t->tid = tid;
	seen_tid(p, tid);
}

static inline struct thread *thread_get(struct ot_pair *p, const struct ot_event *ev)
{
	struct thread *t = p->last;
	size_t s;

	if (!t || !same(t, ev)) {
		for (s = slot_of(ev->tid, ev->key, ev->pid, p->cap); !same(&p->threads[s], ev);
		     s = (s + 1) & (p->cap - 1))
			if (!p->threads[s].tid)
				return thread_new(p, ev);
		t = p->last = &p->threads[s];
	}
	if (t->tid != ev->tid)
		moved(p, t, ev->tid);
	return t;
}

/* Thread t may hold open calls from now on: among the holders. */
static __attribute__((noinline)) void list_holder(struct ot_pair *p, struct thread *t)
{
	if (p->nholders == p->holders_cap) {
		p->holders_cap = p->holders_cap ? 2 * p->holders_cap : 16;
		p->holders = ot_xreallocarray(p->holders, p->holders_cap, sizeof(*p->holders));
	}
	p->holders[p->nholders++] = t->tid;
	t->listed = 1;
}

static void push(struct ot_pair *p, struct thread *t, const struct ot_event *ev)
{
	uint32_t func = ev->func, parent_node = 0, node, *kid_func, *kid_node, below;
	struct frame *f;

	/* A goroutine is found by its key, never adopted by its stack. */
	if (!t->listed && !t->key)
		list_holder(p, t);
	if (t->depth == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->stack = ot_xreallocarray(t->stack, t->cap, sizeof(*t->stack));
	}
	if (t->depth) {
		struct frame *up = &t->stack[t->depth - 1];

		parent_node = up->node;
		kid_func = &up->kid_func;
		kid_node = &up->kid_node;
	} else {
		kid_func = &t->root_func;
		kid_node = &t->root_node;
	}
	/* Below a path that did not fit, nothing fits: keep it untracked. */
	if (t->depth && !parent_node) {
		node = 0;
	} else if (*kid_node && *kid_func == func) {
		node = *kid_node;
	} else {
		node = ot_tables_child(&p->tab, parent_node, func);
		*kid_func = func;
		*kid_node = node;
	}
	below = t->depth ? t->stack[t->depth - 1].nret : 0;
	/* The kernel gives no return probe past its limit: this call's
	 * return will not be seen. */
	if (p->uretprobe[func] && below >= OT_PAIR_URETPROBE_MAX)
		p->tab.stats[func].past_uretprobe_limit++;
	f = &t->stack[t->depth++];
	f->nret = below + p->uretprobe[func];
	f->start = ev->time;
	f->sp = ev->sp;
	f->child_end = 0;
	f->func = func;
	f->child_func = func;
	f->epoch = p->loss_epoch;
	f->nested = 0;
	f->arg = ev->value;
	f->has_arg = ev->has_value;
	f->node = node;
	f->kid_node = 0;
	f->keyed = !!(ev->flags & OT_EV_KEYED);
}

/* Discard the top frames down to (not including) depth keep. */
static void drop_above(struct ot_pair *p, struct thread *t, uint32_t keep)
{
	while (t->depth > keep)
		p->tab.stats[t->stack[--t->depth].func].unclosed++;
}

/* Close the innermost call at time end; ret: the return's event, for its value.
 * Inline in ot_pair_feed's usual return; a call from the general paths. */
static inline __attribute__((always_inline)) void
close_top_inline(struct ot_pair *p, struct thread *t, uint64_t end, const struct ot_event *ret)
{
	struct frame *f = &t->stack[--t->depth];
	struct ot_func_stats *s = &p->tab.stats[f->func];
	uint32_t depth = t->depth;
	uint64_t dur = end >= f->start ? end - f->start : 0;

	s->scopes++;
	p->scopes++;
	ot_tables_depth(s, depth);
	/*
	 * Records were lost while this call was open: its return may have
	 * been paired across the hole, so its duration is not trusted.
	 * (Which CPU lost them says nothing of which thread: every open
	 * call is suspect.)
	 */
	if (f->epoch != p->loss_epoch) {
		s->spans_loss++;
	} else {
		ot_hist_add(&s->hist, dur);
		if (p->compensate) {
			uint64_t cost = p->own_ns + f->nested * p->pair_ns;

			ot_hist_add(s->comp, dur > cost ? dur - cost : 0);
		}
	}
	ot_tables_close_node(&p->tab, f->node, dur);
	if (p->on_scope && dur >= p->scope_min[f->func]) {
		struct ot_scope sc = { .pid = t->pid, .tid = t->tid, .func = f->func,
				       .depth = depth, .node = f->node,
				       .start = f->start, .end = end,
				       .arg = f->arg, .has_arg = f->has_arg,
				       .ret = ret ? ret->value : 0,
				       .has_ret = ret && ret->has_value };

		p->on_scope(p->on_scope_ctx, &sc);
	}
	/* A child that ends after its parent means the stream's times
	 * disagree with its nesting: count it on the child. */
	if (f->child_end > end)
		p->tab.stats[f->child_func].outside_parent++;
	if (depth) {
		struct frame *parent = &t->stack[depth - 1];

		if (f->start < parent->start)
			s->outside_parent++;
		if (end >= parent->child_end) {
			parent->child_end = end;
			parent->child_func = f->func;
		}
		parent->nested += f->nested + 1;
	}
}

static void close_top(struct ot_pair *p, struct thread *t, uint64_t end,
		      const struct ot_event *ret)
{
	close_top_inline(p, t, end, ret);
}

/* Set the frames above depth keep aside as one segment. */
static void suspend(struct ot_pair *p, struct thread *t, uint32_t keep)
{
	struct segment *g;
	uint32_t k;

	if (keep >= t->depth)
		return;
	if (t->key) {
		drop_above(p, t, keep);	/* a goroutine has one stack: they are gone */
		return;
	}
	if (t->nsusp == SUSPENDED_MAX) {
		/* The oldest stack set aside is not coming back. */
		for (k = 0; k < t->susp[0].n; k++)
			p->tab.stats[t->susp[0].f[k].func].unclosed++;
		free(t->susp[0].f);
		memmove(&t->susp[0], &t->susp[1], (SUSPENDED_MAX - 1) * sizeof(t->susp[0]));
		t->nsusp--;
	}
	g = &t->susp[t->nsusp++];
	g->n = g->cap = t->depth - keep;
	g->f = ot_xreallocarray(NULL, g->n, sizeof(*g->f));
	memcpy(g->f, &t->stack[keep], g->n * sizeof(*g->f));
	t->depth = keep;
}

/* The open return probes counted again, frame by frame, on a stack made
 * of another one's frames (set aside, or another thread's). */
static void renumber(const struct ot_pair *p, struct thread *t)
{
	uint32_t d, n = 0;

	for (d = 0; d < t->depth; d++)
		t->stack[d].nret = n += p->uretprobe[t->stack[d].func];
}

/* Does one of these n frames have its return seen by a return probe? */
static int holds_uretprobe(const struct ot_pair *p, const struct frame *f, uint32_t n)
{
	uint32_t d;

	for (d = 0; d < n; d++)
		if (p->uretprobe[f[d].func])
			return 1;
	return 0;
}

/*
 * Thread t leaves its stack for one holding frames f (n of them): the
 * kernel keeps one chain of return probes per thread, not per stack, so
 * a switch with one open on either side is counted (ot_pair_uret_switches).
 */
static void switching(struct ot_pair *p, const struct thread *t, const struct frame *f,
		      uint32_t n)
{
	if (t->key || !(holds_uretprobe(p, t->stack, t->depth) || holds_uretprobe(p, f, n)))
		return;
	if (!p->uret_switches++)
		p->uret_switch_tid = t->tid;
}

/* Make segment k the thread's stack; the stack becomes a segment. */
static void resume(struct ot_pair *p, struct thread *t, uint32_t k)
{
	struct segment g = t->susp[k];

	switching(p, t, g.f, g.n);
	memmove(&t->susp[k], &t->susp[k + 1], (t->nsusp - k - 1) * sizeof(t->susp[0]));
	t->nsusp--;
	if (t->depth) {
		struct segment *n = &t->susp[t->nsusp++];

		n->f = t->stack;
		n->n = t->depth;
		n->cap = t->cap;
	} else {
		free(t->stack);
	}
	t->stack = g.f;
	t->depth = g.n;
	t->cap = g.cap;
	renumber(p, t);
}

/* Is sp on t's own stack: below its innermost call, among its calls, or
 * just above? */
static int near_own(const struct thread *t, uint64_t sp)
{
	const struct frame *top;

	if (!t->depth)
		return 0;
	top = &t->stack[t->depth - 1];
	return (sp < top->sp && top->sp - sp <= STACK_WINDOW) ||
	       (sp >= top->sp && sp <= t->stack[0].sp + STACK_WINDOW);
}

/*
 * An entry far from the thread's stack but just below a set-aside one: a
 * fiber came back and calls on.  Bring its stack back first.
 */
static void resume_near(struct ot_pair *p, struct thread *t, uint64_t sp)
{
	uint64_t best = STACK_WINDOW + 1;
	uint32_t k, pick = 0;

	if (near_own(t, sp))
		return;
	for (k = 0; k < t->nsusp; k++) {
		const struct frame *top = &t->susp[k].f[t->susp[k].n - 1];

		if (top->sp >= sp && top->sp - sp < best) {
			best = top->sp - sp;
			pick = k + 1;
		}
	}
	if (pick)
		resume(p, t, pick - 1);
}

/*
 * A stack moving to another thread (a fiber resumed elsewhere): segment
 * k of thread x (k == x->nsusp: x's own stack) becomes t's stack, t's own
 * set aside.  Stacks are the process's: the same addresses on two threads
 * are the same stack, run by one and then the other.
 */
static void take_segment(struct ot_pair *p, struct thread *t, struct thread *x, uint32_t k)
{
	struct segment g;

	if (k == x->nsusp) {
		g.f = x->stack;
		g.n = x->depth;
		g.cap = x->cap;
		x->stack = NULL;
		x->depth = x->cap = 0;
	} else {
		g = x->susp[k];
		memmove(&x->susp[k], &x->susp[k + 1], (x->nsusp - k - 1) * sizeof(x->susp[0]));
		x->nsusp--;
	}
	switching(p, t, g.f, g.n);
	suspend(p, t, 0);
	if (!t->listed)
		list_holder(p, t);
	free(t->stack);
	t->stack = g.f;
	t->depth = g.n;
	t->cap = g.cap;
	renumber(p, t);
	p->migrated = 1;
}

/*
 * The holder after index *k that holds open calls and is not t, of t's
 * process, or NULL; holders found empty are dropped on the way.
 */
static struct thread *next_holder(struct ot_pair *p, const struct thread *t, size_t *k)
{
	while (*k < p->nholders) {
		uint32_t tid = p->holders[*k];
		struct thread *x = NULL;
		size_t s;

		for (s = slot_of(tid, 0, 0, p->cap); p->threads[s].tid; s = (s + 1) & (p->cap - 1))
			if (p->threads[s].tid == tid && !p->threads[s].key) {
				x = &p->threads[s];
				break;
			}
		if (x && !x->depth && !x->nsusp) {
			x->listed = 0;
			x = NULL;
		}
		if (!x) {
			p->holders[*k] = p->holders[--p->nholders];
			continue;
		}
		(*k)++;
		if (x != t && x->pid == t->pid)
			return x;
	}
	return NULL;
}

/* Segment k of x (x's own stack at k == x->nsusp): frames and count. */
static const struct frame *segment_of(const struct thread *x, uint32_t k, uint32_t *n)
{
	*n = k == x->nsusp ? x->depth : x->susp[k].n;
	return k == x->nsusp ? x->stack : x->susp[k].f;
}

/*
 * A return no stack of its thread holds: the same call (function and
 * entry SP) open on another thread of its process is its own, its fiber
 * moved.  Take that stack: 1 if one was.
 */
static __attribute__((noinline)) int take_holding(struct ot_pair *p, struct thread *t,
						   const struct ot_event *ev)
{
	struct thread *x;
	size_t i = 0;

	while ((x = next_holder(p, t, &i))) {
		uint32_t k, n, d;

		for (k = 0; k <= x->nsusp; k++) {
			const struct frame *f = segment_of(x, k, &n);

			for (d = 0; d < n; d++) {
				if (f[d].sp == ev->sp && f[d].func == ev->func && !f[d].keyed) {
					take_segment(p, t, x, k);
					return 1;
				}
			}
		}
	}
	return 0;
}

/*
 * An entry no stack of its thread is near, on a thread seen for the first
 * time or once stacks have been seen moving: the stack of another thread
 * of the process whose innermost call is just above it is a fiber this
 * thread now runs.  Take it (the nearest), as resume_near does within a
 * thread.
 */
static __attribute__((noinline)) void adopt_near(struct ot_pair *p, struct thread *t,
						  uint64_t sp)
{
	uint64_t best = STACK_WINDOW + 1;
	struct thread *from = NULL, *x;
	uint32_t pick = 0;
	size_t i = 0;

	while ((x = next_holder(p, t, &i))) {
		uint32_t k, n;

		for (k = 0; k <= x->nsusp; k++) {
			const struct frame *f = segment_of(x, k, &n);

			if (n && !f[n - 1].keyed && f[n - 1].sp >= sp && f[n - 1].sp - sp < best) {
				best = f[n - 1].sp - sp;
				from = x;
				pick = k;
			}
		}
	}
	if (from)
		take_segment(p, t, from, pick);
}

/* An entry, in general (ot_pair_feed takes the usual case itself). */
static __attribute__((noinline)) void on_entry(struct ot_pair *p, struct thread *t,
						  const struct ot_event *ev)
{
	uint32_t d;

	/*
	 * The stack grows down, so a callee's entry SP is below its caller's.
	 * An entry at or above an open frame's SP means that frame has
	 * already returned and its return record was lost (or the kernel
	 * never sent it: uretprobe nesting limit, longjmp): discard it.
	 *
	 * An entry at the same SP as the top frame is either that call
	 * reported twice (same function: a duplicate), a tail call (the top
	 * frame jumped to this function and returns with it), or a call made
	 * after a non-local exit (longjmp, exception) out of the top frame.
	 * A tail call leaves its frame on top with nothing open above it; if
	 * frames above had to be discarded just now, the stack was unwound
	 * without returns, and the frame at this SP is gone too - unless its
	 * function is known to leave by tail calls (ot_pair_set_tail_calls).
	 *
	 * Discarded frames are set aside, not yet counted: on another stack
	 * (a fiber) they may still return.
	 */
	if (t->nsusp)
		resume_near(p, t, ev->sp);
	/* A goroutine is its own key: it is found wherever it runs. */
	if (!t->key && (t->fresh || p->migrated) && !near_own(t, ev->sp))
		adopt_near(p, t, ev->sp);
	t->fresh = 0;
	if (!t->key && t->depth && ev->sp < t->stack[t->depth - 1].sp &&
	    t->stack[t->depth - 1].sp - ev->sp > STACK_WINDOW) {
		switching(p, t, NULL, 0);
		suspend(p, t, 0);	/* a new stack: set this one aside */
	}
	for (d = t->depth; d; d--) {
		struct frame *top = &t->stack[d - 1];

		/* A keyed scope's SP is its runtime's: nothing to compare. */
		if (ev->sp < top->sp || top->keyed)
			break;
		if (ev->sp == top->sp && p->exact && !(ev->flags & OT_EV_MAY_TAIL)) {
			/* A tail call returns with the frame it replaced; any
			 * other call here means that frame is gone. */
			if (ev->flags & OT_EV_TAIL_ENTRY)
				break;
			continue;
		}
		if (ev->sp == top->sp) {
			/* A goroutine's entry comes once (its probe is past Go's
			 * stack check): that call is gone (a panic). */
			if (top->func == ev->func && d == t->depth && t->key)
				continue;
			if (top->func == ev->func && d == t->depth) {
				p->tab.stats[ev->func].duplicates++;
				return;
			}
			if (d == t->depth || p->tail_calls[top->func])
				break;
		}
	}
	suspend(p, t, d);
	push(p, t, ev);
}

/* The last return closed on thread t, to spot one reported twice. */
static void last_ret(struct thread *t, const struct ot_event *ev)
{
	t->last_ret_time = ev->time;
	t->last_ret_sp = ev->sp;
	t->last_ret_func = ev->func;
	t->has_last_ret = 1;
}

/* Close ev's call if the thread's stack holds it: 1 if it did. */
static int close_call(struct ot_pair *p, struct thread *t, const struct ot_event *ev)
{
	uint32_t i;

	for (i = t->depth; i > 0; i--) {
		struct frame *f = &t->stack[i - 1];

		if (f->keyed)
			continue;	/* a runtime's scope inside: ends with it */
		if (f->sp > ev->sp)
			return 0;	/* frames below belong to callers */
		if (f->sp == ev->sp && f->func == ev->func) {
			drop_above(p, t, i);
			close_top(p, t, ev->time, ev);
			/*
			 * A return instruction ends the tail callers below at
			 * the same SP too: only one `ret` runs for all of them
			 * (a uretprobe reports each, and they pair one by one:
			 * a tail caller with a return probe waits for its own).
			 */
			while ((ev->flags & OT_EV_RET_INSN) && t->depth &&
			       t->stack[t->depth - 1].sp == ev->sp &&
			       !p->uretprobe[t->stack[t->depth - 1].func])
				close_top(p, t, ev->time, ev);
			last_ret(t, ev);
			return 1;
		}
	}
	return 0;
}

/* Bring back the set-aside stack holding ev's call: 1 if one did. */
static int resume_holding(struct ot_pair *p, struct thread *t, const struct ot_event *ev)
{
	uint32_t k, x;

	for (k = t->nsusp; k > 0; k--) {
		const struct segment *g = &t->susp[k - 1];

		for (x = 0; x < g->n; x++) {
			if (g->f[x].sp == ev->sp && g->f[x].func == ev->func) {
				resume(p, t, k - 1);
				return 1;
			}
		}
	}
	return 0;
}

/* A return, in general (ot_pair_feed takes the usual case itself). */
static __attribute__((noinline)) void on_return(struct ot_pair *p, struct thread *t,
						   const struct ot_event *ev)
{
	uint32_t i;

	if (ev->flags & OT_EV_RET_TAIL) {
		/* Deeper frames may be open (their returns lost): look past them
		 * without touching them; only the innermost call at this SP
		 * may end here.  A traced tail callee above it ends both with
		 * its own return. */
		for (i = t->depth; i > 0 && t->stack[i - 1].sp < ev->sp; i--)
			;
		if (!i || t->stack[i - 1].sp != ev->sp || t->stack[i - 1].func != ev->func)
			return;
	}
	/* On this stack, or on one set aside (a fiber is back). */
	if (close_call(p, t, ev) || (t->nsusp && resume_holding(p, t, ev) && close_call(p, t, ev)) ||
	    (take_holding(p, t, ev) && close_call(p, t, ev)))
		return;
	if (t->has_last_ret && t->last_ret_func == ev->func &&
	    t->last_ret_sp == ev->sp && t->last_ret_time == ev->time) {
		p->tab.stats[ev->func].duplicates++;
		return;
	}
	p->tab.stats[ev->func].orphans++;
	/* Frames deeper than the returning one have ended too, unless they
	 * are another stack's. */
	for (i = t->depth; i > 0 && t->stack[i - 1].sp < ev->sp; i--)
		;
	suspend(p, t, i);
}

/* A keyed scope's entry or return (OT_EV_KEYED). */
static __attribute__((noinline)) void keyed(struct ot_pair *p, struct thread *t,
					       const struct ot_event *ev)
{
	uint32_t i;

	if (ev->kind == OT_EV_ENTRY) {
		push(p, t, ev);
		return;
	}
	for (i = t->depth; i > 0; i--)
		if (t->stack[i - 1].keyed && t->stack[i - 1].func == ev->func)
			break;
	if (!i) {
		p->tab.stats[ev->func].orphans++;
		return;
	}
	/* Scopes the runtime left without their return (an exception
	 * unwinding its frames, a lost record): they end here, skipped. */
	while (t->depth > i) {
		struct frame *f = &t->stack[--t->depth];

		if (f->keyed)
			p->tab.stats[f->func].skipped++;
		else
			p->tab.stats[f->func].unclosed++;
	}
	close_top(p, t, ev->time, ev);
}

/* A counted point: its count, and its value to whoever takes scopes. */
static void point(struct ot_pair *p, const struct ot_event *ev)
{
	struct ot_scope s = { .pid = ev->pid, .tid = ev->tid, .func = ev->func,
			      .start = ev->time, .end = ev->time, .arg = ev->value,
			      .has_arg = ev->has_value, .point = 1 };

	p->tab.stats[ev->func].points++;
	thread_get(p, ev)->pid = ev->pid;	/* counted among the threads seen */
	if (p->on_scope)
		p->on_scope(p->on_scope_ctx, &s);
}

/*
 * Most events are the usual case, taken here without the general paths'
 * calls and loops: an entry below the innermost open call on its stack
 * (nothing set aside), or the return of that call at its entry's SP
 * seen as an ordinary return.  The general paths decide these the same.
 */
void ot_pair_feed(struct ot_pair *p, const struct ot_event *ev)
{
	struct thread *t;
	struct frame *top;

	if (ev->kind == OT_EV_LOST) {
		p->lost += ev->lost;
		p->loss_epoch++;
		return;
	}
	if (ev->kind == OT_EV_POINT && ev->func < p->nfuncs) {
		point(p, ev);
		return;
	}
	if ((ev->kind != OT_EV_ENTRY && ev->kind != OT_EV_RETURN) || ev->func >= p->nfuncs)
		return;
	t = thread_get(p, ev);
	t->pid = ev->pid;
	if (ev->flags & OT_EV_KEYED) {
		keyed(p, t, ev);
		return;
	}
	top = t->depth ? &t->stack[t->depth - 1] : NULL;
	if (top && top->keyed && ev->kind == OT_EV_ENTRY) {
		push(p, t, ev);		/* a call inside a runtime's function */
		return;
	}
	if (ev->kind == OT_EV_ENTRY) {
		if (!t->nsusp && (top ? ev->sp < top->sp &&
				  (t->key || top->sp - ev->sp <= STACK_WINDOW) :
				  t->key || (!t->fresh && !p->migrated)))
			push(p, t, ev);
		else
			on_entry(p, t, ev);
	} else if (top && !ev->flags && top->sp == ev->sp && top->func == ev->func) {
		close_top_inline(p, t, ev->time, ev);
		last_ret(t, ev);
	} else {
		on_return(p, t, ev);
	}
}

void ot_pair_finish(struct ot_pair *p)
{
	size_t i;

	for (i = 0; i < p->cap; i++) {
		struct thread *t = &p->threads[i];
		uint32_t k, x;

		if (!t->tid)
			continue;
		drop_above(p, t, 0);
		for (k = 0; k < t->nsusp; k++) {
			for (x = 0; x < t->susp[k].n; x++)
				p->tab.stats[t->susp[k].f[x].func].unclosed++;
			free(t->susp[k].f);
		}
		t->nsusp = 0;
	}
}

const struct ot_func_stats *ot_pair_stats(const struct ot_pair *p, size_t f)
{
	return &p->tab.stats[f];
}

void ot_pair_compensate(struct ot_pair *p, uint64_t own_ns, uint64_t pair_ns)
{
	p->compensate = 1;
	p->own_ns = own_ns;
	p->pair_ns = pair_ns;
	ot_tables_comp(&p->tab);
}

void ot_pair_set_exact(struct ot_pair *p)
{
	p->exact = 1;
}

void ot_pair_set_uretprobe(struct ot_pair *p, size_t f)
{
	if (f < p->nfuncs)
		p->uretprobe[f] = 1;
}

void ot_pair_set_tail_calls(struct ot_pair *p, size_t f)
{
	if (f < p->nfuncs)
		p->tail_calls[f] = 1;
}

void ot_pair_on_scope(struct ot_pair *p, ot_scope_fn fn, void *ctx)
{
	p->on_scope = fn;
	p->on_scope_ctx = ctx;
}

void ot_pair_on_scope_min(struct ot_pair *p, size_t f, uint64_t min_ns)
{
	if (f < p->nfuncs)
		p->scope_min[f] = min_ns;
}

const struct ot_tree_node *ot_pair_tree(const struct ot_pair *p, size_t *n)
{
	return ot_tables_tree(&p->tab, n);
}

uint64_t ot_pair_tree_dropped(const struct ot_pair *p)
{
	return p->tab.tree_dropped;
}

const struct ot_tables *ot_pair_tables(const struct ot_pair *p)
{
	return &p->tab;
}

struct ot_tables *ot_pair_tables_fill(struct ot_pair *p)
{
	return &p->tab;
}

uint64_t ot_pair_scopes(const struct ot_pair *p)
{
	return p->scopes;
}

size_t ot_pair_threads(const struct ot_pair *p)
{
	return p->ntids;
}

size_t ot_pair_goroutines(const struct ot_pair *p)
{
	return p->goroutines;
}

uint64_t ot_pair_uret_switches(const struct ot_pair *p, uint32_t *tid)
{
	if (tid)
		*tid = p->uret_switch_tid;
	return p->uret_switches;
}

uint64_t ot_pair_lost(const struct ot_pair *p)
{
	return p->lost;
}
