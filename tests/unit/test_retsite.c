/* Return instructions and tail calls found by disassembly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbols/elfsym.h"
#include "lib/symbols/select.h"
#include "lib/util/error.h"
#include "lib/symbols/retsite.h"

#if defined(__x86_64__)
static void test_code_in_memory(void **state)
{
	/* nop; ret; push rbx; pop rbx; ret; jmp back to the start (inside) */
	static const uint8_t two_rets[] = { 0x90, 0xc3, 0x53, 0x5b, 0xc3, 0xeb, 0xf9 };
	/* pop rbx; jmp rel32 far outside: a tail call, no ret */
	static const uint8_t tail[] = { 0x5b, 0xe9, 0x00, 0x10, 0x00, 0x00 };
	/* mov $0xc3, %eax: a 0xc3 byte that is no ret; then ret */
	static const uint8_t imm[] = { 0xb8, 0xc3, 0x00, 0x00, 0x00, 0xc3 };
	uint64_t *sites;
	int tail_calls;

	(void)state;
	assert_int_equal(ot_ret_sites_mem(two_rets, sizeof(two_rets), 0x1000, &sites, &tail_calls), 2);
	assert_int_equal(sites[0], 0x1001);
	assert_int_equal(sites[1], 0x1004);
	assert_false(tail_calls);
	free(sites);
	assert_int_equal(ot_ret_sites_mem(tail, sizeof(tail), 0x2000, &sites, &tail_calls), 0);
	assert_true(tail_calls);
	free(sites);
	assert_int_equal(ot_ret_sites_mem(imm, sizeof(imm), 0, &sites, &tail_calls), 1);
	assert_int_equal(sites[0], 5);
	free(sites);
}
#endif

/* Indirect jumps: a tail call through a register leaves, a switch's does not. */
static void test_indirect_exits(void **state)
{
	static const uint8_t ptr[] = { 0xff, 0xe0 };			/* jmp *%rax */
	static const uint8_t got[] = { 0xff, 0x25, 0, 0, 0, 0 };	/* jmp *0(%rip) */
	static const uint8_t notrack[] = { 0x3e, 0xff, 0xe0 };		/* notrack jmp *%rax */
	static const uint8_t table[] = { 0xff, 0x24, 0xc5, 0, 0, 0, 0 }; /* jmp *0(,%rax,8) */
	/* movslq (%rdx,%rax,4),%rax; add %rdx,%rax; jmp *%rax: a PIC table */
	static const uint8_t pic[] = { 0x48, 0x63, 0x04, 0x82, 0x48, 0x01, 0xd0, 0xff, 0xe0 };
	/* jmp +0x100 (outside), jmp -2 (itself: inside) */
	static const uint8_t direct[] = { 0xe9, 0x00, 0x01, 0x00, 0x00, 0xeb, 0xfe };
	struct ot_exits x;

	(void)state;
	assert_int_equal(ot_exits_mem(ptr, sizeof(ptr), 0, &x), 0);
	assert_int_equal(x.indirect, 1);
	ot_exits_free(&x);
	/* Through a pointer slot (a PLT stub, -fno-plt): the slot, to resolve. */
	assert_int_equal(ot_exits_mem(got, sizeof(got), 0x100, &x), 0);
	assert_int_equal(x.indirect, 0);
	assert_int_equal(x.nslots, 1);
	assert_int_equal(x.slots[0], 0x106);
	ot_exits_free(&x);
	assert_int_equal(ot_exits_mem(notrack, sizeof(notrack), 0, &x), 0);
	assert_int_equal(x.indirect, 0);
	ot_exits_free(&x);
	/* Through an absolute table (non-PIE): its entries tell, for the caller. */
	assert_int_equal(ot_exits_mem(table, sizeof(table), 0, &x), 0);
	assert_int_equal(x.indirect, 0);
	assert_int_equal(x.ntables, 1);
	assert_int_equal(x.tables[0].addr, 0);
	assert_true(x.tables[0].vaddr);
	ot_exits_free(&x);
	assert_int_equal(ot_exits_mem(pic, sizeof(pic), 0, &x), 0);
	assert_int_equal(x.indirect, 0);
	ot_exits_free(&x);
	assert_int_equal(ot_exits_mem(direct, sizeof(direct), 0x1000, &x), 0);
	assert_int_equal(x.ntails, 1);
	assert_int_equal(x.tails[0], 0x1105);
	assert_int_equal(x.indirect, 0);
	ot_exits_free(&x);
}

/* On a real function: every site found is a ret byte inside it. */
#if defined(__x86_64__)
/*
 * Jumps through a table of 8-byte pointers: the table's address when the
 * code shows it (g++ -O2's dispatch through a static table of functions,
 * and with the entry loaded, tested and jumped to), an indirect exit when
 * it does not (a table passed in, a lea that another path may skip, a
 * register a call may change).
 */
