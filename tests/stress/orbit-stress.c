/*
 * orbit-stress - a known call tree to trace: outer -> 2 x middle -> 3 x inner.
 *
 * N threads each call outer() K times, paced at F calls per second (0: as
 * fast as possible).  Expected scopes: N*K outer at depth 0, 2*N*K middle at
 * depth 1, 6*N*K inner at depth 2.  With --wait-go the threads are started,
 * "ready PID" is printed, and work begins on SIGUSR1, so a tracer can attach
 * with -p first.  At the end one JSON line gives the expected counts and the
 * work phase's wall time, the untraced cost of inner (timed on an identical
 * copy, inner_reference) and the process's CPU time.  --stress-rounds R creates and joins the threads
 * R times over (thread churn): R*N threads in all, each making K calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Global, so a tracer finds them by name; noinline, so each call is real. */
void inner(uint64_t seed);
void middle(uint64_t seed);
void outer(uint64_t seed);

/* Real work the compiler cannot fold away, a fraction of a microsecond. */
static volatile uint64_t sink;

static inline __attribute__((always_inline)) void inner_body(uint64_t seed)
{
	uint64_t x = seed;
	int i;

	for (i = 0; i < 1024; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink += x;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void inner(uint64_t seed)
{
	inner_body(seed);
}

/*
 * The same work under another name, never traced: timing it tells what
 * inner costs without probes, in the same process and conditions.
 */
__attribute__((noinline)) void inner_reference(uint64_t seed);
__attribute__((noinline)) void inner_reference(uint64_t seed)
{
	inner_body(seed);
}

/* Median ns per inner_reference call, over 31 batches of 1000 calls. */
static uint64_t measure_inner(void)
{
	uint64_t t[31], t0;
	int b, i, j;

	for (b = 0; b < 31; b++) {
		t0 = now_ns();
		for (i = 0; i < 1000; i++)
			inner_reference((uint64_t)i);
		t[b] = (now_ns() - t0) / 1000;
	}
	for (i = 1; i < 31; i++)
		for (j = i; j > 0 && t[j - 1] > t[j]; j--) {
			uint64_t x = t[j];

			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	return t[15];
}

__attribute__((noinline)) void middle(uint64_t seed)
{
	int i;

	for (i = 0; i < 3; i++)
		inner(seed + (uint64_t)i);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void outer(uint64_t seed)
{
	middle(seed);
	middle(seed + 7);
	__asm__ volatile("" ::: "memory");
}

struct config {
	unsigned long threads, hz, calls, rounds;
};

static struct config cfg = { 1, 1000, 1000, 1 };
static pthread_barrier_t start_line;

static void *worker(void *arg)
{
	uint64_t seed = (uint64_t)(uintptr_t)arg, period, next;
	struct timespec ts;
	unsigned long k;

	pthread_barrier_wait(&start_line);
	period = cfg.hz ? 1000000000ull / cfg.hz : 0;
	next = now_ns();
	for (k = 0; k < cfg.calls; k++) {
		outer(seed + k);
		if (!period)
			continue;
		/* Absolute deadlines: a late call does not shift the ones after it. */
		next += period;
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	return NULL;
}

static unsigned long number(const char *opt, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || *s == '-') {
		fprintf(stderr, "orbit-stress: %s '%s' is not a number\n", opt, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	pthread_t *tids;
	sigset_t go;
	struct rusage ru;
	uint64_t t0 = 0, t1, inner_ns;
	unsigned long round;
	int i, wait_go = 0;
	unsigned long n;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--wait-go")) {
			wait_go = 1;
		} else if (i + 1 < argc && !strcmp(argv[i], "--stress-threads")) {
			cfg.threads = number(argv[i], argv[i + 1]);
			i++;
		} else if (i + 1 < argc && !strcmp(argv[i], "--stress-hz")) {
			cfg.hz = number(argv[i], argv[i + 1]);
			i++;
		} else if (i + 1 < argc && !strcmp(argv[i], "--stress-calls")) {
			cfg.calls = number(argv[i], argv[i + 1]);
			i++;
		} else if (i + 1 < argc && !strcmp(argv[i], "--stress-rounds")) {
			cfg.rounds = number(argv[i], argv[i + 1]);
			i++;
		} else {
			fprintf(stderr, "usage: orbit-stress [--stress-threads N] [--stress-hz F] "
				"[--stress-calls K] [--stress-rounds R] [--wait-go]\n");
			return 2;
		}
	}
	if (!cfg.threads || cfg.threads > 4096 || !cfg.rounds) {
		fprintf(stderr, "orbit-stress: --stress-threads must be 1..4096, --stress-rounds >= 1\n");
		return 2;
	}
	/*
	 * Block SIGUSR1 before any thread exists: threads inherit the mask, so
	 * the go signal cannot land on a worker and kill the process.
	 */
	sigemptyset(&go);
	sigaddset(&go, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &go, NULL);
	tids = calloc(cfg.threads, sizeof(*tids));
	if (!tids)
		return 1;
	inner_ns = measure_inner();
	pthread_barrier_init(&start_line, NULL, (unsigned)cfg.threads + 1);
	for (round = 0; round < cfg.rounds; round++) {
		for (n = 0; n < cfg.threads; n++)
			if (pthread_create(&tids[n], NULL, worker,
					   (void *)(uintptr_t)((round * cfg.threads + n) << 32))) {
				fprintf(stderr, "orbit-stress: cannot create thread %lu\n", n);
				return 1;
			}
		if (round == 0 && wait_go) {
			int sig;

			printf("ready %d\n", (int)getpid());
			fflush(stdout);
			sigwait(&go, &sig);
		}
		if (round == 0)
			t0 = now_ns();
		pthread_barrier_wait(&start_line);
		for (n = 0; n < cfg.threads; n++)
			pthread_join(tids[n], NULL);
	}
	t1 = now_ns();
	n = cfg.rounds * cfg.threads * cfg.calls;
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"threads\": %lu, \"hz\": %lu, \"calls\": %lu, \"rounds\": %lu, "
	       "\"expected\": {\"outer\": %lu, \"middle\": %lu, \"inner\": %lu}, "
	       "\"work_ns\": %llu, \"inner_ns\": %llu, \"cpu_ns\": %llu}\n",
	       cfg.threads, cfg.hz, cfg.calls, cfg.rounds, n, 2 * n, 6 * n,
	       (unsigned long long)(t1 - t0), (unsigned long long)inner_ns,
	       (unsigned long long)((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
				    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull));
	free(tids);
	return 0;
}
