/*
 * Go binaries (lib/symbols/gobin, and lib/symbols/elfsym over it), on the
 * Go program the build makes (tests/e2e/targets/gop.go) and its stripped
 * copy.  The truth is the Go linker's own .symtab: every function of
 * .gopclntab must be one of its symbols, at the same address, with the
 * same name (but the generic shapes Go 1.19's table elides as "[...]"
 * and the ".abi0" of assembly); the stripped copy's functions must be
 * .gopclntab's.  Then a table that lies (every header field and function
 * offset made wrong in turn) is refused with a reason, never read out of
 * bounds (ASan watches), and the stack check's form is found in code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/symbols/elfsym.h"
#include "lib/symbols/gobin.h"
#include "lib/symbols/retsite.h"
#include "lib/symbols/select.h"
#include "lib/util/error.h"

#define GOP OT_FIXTURE_DIR "/../../build/targets/gop"
#define GOP_STRIPPED OT_FIXTURE_DIR "/../../build/targets/gop-stripped"

static Elf *open_elf(const char *path, int *fd)
{
	Elf *e;

	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	*fd = open(path, O_RDONLY);
	assert_true(*fd >= 0);
	e = elf_begin(*fd, ELF_C_READ, NULL);
	assert_non_null(e);
	return e;
}

static const struct ot_sym *find(const struct ot_elf *e, const char *name)
{
	size_t i;

	for (i = 0; i < ot_elf_nsyms(e); i++)
		if (!strcmp(ot_elf_sym(e, i)->name, name))
			return ot_elf_sym(e, i);
	return NULL;
}

/* name as .symtab spells it, and as .gopclntab does: the same function. */
static int same_name(const char *symtab, const char *pcln)
{
	const char *a = symtab, *b = pcln;

	while (*a && *a == *b) {
		a++;
		b++;
	}
	if (!*a && !*b)
		return 1;
	if (!*b && !strcmp(a, ".abi0"))
		return 1;
	/* Go 1.19's table: "main.larger[...]" for "main.larger[int]",
	 * "type..eq.[...]T" for "type..eq.[5]T". */
	if (!strncmp(b, "...]", 4) && a > symtab && a[-1] == '[') {
		int depth = 1;

		for (; *a && depth; a++)
			depth += *a == '[' ? 1 : *a == ']' ? -1 : 0;
		return same_name(a, b + 4);
	}
	return 0;
}

static void test_version_and_table_match_symtab(void **state)
{
	struct ot_go go;
	struct ot_go_funcs f;
	const char *why;
	struct ot_elf *oe;
	size_t i, k, checked = 0;
	int fd;
	Elf *e = open_elf(GOP, &fd);

	(void)state;
	assert_int_equal(ot_go_detect(e, &go), 1);
	assert_int_equal(go.major, 1);
	assert_true(go.minor >= 17);
	assert_true(ot_go_regabi(&go));
	assert_memory_equal(go.version, "go1.", 4);
	assert_int_equal(ot_go_read_funcs(e, &go, &f, &why), 0);
	assert_true(f.n > 1000);
	assert_int_equal(ot_elf_open(GOP, "gop", &oe), 0);
	assert_string_equal(ot_elf_source(oe), "symtab");
	for (i = 0; i < f.n; i++) {
		const char *name = f.names + f.fn[i].name;

		assert_true(f.fn[i].end > f.fn[i].entry);
		for (k = 0; k < ot_elf_nsyms(oe); k++) {
			const struct ot_sym *s = ot_elf_sym(oe, k);

			if (s->addr == f.fn[i].entry && same_name(s->name, name))
				break;
		}
		if (k == ot_elf_nsyms(oe) && strcmp(name, "runtime.etext"))
			fail_msg("%s at 0x%llx is no symbol of .symtab", name,
				 (unsigned long long)f.fn[i].entry);
		checked++;
	}
	assert_int_equal(checked, f.n);
	/* Which symbols are Go code, which assembly. */
	assert_int_equal(find(oe, "main.outer")->go, OT_SYM_GO);
	assert_int_equal(find(oe, "runtime.morestack.abi0")->go, OT_SYM_GO_ASM);
	assert_non_null(ot_elf_go(oe));
	ot_elf_close(oe);
	ot_go_funcs_free(&f);
	elf_end(e);
	close(fd);
}

