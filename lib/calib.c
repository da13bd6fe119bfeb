#include "calib.h"
#include "drain.h"
#include "elfsym.h"
#include "error.h"
#include "pair.h"
#include "retsite.h"
#include "uprobe.h"
#include "xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 7
#define CALLS 3000

static volatile unsigned calib_sink;

/*
 * Next to nothing, but not a lone `ret`: its entry and return instruction
 * must be different addresses, as in any real function, or one trap would
 * serve both probes.
 */
__attribute__((noinline, used)) void ot_calib_target(void)
{
	calib_sink++;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* In the child: on each go byte, time BATCHES x CALLS calls, send the ns. */
static void child(int go, int res)
{
	uint64_t t[BATCHES];
	char c;
	int b, i;

	while (read(go, &c, 1) == 1) {
		for (b = 0; b < BATCHES; b++) {
			uint64_t t0 = now_ns();

			for (i = 0; i < CALLS; i++)
				ot_calib_target();
			t[b] = now_ns() - t0;
		}
		if (write(res, t, sizeof(t)) != sizeof(t))
			_exit(1);
	}
	_exit(0);
}

/* Median ns per call of one round of batches, or 0 on failure. */
static uint64_t round_ns(int go, int res)
{
	uint64_t t[BATCHES];

	if (write(go, "g", 1) != 1 || read(res, t, sizeof(t)) != sizeof(t))
		return 0;
	qsort(t, BATCHES, sizeof(*t), cmp_u64);
	return t[BATCHES / 2] / CALLS;
}

static void feed(void *ctx, const struct ot_event *ev)
{
	ot_pair_feed(ctx, ev);
}

int ot_calib_probe(int ret_insn, struct ot_probe_target *pt)
{
	struct ot_selection sel = { 0 };
	struct ot_elf *elf = NULL;
	uint64_t *sites = NULL;
	int ret = 0, tail;

	memset(pt, 0, sizeof(*pt));
	pt->path = "/proc/self/exe";
	pt->label = "orbit-trace:ot_calib_target";
	if (ot_elf_open("/proc/self/exe", "orbit-trace", &elf) ||
	    ot_elf_select(elf, "ot_calib_target", &sel)) {
		ot_error("cannot calibrate: orbit-trace's own ot_calib_target is not found");
		ot_elf_close(elf);
		return -ENOENT;
	}
	pt->offset = sel.fn[0].sym->offset;
	if (ret_insn) {
		int n = ot_ret_sites(pt->path, pt->offset, sel.fn[0].sym->size, &sites, &tail);

		if (n <= 0) {
			ot_error("cannot calibrate: no return instruction in ot_calib_target");
			free(sites);
			ret = -ENOENT;
		} else {
			pt->ret_sites = sites;
			pt->nret_sites = (size_t)n;
		}
	}
	ot_selection_free(&sel);
	ot_elf_close(elf);
	return ret;
}

int ot_calibrate(int ret_insn, enum ot_backend backend, struct ot_calib *out)
{
	struct ot_probes_opts po = { .ring_kb = 4096, .backend = backend };
	struct ot_probe_target pt;
	struct ot_probes *probes = NULL;
	struct ot_drain *drain = NULL;
	struct ot_pair *pair = NULL;
	uint64_t traced;
	int go[2], res[2], ret = -EIO;
	pid_t pid;
	unsigned i;

	memset(out, 0, sizeof(*out));
	if (ot_calib_probe(ret_insn, &pt))
		return -ENOENT;
	if (pipe(go) || pipe(res)) {
		ot_error_errno(errno, "cannot calibrate");
		goto out_elf;
	}
	pid = fork();
	if (pid < 0) {
		ot_error_errno(errno, "cannot calibrate: fork");
		goto out_pipes;
	}
	if (!pid) {
		close(go[1]);
		close(res[0]);
		child(go[0], res[1]);
	}
	out->empty_ns = round_ns(go[1], res[0]);
	po.pid = (int)pid;
	if (ot_probes_arm(&pt, 1, &po, &probes))
		goto out_child;
	pair = ot_pair_new(1);
	drain = ot_drain_new(ot_probes_ncpus(probes), (uint32_t)pid, ot_probes_lookup,
			     probes, feed, pair);
	if (ot_probes_enable(probes))
		goto out_child;
	traced = round_ns(go[1], res[0]);
	ot_probes_disable(probes);
	for (i = 0; i < ot_probes_ncpus(probes); i++)
		ot_drain_ring(drain, i, ot_probes_ring(probes, i));
	ot_drain_flush(drain, UINT64_MAX);
	ot_pair_finish(pair);
	if (!traced || ot_pair_stats(pair, 0)->scopes < BATCHES * CALLS / 2 ||
	    ot_drain_stats(drain)->lost) {
		ot_error("cannot calibrate: %llu of %d calls seen, %llu records lost",
			 (unsigned long long)ot_pair_stats(pair, 0)->scopes, BATCHES * CALLS,
			 (unsigned long long)ot_drain_stats(drain)->lost);
		goto out_child;
	}
	out->pair_ns = traced > out->empty_ns ? traced - out->empty_ns : 0;
	out->own_ns = ot_hist_quantile(&ot_pair_stats(pair, 0)->hist, 0.5);
	ret = 0;
out_child:
	close(go[1]);
	go[1] = -1;
	waitpid(pid, NULL, 0);
out_pipes:
	if (go[1] >= 0)
		close(go[1]);
	close(go[0]);
	close(res[0]);
	close(res[1]);
out_elf:
	ot_drain_free(drain);
	ot_pair_free(pair);
	ot_probes_close(probes);
	free((uint64_t *)pt.ret_sites);
	return ret;
}

/* Bursts kept for the median: the last OT_CALIB_LIVE_KEEP (a minute's). */
#define OT_CALIB_LIVE_KEEP 4096

struct ot_calib_live {
	pthread_t thread;
	pthread_mutex_t lock;
	int stop;
	uint64_t burst_ns[OT_CALIB_LIVE_KEEP];	/* ns per call, by burst */
	size_t nbursts;				/* bursts so far */
};

static void *live_main(void *arg)
{
	struct ot_calib_live *l = arg;
	struct timespec pause = { 0, OT_CALIB_LIVE_MS * 1000000L };

	for (;;) {
		struct rusage r0, r1;
		uint64_t t0;
		int i, stop;

		pthread_mutex_lock(&l->lock);
		stop = l->stop;
		pthread_mutex_unlock(&l->lock);
		if (stop)
			return NULL;
		/* Untimed first calls: after the pause the probe path is cold,
		 * and the target's calls, back to back, find it warm. */
		for (i = 0; i < OT_CALIB_LIVE_WARM; i++)
			ot_calib_target();
		getrusage(RUSAGE_THREAD, &r0);
		t0 = now_ns();
		for (i = 0; i < OT_CALIB_LIVE_CALLS; i++)
			ot_calib_target();
		t0 = (now_ns() - t0) / OT_CALIB_LIVE_CALLS;
		getrusage(RUSAGE_THREAD, &r1);
		/*
		 * A burst the scheduler cut into timed someone else's work too:
		 * with the target, the drain and this thread on two CPUs, that
		 * is common enough to move the median (14 us for 8.5 measured
		 * under ASan).  Only uninterrupted bursts count.
		 */
		if (r1.ru_nivcsw != r0.ru_nivcsw || r1.ru_nvcsw != r0.ru_nvcsw) {
			nanosleep(&pause, NULL);
			continue;
		}
		pthread_mutex_lock(&l->lock);
		l->burst_ns[l->nbursts++ % OT_CALIB_LIVE_KEEP] = t0;
		pthread_mutex_unlock(&l->lock);
		nanosleep(&pause, NULL);
	}
}

int ot_calib_live_start(struct ot_calib_live **out)
{
	struct ot_calib_live *l = ot_xcalloc(1, sizeof(*l));
	int err;

	pthread_mutex_init(&l->lock, NULL);
	err = pthread_create(&l->thread, NULL, live_main, l);
	if (err) {
		ot_error_errno(err, "cannot start the calibration thread");
		pthread_mutex_destroy(&l->lock);
		free(l);
		return -err;
	}
	*out = l;
	return 0;
}

uint64_t ot_calib_live_call_ns(struct ot_calib_live *l, size_t *bursts)
{
	uint64_t *v, q1;
	size_t n;

	pthread_mutex_lock(&l->lock);
	n = l->nbursts < OT_CALIB_LIVE_KEEP ? l->nbursts : OT_CALIB_LIVE_KEEP;
	v = ot_xcalloc(n + 1, sizeof(*v));
	memcpy(v, l->burst_ns, n * sizeof(*v));
	*bursts = l->nbursts;
	pthread_mutex_unlock(&l->lock);
	qsort(v, n, sizeof(*v), cmp_u64);
	q1 = n ? v[n / 4] : 0;
	free(v);
	return q1;
}

void ot_calib_live_stop(struct ot_calib_live *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = 1;
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	pthread_mutex_destroy(&l->lock);
	free(l);
}
