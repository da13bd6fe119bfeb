/* Return instructions and tail calls found by disassembly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elfsym.h"
#include "lib/error.h"
#include "lib/retsite.h"

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

/* On a real function: every site found is a ret byte inside it. */
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
#endif
		cmocka_unit_test(test_fixture_function),
	};

	return cmocka_run_group_tests_name("retsite", tests, NULL, NULL);
}
