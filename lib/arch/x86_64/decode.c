/*
 * decode.c - x86-64's instructions for lib/arch/arch.h: which bytes can be
 * a rel32 field, a short branch, and the direct branches capstone decodes.
 */
#include "arch/arch.h"

#include <capstone/capstone.h>

/*
 * Whether the 4 bytes at b[q] can be a displacement that some instruction
 * adds to the address after them: the byte before is an opcode that takes
 * a rel32 (call e8, jmp e9, jcc 0f 8x, xbegin c7 f8, whose abort lands at
 * its target) or a ModRM of mod 00, rm 101 (RIP-relative: lea label(%rip)
 * and every other operand).  Still bytes, not decoding: such a field is
 * preceded by one of these wherever instructions start, so no desync can
 * hide one; it only drops the windows that no instruction reads as one.
 * The first bytes of a section have no known byte before them: kept.
 */
int ot_arch_rel32_field(const uint8_t *b, size_t q)
{
	uint8_t p;

	if (!q)
		return 1;
	p = b[q - 1];
	if (p == 0xe8 || p == 0xe9 || (p & 0xc7) == 0x05)
		return 1;
	return q < 2 || (b[q - 2] == 0x0f && (p & 0xf0) == 0x80) || (b[q - 2] == 0xc7 && p == 0xf8);
}

/* jmp (eb), jcc (70-7f), loop, loope, loopne, jrcxz (e0-e3), rel8. */
int ot_arch_rel8_branch(const uint8_t *b, uint64_t at, uint64_t *target)
{
	uint8_t op = b[0];

	if (op != 0xeb && (op < 0x70 || op > 0x7f) && (op < 0xe0 || op > 0xe3))
		return 0;
	*target = at + 2 + (uint64_t)(int64_t)(int8_t)b[1];
	return 1;
}

int ot_arch_branch_inside(const uint8_t *code, size_t len, uint64_t addr, uint64_t to,
			  uint64_t lo, uint64_t hi, uint64_t *target, uint64_t *from)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t a = addr;
	cs_insn *insn;
	int ret = -1;
	csh cs;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -1;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(cs);
	while (a < to && left && cs_disasm_iter(cs, &p, &left, &a, insn)) {
		const cs_x86 *x = &insn->detail->x86;
		uint64_t t;

		if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM ||
		    !(cs_insn_group(cs, insn, CS_GRP_JUMP) || cs_insn_group(cs, insn, CS_GRP_CALL) ||
		      cs_insn_group(cs, insn, CS_GRP_BRANCH_RELATIVE)))
			continue;
		t = (uint64_t)x->operands[0].imm;
		if (t > lo && t < hi) {
			*target = t;
			*from = insn->address;
			ret = 1;
			break;
		}
	}
	if (ret < 0 && (a >= to || !left))
		ret = 0;
	cs_free(insn, 1);
	cs_close(&cs);
	return ret;
}
