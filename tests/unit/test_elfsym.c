/*
 * Symbol lookup and uprobe offsets on ELF files the build makes, PIE and
 * non-PIE.  The expected offset comes from the fixture itself: run, it
 * reads its own mapping in /proc/self/maps, independently of libelf.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "skip_ci.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "lib/symbols/elfsym.h"
#include "lib/process/procfs.h"
#include "lib/symbols/select.h"
#include "lib/util/error.h"

static const char *const fixtures[] = {
	OT_FIXTURE_DIR "/fixture-pie",
	OT_FIXTURE_DIR "/fixture-nopie",
};

static uint64_t oracle_offset(const char *bin, const char *fn)
{
	char cmd[512];
	unsigned long long off = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s %s", bin, fn);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%llu", &off), 1);
	assert_int_equal(pclose(p), 0);
	return off;
}

static const struct ot_sym *find(const struct ot_elf *e, const char *name)
{
	size_t i;

	for (i = 0; i < ot_elf_nsyms(e); i++)
		if (!strcmp(ot_elf_sym(e, i)->name, name))
			return ot_elf_sym(e, i);
	return NULL;
}

static void test_offsets_match_loader(void **state)
{
	size_t k;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct ot_elf *e;
		const struct ot_sym *a, *b;

		assert_int_equal(ot_elf_open(fixtures[k], fixtures[k], &e), 0);
		assert_string_equal(ot_elf_source(e), "symtab");
		a = find(e, "fixture_alpha");
		b = find(e, "fixture_beta");
		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(a->offset, oracle_offset(fixtures[k], "fixture_alpha"));
		assert_int_equal(b->offset, oracle_offset(fixtures[k], "fixture_beta"));
		/* Non-PIE links at 0x400000, so address and offset differ there. */
		if (k == 1)
			assert_true(a->addr >= 0x400000 && a->offset < 0x400000);
		assert_null(find(e, "fixture_data")); /* STT_OBJECT is no function */
		assert_null(find(e, "printf"));	      /* undefined: imported */
		ot_elf_close(e);
	}
}

/* A data symbol's address, from nm: an oracle apart from libelf. */
static uint64_t nm_vaddr(const char *bin, const char *name)
{
	char cmd[512];
	unsigned long long v = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s | awk '$3 == \"%s\" { print $1 }'", bin, name);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%llx", &v), 1);
	assert_int_equal(pclose(p), 0);
	return v;
}

/*
 * A table of code pointers as the loaded program holds it: by the PIE's
 * RELATIVE relocations (RELA, or packed RELR), by the non-PIE file's
 * bytes; its length from its symbol; a writable one refused.
 */
static void test_code_table(void **state)
{
	static const char *const files[] = {
		OT_FIXTURE_DIR "/fixture-pie",
		OT_FIXTURE_DIR "/fixture-nopie",
		OT_FIXTURE_DIR "/fixture-relr",
	};
	size_t k;

	(void)state;
	for (k = 0; k < 3; k++) {
		uint64_t table = nm_vaddr(files[k], "fixture_table"), *ent;
		struct ot_elf *e;
		int bounded;

		assert_int_equal(ot_elf_open(files[k], files[k], &e), 0);
		assert_int_equal(ot_elf_code_table(e, files[k], table, &ent, &bounded), 3);
		assert_true(bounded);
		assert_int_equal(ent[0], find(e, "fixture_alpha")->offset);
		assert_int_equal(ent[1], find(e, "fixture_beta")->offset);
		assert_int_equal(ent[2], OT_TABLE_NONE);
		free(ent);
		/* From its second entry: to the end of the object. */
		assert_int_equal(ot_elf_code_table(e, files[k], table + 8, &ent, &bounded), 2);
		assert_int_equal(ent[0], find(e, "fixture_beta")->offset);
		free(ent);
		assert_int_equal(ot_elf_code_table(e, files[k], nm_vaddr(files[k], "fixture_hooks"),
						   &ent, &bounded), -EACCES);
		assert_null(ent);
		ot_elf_close(e);
	}
}

