/*
 * References into the middle of code (lib/symbols/coderefs), against
 * tests/unit/coderefs.S linked four ways: each check refuses a range
 * holding the one label it knows is referenced, with the exact message
 * (the reference's kind, its address and section, the label's address,
 * all read from the file's symbols), and accepts the same range ending
 * on that label (a transfer to hi lands after the patch).  Then real
 * Debian files: they open, every USDT site gets an answer, and not every
 * site is refused.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <gelf.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "skip_ci.h"

#include "lib/symbols/coderefs.h"
#include "lib/symbols/usdt.h"

#define PIE OT_FIXTURE_DIR "/coderefs-pie"
#define RELR OT_FIXTURE_DIR "/coderefs-relr"
#define NOPIE OT_FIXTURE_DIR "/coderefs-nopie"
#define BADLSDA OT_FIXTURE_DIR "/coderefs-badlsda"

static uint64_t sym(const char *file, const char *name)
{
	uint64_t a = 0;

	if (ot_usdt_sym_addr(file, name, &a))
		fail_msg("%s: no symbol %s", file, name);
	return a;
}

static struct ot_coderefs *open_ok(const char *file)
{
	struct ot_coderefs *r;
	char why[256] = "";

	if (ot_coderefs_open(file, &r, why, sizeof(why)))
		fail_msg("%s: %s", file, why);
	return r;
}

/*
 * The scenario whose site is prefix_site, in the function [func, end):
 * refused up to one byte past the label target with exactly want, and
 * accepted up to the label, and from it (lo itself may be landed on).
 */
static void refused(const char *file, const char *func, const char *end, const char *prefix,
		    const char *target, const char *want)
{
	struct ot_coderefs *r = open_ok(file);
	char site[64], why[512] = "";
	uint64_t f_lo = sym(file, func), f_hi = sym(file, end), t = sym(file, target), lo;

	snprintf(site, sizeof(site), "%s_site", prefix);
	lo = sym(file, site);
	assert_int_equal(ot_coderefs_inside(r, f_lo, f_hi, lo, t + 1, why, sizeof(why)), -1);
	assert_string_equal(why, want);
	why[0] = 0;
	if (ot_coderefs_inside(r, f_lo, f_hi, lo, t, why, sizeof(why)))
		fail_msg("[%s, %s) refused: %s", site, target, why);
	if (ot_coderefs_inside(r, f_lo, f_hi, t, t + 1, why, sizeof(why)))
		fail_msg("[%s, +1) refused: %s", target, why);
	ot_coderefs_free(r);
}

/* "KIND at 0xAT (SECTION) lands at 0xTARGET, inside the patched bytes" */
static const char *msg(char *buf, size_t len, const char *kind, uint64_t at, const char *sec,
		       uint64_t target)
{
	snprintf(buf, len, "%s at 0x%llx (%s) lands at 0x%llx, inside the patched bytes", kind,
		 (unsigned long long)at, sec, (unsigned long long)target);
	return buf;
}

static void test_jump_table(void **state)
{
	char want[256];

	(void)state;
	msg(want, sizeof(want), "a jump table entry", sym(PIE, "jt_table"), ".rodata",
	    sym(PIE, "jt_case"));
	refused(PIE, "jt_func", "jt_end", "jt", "jt_case", want);
}

/* Back-to-back tables: one goes on past a start found inside it while its
 * entries land in its function, and ends where one of another begins. */
static void test_adjacent_tables(void **state)
{
	struct ot_coderefs *r = open_ok(PIE);
	char want[256], why[256] = "";

	(void)state;
	msg(want, sizeof(want), "a jump table entry", sym(PIE, "jt2_table") + 8, ".rodata",
	    sym(PIE, "jt2_c"));
	refused(PIE, "jt2_func", "jt2_end", "jt2", "jt2_c", want);
	assert_int_equal(sym(PIE, "jt3_case") - sym(PIE, "jt3_site"), 14);
	if (ot_coderefs_inside(r, sym(PIE, "jt3_func"), sym(PIE, "jt3_end"), sym(PIE, "jt3_site"),
			       sym(PIE, "jt3_case"), why, sizeof(why)))
		fail_msg("jt3 refused: %s", why);
	ot_coderefs_free(r);
}

