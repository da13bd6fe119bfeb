/*
 * The stand-in for the programs the README's and the man page's examples
 * name (tests/e2e/examples.sh: ./game, ./server, ./app, ./vm, pid 4242):
 * every function, probe and library call they trace, called in a loop -
 * outer > middle > inner, parse_request, app::handle_get/put, b3Step and
 * b3MulAdd, handle(req, flags) with its DWARF names, nginx's two request
 * functions (a pair by pointer), the USDT probes vm:enter/leave (a name
 * and a number), a C++ exception (libstdcxx:throw/catch), malloc/free,
 * open/read; libssl.so.3 loaded when there is one.
 * Usage: examples [ready] [anything]: with "ready" it prints "ready PID"
 * first and runs 2 s (a -p target), else 0.3 s; other arguments ignored.
 */
#include <sys/sdt.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdexcept>

struct req {
	long len;
	int id;
};

static volatile long sink;

extern "C" {
__attribute__((noinline)) long inner(long x) { sink += x; return x * 3; }
__attribute__((noinline)) long middle(long x) { return inner(x) + inner(x + 1); }
__attribute__((noinline)) long outer(long x) { return middle(x) + 1; }
__attribute__((noinline)) long parse_request(long x) { sink += x; return x & 7; }
__attribute__((noinline)) long parse_header(long x) { sink -= x; return x | 1; }
__attribute__((noinline)) long b3Step(long x) { sink += x; return x + 2; }
__attribute__((noinline)) long b3MulAdd(long x) { sink += x * 2; return x; }
__attribute__((noinline)) int handle(struct req *req, int flags)
{
	sink += req->len + flags;
	return (int)(req->len % 5) - 2;
}
__attribute__((noinline)) void ngx_http_process_request(struct req *r) { sink += r->id; }
__attribute__((noinline)) void ngx_http_free_request(struct req *r) { sink -= r->id; }
}

namespace app {
__attribute__((noinline)) long handle_get(struct req *r) { sink += r->len; return r->len; }
__attribute__((noinline)) long handle_put(struct req *r) { sink -= r->len; return 0; }
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void once(long i)
{
	static const char *const names[] = { "run", "fib", "try" };
	struct req r = { 100 + i % 1000, (int)i };
	const char *name = names[i % 3];
	char buf[64];
	void *p;
	int fd;

	DTRACE_PROBE2(vm, enter, name, i % 3);
	outer(i);
	parse_request(i);
	parse_header(i);
	app::handle_get(&r);
	app::handle_put(&r);
	b3Step(i);
	b3MulAdd(i);
	handle(&r, (int)(i & 3));
	ngx_http_process_request(&r);
	ngx_http_free_request(&r);
	p = malloc(64 + (size_t)(i % 512));
	memset(p, 1, 8);
	free(p);
	if ((fd = open("/dev/zero", O_RDONLY)) >= 0) {
		sink += read(fd, buf, sizeof(buf));
		close(fd);
	}
	try {
		if (i % 50 == 0)
			throw std::runtime_error("example");
	} catch (const std::exception &e) {
		sink += (long)strlen(e.what());
	}
	DTRACE_PROBE2(vm, leave, name, i % 3);
}

int main(int argc, char **argv)
{
	int ready = argc > 1 && !strcmp(argv[1], "ready");
	double end;
	long i;

	dlopen("libssl.so.3", RTLD_NOW);	/* the SSL_read example's library */
	if (ready) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
	}
	end = now() + (ready ? 2.0 : 0.3);
	for (i = 0; now() < end; i++) {
		once(i);
		usleep(500);
	}
	printf("examples: %ld rounds\n", i);
	return 0;
}
