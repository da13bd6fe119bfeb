/*
 * reloc_diff.c - the relocator fuzzer's driver: for each sequence, ask
 * ot_relocate, hold its answer against the contract, and run the original
 * and the patched function side by side in the sandbox; count, and print
 * every failure with what reproduces it.  Sequences run in forked workers:
 * the sandbox takes fixed addresses, signals, a timer and a seccomp filter.
 */
#include "reloc_diff.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/arch/x86_64/relocate.h"

/* Single steps before an original that spun for a millisecond (millions
 * of instructions) is "did not finish". */
#define STEP_LIMIT	256
/* Single steps of an original that differed, traced to see whether it ran
 * what the contract is about (about a second). */
#define WATCH_LIMIT	200000
/* Flags compared: CF PF AF ZF SF DF OF. */
#define FLAGS_MASK	0xcd5ull
#define MAX_FAILURES	20

static const char *const reasons[RR_N] = {
	[RR_SHORT] = "the function is shorter than the 5-byte patch",
	[RR_UNDECODED] = "an instruction in the patched bytes cannot be decoded",
	[RR_NOFIT] = "the moved instructions do not fit the trampoline",
	[RR_PUSHF] = "a pushf is in the patched bytes",
	[RR_LOOP] = "a loop or jrcxz instruction (rel8 only) is in the patched bytes",
	[RR_CALL_RSP] = "a call through the stack pointer is in the patched bytes",
	[RR_FAR_BRANCH] = "a branch target is out of rel32 reach of the trampoline",
	[RR_CALL_FORM] = "a call of a form that cannot be moved is in the patched bytes",
	[RR_FAR_RIP] = "a RIP-relative operand is out of rel32 reach of the trampoline",
	[RR_BRANCH_FORM] = "a relative branch of a form that cannot be moved",
	[RR_CALL_MID] = "a call in the patched bytes is not their last instruction (a thread in "
			"its callee would return into the patch)",
	[RR_FAR_BACK] = "the function is out of rel32 reach of the trampoline",
	[RR_INTO_PATCH] = "a branch of the function lands inside the patched bytes",
	[RR_OPSIZE] = "a branch with an operand-size prefix is in the patched bytes",
};

const char *rd_reason_text(int r)
{
	return r >= 0 && r < RR_N ? reasons[r] : "?";
}

static int reason_of(const char *why)
{
	int r;

	for (r = 0; why && r < RR_N; r++)
		if (!strcmp(why, reasons[r]))
			return r;
	return -1;
}

