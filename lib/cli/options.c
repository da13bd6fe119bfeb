/*
 * options.c - the command line into struct ot_options (options.h): the option
 * table, the environment, defaults, rules between options, the --lang presets.
 */
#include "options.h"
#include "capture/lang_table.h"
#include "report/prom_http.h"
#include "symbols/select.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char ot_usage_text[] =
	"usage: orbit-trace [options] -f FUNCTIONS (-p PID[,PID...] | -a | [--] CMD [ARGS...])\n"
	"       orbit-trace --restore -p PID\n"
	"\n"
	"Count and time user-space functions of a live process with uprobes.\n"
	"\n"
	"Target:\n"
	"  -p, --pid PID[,PID...] trace the running process PID (all its threads), its\n"
	"                         files as it maps them (a container's, a deleted one);\n"
	"                         several (a service's master and workers, -p again\n"
	"                         adds more): one program's, a row each per process\n"
	"  -a, --all              trace every process that runs the functions (each\n"
	"                         -f term names its file: FILE:NAME or SONAME:NAME),\n"
	"                         until -d or SIGINT; the report has per-process rows\n"
	"      --comm NAME        only the calls of processes named NAME (ps -o comm)\n"
	"      --tid TID          only the calls of thread TID\n"
	"      --cgroup PATH      -a within one cgroup v2 directory and those below it\n"
	"                         (a systemd unit, a container; PATH absolute or under\n"
	"                         /sys/fs/cgroup)\n"
	"  -- CMD [ARGS...]       start CMD once the probes are armed, trace it (an\n"
	"                         option of orbit-trace's after CMD without -- is an\n"
	"                         error: options go before CMD)\n"
	"      --follow           also the processes the target forks, from their\n"
	"                         first call, and the programs they exec (for the\n"
	"                         -f files they map); per-process rows\n"
	"      --user USER        run CMD as USER (default: under sudo, the user who\n"
	"                         ran sudo; otherwise as orbit-trace itself)\n"
	"  -f, --functions LIST   functions to trace, comma-separated: names (raw,\n"
	"                         C++/Rust demangled, or a unique last component),\n"
	"                         globs, LIB:NAME for a library by soname or path,\n"
	"                         '!GLOB' to exclude (e.g. -f 'b3*,!b3Mul*');\n"
	"                         NAME(argN) and NAME%ret also record an integer\n"
	"                         argument, the return value (e.g. 'read(arg3)%ret');\n"
	"                         NAME(PARAM), NAME(PARAM->MEMBER) a parameter by its\n"
	"                         DWARF name (e.g. 'read(nbytes)'), %ret typed by it;\n"
	"                         up to 4 values each: 'read(fd,arg3)%ret'; VALUE:str\n"
	"                         counts the strings one points to ('open(arg1:str)');\n"
	"                         usdt:FILE:PROVIDER:NAME counts a USDT probe's hits;\n"
	"                         (argN) after it records argument N (from 1),\n"
	"                         (argN:str) the string it points to (64 bytes);\n"
	"                         usdt:FILE:PROVIDER:ENTRY..RETURN@argN[:str] pairs\n"
	"                         two probes into scopes, a row per key argument;\n"
	"                         ENTRYFN..RETURNFN@argN a scope from ENTRYFN's entry\n"
	"                         to the return of the RETURNFN call with the same\n"
	"                         argument N (a request's start to its end)\n"
	"                         names a stripped file lacks: its debug info is\n"
	"                         fetched from the servers in DEBUGINFOD_URLS;\n"
	"                         -f again adds to the list\n"
	"      --lang LANG        trace a language runtime's functions as scopes,\n"
	"                         a row per function name: php (php8.2; run it with\n"
	"                         USE_ZEND_DTRACE=1), python (python3.11), ruby\n"
	"                         (libruby-3.1; Ruby methods only while a TracePoint\n"
	"                         for :call and :return is on); adds to -f (see the\n"
	"                         man page)\n"
	"      --max-functions N  refuse a capture of more than N functions\n"
	"      --yes              arm more than 1000 functions without a warning\n"
	"  -l, --list             print what -f selects (default: every function)\n"
	"                         with file offsets and sizes, USDT probes with their\n"
	"                         sites, semaphores, argument specs; arm nothing\n"
	"      --returns MODE     how returns are seen: 'insn' (a probe on each return\n"
	"                         instruction: the stack left alone) or 'uretprobe'\n"
	"                         (a return probe: cheaper, refused where exceptions\n"
	"                         or stack switches would kill the program); default,\n"
	"                         per function: insn where every exit is found, else\n"
	"                         uretprobe where safe (multi: on a thread's own stack\n"
	"                         only, Linux 6.13; perf: insn); a Go program: insn,\n"
	"                         always (see GO PROGRAMS)\n"
	"\n"
	"Capture:\n"
	"  -d, --duration SECS    stop after SECS seconds (default: until the target\n"
	"                         exits or SIGINT/SIGTERM)\n"
	"  -I, --interval SECS    every SECS seconds from the start, report the scopes\n"
	"                         that closed in that interval: per function the count,\n"
	"                         p50, p99 and max (with --json: one JSON object per\n"
	"                         line, the full report last)\n"
	"      --ring-kb KB       ring size per CPU (per thread with inject), a power\n"
	"                         of two >= 4 (default 4096; 16384 with inject; env\n"
	"                         ORBIT_UPROBE_RING_KB)\n"
	"      --drain-ms MS      longest wait between drains, 1..100; a ring a quarter\n"
	"                         full is drained at once (default 50; env ORBIT_DRAIN_MS)\n"
	"      --backend NAME     how probes are armed: 'multi' (uprobe_multi BPF\n"
	"                         links: one per file, fast to arm and disarm),\n"
	"                         'perf' (uprobe PMU perf events: 2 per function\n"
	"                         and CPU, one more per extra return instruction\n"
	"                         with --returns insn, ~0.1 s each to disarm),\n"
	"                         'inject' (no uprobe: the process's code is patched\n"
	"                         to jump to trampolines in its own memory, tens of\n"
	"                         ns per call; x86-64, ptrace; rings per thread) or\n"
	"                         'auto' (default: multi where the kernel has it)\n"
	"      --freeze           stop the -p process (SIGSTOP) while its probes are\n"
	"                         armed and disarmed: ~100x fewer IPIs, a short pause;\n"
	"                         and (multi) from an exec by a thread other than its\n"
	"                         first until armed again, so no call goes unseen\n"
	"\n"
	"Checks (for CI):\n"
	"      --expect NAME=N[@D],.. expected scope counts (and depth D: 0 for an\n"
	"                         outermost traced call); adds missing and loss %,\n"
	"                         and checks the pairing's consistency; NAME as -f\n"
	"                         names it ('f(int, long)=3'); --expect again adds\n"
	"      --max-loss PCT     fail (exit 3) above PCT % loss (default 1 with --expect)\n"
	"\n"
	"Output:\n"
	"  -o, --output FILE      write the report to FILE instead of stdout (a new\n"
	"                         file 0600; emptied only once the report comes)\n"
	"      --json             write the report as JSON (with -- CMD: -o FILE too)\n"
	"      --hist             draw log2 latency histograms in the text report\n"
	"      --slower-than TIME print each outermost scope longer than TIME (e.g.\n"
	"                         500us, 2ms) as it closes: when, process, thread, its\n"
	"                         traced callers and the values the call recorded (a\n"
	"                         slow call nested in a slow one: not printed)\n"
	"      --slower-than-all TIME  the same for every slow scope, nested or not\n"
	"      --wall-clock       --slower-than's lines say the time of day\n"
	"                         (HH:MM:SS.microseconds), not the time since the start\n"
	"      --slowest N        keep each function's N longest scopes for the\n"
	"                         report, longest first (default 5)\n"
	"      --compensate       also report durations without the probes' own cost\n"
	"                         (calibrated on this machine during the capture)\n"
	"      --trace FILE       write every scope as Chrome trace-event JSON\n"
	"                         (Perfetto, chrome://tracing)\n"
	"      --folded FILE      write folded stacks weighted by self time\n"
	"                         (flamegraph.pl, speedscope)\n"
	"      --prom-textfile FILE.prom  write the Prometheus metrics of the capture\n"
	"                         so far to FILE.prom at the start, at every -I and at\n"
	"                         the end, atomically (node_exporter's textfile collector)\n"
	"      --listen [HOST:]PORT  serve /metrics over HTTP while the capture runs\n"
	"                         (127.0.0.1 unless HOST is named, warned of; text\n"
	"                         0.0.4, or OpenMetrics when the scraper asks for it;\n"
	"                         4 connections per client, 10 s per request)\n"
	"      --prom-pid         label the metrics with the process's pid and comm (as\n"
	"                         -a and --follow always do)\n"
	"  -q, --quiet            no warnings or progress on stderr\n"
	"  -v, --verbose          say what is resolved and armed\n"
	"\n"
	"Miscellaneous:\n"
	"      --restore          with -p PID only: take back what an orbit-trace that\n"
	"                         was killed left in the process (--backend inject's\n"
	"                         patches, USDT semaphores and memory), say what, and\n"
	"                         exit\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n"
	"\n"
	"Exit status: 0 done, 1 runtime failure (cannot arm, target gone),\n"
	"2 usage error, 3 a check failed (--expect, --max-loss, pairing).\n"
	"Needs CAP_SYS_ADMIN (run with sudo); inject needs only ptrace.  See orbit-trace(1).\n";

