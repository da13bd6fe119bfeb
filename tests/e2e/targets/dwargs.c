/*
 * Known values for arguments named by DWARF (-f 'handle(flags)',
 * 'handle(req->len)', 'far(r->len)', 'seventh(g)') and returns typed by
 * it ('handle%ret', 'narrow%ret').  Built -O2 -g: the parameters arrive
 * in registers as the ABI passes them, seventh's g and far's r on the
 * stack (the 7th integer argument), and the narrow returns leave the
 * register's upper bits to the ABI (an int's -5 is 0xfffffffb in %rax).
 * noipa keeps each function's signature as written (no clone, no
 * parameter dropped).  Prints what the report must show, one line per
 * value: "NAME VALUE count min max sum".  Usage: dwargs [N [ready]]; with
 * "ready" it first prints "ready PID" and waits for a line on stdin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct req {
	int kind;
	unsigned short flags;
	long len;
	signed char prio;
};

int handle(struct req *req, unsigned flags, int n);
long seventh(long a, long b, long c, long d, long e, long f, long g);
long far(long a, long b, long c, long d, long e, long f, struct req *r);
unsigned char narrow(int x);
short shorty(int x);

static volatile long sink;

__attribute__((noipa)) int handle(struct req *req, unsigned flags, int n)
{
	sink += req->len + flags;
	return n - 50;
}

__attribute__((noipa)) long seventh(long a, long b, long c, long d, long e, long f, long g)
{
	return a + b + c + d + e + f + g;
}

__attribute__((noipa)) long far(long a, long b, long c, long d, long e, long f, struct req *r)
{
	return a + b + c + d + e + f + r->len;
}

__attribute__((noipa)) unsigned char narrow(int x)
{
	return (unsigned char)(x * 37 + 200);
}

__attribute__((noipa)) short shorty(int x)
{
	return (short)(-x * 300);
}

struct stat1 {
	long count, min, max, sum;
};

static void add(struct stat1 *s, long v)
{
	if (!s->count || v < s->min)
		s->min = v;
	if (!s->count || v > s->max)
		s->max = v;
	s->count++;
	s->sum += v;
}

static void show(const char *what, const struct stat1 *s)
{
	printf("%s %ld %ld %ld %ld\n", what, s->count, s->min, s->max, s->sum);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;
	struct stat1 flags = { 0 }, len = { 0 }, nn = { 0 }, hret = { 0 }, g = { 0 };
	struct stat1 flen = { 0 }, nret = { 0 }, sret = { 0 };
	char line[16];

	if (argc > 2 && !strcmp(argv[2], "ready")) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	for (i = 0; i < n; i++) {
		struct req r = { .kind = 1, .flags = 0, .len = 1000 + i % 37, .prio = -1 };
		unsigned fl = 0x80000000u + (unsigned)(i % 5);

		add(&flags, (long)fl);
		add(&len, r.len);
		add(&nn, i % 90);
		add(&hret, handle(&r, fl, (int)(i % 90)));
		add(&g, -(i % 11));
		sink += seventh(1, 2, 3, 4, 5, 6, -(i % 11));
		r.len = -(i % 13);
		add(&flen, r.len);
		sink += far(1, 2, 3, 4, 5, 6, &r);
		add(&nret, narrow((int)i));
		add(&sret, shorty((int)(i % 7)));
	}
	show("handle flags", &flags);
	show("handle req->len", &len);
	show("handle n", &nn);
	show("handle ret", &hret);
	show("seventh g", &g);
	show("far r->len", &flen);
	show("narrow ret", &nret);
	show("shorty ret", &sret);
	return 0;
}