/* Sequence i of seed: independent of how a run is split among workers. */
static uint64_t seq_seed(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Where each instruction of the trampoline came from: a fault there is
 * compared as a fault at the original instruction. */
struct tmap {
	size_t n;
	uint64_t lo[RD_MAX_ITEMS * 4], hi[RD_MAX_ITEMS * 4], orig[RD_MAX_ITEMS * 4];
};

struct worker {
	struct rd_space sp;
	struct rd_stats *st;
	FILE *out;
	int verbose;
	uint64_t seed, index;
	const struct rd_seq *s;
	const struct ot_reloc *r;
	struct tmap map;
	struct rd_outcome a, b;		/* original, relocated */
	int ran;
	/* Memory as a run starts, and as the original left it. */
	uint8_t init_data[RD_DATA_LEN], init_far_data[RD_FAR_DATA_LEN], init_stack[RD_STACK_LEN];
	uint8_t data[RD_DATA_LEN], far_data[RD_FAR_DATA_LEN], stack[RD_STACK_LEN];
	csh cs;
};

static const char *const kinds[] = { "exit", "fault", "did not finish", "timeout" };

static void print_outcome(FILE *out, const char *what, const struct rd_outcome *o,
			  const struct rd_outcome *other)
{
	static const char *const names[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp",
						"rsi", "rdi", "r8",  "r9",  "r10", "r11",
						"r12", "r13", "r14", "r15" };
	int i;

	fprintf(out, "  %s: %s", what, kinds[o->kind]);
	if (o->kind == RK_EXIT)
		fprintf(out, " %d", o->exit);
	if (o->kind == RK_FAULT)
		fprintf(out, " signal %d code %d addr %#llx", o->sig, o->code,
			(unsigned long long)o->addr);
	fprintf(out, " at %#llx after %llu steps, flags %#llx\n   ", (unsigned long long)o->rip,
		(unsigned long long)o->steps, (unsigned long long)o->regs.flags);
	for (i = 0; i < 16; i++)
		fprintf(out, " %s%s=%#llx", o->regs.gpr[i] != other->regs.gpr[i] ? "*" : "",
			names[i], (unsigned long long)o->regs.gpr[i]);
	fputc('\n', out);
}

/* A failure: what, the sequence, both outcomes, how to reproduce it. */
static void fail(struct worker *w, const char *fmt, ...)
{
	const struct rd_seq *s = w->s;
	va_list ap;
	size_t i;

	w->st->failures++;
	fprintf(w->out, "reloc-diff: FAIL sequence %llu of seed %#llx: ",
		(unsigned long long)w->index, (unsigned long long)w->seed);
	va_start(ap, fmt);
	vfprintf(w->out, fmt, ap);
	va_end(ap);
	fprintf(w->out, "\n  function at %#llx: %zu bytes, patch at +%zu replacing [+%zu, +%zu), "
		"trampoline at %#llx\n  bytes:", (unsigned long long)s->addr, s->size, s->patch_at,
		s->patch_at, s->tail, (unsigned long long)s->tramp);
	for (i = 0; i < s->size; i++)
		fprintf(w->out, " %02x", s->code[i]);
	fputc('\n', w->out);
	rd_dump(w->out, "function", s->code, s->size, s->addr);
	if (w->r)
		rd_dump(w->out, "trampoline", w->r->code, w->r->len, s->tramp);
	if (w->ran) {
		print_outcome(w->out, "original ", &w->a, &w->b);
		print_outcome(w->out, "relocated", &w->b, &w->a);
	}
	fprintf(w->out, "  reproduce: build/fuzz_reloc --seed %#llx --first %llu -n 1 -v\n",
		(unsigned long long)w->seed, (unsigned long long)w->index);
}

/* Is ot_relocate's answer one the contract allows?  1 if it moved s. */
static int judge(struct worker *w, int ret, const char *why)
{
	uint32_t holds, must;
	int r, i;

	rd_reasons(w->s, &holds, &must);
	if (ret && ret != -EINVAL) {
		fail(w, "ot_relocate returned %d (%s)", ret, why ? why : "no reason");
		return 0;
	}
	if (ret) {
		r = reason_of(why);
		if (r < 0)
			fail(w, "refused with a reason relocate.h does not list: \"%s\"", why ? why : "");
		else if (!(holds & (1u << r)))
			fail(w, "refused because \"%s\", which is not true of it", why);
		else
			w->st->refused[r]++;
		return 0;
	}
	for (i = 0; i < RR_N; i++)
		if (must & (1u << i)) {
			fail(w, "moved, but the contract refuses it: \"%s\"", reasons[i]);
			return 0;
		}
	if (w->r->patch_at != w->s->patch_at || w->r->covered != w->s->tail - w->s->patch_at ||
	    w->r->moved != w->s->ncovered || w->r->len > OT_RELOC_MAX) {
		fail(w, "moved, but patch_at %zu covered %zu moved %zu len %zu (expected %zu %zu %zu)",
		     w->r->patch_at, w->r->covered, w->r->moved, w->r->len, w->s->patch_at,
		     w->s->tail - w->s->patch_at, w->s->ncovered);
		return 0;
	}
	return 1;
}

/* The trampoline, instruction by instruction, against the moved ones: a
 * call became four (push as lea and two movl, then the jump). */
static void build_map(struct worker *w)
{
	const struct rd_seq *s = w->s;
	cs_insn *in;
	size_t n, i, k = 0, left = 0;

	w->map.n = 0;
	n = cs_disasm(w->cs, w->r->code, w->r->len, s->tramp, 0, &in);
	k = s->first;
	for (i = 0; i < n && w->map.n < RD_MAX_ITEMS * 4; i++) {
		uint64_t orig = s->addr + s->tail;	/* the jump back */

		if (!left && k < s->first + s->ncovered)
			left = s->it[k++].flags & IF_CALL ? 4 : 1;
		if (left) {
			orig = s->it[k - 1].at;
			left--;
		}
		w->map.lo[w->map.n] = in[i].address;
		w->map.hi[w->map.n] = in[i].address + in[i].size;
		w->map.orig[w->map.n++] = orig;
	}
	cs_free(in, n);
}

static uint64_t map(const struct worker *w, uint64_t a)
{
	size_t i;

	for (i = 0; i < w->map.n; i++)
		if (a >= w->map.lo[i] && a < w->map.hi[i])
			return w->map.orig[i];
	return a;
}

static uint8_t *tramp_at(struct worker *w)
{
	int i;

	for (i = 0; i < RD_NTRAMP; i++)
		if (w->s->tramp >= rd_tramp_page[i] && w->s->tramp < rd_tramp_page[i] + 4096)
			return w->sp.tramp[i] + (w->s->tramp - rd_tramp_page[i]);
	abort();
}

/*
 * One side: the function at its address (patched, with its trampoline,
 * for the relocated one), stubs, fresh data and stack, then run; the
 * original's memory is kept to compare.
 */
static void run(struct worker *w, int relocated, uint64_t limit, struct rd_outcome *o)
{
	const struct rd_seq *s = w->s;
	uint8_t *fn = w->sp.fn + (s->addr - RD_FN);

	memcpy(fn, s->code, s->size);
	rd_write_stubs(s, w->sp.fn);
	if (relocated) {
		int32_t d = (int32_t)(s->tramp - (s->addr + s->patch_at + OT_PATCH_LEN));

		fn[s->patch_at] = 0xe9;
		memcpy(fn + s->patch_at + 1, &d, 4);
		memcpy(tramp_at(w), w->r->code, w->r->len);
	}
	memcpy(w->sp.data, w->init_data, sizeof(w->init_data));
	memcpy(w->sp.far_data, w->init_far_data, sizeof(w->init_far_data));
	memcpy(w->sp.stack, w->init_stack, sizeof(w->init_stack));
	rd_sandbox_run(&s->regs, s->addr, limit, s->exit, o);
	memset(fn, 0xcc, s->size + 24);
	if (relocated) {
		memset(tramp_at(w), 0xcc, w->r->len);
	} else {
		memcpy(w->data, w->sp.data, sizeof(w->data));
		memcpy(w->far_data, w->sp.far_data, sizeof(w->far_data));
		memcpy(w->stack, w->sp.stack, sizeof(w->stack));
	}
}

/*
 * Both sides.  Both spinning past the timer is "neither finished".  One
 * alone may be a long loop that the other finished just in time: both are
 * redone single-stepped, so that the verdict is the step count's, not
 * the timer's.  The relocated side may take up to 6 steps for each of the
 * original's (a call is four, and the patch's jmp and the jump back add
 * two a pass), and never fewer.
 */
static void run_both(struct worker *w)
{
	run(w, 0, 0, &w->a);
	run(w, 1, 0, &w->b);
	if (w->a.kind == RK_TIMEOUT && w->b.kind == RK_TIMEOUT) {
		w->a.kind = w->b.kind = RK_UNFINISHED;
	} else if (w->a.kind == RK_TIMEOUT || w->b.kind == RK_TIMEOUT) {
		w->st->stepped++;
		run(w, 0, STEP_LIMIT, &w->a);
		run(w, 1, w->a.kind == RK_UNFINISHED ? STEP_LIMIT : 6 * w->a.steps + 32, &w->b);
	}
	w->ran = 1;
}

/* Where the two areas first differ, or -1. */
static long first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i;

	if (!memcmp(a, b, n))
		return -1;
	for (i = 0; a[i] == b[i]; i++)
		;
	return (long)i;
}

