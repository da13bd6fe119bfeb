/*
 * pair-cost.c - the tracer's cost of building the report's tables from
 * records (issue 33: what the snapshot of the runtime's own tables is to
 * replace): the pairing (lib/scopes/pair) fed the stress tree's shape
 * (outer > 2 middle > 3 inner) on 2 threads, 36 M events, through
 * lib/report/sinks' hook with --slowest 5.  Prints the tracer's CPU ns per
 * event.  Links against a build's objects, so two builds compare alike:
 *   d=$PWD; cc -O2 -std=gnu11 -D_GNU_SOURCE -I$d -I$d/lib -o pair-cost scripts/pair-cost.c \
 *     $(cd $d/build/lib && find $PWD/scopes $PWD/report $PWD/util $PWD/symbols \
 *       $PWD/process $PWD/rings -name '*.o') \
 *     -ldw -lelf -ldebuginfod -lcap -lcapstone -lbpf -lmicrohttpd -liberty -lm && ./pair-cost
 */
#include "scopes/pair.h"
#include "report/sinks.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *names[] = { "outer", "middle", "inner" };

int main(void)
{
	struct ot_pair *p = ot_pair_new(3);
	struct ot_sinks s;
	struct ot_sinks_opts o;
	struct ot_event ev;
	struct timespec a, b;
	uint64_t t = 1, n = 0;
	int i, m, k, th;

	memset(&o, 0, sizeof(o));
	o.nfuncs = 3; o.names = names; o.out = stdout; o.slowest = 5;
	ot_sinks_init(&s, &o, p);
	ot_pair_on_scope(p, ot_sinks_scope, &s);
	ot_pair_set_exact(p);
	memset(&ev, 0, sizeof(ev));
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (i = 0; i < 1000000; i++) {
		for (th = 1; th <= 2; th++) {
			uint64_t base = 0x7fff0000 + th * 0x100000;
#define E(f, s_, kd) do { ev.time = t += 7 + (t & 15); ev.tid = th; ev.pid = 1; ev.func = f; ev.sp = s_; ev.kind = kd; ot_pair_feed(p, &ev); n++; } while (0)
			E(0, base, OT_EV_ENTRY);
			for (m = 0; m < 2; m++) {
				E(1, base - 0x40, OT_EV_ENTRY);
				for (k = 0; k < 3; k++) {
					E(2, base - 0x80, OT_EV_ENTRY);
					E(2, base - 0x80, OT_EV_RETURN);
				}
				E(1, base - 0x40, OT_EV_RETURN);
			}
			E(0, base, OT_EV_RETURN);
		}
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	printf("%.2f ns/event (%llu events, %llu scopes)\n",
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n,
	       (unsigned long long)n, (unsigned long long)ot_pair_scopes(p));
	ot_sinks_free(&s);
	ot_pair_free(p);
	return 0;
}
