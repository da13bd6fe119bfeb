/*
 * The command line: every option's bad values with the exact message
 * main prints (after "orbit-trace: ", before the --help hint, exit 2),
 * the defaults, the environment, and what a good line fills in.  Without
 * root: nothing here opens a probe or a process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/options.h"

#define MAXARGS 32

/* Parse the NULL-terminated words after "orbit-trace". */
static enum ot_options_result parse(struct ot_options *o, char **msg, ...)
{
	static char *argv[MAXARGS + 1];
	enum ot_options_result r;
	va_list ap;
	int argc = 0;

	argv[argc++] = (char *)"orbit-trace";
	va_start(ap, msg);
	while (argc < MAXARGS && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	r = ot_options_parse(o, argc, argv, msg);
	return r;
}

/* The words must be refused with exactly want. */
#define BAD(want, ...) do { \
		struct ot_options o_; \
		char *m_; \
		assert_int_equal(parse(&o_, &m_, __VA_ARGS__, (char *)NULL), OT_OPTIONS_BAD); \
		assert_non_null(m_); \
		assert_string_equal(m_, want); \
		free(m_); \
		ot_options_free(&o_); \
	} while (0)

static void test_bad_values(void **state)
{
	(void)state;
	unsetenv("ORBIT_UPROBE_RING_KB");
	unsetenv("ORBIT_DRAIN_MS");
	BAD("--pid 'abc' is invalid: expected an integer in 1..4194304", "-p", "abc", "-f", "x");
	BAD("--pid '0' is invalid: expected an integer in 1..4194304", "--pid", "0", "-f", "x");
	BAD("--pid '-5' is invalid: expected an integer in 1..4194304", "--pid=-5", "-f", "x");
	BAD("--pid '4194305' is invalid: expected an integer in 1..4194304", "-p", "4194305", "-f", "x");
	BAD("--pid '1,,2' is invalid: expected process ids in 1..4194304, comma-separated", "-p", "1,,2", "-f", "x");
	BAD("--pid '1,x' is invalid: expected process ids in 1..4194304, comma-separated", "-p", "1,x", "-f", "x");
	BAD("--pid ',1' is invalid: expected process ids in 1..4194304, comma-separated", "-p", ",1", "-f", "x");
	BAD("--pid '1,' is invalid: expected process ids in 1..4194304, comma-separated", "-p", "1,", "-f", "x");
	BAD("--pid '2,0' is invalid: expected process ids in 1..4194304, comma-separated", "-p", "1", "-p", "2,0", "-f", "x");
	BAD("--cgroup '' is invalid: expected a cgroup v2 directory", "-a", "--cgroup", "", "-f", "x:y");
	BAD("--duration 'soon' is invalid: expected a number of seconds > 0", "-d", "soon", "-f", "x", "--", "t");
	BAD("--duration '0' is invalid: expected a number of seconds > 0", "-d", "0", "-f", "x", "--", "t");
	BAD("--duration '-1' is invalid: expected a number of seconds > 0", "-d", "-1", "-f", "x", "--", "t");
	BAD("--duration 'inf' is invalid: expected a number of seconds > 0", "-d", "inf", "-f", "x", "--", "t");
	BAD("--ring-kb '3000' is invalid: expected a power of two in 4..1048576", "--ring-kb", "3000", "-f", "x", "--", "t");
	BAD("--ring-kb '2' is invalid: expected a power of two in 4..1048576", "--ring-kb", "2", "-f", "x", "--", "t");
	BAD("--ring-kb '2097152' is invalid: expected a power of two in 4..1048576", "--ring-kb", "2097152", "-f", "x", "--", "t");
	BAD("--drain-ms '0' is invalid: expected an integer in 1..100", "--drain-ms", "0", "-f", "x", "--", "t");
	BAD("--drain-ms '101' is invalid: expected an integer in 1..100", "--drain-ms", "101", "-f", "x", "--", "t");
	BAD("--drain-ms '5ms' is invalid: expected an integer in 1..100", "--drain-ms", "5ms", "-f", "x", "--", "t");
	BAD("--expect 'outer=lots' is invalid: expected NAME=COUNT[@DEPTH][,NAME=COUNT...]", "--expect", "outer=lots", "-f", "x", "--", "t");
	BAD("--expect 'outer=1@x' is invalid: expected NAME=COUNT[@DEPTH][,NAME=COUNT...]", "--expect", "outer=1@x", "-f", "x", "--", "t");
	BAD("--expect '=3' is invalid: expected NAME=COUNT[@DEPTH][,NAME=COUNT...]", "--expect", "=3", "-f", "x", "--", "t");
	BAD("--max-loss '101' is invalid: expected a percentage 0..100", "--expect", "x=1", "--max-loss", "101", "-f", "x", "--", "t");
	BAD("--max-loss '-1' is invalid: expected a percentage 0..100", "--expect", "x=1", "--max-loss", "-1", "-f", "x", "--", "t");
	BAD("--max-loss 'lots' is invalid: expected a percentage 0..100", "--expect", "x=1", "--max-loss", "lots", "-f", "x", "--", "t");
	BAD("--interval '0' is invalid: expected a number of seconds 0.01..86400", "-I", "0", "-f", "x", "--", "t");
	BAD("--interval 'often' is invalid: expected a number of seconds 0.01..86400", "--interval", "often", "-f", "x", "--", "t");
	BAD("--slower-than '5' is invalid: expected a duration with its unit, e.g. 500us, 2ms, 1s", "--slower-than", "5", "-f", "x", "--", "t");
	BAD("--slower-than '-2ms' is invalid: expected a duration with its unit, e.g. 500us, 2ms, 1s", "--slower-than", "-2ms", "-f", "x", "--", "t");
	BAD("--slower-than '2 ms' is invalid: expected a duration with its unit, e.g. 500us, 2ms, 1s", "--slower-than", "2 ms", "-f", "x", "--", "t");
	BAD("--slowest '1001' is invalid: expected an integer in 0..1000", "--slowest", "1001", "-f", "x", "--", "t");
	BAD("--backend 'bpf' is invalid: expected 'auto', 'multi', 'perf' or 'inject'", "--backend", "bpf", "-f", "x", "--", "t");
	BAD("--returns 'ret' is invalid: expected 'uretprobe' or 'insn'", "--returns", "ret", "-f", "x", "--", "t");
	BAD("--listen 'foo' is invalid: expected [HOST:]PORT (e.g. 127.0.0.1:9435, [::1]:9435 or "
	    "9435)", "--listen", "foo", "-f", "x", "--", "t");
	BAD("--listen '127.0.0.1:65536' is invalid: expected [HOST:]PORT (e.g. 127.0.0.1:9435, "
	    "[::1]:9435 or 9435)", "--listen", "127.0.0.1:65536", "-f", "x", "--", "t");
	BAD("--listen '::1:9435' is invalid: expected [HOST:]PORT (e.g. 127.0.0.1:9435, "
	    "[::1]:9435 or 9435)", "--listen", "::1:9435", "-f", "x", "--", "t");
	BAD("--prom-textfile 'm.txt' is invalid: expected a file name ending in .prom "
	    "(node_exporter's textfile collector reads no other)", "--prom-textfile", "m.txt",
	    "-f", "x", "--", "t");
	BAD("--prom-textfile 'dir/.prom' is invalid: expected a file name ending in .prom "
	    "(node_exporter's textfile collector reads no other)", "--prom-textfile", "dir/.prom",
	    "-f", "x", "--", "t");
	BAD("option '-f' needs an argument", "-p", "1", "-f");
	BAD("option '--output' needs an argument", "-p", "1", "-f", "x", "--output");
	BAD("unknown option '--bogus'", "--bogus", "-f", "x", "-p", "1");
	BAD("unknown option '-Z'", "-Z", "-f", "x", "-p", "1");
}