/*
 * The one difference allowed: an indirect call moved as push + jmp whose
 * target is not canonical faults at the call in the original, before it
 * pushes, and at the jmp, after the push, in the trampoline.  1 if b is a
 * but for that push (and then the stack compares equal without it).
 */
static int pushed_then_faulted(struct worker *w)
{
	const struct rd_seq *s = w->s;
	const struct rd_outcome *a = &w->a, *b = &w->b;
	uint64_t off = b->regs.gpr[4] - RD_STACK, ret = 0;
	size_t k;

	if (a->kind != RK_FAULT || b->rip < s->tramp || b->rip >= s->tramp + w->r->len ||
	    b->regs.gpr[4] != a->regs.gpr[4] - 8 || off > RD_STACK_LEN - 8)
		return 0;
	for (k = s->first; k < s->first + s->ncovered; k++)
		if (s->it[k].at == a->rip && (s->it[k].flags & IF_CALL) && s->it[k].b[0] != 0xe8)
			ret = s->it[k].at + s->it[k].len;
	if (!ret || memcmp(w->sp.stack + off, &ret, 8))
		return 0;
	memcpy(w->stack + off, &ret, 8);
	return 1;
}

/* The first difference between the memory the two sides left: 0, or 1
 * with where in *area and *off. */
static int memory_differs(const struct worker *w, const char **area, long *off)
{
	const struct {
		const char *name;
		const uint8_t *a, *b;
		size_t n;
	} m[] = { { "data", w->data, w->sp.data, sizeof(w->data) },
		  { "far data", w->far_data, w->sp.far_data, sizeof(w->far_data) },
		  { "stack", w->stack, w->sp.stack, sizeof(w->stack) } };
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(*m); i++)
		if ((*off = first_diff(m[i].a, m[i].b, m[i].n)) >= 0) {
			*area = m[i].name;
			return 1;
		}
	return 0;
}

