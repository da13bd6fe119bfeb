/*
 * Whether a process switches stacks (lib/symbols/switches), from real
 * files: tests/e2e/targets' usecoro (swapcontext only in libcoro.so),
 * altstack (sigaltstack, _setjmp and _longjmp), asyncjmp (sigsetjmp and
 * siglongjmp, no alternate stack: no switch), fibers (swapcontext in the
 * program) and the fixture (nothing).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/symbols/switches.h"

#define TARGETS OT_FIXTURE_DIR "/../../build/targets"

static int process(const char *const *paths, size_t n, char *why, size_t len)
{
	return ot_switch_process(paths, paths, n, why, len);
}

static void test_files(void **state)
{
	struct ot_switch_file f;

	(void)state;
	assert_int_equal(ot_switch_scan(TARGETS "/usecoro", 1, &f), 0);
	assert_null(f.call);
	assert_int_equal(ot_switch_scan(TARGETS "/libcoro.so", 0, &f), 0);
	assert_string_equal(f.call, "swapcontext");
	assert_int_equal(ot_switch_scan(TARGETS "/altstack", 1, &f), 0);
	assert_null(f.call);
	assert_true(f.altstack && f.setjmp && f.longjmp);
	assert_int_equal(ot_switch_scan(TARGETS "/asyncjmp", 1, &f), 0);
	assert_true(!f.altstack && f.setjmp && f.longjmp);
	assert_int_equal(ot_switch_scan(OT_FIXTURE_DIR "/fixture-pie", 1, &f), 0);
	assert_true(!f.call && !f.altstack && !f.setjmp && !f.longjmp);
	assert_int_equal(ot_switch_scan(OT_FIXTURE_DIR "/no-such-file", 1, &f), -ENOENT);
	assert_int_equal(ot_switch_scan(OT_FIXTURE_DIR "/../../Makefile", 1, &f), -ENOEXEC);
}

static void test_process(void **state)
{
	const char *coro[] = { TARGETS "/usecoro", TARGETS "/libcoro.so" };
	const char *alt[] = { TARGETS "/altstack" };
	const char *none[] = { TARGETS "/asyncjmp", OT_FIXTURE_DIR "/fixture-pie" };
	/* sigaltstack in one file and the jumps in others: the process has
	 * all three. */
	const char *spread[] = { NULL, TARGETS "/altstack", TARGETS "/asyncjmp" };
	char why[256];

	(void)state;
	assert_int_equal(process(coro, 1, why, sizeof(why)), 0);
	assert_int_equal(process(coro, 2, why, sizeof(why)), 1);
	assert_string_equal(why, "swapcontext, in " TARGETS "/libcoro.so");
	assert_int_equal(process(alt, 1, why, sizeof(why)), 1);
	assert_string_equal(why, "sigaltstack, setjmp and longjmp, in " TARGETS "/altstack");
	assert_int_equal(process(none, 2, why, sizeof(why)), 0);
	assert_int_equal(process(spread, 3, why, sizeof(why)), 1);
	assert_string_equal(why, "sigaltstack, setjmp and longjmp, in " TARGETS "/altstack");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_process),
	};

	return cmocka_run_group_tests_name("switches", tests, NULL, NULL);
}