static void test_bad_combinations(void **state)
{
	(void)state;
	BAD("no functions to trace: give -f FUNCTIONS", "-p", "1");
	/* A list that could arm nothing is refused before anything is read. */
	BAD("-f '' selects nothing: it has no name, glob or usdt: term, only exclusions "
	    "('!GLOB') or empty terms", "-p", "1", "-f", "");
	BAD("-f ',,,' selects nothing: it has no name, glob or usdt: term, only exclusions "
	    "('!GLOB') or empty terms", "-p", "1", "-f", ",,,");
	BAD("-f '!' selects nothing: it has no name, glob or usdt: term, only exclusions "
	    "('!GLOB') or empty terms", "-p", "1", "-f", "!");
	BAD("-f '!*' selects nothing: it has no name, glob or usdt: term, only exclusions "
	    "('!GLOB') or empty terms", "-p", "1", "-f", "!*");
	BAD("-f '!outer' selects nothing: it has no name, glob or usdt: term, only exclusions "
	    "('!GLOB') or empty terms", "-p", "1", "-f", "!outer");
	BAD("-f 'libc.so.6:,(arg1)' selects nothing: it has no name, glob or usdt: term, only "
	    "exclusions ('!GLOB') or empty terms", "-p", "1", "-f", "libc.so.6:,(arg1)");
	BAD("-f '!outer' selects nothing: it has no name, glob or usdt: term, only exclusions "
	    "('!GLOB') or empty terms", "-l", "-f", "!outer", "--", "t");
	BAD("-p PID and a command are mutually exclusive", "-p", "1", "-f", "x", "--", "t");
	BAD("nothing to trace: give -p PID, -a or -- CMD", "-f", "x");
	BAD("-a traces every process: not with -p PID or a command", "-a", "-p", "1", "-f", "x");
	BAD("-a traces every process: not with -p PID or a command", "-a", "-f", "x", "--", "t");
	BAD("-a does not go with --freeze", "-a", "--freeze", "-f", "x");
	BAD("--user applies to a command started with --, not to -p", "--user", "nobody", "-p", "1", "-f", "x");
	BAD("--freeze applies to -p: a command started with -- is armed before it runs", "--freeze", "-f", "x", "--", "t");
	BAD("--max-loss needs --expect", "--max-loss", "2", "-f", "x", "--", "t");
	BAD("--prom-pid labels the metrics of --prom-textfile or --listen: give one of them",
	    "--prom-pid", "-f", "x", "--", "t");
	BAD("--listen applies to a capture, not to -l", "-l", "--listen", "9435", "--", "t");
	BAD("--prom-textfile applies to a capture, not to -l", "-l", "--prom-textfile", "m.prom",
	    "--", "t");
	BAD("--wall-clock needs --slower-than", "--wall-clock", "-f", "x", "--", "t");
	BAD("--interval applies to a capture, not to -l", "-l", "-I", "1", "--", "t");
	BAD("--backend inject patches one process: not with -a", "--backend", "inject", "-a", "-f", "x");
	BAD("--freeze is for the uprobe backends: inject stops the process with ptrace while it patches it",
	    "--backend", "inject", "--freeze", "-p", "1", "-f", "x");
	BAD("--compensate takes the uprobes' cost out: inject's is tens of ns (OVERHEAD in orbit-trace(1))",
	    "--compensate", "--backend", "inject", "-f", "x", "--", "t");
	BAD("--returns is for the uprobe backends: inject sees every return at its trampoline",
	    "--backend", "inject", "--returns", "insn", "-f", "x", "--", "t");
	BAD("--follow follows -p PID or a command: -a traces every process already",
	    "--follow", "-a", "-f", "x:y");
	BAD("--follow needs the multi backend (its BPF program follows forks in the kernel): "
	    "not with --backend inject", "--follow", "--backend", "inject", "-f", "x", "--", "t");
	BAD("--compensate does not go with --follow", "--follow", "--compensate", "-f", "x", "--", "t");
	BAD("--restore needs -p PID: the process a killed orbit-trace left instrumented",
	    "--restore");
	BAD("--restore takes back what was left in one process: give one -p PID",
	    "--restore", "-p", "1,2");
	BAD("--cgroup keeps -a to the processes of a cgroup: give -a", "--cgroup", "x", "-p", "1",
	    "-f", "x");
	BAD("--follow does not go with several -p processes", "--follow", "-p", "1,2", "-f", "x");
	BAD("--freeze does not go with several -p processes", "--freeze", "-p", "1", "-p", "2", "-f", "x");
	BAD("--compensate does not go with several -p processes", "--compensate", "-p", "1,2", "-f", "x");
	BAD("-p PID,PID... needs the multi backend (its BPF program keeps to those processes in the "
	    "kernel): not with --backend perf", "--backend", "perf", "-p", "1,2", "-f", "x");
	BAD("--backend inject patches one process: not several -p processes", "--backend", "inject",
	    "-p", "1,2", "-f", "x");
	BAD("--cgroup needs the multi backend (its BPF program keeps to the cgroup's processes in "
	    "the kernel): not with --backend perf", "--backend", "perf", "-a", "--cgroup", "x",
	    "-f", "x:y");
	BAD("--restore only takes back what a killed orbit-trace left: with -p PID (and -o, "
	    "--json), nothing else", "--restore", "-p", "1", "-f", "x");
	BAD("--restore only takes back what a killed orbit-trace left: with -p PID (and -o, "
	    "--json), nothing else", "--restore", "--", "t");
}