/* Do the two sides differ?  0, or 1 with what in msg. */
static int differ(struct worker *w, char *msg, size_t n)
{
	const struct rd_outcome *a = &w->a, *b = &w->b;
	const char *area;
	long off;
	int i, pushed;

	if (a->kind != b->kind)
		return snprintf(msg, n, "the original: %s, the relocated: %s", kinds[a->kind],
				kinds[b->kind]), 1;
	if (a->kind == RK_UNFINISHED)
		return 0;
	if (a->kind == RK_EXIT && a->exit != b->exit)
		return snprintf(msg, n, "left by exit %d, relocated by exit %d", a->exit, b->exit), 1;
	if (a->kind == RK_FAULT && (a->sig != b->sig || a->code != b->code ||
				    a->rip != map(w, b->rip) || a->addr != map(w, b->addr)))
		return snprintf(msg, n, "faults differ"), 1;
	pushed = pushed_then_faulted(w);
	for (i = 0; i < 16; i++)
		if (a->regs.gpr[i] != b->regs.gpr[i] && !(pushed && i == 4))
			return snprintf(msg, n, "register %d differs", i), 1;
	if ((a->regs.flags ^ b->regs.flags) & FLAGS_MASK)
		return snprintf(msg, n, "flags differ"), 1;
	if (memory_differs(w, &area, &off))
		return snprintf(msg, n, "memory differs: %s at +%#lx", area, off), 1;
	w->st->pushed_faults += (uint64_t)pushed;
	return 0;
}

/* The function's instruction (as capstone reads it) that starts at a, or NULL. */
static const struct rd_item *item_at(const struct rd_seq *s, uint64_t a)
{
	size_t k;

	for (k = 0; k < s->n; k++)
		if (s->it[k].at == a)
			return &s->it[k];
	return NULL;
}

/*
 * The original, single-stepped again: did it run what the contract says
 * nothing of?  RD_MISREAD: an instruction that is no branch, at a start
 * capstone sees, did not fall through to the next start capstone sees:
 * the CPU reads the bytes otherwise (the relocator, decoding with
 * capstone, could not do better).  RD_JUMPED: the patched bytes entered
 * other than at their first byte from outside them, by an indirect jump
 * or a return (no relocator sees those).  0: neither; the difference
 * stands.  Both verdicts come from the original alone.
 */
enum { RD_MISREAD = 1, RD_JUMPED };

