/*
 * From TSC ticks to nanoseconds (lib/rings/tsc) on synthetic samples: a clock
 * whose rate drifts and whose samples jitter.  The map never runs
 * backwards, meets the clock again after each sample, and a real sample
 * of this machine's clocks gives a slope once two are taken.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "lib/rings/tsc.h"

/* The true clock: 2.5 ticks per ns, drifting by 50 ppm over the run. */
static uint64_t true_ns(uint64_t ticks)
{
	double t = (double)ticks;

	return (uint64_t)(t / 2.5 * (1.0 + 5e-5 * t / 2.5e10));
}

static void test_drift_and_jitter(void **state)
{
	struct ot_tsc c;
	uint64_t ticks, prev = 0, worst = 0;
	int k;

	(void)state;
	ot_tsc_init(&c);
	assert_false(ot_tsc_ready(&c));
	srand(7);
	/* A sample every 100 ms of ticks for 10 s, each 0..200 ns off. */
	for (k = 0, ticks = 1000000; k <= 100; k++, ticks += 250000000ull) {
		uint64_t t, at;

		ot_tsc_add(&c, ticks, true_ns(ticks) + (uint64_t)(rand() % 200));
		if (k)
			assert_true(ot_tsc_ready(&c));
		/* Between this sample and the next: increasing, close to the clock. */
		for (t = ticks; k && t < ticks + 250000000ull; t += 1000003) {
			at = ot_tsc_ns(&c, t);
			assert_true(at >= prev);
			prev = at;
			if (k > 10) {
				uint64_t d = at > true_ns(t) ? at - true_ns(t) : true_ns(t) - at;

				if (d > worst)
					worst = d;
			}
		}
	}
	/* Within 5 us of the drifting clock once a second of samples is in. */
	print_message("worst %llu ns\n", (unsigned long long)worst);
	assert_true(worst < 5000);
	/* A tick count before the latest piece converts on the previous one. */
	assert_true(ot_tsc_ns(&c, ticks - 300000000ull) < ot_tsc_ns(&c, ticks - 200000000ull));
}

static void test_real_clocks(void **state)
{
	struct ot_tsc c;
	uint64_t t1, n1, t2, n2;

	(void)state;
	ot_tsc_init(&c);
	ot_tsc_sample(&t1, &n1);
	ot_tsc_add(&c, t1, n1);
	do
		ot_tsc_sample(&t2, &n2);
	while (n2 - n1 < 2000000);
	ot_tsc_add(&c, t2, n2);
	assert_true(ot_tsc_ready(&c));
	assert_true(ot_tsc_ns(&c, t2) >= ot_tsc_ns(&c, t1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drift_and_jitter),
		cmocka_unit_test(test_real_clocks),
	};

	return cmocka_run_group_tests_name("tsc", tests, NULL, NULL);
}