static void test_environment(void **state)
{
	struct ot_options o;
	char *msg;

	(void)state;
	setenv("ORBIT_UPROBE_RING_KB", "2", 1);
	BAD("ORBIT_UPROBE_RING_KB '2' is invalid: expected a power of two in 4..1048576", "-f", "x", "--", "t");
	setenv("ORBIT_UPROBE_RING_KB", "64", 1);
	setenv("ORBIT_DRAIN_MS", "5ms", 1);
	BAD("ORBIT_DRAIN_MS '5ms' is invalid: expected an integer in 1..100", "-f", "x", "--", "t");
	setenv("ORBIT_DRAIN_MS", "101", 1);
	BAD("ORBIT_DRAIN_MS '101' is invalid: expected an integer in 1..100", "-f", "x", "--", "t");
	setenv("ORBIT_DRAIN_MS", "7", 1);
	assert_int_equal(parse(&o, &msg, "-f", "x", "--", "t", (char *)NULL), OT_OPTIONS_RUN);
	assert_int_equal(o.ring_kb, 64);
	assert_true(o.ring_kb_set);	/* the backend's own default is not used */
	assert_int_equal(o.drain_ms, 7);
	ot_options_free(&o);
	/* An option beats the environment. */
	assert_int_equal(parse(&o, &msg, "--ring-kb", "128", "-f", "x", "--", "t", (char *)NULL),
			 OT_OPTIONS_RUN);
	assert_int_equal(o.ring_kb, 128);
	ot_options_free(&o);
	unsetenv("ORBIT_UPROBE_RING_KB");
	unsetenv("ORBIT_DRAIN_MS");
	/* inject's clock: its own choice unless forced; its rings' size too. */
	assert_int_equal(parse(&o, &msg, "--backend", "inject", "-f", "x", "--", "t", (char *)NULL),
			 OT_OPTIONS_RUN);
	assert_string_equal(o.backend->name, "inject");
	assert_false(o.ring_kb_set);
	assert_int_equal(o.inject_clock, -1);
	ot_options_free(&o);
	setenv("ORBIT_INJECT_CLOCK", "vdso", 1);
	assert_int_equal(parse(&o, &msg, "--backend", "inject", "-f", "x", "--", "t", (char *)NULL),
			 OT_OPTIONS_RUN);
	assert_int_equal(o.inject_clock, 1);
	ot_options_free(&o);
	setenv("ORBIT_INJECT_CLOCK", "hpet", 1);
	BAD("ORBIT_INJECT_CLOCK 'hpet' is invalid: expected 'tsc' or 'vdso'", "-f", "x", "--", "t");
	unsetenv("ORBIT_INJECT_CLOCK");
}

