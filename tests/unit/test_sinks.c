/*
 * The scope sinks fed by hand (and, for paths, by a real pairing):
 * --slowest keeps each function's N longest, longest first; --slower-than
 * prints a line as a slow scope closes, with its chain of callers; values
 * are read as -f asked (":32" the low half, signed); -a's rows per
 * process and function, named by the comm function or by --follow; -I's
 * intervals add up and start empty; the status line is drawn and erased
 * only when due; slow lines reach a pipe at ot_sinks_flush, not at exit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/symbols/select.h"
#include "lib/report/sinks.h"

enum { OUTER, INNER, NFUNCS };

static const char *names[NFUNCS] = { "outer", "inner" };

static int comm_calls;

static int fake_comm(void *ctx, uint32_t pid, char *buf, size_t len)
{
	(void)ctx;
	comm_calls++;
	if (pid == 13)
		return -1;	/* gone */
	snprintf(buf, len, "proc%u", pid);
	return 0;
}

struct fixture {
	struct ot_pair *pair;
	struct ot_sinks s;
	char *text;
	size_t len;
	FILE *out;
};

static void setup(struct fixture *f, const struct ot_sinks_opts *extra)
{
	struct ot_sinks_opts o = *extra;

	memset(f, 0, sizeof(*f));
	f->pair = ot_pair_new(NFUNCS);
	f->out = open_memstream(&f->text, &f->len);
	assert_non_null(f->out);
	o.nfuncs = NFUNCS;
	o.names = names;
	o.out = f->out;
	o.comm = fake_comm;
	ot_sinks_init(&f->s, &o, f->pair);
	ot_pair_on_scope(f->pair, ot_sinks_scope, &f->s);
}

static void teardown(struct fixture *f)
{
	ot_sinks_free(&f->s);
	ot_pair_free(f->pair);
	fclose(f->out);
	free(f->text);
}

static void scope(struct fixture *f, uint32_t pid, uint32_t func, uint64_t start, uint64_t dur)
{
	struct ot_scope sc = { .pid = pid, .tid = pid, .func = func, .start = start,
			       .end = start + dur };

	ot_sinks_scope(&f->s, &sc);
}

static void test_slowest_keeps_longest_first(void **state)
{
	struct ot_sinks_opts o = { .slowest = 3 };
	struct ot_report_func fn[NFUNCS];
	struct fixture f;
	uint64_t d[] = { 50, 10, 70, 30, 90, 20, 60 };
	size_t i;

	(void)state;
	setup(&f, &o);
	ot_sinks_start(&f.s, 1000, 0, NULL);
	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		scope(&f, 7, INNER, 1000 + 100 * i, d[i]);
	scope(&f, 7, OUTER, 500, 5);	/* before the clock started */
	memset(fn, 0, sizeof(fn));
	ot_sinks_report(&f.s, fn);
	assert_int_equal(fn[INNER].nslowest, 3);
	assert_int_equal(fn[INNER].slowest[0].duration_ns, 90);
	assert_int_equal(fn[INNER].slowest[1].duration_ns, 70);
	assert_int_equal(fn[INNER].slowest[2].duration_ns, 60);
	assert_int_equal(fn[INNER].slowest[0].at_ns, 400);
	assert_string_equal(fn[INNER].slowest[0].path, "inner");	/* no tree node */
	assert_int_equal(fn[OUTER].nslowest, 1);
	assert_int_equal(fn[OUTER].slowest[0].at_ns, 0);
	assert_null(fn[INNER].arg);
	fflush(f.out);
	assert_int_equal(f.len, 0);	/* nothing printed without --slower-than */
	teardown(&f);
}

static void feed(struct ot_pair *p, uint8_t kind, uint32_t func, uint64_t t, uint64_t sp)
{
	struct ot_event ev = { .time = t, .sp = sp, .tid = 5, .pid = 5, .func = func,
			       .kind = kind };

	ot_pair_feed(p, &ev);
}

