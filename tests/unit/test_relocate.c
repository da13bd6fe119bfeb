/*
 * The relocator (lib/arch/x86_64/relocate) on synthetic prologues and on real ones
 * read from libc and the unit fixture: what moved must compute the same
 * addresses from the trampoline - every branch target and RIP-relative
 * operand - a moved call must push the address after it in the function
 * and jump to the same target, and the jump back must land on the first
 * instruction left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/symbols/elfsym.h"
#include "lib/arch/x86_64/relocate.h"
#include "lib/symbols/select.h"

#if defined(__x86_64__)
#define FAR 0x7f0000000000ull	/* a trampoline out of reach of low code */

/* The absolute address insn refers to: a branch target or a RIP operand. */
static int refers_to(const cs_insn *insn, uint64_t *where)
{
	const cs_x86 *x = &insn->detail->x86;
	uint8_t k;

	for (k = 0; k < x->op_count; k++) {
		if (x->operands[k].type == X86_OP_IMM && x->op_count == 1 &&
		    (insn->id == X86_INS_CALL || insn->id == X86_INS_JMP ||
		     (insn->id >= X86_INS_JAE && insn->id <= X86_INS_JS))) {
			*where = (uint64_t)x->operands[k].imm;
			return 1;
		}
		if (x->operands[k].type == X86_OP_MEM && x->operands[k].mem.base == X86_REG_RIP) {
			*where = insn->address + insn->size + (uint64_t)x->operands[k].mem.disp;
			return 1;
		}
		if (x->operands[k].type == X86_OP_MEM && x->operands[k].mem.base == X86_REG_EIP) {
			*where = (uint32_t)(insn->address + insn->size + (uint64_t)x->operands[k].mem.disp);
			return 1;
		}
	}
	return 0;
}

/* A moved call: the address after it pushed (two movl below the stack
 * pointer, then lea moves it: a stack overflow faults before it moves),
 * then a jump to the same target; j indexes the moved code. */
static void same_call(const cs_insn *a, const cs_insn *b, size_t nb, size_t j)
{
	uint64_t wa, wb, ret;

	assert_true(j + 3 < nb);
	assert_int_equal(b[j].id, X86_INS_MOV);
	assert_int_equal(b[j].detail->x86.operands[0].mem.base, X86_REG_RSP);
	assert_int_equal(b[j].detail->x86.operands[0].mem.disp, -8);
	assert_int_equal(b[j + 1].id, X86_INS_MOV);
	assert_int_equal(b[j + 1].detail->x86.operands[0].mem.disp, -4);
	assert_int_equal(b[j + 2].id, X86_INS_LEA);
	assert_int_equal(b[j + 3].id, X86_INS_JMP);
	ret = (uint32_t)b[j].detail->x86.operands[1].imm |
	      (uint64_t)(uint32_t)b[j + 1].detail->x86.operands[1].imm << 32;
	assert_int_equal(ret, a->address + a->size);
	if (refers_to(a, &wa)) {
		assert_true(refers_to(&b[j + 3], &wb));
		assert_int_equal(wa, wb);
	} else {
		assert_int_equal(b[j + 3].detail->x86.op_count, a->detail->x86.op_count);
		assert_int_equal(b[j + 3].detail->x86.operands[0].type, a->detail->x86.operands[0].type);
		assert_int_equal(b[j + 3].detail->x86.operands[0].reg, a->detail->x86.operands[0].reg);
	}
}

/* The moved code means what the original meant; returns instructions checked. */
static size_t same_meaning(const uint8_t *code, uint64_t addr, const struct ot_reloc *r,
			   uint64_t tramp)
{
	cs_insn *a, *b;
	size_t na, nb, i, j = 0;
	csh cs;

	assert_int_equal(cs_open(CS_ARCH_X86, CS_MODE_64, &cs), CS_ERR_OK);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	na = cs_disasm(cs, code + r->patch_at, r->covered, addr + r->patch_at, 0, &a);
	nb = cs_disasm(cs, r->code, r->len, tramp, 0, &b);
	assert_int_equal(na, r->moved);
	for (i = 0; i < na; i++) {
		uint64_t wa, wb;
		int ra, rb;

		if (a[i].id == X86_INS_CALL) {
			assert_int_equal(i, na - 1);	/* a call is the last moved */
			same_call(&a[i], b, nb, j);
			j += 4;
			continue;
		}
		ra = refers_to(&a[i], &wa);
		rb = refers_to(&b[j], &wb);
		assert_int_equal(a[i].id, b[j].id);
		assert_int_equal(ra, rb);
		if (ra)
			assert_int_equal(wa, wb);
		j++;
	}
	assert_int_equal(nb, j + 1);	/* and the jump back */
	assert_int_equal(b[j].id, X86_INS_JMP);
	assert_int_equal((uint64_t)b[j].detail->x86.operands[0].imm,
			 addr + r->patch_at + r->covered);
	cs_free(a, na);
	cs_free(b, nb);
	cs_close(&cs);
	return na;
}

