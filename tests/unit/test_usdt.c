/*
 * USDT notes and their argument specs (lib/symbols/usdt): every x86-64
 * operand form, each taken from a real note (Debian 12's libstdc++.so.6
 * and python3.11, and tests/e2e/targets/usdt.c built by gcc), and the
 * notes of those files read as readelf -n shows them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "skip_ci.h"

#include "lib/symbols/select.h"
#include "lib/symbols/usdt.h"

#include <stdio.h>
#include <stdlib.h>

#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
/* The targets are always the plain build's (build/targets). */
#define OT_TARGETS_DIR OT_FIXTURE_DIR "/../../build/targets"

static struct ot_usdt_arg parse_ok(const char *spec)
{
	struct ot_usdt_arg a;
	char why[256] = "";

	if (ot_usdt_arg_parse(spec, &a, why, sizeof(why)))
		fail_msg("%s: %s", spec, why);
	return a;
}

static void test_register(void **state)
{
	struct ot_usdt_arg a;

	(void)state;
	a = parse_ok("8@%rdi");		/* libstdc++ throw */
	assert_int_equal(a.kind, OT_USDT_ARG_REG);
	assert_int_equal(a.reg, 5);
	assert_int_equal(a.size, 8);
	assert_false(a.is_signed);
	a = parse_ok("-8@%r12");	/* python gc__done */
	assert_int_equal(a.reg, 20);
	assert_true(a.is_signed);
	a = parse_ok("-4@%ebp");	/* python line */
	assert_int_equal(a.reg, 6);
	assert_int_equal(a.size, 4);
	a = parse_ok("-4@%eax");	/* usdt forms */
	assert_int_equal(a.reg, 0);
	a = parse_ok("-1@%sil");	/* usdt forms */
	assert_int_equal(a.reg, 4);
	assert_int_equal(a.size, 1);
	a = parse_ok("2@%r9w");
	assert_int_equal(a.reg, 17);
	assert_int_equal(a.size, 2);
	a = parse_ok("1@%ah");
	assert_int_equal(a.reg, 0);
	assert_int_equal(a.shift, 8);
	a = parse_ok("8@%eax");		/* a 32-bit name reads 4 bytes whatever the size */
	assert_int_equal(a.size, 4);
	a = parse_ok("%rbx");		/* no size: 8 bytes, unsigned */
	assert_int_equal(a.reg, 1);
	assert_int_equal(a.size, 8);
	assert_false(a.is_signed);
}

static void test_memory(void **state)
{
	struct ot_usdt_arg a;

	(void)state;
	a = parse_ok("-4@112(%rsp)");	/* python gc__start */
	assert_int_equal(a.kind, OT_USDT_ARG_MEM);
	assert_int_equal(a.reg, 7);
	assert_int_equal(a.off, 112);
	assert_int_equal(a.idx, -1);
	assert_int_equal(a.size, 4);
	assert_true(a.is_signed);
	a = parse_ok("8@-80(%rbx)");	/* libstdc++ catch */
	assert_int_equal(a.reg, 1);
	assert_int_equal(a.off, -80);
	a = parse_ok("-4@-4(%rsp)");	/* usdt forms */
	assert_int_equal(a.off, -4);
	a = parse_ok("8@(%rax)");
	assert_int_equal(a.off, 0);
	assert_int_equal(a.reg, 0);
}

static void test_index(void **state)
{
	struct ot_usdt_arg a;

	(void)state;
	a = parse_ok("-8@(%rdx,%rcx,8)");	/* usdt forms */
	assert_int_equal(a.kind, OT_USDT_ARG_MEM);
	assert_int_equal(a.reg, 3);
	assert_int_equal(a.idx, 2);
	assert_int_equal(a.scale, 8);
	assert_int_equal(a.off, 0);
	a = parse_ok("8@-8(%rbp,%rax,8)");
	assert_int_equal(a.reg, 6);
	assert_int_equal(a.idx, 0);
	assert_int_equal(a.off, -8);
	a = parse_ok("4@(%rdi,%rsi)");
	assert_int_equal(a.scale, 1);
	a = parse_ok("4@16(,%rsi,4)");
	assert_int_equal(a.reg, -1);
	assert_int_equal(a.idx, 4);
	assert_int_equal(a.scale, 4);
}