/* A slow scope's line names its callers, from the pairing's call tree. */
static void test_slower_than_prints_path(void **state)
{
	struct ot_sinks_opts o = { .slower_than = 100, .slower_all = 1 };
	struct fixture f;

	(void)state;
	setup(&f, &o);
	ot_sinks_start(&f.s, 1000, 0, NULL);
	feed(f.pair, OT_EV_ENTRY, OUTER, 1000, 0x7000);
	feed(f.pair, OT_EV_ENTRY, INNER, 1010, 0x6f00);
	feed(f.pair, OT_EV_RETURN, INNER, 1050, 0x6f00);	/* 40 ns: quiet */
	feed(f.pair, OT_EV_ENTRY, INNER, 1100, 0x6f00);
	feed(f.pair, OT_EV_RETURN, INNER, 1300, 0x6f00);	/* 200 ns */
	feed(f.pair, OT_EV_RETURN, OUTER, 1400, 0x7000);	/* 400 ns */
	fflush(f.out);
	assert_non_null(strstr(f.text, "slow: inner at 100 ns, pid 5 (proc5) tid 5: 200 ns (outer > inner)\n"));
	assert_non_null(strstr(f.text, "slow: outer at 0 ns, pid 5 (proc5) tid 5: 400 ns (outer)\n"));
	assert_null(strstr(f.text, "40 ns"));
	teardown(&f);
}

/*
 * Without --slower-than-all, the outermost slow call only (issue 34): a
 * slow call nested in a slow one is not printed; one whose outermost
 * caller never closed is printed at the end.
 */
static void test_slower_than_outermost(void **state)
{
	struct ot_sinks_opts o = { .slower_than = 100 };
	struct fixture f;

	(void)state;
	setup(&f, &o);
	ot_sinks_start(&f.s, 1000, 0, NULL);
	feed(f.pair, OT_EV_ENTRY, OUTER, 1000, 0x7000);
	feed(f.pair, OT_EV_ENTRY, INNER, 1100, 0x6f00);
	feed(f.pair, OT_EV_RETURN, INNER, 1300, 0x6f00);	/* 200 ns, in outer */
	fflush(f.out);
	assert_int_equal(f.len, 0);				/* held */
	feed(f.pair, OT_EV_RETURN, OUTER, 1400, 0x7000);	/* 400 ns */
	feed(f.pair, OT_EV_ENTRY, OUTER, 2000, 0x7000);
	feed(f.pair, OT_EV_ENTRY, INNER, 2100, 0x6f00);
	feed(f.pair, OT_EV_RETURN, INNER, 2250, 0x6f00);	/* 150 ns: outer never closes */
	fflush(f.out);
	assert_string_equal(f.text, "slow: outer at 0 ns, pid 5 (proc5) tid 5: 400 ns (outer)\n");
	ot_sinks_slow_end(&f.s);
	fflush(f.out);
	assert_string_equal(f.text, "slow: outer at 0 ns, pid 5 (proc5) tid 5: 400 ns (outer)\n"
			    "slow: inner at 1.10 us, pid 5 (proc5) tid 5: 150 ns (outer > inner)\n");
	teardown(&f);
}

/* A slow line into a pipe (fully buffered, as stdout is there) is in the
 * pipe after ot_sinks_flush, and only a slow line makes it write. */