static void test_synthetic(void **state)
{
	/* endbr64; push %rbp; mov %rsp,%rbp; sub $0x10,%rsp; ret */
	static const uint8_t frame[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5,
					 0x48, 0x83, 0xec, 0x10, 0xc9, 0xc3 };
	/* mov 0x100(%rip),%rax; ret */
	static const uint8_t riprel[] = { 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3 };
	/* test %edi,%edi; je +0x20 (short, out of the patch); xor %eax,%eax; ret */
	static const uint8_t jcc[] = { 0x85, 0xff, 0x74, 0x20, 0x31, 0xc0, 0xc3 };
	/* jmp +0x40 (short); then padding */
	static const uint8_t jmp8[] = { 0xeb, 0x40, 0x90, 0x90, 0x90, 0x90, 0x90 };
	/* call +0x1000; ret */
	static const uint8_t call[] = { 0xe8, 0x00, 0x10, 0x00, 0x00, 0xc3 };
	/* sub $8,%rsp; call +0x200; add $8,%rsp; ret */
	static const uint8_t wrap[] = { 0x48, 0x83, 0xec, 0x08, 0xe8, 0x00, 0x02, 0x00, 0x00,
					0x48, 0x83, 0xc4, 0x08, 0xc3 };
	/* call *0x2000(%rip); ret */
	static const uint8_t callrip[] = { 0xff, 0x15, 0x00, 0x20, 0x00, 0x00, 0xc3 };
	/* push %rbx; mov %rdi,%rbx; call *%rax; pop %rbx; ret */
	static const uint8_t callreg[] = { 0x53, 0x48, 0x89, 0xfb, 0xff, 0xd0, 0x5b, 0xc3 };
	/* addr32 mov 0x100(%eip),%rax; ret, the same at 0x7fff0000(%eip), and
	 * addr32 call *0x20(%eip); ret: EIP-relative, re-aimed like RIP-relative
	 * but modulo 4 GiB, so never out of reach (fuzzer) */
	static const uint8_t eiprel[] = { 0x67, 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3 };
	static const uint8_t eipwrap[] = { 0x67, 0x48, 0x8b, 0x05, 0x00, 0x00, 0xff, 0x7f, 0xc3 };
	static const uint8_t eipcall[] = { 0x67, 0xff, 0x15, 0x20, 0x00, 0x00, 0x00, 0xc3 };
	/* movw %ax,0x100(%rip); ret and cmpw $5,-0x200(%rip); ret: capstone
	 * says their displacement is 2 bytes (it is 4), they were refused (fuzzer) */
	static const uint8_t wordmov[] = { 0x66, 0x89, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3 };
	static const uint8_t wordcmp[] = { 0x66, 0x83, 0x3d, 0x00, 0xfe, 0xff, 0xff, 0x05, 0xc3 };
	const uint64_t addr = 0x401000;
	struct ot_reloc r;
	const char *why;

	(void)state;
	assert_int_equal(ot_relocate(frame, sizeof(frame), addr, addr + 0x100000, &r, &why), 0);
	assert_int_equal(r.patch_at, 4);	/* after endbr64 */
	assert_int_equal(r.covered, 8);		/* push, mov, sub: whole instructions */
	assert_int_equal(same_meaning(frame, addr, &r, addr + 0x100000), 3);
	assert_int_equal(ot_relocate(riprel, sizeof(riprel), addr, addr - 0x200000, &r, &why), 0);
	same_meaning(riprel, addr, &r, addr - 0x200000);
	assert_int_equal(ot_relocate(jcc, sizeof(jcc), addr, addr + 0x300000, &r, &why), 0);
	assert_int_equal(r.code[2], 0x0f);	/* je rel8 became je rel32 */
	same_meaning(jcc, addr, &r, addr + 0x300000);
	assert_int_equal(ot_relocate(jmp8, sizeof(jmp8), addr, addr + 0x300000, &r, &why), 0);
	assert_int_equal(r.code[0], 0xe9);
	same_meaning(jmp8, addr, &r, addr + 0x300000);
	assert_int_equal(ot_relocate(call, sizeof(call), addr, addr + 0x300000, &r, &why), 0);
	same_meaning(call, addr, &r, addr + 0x300000);
	/* A wrapper: the call ends the patch, its callee returns home. */
	assert_int_equal(ot_relocate(wrap, sizeof(wrap), addr, addr + 0x300000, &r, &why), 0);
	assert_int_equal(r.covered, 9);
	assert_int_equal(same_meaning(wrap, addr, &r, addr + 0x300000), 2);
	assert_int_equal(ot_relocate(callrip, sizeof(callrip), addr, addr - 0x300000, &r, &why), 0);
	same_meaning(callrip, addr, &r, addr - 0x300000);
	assert_int_equal(ot_relocate(callreg, sizeof(callreg), addr, addr + 0x300000, &r, &why), 0);
	same_meaning(callreg, addr, &r, addr + 0x300000);
	assert_int_equal(ot_relocate(eiprel, sizeof(eiprel), addr, addr + 0x300123, &r, &why), 0);
	same_meaning(eiprel, addr, &r, addr + 0x300123);
	assert_int_equal(ot_relocate(eipwrap, sizeof(eipwrap), addr, addr - 0x100000, &r, &why), 0);
	same_meaning(eipwrap, addr, &r, addr - 0x100000);
	assert_int_equal(ot_relocate(eipcall, sizeof(eipcall), addr, addr - 0x300000, &r, &why), 0);
	same_meaning(eipcall, addr, &r, addr - 0x300000);
	assert_int_equal(ot_relocate(wordmov, sizeof(wordmov), addr, addr + 0x300000, &r, &why), 0);
	same_meaning(wordmov, addr, &r, addr + 0x300000);
	assert_int_equal(ot_relocate(wordcmp, sizeof(wordcmp), addr, addr - 0x300000, &r, &why), 0);
	same_meaning(wordcmp, addr, &r, addr - 0x300000);
	assert_int_equal(r.code[7], 0x05);	/* the immediate after the displacement */
}