/* Every backend says, in its own words, why it refuses each option it
 * cannot serve: options prints that line (a NULL would print nothing). */
static void test_backends_say_why(void **state)
{
	const struct ot_backend_info *b;
	unsigned can;
	size_t i;

	(void)state;
	for (i = 0; (b = ot_backend_at(i)); i++)
		for (can = 1; can <= OT_CAN_OPTIONS; can <<= 1)
			if ((can & OT_CAN_OPTIONS) && !(b->can & can))
				assert_non_null(ot_backend_why_not(b, can));
	assert_null(ot_backend_why_not(ot_backend_find("multi"), OT_CAN_FOLLOW));
	/* A Go program is refused in the backend's words too. */
	for (i = 0; (b = ot_backend_at(i)); i++)
		if (!(b->can & OT_CAN_GO))
			assert_non_null(ot_backend_why_not(b, OT_CAN_GO));
}

/* -p as perf takes it: lists, repeated, each process once, in order. */
static void test_pids(void **state)
{
	struct ot_options o;
	char *msg;

	(void)state;
	assert_int_equal(parse(&o, &msg, "-p", "7,3", "-f", "x", "--pid", "3,9", "-p", "11",
			       (char *)NULL), OT_OPTIONS_RUN);
	assert_int_equal(o.npids, 4);
	assert_true(o.pids[0] == 7 && o.pids[1] == 3 && o.pids[2] == 9 && o.pids[3] == 11);
	assert_int_equal(o.pid, 7);
	ot_options_free(&o);
	assert_int_equal(parse(&o, &msg, "-p", "5", "-f", "x", (char *)NULL), OT_OPTIONS_RUN);
	assert_true(o.npids == 1 && o.pid == 5);
	ot_options_free(&o);
	assert_int_equal(parse(&o, &msg, "-a", "--cgroup", "system.slice/x.service", "-f", "x:y",
			       (char *)NULL), OT_OPTIONS_RUN);
	assert_string_equal(o.cgroup, "system.slice/x.service");
	ot_options_free(&o);
}

