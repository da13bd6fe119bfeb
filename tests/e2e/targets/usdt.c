/*
 * Statically defined probes (<sys/sdt.h>) with known hits and values, for
 * -f 'usdt:FILE:PROVIDER:NAME(argN)'.  Usage: usdt [N [wait]].  Per
 * iteration i (0 <= i < N):
 *   ot:tick     once, arg1 = i (a register), behind a semaphore;
 *   ot:site     at three sites of one name (i even: two, i odd: one), arg1 = 7;
 *   ot:forms    once: arg1 $5 (constant), arg2 -(i % 10) (int in a
 *               register, signed), arg3 a stack slot (i % 50), arg4 an
 *               array element (table[i % 4] = 10 * (i % 4)), arg5 a global
 *               by its symbol (level = 42), arg6 (char)-3;
 *   otlib:work  in libusdtlib.so, arg1 = i % 3.
 * It prints whether ot:tick's semaphore is raised ("tick semaphore N")
 * before the loop, then the counts.  With "wait" it first prints "ready
 * PID" and reads a line from stdin before the loop, and after it prints
 * the semaphore again once a second line comes (the tracer gone).
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long usdtlib_work(long x);

/* With _SDT_HAS_SEMAPHORES every probe has one; only tick's is looked at. */
unsigned short ot_tick_semaphore __attribute__((section(".probes")));
unsigned short ot_site_semaphore __attribute__((section(".probes")));
unsigned short ot_forms_semaphore __attribute__((section(".probes")));
#define OT_TICK_ENABLED() __builtin_expect(ot_tick_semaphore, 0)

long table[4] = { 0, 10, 20, 30 };
long level = 42;
static volatile long sink;

__attribute__((noinline)) static void forms(long i)
{
	volatile int slot = (int)(i % 50);
	int neg = (int)-(i % 10);
	char c = (char)(sink - 3 - sink);

	STAP_PROBE6(ot, forms, 5, neg, slot, table[i % 4], level, c);
}

__attribute__((noinline)) static void sites(long i)
{
	if (i % 2 == 0) {
		STAP_PROBE1(ot, site, 7);
		sink++;
		STAP_PROBE1(ot, site, 7);
	} else {
		sink--;
		STAP_PROBE1(ot, site, 7);
	}
}

static void wait_line(void)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		exit(1);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, i, site = 0;
	int wait = argc > 2 && !strcmp(argv[2], "wait");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (wait) {
		printf("ready %d\n", (int)getpid());
		wait_line();
	}
	printf("tick semaphore %d\n", OT_TICK_ENABLED() ? 1 : 0);
	for (i = 0; i < n; i++) {
		if (OT_TICK_ENABLED())
			STAP_PROBE1(ot, tick, i);
		sites(i);
		site += i % 2 ? 1 : 2;
		forms(i);
		usdtlib_work(i % 3);
	}
	printf("tick %ld site %ld forms %ld work %ld\n", n, site, n, n);
	if (wait) {
		wait_line();
		printf("tick semaphore %d\n", OT_TICK_ENABLED() ? 1 : 0);
	}
	return 0;
}