static void test_refusals(void **state)
{
	/* xor %eax,%eax; ret: 3 bytes */
	static const uint8_t tiny[] = { 0x31, 0xc0, 0xc3 };
	/* nop; nop; nop; nop; nop; nop; jmp -5 (into the patched bytes) */
	static const uint8_t into[] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xeb, 0xf9 };
	/* the same by loope, which capstone does not call a jump (fuzzer) */
	static const uint8_t loopinto[] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xe1, 0xf9, 0xc3 };
	/* loop -2 */
	static const uint8_t loop[] = { 0xe2, 0xfe, 0x90, 0x90, 0x90, 0x90, 0xc3 };
	/* mov 0x100(%rip),%rax with the trampoline too far */
	static const uint8_t riprel[] = { 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3 };
	/* call *%rax; mov %eax,%ebx; ...: the call returns inside the patch */
	static const uint8_t callmid[] = { 0xff, 0xd0, 0x89, 0xc3, 0x90, 0x90, 0xc3 };
	/* call *0x8(%rsp); ret, and addr32 call *0x8(%esp); ret (fuzzer) */
	static const uint8_t callsp[] = { 0xff, 0x54, 0x24, 0x08, 0x90, 0xc3 };
	static const uint8_t callesp[] = { 0x67, 0xff, 0x54, 0x24, 0x08, 0xc3 };
	/* push %rbx; pushfq; cli...: flags saved in the patched bytes */
	static const uint8_t pushf[] = { 0x53, 0x9c, 0x48, 0x89, 0xfb, 0x9d, 0x5b, 0xc3 };
	/* data16 call *0x100(%rip): a 2-byte push on AMD, 8 on Intel (fuzzer,
	 * on an AMD EPYC); with REX.W the prefix means nothing (TLS's
	 * data16 data16 rex.W call __tls_get_addr) */
	static const uint8_t callw[] = { 0x66, 0xff, 0x15, 0x00, 0x01, 0x00, 0x00, 0xc3 };
	static const uint8_t calltls[] = { 0x66, 0x66, 0x48, 0xff, 0x15, 0x00, 0x01, 0x00, 0x00, 0xc3 };
	struct ot_reloc r;
	const char *why;

	(void)state;
	assert_int_equal(ot_relocate(tiny, sizeof(tiny), 0x401000, 0x402000, &r, &why), -EINVAL);
	assert_string_equal(why, "the function is shorter than the 5-byte patch");
	assert_int_equal(ot_relocate(into, sizeof(into), 0x401000, 0x402000, &r, &why), -EINVAL);
	assert_string_equal(why, "a branch of the function lands inside the patched bytes");
	assert_int_equal(ot_relocate(loopinto, sizeof(loopinto), 0x401000, 0x402000, &r, &why),
			 -EINVAL);
	assert_string_equal(why, "a branch of the function lands inside the patched bytes");
	assert_int_equal(ot_relocate(loop, sizeof(loop), 0x401000, 0x402000, &r, &why), -EINVAL);
	assert_string_equal(why, "a loop or jrcxz instruction (rel8 only) is in the patched bytes");
	assert_int_equal(ot_relocate(riprel, sizeof(riprel), 0x401000, FAR, &r, &why), -EINVAL);
	assert_string_equal(why, "a RIP-relative operand is out of rel32 reach of the trampoline");
	assert_int_equal(ot_relocate(callmid, sizeof(callmid), 0x401000, 0x402000, &r, &why), -EINVAL);
	assert_string_equal(why, "a call in the patched bytes is not their last instruction (a thread "
			    "in its callee would return into the patch)");
	assert_int_equal(ot_relocate(callsp, sizeof(callsp), 0x401000, 0x402000, &r, &why), -EINVAL);
	assert_string_equal(why, "a call through the stack pointer is in the patched bytes");
	assert_int_equal(ot_relocate(callesp, sizeof(callesp), 0x401000, 0x402000, &r, &why), -EINVAL);
	assert_string_equal(why, "a call through the stack pointer is in the patched bytes");
	assert_int_equal(ot_relocate(pushf, sizeof(pushf), 0x401000, 0x402000, &r, &why), -EINVAL);
	assert_string_equal(why, "a pushf is in the patched bytes");
	assert_int_equal(ot_relocate(callw, sizeof(callw), 0x401000, 0x402000, &r, &why), -EINVAL);
	assert_string_equal(why, "a branch with an operand-size prefix is in the patched bytes");
	assert_int_equal(ot_relocate(calltls, sizeof(calltls), 0x401000, 0x402000, &r, &why), 0);
}