/*
 * Issue 34: an option after a command given without "--" is refused
 * with where it goes; repeated -f and --expect add up; --json never
 * shares a command's stdout; an ambiguous long option says so.
 */
static void test_where_options_go(void **state)
{
	struct ot_options o;
	char *msg;

	(void)state;
	BAD("'-f' comes after the command './game': orbit-trace's options go before the "
	    "command; if it is the command's own, put -- before the command (orbit-trace "
	    "[options] -- ./game ...)", "./game", "--level", "3", "-f", "b3Step");
	BAD("'--json' comes after the command './game': orbit-trace's options go before the "
	    "command; if it is the command's own, put -- before the command (orbit-trace "
	    "[options] -- ./game ...)", "-f", "x", "./game", "--json");
	BAD("'--expect=a=1' comes after the command 'p': orbit-trace's options go before the "
	    "command; if it is the command's own, put -- before the command (orbit-trace "
	    "[options] -- p ...)", "-f", "x", "p", "--expect=a=1");
	BAD("'middle' is taken as the command, and '--' comes after it: -f takes one "
	    "comma-separated list (-f 'a,b'), and orbit-trace's options go before -- CMD",
	    "-f", "outer", "middle", "--", "./server");
	BAD("--json with a command needs -o FILE: the command writes to stdout too, and the "
	    "JSON would be mixed with its output", "--json", "-f", "x", "--", "prog");
	BAD("option '--sl' is ambiguous: --slower-than, --slower-than-all, --slowest; write more of it",
	    "--sl", "1ms", "-f", "x", "--", "p");
	BAD("option '--s' is ambiguous: --slower-than, --slower-than-all, --slowest; write more of it",
	    "--s=1", "-f", "x", "--", "p");
	BAD("unknown option '--nosuch'", "--nosuch", "-f", "x", "--", "p");
	BAD("--comm '' is invalid: expected a process name of 1 to 15 bytes, as ps -o comm "
	    "shows it", "--comm", "", "-f", "x", "-p", "1");
	BAD("--tid '0' is invalid: expected an integer in 1..4194304", "--tid", "0", "-f", "x",
	    "-p", "1");
	BAD("--comm applies to a capture, not to -l", "--comm", "x", "-l", "-p", "1");
	BAD("--max-functions '0' is invalid: expected an integer in 1..1000000", "--max-functions",
	    "0", "-f", "x", "-p", "1");
	/* After "--" every word is the command's; -dc, --l are not ours. */
	assert_int_equal(parse(&o, &msg, "-f", "x", "--", "gzip", "-d", "--json", "--", "-f",
			       (char *)NULL), OT_OPTIONS_RUN);
	ot_options_free(&o);
	assert_int_equal(parse(&o, &msg, "-f", "x", "gzip", "-dc", "--l", "-x", (char *)NULL),
			 OT_OPTIONS_RUN);
	assert_string_equal(o.argv[1], "-dc");
	ot_options_free(&o);
	/* Each -f and --expect adds to the list, --lang after them all. */
	assert_int_equal(parse(&o, &msg, "-f", "outer", "--expect", "outer=1", "-f", "middle,inner",
			       "--functions=x", "--expect", "middle=2@1,inner=3", "--lang", "php",
			       "-p", "1", (char *)NULL), OT_OPTIONS_RUN);
	assert_string_equal(o.functions, "outer,middle,inner,x,"
			    "usdt:/usr/bin/php8.2:php:function__entry..function__return@arg1:str");
	assert_int_equal(o.nexpect, 3);
	assert_string_equal(o.expect[0].name, "outer");
	assert_string_equal(o.expect[1].name, "middle");
	assert_int_equal(o.expect[1].depth, 1);
	assert_string_equal(o.expect[2].name, "inner");
	ot_options_free(&o);
	/* --json with -o, or with -p, writes to no command's stdout. */
	assert_int_equal(parse(&o, &msg, "--json", "-o", "r.json", "-f", "x", "--", "p",
			       (char *)NULL), OT_OPTIONS_RUN);
	ot_options_free(&o);
	assert_int_equal(parse(&o, &msg, "--json", "-f", "x", "-p", "1", (char *)NULL),
			 OT_OPTIONS_RUN);
	ot_options_free(&o);
}

