/*
 * relocate.c - a function's first instructions moved to a trampoline, doing
 * the same there (relocate.h): decoded with capstone, re-aimed, or refused
 * with why.
 */
#include "relocate.h"
#include "x86emit.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <string.h>

#if defined(__x86_64__)

static int in_group(const cs_insn *insn, int group)
{
	uint8_t i;

	for (i = 0; i < insn->detail->groups_count; i++)
		if (insn->detail->groups[i] == group)
			return 1;
	return 0;
}

/* The direct target of a relative jump or call, if insn is one.  Capstone
 * puts loop, loope and loopne in the relative-branch group alone. */
static int rel_target(const cs_insn *insn, uint64_t *target)
{
	const cs_x86 *x = &insn->detail->x86;

	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM &&
	    (in_group(insn, CS_GRP_JUMP) || in_group(insn, CS_GRP_CALL) ||
	     in_group(insn, CS_GRP_BRANCH_RELATIVE))) {
		*target = (uint64_t)x->operands[0].imm;
		return 1;
	}
	return 0;
}

/*
 * A RIP- (or EIP-) relative operand.  Its displacement is 4 bytes at
 * disp_offset, always in 64-bit mode: capstone 4 says 2 when there is an
 * operand-size prefix (movw %ax,x(%rip)), but its mem.disp is right.
 */
static int pc_relative(const cs_x86_op *op)
{
	return op->type == X86_OP_MEM && (op->mem.base == X86_REG_RIP || op->mem.base == X86_REG_EIP);
}

/*
 * The displacement that aims insn's RIP-relative operand op, moved to
 * new_addr, at the same address: 0 with *disp, or -1 out of rel32 reach.
 * With an addr32 prefix the operand is EIP-relative and its address wraps
 * at 4 GiB: any place reaches it, the displacement taken modulo 2^32.
 */
static int moved_disp(const cs_insn *insn, const cs_x86_op *op, uint64_t new_addr, int32_t *disp)
{
	int64_t d = op->mem.disp + (int64_t)(insn->address - new_addr);

	if (op->mem.base == X86_REG_EIP) {
		*disp = (int32_t)(uint32_t)(uint64_t)d;
		return 0;
	}
	if (!fits32(d))
		return -1;
	*disp = (int32_t)d;
	return 0;
}

/*
 * What the push of a call's return address takes: movl $lo,-8(%rsp);
 * movl $hi,-4(%rsp); lea -8(%rsp),%rsp (no flags touched).  Written below
 * the stack pointer before it moves (in the red zone, which signal
 * delivery leaves alone), so that a stack overflow faults as the call's
 * own push would, with the stack pointer unchanged.
 */
#define CALL_PUSH 21

static int stack_pointer(unsigned reg)
{
	return reg == X86_REG_RSP || reg == X86_REG_ESP || reg == X86_REG_SP || reg == X86_REG_SPL;
}

/* A moved call at new_addr, as a push of back and a jump: 0, or -1 with *why. */
static int call_home(const cs_insn *insn, uint64_t back, uint64_t new_addr, struct ot_reloc *out,
		     const char **why)
{
	const cs_x86 *x = &insn->detail->x86;
	uint8_t *p = out->code + out->len;
	uint32_t lo = (uint32_t)back, hi = (uint32_t)(back >> 32);
	uint64_t target, at = new_addr + CALL_PUSH;
	uint8_t k;

	for (k = 0; k < x->op_count; k++) {
		const cs_x86_op *op = &x->operands[k];

		/* The push moves the stack under an operand that uses it
		 * (with addr32, through esp). */
		if ((op->type == X86_OP_REG && stack_pointer(op->reg)) ||
		    (op->type == X86_OP_MEM && (stack_pointer(op->mem.base) ||
						stack_pointer(op->mem.index)))) {
			*why = "a call through the stack pointer is in the patched bytes";
			return -1;
		}
	}
	memcpy(p, "\xc7\x44\x24\xf8", 4);			/* movl $lo,-0x8(%rsp) */
	put32(p + 4, (int32_t)lo);
	memcpy(p + 8, "\xc7\x44\x24\xfc", 4);		/* movl $hi,-0x4(%rsp) */
	put32(p + 12, (int32_t)hi);
	memcpy(p + 16, "\x48\x8d\x64\x24\xf8", 5);		/* lea -0x8(%rsp),%rsp */
	if (insn->id == X86_INS_CALL && insn->bytes[0] == 0xe8 && rel_target(insn, &target)) {
		int64_t d = (int64_t)(target - (at + 5));

		if (!fits32(d)) {
			*why = "a branch target is out of rel32 reach of the trampoline";
			return -1;
		}
		p[CALL_PUSH] = 0xe9;				/* jmp rel32 */
		put32(p + CALL_PUSH + 1, (int32_t)d);
		out->len += CALL_PUSH + 5;
		return 0;
	}
	/* call *X (0xff /2) becomes jmp *X (0xff /4), the same operand. */
	if (!x->encoding.modrm_offset || insn->bytes[x->encoding.modrm_offset - 1] != 0xff ||
	    ((insn->bytes[x->encoding.modrm_offset] >> 3) & 7) != 2) {
		*why = "a call of a form that cannot be moved is in the patched bytes";
		return -1;
	}
	memcpy(p + CALL_PUSH, insn->bytes, insn->size);
	p[CALL_PUSH + x->encoding.modrm_offset] =
		(uint8_t)((insn->bytes[x->encoding.modrm_offset] & ~0x38) | (4 << 3));
	for (k = 0; k < x->op_count; k++) {
		if (pc_relative(&x->operands[k])) {
			int32_t disp;

			if (moved_disp(insn, &x->operands[k], at, &disp)) {
				*why = "a RIP-relative operand is out of rel32 reach of the trampoline";
				return -1;
			}
			put32(p + CALL_PUSH + x->encoding.disp_offset, disp);
		}
	}
	out->len += CALL_PUSH + insn->size;
	return 0;
}