/* Stripped, as Debian ships Go programs: the names are .gopclntab's. */
static void test_stripped_named_by_pclntab(void **state)
{
	struct ot_elf *full, *bare;
	const char *const names[] = {
		"main.outer", "main.deep", "main.guarded.func1", "main.(*tally).add",
		"main.main.func1",
	};
	size_t i;

	(void)state;
	assert_int_equal(ot_elf_open(GOP, "gop", &full), 0);
	assert_int_equal(ot_elf_open(GOP_STRIPPED, "gop-stripped", &bare), 0);
	assert_string_equal(ot_elf_source(bare), "gopclntab");
	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		const struct ot_sym *a = find(full, names[i]), *b = find(bare, names[i]);

		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(a->offset, b->offset);
		/* .gopclntab's size runs to the next function (its padding). */
		assert_true(b->size >= a->size && b->size < a->size + 64);
		assert_int_equal(b->go, OT_SYM_GO);
	}
	/* A generic function's two instantiations, named alike. */
	for (i = 0; i < ot_elf_nsyms(bare) &&
		    strcmp(ot_elf_sym(bare, i)->name, "main.larger[...]"); i++)
		;
	assert_true(i + 1 < ot_elf_nsyms(bare));
	assert_string_equal(ot_elf_sym(bare, i + 1)->name, "main.larger[...]");
	ot_elf_close(full);
	ot_elf_close(bare);
}

/* Which bytes of the section to spoil for one lie. */
struct lie {
	size_t at;	/* from the start of .gopclntab */
	uint64_t value;
	size_t len;
};

/* The table of a copy of gop whose .gopclntab has bytes changed. */
static int read_lying(const struct lie *l, const char **why, size_t *n)
{
	static char path[] = "/tmp/ot-test-gobin-XXXXXX";
	char copy[sizeof(path)];
	struct ot_go_funcs f;
	struct ot_go go;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t off = 0;
	int fd, out, ret;
	Elf *e = open_elf(GOP, &fd);
	char *buf;
	ssize_t size;

	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(e, shstrndx, sh.sh_name), ".gopclntab"))
			off = sh.sh_offset;
	assert_true(off != 0);
	elf_end(e);
	size = lseek(fd, 0, SEEK_END);
	buf = malloc((size_t)size);
	assert_int_equal(pread(fd, buf, (size_t)size, 0), size);
	close(fd);
	memcpy(buf + off + l->at, &l->value, l->len);
	memcpy(copy, path, sizeof(path));
	out = mkstemp(copy);
	assert_true(out >= 0);
	assert_int_equal(write(out, buf, (size_t)size), size);
	free(buf);
	e = elf_begin(out, ELF_C_READ, NULL);
	assert_non_null(e);
	(void)ot_go_detect(e, &go);
	ret = ot_go_read_funcs(e, &go, &f, why);
	*n = f.n;
	ot_go_funcs_free(&f);
	elf_end(e);
	close(out);
	unlink(copy);
	return ret;
}

static void test_lying_tables_refused(void **state)
{
	/* Go 1.18+ header: magic, pads, quantum, pointer size, then words:
	 * nfunc 8, nfiles 16, textStart 24, funcname 32, cu 40, file 48,
	 * pc 56, pcln 64. */
	const struct lie lies[] = {
		{ 0, 0x12345678, 4 },			/* magic */
		{ 7, 4, 1 },				/* 4-byte pointers */
		{ 8, 0xffffffffffull, 8 },		/* nfunc past the table */
		{ 8, 0, 8 },				/* no function */
		{ 24, 0, 8 },				/* code start unknown */
		{ 32, 0x7fffffffffull, 8 },		/* names outside */
		{ 64, 0x7fffffffffull, 8 },		/* function table outside */
	};
	const char *why;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(lies) / sizeof(*lies); i++) {
		int ret = read_lying(&lies[i], &why, &n);

		if (!ret)
			fail_msg("lie %zu read as %zu functions", i, n);
		assert_true(ret == -EBADMSG || ret == -ENOTSUP);
		assert_non_null(why);
	}
}

