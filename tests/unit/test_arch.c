/*
 * The machine's folder (lib/arch/x86_64) against independent sources: the
 * kernel's own headers (perf register numbers, struct pt_regs), the
 * x86-64 psABI's DWARF numbering, capstone decoding the trampolines'
 * bytes, and the kernel running a raw system call.  Another machine's
 * folder has its own.
 */
#if !defined(__x86_64__)
#include <stdio.h>
int main(void)
{
	puts("test_arch: x86-64's folder, skipped on this machine");
	return 0;
}
#else
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <asm/perf_regs.h>
#include <asm/ptrace.h>
#include <capstone/capstone.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/arch/arch.h"
#include "lib/arch/x86_64/ptregs.h"
#include "lib/arch/x86_64/relocate.h"
#include "lib/arch/x86_64/trampcode.h"

static const struct {
	const char *name;	/* as a USDT operand writes it */
	int perf;		/* the kernel's number */
	size_t pt;		/* where struct pt_regs keeps it */
	int dwarf;		/* the psABI's number, -1 none */
} regs[] = {
	{ "rax", PERF_REG_X86_AX, offsetof(struct pt_regs, rax), 0 },
	{ "rdx", PERF_REG_X86_DX, offsetof(struct pt_regs, rdx), 1 },
	{ "rcx", PERF_REG_X86_CX, offsetof(struct pt_regs, rcx), 2 },
	{ "rbx", PERF_REG_X86_BX, offsetof(struct pt_regs, rbx), 3 },
	{ "rsi", PERF_REG_X86_SI, offsetof(struct pt_regs, rsi), 4 },
	{ "rdi", PERF_REG_X86_DI, offsetof(struct pt_regs, rdi), 5 },
	{ "rbp", PERF_REG_X86_BP, offsetof(struct pt_regs, rbp), 6 },
	{ "rsp", PERF_REG_X86_SP, offsetof(struct pt_regs, rsp), 7 },
	{ "r8", PERF_REG_X86_R8, offsetof(struct pt_regs, r8), 8 },
	{ "r9", PERF_REG_X86_R9, offsetof(struct pt_regs, r9), 9 },
	{ "r10", PERF_REG_X86_R10, offsetof(struct pt_regs, r10), 10 },
	{ "r11", PERF_REG_X86_R11, offsetof(struct pt_regs, r11), 11 },
	{ "r12", PERF_REG_X86_R12, offsetof(struct pt_regs, r12), 12 },
	{ "r13", PERF_REG_X86_R13, offsetof(struct pt_regs, r13), 13 },
	{ "r14", PERF_REG_X86_R14, offsetof(struct pt_regs, r14), 14 },
	{ "r15", PERF_REG_X86_R15, offsetof(struct pt_regs, r15), 15 },
	{ "rip", PERF_REG_X86_IP, offsetof(struct pt_regs, rip), -1 },
};
#define NREGS (sizeof(regs) / sizeof(*regs))

/* Each register by every numbering lib/ uses, as the kernel and psABI say. */
static void test_registers(void **state)
{
	char spec[16], why[256];
	size_t i;

	(void)state;
	assert_int_equal(OT_ARCH_NREGS, PERF_REG_X86_64_MAX);
	assert_int_equal(OT_ARCH_REG_SP, PERF_REG_X86_SP);
	assert_int_equal(OT_ARCH_REG_IP, PERF_REG_X86_IP);
	for (i = 0; i < NREGS; i++) {
		struct ot_usdt_arg a;

		assert_int_equal(ot_arch_pt_regs_off(regs[i].perf), (int)regs[i].pt);
		assert_string_equal(ot_arch_usdt_reg_name(regs[i].perf), regs[i].name);
		if (regs[i].dwarf >= 0)
			assert_int_equal(ot_arch_dwarf_reg((unsigned)regs[i].dwarf), regs[i].perf);
		snprintf(spec, sizeof(spec), "8@%%%s", regs[i].name);
		if (regs[i].perf == PERF_REG_X86_IP) {	/* no operand reads it alone */
			assert_int_equal(ot_usdt_arg_parse(spec, &a, why, sizeof(why)), -EINVAL);
			continue;
		}
		assert_int_equal(ot_usdt_arg_parse(spec, &a, why, sizeof(why)), 0);
		assert_int_equal(a.kind, OT_USDT_ARG_REG);
		assert_int_equal(a.reg, regs[i].perf);
	}
	assert_int_equal(ot_arch_dwarf_reg(OT_ARCH_DWARF_SP), PERF_REG_X86_SP);
	assert_int_equal(OT_ARCH_DWARF_RA, 16);		/* the psABI's RA column */
	assert_int_equal(ot_arch_dwarf_reg(OT_ARCH_DWARF_RA), -1);
	assert_int_equal(ot_arch_pt_regs_off(PERF_REG_X86_FLAGS), -1);
	assert_string_equal(ot_arch_perf_reg_name(PERF_REG_X86_SP), "sp");
	assert_null(ot_arch_perf_reg_name(PERF_REG_X86_CS));
}

/* A perf sample's registers, in mask bit order, land by perf number; the
 * C ABI's arguments are the registers arch_defs.h names. */