/* A relative jmp or jcc, at new_addr in its rel32 form aimed at the same
 * target: 0, or -1 with *why. */
static int move_branch(const cs_insn *insn, uint64_t target, uint64_t new_addr,
		       struct ot_reloc *out, const char **why)
{
	uint8_t *p = out->code + out->len;
	size_t n = 1;
	int64_t d;

	if (insn->id == X86_INS_JMP) {
		p[0] = 0xe9;
	} else {
		/* jcc: 0x7X rel8 or 0x0f 0x8X rel32 -> 0x0f 0x8X rel32 */
		uint8_t cc = insn->bytes[0] == 0x0f ? insn->bytes[1] & 0x0f : insn->bytes[0] & 0x0f;

		if (insn->bytes[0] != 0x0f && (insn->bytes[0] & 0xf0) != 0x70) {
			*why = "a relative branch of a form that cannot be moved";
			return -1;
		}
		p[0] = 0x0f;
		p[1] = (uint8_t)(0x80 | cc);
		n = 2;
	}
	d = (int64_t)(target - (new_addr + n + 4));
	if (!fits32(d)) {
		*why = "a branch target is out of rel32 reach of the trampoline";
		return -1;
	}
	put32(p + n, (int32_t)d);
	out->len += n + 4;
	return 0;
}

/* Any other instruction, copied to new_addr, its RIP-relative operand
 * aimed at the same address: 0, or -1 with *why. */
static int move_copy(const cs_insn *insn, uint64_t new_addr, struct ot_reloc *out,
		     const char **why)
{
	const cs_x86 *x = &insn->detail->x86;
	uint8_t k;

	memcpy(out->code + out->len, insn->bytes, insn->size);
	for (k = 0; k < x->op_count; k++) {
		int32_t disp;

		if (!pc_relative(&x->operands[k]))
			continue;
		if (moved_disp(insn, &x->operands[k], new_addr, &disp)) {
			*why = "a RIP-relative operand is out of rel32 reach of the trampoline";
			return -1;
		}
		put32(out->code + out->len + x->encoding.disp_offset, disp);
	}
	out->len += insn->size;
	return 0;
}

static int opsize_branch(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	return x->prefix[2] == 0x66 && !(x->rex & 0x08) &&
	       (in_group(insn, CS_GRP_CALL) || in_group(insn, CS_GRP_JUMP) ||
		in_group(insn, CS_GRP_RET) || in_group(insn, CS_GRP_BRANCH_RELATIVE));
}

/* One instruction of the patched bytes, to the end of the moved code:
 * 0, or -1 with *why. */