/* Set *msg to the formatted reason; returns OT_OPTIONS_BAD. */
static enum ot_options_result bad(char **msg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static enum ot_options_result bad(char **msg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(msg, fmt, ap) < 0)
		*msg = NULL;
	va_end(ap);
	return OT_OPTIONS_BAD;
}

/* "--backend 'x' is invalid: expected 'auto', 'multi', 'perf' or 'inject'". */
static enum ot_options_result bad_backend(const char *arg, char **msg)
{
	char names[256];
	const struct ot_backend_info *b;
	size_t i, len = 0;

	names[0] = 0;
	for (i = 0; (b = ot_backend_at(i)) && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s'%s'",
					!i ? "" : ot_backend_at(i + 1) ? ", " : " or ", b->name);
	return bad(msg, "--backend '%s' is invalid: expected %s", arg, names);
}

/* s as an integer in min..max (a power of two with pow2), or a reason. */
static int parse_ulong(const char *what, const char *s, unsigned long min, unsigned long max,
		       int pow2, unsigned long *out, char **msg)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || *s == '-' || v < min || v > max ||
	    (pow2 && (v & (v - 1)))) {
		bad(msg, "%s '%s' is invalid: expected %s %lu..%lu", what, s,
		    pow2 ? "a power of two in" : "an integer in", min, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* "500us", "2ms", "1.5s", "800ns": a positive duration in ns, or -1. */
static int parse_time(const char *s, uint64_t *ns)
{
	/* The unit is "s" or a prefix of it: nano, micro, milli. */
	static const char prefix[] = "num";
	static const double scale[] = { 1, 1e3, 1e6 };
	const char *p;
	char *end;
	double v, unit = 0;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v <= 0)
		return -1;
	if (end[0] == 's' && !end[1])
		unit = 1e9;
	else if (end[0] && (p = strchr(prefix, end[0])) && end[1] == 's' && !end[2])
		unit = scale[p - prefix];
	if (!unit || v * unit < 1 || v * unit >= 1e18)
		return -1;
	*ns = (uint64_t)(v * unit);
	return 0;
}

/* s as a finite number in (lo, hi] (lo_open) or [lo, hi]. */
static int parse_double(const char *s, double lo, int lo_open, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return !*s || *end || errno || !isfinite(*out) || *out < lo || (lo_open && *out == lo) ||
	       *out > hi ? -1 : 0;
}

enum {
	OPT_JSON = 0x100, OPT_RING_KB, OPT_DRAIN_MS, OPT_EXPECT, OPT_MAX_LOSS,
	OPT_HIST, OPT_TRACE, OPT_FOLDED, OPT_USER, OPT_RETURNS, OPT_COMPENSATE, OPT_BACKEND,
	OPT_FREEZE, OPT_SLOWER_THAN, OPT_SLOWEST, OPT_FOLLOW, OPT_RESTORE, OPT_PROM_TEXTFILE,
	OPT_LISTEN, OPT_PROM_PID, OPT_LANG, OPT_WALL_CLOCK, OPT_CGROUP, OPT_SLOWER_ALL,
	OPT_COMM, OPT_TID, OPT_YES, OPT_MAX_FUNCTIONS,
};

static const struct option longopts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "all", no_argument, NULL, 'a' },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "yes", no_argument, NULL, OPT_YES },
	{ "max-functions", required_argument, NULL, OPT_MAX_FUNCTIONS },
	{ "functions", required_argument, NULL, 'f' },
	{ "list", no_argument, NULL, 'l' },
	{ "duration", required_argument, NULL, 'd' },
	{ "interval", required_argument, NULL, 'I' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "ring-kb", required_argument, NULL, OPT_RING_KB },
	{ "drain-ms", required_argument, NULL, OPT_DRAIN_MS },
	{ "expect", required_argument, NULL, OPT_EXPECT },
	{ "max-loss", required_argument, NULL, OPT_MAX_LOSS },
	{ "hist", no_argument, NULL, OPT_HIST },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "folded", required_argument, NULL, OPT_FOLDED },
	{ "user", required_argument, NULL, OPT_USER },
	{ "returns", required_argument, NULL, OPT_RETURNS },
	{ "compensate", no_argument, NULL, OPT_COMPENSATE },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "freeze", no_argument, NULL, OPT_FREEZE },
	{ "follow", no_argument, NULL, OPT_FOLLOW },
	{ "restore", no_argument, NULL, OPT_RESTORE },
	{ "slower-than", required_argument, NULL, OPT_SLOWER_THAN },
	{ "slower-than-all", required_argument, NULL, OPT_SLOWER_ALL },
	{ "wall-clock", no_argument, NULL, OPT_WALL_CLOCK },
	{ "slowest", required_argument, NULL, OPT_SLOWEST },
	{ "prom-textfile", required_argument, NULL, OPT_PROM_TEXTFILE },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "prom-pid", no_argument, NULL, OPT_PROM_PID },
	{ "lang", required_argument, NULL, OPT_LANG },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/*
 * The option groups' parsers: each takes an option of its own group and
 * returns OT_OPTIONS_RUN, or OT_OPTIONS_BAD with *msg; any other option
 * is NOT_MINE, for the next group.
 */