static void test_select_names_and_aliases(void **state)
{
	struct ot_selection s;
	struct ot_elf *e;

	(void)state;
	assert_int_equal(ot_elf_open(fixtures[0], "fixture", &e), 0);
	/* Two names at one address are armed once, the other kept as alias. */
	assert_int_equal(ot_elf_select(e, "fixture_beta,fixture_alpha,fixture_alias", &s), 0);
	assert_int_equal(s.requested, 3);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.fn[0].sym->name, "fixture_beta"); /* order of -f */
	assert_string_equal(s.fn[1].sym->name, "fixture_alpha");
	assert_string_equal(s.fn[1].aliases, "fixture_alias");
	ot_selection_free(&s);
	ot_elf_close(e);
}

static void test_select_globs_and_exclusions(void **state)
{
	struct ot_selection s;
	struct ot_elf *e;

	(void)state;
	assert_int_equal(ot_elf_open(fixtures[1], "fixture", &e), 0);
	assert_int_equal(ot_elf_select(e, "fixture_*,!fixture_al*", &s), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.fn[0].sym->name, "fixture_beta");
	ot_selection_free(&s);
	assert_int_equal(ot_elf_select(e, "fixture_*,!fixture_*", &s), -ENOENT);
	assert_int_equal(ot_elf_select(e, "nomatch_*", &s), -ENOENT);
	ot_elf_close(e);
}

/* 'NAME(argN)' and 'NAME%ret' cut off the name and say what to record. */
static void test_select_values(void **state)
{
	struct ot_selection s;
	struct ot_elf *e;

	(void)state;
	assert_int_equal(ot_elf_open(fixtures[0], "fixture", &e), 0);
	assert_int_equal(ot_elf_select(e, "fixture_beta(arg2)%ret:32,fixture_alpha%ret", &s), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.fn[0].sym->name, "fixture_beta");
	assert_int_equal(s.fn[0].arg, 2);
	assert_int_equal(s.fn[0].ret, OT_SEL_RET | OT_SEL_32);
	assert_string_equal(s.fn[1].sym->name, "fixture_alpha");
	assert_int_equal(s.fn[1].arg, 0);
	assert_int_equal(s.fn[1].ret, OT_SEL_RET);
	ot_selection_free(&s);
	assert_int_equal(ot_elf_select(e, "fixture_alpha(arg6:32)", &s), 0);
	assert_int_equal(s.fn[0].arg, 6 | OT_SEL_32);
	assert_int_equal(s.fn[0].ret, 0);
	ot_selection_free(&s);
	assert_int_equal(ot_elf_select(e, "fixture_alpha(arg7)", &s), -ENOENT);
	ot_elf_close(e);
	assert_true(ot_select_asks_values("a,b(arg1)"));
	assert_true(ot_select_asks_values("a%ret"));
	assert_true(ot_select_asks_values("f(arg9)"));
	assert_false(ot_select_asks_values("a,ns::f(int),g(char const*, long)"));
	/* A parameter's name asks (the backend that records none refuses it). */
	assert_true(ot_select_asks_values("g(argv_t)"));
	assert_true(ot_select_asks_values("g(req->len)"));
	assert_true(ot_select_asks_values("g(path:str)"));
	assert_false(ot_select_asks_values("b3*,!b3Mul*"));
}

/*
 * Values by DWARF name, several values per function and several terms
 * for one, one of them a string (:str), and the value specs refused
 * (issue 22, items 5 and 6): what the selection keeps.
 */