/* Go's stack check, in the forms the compiler writes: the entry probe
 * goes after it; a branch into it keeps the probe at the entry. */
static void test_stack_check_found(void **state)
{
	static const uint8_t small[] = {
		0x49, 0x3b, 0x66, 0x10,			/* cmp 0x10(%r14),%rsp */
		0x76, 0x05,				/* jbe +5 */
		0x48, 0x83, 0xec, 0x18,			/* sub $0x18,%rsp */
		0xc3,					/* ret */
		0xe8, 0, 0, 0, 0,			/* call (morestack) */
		0xeb, 0xee,				/* jmp to the start */
	};
	static const uint8_t big[] = {
		0x4c, 0x8d, 0x64, 0x24, 0xb8,		/* lea -0x48(%rsp),%r12 */
		0x4d, 0x3b, 0x66, 0x10,			/* cmp 0x10(%r14),%r12 */
		0x76, 0x01,				/* jbe +1 */
		0xc3,					/* ret */
		0xe8, 0, 0, 0, 0,			/* call (morestack) */
		0xeb, 0xed,				/* jmp to the start */
	};
	static const uint8_t into[] = {
		0x49, 0x3b, 0x66, 0x10,			/* cmp 0x10(%r14),%rsp */
		0x76, 0x03,				/* jbe +3 */
		0x90,					/* nop */
		0xeb, 0xfd,				/* jmp back onto the nop */
		0xc3,
	};
	static const uint8_t leaf[] = { 0x48, 0x8d, 0x04, 0x40, 0xc3 }; /* lea; ret */
	static const struct { const uint8_t *code; size_t len; uint64_t want; } cases[] = {
		{ small, sizeof(small), 6 }, { big, sizeof(big), 11 },
		{ into, sizeof(into), 0 }, { leaf, sizeof(leaf), 0 },
	};
	char path[] = "/tmp/ot-test-gostack-XXXXXX";
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *why;
		uint64_t at;
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "\0\0\0\0\0\0\0\0", 8), 8);
		assert_int_equal(write(fd, cases[i].code, cases[i].len), (ssize_t)cases[i].len);
		close(fd);
		assert_int_equal(ot_go_entry_point(path, 8, cases[i].len, &at, &why), 0);
		assert_int_equal(at, 8 + cases[i].want);
		assert_non_null(why);
		unlink(path);
		memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	}
}

/* -f on Go's names: a method's parentheses are its name's, the values
 * the last's; "[...]" spells both instantiations; argN up to arg9. */
static void test_select_go_names(void **state)
{
	struct ot_selection s;
	struct ot_elf *e;

	(void)state;
	assert_int_equal(ot_elf_open(GOP_STRIPPED, "gop-stripped", &e), 0);
	assert_int_equal(ot_elf_select(e, "main.(*tally).add(arg2)", &s), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.fn[0].sym->name, "main.(*tally).add");
	assert_int_equal(s.fn[0].arg, 2);
	ot_selection_free(&s);
	assert_int_equal(ot_elf_select(e, "main.(*tally).add", &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.fn[0].arg, 0);
	ot_selection_free(&s);
	assert_int_equal(ot_elf_select(e, "main.larger[...]", &s), 0);
	assert_int_equal(s.n, 2);
	ot_selection_free(&s);
	assert_int_equal(ot_elf_select(e, "main.greet(arg9)", &s), 0);
	assert_int_equal(s.fn[0].arg, 9);
	ot_selection_free(&s);
	assert_int_equal(ot_elf_select(e, "main.greet(arg10)", &s), -ENOENT);
	ot_elf_close(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_and_table_match_symtab),
		cmocka_unit_test(test_stripped_named_by_pclntab),
		cmocka_unit_test(test_lying_tables_refused),
		cmocka_unit_test(test_stack_check_found),
		cmocka_unit_test(test_select_go_names),
	};

	ot_error_set_verbosity(-2);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
