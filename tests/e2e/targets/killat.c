/*
 * A target for a tracer killed at given instants (tests/e2e/inject-killat.sh):
 * 3 threads call outer -> 2 x middle -> 3 x inner until standard input
 * ends; the main thread, whose registers a tracer's system calls borrow,
 * waits in read() (a call the kernel restarts after a stop) with values
 * it checks afterwards.  Prints "ready PID", then at the end the calls
 * made and "ok", exit 0; "FAIL ..." and exit 1 when anything differs from
 * an untraced run (read cut short, a value changed, a wrong result).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

uint64_t inner(uint64_t x);
uint64_t middle(uint64_t x);
uint64_t outer(uint64_t x);

static volatile int stop;
static int bad;

__attribute__((noinline)) uint64_t inner(uint64_t x)
{
	int i;

	for (i = 0; i < 256; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) uint64_t middle(uint64_t x)
{
	return inner(x) ^ inner(x + 1) ^ inner(x + 2);
}

__attribute__((noinline)) uint64_t outer(uint64_t x)
{
	return middle(x) + middle(x + 3);
}

/* The same work, never traced: what outer must return. */
static uint64_t twin(uint64_t x)
{
	uint64_t r = 0;
	int m, k, i;

	for (m = 0; m < 2; m++) {
		uint64_t a = 0;

		for (k = 0; k < 3; k++) {
			uint64_t y = x + (uint64_t)(3 * m + k);

			for (i = 0; i < 256; i++)
				y = y * 6364136223846793005ull + 1442695040888963407ull;
			a ^= y;
		}
		r += a;
	}
	return r;
}

static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg << 40, n = 0;

	while (!stop) {
		if (outer(x) != twin(x))
			bad = 1;
		x++;
		n++;
		usleep(100);
	}
	return (void *)(uintptr_t)n;
}

int main(void)
{
	pthread_t t[3];
	uint64_t calls = 0, a = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull, b = a ^ 0xfeed, c = ~a;
	char buf[64];
	ssize_t got;
	int i;

	for (i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1)))
			return 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	/* Until end of input: no handler, so a read cut short (EINTR) is the
	 * tracer's doing. */
	while ((got = read(0, buf, sizeof(buf))) > 0)
		;
	if (got < 0) {
		printf("FAIL read: %s\n", strerror(errno));
		return 1;
	}
	/* Values held across the read, in registers the call must not change. */
	if (a != (uint64_t)getpid() * 0x9e3779b97f4a7c15ull || b != (a ^ 0xfeed) || c != ~a) {
		printf("FAIL the main thread's values changed\n");
		return 1;
	}
	stop = 1;
	for (i = 0; i < 3; i++) {
		void *n;

		pthread_join(t[i], &n);
		calls += (uintptr_t)n;
	}
	if (bad) {
		printf("FAIL outer returned a wrong value\n");
		return 1;
	}
	printf("%llu calls ok\n", (unsigned long long)calls);
	return 0;
}
