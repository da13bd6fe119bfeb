/*
 * Entry/return probes of a made-up runtime, for -f
 * 'usdt:FILE:rt:enter..leave@arg1:str' (names) and '@arg2' (integers),
 * with known scopes, returns that skip scopes left open, orphans, and
 * names in a .rodata page the process never touches before the probe
 * fires (the BPF program cannot read it then: read afterwards).
 * Usage: usdt_pairs [wait].  Per run:
 *   fib(8) as enter/leave "fib" (67 scopes, depths 0..7 under "run");
 *   3 times: enter "try", enter "inner", leave "try" (inner skipped);
 *   2 leaves "ghost" with no enter (orphans);
 *   the whole inside enter/leave "run" (1 scope at depth 0).
 * Each name is read by nothing but the probes: "cold" names live in their
 * own 64 KiB-aligned section (page fault-around maps 64 KiB windows).
 * arg2 is a number per name (run 1, fib 2, try 3, inner 4, ghost 5).
 * With "wait" it prints "ready PID" and reads a line first.
 */
#include <sys/sdt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Untouched by the program: its own window of 64 KiB. */
__attribute__((section("ot_cold"), aligned(65536), used))
static const char cold[65536] = "run\0fib\0try\0inner\0ghost";
#define RUN (cold + 0)
#define FIB (cold + 4)
#define TRY (cold + 8)
#define INNER (cold + 12)
#define GHOST (cold + 18)

#define ENTER(name, id) DTRACE_PROBE2(rt, enter, name, id)
#define LEAVE(name, id) DTRACE_PROBE2(rt, leave, name, id)

__attribute__((noinline)) static long fib(long n)
{
	long r;

	ENTER(FIB, 2);
	r = n < 2 ? n : fib(n - 1) + fib(n - 2);
	LEAVE(FIB, 2);
	return r;
}

int main(int argc, char **argv)
{
	char line[16];
	long r;
	int i;

	if (argc > 1 && !strcmp(argv[1], "wait")) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	ENTER(RUN, 1);
	r = fib(8);
	for (i = 0; i < 3; i++) {
		ENTER(TRY, 3);
		ENTER(INNER, 4);
		LEAVE(TRY, 3);
	}
	LEAVE(GHOST, 5);
	LEAVE(GHOST, 5);
	LEAVE(RUN, 1);
	printf("fib %ld scopes fib 67 run 1 try 3 skipped inner 3 orphans ghost 2\n", r);
	return 0;
}