enum { NOT_MINE = -1 };

/*
 * -p PID[,PID...] as perf takes it (-p $(pgrep -d, php-fpm)), each -p
 * adding to the list; a process named twice is traced once.
 */
static int add_pids(struct ot_options *o, const char *arg, char **msg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	unsigned long v;
	size_t i;
	int ret = 0;

	if (!copy) {
		bad(msg, "out of memory");
		return -1;
	}
	if (!strchr(arg, ','))
		ret = parse_ulong("--pid", arg, 1, 4194304, 0, &v, msg);
	else if (!*arg || arg[strlen(arg) - 1] == ',' || *arg == ',' || strstr(arg, ",,"))
		ret = -1;
	for (tok = strtok_r(copy, ",", &save); !ret && tok; tok = strtok_r(NULL, ",", &save)) {
		char *m = NULL;

		if (parse_ulong("--pid", tok, 1, 4194304, 0, &v, &m)) {
			free(m);
			ret = -1;
			break;
		}
		for (i = 0; i < o->npids && o->pids[i] != (pid_t)v; i++)
			;
		if (i < o->npids)
			continue;
		pid_t *more = reallocarray(o->pids, o->npids + 1, sizeof(*o->pids));

		if (!more) {
			free(copy);
			bad(msg, "out of memory");
			return -1;
		}
		o->pids = more;
		o->pids[o->npids++] = (pid_t)v;
	}
	free(copy);
	if (ret && strchr(arg, ','))
		bad(msg, "--pid '%s' is invalid: expected process ids in 1..4194304, comma-separated",
		    arg);
	o->pid = o->npids ? o->pids[0] : 0;
	return ret;
}