static void test_select_named_values(void **state)
{
	static const char *const bad[] = {
		"fixture_alpha(1)", "fixture_alpha(arg1:16)", "fixture_alpha(arg0)",
		"fixture_alpha(n:32)", "fixture_alpha(a->)", "fixture_alpha(->b)",
		"fixture_alpha%retx", "fixture_alpha%ret:16", "fixture_alpha(x:strx)",
		"fixture_alpha(arg1:32:str)", "fixture_alpha(x:str,arg2:str)",
		"fixture_alpha(x:str),fixture_alpha(arg2:str)",
		"fixture_alpha(a,b,c,d,e)", "fixture_alpha(a,b,c),fixture_alpha(d,e)",
		"fixture_alpha(a,b),fixture_alias(c,d,e)", "fixture_alpha(a,,b)",
	};
	struct ot_selection s;
	struct ot_elf *e;
	size_t i;

	(void)state;
	ot_error_set_verbosity(-2);
	assert_int_equal(ot_elf_open(fixtures[0], "fixture", &e), 0);
	assert_int_equal(ot_elf_select(e, "fixture_beta(req->len)%ret,fixture_alpha(flags)", &s), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.fn[0].arg_name, "req->len");
	assert_int_equal(s.fn[0].arg, 0);
	assert_int_equal(s.fn[0].ret, OT_SEL_RET);
	assert_string_equal(s.fn[1].arg_name, "flags");
	ot_selection_free(&s);
	/* Two terms for one function: both values, neither dropped. */
	assert_int_equal(ot_elf_select(e, "fixture_beta(arg1),fixture_beta%ret", &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.fn[0].arg, 1);
	assert_int_equal(s.fn[0].ret, OT_SEL_RET);
	ot_selection_free(&s);
	assert_int_equal(ot_elf_select(e, "fixture_beta%ret:32,fixture_*(n)", &s), 0);
	for (i = 0; i < s.n && strcmp(s.fn[i].sym->name, "fixture_beta"); i++)
		;
	assert_true(i < s.n);
	assert_string_equal(s.fn[i].arg_name, "n");
	assert_int_equal(s.fn[i].ret, OT_SEL_RET | OT_SEL_32);
	ot_selection_free(&s);
	/* Several values, by one term, by two, by aliases: all of them, in
	 * the order asked, each once. */
	assert_int_equal(ot_elf_select(e, "fixture_beta(arg1,n,arg3:32),fixture_beta(arg1,r->x)%ret",
				       &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.fn[0].arg, 1);
	assert_null(s.fn[0].arg_name);
	assert_int_equal(s.fn[0].nmore, 3);
	assert_string_equal(s.fn[0].more_name[0], "n");
	assert_int_equal(s.fn[0].more[1], 3 | OT_SEL_32);
	assert_null(s.fn[0].more_name[1]);
	assert_string_equal(s.fn[0].more_name[2], "r->x");
	assert_int_equal(s.fn[0].ret, OT_SEL_RET);
	ot_selection_free(&s);
	assert_int_equal(ot_elf_select(e, "fixture_alpha(n),fixture_alias(m)", &s), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.fn[0].arg_name, "n");
	assert_string_equal(s.fn[0].more_name[0], "m");
	ot_selection_free(&s);
	/* The same argument asked twice is one. */
	assert_int_equal(ot_elf_select(e, "fixture_beta(n),fixture_beta(n)%ret", &s), 0);
	assert_string_equal(s.fn[0].arg_name, "n");
	assert_int_equal(s.fn[0].nmore, 0);
	ot_selection_free(&s);
	/* A string (:str) is the first value wherever it was asked, the
	 * others in order after it; the same argument as an integer too. */
	assert_int_equal(ot_elf_select(e, "fixture_beta(n,path:str,arg3)%ret", &s), 0);
	assert_int_equal(s.fn[0].str, 1);
	assert_string_equal(s.fn[0].arg_name, "path");
	assert_int_equal(s.fn[0].nmore, 2);
	assert_string_equal(s.fn[0].more_name[0], "n");
	assert_int_equal(s.fn[0].more[1], 3);
	assert_int_equal(s.fn[0].ret, OT_SEL_RET);
	ot_selection_free(&s);
	assert_int_equal(ot_elf_select(e, "fixture_beta(arg2),fixture_beta(arg2:str)", &s), 0);
	assert_int_equal(s.fn[0].str, 1);
	assert_int_equal(s.fn[0].arg, 2);
	assert_null(s.fn[0].arg_name);
	assert_int_equal(s.fn[0].nmore, 1);
	assert_int_equal(s.fn[0].more[0], 2);
	ot_selection_free(&s);
	assert_int_equal(ot_elf_select(e, "fixture_beta(arg1)", &s), 0);
	assert_int_equal(s.fn[0].str, 0);
	ot_selection_free(&s);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (ot_elf_select(e, bad[i], &s) != -ENOENT)
			fail_msg("'%s' was taken", bad[i]);
	}
	ot_elf_close(e);
	ot_error_set_verbosity(0);
}

static void test_misspelt_name(void **state)
{
	struct ot_selection s;
	struct ot_elf *e;

	(void)state;
	assert_int_equal(ot_elf_open(fixtures[0], "fixture", &e), 0);
	assert_int_equal(ot_elf_select(e, "fixture_alpah", &s), -ENOENT);
	assert_int_equal(ot_elf_select(e, "fixture_data", &s), -ENOENT);
	assert_int_equal(ot_edit_distance("midle", "middle"), 1);
	assert_int_equal(ot_edit_distance("", "abc"), 3);
	assert_int_equal(ot_edit_distance("outer", "outer"), 0);
	ot_elf_close(e);
}

static void test_not_an_elf(void **state)
{
	char path[] = "/tmp/ot-notelf-XXXXXX";
	struct ot_elf *e;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\necho hi\n", 18), 18);
	close(fd);
	assert_int_equal(ot_elf_open(path, path, &e), -ENOEXEC);
	assert_null(e);
	assert_int_equal(ot_elf_open("/nonexistent/x", "x", &e), -ENOENT);
	unlink(path);
}

static void test_file_has_section(void **state)
{
	(void)state;
	assert_int_equal(ot_elf_file_has_section(fixtures[0], ".text"), 1);
	assert_int_equal(ot_elf_file_has_section(fixtures[0], ".no_such_section"), 0);
	assert_int_equal(ot_elf_file_has_section("/nonexistent/x", ".text"), -ENOENT);
}

/* This process's own vDSO, found by its symbol and called: the clock it
 * reads is CLOCK_MONOTONIC's. */
static void test_image_lookup(void **state)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), len = 0, off = 0;
	struct ot_proc_map *maps;
	size_t i, n;
	int (*gettime)(clockid_t, struct timespec *);
	struct timespec a, b, c;
	static const char junk[4096];

	(void)state;
	if (!base)
		ot_skip("no vDSO mapped");
	assert_int_equal(ot_proc_maps(getpid(), getpid(), &maps, &n), 0);
	for (i = 0; i < n; i++)
		if (!strcmp(maps[i].path, "[vdso]"))
			len = maps[i].hi - maps[i].lo;
	ot_proc_maps_free(maps, n);
	assert_true(len > 0);
	assert_int_equal(ot_elf_image_lookup((const void *)base, len, "__vdso_clock_gettime", &off),
			 0);
	gettime = (int (*)(clockid_t, struct timespec *))(base + off);
	assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &a), 0);
	assert_int_equal(gettime(CLOCK_MONOTONIC, &b), 0);
	assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &c), 0);
	assert_true(b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec));
	assert_true(c.tv_sec > b.tv_sec || (c.tv_sec == b.tv_sec && c.tv_nsec >= b.tv_nsec));
	assert_int_equal(ot_elf_image_lookup((const void *)base, len, "no_such_symbol", &off),
			 -ENOENT);
	assert_int_equal(ot_elf_image_lookup(junk, sizeof(junk), "x", &off), -ENOEXEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets_match_loader),
		cmocka_unit_test(test_code_table),
		cmocka_unit_test(test_select_names_and_aliases),
		cmocka_unit_test(test_select_globs_and_exclusions),
		cmocka_unit_test(test_select_values),
		cmocka_unit_test(test_select_named_values),
		cmocka_unit_test(test_misspelt_name),
		cmocka_unit_test(test_not_an_elf),
		cmocka_unit_test(test_file_has_section),
		cmocka_unit_test(test_image_lookup),
	};

	return cmocka_run_group_tests_name("elfsym", tests, NULL, NULL);
}
