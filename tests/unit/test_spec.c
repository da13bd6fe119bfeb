/*
 * -f lists that once read past their buffer or armed nothing, through
 * the whole selection of a real program (the fixture): under the
 * sanitizers (make check's second pass) an overread is a crash here.
 * tests/fuzz/fuzz_spec.c searches for more.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbols/select.h"
#include "lib/util/error.h"

#define PROG OT_FIXTURE_DIR "/fixture-pie"

static struct ot_elf *prog;

static int no_library(void *ctx, const char *name, char **path, char **file)
{
	(void)ctx, (void)name, (void)path, (void)file;
	return -ENOENT;
}

static int setup(void **state)
{
	(void)state;
	ot_error_set_verbosity(-2);
	return ot_elf_open(PROG, "fixture", &prog);
}

static int teardown(void **state)
{
	(void)state;
	ot_elf_close(prog);
	return 0;
}

/* spec through ot_binset_select: its result, 0 or -errno. */
static int select_spec(const char *spec, size_t *n)
{
	struct ot_binset *b = ot_binset_new(prog, PROG, "fixture", no_library, NULL);
	struct ot_selection sel;
	int ret = ot_binset_select(b, spec, &sel);

	*n = ret ? 0 : sel.n;
	if (!ret)
		ot_selection_free(&sel);
	ot_binset_free(b);
	return ret;
}

/* A term ending in ':' after "::" ("f:::") read past its end (issue 32). */
static void test_colons(void **state)
{
	static const char *const specs[] = {
		"fixture_alpha:::", ":::", "::", ":", "a::b::", "a:::b", "x.so:::", "/x:::",
		"fixture_alpha,:::", "!:::",
	};
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		(void)select_spec(specs[i], &n);	/* refused or not: read within bounds */
	assert_int_equal(select_spec("fixture_alpha", &n), 0);
	assert_int_equal(n, 1);
}

/* A list that cannot select anything is known before any file is read. */
static void test_includes(void **state)
{
	static const char *const none[] = {
		"", ",,,", "!", "!*", "!fixture_alpha", " , ", "libc.so.6:", "(arg1)", "%ret",
		"!a,!b", "libc.so.6:(arg1)",
	};
	static const char *const some[] = {
		"fixture_alpha", "!x,f*", "usdt:f:p:n", "libc.so.6:malloc", "a::b", "f:::",
		"x(arg1)%ret", "libc.so.6:,y",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		assert_false(ot_select_includes(none[i]));
	for (i = 0; i < sizeof(some) / sizeof(some[0]); i++)
		assert_true(ot_select_includes(some[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colons),
		cmocka_unit_test(test_includes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