/* With RELA the table's slot is a relocation's; with RELR only its value. */
static void test_pointers(void **state)
{
	char want[256];

	(void)state;
	msg(want, sizeof(want), "a relocated pointer", sym(PIE, "abs_table"), ".data.rel.ro",
	    sym(PIE, "abs_case"));
	refused(PIE, "abs_func", "abs_end", "abs", "abs_case", want);
	msg(want, sizeof(want), "an 8-byte code pointer", sym(RELR, "abs_table"), ".data.rel.ro",
	    sym(RELR, "abs_case"));
	refused(RELR, "abs_func", "abs_end", "abs", "abs_case", want);
}

/* The .dynsym entry's st_value of name in file: its address. */
static uint64_t dynsym_value_at(const char *file, const char *name)
{
	int fd = open(file, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t at = 0;
	size_t i;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			break;
	assert_non_null(scn);
	for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym s;

		if (gelf_getsym(elf_getdata(scn, NULL), (int)i, &s) &&
		    !strcmp(elf_strptr(elf, sh.sh_link, s.st_name), name))
			at = sh.sh_addr + i * sh.sh_entsize + offsetof(Elf64_Sym, st_value);
	}
	elf_end(elf);
	close(fd);
	assert_true(at != 0);
	return at;
}

/* An exported label: another file calls it through its own PLT. */
static void test_exported(void **state)
{
	char want[256];

	(void)state;
	msg(want, sizeof(want), "an 8-byte code pointer", dynsym_value_at(PIE, "dyn_in"),
	    ".dynsym", sym(PIE, "dyn_in"));
	refused(PIE, "dyn_func", "dyn_end", "dyn", "dyn_in", want);
}

/* A .cold part's jmp rel32 back, and a lea label(%rip). */
static void test_rel32(void **state)
{
	char want[256];

	(void)state;
	msg(want, sizeof(want), "a rel32 displacement", sym(PIE, "cold_jmp") + 1, ".text",
	    sym(PIE, "cold_back"));
	refused(PIE, "cold_func", "cold_end", "cold", "cold_back", want);
	msg(want, sizeof(want), "a rel32 displacement", sym(PIE, "lea_insn") + 3, ".text",
	    sym(PIE, "lea_label"));
	refused(PIE, "lea_func", "lea_end", "lea", "lea_label", want);
}

/* A jmp rel8 just past the function; inside it, it is relocate.c's. */
static void test_rel8(void **state)
{
	struct ot_coderefs *r = open_ok(PIE);
	uint64_t site = sym(PIE, "near_site"), in = sym(PIE, "near_in");
	char want[256], why[256];

	(void)state;
	msg(want, sizeof(want), "a rel8 branch", sym(PIE, "near_next"), ".text", in);
	refused(PIE, "near_func", "near_end", "near", "near_in", want);
	assert_int_equal(ot_coderefs_inside(r, sym(PIE, "near_func"), sym(PIE, "near_next_end"),
					    site, in + 1, why, sizeof(why)), 0);
	ot_coderefs_free(r);
}