static int outside_contract(struct worker *w)
{
	static uint64_t trace[WATCH_LIMIT];
	const struct rd_seq *s = w->s;
	uint64_t lo = s->addr + s->patch_at, hi = s->addr + s->tail, prev = s->addr;
	struct rd_outcome o;
	size_t i;

	rd_sandbox_trace(trace, WATCH_LIMIT);
	run(w, 0, WATCH_LIMIT, &o);
	rd_sandbox_trace(NULL, 0);
	for (i = 0; i < o.steps && i < WATCH_LIMIT; prev = trace[i++]) {
		const struct rd_item *it = item_at(s, prev);
		uint64_t next = it ? it->at + it->len : prev == s->addr && s->endbr ? prev + 4 : 0;

		if (next && !(it && (it->flags & IF_FLOW)) && trace[i] != next)
			return RD_MISREAD;
		if (trace[i] > lo && trace[i] < hi && (prev < lo || prev >= hi))
			return RD_JUMPED;
	}
	return 0;
}

static void compare(struct worker *w)
{
	static const char *const aside[] = { [RD_MISREAD] = "the CPU reads its bytes otherwise "
							    "than capstone",
					     [RD_JUMPED] = "it jumps into the patched bytes indirectly" };
	char msg[128];
	int why;

	if (differ(w, msg, sizeof(msg))) {
		why = outside_contract(w);
		if (!why) {
			fail(w, "%s", msg);
			return;
		}
		if (why == RD_MISREAD)
			w->st->misread++;
		else
			w->st->jumped_inside++;
		fprintf(w->out, "reloc-diff: not compared: sequence %llu of seed %#llx: %s\n",
			(unsigned long long)w->index, (unsigned long long)w->seed, aside[why]);
		return;
	}
	if (w->a.kind == RK_UNFINISHED)
		w->st->unfinished++;
	else if (w->a.kind == RK_EXIT)
		w->st->exits++;
	else
		w->st->faults++;
}

static void count_moved(struct worker *w)
{
	const struct rd_seq *s = w->s;
	size_t k, rest = s->first + s->ncovered;
	int call = 0, rip = 0, branch = 0, out = 0, entry = 0, tail = 0;

	for (k = 0; k < s->n; k++) {
		const struct rd_item *it = &s->it[k];
		int br = it->kind == IK_BRANCH, moved = k >= s->first && k < rest;

		call |= moved && (it->flags & IF_CALL);
		rip |= moved && it->kind == IK_RIP;
		branch |= moved && br;
		out |= moved && br && (it->dest < s->addr || it->dest >= s->addr + s->size);
		entry |= k >= rest && br && (it->dest == s->addr || it->dest == s->addr + s->patch_at);
		tail |= br && it->dest == s->addr + s->tail;
	}
	w->st->relocated++;
	w->st->moved_call += (uint64_t)call;
	w->st->moved_rip += (uint64_t)rip;
	w->st->moved_branch += (uint64_t)branch;
	w->st->moved_out += (uint64_t)out;
	w->st->to_entry += (uint64_t)entry;
	w->st->to_tail += (uint64_t)tail;
	w->st->endbr += (uint64_t)s->endbr;
}

static void one(struct worker *w, uint64_t index)
{
	struct rd_seq s;
	struct ot_reloc r;
	const char *why = NULL;
	int ret;

	w->index = index, w->s = &s, w->r = NULL, w->ran = 0;
	rd_generate(seq_seed(w->seed, index), &s);
	w->st->sequences++;
	ret = ot_relocate(s.code, s.size, s.addr, s.tramp, &r, &why);
	if (!ret)
		w->r = &r;
	if (w->verbose) {
		fprintf(w->out, "sequence %llu: %s%s\n", (unsigned long long)index,
			ret ? "refused: " : "relocated", ret ? why : "");
		rd_dump(w->out, "function", s.code, s.size, s.addr);
		if (!ret)
			rd_dump(w->out, "trampoline", r.code, r.len, s.tramp);
	}
	if (!judge(w, ret, why))
		return;
	count_moved(w);
	build_map(w);
	rd_fill_memory(&s, w->init_data, w->init_far_data, w->init_stack);
	run_both(w);
	compare(w);
	if (w->verbose) {
		print_outcome(w->out, "original ", &w->a, &w->b);
		print_outcome(w->out, "relocated", &w->b, &w->a);
	}
}

/* A worker's life: the sandbox, then its share of the sequences. */
static int work(uint64_t seed, uint64_t first, uint64_t count, int flags, FILE *out,
		struct rd_stats *st)
{
	static struct worker w;
	uint64_t i;
	int err;

