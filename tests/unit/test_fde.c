/*
 * The unwind entry --backend inject gives unwinders for its return
 * trampoline (ot_inject_fde, lib/inject/inject_unwind): its CIE and FDE read
 * back field by field as the DWARF spec (and the .eh_frame format
 * libgcc reads) lays them out, and the return-address expression run on
 * a small DWARF stack machine against a table laid out as the runtime
 * keeps it: found at its hash, found after a collision, absent (0), and
 * past the table's wrap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "lib/inject/inject_layout.h"
#include "lib/inject/inject_unwind.h"

static uint64_t rd(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

static uint64_t uleb(const uint8_t *p, size_t *at)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = p[(*at)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return v;
}

/*
 * The operations the encoder uses, as DWARF 5 section 2.5 defines them;
 * deref reads this process's memory (the table is ours).  Returns the
 * top of the stack, or aborts the test on anything else.
 */
static uint64_t run_expr(const uint8_t *e, size_t len, uint64_t cfa)
{
	uint64_t st[32], a;
	size_t sp = 0, pc = 0, steps = 0;

	st[sp++] = cfa;
	while (pc < len) {
		uint8_t op = e[pc++];
		int16_t d;

		assert_true(++steps < 1000000);
		assert_true(sp < 30);
		if (op >= 0x30 && op <= 0x4f) {		/* lit0..lit31 */
			st[sp++] = op - 0x30;
			continue;
		}
		switch (op) {
		case 0x03: st[sp++] = rd(e + pc, 8); pc += 8; break;		/* addr */
		case 0x06: a = st[sp - 1]; memcpy(&st[sp - 1], (void *)(uintptr_t)a, 8); break;
		case 0x10: st[sp++] = uleb(e, &pc); break;			/* constu */
		case 0x12: st[sp] = st[sp - 1]; sp++; break;			/* dup */
		case 0x13: assert_true(sp > 0); sp--; break;			/* drop */
		case 0x15: a = e[pc++]; assert_true(a < sp); st[sp] = st[sp - 1 - a]; sp++; break;
		case 0x16: a = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = a; break;
		case 0x1a: sp--; st[sp - 1] &= st[sp]; break;			/* and */
		case 0x1c: sp--; st[sp - 1] -= st[sp]; break;			/* minus */
		case 0x22: sp--; st[sp - 1] += st[sp]; break;			/* plus */
		case 0x23: st[sp - 1] += uleb(e, &pc); break;			/* plus_uconst */
		case 0x24: sp--; st[sp - 1] <<= st[sp]; break;			/* shl */
		case 0x25: sp--; st[sp - 1] >>= st[sp]; break;			/* shr */
		case 0x29: sp--; st[sp - 1] = st[sp - 1] == st[sp]; break;	/* eq */
		case 0x28:							/* bra */
			memcpy(&d, e + pc, 2);
			pc += 2;
			if (st[--sp])
				pc = (size_t)((long)pc + d);
			break;
		case 0x2f:							/* skip */
			memcpy(&d, e + pc, 2);
			pc = (size_t)((long)pc + 2 + d);
			break;
		default:
			fail_msg("unexpected DWARF operation 0x%02x at %zu", op, pc - 1);
		}
		assert_true(pc <= len);
	}
	assert_int_equal(sp, 1);
	return st[0];
}

static uint8_t table[OT_INJ_TABLE_SIZE] __attribute__((aligned(64)));
static uint8_t out[OT_INJ_FDE_SIZE];
static const uint8_t *expr;
static size_t expr_len;