static void test_sample_regs(void **state)
{
	static const int8_t abi[OT_ARCH_NARGS] = OT_ARCH_ARG_REGS_PERF;
	uint64_t r[OT_ARCH_NSAMPLE_REGS], regs_out[OT_ARCH_NREGS] = { 0 }, args[6], rc, sp;
	int bit, k = 0;

	(void)state;
	assert_int_equal(__builtin_popcountll(OT_ARCH_SAMPLE_REGS), OT_ARCH_NSAMPLE_REGS);
	for (k = 0; k < OT_ARCH_NSAMPLE_REGS; k++)
		r[k] = 1000 + (uint64_t)k;
	ot_arch_sample_regs(r, regs_out, args, &rc, &sp);
	for (bit = 0, k = 0; bit < 64; bit++)
		if (OT_ARCH_SAMPLE_REGS >> bit & 1)
			assert_int_equal(regs_out[bit], r[k++]);
	for (k = 0; k < OT_ARCH_NARGS; k++)
		assert_int_equal(args[k], regs_out[abi[k]]);
	assert_int_equal(rc, regs_out[PERF_REG_X86_AX]);
	assert_int_equal(sp, regs_out[PERF_REG_X86_SP]);
	assert_int_equal(abi[0], PERF_REG_X86_DI);
	assert_int_equal(abi[5], PERF_REG_X86_R9);
}

/* Short branches, rel32 fields and capstone's direct branches. */
static void test_decode(void **state)
{
	/* call +0x10; nop; jmp .-2 (rel8) */
	static const uint8_t code[] = { 0xe8, 0x10, 0x00, 0x00, 0x00, 0x90, 0xeb, 0xfe };
	uint64_t t = 0, from = 0;

	(void)state;
	assert_int_equal(ot_arch_rel8_branch(code + 6, 0x1006, &t), 1);
	assert_int_equal(t, 0x1006);
	assert_int_equal(ot_arch_rel8_branch(code + 5, 0x1005, &t), 0);
	assert_int_equal(ot_arch_rel32_field(code, 1), 1);	/* after e8 */
	assert_int_equal(ot_arch_rel32_field(code, 6), 0);	/* after a nop */
	assert_int_equal(ot_arch_branch_inside(code, sizeof(code), 0x1000, 0x1008, 0x1010, 0x1020,
					       &t, &from), 1);
	assert_int_equal(t, 0x1015);
	assert_int_equal(from, 0x1000);
	assert_int_equal(ot_arch_branch_inside(code, sizeof(code), 0x1000, 0x1008, 0x2000, 0x2010,
					       &t, &from), 0);
}

/* The trampoline heads decode, by capstone, into what trampcode.h says. */
static void test_trampolines(void **state)
{
	uint8_t t[64], p[OT_PATCH_LEN];
	cs_insn *insn;
	csh cs;
	size_t n, count;

	(void)state;
	assert_int_equal(cs_open(CS_ARCH_X86, CS_MODE_64, &cs), CS_ERR_OK);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	n = ot_tramp_entry(t, 0x10000, 42, 0x10800);
	assert_int_equal(n, OT_TRAMP_ENTRY_LEN);
	count = cs_disasm(cs, t, n, 0x10000, 0, &insn);
	assert_int_equal(count, 4);
	assert_int_equal(insn[0].id, X86_INS_PUSH);
	assert_int_equal(insn[1].id, X86_INS_MOV);
	assert_int_equal(insn[1].detail->x86.operands[1].imm, 42);
	assert_int_equal(insn[2].id, X86_INS_CALL);
	assert_int_equal(insn[2].detail->x86.operands[0].mem.base, X86_REG_RIP);
	assert_int_equal(insn[2].address + insn[2].size +
			 (uint64_t)insn[2].detail->x86.operands[0].mem.disp, 0x10800);
	assert_int_equal(insn[3].id, X86_INS_POP);
	cs_free(insn, count);
	assert_int_equal(ot_tramp_jump(p, 0x400000, 0x400100), 0);
	count = cs_disasm(cs, p, sizeof(p), 0x400000, 0, &insn);
	assert_int_equal(count, 1);
	assert_int_equal(insn[0].id, X86_INS_JMP);
	assert_int_equal(insn[0].detail->x86.operands[0].imm, 0x400100);
	cs_free(insn, count);
	assert_int_equal(ot_tramp_jump(p, 0x400000, 0x400000 + (1ull << 32)), -1);
	cs_close(&cs);
}

/* A system call stopped in and restarted as the kernel would; the raw
 * system call the held child makes. */
static void test_machine(void **state)
{
	struct user_regs_struct r = { 0 };
	struct ot_tracee_saved s;

	(void)state;
	r.orig_rax = SYS_read;
	r.rax = (unsigned long long)-OT_ERESTARTSYS;
	r.rip = 0x1002;
	r.eflags = 0x346;	/* the trap flag among others */
	assert_true(ot_ptregs_in_syscall(&r));
	ot_ptregs_restart(&r);
	assert_int_equal(r.rax, SYS_read);
	assert_int_equal(ot_ptregs_pc(&r), 0x1000);
	assert_false(ot_ptregs_in_syscall(&r));
	s = ot_ptregs_saved(&r);
	assert_int_equal(s.rflags, 0x246);
	assert_int_equal(s.rip, 0x1000);
	assert_int_equal(ot_arch_syscall3(SYS_getpid, 0, 0, 0), getpid());
	assert_int_equal(ot_arch_syscall3(SYS_close, -1, 0, 0), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_sample_regs),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_trampolines),
		cmocka_unit_test(test_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