static void test_table_jumps(void **state)
{
	/* mov %edi,%eax; lea 0x2aa7(%rip),%rdx; mov %rsi,%rdi; and $3,%eax;
	 * jmp *(%rdx,%rax,8) */
	static const uint8_t dispatch[] = {
		0x89, 0xf8, 0x48, 0x8d, 0x15, 0xa7, 0x2a, 0x00, 0x00, 0x48, 0x89, 0xf7,
		0x83, 0xe0, 0x03, 0xff, 0x24, 0xc2,
	};
	/* ...; mov (%rdx,%rax,8),%rax; test %rax,%rax; je 1f; jmp *%rax;
	 * nopw; 1: jmp fallback (outside) */
	static const uint8_t loaded[] = {
		0x89, 0xf8, 0x48, 0x8d, 0x15, 0x67, 0x2a, 0x00, 0x00, 0x48, 0x89, 0xf7,
		0x83, 0xe0, 0x03, 0x48, 0x8b, 0x04, 0xc2, 0x48, 0x85, 0xc0, 0x74, 0x08,
		0xff, 0xe0, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xeb, 0xae,
	};
	/* mov %rdi,%rax; and $3,%esi; mov %rdx,%rdi; jmp *(%rax,%rsi,8) */
	static const uint8_t given[] = {
		0x48, 0x89, 0xf8, 0x83, 0xe6, 0x03, 0x48, 0x89, 0xd7, 0xff, 0x24, 0xf0,
	};
	/* lea 0x100(%rip),%rdx; 1: jmp *(%rdx,%rax,8); xor %rdx,%rdx; jmp 1b */
	static const uint8_t joined[] = {
		0x48, 0x8d, 0x15, 0x00, 0x01, 0x00, 0x00, 0xff, 0x24, 0xc2,
		0x48, 0x31, 0xd2, 0xeb, 0xf8,
	};
	/* lea 0x100(%rip),%rdx; call +0; jmp *(%rdx,%rax,8) */
	static const uint8_t called[] = {
		0x48, 0x8d, 0x15, 0x00, 0x01, 0x00, 0x00, 0xe8, 0x00, 0x00, 0x00, 0x00,
		0xff, 0x24, 0xc2,
	};
	struct ot_exits x;

	(void)state;
	assert_int_equal(ot_exits_mem(dispatch, sizeof(dispatch), 0x12f0, &x), 0);
	assert_int_equal(x.ntables, 1);
	assert_int_equal(x.tables[0].addr, 0x3da0);
	assert_false(x.tables[0].vaddr);
	assert_int_equal(x.indirect + x.nrets + x.ntails, 0);
	ot_exits_free(&x);
	assert_int_equal(ot_exits_mem(loaded, sizeof(loaded), 0x1310, &x), 0);
	assert_int_equal(x.ntables, 1);
	assert_int_equal(x.tables[0].addr, 0x3d80);
	assert_int_equal(x.ntails, 1);
	assert_int_equal(x.tails[0], 0x12e0);
	assert_int_equal(x.indirect, 0);
	ot_exits_free(&x);
	assert_int_equal(ot_exits_mem(given, sizeof(given), 0x1400, &x), 0);
	assert_int_equal(x.indirect, 1);
	assert_int_equal(x.ntables, 0);
	ot_exits_free(&x);
	assert_int_equal(ot_exits_mem(joined, sizeof(joined), 0, &x), 0);
	assert_int_equal(x.indirect, 1);
	assert_int_equal(x.ntables, 0);
	ot_exits_free(&x);
	assert_int_equal(ot_exits_mem(called, sizeof(called), 0, &x), 0);
	assert_int_equal(x.indirect, 1);
	assert_int_equal(x.ntables, 0);
	ot_exits_free(&x);
}
#endif

static void test_fixture_function(void **state)
{
	const char *bin = OT_FIXTURE_DIR "/fixture-nopie";
	struct ot_selection sel;
	struct ot_elf *e;
	uint64_t *sites;
	int n, tail_calls, i;

	(void)state;
	assert_int_equal(ot_elf_open(bin, bin, &e), 0);
	assert_int_equal(ot_elf_select(e, "main", &sel), 0);
	n = ot_ret_sites(bin, sel.fn[0].sym->offset, sel.fn[0].sym->size, &sites, &tail_calls);
	assert_true(n >= 1);
	for (i = 0; i < n; i++)
		assert_true(sites[i] >= sel.fn[0].sym->offset &&
			    sites[i] < sel.fn[0].sym->offset + sel.fn[0].sym->size);
	free(sites);
	ot_selection_free(&sel);
	ot_elf_close(e);
	assert_int_equal(ot_ret_sites("/nonexistent", 0, 16, &sites, &tail_calls), -2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#if defined(__x86_64__)
		cmocka_unit_test(test_code_in_memory),
		cmocka_unit_test(test_indirect_exits),
		cmocka_unit_test(test_table_jumps),
#endif
		cmocka_unit_test(test_fixture_function),
	};

	return cmocka_run_group_tests_name("retsite", tests, NULL, NULL);
}