/* gcc's LSDA and clang's older one; and the FDE bounds of a function. */
static void test_landing_pads(void **state)
{
	struct ot_coderefs *r = open_ok(PIE);
	char want[256];
	uint64_t lo, hi;

	(void)state;
	msg(want, sizeof(want), "an exception landing pad's call-site entry", sym(PIE, "eh_cs"),
	    ".gcc_except_table", sym(PIE, "eh_pad"));
	refused(PIE, "eh_func", "eh_end", "eh", "eh_pad", want);
	msg(want, sizeof(want), "an exception landing pad's call-site entry", sym(PIE, "eh2_cs1"),
	    ".gcc_except_table", sym(PIE, "eh2_pad"));
	refused(PIE, "eh2_func", "eh2_end", "eh2", "eh2_pad", want);
	assert_int_equal(ot_coderefs_fde(r, sym(PIE, "eh_site"), &lo, &hi), 0);
	assert_int_equal(lo, sym(PIE, "eh_func"));
	assert_int_equal(hi, sym(PIE, "eh_end"));
	assert_int_equal(ot_coderefs_fde(r, sym(PIE, "near_site"), &lo, &hi), -ENOENT);
	ot_coderefs_free(r);
}

/* An LSDA that cannot be read refuses every range of its file. */
static void test_bad_lsda(void **state)
{
	struct ot_coderefs *r = open_ok(BADLSDA);
	char want[256], why[256] = "";

	(void)state;
	snprintf(want, sizeof(want), "the LSDA at 0x%llx (.gcc_except_table) of the FDE for "
		 "0x%llx cannot be read: the file's landing pads are unknown",
		 (unsigned long long)sym(BADLSDA, "bad_lsda"),
		 (unsigned long long)sym(BADLSDA, "bad_func"));
	assert_int_equal(ot_coderefs_inside(r, sym(BADLSDA, "jt_func"), sym(BADLSDA, "jt_end"),
					    sym(BADLSDA, "jt_site"), sym(BADLSDA, "jt_case"), why,
					    sizeof(why)), -1);
	assert_string_equal(why, want);
	ot_coderefs_free(r);
}

/* Non-PIE: mov $label, %eax. */
static void test_abs32(void **state)
{
	char want[256];

	(void)state;
	msg(want, sizeof(want), "a 4-byte absolute address", sym(NOPIE, "abs32_func") + 1,
	    ".text", sym(NOPIE, "abs32_in"));
	refused(NOPIE, "abs32_func", "abs32_end", "abs32", "abs32_in", want);
}

static void test_entry(void **state)
{
	char want[256];

	(void)state;
	snprintf(want, sizeof(want), "the ELF entry point 0x%llx is inside the patched bytes",
		 (unsigned long long)sym(PIE, "_start"));
	refused(PIE, "start_site", "start_end", "start", "_start", want);
}

