/*
 * clock.h - the one clock orbit-trace times with: CLOCK_MONOTONIC, the
 * clock the probes' samples carry (lib/probes/probes sets use_clockid), so that
 * the drain can compare them with now.
 */
#ifndef OT_CLOCK_H
#define OT_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ot_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