/* Lists with something to select pass, whatever else they hold. */
static void test_lists_that_select(void **state)
{
	static const char *const ok[] = {
		"a,,", " ,a", "!b,a", "libc.so.6:malloc", "usdt:x:p:n", "a::b", "f:::",
		"read(arg1)%ret", "!x,libc.so.6:free(arg1)",
	};
	struct ot_options o;
	char *msg;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(parse(&o, &msg, "-p", "1", "-f", ok[i], (char *)NULL),
				 OT_OPTIONS_RUN);
		ot_options_free(&o);
	}
	/* --lang adds its probes to a list of exclusions. */
	assert_int_equal(parse(&o, &msg, "--lang", "php", "-f", "!x", "--", "php8.2",
			       (char *)NULL), OT_OPTIONS_RUN);
	ot_options_free(&o);
}

static void test_good_line(void **state)
{
	struct ot_options o;
	char *msg;

	(void)state;
	assert_int_equal(parse(&o, &msg, "-q", "--json", "-o", "r.json", "--expect", "a=1@0,b=2",
			       "--returns", "insn", "--backend", "perf", "-d", "1.5", "-f", "a,b",
			       "--", "prog", "-x", (char *)NULL), OT_OPTIONS_RUN);
	assert_string_equal(o.functions, "a,b");
	assert_string_equal(o.output, "r.json");
	assert_true(o.json && o.ret_insn && o.ret_mode_set);
	assert_string_equal(o.backend->name, "perf");
	assert_true(o.duration == 1.5);
	assert_int_equal(o.nexpect, 2);
	assert_int_equal(o.expect[0].depth, 0);
	assert_true(o.max_loss == 1);	/* the default with --expect */
	assert_int_equal(o.verbosity, -1);
	assert_int_equal(o.slowest, OT_SLOWEST_DEFAULT);
	assert_string_equal(o.argv[0], "prog");
	assert_string_equal(o.argv[1], "-x");	/* the command's own options */
	assert_int_equal(o.ring_kb, OT_RING_KB_DEFAULT);
	assert_int_equal(o.drain_ms, OT_DRAIN_MS_DEFAULT);
	ot_options_free(&o);
	/* Durations carry their unit. */
	{
		static const struct { const char *arg; uint64_t ns; } t[] = {
			{ "800ns", 800 }, { "500us", 500000 }, { "1.5ms", 1500000 }, { "2s", 2000000000 },
		};
		size_t k;

		for (k = 0; k < sizeof(t) / sizeof(*t); k++) {
			assert_int_equal(parse(&o, &msg, "--slower-than", t[k].arg, "-f", "x", "--", "p",
					       (char *)NULL), OT_OPTIONS_RUN);
			assert_int_equal(o.slower_than, t[k].ns);
			ot_options_free(&o);
		}
	}
	/* --restore needs nothing but the process. */
	assert_int_equal(parse(&o, &msg, "--restore", "-p", "42", "--json", (char *)NULL),
			 OT_OPTIONS_RUN);
	assert_true(o.restore && o.json && o.pid == 42 && !o.functions);
	ot_options_free(&o);
	/* -l alone lists every function. */
	assert_int_equal(parse(&o, &msg, "-l", "--", "prog", (char *)NULL), OT_OPTIONS_RUN);
	assert_string_equal(o.functions, "*");
	ot_options_free(&o);
	/* --lang: its pair after -f's terms, or alone. */
	assert_int_equal(parse(&o, &msg, "--lang", "php", "-f", "main", "--", "php8.2", (char *)NULL),
			 OT_OPTIONS_RUN);
	assert_string_equal(o.functions, "main,usdt:/usr/bin/php8.2:php:function__entry.."
			    "function__return@arg1:str");
	ot_options_free(&o);
	assert_int_equal(parse(&o, &msg, "--lang", "python", "--", "python3.11", (char *)NULL),
			 OT_OPTIONS_RUN);
	assert_string_equal(o.functions, "usdt:/usr/bin/python3.11:python:function__entry.."
			    "function__return@arg2:str");
	ot_options_free(&o);
	assert_int_equal(parse(&o, &msg, "--lang", "ruby", "--", "ruby", (char *)NULL),
			 OT_OPTIONS_RUN);
	assert_string_equal(o.functions, "usdt:libruby-3.1.so.3.1:ruby:method__entry.."
			    "method__return@arg2:str");
	ot_options_free(&o);
	BAD("--lang 'perl' is not a runtime orbit-trace knows: php, python or ruby",
	    "--lang", "perl", "--", "perl");
	/* USDT under inject: its sites are patched (issue 22, item 7). */
	assert_int_equal(parse(&o, &msg, "--backend", "inject", "--lang", "php", "--", "php8.2",
			       (char *)NULL), OT_OPTIONS_RUN);
	ot_options_free(&o);
	/* Values under inject: accepted (its operands are judged by the plan). */
	assert_int_equal(parse(&o, &msg, "--backend", "inject", "-f", "x,read(arg1,arg3)%ret:32",
			       "--", "t", (char *)NULL), OT_OPTIONS_RUN);
	ot_options_free(&o);
	assert_int_equal(parse(&o, &msg, "-h", (char *)NULL), OT_OPTIONS_HELP);
	ot_options_free(&o);
	assert_int_equal(parse(&o, &msg, "--version", (char *)NULL), OT_OPTIONS_VERSION);
	ot_options_free(&o);
	assert_non_null(strstr(ot_usage_text, "usage: orbit-trace"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_bad_combinations),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_pids),
		cmocka_unit_test(test_where_options_go),
		cmocka_unit_test(test_lists_that_select),
		cmocka_unit_test(test_good_line),
		cmocka_unit_test(test_backends_say_why),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
