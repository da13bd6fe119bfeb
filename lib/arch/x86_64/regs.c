/*
 * regs.c - x86-64's registers for lib/arch/arch.h: USDT operands in AT&T
 * syntax ("-4@112(%rsp)"), and the DWARF, perf and pt_regs numbering.
 */
#include "arch/arch.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x86-64's integer registers by every name the assembler gives a part of
 * them: the perf number, and the bits the name covers. */
static const struct {
	const char *name;
	int8_t reg;
	uint8_t bits, shift;
} regs[] = {
	{ "rax", 0, 64, 0 }, { "eax", 0, 32, 0 }, { "ax", 0, 16, 0 }, { "al", 0, 8, 0 }, { "ah", 0, 8, 8 },
	{ "rbx", 1, 64, 0 }, { "ebx", 1, 32, 0 }, { "bx", 1, 16, 0 }, { "bl", 1, 8, 0 }, { "bh", 1, 8, 8 },
	{ "rcx", 2, 64, 0 }, { "ecx", 2, 32, 0 }, { "cx", 2, 16, 0 }, { "cl", 2, 8, 0 }, { "ch", 2, 8, 8 },
	{ "rdx", 3, 64, 0 }, { "edx", 3, 32, 0 }, { "dx", 3, 16, 0 }, { "dl", 3, 8, 0 }, { "dh", 3, 8, 8 },
	{ "rsi", 4, 64, 0 }, { "esi", 4, 32, 0 }, { "si", 4, 16, 0 }, { "sil", 4, 8, 0 },
	{ "rdi", 5, 64, 0 }, { "edi", 5, 32, 0 }, { "di", 5, 16, 0 }, { "dil", 5, 8, 0 },
	{ "rbp", 6, 64, 0 }, { "ebp", 6, 32, 0 }, { "bp", 6, 16, 0 }, { "bpl", 6, 8, 0 },
	{ "rsp", 7, 64, 0 }, { "esp", 7, 32, 0 }, { "sp", 7, 16, 0 }, { "spl", 7, 8, 0 },
	{ "rip", 8, 64, 0 },
	{ "r8", 16, 64, 0 }, { "r8d", 16, 32, 0 }, { "r8w", 16, 16, 0 }, { "r8b", 16, 8, 0 },
	{ "r9", 17, 64, 0 }, { "r9d", 17, 32, 0 }, { "r9w", 17, 16, 0 }, { "r9b", 17, 8, 0 },
	{ "r10", 18, 64, 0 }, { "r10d", 18, 32, 0 }, { "r10w", 18, 16, 0 }, { "r10b", 18, 8, 0 },
	{ "r11", 19, 64, 0 }, { "r11d", 19, 32, 0 }, { "r11w", 19, 16, 0 }, { "r11b", 19, 8, 0 },
	{ "r12", 20, 64, 0 }, { "r12d", 20, 32, 0 }, { "r12w", 20, 16, 0 }, { "r12b", 20, 8, 0 },
	{ "r13", 21, 64, 0 }, { "r13d", 21, 32, 0 }, { "r13w", 21, 16, 0 }, { "r13b", 21, 8, 0 },
	{ "r14", 22, 64, 0 }, { "r14d", 22, 32, 0 }, { "r14w", 22, 16, 0 }, { "r14b", 22, 8, 0 },
	{ "r15", 23, 64, 0 }, { "r15d", 23, 32, 0 }, { "r15w", 23, 16, 0 }, { "r15b", 23, 8, 0 },
};
#define NREGS (sizeof(regs) / sizeof(*regs))

const char *ot_arch_usdt_reg_name(int reg)
{
	size_t i;

	for (i = 0; i < NREGS; i++)
		if (regs[i].reg == reg && regs[i].bits == 64)
			return regs[i].name;
	return "?";
}

/* "%name" at *p: its table entry, *p past it; or -1. */
static int reg_at(const char **p)
{
	const char *s = *p;
	size_t n = 0, i;

	if (*s != '%')
		return -1;
	s++;
	while (isalnum((unsigned char)s[n]))
		n++;
	for (i = 0; i < NREGS; i++)
		if (strlen(regs[i].name) == n && !strncmp(regs[i].name, s, n)) {
			*p = s + n;
			return (int)i;
		}
	return -1;
}

