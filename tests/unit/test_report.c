/*
 * The reports people and scripts read, pinned byte for byte: fixed
 * captures (synthetic event streams through the real pairing and check)
 * rendered as text and JSON and compared with tests/unit/expected/.  A
 * change to the output shows up here as a diff; after a deliberate one,
 * OT_GOLDEN_UPDATE=1 rewrites the files (review them, then commit).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>

#include "lib/report/check.h"
#include "lib/scopes/pair.h"
#include "lib/report/prom.h"
#include "lib/report/prom_http.h"
#include "lib/report/report.h"
#include "lib/scopes/values.h"

enum { OUTER, MIDDLE, INNER, NFUNCS };
static const char *const names[NFUNCS] = { "outer", "middle", "inner" };

static uint64_t clock_ns;

static void ev(struct ot_pair *p, uint32_t tid, uint8_t kind, uint32_t f, uint64_t sp,
	       uint64_t dt)
{
	struct ot_event e = { .time = clock_ns += dt, .sp = sp, .tid = tid, .func = f,
			      .kind = kind };

	ot_pair_feed(p, &e);
}

/* outer -> 2 x middle -> 3 x inner, with durations that vary by call. */
static void tree(struct ot_pair *p, uint32_t tid, unsigned k)
{
	int m, i;

	ev(p, tid, OT_EV_ENTRY, OUTER, 0x7000, 1000);
	for (m = 0; m < 2; m++) {
		ev(p, tid, OT_EV_ENTRY, MIDDLE, 0x6f00, 500);
		for (i = 0; i < 3; i++) {
			ev(p, tid, OT_EV_ENTRY, INNER, 0x6e00, 300);
			ev(p, tid, OT_EV_RETURN, INNER, 0x6e00, 1200 + 37 * ((k + (unsigned)i) % 11));
		}
		ev(p, tid, OT_EV_RETURN, MIDDLE, 0x6f00, 400 + 13 * (k % 7));
	}
	ev(p, tid, OT_EV_RETURN, OUTER, 0x7000, 900);
}

/* A fresh pairing fed n stress trees on thread 100. */
static struct ot_pair *trees(unsigned n)
{
	struct ot_pair *p = ot_pair_new(NFUNCS);
	unsigned k;

	clock_ns = 0;
	for (k = 0; k < n; k++)
		tree(p, 100, k);
	return p;
}

struct fixture {
	struct ot_pair *p;
	struct ot_check check;
	struct ot_report_func fn[NFUNCS];
	struct ot_report r;
	size_t nfuncs;
};

static void fill(struct fixture *x, const char *expect, size_t nfuncs)
{
	const struct ot_func_stats *st[NFUNCS];
	struct ot_expect *e = NULL;
	char *bad;
	int ne = 0;
	size_t i;

	ot_pair_finish(x->p);
	for (i = 0; i < nfuncs; i++)
		st[i] = ot_pair_stats(x->p, i);
	if (expect)
		ne = ot_expect_parse(expect, &e, &bad);
	assert_true(ne >= 0);
	ot_check_run(&x->check, nfuncs, nfuncs, names, st, e, (size_t)ne, 1, ot_pair_lost(x->p), 1, NULL);
	ot_expect_free(e, (size_t)ne);
	memset(x->fn, 0, sizeof(x->fn));
	for (i = 0; i < nfuncs; i++) {
		x->fn[i].name = names[i];
		x->fn[i].symbol = names[i];
		x->fn[i].binary = "/opt/app/bin/app";
		x->fn[i].offset = 0x1100 + 0x40 * i;
		x->fn[i].returns = "uretprobe";
		x->fn[i].st = st[i];
	}
	memset(&x->r, 0, sizeof(x->r));
	x->r.binary = "/opt/app/bin/app";
	x->r.pid = 4242;
	x->r.functions_requested = x->r.functions_armed = nfuncs;
	x->r.uprobes = 2 * nfuncs;
	x->r.events = 2;
	x->r.returns = "uretprobe";
	x->r.backend = "multi";
	x->r.objects = "uprobe_multi links";
	x->r.arm_ns = 11500000;
	x->r.arm_ipis = 3;
	x->r.disarmed = 1;
	x->r.disarm_ns = 62000000;
	x->r.disarm_ipis = 6;
	x->r.disarm_tlb = 1;
	x->r.cpus = 2;
	x->r.ring_kb = 4096;
	x->r.drain_ms = 50;
	x->r.duration_ns = 1050000000;
	x->r.ended_by = "target exit";
	x->r.target_exited = 1;
	x->r.target_status = 0;	/* a wait status: exit 0 */
	x->r.records.samples = 2 * ot_pair_scopes(x->p);
	x->r.records.lost = ot_pair_lost(x->p);
	x->r.threads = ot_pair_threads(x->p);
	x->r.nfuncs = nfuncs;
	x->r.funcs = x->fn;
	x->r.check = &x->check;
	x->r.has_expect = ne > 0;
	x->r.max_loss_pct = 1;
	x->r.tree = ot_pair_tree(x->p, &x->r.ntree);
	x->r.tree_dropped = ot_pair_tree_dropped(x->p);
	x->r.names = names;
	x->r.tracer_cpu_ns = 12000000;
	x->r.tracer_max_rss_kb = 15000;
	x->nfuncs = nfuncs;
}