static void test_constant_and_rip(void **state)
{
	struct ot_usdt_arg a;

	(void)state;
	a = parse_ok("-4@$5");		/* usdt forms */
	assert_int_equal(a.kind, OT_USDT_ARG_CONST);
	assert_int_equal(a.off, 5);
	assert_int_equal(a.size, 4);
	a = parse_ok("$-7");
	assert_int_equal(a.off, -7);
	assert_int_equal(a.size, 8);
	a = parse_ok("-8@level(%rip)");	/* usdt forms */
	assert_int_equal(a.kind, OT_USDT_ARG_RIP);
	assert_string_equal(a.sym, "level");
	assert_int_equal(a.off, 0);
	assert_int_equal(a.reg, -1);
	a = parse_ok("8@foo+8(%rip)");
	assert_string_equal(a.sym, "foo");
	assert_int_equal(a.off, 8);
	a = parse_ok("4@_ZN3fooE-16(%rip)");
	assert_string_equal(a.sym, "_ZN3fooE");
	assert_int_equal(a.off, -16);
	a = parse_ok("8@24(%rip)");
	assert_string_equal(a.sym, "");
	assert_int_equal(a.off, 24);
}

static void test_refusals(void **state)
{
	static const struct {
		const char *spec, *why;
	} bad[] = {
		{ "3@%rax", "'3@%rax': the size before '@' is not 1, 2, 4 or 8 (negative: signed)" },
		{ "8@%xmm0", "'8@%xmm0': unknown register" },
		{ "8@%rip", "'8@%rip': unknown register" },
		{ "8@(%rax,%rbx,3)", "malformed memory operand in '8@(%rax,%rbx,3)'" },
		{ "8@4(%foo)", "unknown register in '%foo)' in '8@4(%foo)'" },
		{ "8@rax", "'8@rax': not an x86-64 operand (N@%reg, N@off(%reg), "
			   "N@off(%reg,%idx,scale), N@$const, N@sym(%rip))" },
		{ "8@$", "'8@$': not an x86-64 operand (N@%reg, N@off(%reg), "
			 "N@off(%reg,%idx,scale), N@$const, N@sym(%rip))" },
	};
	struct ot_usdt_arg a;
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		why[0] = 0;
		assert_int_equal(ot_usdt_arg_parse(bad[i].spec, &a, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, bad[i].why);
	}
}

static void test_args_string(void **state)
{
	struct ot_usdt_arg a[OT_USDT_MAX_ARGS];
	char why[256];

	(void)state;
	assert_int_equal(ot_usdt_args_parse("-4@$5 -4@%eax -4@-4(%rsp) -8@(%rdx,%rcx,8) "
					    "-8@level(%rip) -1@%sil", a, OT_USDT_MAX_ARGS,
					    why, sizeof(why)), 6);
	assert_int_equal(a[3].kind, OT_USDT_ARG_MEM);
	assert_int_equal(a[5].size, 1);
	assert_int_equal(ot_usdt_args_parse("", a, OT_USDT_MAX_ARGS, why, sizeof(why)), 0);
	assert_int_equal(ot_usdt_args_parse("8@%rdi 8@%rsi", a, 1, why, sizeof(why)), -E2BIG);
}

static const struct ot_usdt_probe *find(const struct ot_usdt_notes *n, const char *prov,
					const char *name)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		if (!strcmp(n->probe[i].provider, prov) && !strcmp(n->probe[i].name, name))
			return &n->probe[i];
	fail_msg("no %s:%s", prov, name);
	return NULL;
}

/* readelf -n of Debian 12's libstdc++.so.6 (6.0.30): three probes, their
 * pc and base equal (no prelink), no semaphores. */
static void test_libstdcxx(void **state)
{
	struct ot_usdt_notes n;
	const struct ot_usdt_probe *p;

	(void)state;
	if (access(LIBSTDCXX, R_OK))
		ot_skip(LIBSTDCXX " is missing");
	assert_int_equal(ot_usdt_read(LIBSTDCXX, &n), 0);
	assert_int_equal(n.n, 3);
	p = find(&n, "libstdcxx", "throw");
	assert_int_equal(p->nsites, 1);
	assert_int_equal(p->sema_vaddr, 0);
	assert_string_equal(p->sites[0].args, "8@%rdi 8@%rsi");
	/* Its text segment's offset and address are equal in this file. */
	assert_int_equal(p->sites[0].offset, p->sites[0].vaddr);
	p = find(&n, "libstdcxx", "catch");
	assert_string_equal(p->sites[0].args, "8@%rdx 8@-80(%rbx)");
	find(&n, "libstdcxx", "rethrow");
	ot_usdt_free(&n);
}

/* readelf -n and -l of Debian 12's python3.11, a non-PIE program: 8
 * probes, each with a semaphore in its RW segment (file offset = address -
 * 0x401000 there, - 0x400000 in its text). */