/* "(%base)", "(%base,%idx)", "(%base,%idx,scale)", "(,%idx,scale)" at p. */
static int mem_operand(const char *p, struct ot_usdt_arg *a, char *why, size_t whylen)
{
	int r;

	if (*p++ != '(')
		goto bad;
	if (*p != ',') {
		if ((r = reg_at(&p)) < 0)
			goto badreg;
		a->reg = regs[r].reg;
	}
	if (*p == ',') {
		p++;
		if ((r = reg_at(&p)) < 0)
			goto badreg;
		a->idx = regs[r].reg;
		a->scale = 1;
		if (*p == ',') {
			char *end;
			long s = strtol(p + 1, &end, 10);

			if (end == p + 1 || (s != 1 && s != 2 && s != 4 && s != 8))
				goto bad;
			a->scale = (uint8_t)s;
			p = end;
		}
	}
	if (strcmp(p, ")"))
		goto bad;
	if (a->reg == OT_ARCH_REG_IP) {
		if (a->idx >= 0)
			goto bad;
		a->kind = OT_USDT_ARG_RIP;
		a->reg = -1;
	}
	return 0;
badreg:
	snprintf(why, whylen, "unknown register in '%s'", p);
	return -EINVAL;
bad:
	snprintf(why, whylen, "malformed memory operand");
	return -EINVAL;
}

/* "sym", "sym+8", "sym-8", "-8", "112" before '(' : off, and sym for %rip. */
static int displacement(const char *s, size_t n, struct ot_usdt_arg *a)
{
	char buf[128], *end;
	size_t k = 0;

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!n)
		return 0;
	if (isalpha((unsigned char)buf[0]) || buf[0] == '_' || buf[0] == '.') {
		while (k < n && buf[k] != '+' && buf[k] != '-')
			k++;
		if (k >= sizeof(a->sym))
			return -EINVAL;
		memcpy(a->sym, buf, k);
		a->sym[k] = 0;
		if (k == n)
			return 0;
	}
	a->off = strtoll(buf + k, &end, 0);
	return *end || end == buf + k ? -EINVAL : 0;
}


int ot_arch_usdt_operand(const char *spec, const char *p, struct ot_usdt_arg *out, char *why,
			 size_t whylen)
{
	struct ot_usdt_arg a = *out;
	const char *open;
	char *end;
	int r;

	if (*p == '$') {
		a.kind = OT_USDT_ARG_CONST;
		a.off = strtoll(p + 1, &end, 0);
		if (end == p + 1 || *end)
			goto bad;
	} else if (*p == '%') {
		a.kind = OT_USDT_ARG_REG;
		if ((r = reg_at(&p)) < 0 || *p || regs[r].reg == OT_ARCH_REG_IP)
			goto badreg;
		a.reg = regs[r].reg;
		a.shift = regs[r].shift;
		/* "4@%rax" and "8@%eax" alike read what both say: the smaller. */
		if (regs[r].bits / 8 < a.size)
			a.size = regs[r].bits / 8;
	} else if ((open = strchr(p, '('))) {
		a.kind = OT_USDT_ARG_MEM;
		if (displacement(p, (size_t)(open - p), &a))
			goto bad;
		if (mem_operand(open, &a, why, whylen)) {
			size_t used = strlen(why);

			snprintf(why + used, whylen - used, " in '%s'", spec);
			return -EINVAL;
		}
		if (a.sym[0] && a.kind != OT_USDT_ARG_RIP)
			goto bad;
	} else {
		goto bad;
	}
	*out = a;
	return 0;
badreg:
	snprintf(why, whylen, "'%s': unknown register", spec);
	return -EINVAL;
bad:
	snprintf(why, whylen, "'%s': not an x86-64 operand (N@%%reg, N@off(%%reg), "
		 "N@off(%%reg,%%idx,scale), N@$const, N@sym(%%rip))", spec);
	return -EINVAL;
}

const char *ot_arch_perf_reg_name(int reg)
{
	/* perf's names (regs_query_register_offset), by perf number. */
	static const char *const names[OT_ARCH_NREGS] = {
		"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip", NULL, NULL, NULL, NULL,
		NULL, NULL, NULL, "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};

	return reg >= 0 && reg < OT_ARCH_NREGS ? names[reg] : NULL;
}

int ot_arch_dwarf_reg(unsigned dwreg)
{
	/* DWARF's x86-64 order: rax rdx rcx rbx rsi rdi rbp rsp r8..r15. */
	static const int perf[16] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23 };

	return dwreg < 16 ? perf[dwreg] : -1;
}

int ot_arch_pt_regs_off(int reg)
{
	/* struct pt_regs (arch/x86/include/asm/ptrace.h), by perf number. */
	static const int16_t off[OT_ARCH_NREGS] = {
		[0] = 80, [1] = 40, [2] = 88, [3] = 96, [4] = 104, [5] = 112, [6] = 32,
		[7] = 152, [8] = 128, [9 ... 15] = -1, [16] = 72, [17] = 64, [18] = 56, [19] = 48,
		[20] = 24, [21] = 16, [22] = 8, [23] = 0,
	};

	return reg >= 0 && reg < OT_ARCH_NREGS ? off[reg] : -1;
}