/* -f LIST, each -f adding its terms to the list (as perf's -e does). */
static int add_functions(struct ot_options *o, const char *arg, char **msg)
{
	char *all;

	if (!o->functions) {
		o->functions = arg;
		return OT_OPTIONS_RUN;
	}
	if (asprintf(&all, "%s,%s", o->functions, arg) < 0)
		return bad(msg, "out of memory");
	free(o->functions_owned);
	o->functions = o->functions_owned = all;
	return OT_OPTIONS_RUN;
}

/* What to trace, and how to hold it. */
static int target_option(struct ot_options *o, int c, const char *arg, char **msg)
{
	switch (c) {
	case 'p':
		if (add_pids(o, arg, msg))
			return OT_OPTIONS_BAD;
		break;
	case 'a':
		o->all = 1;
		break;
	case OPT_COMM:
		/* The kernel keeps 15 bytes of a name (TASK_COMM_LEN). */
		if (!*arg || strlen(arg) > 15)
			return bad(msg, "--comm '%s' is invalid: expected a process name of 1 to 15 "
				   "bytes, as ps -o comm shows it", arg);
		o->comm = arg;
		break;
	case OPT_TID: {
		unsigned long v;

		if (parse_ulong("--tid", arg, 1, 4194304, 0, &v, msg))
			return OT_OPTIONS_BAD;
		o->tid = (pid_t)v;
		break;
	}
	case OPT_YES:
		o->yes = 1;
		break;
	case OPT_MAX_FUNCTIONS:
		return parse_ulong("--max-functions", arg, 1, 1000000, 0, &o->max_functions, msg) ?
		       OT_OPTIONS_BAD : OT_OPTIONS_RUN;
	case OPT_CGROUP:
		if (!*arg)
			return bad(msg, "--cgroup '' is invalid: expected a cgroup v2 directory");
		o->cgroup = arg;
		break;
	case 'f':
		return add_functions(o, arg, msg);
	case 'l':
		o->list = 1;
		break;
	case OPT_LANG:
		if (!ot_lang_preset(arg))
			return bad(msg, "--lang '%s' is not a runtime orbit-trace knows: php, "
				   "python or ruby", arg);
		o->lang = arg;
		break;
	case OPT_USER:
		o->user = arg;
		break;
	case OPT_FREEZE:
		o->freeze = 1;
		break;
	case OPT_FOLLOW:
		o->follow = 1;
		break;
	case OPT_RESTORE:
		o->restore = 1;
		break;
	default:
		return NOT_MINE;
	}
	return OT_OPTIONS_RUN;
}

