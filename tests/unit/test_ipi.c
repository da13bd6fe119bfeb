/* /proc/interrupts rows: CAL and TLB summed over CPUs, others ignored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/probes/ipi.h"

static void test_parse(void **state)
{
	static const char text[] =
		"           CPU0       CPU1       CPU2\n"
		"  0:         45          0          0   IO-APIC   2-edge      timer\n"
		"NMI:          1          2          3   Non-maskable interrupts\n"
		"CAL:     204304     186328         10   Function call interrupts\n"
		"TLB:      25905      21002          0   TLB shootdowns\n"
		"ERR:          0\n";
	struct ot_ipi ipi;

	(void)state;
	ot_ipi_parse(text, &ipi);
	assert_int_equal(ipi.cal, 204304 + 186328 + 10);
	assert_int_equal(ipi.tlb, 25905 + 21002);
	ot_ipi_parse("", &ipi);
	assert_int_equal(ipi.cal, 0);
}

static void test_read_live(void **state)
{
	struct ot_ipi a, b;

	(void)state;
	assert_int_equal(ot_ipi_read(&a), 0);
	assert_int_equal(ot_ipi_read(&b), 0);
	assert_true(b.cal >= a.cal && b.tlb >= a.tlb); /* counters only grow */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_read_live),
	};

	return cmocka_run_group_tests_name("ipi", tests, NULL, NULL);
}
