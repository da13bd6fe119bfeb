/*
 * operand.c - the machine code an inject USDT trampoline runs to read one
 * probe operand into rax, as its note spells it, extended from its size
 * (operand.h); pure.
 */
#include "operand.h"
#include "x86emit.h"
#include "symbols/usdt.h"

#include <string.h>

#define RAX 0
#define RSP 4

/* The x86 encoding of a register by its perf number; -1 for rip and
 * numbers that are not general registers. */
static int x86_reg(int perf)
{
	static const int8_t map[OT_USDT_NREGS] = {
		0, 3, 1, 2, 6, 7, 5, 4,			/* ax bx cx dx si di bp sp */
		-1, -1, -1, -1, -1, -1, -1, -1,		/* ip, flags, segments */
		8, 9, 10, 11, 12, 13, 14, 15,		/* r8..r15 */
	};

	return perf >= 0 && perf < OT_USDT_NREGS ? map[perf] : -1;
}

/* The load into rax of size bytes, extended as is_signed says: REX.W
 * into *w, the opcode into op; its length. */
static size_t load_op(unsigned size, int is_signed, uint8_t *w, uint8_t op[2])
{
	*w = is_signed ? 1 : 0;
	switch (size) {
	case 1:
	case 2:
		op[0] = 0x0f;
		op[1] = (uint8_t)(size == 1 ? (is_signed ? 0xbe : 0xb6) : (is_signed ? 0xbf : 0xb7));
		return 2;
	case 4:
		op[0] = is_signed ? 0x63 : 0x8b;	/* movslq; a 32-bit mov zero-extends */
		return 1;
	default:
		*w = 1;
		op[0] = 0x8b;
		return 1;
	}
}

/* rax = register r (x86 number), size bytes of it extended: its length. */
static size_t from_reg(uint8_t *p, int r, unsigned size, int is_signed)
{
	uint8_t w, op[2];
	size_t n = load_op(size, is_signed, &w, op), k = 0;

	p[k++] = (uint8_t)(0x40 | w << 3 | (r >= 8));	/* REX: sil, dil are bytes */
	memcpy(p + k, op, n);
	k += n;
	p[k++] = (uint8_t)(0xc0 | (r & 7));
	return k;
}

/* rax = size bytes at disp(base, index, scale) (-1: none), extended. */
static size_t from_mem(uint8_t *p, int base, int index, unsigned scale, int32_t disp,
		       unsigned size, int is_signed)
{
	uint8_t w, op[2], ss = (uint8_t)(scale == 8 ? 3 : scale == 4 ? 2 : scale == 2 ? 1 : 0);
	size_t n = load_op(size, is_signed, &w, op), k = 0;

	p[k++] = (uint8_t)(0x40 | w << 3 | (index >= 8) << 1 | (base >= 8));
	memcpy(p + k, op, n);
	k += n;
	/* Always a SIB and a disp32: one form for every base, rsp, rbp and
	 * r12, r13 included; no base is mod 00 with SIB base 101. */
	p[k++] = base < 0 ? 0x04 : 0x84;
	p[k++] = (uint8_t)(ss << 6 | (index < 0 ? 4 : index & 7) << 3 | (base < 0 ? 5 : base & 7));
	put32(p + k, disp);
	return k + 4;
}

/* rax = imm. */
static size_t movabs(uint8_t *p, uint64_t imm)
{
	p[0] = 0x48;
	p[1] = 0xb8;
	memcpy(p + 2, &imm, 8);
	return 10;
}

/* rax = the site's rax, which the trampoline saved at 0(%rsp). */
static size_t site_rax(uint8_t *p)
{
	memcpy(p, "\x48\x8b\x04\x24", 4);
	return 4;
}

/* A register operand: its length, or -1 with *why. */
static int reg_code(const struct ot_usdt_arg *a, int32_t below, uint8_t *p, const char **why)
{
	int r = x86_reg(a->reg);
	size_t k = 0;

	if (r < 0) {
		*why = "the operand is not a general register";
		return -1;
	}
	if (a->shift) {
		/* %ah, %bh, %ch, %dh: their encodings 4-7 without a REX. */
		if (a->shift != 8 || a->size != 1 || r > 3) {
			*why = "the operand is part of a register no instruction reads alone";
			return -1;
		}
		if (r == RAX)
			k = site_rax(p);
		p[k++] = 0x0f;
		p[k++] = a->is_signed ? 0xbe : 0xb6;
		p[k++] = (uint8_t)(0xc0 | (4 + r));
		if (a->is_signed) {
			memcpy(p + k, "\x48\x63\xc0", 3);	/* movslq %eax,%rax */
			k += 3;
		}
		return (int)k;
	}
	if (r == RAX || r == RSP) {
		if (r == RAX) {
			k = site_rax(p);
		} else {
			memcpy(p, "\x48\x8d\x84\x24", 4);	/* lea below(%rsp),%rax */
			put32(p + 4, below);
			k = 8;
		}
		if (a->size < 8)
			k += from_reg(p + k, RAX, a->size, a->is_signed);
		return (int)k;
	}
	return (int)from_reg(p, r, a->size, a->is_signed);
}

/* A memory operand off(base, index, scale): its length, or -1 with *why. */
static int mem_code(const struct ot_usdt_arg *a, int32_t below, uint8_t *p, const char **why)
{
	int base = a->reg >= 0 ? x86_reg(a->reg) : -1, index = a->idx >= 0 ? x86_reg(a->idx) : -1;
	int64_t disp = a->off + (base == RSP ? below : 0);
	size_t k = 0;

	if ((a->reg >= 0 && base < 0) || (a->idx >= 0 && index < 0) || index == RSP) {
		*why = "the operand's address uses a register no instruction can";
		return -1;
	}
	if (!fits32(disp)) {
		*why = "the operand's displacement does not fit 32 bits";
		return -1;
	}
	if (base == RAX || index == RAX)
		k = site_rax(p);
	return (int)(k + from_mem(p + k, base, index, a->scale ? a->scale : 1, (int32_t)disp,
				  a->size, a->is_signed));
}

int ot_operand_code(const struct ot_usdt_arg *a, uint64_t site_addr, int32_t below,
		    uint8_t out[OT_OPERAND_MAX], const char **why)
{
	uint64_t x;
	size_t k;

	*why = NULL;
	switch (a->kind) {
	case OT_USDT_ARG_REG:
		return reg_code(a, below, out, why);
	case OT_USDT_ARG_MEM:
		return mem_code(a, below, out, why);
	case OT_USDT_ARG_RIP:
		k = movabs(out, site_addr + (uint64_t)a->off);
		return (int)(k + from_mem(out + k, RAX, -1, 1, 0, a->size, a->is_signed));
	case OT_USDT_ARG_CONST:
		/* The constant as the probe's size and sign make it. */
		x = (uint64_t)a->off;
		if (a->size < 8) {
			x &= (1ull << (a->size * 8)) - 1;
			if (a->is_signed && (x >> (a->size * 8 - 1) & 1))
				x |= ~0ull << (a->size * 8);
		}
		return (int)movabs(out, x);
	default:
		*why = "the operand is a form USDT notes do not have";
		return -1;
	}
}