/* How long the capture runs, and how its probes and rings work. */
static int capture_option(struct ot_options *o, int c, const char *arg, char **msg)
{
	switch (c) {
	case 'd':
		if (parse_double(arg, 0, 1, INFINITY, &o->duration))
			return bad(msg, "--duration '%s' is invalid: expected a number of seconds > 0",
				   arg);
		break;
	case 'I':
		if (parse_double(arg, 0.01, 0, 86400, &o->interval))
			return bad(msg, "--interval '%s' is invalid: expected a number of seconds "
				   "0.01..86400", arg);
		break;
	case OPT_RING_KB:
		o->ring_kb_set = 1;
		return parse_ulong("--ring-kb", arg, 4, OT_RING_KB_MAX, 1, &o->ring_kb, msg) ?
		       OT_OPTIONS_BAD : OT_OPTIONS_RUN;
	case OPT_DRAIN_MS:
		return parse_ulong("--drain-ms", arg, 1, 100, 0, &o->drain_ms, msg) ?
		       OT_OPTIONS_BAD : OT_OPTIONS_RUN;
	case OPT_COMPENSATE:
		o->compensate = 1;
		break;
	case OPT_BACKEND:
		o->backend = ot_backend_find(arg);
		if (!o->backend)
			return bad_backend(arg, msg);
		break;
	case OPT_RETURNS:
		if (strcmp(arg, "uretprobe") && strcmp(arg, "insn"))
			return bad(msg, "--returns '%s' is invalid: expected 'uretprobe' or 'insn'", arg);
		o->ret_insn = !strcmp(arg, "insn");
		o->ret_mode_set = 1;
		break;
	default:
		return NOT_MINE;
	}
	return OT_OPTIONS_RUN;
}

/* What the capture is checked against. */
static int check_option(struct ot_options *o, int c, const char *arg, char **msg)
{
	struct ot_expect *more, *all;
	char *badterm;
	int n;

	switch (c) {
	case OPT_EXPECT:
		/* Each --expect adds its terms to the list. */
		n = ot_expect_parse(arg, &more, &badterm);
		if (n < 0) {
			bad(msg, "--expect '%s' is invalid: expected NAME=COUNT[@DEPTH][,NAME=COUNT...]",
			    badterm);
			free(badterm);
			return OT_OPTIONS_BAD;
		}
		all = reallocarray(o->expect, o->nexpect + (size_t)n, sizeof(*all));
		if (!all) {
			ot_expect_free(more, (size_t)n);
			return bad(msg, "out of memory");
		}
		memcpy(all + o->nexpect, more, (size_t)n * sizeof(*more));
		free(more);	/* its names now in all */
		o->expect = all;
		o->nexpect += (size_t)n;
		break;
	case OPT_MAX_LOSS:
		if (parse_double(arg, 0, 0, 100, &o->max_loss))
			return bad(msg, "--max-loss '%s' is invalid: expected a percentage 0..100", arg);
		break;
	default:
		return NOT_MINE;
	}
	return OT_OPTIONS_RUN;
}

/* What is written, where, and how much. */
static int output_option(struct ot_options *o, int c, const char *arg, char **msg)
{
	unsigned long v;

	switch (c) {
	case 'o':
		o->output = arg;
		break;
	case OPT_JSON:
		o->json = 1;
		break;
	case OPT_HIST:
		o->hist = 1;
		break;
	case OPT_WALL_CLOCK:
		o->wall_clock = 1;
		break;
	case OPT_TRACE:
		o->trace = arg;
		break;
	case OPT_FOLDED:
		o->folded = arg;
		break;
	case OPT_SLOWER_THAN:
	case OPT_SLOWER_ALL:
		if (parse_time(arg, &o->slower_than))
			return bad(msg, "%s '%s' is invalid: expected a duration with its unit, "
				   "e.g. 500us, 2ms, 1s", c == OPT_SLOWER_ALL ? "--slower-than-all" :
				   "--slower-than", arg);
		o->slower_all = c == OPT_SLOWER_ALL;
		break;
	case OPT_SLOWEST:
		if (parse_ulong("--slowest", arg, 0, OT_SLOWEST_MAX, 0, &v, msg))
			return OT_OPTIONS_BAD;
		o->slowest = (size_t)v;
		break;
	case OPT_PROM_TEXTFILE: {
		size_t len = strlen(arg);

		if (len < 6 || strcmp(arg + len - 5, ".prom") || arg[len - 6] == '/')
			return bad(msg, "--prom-textfile '%s' is invalid: expected a file name ending "
				   "in .prom (node_exporter's textfile collector reads no other)", arg);
		o->prom_textfile = arg;
		break;
	}
	case OPT_LISTEN: {
		char host[64], port[8];

		if (ot_prom_http_parse(arg, host, sizeof(host), port, sizeof(port)))
			return bad(msg, "--listen '%s' is invalid: expected [HOST:]PORT (e.g. "
				   "127.0.0.1:9435, [::1]:9435 or 9435)", arg);
		o->listen = arg;
		break;
	}
	case OPT_PROM_PID:
		o->prom_pid = 1;
		break;
	case 'q':
		o->verbosity = -1;
		break;
	case 'v':
		o->verbosity = 1;
		break;
	default:
		return NOT_MINE;
	}
	return OT_OPTIONS_RUN;
}

