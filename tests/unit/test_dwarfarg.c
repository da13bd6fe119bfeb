/*
 * Parameters by DWARF name (lib/symbols/dwarfarg): location expressions at
 * a function's entry turned into operands, and the parameters of
 * tests/e2e/targets/dwargs (gcc -O2 -g) located as perf probe locates them.
 * perf probe -x build/targets/dwargs -D '...' (linux-perf 6.1) printed:
 *   handle req flags n  ->  req=%di:x64 flags=%si:x32 n=%dx:s32
 *   handle req->len     ->  len=+8(%di):s64
 *   seventh g           ->  g=+8(%sp):s64
 *   far r->len          ->  len=+8(+8(%sp)):s64
 *   shorty x            ->  x=%di:s32
 * build/targets/cold's parse, in hot and .cold parts (DW_AT_ranges, no
 * DW_AT_low_pc), perf 6.1 does not find ("Failed to find symbol at
 * 0x1270"); readelf --debug-dump=loc gives its x in %rsi, s in %rdi at the
 * entry.
 * (perf's x64/x32 is an unsigned integer printed in hex: our u64/u32.)
 */
#include <dwarf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/symbols/dwarfarg.h"
#include "lib/symbols/elfsym.h"
#include "lib/symbols/select.h"

#include <stdio.h>

#define DWARGS OT_FIXTURE_DIR "/../../build/targets/dwargs"
#define COLD OT_FIXTURE_DIR "/../../build/targets/cold"

static const char *operand(const struct ot_dwarf_op *ops, size_t n)
{
	static char buf[128];
	struct ot_usdt_arg a;
	char why[128] = "";

	memset(&a, 0, sizeof(a));
	a.size = 8;
	if (ot_dwarf_loc_operand(ops, n, &a, why, sizeof(why)))
		snprintf(buf, sizeof(buf), "refused: %s", why);
	else
		ot_dwarf_describe(&a, buf, sizeof(buf));
	return buf;
}

static void test_loc_operand(void **state)
{
	struct ot_dwarf_op reg5 = { DW_OP_reg5, 0, 0 }, reg4 = { DW_OP_reg4, 0, 0 };
	struct ot_dwarf_op regx = { DW_OP_regx, 12, 0 }, breg = { DW_OP_breg5, 8, 0 };
	struct ot_dwarf_op fb0 = { DW_OP_fbreg, 0, 0 }, fb16 = { DW_OP_fbreg, 16, 0 };
	struct ot_dwarf_op fbneg = { DW_OP_fbreg, (uint64_t)-20, 0 };
	struct ot_dwarf_op ev = { DW_OP_entry_value, 0, 0 }, xmm = { DW_OP_reg17, 0, 0 };
	struct ot_dwarf_op pieces[2] = { { DW_OP_reg5, 0, 0 }, { DW_OP_piece, 4, 0 } };

	(void)state;
	assert_string_equal(operand(&reg5, 1), "%di:u64");
	assert_string_equal(operand(&reg4, 1), "%si:u64");
	assert_string_equal(operand(&regx, 1), "%r12:u64");
	assert_string_equal(operand(&breg, 1), "+8(%di):u64");
	/* The CFA is the stack pointer + 8 at the first instruction. */
	assert_string_equal(operand(&fb0, 1), "+8(%sp):u64");
	assert_string_equal(operand(&fb16, 1), "+24(%sp):u64");
	assert_string_equal(operand(&fbneg, 1), "refused: in the function's own frame "
			    "(DW_OP_fbreg -20), written after the entry");
	assert_string_equal(operand(&ev, 1), "refused: DWARF operation 0xa3 is not read");
	assert_string_equal(operand(&xmm, 1), "refused: a register that holds no integer");
	assert_string_equal(operand(pieces, 2), "refused: a location of 2 operations "
			    "(a value built, or in pieces)");
	assert_string_equal(operand(NULL, 0), "refused: no location");
	/* Go's string under its register ABI: two 8-byte register pieces. */
	{
		struct ot_dwarf_op gs[4] = { { DW_OP_reg0, 0, 0 }, { DW_OP_piece, 8, 0 },
					     { DW_OP_reg3, 0, 0 }, { DW_OP_piece, 8, 0 } };

		assert_string_equal(operand(gs, 4), "a Go string: its pointer %ax, its length %bx");
		gs[3].number = 4;
		assert_string_equal(operand(gs, 4), "refused: a location of 4 operations "
				    "(a value built, or in pieces)");
	}
}