static int move(const cs_insn *insn, uint64_t tramp_addr, struct ot_reloc *out, const char **why)
{
	uint64_t new_addr = tramp_addr + out->len, target;

	if (out->len + insn->size + 6 + CALL_PUSH + OT_PATCH_LEN > OT_RELOC_MAX) {
		*why = "the moved instructions do not fit the trampoline";
		return -1;
	}
	/* Single-stepped out of the trampoline, a pushf would save the
	 * step's trap flag for the function to pop as its own. */
	if (insn->id == X86_INS_PUSHF || insn->id == X86_INS_PUSHFQ || insn->id == X86_INS_PUSHFD) {
		*why = "a pushf is in the patched bytes";
		return -1;
	}
	if (insn->id == X86_INS_LOOP || insn->id == X86_INS_LOOPE || insn->id == X86_INS_LOOPNE ||
	    insn->id == X86_INS_JRCXZ || insn->id == X86_INS_JECXZ) {
		*why = "a loop or jrcxz instruction (rel8 only) is in the patched bytes";
		return -1;
	}
	/* An operand-size prefix on a branch (without REX.W, which wins) is
	 * ignored by Intel CPUs and honoured by AMD's: a 2-byte push, an IP
	 * cut to 16 bits.  No compiler emits one; no rewrite means the same
	 * on both. */
	if (opsize_branch(insn)) {
		*why = "a branch with an operand-size prefix is in the patched bytes";
		return -1;
	}
	/*
	 * A call pushes the address after it in the function, not in the
	 * trampoline, and jumps: the callee returns into the function's own
	 * code (it is the last moved instruction), and unwinders and
	 * __builtin_return_address see what they would untraced.
	 */
	if (in_group(insn, CS_GRP_CALL))
		return call_home(insn, insn->address + insn->size, new_addr, out, why);
	if (rel_target(insn, &target))
		return move_branch(insn, target, new_addr, out, why);
	return move_copy(insn, new_addr, out, why);
}

/* The marks at insn's address, their code at the end of the moved code:
 * 0, or -1 with *why. */
static int place_marks(const cs_insn *insn, struct ot_reloc_marks *marks, uint64_t tramp_addr,
		       struct ot_reloc *out, const char **why)
{
	size_t k, n;

	for (k = 0; marks && k < marks->n; k++) {
		if (marks->at[k] != insn->address)
			continue;
		if (out->len + OT_MARK_MAX > OT_RELOC_MAX) {
			*why = "the probes among the patched bytes do not fit the trampoline";
			return -1;
		}
		n = marks->emit(marks->ctx, k, tramp_addr + out->len, out->code + out->len);
		if (!n) {
			*why = "a probe's code among the patched bytes cannot be written";
			return -1;
		}
		out->len += n;
		marks->placed++;
	}
	return 0;
}

/* Move whole instructions from code + patch_at until the patch's bytes
 * are covered, and up to code + end at least, each mark's code before its
 * instruction: 0, or -1 with *why. */
static int move_patched(csh cs, cs_insn *insn, const uint8_t *code, size_t size, uint64_t addr,
			size_t end, struct ot_reloc_marks *marks, uint64_t tramp_addr,
			struct ot_reloc *out, const char **why)
{
	const uint8_t *p = code + out->patch_at;
	size_t left = size - out->patch_at;
	uint64_t a = addr + out->patch_at;
	int call = 0, after_call = 0;
	size_t k, inside = 0;

	while (out->covered < OT_PATCH_LEN || out->patch_at + out->covered < end) {
		if (!left || !cs_disasm_iter(cs, &p, &left, &a, insn)) {
			*why = left || !end ? "an instruction in the patched bytes cannot be decoded" :
					      "the patched bytes would run past the end of the function";
			return -1;
		}
		if (place_marks(insn, marks, tramp_addr, out, why))
			return -1;
		/* A call moved before the last instruction: a thread inside
		 * its callee now would return into the middle of the jmp. */
		after_call |= call;
		call |= in_group(insn, CS_GRP_CALL);
		out->covered += insn->size;
		out->moved++;
		if (move(insn, tramp_addr, out, why))
			return -1;
	}
	if (after_call) {
		*why = "a call in the patched bytes is not their last instruction (a thread in "
		       "its callee would return into the patch)";
		return -1;
	}
	for (k = 0; marks && k < marks->n; k++)
		inside += marks->at[k] >= addr + out->patch_at &&
			  marks->at[k] < addr + out->patch_at + out->covered;
	if (marks && marks->placed != inside) {
		*why = "a probe among the patched bytes is not at an instruction's start";
		return -1;
	}
	return 0;
}

/* The jump back to tail, the first instruction not moved: 0, or -1 with *why. */
static int jump_back(uint64_t tail, uint64_t tramp_addr, struct ot_reloc *out, const char **why)
{
	int64_t d = (int64_t)(tail - (tramp_addr + out->len + 5));

	if (!fits32(d)) {
		*why = "the function is out of rel32 reach of the trampoline";
		return -1;
	}
	out->code[out->len++] = 0xe9;
	put32(out->code + out->len, (int32_t)d);
	out->len += 4;
	return 0;
}

/*
 * No branch of the function, moved or not, may land inside the patched
 * bytes (lo, hi): it would land inside the jmp.  One to the entry runs the
 * patch again, as a uprobe there would fire again: a new call.  0, or -1
 * with *why.
 */