static void test_python(void **state)
{
	struct ot_usdt_notes n;
	const struct ot_usdt_probe *p;

	(void)state;
	if (access("/usr/bin/python3.11", R_OK))
		ot_skip("/usr/bin/python3.11 is missing");
	assert_int_equal(ot_usdt_read("/usr/bin/python3.11", &n), 0);
	assert_int_equal(n.n, 8);
	p = find(&n, "python", "gc__start");
	assert_int_equal(p->sites[0].vaddr, 0x4287f3);
	assert_int_equal(p->sites[0].offset, 0x287f3);
	assert_int_equal(p->sema_vaddr, 0xa8426e);
	assert_int_equal(p->sema_offset, 0x68326e);
	assert_string_equal(p->sites[0].args, "-4@112(%rsp)");
	p = find(&n, "python", "function__entry");
	assert_string_equal(p->sites[0].args, "8@%rbp 8@%r12 -4@%eax");
	assert_int_equal(p->sema_vaddr - p->sema_offset, 0x401000);
	ot_usdt_free(&n);
}

/* tests/e2e/targets/usdt: three sites of ot:site sharing a semaphore,
 * whose file offset is in the data segment, not its address. */
static void test_own_target(void **state)
{
	struct ot_usdt_notes n;
	const struct ot_usdt_probe *p;
	size_t k;

	(void)state;
	assert_int_equal(ot_usdt_read(OT_TARGETS_DIR "/usdt", &n), 0);
	assert_int_equal(n.n, 3);
	p = find(&n, "ot", "site");
	assert_int_equal(p->nsites, 3);
	assert_int_not_equal(p->sema_vaddr, 0);
	/* PIE data: one page between address and offset. */
	assert_int_equal(p->sema_vaddr - p->sema_offset, 0x1000);
	for (k = 0; k < p->nsites; k++) {
		assert_string_equal(p->sites[k].args, "-4@$7");
		assert_int_equal(p->sites[k].offset, p->sites[k].vaddr);
	}
	p = find(&n, "ot", "forms");
	assert_string_equal(p->sites[0].args,
			    "-4@$5 -4@%eax -4@-4(%rsp) -8@(%rdx,%rcx,8) -8@level(%rip) -1@%sil");
	p = find(&n, "ot", "tick");
	assert_string_equal(p->sites[0].args, "-8@%rbx");
	ot_usdt_free(&n);
	/* A file without notes has no probes; one that is not ELF, an error. */
	assert_int_equal(ot_usdt_read("/proc/self/exe", &n), 0);
	assert_int_equal(n.n, 0);
	assert_int_equal(ot_usdt_read("/etc/passwd", &n), -ENOEXEC);
	assert_int_equal(ot_usdt_read("/nonexistent", &n), -ENOENT);
}

/* Random operands: refused or parsed, never past a buffer (the sanitized
 * build checks), and a parsed one always has a kind and a valid size. */
static void test_random_specs(void **state)
{
	static const char alphabet[] = "0123456789-+@$%(),:abcdeilprsx ";
	struct ot_usdt_arg a[OT_USDT_MAX_ARGS];
	char spec[48], why[256];
	unsigned seed = 7, i, k;
	int n, j;

	(void)state;
	for (i = 0; i < 200000; i++) {
		unsigned len = (unsigned)rand_r(&seed) % (sizeof(spec) - 1);

		for (k = 0; k < len; k++)
			spec[k] = alphabet[(unsigned)rand_r(&seed) % (sizeof(alphabet) - 1)];
		spec[len] = 0;
		n = ot_usdt_args_parse(spec, a, OT_USDT_MAX_ARGS, why, sizeof(why));
		for (j = 0; j < n; j++) {
			assert_true(a[j].kind >= OT_USDT_ARG_REG && a[j].kind <= OT_USDT_ARG_RIP);
			assert_true(a[j].size == 1 || a[j].size == 2 || a[j].size == 4 ||
				    a[j].size == 8);
		}
	}
}

/* libusdtlib.so by name, as -- CMD's resolver finds it. */
static int find_lib(void *ctx, const char *name, char **path, char **file)
{
	(void)ctx;
	if (strcmp(name, "libusdtlib.so"))
		return -ENOENT;
	*path = strdup(OT_TARGETS_DIR "/libusdtlib.so");
	*file = strdup(*path);
	return 0;
}

/* usdt: terms beside functions: probes after the functions, named as the
 * report names them, one entry for a probe named twice (with the argument
 * either asks), "!usdt:" excluding after the inclusions. */