static void done(struct fixture *x)
{
	ot_check_free(&x->check);
	ot_pair_free(x->p);
}

/* What was written must equal expected/NAME (or becomes it, updating). */
static void golden(const char *name, char *got, size_t len)
{
	char path[4096], *want;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", OT_EXPECTED_DIR, name);
	if (getenv("OT_GOLDEN_UPDATE")) {
		f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(fwrite(got, 1, len, f), len);
		fclose(f);
	}
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s is missing (OT_GOLDEN_UPDATE=1 writes it)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	want = malloc((size_t)n + 1);
	assert_int_equal(fread(want, 1, (size_t)n, f), (size_t)n);
	want[n] = 0;
	fclose(f);
	if ((size_t)n != len || memcmp(want, got, len))
		fail_msg("%s differs from what was written:\n%s", path, got);
	free(want);
}

static void render(struct fixture *x, const char *name, int json)
{
	char *buf = NULL, file[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (json) {
		ot_report_json(f, &x->r);
	} else {
		ot_report_text(f, &x->r);
		ot_report_text_disarm(f, &x->r);
	}
	fclose(f);
	snprintf(file, sizeof(file), "%s.%s", name, json ? "json" : "txt");
	golden(file, buf, len);
	free(buf);
}

/* The metrics of x: text 0.0.4, or OpenMetrics with _created. */
static void render_prom(struct fixture *x, const char *name, int om)
{
	struct ot_prom_opts o = { .openmetrics = om, .version = "0.1.0",
				  .created_ns = 1796180467337581946ull };
	char *buf = NULL, file[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(ot_report_prom(f, &x->r, &o), 0);
	fclose(f);
	snprintf(file, sizeof(file), "%s.%s", name, om ? "om" : "prom");
	golden(file, buf, len);
	free(buf);
}

static void test_clean(void **state)
{
	struct fixture x;
	unsigned k;

	(void)state;
	clock_ns = 0;
	x.p = ot_pair_new(NFUNCS);
	for (k = 0; k < 40; k++)
		tree(x.p, 100 + k % 2, k);
	fill(&x, "outer=40@0,middle=80@1,inner=240@2", NFUNCS);
	render(&x, "clean", 0);
	render(&x, "clean", 1);
	render_prom(&x, "clean", 0);
	render_prom(&x, "clean", 1);
	done(&x);
}

static void test_lossy(void **state)
{
	struct fixture x;
	struct ot_event lost = { .kind = OT_EV_LOST, .lost = 17 };

	(void)state;
	x.p = trees(10);
	ev(x.p, 100, OT_EV_ENTRY, OUTER, 0x7000, 1000);
	lost.time = clock_ns += 10;
	ot_pair_feed(x.p, &lost);	/* outer open across the loss */
	ev(x.p, 100, OT_EV_RETURN, OUTER, 0x7000, 5000);
	ev(x.p, 100, OT_EV_ENTRY, MIDDLE, 0x6f00, 100);	/* never returns */
	fill(&x, NULL, NFUNCS);
	x.r.records.lost_at_end = 5;	/* no record after them in their ring */
	render(&x, "lossy", 0);
	render(&x, "lossy", 1);
	done(&x);
}

static void test_failed_expect_and_hist(void **state)
{
	struct fixture x;

	(void)state;
	x.p = trees(30);
	/* inner straight from outer once: depth 1 */
	ev(x.p, 100, OT_EV_ENTRY, OUTER, 0x7000, 1000);
	ev(x.p, 100, OT_EV_ENTRY, INNER, 0x6f00, 100);
	ev(x.p, 100, OT_EV_RETURN, INNER, 0x6f00, 2000);
	ev(x.p, 100, OT_EV_RETURN, OUTER, 0x7000, 100);
	fill(&x, "outer=40,inner=181@2", NFUNCS);
	x.r.draw_hist = 1;
	{
		static const char *const chain[] = { "outer", "inner" };
		static const struct ot_report_slow outer_slow[] = {
			{ .at_ns = 912000000, .duration_ns = 13800, .tid = 101, .path = "outer",
			  .chain = chain, .nchain = 1 },
			{ .at_ns = 15000, .duration_ns = 13500, .tid = 100, .path = "outer",
			  .chain = chain, .nchain = 1 },
		};
		static const struct ot_report_slow inner_slow[] = {
			{ .at_ns = 400000, .duration_ns = 2000, .tid = 100, .path = "outer > inner",
			  .chain = chain, .nchain = 2 },
		};

		x.fn[OUTER].slowest = outer_slow;
		x.fn[OUTER].nslowest = 2;
		x.fn[INNER].slowest = inner_slow;
		x.fn[INNER].nslowest = 1;
	}
	render(&x, "expect-hist", 0);
	render(&x, "expect-hist", 1);
	done(&x);
}

static void test_compensate(void **state)
{
	struct ot_report_calib calib = { .pair_ns = 900, .own_ns = 450, .empty_ns = 2,
					  .live_calls = 2000 };
	struct fixture x;
	unsigned k;

	(void)state;
	clock_ns = 0;
	x.p = ot_pair_new(NFUNCS);
	ot_pair_compensate(x.p, calib.own_ns, calib.pair_ns);
	for (k = 0; k < 20; k++)
		tree(x.p, 100, k);
	fill(&x, NULL, NFUNCS);
	x.r.calib = &calib;
	x.r.returns = "mixed";
	x.r.insn_returns = 1;
	x.fn[MIDDLE].returns = "insn";
	render(&x, "compensate", 0);
	render(&x, "compensate", 1);
	done(&x);
}

static void test_recursion(void **state)
{
	struct fixture x;
	unsigned k, d;

	(void)state;
	clock_ns = 0;
	x.p = ot_pair_new(2);
	for (k = 0; k < 3; k++) {
		ev(x.p, 7, OT_EV_ENTRY, OUTER, 0x8000, 100);	/* "outer" as main */
		for (d = 0; d < 12; d++)
			ev(x.p, 7, OT_EV_ENTRY, MIDDLE, 0x7f00 - 0x40 * d, 100);
		for (d = 12; d-- > 0;)
			ev(x.p, 7, OT_EV_RETURN, MIDDLE, 0x7f00 - 0x40 * d, 150);
		ev(x.p, 7, OT_EV_RETURN, OUTER, 0x8000, 100);
	}
	fill(&x, NULL, 2);
	render(&x, "recursion", 0);
	/* JSON folds it the same way: four levels, then levels 5..12 (depths
	 * 5 to 12) as one entry - a path per distinct path, not per level. */
	x.r.returns = x.fn[0].returns = x.fn[1].returns = "insn";
	render(&x, "recursion", 1);
	done(&x);
}

static void test_list(void **state)
{
	static const struct ot_list_fn fn[] = {
		{ "/opt/app/bin/app", 812, "symtab", 0x1100, 92, "_ZN3app5parseEi",
		  "app::parse(int)", NULL, 3 },
		{ "/opt/app/bin/app", 812, "symtab", 0x1180, 40, "main", NULL, "app_main", 0 },
		{ "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13", 146, "dynsym", 0x47c0, 18, "crc32",
		  NULL, NULL, 1 },
	};
	static const struct ot_list_skip sk[] = {
		{ "/opt/app/bin/app", "app::parse(int) [clone .cold]",
		  "a .cold part split off its function by the compiler, entered by a jump" },
	};
	struct ot_list l = { fn, 3, sk, 1, NULL, 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(ot_report_list(f, &l), 0);
	fclose(f);
	golden("list.txt", buf, len);
	free(buf);
}

/* -l of USDT probes: a function row, then the probes by file, a line per
 * site with its argument specs (tests/e2e/targets/usdt's and libstdc++'s
 * notes), semaphores with their address and file offset. */
static void test_list_usdt(void **state)
{
	static const struct ot_list_fn fn[] = {
		{ "/opt/app/bin/usdt", 11, "symtab", 0x10c0, 550, "main", NULL, NULL, 0 },
	};
	static const struct ot_list_site site[] = {
		{ 0x13e5, 0x13e5, "-4@$7" }, { 0x13f8, 0x13f8, "-4@$7" }, { 0x1412, 0x1412, "-4@$7" },
		{ 0x1486, 0x1486, "-4@$5 -4@%eax -4@-4(%rsp) -8@(%rdx,%rcx,8) -8@level(%rip) -1@%sil" },
		{ 0x42873b, 0x2873b, "" },
		{ 0xa90a1, 0xa90a1, "8@%rdi 8@%rsi" },
	};
	static const struct ot_list_probe pr[] = {
		{ "/opt/app/bin/usdt", "ot", "site", 0x40a2, 0x30a2, &site[0], 3 },
		{ "/opt/app/bin/usdt", "ot", "forms", 0x40a0, 0x30a0, &site[3], 1 },
		{ "/opt/app/bin/usdt", "ot", "none", 0, 0, &site[4], 1 },
		{ "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", "libstdcxx", "throw", 0, 0,
		  &site[5], 1 },
	};
	struct ot_list l = { fn, 1, NULL, 0, pr, 4 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(ot_report_list(f, &l), 0);
	fclose(f);
	golden("list-usdt.txt", buf, len);
	free(buf);
}

/* --backend inject: its header, a refused function, the programs the
 * process exec'd (one not traced), what disarming did. */
static void test_inject(void **state)
{
	static const struct ot_report_refused refused[] = {
		{ "inner", "a branch of the function lands inside the patched bytes" },
	};
	struct ot_inject_stats in = {
		.clock = "tsc", .regions = 2, .code_bytes = 8192, .private_bytes = 268894208,
		.shared_bytes = 1074794496, .unwinder = 1, .arm_pause_ns = 1350000,
		.noret = 0, .disarm_pause_ns = 910000,
		.returns_restored = 1, .execs = 2, .unrecorded_threads = 3,
		.unrecorded_handlers = 7, .resets = 5, .vfork_calls = 11, .children = 4,
		.exec_why = "inject needs glibc's threads and libc.so.6 is not mapped",
		.let_go = "at its LeakSanitizer leak check at exit, which cannot stop threads held with ptrace",
		.walker = "V8 (node)", .exits_functions = 2,
	};
	struct fixture x;
	char *buf = NULL;
	size_t len = 0;
	unsigned k;
	FILE *f;

	(void)state;
	clock_ns = 0;
	x.p = ot_pair_new(NFUNCS);
	ot_pair_set_exact(x.p);
	for (k = 0; k < 10; k++)
		tree(x.p, 100, k);
	fill(&x, NULL, NFUNCS);
	ot_check_add(&x.check, OT_STATUS_LOSSY, "1 of 3 functions were not armed: inject could not "
		     "patch them (arming.refused says why)");
	x.r.inject = &in;
	x.r.rings_in_process = 1;
	x.r.refused = refused;
	x.r.nrefused = 1;
	x.r.records.foreign = 40;
	x.r.records.foreign_lost = 12;	/* a forked child's ring overflowed */
	x.r.backend = "inject";
	x.r.objects = "trampolines";
	x.r.returns = x.fn[0].returns = x.fn[1].returns = x.fn[2].returns = "trampoline";
	x.r.uprobes = 0;
	x.r.events = 2;
	x.r.functions_armed = 2;
	x.r.arm_ns = 2100000;
	x.r.disarm_ns = 1200000;
	x.r.disarm_ipis = x.r.disarm_tlb = x.r.arm_ipis = 0;
	render(&x, "inject", 0);
	render(&x, "inject", 1);
	/* What disarming says when memory stays, and when the process is gone. */
	f = open_memstream(&buf, &len);
	in.left_bytes = 1343496192;
	in.left_why = "a thread was in a system call inside a trampoline";
	ot_report_text_disarm(f, &x.r);
	in.gone = 1;
	ot_report_text_disarm(f, &x.r);
	/* Nothing left here, a forked child still instrumented: not "nothing". */
	in.gone = 0;
	in.left_bytes = 0;
	in.children_kept = 1;
	snprintf(in.child_why, sizeof(in.child_why), "process 4343: the bytes at /bin/app+0x1139 "
		 "are neither its patch nor the file's");
	ot_report_text_disarm(f, &x.r);
	fclose(f);
	golden("inject-disarm.txt", buf, len);
	free(buf);
	/* The same in JSON: what was left, and why. */
	in.left_bytes = 1343496192;
	in.exec_why[0] = 0;
	render(&x, "inject-left", 1);
	done(&x);
}

/*
 * -f 'middle(arg2)%ret,inner(arg1:32)': a VALUE row per recorded value,
 * log2 bars with --hist, "arg"/"ret" objects in JSON; a read()-like return
 * (-1 and sizes up to 64 KiB), an argument spanning zero, one never seen.
 */
static void test_values(void **state)
{
	struct ot_values arg, ret, none, len;
	struct fixture x;
	unsigned k;

	(void)state;
	x.p = trees(20);
	fill(&x, NULL, NFUNCS);
	ot_values_init(&arg);
	ot_values_init(&ret);
	ot_values_init(&none);
	ot_values_init(&len);
	for (k = 0; k < 40; k++) {
		ot_values_add(&arg, (int64_t)k * 3 - 20);
		ot_values_add(&ret, k % 8 == 0 ? -1 : (int64_t)(1u << (k % 17)));
		ot_values_add(&len, 1000 + k % 7);
	}
	x.fn[MIDDLE].arg = &arg;
	x.fn[MIDDLE].arg_name = "arg2";
	/* A second value at the entry, by its DWARF name: its own row, in
	 * JSON's values between arg2 and ret (issue 22, item 6). */
	x.fn[MIDDLE].more[0] = &len;
	x.fn[MIDDLE].more_name[0] = "req->len";
	x.fn[MIDDLE].nmore = 1;
	x.fn[MIDDLE].ret = &ret;
	x.fn[MIDDLE].ret_name = "ret";
	x.fn[INNER].arg = &none;
	x.fn[INNER].arg_name = "arg1:32";
	x.r.draw_hist = 1;
	render(&x, "values", 0);
	render(&x, "values", 1);
	render_prom(&x, "values", 0);
	done(&x);
}

/*
 * USDT probes: inner is a counted point (OT_EV_POINT) hit 12 times with
 * its argument, middle one never hit; outer an ordinary function.  The
 * points are in the PROBE table and the VALUE table, in no table of
 * scopes; JSON says point and hits.
 */
static void test_points(void **state)
{
	struct ot_values arg;
	struct fixture x;
	unsigned k;

	(void)state;
	x.p = ot_pair_new(NFUNCS);
	clock_ns = 0;
	ot_values_init(&arg);
	ev(x.p, 100, OT_EV_ENTRY, OUTER, 0x8000, 100);
	for (k = 0; k < 12; k++) {
		struct ot_event e = { .time = clock_ns += 50, .tid = 100, .func = INNER,
				      .kind = OT_EV_POINT, .value = k % 4, .has_value = 1 };

		ot_pair_feed(x.p, &e);
		ot_values_add(&arg, (int64_t)(k % 4));
	}
	ev(x.p, 100, OT_EV_RETURN, OUTER, 0x8000, 100);
	fill(&x, NULL, NFUNCS);
	assert_int_equal(ot_pair_stats(x.p, INNER)->points, 12);
	assert_int_equal(ot_pair_stats(x.p, INNER)->scopes, 0);
	x.fn[MIDDLE].point = x.fn[INNER].point = 1;
	x.fn[MIDDLE].returns = x.fn[INNER].returns = NULL;	/* no returns: points */
	x.fn[MIDDLE].name = "usdt:app:idle";
	x.fn[INNER].name = "usdt:libapp.so:app:request";
	x.fn[INNER].arg = &arg;
	x.fn[INNER].arg_name = "arg2";
	render(&x, "points", 0);
	render(&x, "points", 1);
	render_prom(&x, "points", 0);
	done(&x);
}

/*
 * A pair of USDT probes keyed by a string: middle is the entry probe, a
 * counted point whose argument is read as a string (the STRING table,
 * JSON "strings"); inner a key's row (php:fib), recursive, nested in outer,
 * one of its scopes skipped by a return of an enclosing one (the SKIPPED
 * table, JSON "pair" and "skipped"); the strings line of the header.
 */
static void test_pairs_strings(void **state)
{
	static const struct ot_report_str strs[] = { { "fib", 7 }, { "<unreadable 0x7f00>", 1 } };
	static const struct ot_report_strings sr = { .any = 1, .probe = 5, .late = 2,
						     .unreadable = 1 };
	struct fixture x;
	unsigned k;

	(void)state;
	x.p = ot_pair_new(NFUNCS);
	clock_ns = 0;
	ev(x.p, 100, OT_EV_ENTRY, OUTER, 0x8000, 100);
	for (k = 0; k < 8; k++) {
		struct ot_event e = { .time = clock_ns += 50, .tid = 100, .func = k < 7 ? INNER : MIDDLE,
				      .kind = OT_EV_ENTRY, .flags = OT_EV_KEYED };

		ot_pair_feed(x.p, &e);
	}
	for (k = 0; k < 6; k++) {
		struct ot_event e = { .time = clock_ns += 70, .tid = 100, .func = INNER,
				      .kind = OT_EV_RETURN, .flags = OT_EV_KEYED };

		ot_pair_feed(x.p, &e);	/* the first skips middle's */
	}
	ev(x.p, 100, OT_EV_RETURN, OUTER, 0x8000, 100);
	fill(&x, NULL, NFUNCS);
	assert_int_equal(ot_pair_stats(x.p, INNER)->scopes, 6);
	assert_int_equal(ot_pair_stats(x.p, MIDDLE)->skipped, 1);
	x.fn[MIDDLE].name = "php:main";
	x.fn[MIDDLE].pair = x.fn[INNER].pair = "usdt:/usr/bin/php8.2:php:function__entry..function__return";
	x.fn[INNER].name = "php:fib";
	x.fn[OUTER].point = 1;
	x.fn[OUTER].returns = x.fn[MIDDLE].returns = x.fn[INNER].returns = NULL;
	x.fn[OUTER].name = "usdt:php:function__entry";
	x.fn[OUTER].strs = strs;
	x.fn[OUTER].nstrs = 2;
	x.fn[OUTER].strs_distinct = 3;
	x.fn[OUTER].strs_name = "arg1:str";
	x.r.strings = &sr;
	render(&x, "pairs", 0);
	render(&x, "pairs", 1);
	render_prom(&x, "pairs", 0);
	done(&x);
}

/* --follow: the header's followed line, per-process rows with parents. */
static void test_follow(void **state)
{
	static const struct ot_report_proc procs[] = {
		{ .pid = 4242, .ppid = 0, .comm = "make", .func = OUTER, .scopes = 10,
		  .total_ns = 120000, .max_ns = 14000 },
		{ .pid = 4250, .ppid = 4242, .comm = "cc1", .func = MIDDLE, .scopes = 20,
		  .total_ns = 100000, .max_ns = 6000 },
		{ .pid = 4251, .ppid = 4242, .comm = "cc1", .func = INNER, .scopes = 60,
		  .total_ns = 80000, .max_ns = 1600 },
	};
	static const struct ot_report_follow fol = { .processes = 5, .dropped = 1 };
	struct ot_event lost = { .kind = OT_EV_LOST, .lost = 3 };
	struct fixture x;

	(void)state;
	x.p = trees(10);
	lost.time = clock_ns += 10;
	ot_pair_feed(x.p, &lost);	/* a CPU's ring: whose records, nobody knows */
	fill(&x, NULL, NFUNCS);
	ot_check_add(&x.check, OT_STATUS_LOSSY, "1 process forked by followed ones was not "
		     "followed: the kernel's table of them was full");
	x.r.follow = &fol;
	x.r.procs = procs;
	x.r.nprocs = 3;
	render(&x, "follow", 0);
	render(&x, "follow", 1);
	render_prom(&x, "follow", 1);
	done(&x);
}

/*
 * -p PID,PID...: a service's master and two workers, a row each, the
 * title and JSON naming every pid; -a --cgroup: the directory in JSON.
 */
static void test_services(void **state)
{
	static const struct ot_report_proc procs[] = {
		{ .pid = 4242, .comm = "php-fpm8.2", .func = OUTER, .scopes = 10,
		  .total_ns = 120000, .max_ns = 14000 },
		{ .pid = 4243, .comm = "php-fpm8.2", .func = OUTER, .scopes = 20,
		  .total_ns = 100000, .max_ns = 6000 },
		{ .pid = 4244, .comm = "php-fpm8.2", .func = OUTER, .scopes = 10,
		  .total_ns = 80000, .max_ns = 16000 },
	};
	static const int pids[] = { 4242, 4243, 4244 };
	struct fixture x;

	(void)state;
	x.p = trees(10);
	fill(&x, NULL, NFUNCS);
	x.r.binary = "/usr/sbin/php-fpm8.2";
	x.r.pid = 4242;
	x.r.pids = pids;
	x.r.npids = 3;
	x.r.procs = procs;
	x.r.nprocs = 3;
	render(&x, "pids", 0);
	render(&x, "pids", 1);
	render_prom(&x, "pids", 0);
	x.r.pids = NULL;
	x.r.npids = 0;
	x.r.pid = 0;
	x.r.binary = "every process in cgroup /sys/fs/cgroup/system.slice/php8.2-fpm.service";
	x.r.cgroup = "/sys/fs/cgroup/system.slice/php8.2-fpm.service";
	render(&x, "cgroup", 1);
	done(&x);
}

/*
 * multi: the process exec'd from a thread other than its first three
 * times, held for two of them; the third ran unprobed (status says so).
 */
static void test_thread_execs(void **state)
{
	static const struct ot_report_thread_execs te = { .count = 3, .held = 2,
							  .unprobed_ns = 41500000 };
	struct fixture x;

	(void)state;
	x.p = trees(10);
	fill(&x, NULL, NFUNCS);
	ot_check_add(&x.check, OT_STATUS_LOSSY, "1 of 3 programs the process exec'd from a "
		     "thread other than its first ran unprobed for up to 41.5 ms before their "
		     "probes were armed again (--freeze holds a -p process there instead): their "
		     "calls meanwhile are not counted");
	x.r.thread_execs = &te;
	render(&x, "thread-execs", 0);
	render(&x, "thread-execs", 1);
	done(&x);
}

/*
 * A kernel without PERF_FORMAT_LOST (Linux < 6.0), a ring that filled:
 * nothing reported lost, and the report says the count may be short.
 */
static void test_lost_inexact(void **state)
{
	const struct ot_func_stats *st[NFUNCS];
	struct fixture x;
	size_t i;

	(void)state;
	x.p = trees(10);
	fill(&x, NULL, NFUNCS);
	ot_check_free(&x.check);
	for (i = 0; i < NFUNCS; i++)
		st[i] = ot_pair_stats(x.p, i);
	ot_check_run(&x.check, NFUNCS, NFUNCS, names, st, NULL, 0, 1, 0, 0, NULL);
	x.r.records.lost_inexact = 1;
	x.r.backend = "perf";
	x.r.objects = "perf events";
	render(&x, "lost-inexact", 0);
	render(&x, "lost-inexact", 1);
	done(&x);
}

static void test_interval(void **state)
{
	struct ot_hist h[NFUNCS];
	struct ot_report_interval iv = { .seq = 3, .start_ns = 2000000000, .end_ns = 3000000000,
					 .lost = 5, .nfuncs = NFUNCS, .names = names, .hist = h };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	(void)state;
	for (i = 0; i < NFUNCS; i++)
		ot_hist_init(&h[i]);
	for (i = 0; i < 100; i++) {
		ot_hist_add(&h[OUTER], 12000 + 17 * i);
		ot_hist_add(&h[MIDDLE], 5000 + 7 * i);
	}
	/* inner: no scope closed in this interval */
	f = open_memstream(&buf, &len);
	ot_report_interval_text(f, &iv);
	ot_report_interval_json(f, &iv);
	{
		static const char *const chain[] = { "outer", "middle \"q\"" };
		static const char *const chain2[] = { "outer", "middle" };
		const struct ot_report_slow sl = { .at_ns = 2500000000ull, .duration_ns = 3100000,
						   .tid = 4243, .path = "outer > middle \"q\"",
						   .chain = chain, .nchain = 2 };
		/* With its process's name and the call's values (issue 22, 6). */
		const struct ot_report_slow sv = { .at_ns = 2600000000ull, .duration_ns = 4100000,
						   .tid = 4243, .path = "outer > middle",
						   .chain = chain2, .nchain = 2,
						   .comm = "stress", .arg_name = "req->len",
						   .arg = -7, .ret_name = "ret", .ret = 42 };

		ot_report_slow_text(f, 4242, "middle", &sl);
		ot_report_slow_json(f, 4242, "middle", &sl);
		ot_report_slow_text(f, 4242, "middle", &sv);
		ot_report_slow_json(f, 4242, "middle", &sv);
		/* --wall-clock: the time of day (here in UTC). */
		{
			struct ot_report_slow sw = sv;

			setenv("TZ", "UTC", 1);
			tzset();
			sw.wall_ns = 1796182680830658510ull;
			ot_report_slow_text(f, 4242, "middle", &sw);
			ot_report_slow_json(f, 4242, "middle", &sw);
		}
	}
	fclose(f);
	golden("streams.txt", buf, len);
	free(buf);
}

/*
 * What the other cases never show: no pid, a target killed by a signal,
 * records out of order or without SP or id, an alias, a name past 40
 * columns, a function that closed no scope, a tree past its node limit,
 * execs all held, a function that tail-calls two others (their returns
 * probed: every call of them traps); and the same report as one JSON line.
 */
static void test_edges(void **state)
{
	static const char *const long_names[NFUNCS] = {
		"outer", "middle", "a_function_whose_name_is_longer_than_forty_columns",
	};
	static const struct ot_report_thread_execs te = { .count = 2, .held = 2 };
	static const char *const tails[] = { "_efree", "zend_mm_free_huge" };
	struct fixture x;
	char *buf = NULL;
	size_t len = 0;
	unsigned k;
	FILE *f;

	(void)state;
	clock_ns = 0;
	x.p = ot_pair_new(NFUNCS);
	for (k = 0; k < 5; k++) {
		ev(x.p, 100, OT_EV_ENTRY, OUTER, 0x7000, 1000);
		ev(x.p, 100, OT_EV_ENTRY, MIDDLE, 0x6f00, 300);
		ev(x.p, 100, OT_EV_RETURN, MIDDLE, 0x6f00, 1500 + 100 * k);
		ev(x.p, 100, OT_EV_RETURN, OUTER, 0x7000, 400);
	}
	fill(&x, NULL, NFUNCS);
	for (k = 0; k < NFUNCS; k++)
		x.fn[k].name = long_names[k];
	x.r.names = long_names;
	x.fn[OUTER].aliases = "outer_alias";
	x.fn[INNER].symbol = "_Z5innerv";
	x.fn[MIDDLE].returns = "insn";
	x.fn[MIDDLE].tail_funcs = tails;
	x.fn[MIDDLE].ntail_funcs = 2;
	x.r.pid = 0;
	x.r.target_status = 9;	/* a wait status: killed by SIGKILL */
	x.r.ended_by = "target exit";
	x.r.records.late = 2;
	x.r.records.no_sp = 1;
	x.r.records.unknown = 4;
	x.r.tree_dropped = 7;
	x.r.thread_execs = &te;
	render(&x, "edges", 0);
	render(&x, "edges", 1);
	f = open_memstream(&buf, &len);
	ot_report_json_line(f, &x.r);
	fclose(f);
	golden("edges.jsonl", buf, len);
	free(buf);
	done(&x);
}

/*
 * Names past the FUNCTION column (issue 34): a Go path and a C++
 * signature have their line to themselves and their figures go on under
 * the columns in every table (functions, check, durations, values,
 * longest, call tree), uncut; the short name's rows stay as they were.
 */
static void test_long_names(void **state)
{
	static const char *const lnames[NFUNCS] = {
		"github.com/prometheus/client_golang/prometheus/promhttp.InstrumentHandlerCounter.func1",
		"std::vector<std::vector<int, std::allocator<int> >, std::allocator<std::vector<int, "
		"std::allocator<int> > > >::push_back(std::vector<int, std::allocator<int> > const&)",
		"inner",
	};
	static const char *const chain[] = { lnames[OUTER], lnames[MIDDLE] };
	static const struct ot_report_slow slow[] = {
		{ .at_ns = 400000, .duration_ns = 2000, .tid = 100, .chain = chain, .nchain = 2,
		  .path = "github.com/prometheus/client_golang/prometheus/promhttp."
			  "InstrumentHandlerCounter.func1 > std::vector<std::vector<int, "
			  "std::allocator<int> >, std::allocator<std::vector<int, std::allocator<int> "
			  "> > >::push_back(std::vector<int, std::allocator<int> > const&)" },
	};
	struct ot_values arg;
	struct fixture x;
	unsigned k;

	(void)state;
	x.p = trees(2);
	fill(&x, "inner=12", NFUNCS);
	for (k = 0; k < NFUNCS; k++)
		x.fn[k].name = lnames[k];
	x.r.names = lnames;
	x.fn[MIDDLE].slowest = slow;
	x.fn[MIDDLE].nslowest = 1;
	ot_values_init(&arg);
	for (k = 0; k < 4; k++)
		ot_values_add(&arg, k);
	x.fn[MIDDLE].arg = &arg;
	x.fn[MIDDLE].arg_name = "arg2";
	render(&x, "long-names", 0);
	render(&x, "long-names", 1);
	done(&x);
}

/* A -p target that ended inside outer, with wait status st (-1: not
 * known, why) as from said it; the verdict judged on it; its metrics
 * golden (prom), or their line saying how it ended (line). */
static void ended(const char *name, int st, const char *from, const char *why, int prom,
		  const char *line)
{
	struct ot_prom_opts o = { .version = "0.1.0" };
	struct fixture x;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	clock_ns = 0;
	x.p = ot_pair_new(NFUNCS);
	tree(x.p, 100, 0);
	ev(x.p, 100, OT_EV_ENTRY, OUTER, 0x7000, 1000);
	fill(&x, NULL, NFUNCS);
	x.r.target_status = st;
	x.r.target_exit_from = from;
	x.r.target_exit_why = why;
	if (st >= 0)
		ot_check_target_end(&x.check, x.r.pid, st);
	render(&x, name, 0);
	render(&x, name, 1);
	if (prom)
		render_prom(&x, name, 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(ot_report_prom(f, &x.r, &o), 0);
	fclose(f);
	assert_non_null(strstr(buf, line));
	free(buf);
	done(&x);
}

/*
 * How a -p target ended: killed by SIGSEGV (its core dumped), as the
 * kernel's exit hook told, a crash that fails the capture; exit status 3,
 * from its pidfd, ok; and an end nobody could say.
 */
static void test_ended(void **state)
{
	(void)state;
	ended("crash", SIGSEGV | 0x80, "kernel", NULL, 1,
	      "\norbit_trace_target_exit{how=\"signal\",code=\"SIGSEGV\"} 1\n");
	ended("exit3", 3 << 8, "pidfd", NULL, 0, "\norbit_trace_target_exit{how=\"exit\",code=\"3\"} 1\n");
	ended("ended-unknown", -1, NULL, "reaped by its parent before orbit-trace could read it; "
	      "a pidfd keeps it from Linux 6.15", 0,
	      "\norbit_trace_target_exit{how=\"unknown\",code=\"\"} 1\n");
}

/* multi: one exec from another thread, not held: it ran before it was armed. */
static void test_thread_exec_unheld(void **state)
{
	static const struct ot_report_thread_execs te = { .count = 1, .held = 0,
							  .unprobed_ns = 2000000 };
	struct fixture x;

	(void)state;
	x.p = trees(3);
	fill(&x, NULL, NFUNCS);
	x.r.thread_execs = &te;
	render(&x, "thread-exec-unheld", 0);
	done(&x);
}

/* --restore: nothing found; found, with entries kept and memory left. */
/*
 * While the capture runs (no verdict yet: "running", no disarm time), a
 * name that needs escaping in a label, and --prom-pid's labels.
 */
static void test_prom_running(void **state)
{
	static const char *const odd[NFUNCS] = { "operator\"\" _x", "a\\b", "inner" };
	struct ot_prom_opts o = { .version = "0.1.0", .pid_label = 1, .comm = "app" };
	char *buf = NULL;
	size_t len = 0, i;
	struct fixture x;
	FILE *f;

	(void)state;
	x.p = trees(3);
	fill(&x, NULL, NFUNCS);
	for (i = 0; i < NFUNCS; i++)
		x.fn[i].name = odd[i];
	x.r.check = NULL;
	x.r.disarmed = 0;
	f = open_memstream(&buf, &len);
	assert_int_equal(ot_report_prom(f, &x.r, &o), 0);
	fclose(f);
	golden("running.prom", buf, len);
	free(buf);
	done(&x);
}

/* Prometheus' Accept header gets OpenMetrics; curl's and text's do not. */
static void test_prom_accept(void **state)
{
	(void)state;
	assert_true(ot_prom_wants_openmetrics("application/openmetrics-text;version=1.0.0,"
		"application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
		"q=0.5,*/*;q=0.1"));
	assert_true(ot_prom_wants_openmetrics("application/openmetrics-text; version=1.0.0"));
	assert_false(ot_prom_wants_openmetrics(NULL));
	assert_false(ot_prom_wants_openmetrics("*/*"));
	assert_false(ot_prom_wants_openmetrics("text/plain;version=0.0.4"));
	assert_false(ot_prom_wants_openmetrics("text/plain, application/openmetrics-text;q=0.5"));
	assert_false(ot_prom_wants_openmetrics("application/openmetrics-text;q=0"));
}

/* --listen's address: loopback unless a host is named. */
static void test_prom_listen_parse(void **state)
{
	char host[64], port[8];

	(void)state;
	assert_int_equal(ot_prom_http_parse("9435", host, sizeof(host), port, sizeof(port)), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_string_equal(port, "9435");
	assert_int_equal(ot_prom_http_parse(":0", host, sizeof(host), port, sizeof(port)), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(ot_prom_http_parse("0.0.0.0:80", host, sizeof(host), port, sizeof(port)), 0);
	assert_string_equal(host, "0.0.0.0");
	assert_int_equal(ot_prom_http_parse("[::1]:9435", host, sizeof(host), port, sizeof(port)), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(ot_prom_http_parse("localhost:1", host, sizeof(host), port, sizeof(port)), 0);
	assert_string_equal(host, "localhost");
	assert_int_equal(ot_prom_http_parse("::1:80", host, sizeof(host), port, sizeof(port)), -EINVAL);
	assert_int_equal(ot_prom_http_parse("[::1]", host, sizeof(host), port, sizeof(port)), -EINVAL);
	assert_int_equal(ot_prom_http_parse("h:", host, sizeof(host), port, sizeof(port)), -EINVAL);
	assert_int_equal(ot_prom_http_parse("h:65536", host, sizeof(host), port, sizeof(port)), -EINVAL);
	assert_int_equal(ot_prom_http_parse("h:-1", host, sizeof(host), port, sizeof(port)), -EINVAL);
}

static void test_restore(void **state)
{
	struct ot_report_restore none = { .pid = 77, .comm = "idle" };
	struct ot_report_restore some = {
		.pid = 4242, .comm = "app", .found = 1, .tracer = 4000, .patches = 3,
		.restored = 2, .kept = 1, .kept_why = "its bytes differ from the file's",
		.returns_restored = 1, .semaphores = 2, .semaphores_lowered = 1,
		.unmapped_bytes = 3145728, .left_bytes = 1048576,
		.left_why = "a thread was inside a trampoline",
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&buf, &len);
	ot_report_restore_text(f, &none);
	ot_report_restore_json(f, &none);
	ot_report_restore_text(f, &some);
	ot_report_restore_json(f, &some);
	some.kept = 0;
	some.kept_why = NULL;
	some.left_why = NULL;
	ot_report_restore_text(f, &some);
	ot_report_restore_json(f, &some);
	fclose(f);
	golden("restore.txt", buf, len);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_lossy),
		cmocka_unit_test(test_failed_expect_and_hist),
		cmocka_unit_test(test_compensate),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_list_usdt),
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_pairs_strings),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_inject),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_follow),
		cmocka_unit_test(test_thread_execs),
		cmocka_unit_test(test_lost_inexact),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_ended),
		cmocka_unit_test(test_thread_exec_unheld),
		cmocka_unit_test(test_restore),
		cmocka_unit_test(test_services),
		cmocka_unit_test(test_prom_running),
		cmocka_unit_test(test_prom_accept),
		cmocka_unit_test(test_prom_listen_parse),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