/* The function's st_value in dwargs. */
static uint64_t addr_of(const char *fn)
{
	struct ot_selection s;
	struct ot_elf *e;
	uint64_t a;

	assert_int_equal(ot_elf_open(DWARGS, "dwargs", &e), 0);
	assert_int_equal(ot_elf_select(e, fn, &s), 0);
	a = s.fn[0].sym->addr;
	ot_selection_free(&s);
	ot_elf_close(e);
	return a;
}

static const char *param(const char *fn, const char *expr)
{
	static char buf[256];
	struct ot_usdt_arg a;
	char why[200] = "";
	int err = ot_dwarf_param(DWARGS, addr_of(fn), expr, &a, why, sizeof(why));

	if (err)
		snprintf(buf, sizeof(buf), "%d: %s", err, why);
	else
		ot_dwarf_describe(&a, buf, sizeof(buf));
	return buf;
}

/* Each as perf probe -D placed it (the header's list). */
static void test_target_params(void **state)
{
	(void)state;
	assert_string_equal(param("handle", "req"), "%di:u64");
	assert_string_equal(param("handle", "flags"), "%si:u32");
	assert_string_equal(param("handle", "n"), "%dx:s32");
	assert_string_equal(param("handle", "req->len"), "+8(%di):s64");
	assert_string_equal(param("handle", "req->prio"), "+16(%di):s8");
	assert_string_equal(param("handle", "req->flags"), "+4(%di):u16");
	assert_string_equal(param("seventh", "g"), "+8(%sp):s64");
	assert_string_equal(param("far", "r->len"), "+8(+8(%sp)):s64");
	assert_string_equal(param("shorty", "x"), "%di:s32");
}

/* A function in two parts (gcc's .cold): its entry is its first range's. */
static void test_cold_split(void **state)
{
	struct ot_selection s;
	struct ot_usdt_arg a;
	struct ot_elf *e;
	char why[200] = "", buf[64];
	uint64_t at;

	(void)state;
	assert_int_equal(ot_elf_open(COLD, "cold", &e), 0);
	assert_int_equal(ot_elf_select(e, "parse", &s), 0);
	at = s.fn[0].sym->addr;
	ot_selection_free(&s);
	ot_elf_close(e);
	assert_int_equal(ot_dwarf_param(COLD, at, "x", &a, why, sizeof(why)), 0);
	assert_string_equal(ot_dwarf_describe(&a, buf, sizeof(buf)), "%si:s64");
	assert_int_equal(ot_dwarf_param(COLD, at, "s", &a, why, sizeof(why)), 0);
	assert_string_equal(ot_dwarf_describe(&a, buf, sizeof(buf)), "%di:u64");
}

static void test_target_refusals(void **state)
{
	(void)state;
	assert_string_equal(param("handle", "flag"), "-2: no parameter 'flag' (did you mean flags?)");
	assert_string_equal(param("handle", "len"), "-2: no parameter 'len' (its parameters: req, "
			    "flags, n)");
	assert_string_equal(param("handle", "req->lenx"), "-2: struct req has no member 'lenx'");
	assert_string_equal(param("handle", "flags->x"), "-22: 'flags' is not a pointer to a "
			    "struct or union");
	assert_string_equal(param("narrow", "y"), "-2: no parameter 'y' (its parameters: x)");
}

static void test_target_returns(void **state)
{
	static const struct {
		const char *fn;
		uint8_t size, is_signed;
	} want[] = {
		{ "handle", 4, 1 }, { "seventh", 8, 1 }, { "narrow", 1, 0 }, { "shorty", 2, 1 },
	};
	uint8_t size, sign;
	char why[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(ot_dwarf_ret(DWARGS, addr_of(want[i].fn), &size, &sign, why,
					      sizeof(why)), 0);
		assert_int_equal(size, want[i].size);
		assert_int_equal(sign, want[i].is_signed);
	}
	/* An address no function of the DWARF has: the caller falls back. */
	assert_int_equal(ot_dwarf_ret("/proc/self/exe", 0, &size, &sign, why, sizeof(why)),
			 -ENODATA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loc_operand),
		cmocka_unit_test(test_target_params),
		cmocka_unit_test(test_cold_split),
		cmocka_unit_test(test_target_refusals),
		cmocka_unit_test(test_target_returns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