/* Real prologues: libc's, the fixture's and the stress program's
 * functions, to a trampoline 1 GiB away; those refused must say why, the
 * rest mean the same. */
static void test_real_prologues(void **state)
{
	static const char *const files[] = { "/lib/x86_64-linux-gnu/libc.so.6",
					      OT_FIXTURE_DIR "/fixture-pie",
					      OT_EXPECTED_DIR "/../../stress/orbit-stress" };
	size_t f, i, moved = 0, refused = 0;

	(void)state;
	for (f = 0; f < sizeof(files) / sizeof(*files); f++) {
		struct ot_elf *e;
		int fd;

		assert_int_equal(ot_elf_open(files[f], files[f], &e), 0);
		fd = open(files[f], O_RDONLY);
		assert_true(fd >= 0);
		for (i = 0; i < ot_elf_nsyms(e) && i < 3000; i++) {
			const struct ot_sym *s = ot_elf_sym(e, i);
			uint8_t buf[256];
			struct ot_reloc r;
			const char *why;
			size_t n = s->size < sizeof(buf) ? s->size : sizeof(buf);

			if (!n || pread(fd, buf, n, (off_t)s->offset) != (ssize_t)n)
				continue;
			/* Whole functions only, so branches are all seen. */
			if (n < s->size)
				continue;
			if (ot_relocate(buf, n, s->offset, s->offset + (1ull << 30), &r, &why)) {
				assert_non_null(why);
				refused++;
				continue;
			}
			same_meaning(buf, s->offset, &r, s->offset + (1ull << 30));
			moved++;
		}
		close(fd);
		ot_elf_close(e);
	}
	if (getenv("OT_RELOC_STATS"))
		print_message("moved %zu, refused %zu\n", moved, refused);
	/* Nearly every real function moves; the few refused say why. */
	assert_true(moved > 100);
	assert_true(refused < moved / 4);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
#if defined(__x86_64__)
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_real_prologues),
#endif
	};

	return cmocka_run_group_tests_name("relocate", tests, NULL, NULL);
}