	w.st = st, w.out = out, w.verbose = flags & RD_VERBOSE, w.seed = seed;
	err = rd_sandbox_init(&w.sp);
	if (err) {
		fprintf(out, "reloc-diff: cannot set up the sandbox: %s\n", strerror(-err));
		return 2;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &w.cs) != CS_ERR_OK)
		return 2;
	rd_write_static_stubs(w.sp.stubs, w.sp.far_code);
	for (i = 0; i < count && st->failures < MAX_FAILURES; i++) {
		one(&w, first + i);
		st->done++;
	}
	fflush(out);
	return 0;
}

static void add_stats(struct rd_stats *to, const struct rd_stats *from)
{
	const uint64_t *f = (const uint64_t *)from;
	uint64_t *t = (uint64_t *)to;
	size_t i;

	for (i = 0; i < sizeof(*to) / sizeof(uint64_t); i++)
		t[i] += f[i];
}

/* Wait for the workers; one that died is a failure, named by the
 * sequence it was running. */
static long reap(pid_t *pids, const uint64_t *starts, int jobs, struct rd_stats *shared,
		 uint64_t seed, uint64_t total, int flags, FILE *out)
{
	long failures = 0;
	int alive = jobs, secs = 0;

	while (alive) {
		int status, j;
		pid_t pid = waitpid(-1, &status, (flags & RD_PROGRESS) ? WNOHANG : 0);

		if (pid == 0) {
			struct rd_stats sum = { 0 };

			sleep(1);
			if (++secs % 60)
				continue;
			for (j = 0; j < jobs; j++)
				add_stats(&sum, &shared[j]);
			fprintf(out, "reloc-diff: %llu of %llu sequences, %llu moved, %llu failures\n",
				(unsigned long long)sum.done, (unsigned long long)total,
				(unsigned long long)sum.relocated, (unsigned long long)sum.failures);
			fflush(out);
			continue;
		}
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		for (j = 0; j < jobs && pids[j] != pid; j++)
			;
		if (j == jobs)
			continue;
		alive--;
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			continue;
		failures++;
		fprintf(out, "reloc-diff: FAIL worker %d %s %d during sequence %llu of seed %#llx\n"
			"  reproduce: build/fuzz_reloc --seed %#llx --first %llu -n 1 -v\n", j,
			WIFSIGNALED(status) ? "died of signal" : "exited with", WIFSIGNALED(status) ?
			WTERMSIG(status) : WEXITSTATUS(status),
			(unsigned long long)(starts[j] + shared[j].done), (unsigned long long)seed,
			(unsigned long long)seed, (unsigned long long)(starts[j] + shared[j].done));
	}
	return failures;
}

long rd_run(uint64_t seed, uint64_t first, uint64_t count, int jobs, int flags, FILE *out,
	    struct rd_stats *st)
{
	struct rd_stats *shared;
	pid_t pids[64];
	uint64_t starts[64];
	long failures;
	int j;

	if (jobs < 1 || jobs > 64)
		return -EINVAL;
	shared = mmap(NULL, sizeof(*shared) * (size_t)jobs, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	memset(shared, 0, sizeof(*shared) * (size_t)jobs);
	fflush(out);
	fflush(stdout);
	for (j = 0; j < jobs; j++) {
		uint64_t lo = first + count * (uint64_t)j / (uint64_t)jobs;
		uint64_t hi = first + count * (uint64_t)(j + 1) / (uint64_t)jobs;

		starts[j] = lo;
		pids[j] = fork();
		if (pids[j] == 0)
			_exit(work(seed, lo, hi - lo, flags, out, &shared[j]));
		if (pids[j] < 0) {
			failures = -errno;
			while (j--)
				kill(pids[j], SIGKILL), waitpid(pids[j], NULL, 0);
			munmap(shared, sizeof(*shared) * (size_t)jobs);
			return failures;
		}
	}
	failures = reap(pids, starts, jobs, shared, seed, count, flags, out);
	memset(st, 0, sizeof(*st));
	for (j = 0; j < jobs; j++)
		add_stats(st, &shared[j]);
	munmap(shared, sizeof(*shared) * (size_t)jobs);
	return failures + (long)st->failures;
}