static enum ot_options_result unknown_long(const char *word, char **msg);

/* One option and its argument; OT_OPTIONS_RUN when it is fine. */
static enum ot_options_result one(struct ot_options *o, int c, const char *arg,
				  const char *word, char **msg)
{
	static int (*const groups[])(struct ot_options *, int, const char *, char **) = {
		target_option, capture_option, check_option, output_option,
	};
	size_t i;
	int r;

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if ((r = groups[i](o, c, arg, msg)) != NOT_MINE)
			return (enum ot_options_result)r;
	switch (c) {
	case 'h':
		return OT_OPTIONS_HELP;
	case 'V':
		return OT_OPTIONS_VERSION;
	case ':':
		return bad(msg, "option '%s' needs an argument", word);
	default:
		if (c > 0 && c < 0x100)
			return bad(msg, "unknown option '-%c'", c);
		return unknown_long(word, msg);
	}
}

/* "--sl": unknown, or a prefix of several long options (getopt_long
 * says '?' for both). */
static enum ot_options_result unknown_long(const char *word, char **msg)
{
	char names[512];
	size_t i, n = 0, len = 0, wl = strcspn(word, "=");

	names[0] = 0;
	for (i = 0; wl > 2 && longopts[i].name; i++) {
		if (strncmp(longopts[i].name, word + 2, wl - 2))
			continue;
		n++;
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s--%s",
					len ? ", " : "", longopts[i].name);
		if (len >= sizeof(names))
			break;
	}
	if (n > 1)
		return bad(msg, "option '%.*s' is ambiguous: %s; write more of it", (int)wl, word,
			   names);
	return bad(msg, "unknown option '%s'", word);
}

/* word is one of orbit-trace's options as written alone: "-f", "--json",
 * "--expect=..." (not a prefix, not "-dc": a command's options often are). */
static int ours(const char *word)
{
	static const char shorts[] = "pafldIoqvhV";
	size_t i, wl = strcspn(word, "=");

	if (word[0] == '-' && word[1] && word[1] != '-' && !word[2])
		return strchr(shorts, word[1]) != NULL;
	for (i = 0; word[0] == '-' && word[1] == '-' && longopts[i].name; i++)
		if (strlen(longopts[i].name) == wl - 2 && !strncmp(longopts[i].name, word + 2, wl - 2))
			return 1;
	return 0;
}

/*
 * A command given without "--" before it: one of orbit-trace's options
 * or a "--" after it was meant for orbit-trace ("orbit-trace ./game
 * --json", "-f outer middle -- ./server"), and would otherwise be the
 * command's, silently.  The command's own options go after "-- CMD".
 */
static int after_command(char **cmd, char **msg)
{
	size_t i;

	for (i = 1; cmd[i]; i++) {
		if (!strcmp(cmd[i], "--")) {
			bad(msg, "'%s' is taken as the command, and '--' comes after it: -f takes one "
			    "comma-separated list (-f 'a,b'), and orbit-trace's options go before "
			    "-- CMD", cmd[0]);
			return -1;
		}
		if (ours(cmd[i])) {
			bad(msg, "'%s' comes after the command '%s': orbit-trace's options go before "
			    "the command; if it is the command's own, put -- before the command "
			    "(orbit-trace [options] -- %s ...)", cmd[i], cmd[0], cmd[0]);
			return -1;
		}
	}
	return 0;
}

/* --restore does that alone, to one process. */
static enum ot_options_result restore_rules(const struct ot_options *o, char **msg)
{
	if (o->functions || o->list || o->argv || o->all || o->duration > 0 || o->interval > 0 ||
	    o->follow || o->freeze || o->expect || o->trace || o->folded || o->prom_textfile ||
	    o->listen || o->prom_pid || o->cgroup || o->comm || o->tid)
		return bad(msg, "--restore only takes back what a killed orbit-trace left: with "
			   "-p PID (and -o, --json), nothing else");
	if (!o->pid)
		return bad(msg, "--restore needs -p PID: the process a killed orbit-trace left "
			   "instrumented");
	if (o->npids > 1)
		return bad(msg, "--restore takes back what was left in one process: give one -p PID");
	return OT_OPTIONS_RUN;
}