/* Ranges that are no patch of one function; and which checks see what. */
static void test_ranges_and_which(void **state)
{
	struct ot_coderefs *r = open_ok(PIE);
	uint64_t f = sym(PIE, "jt_func"), e = sym(PIE, "jt_end"), s = sym(PIE, "jt_site");
	uint64_t a = sym(PIE, "abs_site"), c = sym(PIE, "abs_case");
	char why[256];

	(void)state;
	assert_int_equal(ot_coderefs_inside(r, f, e, s, s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "are empty"));
	assert_int_equal(ot_coderefs_inside(r, f, e, s, e + 1, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not inside the function"));
	assert_int_equal(ot_coderefs_inside(r, 0, UINT64_MAX, 0x10, 0x20, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not in one executable section"));
	/* RELA: the loader's relocation, and the value ld also left in the slot. */
	assert_int_equal(ot_coderefs_which(r, sym(PIE, "abs_func"), sym(PIE, "abs_end"), a, c + 1),
			 OT_CODEREF_RELOC | OT_CODEREF_POINTER);
	assert_int_equal(ot_coderefs_which(r, f, e, s, sym(PIE, "jt_case")), 0);
	assert_string_equal(ot_coderef_name(OT_CODEREF_TABLE), "TABLE");
	assert_string_equal(ot_coderef_name(OT_CODEREF_REL32), "REL32");
	assert_string_equal(ot_coderef_name(OT_CODEREF_TABLE | OT_CODEREF_REL32), "?");
	ot_coderefs_free(r);
	assert_int_equal(ot_coderefs_open("/nonexistent", &r, why, sizeof(why)), -ENOENT);
	assert_null(r);
	assert_int_equal(ot_coderefs_open(OT_FIXTURE_DIR "/../../Makefile", &r, why, sizeof(why)),
			 -ENOEXEC);
	assert_string_equal(why, "not an ELF file");
}

/* The end of a USDT site's patch: its nop and whole instructions to 5 bytes. */
static uint64_t patch_end(csh cs, const char *file, uint64_t lo)
{
	uint8_t buf[32];
	const uint8_t *p = buf;
	size_t left;
	uint64_t a = lo;
	cs_insn *insn = cs_malloc(cs);
	int n = ot_usdt_file_read(file, lo, (char *)buf, sizeof(buf));

	assert_true(n > 0);
	assert_int_equal(buf[0], 0x90);
	left = (size_t)n;
	while (a - lo < 5 && cs_disasm_iter(cs, &p, &left, &a, insn))
		;
	cs_free(insn, 1);
	assert_true(a - lo >= 5);
	return a;
}

/* Every USDT site of file answered, within the FDE holding it; returns
 * how many were accepted, *by_pointer how many POINTER refused. */
static size_t answer_sites(csh cs, const char *file, size_t *by_pointer)
{
	struct ot_coderefs *r = open_ok(file);
	struct ot_usdt_notes notes;
	size_t i, j, ok = 0, n = 0;

	assert_int_equal(ot_usdt_read(file, &notes), 0);
	for (i = 0; i < notes.n; i++)
		for (j = 0; j < notes.probe[i].nsites; j++) {
			uint64_t lo = notes.probe[i].sites[j].vaddr, hi = patch_end(cs, file, lo);
			uint64_t f_lo, f_hi;
			char why[512] = "";
			int ret;

			assert_int_equal(ot_coderefs_fde(r, lo, &f_lo, &f_hi), 0);
			ret = ot_coderefs_inside(r, f_lo, f_hi, lo, hi, why, sizeof(why));
			assert_true(ret == 0 || (ret == -1 && why[0]));
			ok += !ret;
			*by_pointer += !strncmp(why, "an 8-byte code pointer", 22);
			n++;
		}
	print_message("%s: %zu of %zu USDT sites accepted\n", file, ok, n);
	assert_true(n > 0);
	ot_usdt_free(&notes);
	ot_coderefs_free(r);
	return ok;
}

static void test_debian_files(void **state)
{
	static const char *const files[] = {
		"/usr/bin/php8.2", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/bin/python3.11", "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1",
	};
	size_t i, seen = 0;
	csh cs;

	(void)state;
	assert_int_equal(cs_open(CS_ARCH_X86, CS_MODE_64, &cs), CS_ERR_OK);
	for (i = 0; i < sizeof(files) / sizeof(*files); i++) {
		size_t by_pointer = 0;

		if (access(files[i], R_OK))
			continue;
		seen++;
		assert_true(answer_sites(cs, files[i], &by_pointer) > 0);
		/* Debian 12's python3.11 (non-PIE): the string "ABC" in .data,
		 * read as 8 bytes, is 0x434241, inside a python:line site's
		 * patch.  A false reference but a known one, and its offset
		 * needs the radix sort's second 16-bit digit. */
		if (i == 2)
			assert_true(by_pointer > 0);
	}
	cs_close(&cs);
	if (!seen)
		ot_skip("none of Debian's php8.2, libstdc++, python3.11, libruby-3.1 is installed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jump_table),
		cmocka_unit_test(test_adjacent_tables),
		cmocka_unit_test(test_pointers),
		cmocka_unit_test(test_exported),
		cmocka_unit_test(test_rel32),
		cmocka_unit_test(test_rel8),
		cmocka_unit_test(test_landing_pads),
		cmocka_unit_test(test_bad_lsda),
		cmocka_unit_test(test_abs32),
		cmocka_unit_test(test_entry),
		cmocka_unit_test(test_ranges_and_which),
		cmocka_unit_test(test_debian_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