static void test_select(void **state)
{
	struct ot_selection sel;
	struct ot_binset *b;
	struct ot_elf *e;

	(void)state;
	assert_int_equal(ot_elf_open(OT_TARGETS_DIR "/usdt", "usdt", &e), 0);
	b = ot_binset_new(e, OT_TARGETS_DIR "/usdt", "usdt", find_lib, NULL);
	assert_int_equal(ot_binset_select(b, "usdt:usdt:ot:*,main,usdt:usdt:tick(arg1),"
					  "usdt:libusdtlib.so:otlib:work(arg1),!usdt:usdt:ot:for*",
					  &sel), 0);
	assert_int_equal(sel.n, 4);
	assert_null(sel.fn[0].usdt);
	assert_string_equal(sel.fn[0].name, "main");
	assert_string_equal(sel.fn[1].name, "usdt:ot:site");
	assert_int_equal(sel.fn[1].usdt->nsites, 3);
	assert_int_equal(sel.fn[1].arg, 0);
	assert_string_equal(sel.fn[2].name, "usdt:ot:tick");
	assert_int_equal(sel.fn[2].arg, 1);
	assert_string_equal(sel.fn[2].label, "usdt:usdt:ot:tick");
	assert_string_equal(sel.fn[3].name, "usdt:libusdtlib.so:otlib:work");
	assert_false(sel.fn[3].bin->is_main);
	ot_selection_free(&sel);
	assert_int_equal(ot_binset_select(b, "usdt:usdt:ot:tock", &sel), -ENOENT);
	assert_int_equal(ot_binset_select(b, "usdt:usdt", &sel), -ENOENT);
	assert_int_equal(ot_binset_select(b, "usdt:usdt:ot:tick(arg13)", &sel), -ENOENT);
	assert_int_equal(ot_binset_select(b, "usdt:usdt:ot:*,!usdt:usdt:*", &sel), -ENOENT);
	assert_int_equal(ot_binset_select(b, "usdt:libnope.so:x", &sel), -ENOEXEC);
	assert_true(ot_select_asks_usdt("main,usdt:a:b"));
	assert_false(ot_select_asks_usdt("main,!usdt:a:b"));
	assert_false(ot_select_asks_values("usdt:a:b(arg1)"));
	assert_false(ot_select_asks_values("usdt:a:b(arg1:str),usdt:a:b..c@arg2:str"));
	/* A pair: two probes, each with its role and the key argument. */
	assert_int_equal(ot_binset_select(b, "usdt:usdt:ot:tick..site@arg1:str,"
					  "usdt:usdt:ot:forms(arg2:str)", &sel), 0);
	assert_int_equal(sel.n, 3);
	assert_string_equal(sel.fn[0].name, "usdt:ot:tick");
	assert_int_equal(sel.fn[0].pair, OT_SEL_PAIR_ENTRY);
	assert_string_equal(sel.fn[1].name, "usdt:ot:site");
	assert_int_equal(sel.fn[1].pair, OT_SEL_PAIR_RETURN);
	assert_int_equal(sel.fn[0].pair_id, 1);
	assert_int_equal(sel.fn[1].pair_id, 1);
	assert_true(sel.fn[0].arg == 1 && sel.fn[1].arg == 1 && sel.fn[0].str && sel.fn[1].str);
	assert_string_equal(sel.fn[2].name, "usdt:ot:forms");
	assert_true(sel.fn[2].arg == 2 && sel.fn[2].str && !sel.fn[2].pair);
	ot_selection_free(&sel);
	assert_int_equal(ot_binset_select(b, "usdt:usdt:ot:tick..site", &sel), -ENOENT);
	assert_int_equal(ot_binset_select(b, "usdt:usdt:ot:tick..site@arg1:int", &sel), -ENOENT);
	assert_int_equal(ot_binset_select(b, "usdt:usdt:ot:*..site@arg1", &sel), -ENOENT);
	assert_int_equal(ot_binset_select(b, "usdt:usdt:ot:tick..nope@arg1", &sel), -ENOENT);
	assert_int_equal(ot_binset_select(b, "!usdt:usdt:ot:tick..site@arg1", &sel), -ENOENT);
	assert_int_equal(ot_binset_select(b, "usdt:usdt:ot:tick..tick@arg1", &sel), -ENOENT);
	assert_int_equal(ot_binset_select(b, "usdt:usdt:ot:tic?..t?ck@arg1", &sel), -ENOENT);
	ot_binset_free(b);
	ot_elf_close(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_constant_and_rip),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_args_string),
		cmocka_unit_test(test_libstdcxx),
		cmocka_unit_test(test_python),
		cmocka_unit_test(test_own_target),
		cmocka_unit_test(test_random_specs),
		cmocka_unit_test(test_select),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