/* What the options ask of the backend, refused as it says where it cannot. */
static enum ot_options_result backend_rules(const struct ot_options *o, char **msg)
{
	const unsigned asked = (o->follow ? OT_CAN_FOLLOW : 0) | (o->all ? OT_CAN_ALL : 0) |
		(o->npids > 1 ? OT_CAN_PIDS : 0) | (o->cgroup ? OT_CAN_CGROUP : 0) |
		(o->freeze ? OT_CAN_FREEZE : 0) | (o->compensate ? OT_CAN_COMPENSATE : 0) |
		(o->ret_mode_set ? OT_CAN_RETURNS : 0) |
		(!o->list && ot_select_asks_values(o->functions) ? OT_CAN_VALUES : 0) |
		(!o->list && ot_select_asks_usdt(o->functions) ? OT_CAN_USDT : 0);
	unsigned can;

	for (can = 1; can <= OT_CAN_OPTIONS; can <<= 1)
		if ((asked & can) && !(o->backend->can & can))
			return bad(msg, "%s", ot_backend_why_not(o->backend, can));
	return OT_OPTIONS_RUN;
}

/* The defaults, and the environment's in place of some (ORBIT_*). */
static enum ot_options_result defaults(struct ot_options *o, char **msg)
{
	const char *s;

	o->max_loss = -1;
	o->ring_kb = OT_RING_KB_DEFAULT;
	o->backend = ot_backend_find("auto");
	o->drain_ms = OT_DRAIN_MS_DEFAULT;
	o->slowest = OT_SLOWEST_DEFAULT;
	s = getenv("ORBIT_UPROBE_RING_KB");
	if (s && parse_ulong("ORBIT_UPROBE_RING_KB", s, 4, OT_RING_KB_MAX, 1, &o->ring_kb, msg))
		return OT_OPTIONS_BAD;
	o->ring_kb_set = s != NULL;
	s = getenv("ORBIT_DRAIN_MS");
	if (s && parse_ulong("ORBIT_DRAIN_MS", s, 1, 100, 0, &o->drain_ms, msg))
		return OT_OPTIONS_BAD;
	o->inject_clock = -1;
	s = getenv("ORBIT_INJECT_CLOCK");
	if (s && *s) {
		if (strcmp(s, "tsc") && strcmp(s, "vdso"))
			return bad(msg, "ORBIT_INJECT_CLOCK '%s' is invalid: expected 'tsc' or 'vdso'", s);
		o->inject_clock = !strcmp(s, "vdso");
	}
	return OT_OPTIONS_RUN;
}

/* Options that need, or exclude, one another. */
static enum ot_options_result combinations(const struct ot_options *o, char **msg)
{
	if (!o->functions)
		return bad(msg, "no functions to trace: give -f FUNCTIONS");
	if (!ot_select_includes(o->functions))
		return bad(msg, "-f '%s' selects nothing: it has no name, glob or usdt: term, only "
			   "exclusions ('!GLOB') or empty terms", o->functions);
	if (o->pid && o->argv)
		return bad(msg, "-p PID and a command are mutually exclusive");
	if (o->all && (o->pid || o->argv))
		return bad(msg, "-a traces every process: not with -p PID or a command");
	/* -l alone lists what terms naming their files select (usdt:FILE:*). */
	if (!o->pid && !o->argv && !o->all && !o->list)
		return bad(msg, "nothing to trace: give -p PID, -a or -- CMD");
	if ((o->comm || o->tid) && o->list)
		return bad(msg, "%s applies to a capture, not to -l", o->comm ? "--comm" : "--tid");
	if (o->all && (o->freeze || o->list))
		return bad(msg, "-a does not go with %s", o->freeze ? "--freeze" : "-l");
	if (o->user && !o->argv)
		return bad(msg, "--user applies to a command started with --, not to -p");
	if (o->freeze && !o->pid)
		return bad(msg, "--freeze applies to -p: a command started with -- is armed before it runs");
	if (o->follow && o->all)
		return bad(msg, "--follow follows -p PID or a command: -a traces every process already");
	if (o->cgroup && !o->all)
		return bad(msg, "--cgroup keeps -a to the processes of a cgroup: give -a");
	if (o->npids > 1 && (o->follow || o->freeze || o->compensate))
		return bad(msg, "%s does not go with several -p processes",
			   o->follow ? "--follow" : o->freeze ? "--freeze" : "--compensate");
	if (backend_rules(o, msg) != OT_OPTIONS_RUN)
		return OT_OPTIONS_BAD;
	if (o->follow && o->compensate)
		return bad(msg, "--compensate does not go with --follow");
	/* The command writes to the same stdout: JSON mixed with its lines
	 * would parse as neither. */
	if (o->json && o->argv && !o->output && !o->list)
		return bad(msg, "--json with a command needs -o FILE: the command writes to "
			   "stdout too, and the JSON would be mixed with its output");
	if (o->max_loss >= 0 && !o->expect)
		return bad(msg, "--max-loss needs --expect");
	if (o->wall_clock && !o->slower_than)
		return bad(msg, "--wall-clock needs --slower-than");
	if (o->interval > 0 && o->list)
		return bad(msg, "--interval applies to a capture, not to -l");
	if ((o->prom_textfile || o->listen) && o->list)
		return bad(msg, "%s applies to a capture, not to -l",
			   o->listen ? "--listen" : "--prom-textfile");
	if (o->prom_pid && !o->prom_textfile && !o->listen)
		return bad(msg, "--prom-pid labels the metrics of --prom-textfile or --listen: "
			   "give one of them");
	return OT_OPTIONS_RUN;
}