static int no_branch_inside(csh cs, cs_insn *insn, const uint8_t *code, size_t size,
			    uint64_t addr, uint64_t lo, uint64_t hi, const char **why)
{
	cs_option(cs, CS_OPT_SKIPDATA, CS_OPT_ON);
	while (size && cs_disasm_iter(cs, &code, &size, &addr, insn)) {
		uint64_t target;

		if (!insn->detail || !insn->id || !rel_target(insn, &target))
			continue;
		if (target > lo && target < hi) {
			*why = "a branch of the function lands inside the patched bytes";
			return -1;
		}
	}
	return 0;
}

#endif

/* The patch at code + at (an instruction's start), the whole function's
 * bytes given for the branch check; covering code + end at least (0: a
 * function's entry, else a USDT site's patch). */
static int relocate(const uint8_t *code, size_t size, uint64_t addr, size_t at, size_t end,
		    struct ot_reloc_marks *marks, uint64_t tramp_addr, struct ot_reloc *out,
		    const char **why)
{
#if defined(__x86_64__)
	cs_insn *insn;
	csh cs;
	int ret = -EINVAL;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -ENOTSUP;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(cs);
	out->patch_at = at;
	if (size < out->patch_at + OT_PATCH_LEN)
		*why = end ? "the patched bytes would run past the end of the function" :
			    "the function is shorter than the 5-byte patch";
	else if (!move_patched(cs, insn, code, size, addr, end, marks, tramp_addr, out, why) &&
		 !jump_back(addr + out->patch_at + out->covered, tramp_addr, out, why) &&
		 !no_branch_inside(cs, insn, code, size, addr, addr + out->patch_at,
				   addr + out->patch_at + out->covered, why))
		ret = 0;
	cs_free(insn, 1);
	cs_close(&cs);
	return ret;
#else
	(void)code;
	(void)size;
	(void)addr;
	(void)at;
	(void)end;
	(void)marks;
	(void)tramp_addr;
	(void)out;
	*why = "in-process instrumentation is for x86-64";
	return -ENOTSUP;
#endif
}

#if defined(__x86_64__)
/*
 * The start of the whole instructions that end at code + site, at least
 * need bytes before it (a linear sweep from the function's start, which
 * must land on site): 0 and *from, or -1 with *why.
 */
static int start_before(csh cs, cs_insn *insn, const uint8_t *code, size_t site, uint64_t addr,
			size_t need, size_t *from, const char **why)
{
	const uint8_t *p = code;
	size_t left = site, best = SIZE_MAX;
	uint64_t a = addr;

	while (left && cs_disasm_iter(cs, &p, &left, &a, insn))
		if (site - (insn->address - addr) >= need)
			best = (size_t)(insn->address - addr);
	if (left || (size_t)(p - code) != site) {
		*why = "the instructions before the site cannot be decoded up to it";
		return -1;
	}
	if (best == SIZE_MAX) {
		*why = "the site is too close to the function's start";
		return -1;
	}
	*from = best;
	return 0;
}

#endif

int ot_relocate_before(const uint8_t *code, size_t size, uint64_t addr, size_t site,
		       struct ot_reloc_marks *marks, uint64_t tramp_addr, struct ot_reloc *out,
		       const char **why)
{
	memset(out, 0, sizeof(*out));
	*why = NULL;
#if defined(__x86_64__)
	cs_insn *insn;
	csh cs;
	size_t from = 0;
	int bad;

	if (site >= size)
		return -EINVAL;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -ENOTSUP;
	insn = cs_malloc(cs);
	bad = start_before(cs, insn, code, site, addr, OT_PATCH_LEN - 1, &from, why);
	cs_free(insn, 1);
	cs_close(&cs);
	if (bad)
		return -EINVAL;
	return relocate(code, size, addr, from, site + 1, marks, tramp_addr, out, why);
#else
	(void)code;
	(void)size;
	(void)addr;
	(void)site;
	(void)marks;
	(void)tramp_addr;
	*why = "in-process instrumentation is for x86-64";
	return -ENOTSUP;
#endif
}

int ot_relocate(const uint8_t *code, size_t size, uint64_t addr, uint64_t tramp_addr,
		struct ot_reloc *out, const char **why)
{
	size_t at = 0;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	/* endbr64 stays where it is: indirect calls land on it. */
	if (size >= 4 && !memcmp(code, "\xf3\x0f\x1e\xfa", 4))
		at = 4;
	return relocate(code, size, addr, at, 0, NULL, tramp_addr, out, why);
}

int ot_relocate_at(const uint8_t *code, size_t size, uint64_t addr, size_t at, size_t end,
		   struct ot_reloc_marks *marks, uint64_t tramp_addr, struct ot_reloc *out,
		   const char **why)
{
	memset(out, 0, sizeof(*out));
	*why = NULL;
	return relocate(code, size, addr, at, end > at ? end : at + 1, marks, tramp_addr, out, why);
}