static void test_slow_lines_flushed(void **state)
{
	struct ot_sinks_opts o = { .slower_than = 100 };
	struct fixture f;
	char buf[256];
	ssize_t n;
	int fd[2];
	FILE *pipe_out;

	(void)state;
	assert_int_equal(pipe2(fd, O_NONBLOCK), 0);
	pipe_out = fdopen(fd[1], "w");
	assert_non_null(pipe_out);
	setvbuf(pipe_out, NULL, _IOFBF, 65536);
	setup(&f, &o);
	f.s.o.out = pipe_out;
	ot_sinks_start(&f.s, 1000, 0, NULL);
	scope(&f, 5, INNER, 1000, 40);		/* quiet */
	ot_sinks_flush(&f.s);
	assert_int_equal(read(fd[0], buf, sizeof(buf)), -1);
	scope(&f, 5, INNER, 2000, 400);
	assert_int_equal(read(fd[0], buf, sizeof(buf)), -1);	/* buffered */
	ot_sinks_flush(&f.s);
	n = read(fd[0], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = 0;
	assert_non_null(strstr(buf, "slow: inner at "));
	assert_non_null(strstr(buf, ", pid 5 (proc5) tid 5: 400 ns (inner)\n"));
	teardown(&f);
	fclose(pipe_out);
	close(fd[0]);
}

static void test_slower_than_json(void **state)
{
	struct ot_sinks_opts o = { .slower_than = 10, .json = 1 };
	struct fixture f;

	(void)state;
	setup(&f, &o);
	ot_sinks_start(&f.s, 0, 0, NULL);
	scope(&f, 9, OUTER, 20, 15);
	fflush(f.out);
	assert_string_equal(f.text, "{\"type\": \"slow\", \"version\": 2, \"name\": \"outer\", \"at_ns\": 20, "
			    "\"duration_ns\": 15, \"pid\": 9, \"tid\": 9, \"path\": [\"outer\"], "
			    "\"comm\": \"proc9\"}\n");
	teardown(&f);
}

/*
 * JSON's path is an array of names as the call tree's is (issue 34): a
 * C++ name holding " > " stays one element, where splitting the text's
 * "outer > inner" could not tell; the report's slowest[] keeps it too.
 */
static void test_slow_path_array(void **state)
{
	struct ot_sinks_opts o = { .slower_than = 100, .slower_all = 1, .slowest = 1, .json = 1 };
	struct ot_report_func fn[NFUNCS];
	struct fixture f;

	(void)state;
	names[INNER] = "f(std::vector<std::vector<int> > const&)";
	setup(&f, &o);
	ot_sinks_start(&f.s, 1000, 0, NULL);
	feed(f.pair, OT_EV_ENTRY, OUTER, 1000, 0x7000);
	feed(f.pair, OT_EV_ENTRY, INNER, 1100, 0x6f00);
	feed(f.pair, OT_EV_RETURN, INNER, 1300, 0x6f00);
	fflush(f.out);
	assert_non_null(strstr(f.text, "\"path\": [\"outer\", "
			       "\"f(std::vector<std::vector<int> > const&)\"]"));
	memset(fn, 0, sizeof(fn));
	ot_sinks_report(&f.s, fn);
	assert_int_equal(fn[INNER].nslowest, 1);
	assert_int_equal(fn[INNER].slowest[0].nchain, 2);
	assert_string_equal(fn[INNER].slowest[0].chain[0], "outer");
	assert_string_equal(fn[INNER].slowest[0].chain[1], names[INNER]);
	assert_string_equal(fn[INNER].slowest[0].path,
			    "outer > f(std::vector<std::vector<int> > const&)");
	feed(f.pair, OT_EV_RETURN, OUTER, 1400, 0x7000);
	fflush(f.out);
	assert_non_null(strstr(f.text, "\"path\": [\"outer\"]"));
	teardown(&f);
	names[INNER] = "inner";
}

static void test_values_as_asked(void **state)
{
	struct ot_sinks_opts o = { 0 };
	struct ot_report_func fn[NFUNCS];
	struct ot_scope sc = { .func = INNER, .has_arg = 1, .has_ret = 1,
			       .arg = 0xffffffffu, .ret = 0xffffffffu };
	struct fixture f;

	(void)state;
	setup(&f, &o);
	ot_sinks_values(&f.s, OUTER, 0, 0);
	ot_sinks_values(&f.s, INNER, 2 | OT_SEL_32, OT_SEL_RET);
	ot_sinks_scope(&f.s, &sc);
	sc.has_ret = 0;
	sc.arg = 5;
	ot_sinks_scope(&f.s, &sc);
	memset(fn, 0, sizeof(fn));
	ot_sinks_report(&f.s, fn);
	assert_null(fn[OUTER].arg);
	assert_null(fn[OUTER].ret);
	assert_string_equal(fn[INNER].arg_name, "arg2:32");
	assert_string_equal(fn[INNER].ret_name, "ret");
	assert_int_equal(fn[INNER].arg->count, 2);
	assert_int_equal(fn[INNER].arg->min, -1);	/* the low half, signed */
	assert_int_equal(fn[INNER].arg->max, 5);
	assert_int_equal(fn[INNER].ret->count, 1);
	assert_int_equal(fn[INNER].ret->min, 0xffffffffll);	/* all 64 bits */
	teardown(&f);
}

/* Values typed by DWARF (lib/probes/plan): a named argument, a short's
 * return; and a --slower-than line carrying them (issue 22, 5 and 6). */
static void test_values_typed(void **state)
{
	struct ot_sinks_opts o = { .slower_than = 10 };
	struct ot_report_func fn[NFUNCS];
	struct ot_scope sc = { .func = INNER, .pid = 7, .tid = 7, .start = 0, .end = 50,
			       .has_arg = 1, .has_ret = 1, .arg = (uint64_t)-3,
			       .ret = 0xfffff8d0u };	/* a short's -1840 in %eax */
	struct fixture f;

	(void)state;
	setup(&f, &o);
	ot_sinks_values(&f.s, INNER, 0, OT_SEL_RET);
	ot_sinks_values_typed(&f.s, INNER, "req->len", 2, 1);
	ot_sinks_start(&f.s, 0, 0, NULL);
	ot_sinks_scope(&f.s, &sc);
	fflush(f.out);
	assert_string_equal(f.text, "slow: inner at 0 ns, pid 7 (proc7) tid 7: 50 ns (inner) "
			    "req->len=-3 ret=-1840\n");
	memset(fn, 0, sizeof(fn));
	ot_sinks_report(&f.s, fn);
	assert_string_equal(fn[INNER].arg_name, "req->len");
	assert_int_equal(fn[INNER].arg->min, -3);
	assert_int_equal(fn[INNER].ret->min, -1840);
	teardown(&f);
}

/*
 * An entry's further values reach its call's --slower-than line: nested
 * calls of one function on one thread close in reverse order, each with
 * its own; another thread's and a call with none are apart.
 */
static void test_slow_more_values(void **state)
{
	struct ot_sinks_opts o = { .slower_than = 1 };
	struct ot_scope sc = { .func = INNER, .pid = 7, .tid = 7 };
	struct fixture f;

	(void)state;
	setup(&f, &o);
	ot_sinks_values_more(&f.s, INNER, 0, "n");
	ot_sinks_values_more(&f.s, INNER, 1, "arg3");
	ot_sinks_start(&f.s, 0, 0, NULL);
	ot_sinks_value(&f.s, 7, INNER, 0, 100, 1);	/* the outer call's */
	ot_sinks_value(&f.s, 7, INNER, 1, 101, 11);
	ot_sinks_value(&f.s, 8, INNER, 0, 150, 99);	/* another thread's */
	ot_sinks_value(&f.s, 7, INNER, 0, 5000000, 2);	/* the inner call's, 5 ms on */
	ot_sinks_value(&f.s, 7, INNER, 1, 5000001, 22);
	sc.start = 5000000;
	sc.end = 5000050;
	ot_sinks_scope(&f.s, &sc);
	sc.start = 100;
	sc.end = 6000000;
	ot_sinks_scope(&f.s, &sc);
	sc.start = 7000000;	/* a call whose values were never seen */
	sc.end = 7000050;
	ot_sinks_scope(&f.s, &sc);
	fflush(f.out);
	assert_string_equal(f.text,
			    "slow: inner at 5.00 ms, pid 7 (proc7) tid 7: 50 ns (inner) n=2 arg3=22\n"
			    "slow: inner at 100 ns, pid 7 (proc7) tid 7: 6.00 ms (inner) n=1 arg3=11\n"
			    "slow: inner at 7.00 ms, pid 7 (proc7) tid 7: 50 ns (inner)\n");
	assert_int_equal(f.s.npend, 1);	/* thread 8's, still open */
	teardown(&f);
}

static const char *fake_str(void *ctx, uint64_t id)
{
	(void)ctx;
	return id == 5 ? "a \"quoted\"\tpath\n" : NULL;
}

/*
 * A string value (the entry's first, :str): in no distribution, on the
 * --slower-than line first, quoted with C's escapes (JSON's in JSON); an
 * id the drain never gave is "?"; the others as ever.
 */
static void test_slow_string(void **state)
{
	struct ot_sinks_opts o = { .slower_than = 1, .str = fake_str };
	struct ot_scope sc = { .func = INNER, .pid = 7, .tid = 7, .start = 0, .end = 50,
			       .has_arg = 1, .arg = 5, .has_ret = 1, .ret = 3 };
	struct ot_report_func fn[NFUNCS];
	struct fixture f;

	(void)state;
	setup(&f, &o);
	ot_sinks_values_str(&f.s, INNER, "path:str");
	ot_sinks_values(&f.s, INNER, 0, OT_SEL_RET);
	ot_sinks_values_more(&f.s, INNER, 0, "flags");
	ot_sinks_start(&f.s, 0, 0, NULL);
	ot_sinks_value(&f.s, 7, INNER, 0, 0, 9);
	ot_sinks_scope(&f.s, &sc);
	sc.arg = 6;
	ot_sinks_scope(&f.s, &sc);
	fflush(f.out);
	assert_string_equal(f.text,
			    "slow: inner at 0 ns, pid 7 (proc7) tid 7: 50 ns (inner) "
			    "path:str=\"a \\\"quoted\\\"\\tpath\\n\" flags=9 ret=3\n"
			    "slow: inner at 0 ns, pid 7 (proc7) tid 7: 50 ns (inner) path:str=\"?\" ret=3\n");
	memset(fn, 0, sizeof(fn));
	ot_sinks_report(&f.s, fn);
	assert_null(fn[INNER].arg);
	assert_int_equal(fn[INNER].ret->count, 2);
	assert_int_equal(fn[INNER].more[0]->count, 1);
	teardown(&f);
	o.json = 1;
	setup(&f, &o);
	ot_sinks_values_str(&f.s, INNER, "path:str");
	ot_sinks_start(&f.s, 0, 0, NULL);
	sc.arg = 5;
	ot_sinks_scope(&f.s, &sc);
	fflush(f.out);
	assert_non_null(strstr(f.text, ", \"values\": {\"path:str\": "
			       "\"a \\\"quoted\\\"\\u0009path\\u000a\"}}\n"));
	teardown(&f);
}

static void test_rows_per_process(void **state)
{
	struct ot_sinks_opts o = { .per_process = 1 };
	struct ot_follow_proc fol[] = { { .pid = 12, .ppid = 11, .comm = "exec'd" } };
	struct ot_report_proc *r;
	struct fixture f;
	size_t n, i;

	(void)state;
	comm_calls = 0;
	setup(&f, &o);
	/* Enough processes to grow the table past its first 64 slots. */
	for (i = 0; i < 40; i++)
		scope(&f, 100 + (uint32_t)i, OUTER, 0, 1);
	scope(&f, 12, INNER, 0, 30);
	scope(&f, 12, INNER, 0, 10);
	scope(&f, 12, OUTER, 0, 5);
	scope(&f, 13, OUTER, 0, 5);
	assert_int_equal(comm_calls, 43);	/* once a row */
	r = ot_sinks_procs(&f.s, fol, 1, &n);
	assert_int_equal(n, 43);
	assert_int_equal(r[0].pid, 12);
	assert_int_equal(r[0].func, OUTER);
	assert_int_equal(r[1].pid, 12);
	assert_int_equal(r[1].func, INNER);
	assert_int_equal(r[1].scopes, 2);
	assert_int_equal(r[1].total_ns, 40);
	assert_int_equal(r[1].max_ns, 30);
	assert_string_equal(r[1].comm, "exec'd");	/* --follow's name wins */
	assert_int_equal(r[1].ppid, 11);
	assert_string_equal(r[2].comm, "?");
	assert_string_equal(r[3].comm, "proc100");
	for (i = 1; i < n; i++)
		assert_true(r[i - 1].pid < r[i].pid || r[i - 1].func < r[i].func);
	teardown(&f);
}

static void test_no_rows(void **state)
{
	struct ot_sinks_opts o = { 0 };
	struct fixture f;
	size_t n = 9;

	(void)state;
	setup(&f, &o);
	scope(&f, 12, INNER, 0, 30);
	assert_null(ot_sinks_procs(&f.s, NULL, 0, &n));
	assert_int_equal(n, 0);
	teardown(&f);
}

static void test_intervals(void **state)
{
	struct ot_sinks_opts o = { 0 };
	struct fixture f;

	(void)state;
	setup(&f, &o);
	scope(&f, 1, INNER, 10, 10);	/* before the start: in no interval */
	assert_true(ot_sinks_interval_due(&f.s) == UINT64_MAX);
	ot_sinks_start(&f.s, 1000000000ull, 1000000000ull, NULL);
	assert_true(ot_sinks_interval_due(&f.s) == 2000000000ull);
	scope(&f, 1, INNER, 1000000000ull, 2000);
	scope(&f, 1, INNER, 1000000000ull, 4000);
	ot_sinks_interval(&f.s, 2000000000ull, 3);
	assert_true(ot_sinks_interval_due(&f.s) == 3000000000ull);
	ot_sinks_interval(&f.s, 2500000000ull, 3);
	fflush(f.out);
	assert_non_null(strstr(f.text, "interval 1: 0 ns to 1.00 s, 3 records lost by the kernel\n"));
	assert_non_null(strstr(f.text, "inner             2"));
	/* The second starts empty and lost nothing more. */
	assert_non_null(strstr(f.text, "interval 2: 1.00 s to 1.50 s\n"));
	assert_non_null(strstr(strstr(f.text, "interval 2"), "inner             0"));
	teardown(&f);
}

/* -I's windows are fixed on the clock, each scope in the window where it
 * closed: a scope past a window's end prints it (and any empty ones
 * between); a horizon past an end prints it; none goes past the capture's
 * end, and the last, shorter one ends there. */
static void test_intervals_by_close(void **state)
{
	static const char *const want[] = {
		"interval 1: 0 ns to 1.00 s\n", "interval 2: 1.00 s to 2.00 s\n",
		"interval 3: 2.00 s to 3.00 s\n", "interval 4: 3.00 s to 3.50 s\n",
	};
	static const int scopes[] = { 1, 1, 0, 2 };
	const uint64_t s1 = 1000000000ull;
	struct ot_sinks_opts o = { 0 };
	struct fixture f;
	char row[64];
	size_t k;

	(void)state;
	setup(&f, &o);
	ot_sinks_start(&f.s, s1, s1, NULL);
	scope(&f, 1, INNER, s1, s1 / 2);		/* closes at 1.5 s: window 1 */
	scope(&f, 1, INNER, 2 * s1, s1 / 5);		/* 2.2 s: window 2; prints 1 */
	fflush(f.out);
	assert_non_null(strstr(f.text, want[0]));
	assert_null(strstr(f.text, "interval 2"));
	ot_sinks_intervals_upto(&f.s, 3 * s1);		/* the horizon: 2 whole */
	fflush(f.out);
	assert_non_null(strstr(f.text, want[1]));
	scope(&f, 1, INNER, 4 * s1, s1 / 10);		/* 4.1 s: window 4; prints 3, empty */
	ot_sinks_end(&f.s, 4 * s1 + s1 / 2);
	scope(&f, 1, INNER, 4 * s1, s1);		/* 5 s, after the end: the last's */
	ot_sinks_interval(&f.s, 4 * s1 + s1 / 2, 0);
	fflush(f.out);
	for (k = 0; k < 4; k++) {
		char *at = strstr(f.text, want[k]), *next;

		assert_non_null(at);
		next = strstr(at + 1, "interval ");
		if (next)
			*next = 0;	/* this window's block alone */
		snprintf(row, sizeof(row), "\ninner %13d ", scopes[k]);
		if (!strstr(at, row))
			fprintf(stderr, "window %zu:\n%s", k + 1, at);
		assert_non_null(strstr(at, row));
		if (next)
			*next = 'i';
	}
	assert_null(strstr(f.text, "interval 5"));
	teardown(&f);
}

/*
 * -d: the end known from the start and on a window's boundary.  A scope
 * that closes at or after it (drained before the capture saw its
 * deadline, or until the probes are disabled) is the last window's, and
 * opens no other: the windows' scopes add up to every scope.
 */
static void test_intervals_end_on_boundary(void **state)
{
	const uint64_t s1 = 1000000000ull;
	struct ot_sinks_opts o = { 0 };
	struct fixture f;

	(void)state;
	setup(&f, &o);
	ot_sinks_start(&f.s, s1, s1 / 4, NULL);
	ot_sinks_end(&f.s, 2 * s1);			/* -d 1 */
	scope(&f, 1, INNER, s1, s1 / 10);		/* window 1 */
	scope(&f, 1, INNER, s1 + s1 / 2, s1 / 2);	/* closes at the end itself */
	scope(&f, 1, INNER, 2 * s1, 1000);		/* closes after it */
	ot_sinks_intervals_upto(&f.s, 3 * s1);		/* a horizon past the end */
	ot_sinks_end(&f.s, 2 * s1);
	ot_sinks_interval(&f.s, 2 * s1, 0);
	fflush(f.out);
	assert_non_null(strstr(f.text, "interval 4: 750 ms to 1.00 s\n"));
	assert_non_null(strstr(strstr(f.text, "interval 4"), "\ninner             2 "));
	assert_null(strstr(f.text, "interval 5"));
	teardown(&f);
}

static void test_live_line(void **state)
{
	struct ot_sinks_opts o = { .slower_than = 1 };
	struct fixture f;
	char *err = NULL;
	size_t len = 0;
	FILE *live = open_memstream(&err, &len);

	(void)state;
	setup(&f, &o);
	assert_false(ot_sinks_live_due(&f.s, UINT64_MAX));	/* not started */
	ot_sinks_start(&f.s, 1000000000ull, 0, live);
	scope(&f, 1, INNER, 1000000000ull, 5);	/* no line drawn yet: none erased */
	fflush(live);
	assert_int_equal(len, 0);
	assert_false(ot_sinks_live_due(&f.s, 1999999999ull));
	assert_true(ot_sinks_live_due(&f.s, 2000000000ull));
	ot_sinks_live(&f.s, 2000000000ull, 1000, 7, 25, 100);
	fflush(live);
	assert_string_equal(err, "\r\033[Korbit-trace: 1.0 s, 1000 scopes/s, 7 records lost, "
			    "ring peak 25.0%");
	assert_false(ot_sinks_live_due(&f.s, 2499999999ull));
	assert_true(ot_sinks_live_due(&f.s, 2500000000ull));
	ot_sinks_live_clear(&f.s);
	fflush(live);
	assert_string_equal(err + len - 4, "\r\033[K");
	teardown(&f);
	fclose(live);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slowest_keeps_longest_first),
		cmocka_unit_test(test_slower_than_prints_path),
		cmocka_unit_test(test_slower_than_outermost),
		cmocka_unit_test(test_slower_than_json),
		cmocka_unit_test(test_slow_path_array),
		cmocka_unit_test(test_slow_string),
		cmocka_unit_test(test_slow_lines_flushed),
		cmocka_unit_test(test_values_as_asked),
		cmocka_unit_test(test_values_typed),
		cmocka_unit_test(test_slow_more_values),
		cmocka_unit_test(test_rows_per_process),
		cmocka_unit_test(test_no_rows),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_intervals_by_close),
		cmocka_unit_test(test_intervals_end_on_boundary),
		cmocka_unit_test(test_live_line),
	};

	return cmocka_run_group_tests_name("sinks", tests, NULL, NULL);
}
