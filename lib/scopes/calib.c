/*
 * calib.c - --compensate's measurement of what a probe hit costs (calib.h):
 * the thread that calls ot_calib_target in bursts, and the statistics of its
 * scopes.
 */
#include "calib.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The untraced timing: batches of calls, their median. */
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


static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t ot_calib_empty_ns(void)
{
	uint64_t t[BATCHES];
	int b, i;

	for (b = 0; b < BATCHES; b++) {
		uint64_t t0 = ot_now_ns();

		for (i = 0; i < CALLS; i++)
			ot_calib_target();
		t[b] = ot_now_ns() - t0;
	}
	qsort(t, BATCHES, sizeof(*t), cmp_u64);
	return t[BATCHES / 2] / CALLS;
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
		t0 = ot_now_ns();
		for (i = 0; i < OT_CALIB_LIVE_CALLS; i++)
			ot_calib_target();
		t0 = (ot_now_ns() - t0) / OT_CALIB_LIVE_CALLS;
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

int ot_calib_update(struct ot_calib *cal, const struct ot_func_stats *st,
		    struct ot_calib_live *live)
{
	size_t bursts;
	uint64_t call_ns = ot_calib_live_call_ns(live, &bursts);

	if (st->scopes < 4 * OT_CALIB_LIVE_CALLS || bursts < 4)
		return 0;
	cal->own_ns = ot_hist_quantile(&st->hist, 0.5);
	cal->pair_ns = call_ns > cal->empty_ns ? call_ns - cal->empty_ns : 0;
	/*
	 * Both figures measure one call's probes, own_ns only the part inside
	 * its scope, so it cannot be the larger; two medians taken apart can
	 * say otherwise where the two are close (the trap dominating both, as
	 * on VMs with a 5 us trap): the scope then carries the whole pair.
	 */
	if (cal->own_ns > cal->pair_ns)
		cal->own_ns = cal->pair_ns;
	cal->live_calls = st->scopes;
	return 1;
}