enum ot_options_result ot_options_parse(struct ot_options *o, int argc, char **argv, char **msg)
{
	static const char optstring[] = "+:p:af:ld:I:o:qvhV";
	int c;

	memset(o, 0, sizeof(*o));
	*msg = NULL;
	if (defaults(o, msg) != OT_OPTIONS_RUN)
		return OT_OPTIONS_BAD;
	opterr = 0;
	optind = 0;	/* a fresh scan (GNU getopt), for every call */
	while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		enum ot_options_result r;

		if (c == '?' && optopt)
			c = optopt;
		else if (c == '?')
			c = 0;
		r = one(o, c, optarg, argv[optind - 1], msg);
		if (r != OT_OPTIONS_RUN)
			return r;
	}
	if (optind < argc) {
		o->argv = &argv[optind];
		if (strcmp(argv[optind - 1], "--") && after_command(o->argv, msg))
			return OT_OPTIONS_BAD;
	}
	if (o->restore)
		return restore_rules(o, msg);
	if (o->lang) {
		const char *preset = ot_lang_preset(o->lang);
		char *all = NULL;

		if (o->functions && asprintf(&all, "%s,%s", o->functions, preset) < 0)
			return bad(msg, "out of memory");
		if (all) {
			free(o->functions_owned);
			o->functions_owned = all;
		}
		o->functions = o->functions ? o->functions_owned : preset;
	}
	if (!o->functions && o->list)
		o->functions = "*";
	if (combinations(o, msg) != OT_OPTIONS_RUN)
		return OT_OPTIONS_BAD;
	if (o->max_loss < 0)
		o->max_loss = 1;
	return OT_OPTIONS_RUN;
}

void ot_options_capture(const struct ot_options *o, struct ot_capture_opts *co)
{
	*co = (struct ot_capture_opts){
		.pid = o->pid, .pids = o->pids, .npids = o->npids, .all = o->all,
		.cgroup = o->cgroup, .follow = o->follow, .argv = o->argv, .user = o->user,
		.functions = o->functions, .lang = o->lang, .yes = o->yes,
		.max_functions = o->max_functions, .list = o->list, .comm = o->comm,
		.tid = o->tid, .duration = o->duration, .interval = o->interval,
		.drain_ms = o->drain_ms, .ring_kb = o->ring_kb, .ring_kb_set = o->ring_kb_set,
		.backend = o->backend, .knobs.inject.clock = o->inject_clock,
		.ret_insn = o->ret_insn, .ret_mode_set = o->ret_mode_set,
		.compensate = o->compensate, .freeze = o->freeze,
		.slower_than = o->slower_than, .slower_all = o->slower_all,
		.wall_clock = o->wall_clock, .slowest = o->slowest, .hist = o->hist,
		.json = o->json, .output = o->output, .expect = o->expect,
		.nexpect = o->nexpect, .max_loss = o->max_loss, .trace = o->trace,
		.folded = o->folded, .prom_textfile = o->prom_textfile, .listen = o->listen,
		.prom_pid = o->prom_pid,
	};
}

void ot_options_free(struct ot_options *o)
{
	free(o->pids);
	o->pids = NULL;
	o->npids = 0;
	free(o->functions_owned);
	o->functions_owned = NULL;
	ot_expect_free(o->expect, o->nexpect);
	o->expect = NULL;
	o->nexpect = 0;
}