/* Parse the entry ot_inject_fde wrote for [lo, lo + len) with table. */
static size_t parse(uint64_t lo, uint64_t len)
{
	size_t fde = ot_inject_fde(out, sizeof(out), (uint64_t)(uintptr_t)table, lo, len);
	size_t cie_len, at = 4, fde_len;

	assert_true(fde > 0);
	cie_len = rd(out, 4) + 4;
	assert_int_equal(cie_len, fde);
	assert_int_equal(cie_len % 8, 0);
	assert_int_equal(rd(out + at, 4), 0);	/* a CIE: id 0 in .eh_frame */
	at += 4;
	assert_int_equal(out[at++], 1);		/* version */
	assert_string_equal((const char *)out + at, "zR");
	at += 3;
	assert_int_equal(uleb(out, &at), 1);	/* code alignment */
	assert_int_equal(out[at++], 0x78);	/* data alignment: sleb -8 */
	assert_int_equal(out[at++], 16);	/* return address column: rip */
	assert_int_equal(uleb(out, &at), 1);	/* augmentation data: */
	assert_int_equal(out[at++], 0x00);	/* R: DW_EH_PE_absptr */
	/* DW_CFA_def_cfa rsp + 8: the SP before the trampoline's call. */
	assert_int_equal(out[at++], 0x0c);
	assert_int_equal(uleb(out, &at), 7);
	assert_int_equal(uleb(out, &at), 8);
	/* DW_CFA_val_offset rsp, 1 * -8: the caller's SP, CFA - 8. */
	assert_int_equal(out[at++], 0x14);
	assert_int_equal(uleb(out, &at), 7);
	assert_int_equal(uleb(out, &at), 1);
	/* DW_CFA_val_expression rip. */
	assert_int_equal(out[at++], 0x16);
	assert_int_equal(uleb(out, &at), 16);
	expr_len = uleb(out, &at);
	expr = out + at;
	at += expr_len;
	while (at < cie_len)
		assert_int_equal(out[at++], 0);	/* DW_CFA_nop padding */
	/* The FDE: its CIE pointer counts back from itself to the CIE. */
	fde_len = rd(out + fde, 4) + 4;
	assert_int_equal(fde_len % 8, 0);
	assert_int_equal(rd(out + fde + 4, 4), fde + 4);
	assert_int_equal(rd(out + fde + 8, 8), lo);
	assert_int_equal(rd(out + fde + 16, 8), len);
	assert_int_equal(out[fde + 24], 0);	/* no augmentation data */
	for (at = fde + 25; at < fde + fde_len; at++)
		assert_int_equal(out[at], 0);
	assert_int_equal(rd(out + fde + fde_len, 4), 0);	/* the terminator */
	return fde;
}

static void put_entry(size_t i, uint64_t key, uint64_t ret)
{
	memcpy(table + i * OT_INJ_ENT_SIZE + OT_INJ_E_KEY, &key, 8);
	memcpy(table + i * OT_INJ_ENT_SIZE + OT_INJ_E_RET, &ret, 8);
}

static size_t hash(uint64_t key)
{
	return (size_t)(key >> 3) & OT_INJ_TABLE_MASK;
}

static void test_layout(void **state)
{
	(void)state;
	parse(0x7f0000001000, 0x40);
	parse(0, 1);
}

static void test_too_small(void **state)
{
	uint8_t small[64];

	(void)state;
	assert_int_equal(ot_inject_fde(small, sizeof(small), 0x1000, 0x2000, 16), 0);
}

/* The CFA is the trampoline's SP + 8; the slot its return address was
 * hijacked from, the one below the caller's SP: CFA - 16. */
static void test_expression(void **state)
{
	uint64_t cfa = 0x7ffc12345670, key = cfa - 16, other = cfa + 0x1000 - 16;
	uint64_t wrap_cfa = ((uint64_t)OT_INJ_TABLE_MASK << 3) + 16 + 0x7ff000000000;

	(void)state;
	memset(table, 0, sizeof(table));
	parse(0x401000, 32);
	/* Absent: 0, which ends the unwinding. */
	assert_int_equal(run_expr(expr, expr_len, cfa), 0);
	/* At its hash. */
	put_entry(hash(key), key, 0x401234);
	assert_int_equal(run_expr(expr, expr_len, cfa), 0x401234);
	/* After a collision: another slot's entry where it hashes. */
	memset(table, 0, sizeof(table));
	put_entry(hash(key), other, 0x999);
	put_entry(hash(key) + 1, key, 0x405678);
	assert_int_equal(run_expr(expr, expr_len, cfa), 0x405678);
	/* Another slot's entry only: still absent. */
	put_entry(hash(key) + 1, 0, 0);
	assert_int_equal(run_expr(expr, expr_len, cfa), 0);
	/* At the table's last entry, its successor the first. */
	memset(table, 0, sizeof(table));
	key = wrap_cfa - 16;
	assert_int_equal(hash(key), OT_INJ_TABLE_MASK);
	put_entry(OT_INJ_TABLE_MASK, key + 8 * (OT_INJ_TABLE_MASK + 1), 0x111);
	put_entry(0, key, 0x222);
	assert_int_equal(run_expr(expr, expr_len, wrap_cfa), 0x222);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_expression),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
