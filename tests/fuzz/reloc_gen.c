/*
 * reloc_gen.c - the relocator fuzzer's sequences: random valid x86-64
 * functions, biased to what ot_relocate must rewrite or refuse, laid out
 * at an address; and what relocate.h's contract says of each.
 *
 * Every instruction is decoded by capstone and kept only if the sandbox
 * can run it in its own process: integer instructions only, memory only
 * through RIP (aimed into the data areas), through rsp, or through rbx
 * and rbp (which point into the data area and which nothing writes); r13
 * is the loop counter only back edges decrement, so that most loops end.
 * Relative branches, random or not, get targets the generator chose, so
 * that it knows, without asking the relocator, which land inside the
 * patched bytes and which are out of a trampoline's reach.
 */
#include "reloc_diff.h"

#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include "lib/arch/x86_64/relocate.h"

const uint64_t rd_tramp_page[RD_NTRAMP] = {
	RD_FN + 0x200000, RD_FN - 0x200000,	/* everything within reach */
	RD_FN + 0x40000000,			/* RD_FAR_CODE out of reach */
	RD_FN - 0x40000000,			/* RD_FAR_DATA out of reach */
};

/* ---- randomness: splitmix64, reproducible from one seed ---- */

struct rng {
	uint64_t s;
};

static uint64_t next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n): the top 32 bits scaled, no division. */
static unsigned below(struct rng *r, unsigned n)
{
	return (unsigned)(((next(r) >> 32) * n) >> 32);
}

static int chance(struct rng *r, unsigned pct)
{
	return below(r, 100) < pct;
}

/* An index into w[0..n) drawn with those weights. */
static int pick(struct rng *r, const unsigned *w, int n)
{
	unsigned sum = 0, x;
	int i;

	for (i = 0; i < n; i++)
		sum += w[i];
	x = below(r, sum);
	for (i = 0; i < n - 1 && x >= w[i]; i++)
		x -= w[i];
	return i;
}

/* ---- what may run: capstone's view of one instruction ---- */

struct gen {
	struct rng r;
	csh cs;
	cs_insn *insn;
};

/* Which of the 16 registers (encoding order) reg is part of, or -1. */
static int family(unsigned reg)
{
	switch (reg) {
	case X86_REG_AH: case X86_REG_AL: case X86_REG_AX: case X86_REG_EAX: case X86_REG_RAX:
		return 0;
	case X86_REG_CH: case X86_REG_CL: case X86_REG_CX: case X86_REG_ECX: case X86_REG_RCX:
		return 1;
	case X86_REG_DH: case X86_REG_DL: case X86_REG_DX: case X86_REG_EDX: case X86_REG_RDX:
		return 2;
	case X86_REG_BH: case X86_REG_BL: case X86_REG_BX: case X86_REG_EBX: case X86_REG_RBX:
		return 3;
	case X86_REG_SPL: case X86_REG_SP: case X86_REG_ESP: case X86_REG_RSP:
		return 4;
	case X86_REG_BPL: case X86_REG_BP: case X86_REG_EBP: case X86_REG_RBP:
		return 5;
	case X86_REG_SIL: case X86_REG_SI: case X86_REG_ESI: case X86_REG_RSI:
		return 6;
	case X86_REG_DIL: case X86_REG_DI: case X86_REG_EDI: case X86_REG_RDI:
		return 7;
	}
	if (reg >= X86_REG_R8 && reg <= X86_REG_R15)
		return 8 + (int)(reg - X86_REG_R8);
	if (reg >= X86_REG_R8B && reg <= X86_REG_R15B)
		return 8 + (int)(reg - X86_REG_R8B);
	if (reg >= X86_REG_R8D && reg <= X86_REG_R15D)
		return 8 + (int)(reg - X86_REG_R8D);
	if (reg >= X86_REG_R8W && reg <= X86_REG_R15W)
		return 8 + (int)(reg - X86_REG_R8W);
	return -1;
}

/* Integer instructions whose effects are registers, flags and their
 * operands: nothing privileged, no string or I/O instruction, nothing
 * that reads the time or a random number, no x87/SSE state. */
static int allowed_id(unsigned id)
{
	switch (id) {
	case X86_INS_ADD: case X86_INS_OR: case X86_INS_ADC: case X86_INS_SBB:
	case X86_INS_AND: case X86_INS_SUB: case X86_INS_XOR: case X86_INS_CMP:
	case X86_INS_TEST: case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG:
	case X86_INS_NOT: case X86_INS_MOV: case X86_INS_MOVABS: case X86_INS_MOVZX:
	case X86_INS_MOVSX: case X86_INS_MOVSXD: case X86_INS_LEA: case X86_INS_XCHG:
	case X86_INS_XADD: case X86_INS_CMPXCHG: case X86_INS_CMPXCHG8B: case X86_INS_BSWAP:
	case X86_INS_SHL: case X86_INS_SAL: case X86_INS_SHR: case X86_INS_SAR:
	case X86_INS_ROL: case X86_INS_ROR: case X86_INS_RCL: case X86_INS_RCR:
	case X86_INS_SHLD: case X86_INS_SHRD: case X86_INS_IMUL: case X86_INS_MUL:
	case X86_INS_DIV: case X86_INS_IDIV: case X86_INS_BT: case X86_INS_BTS:
	case X86_INS_BTR: case X86_INS_BTC: case X86_INS_BSF: case X86_INS_BSR:
	case X86_INS_POPCNT: case X86_INS_LZCNT: case X86_INS_TZCNT: case X86_INS_CBW:
	case X86_INS_CWDE: case X86_INS_CDQE: case X86_INS_CWD: case X86_INS_CDQ:
	case X86_INS_CQO: case X86_INS_LAHF: case X86_INS_SAHF: case X86_INS_CLC:
	case X86_INS_STC: case X86_INS_CMC: case X86_INS_NOP: case X86_INS_PAUSE:
	case X86_INS_PUSH: case X86_INS_POP: case X86_INS_PUSHF: case X86_INS_PUSHFQ:
	case X86_INS_JMP: case X86_INS_CALL: case X86_INS_LCALL: case X86_INS_RET:
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE: case X86_INS_JRCXZ:
	case X86_INS_JECXZ: case X86_INS_ENDBR64: case X86_INS_MOVBE: case X86_INS_CRC32:
	case X86_INS_ANDN: case X86_INS_BEXTR: case X86_INS_BLSI: case X86_INS_BLSMSK:
	case X86_INS_BLSR: case X86_INS_BZHI: case X86_INS_MULX: case X86_INS_PDEP:
	case X86_INS_PEXT: case X86_INS_RORX: case X86_INS_SARX: case X86_INS_SHLX:
	case X86_INS_SHRX: case X86_INS_ADCX: case X86_INS_ADOX:
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JE: case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE:
	case X86_INS_JL: case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP:
	case X86_INS_JNS: case X86_INS_JO: case X86_INS_JP: case X86_INS_JS:
		return 1;
	}
	/* cmovcc (the range holds x87's fcmovcc too: their operands are
	 * not general registers, so safe() refuses them) and setcc */
	return (id >= X86_INS_CMOVA && id <= X86_INS_CMOVS) ||
	       (id >= X86_INS_SETAE && id <= X86_INS_SETS);
}

static int is_call(const cs_insn *in)
{
	uint8_t i;

	for (i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == CS_GRP_CALL)
			return 1;
	return 0;
}

/* Is p among the legacy prefixes (and REX) before the opcode? */
static int has_prefix(const cs_insn *in, uint8_t p)
{
	uint16_t i;

	for (i = 0; i < in->size; i++) {
		uint8_t b = in->bytes[i];

		if (b == p)
			return 1;
		if (!(b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65 ||
		      b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 ||
		      (b & 0xf0) == 0x40))
			return 0;
	}
	return 0;
}

/* A memory operand the sandbox can let through: RIP (the caller aims it),
 * or rsp, rbx, rbp with a small displacement and no index. */
static int safe_mem(const cs_insn *in, const cs_x86_op *op)
{
	int base = family(op->mem.base);

	if (in->id == X86_INS_LEA)	/* computes, never touches memory */
		return op->mem.segment == X86_REG_INVALID;
	if (op->mem.index != X86_REG_INVALID || op->mem.segment == X86_REG_FS ||
	    op->mem.segment == X86_REG_GS)
		return 0;
	if (op->mem.base == X86_REG_RIP || op->mem.base == X86_REG_EIP)
		return 1;
	if (base != 3 && base != 4 && base != 5)
		return 0;
	return op->mem.disp >= -0x80 && op->mem.disp <= 0x100;
}

/* Does the instruction write a register the sandbox relies on? */
static int writes_kept(struct gen *g, const cs_insn *in, int allow_r13)
{
	cs_regs rd, wr;
	uint8_t nr, nw, i;
	int stack_op = in->id == X86_INS_PUSH || in->id == X86_INS_POP ||
		       in->id == X86_INS_PUSHF || in->id == X86_INS_PUSHFQ ||
		       in->id == X86_INS_CALL || in->id == X86_INS_RET;

	if (cs_regs_access(g->cs, in, rd, &nr, wr, &nw) != CS_ERR_OK)
		return 1;
	for (i = 0; i < nw; i++) {
		int f = family(wr[i]);

		if (f == 3 || f == 5 || (f == 13 && !allow_r13) || (f == 4 && !stack_op))
			return 1;
	}
	for (i = 0; i < in->detail->x86.op_count; i++) {
		const cs_x86_op *op = &in->detail->x86.operands[i];

		if (op->type == X86_OP_REG && (op->access & CS_AC_WRITE) &&
		    (family(op->reg) == 4 || family(op->reg) == 3 || family(op->reg) == 5 ||
		     (family(op->reg) == 13 && !allow_r13)))
			return 1;
	}
	return 0;
}

static int is_rel_branch(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t i;

	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return 0;
	for (i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == CS_GRP_JUMP || in->detail->groups[i] == CS_GRP_CALL ||
		    in->detail->groups[i] == CS_GRP_BRANCH_RELATIVE)
			return 1;
	return 0;
}

/* May the sandbox run in, wherever its memory and branch operands aim? */
static int safe(struct gen *g, const cs_insn *in, int allow_r13)
{
	const cs_x86 *x = &in->detail->x86;
	int mem = 0, regsrc = 0;
	uint8_t i;

	/* fs and gs would reach the process's own thread data */
	if (!allowed_id(in->id) || has_prefix(in, 0x64) || has_prefix(in, 0x65))
		return 0;
	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type == X86_OP_REG && family(op->reg) < 0)
			return 0;
		if (op->type == X86_OP_REG)
			regsrc = 1;
		if (op->type == X86_OP_MEM) {
			if (!safe_mem(in, op))
				return 0;
			mem = 1;
		}
	}
	/* bt* with a register bit offset addresses up to 2^60 bytes away. */
	if (mem && regsrc && (in->id == X86_INS_BT || in->id == X86_INS_BTS ||
			      in->id == X86_INS_BTR || in->id == X86_INS_BTC))
		return 0;
	/*
	 * Not valid x86-64, or not read alike by capstone and the CPU: a
	 * relative branch with 0x66 (capstone: a 2-byte displacement, or a
	 * rel8 target cut to 16 bits; an Intel CPU ignores the prefix), with
	 * 0x67 (capstone cuts the target to 32 bits), or with lock (#UD).
	 */
	if (is_rel_branch(in) &&
	    (has_prefix(in, 0x66) || has_prefix(in, 0x67) || has_prefix(in, 0xf0)))
		return 0;
	return !writes_kept(g, in, allow_r13);
}

/* What relocate.h's contract says of one instruction (IF_*). */
static uint16_t item_flags(const cs_insn *in, int kind)
{
	const cs_x86 *x = &in->detail->x86;
	uint16_t f = 0;
	uint8_t i;

	if (is_call(in)) {
		f |= IF_CALL;
		for (i = 0; i < x->op_count; i++)
			if ((x->operands[i].type == X86_OP_REG && family(x->operands[i].reg) == 4) ||
			    (x->operands[i].type == X86_OP_MEM &&
			     (family(x->operands[i].mem.base) == 4 ||
			      family(x->operands[i].mem.index) == 4)))
				f |= IF_CALL_RSP;
		if (in->bytes[0] != 0xe8 &&
		    !(x->encoding.modrm_offset && in->bytes[x->encoding.modrm_offset - 1] == 0xff &&
		      ((in->bytes[x->encoding.modrm_offset] >> 3) & 7) == 2))
			f |= IF_CALL_FORM;
		if (in->id == X86_INS_LCALL)
			f |= IF_FAR_CALL;
	}
	for (i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == CS_GRP_JUMP || in->detail->groups[i] == CS_GRP_CALL ||
		    in->detail->groups[i] == CS_GRP_RET ||
		    in->detail->groups[i] == CS_GRP_BRANCH_RELATIVE)
			f |= IF_FLOW;
	if ((f & IF_FLOW) && x->prefix[2] == 0x66 && !(x->rex & 0x08))
		f |= IF_OPSIZE;
	if (in->id == X86_INS_PUSHF || in->id == X86_INS_PUSHFQ)
		f |= IF_PUSHF;
	if (in->id == X86_INS_LOOP || in->id == X86_INS_LOOPE || in->id == X86_INS_LOOPNE ||
	    in->id == X86_INS_JRCXZ || in->id == X86_INS_JECXZ)
		f |= IF_LOOP;
	if (kind == IK_BRANCH && in->id == X86_INS_JMP)
		f |= IF_JMP;
	if (kind == IK_BRANCH && !(f & (IF_CALL | IF_LOOP | IF_JMP)) && in->bytes[0] != 0x0f &&
	    (in->bytes[0] & 0xf0) != 0x70)
		f |= IF_BRANCH_FORM;
	for (i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_EIP)
			f |= IF_EIP;
	return f;
}

/* Where a relative branch of this form, item k, goes. */
static void branch_target(struct gen *g, struct rd_item *it, size_t k)
{
	enum { W_ENTRY, W_PATCH, W_MID, W_TAIL, W_FWD, W_BACK, W_ENDBR, W_EXIT_NEAR, W_EXIT_STAT,
	       W_EXIT_FAR, W_CALLEE, W_N };
	unsigned w[W_N] = { 6, 4, 4, 10, 28, 3, 1, 16, 10, 4, 6 };
	static const uint8_t exits_near[] = { EX_FALL, EX_NEAR0, EX_NEAR1 };

	if (it->form == BF_JMP8 || it->form == BF_JMP32) {
		/* unconditional and backwards: a loop that never ends */
		w[W_ENTRY] = 1, w[W_PATCH] = 1, w[W_BACK] = 1;
	} else if (it->form == BF_CALL32) {
		w[W_ENTRY] = 2, w[W_PATCH] = 1, w[W_FWD] = 6, w[W_BACK] = 0, w[W_ENDBR] = 0;
		w[W_EXIT_NEAR] = 3, w[W_EXIT_STAT] = 3, w[W_EXIT_FAR] = 2, w[W_CALLEE] = 60;
	}
	it->targ = (uint16_t)below(&g->r, 8);	/* 0: may be a loop to itself */
	switch (pick(&g->r, w, W_N)) {
	case W_ENTRY: it->tkind = TG_ENTRY; break;
	case W_PATCH: it->tkind = TG_PATCH; break;
	case W_MID: it->tkind = TG_MIDPATCH, it->targ = (uint16_t)below(&g->r, 64); break;
	case W_TAIL: it->tkind = TG_TAIL; break;	/* (targ as above) */
	case W_FWD: it->tkind = TG_ITEM, it->targ = (uint16_t)(k + 1 + below(&g->r, 8)); break;
	case W_BACK:	/* not to itself: taken once, taken for ever */
		it->tkind = k ? TG_ITEM : TG_ENTRY, it->targ = (uint16_t)below(&g->r, (unsigned)k + !k);
		break;
	case W_ENDBR: it->tkind = TG_IN_ENDBR, it->targ = (uint16_t)below(&g->r, 3); break;
	case W_EXIT_NEAR: it->tkind = TG_EXIT, it->targ = exits_near[below(&g->r, 3)]; break;
	case W_EXIT_STAT: it->tkind = TG_EXIT, it->targ = (uint16_t)(EX_RET + below(&g->r, 4)); break;
	case W_EXIT_FAR: it->tkind = TG_EXIT, it->targ = EX_FAR; break;
	default: it->tkind = TG_CALLEE, it->targ = (uint16_t)below(&g->r, RD_NCALLEES); break;
	}
}

/* Where a RIP-relative operand points: data, a slot holding a code
 * address for an indirect call or jump, or (lea) code. */
static void rip_target(struct gen *g, struct rd_item *it, const cs_insn *in, size_t k)
{
	const cs_x86 *x = &in->detail->x86;
	int indirect = in->id == X86_INS_LCALL ||
		       ((in->id == X86_INS_CALL || in->id == X86_INS_JMP) && x->op_count == 1);

	if (indirect) {
		it->tkind = TG_SLOT, it->targ = (uint16_t)below(&g->r, 16);
	} else if (in->id == X86_INS_LEA && chance(&g->r, 60)) {
		static const unsigned w[] = { 40, 25, 15, 10, 10 };

		switch (pick(&g->r, w, 5)) {
		case 0: it->tkind = TG_CALLEE, it->targ = (uint16_t)below(&g->r, RD_NCALLEES); break;
		case 1: it->tkind = TG_EXIT, it->targ = (uint16_t)below(&g->r, RD_NEXITS); break;
		case 2: it->tkind = TG_ITEM, it->targ = (uint16_t)(k + 1 + below(&g->r, 6)); break;
		case 3: it->tkind = TG_ENTRY; break;
		default: it->tkind = TG_TAIL; break;
		}
	} else if (chance(&g->r, 12)) {
		it->tkind = TG_FAR_DATA, it->targ = (uint16_t)below(&g->r, RD_FAR_DATA_LEN - 16);
	} else {
		it->tkind = TG_DATA, it->targ = (uint16_t)below(&g->r, RD_DATA_LEN - 16);
	}
}

/* The form of a relative branch from its opcode, or -1. */
static int branch_form(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t op = in->bytes[x->encoding.imm_offset - 1];

	if (x->encoding.imm_size == 1) {
		if (op == 0xeb)
			return BF_JMP8;
		if (op >= 0x70 && op <= 0x7f)
			return BF_JCC8;
		if (op >= 0xe0 && op <= 0xe3)
			return BF_LOOP8;
	} else if (x->encoding.imm_size == 4 && x->encoding.imm_offset >= 1) {
		if (op == 0xe9)
			return BF_JMP32;
		if (op == 0xe8)
			return BF_CALL32;
		if (op >= 0x80 && op <= 0x8f && x->encoding.imm_offset >= 2 &&
		    in->bytes[x->encoding.imm_offset - 2] == 0x0f)
			return BF_JCC32;
	}
	return -1;
}


/*
 * Make item k of the len bytes at b if they decode to an instruction the
 * sandbox may run: 1, or 0.  Relative branches and RIP operands get
 * targets of the generator's choosing (written at layout).
 */
static int take(struct gen *g, struct rd_item *it, const uint8_t *b, size_t len, size_t k,
		int allow_r13)
{
	const uint8_t *p = b;
	uint64_t a = RD_FN;
	cs_insn *in = g->insn;
	const cs_x86 *x;
	uint8_t i;

	if (!cs_disasm_iter(g->cs, &p, &len, &a, in) || !safe(g, in, allow_r13))
		return 0;
	/* A far call loads a code segment from memory: only as the first
	 * instruction, which every patch moves, so that it is refused and
	 * never run. */
	if (in->id == X86_INS_LCALL && k)
		return 0;
	x = &in->detail->x86;
	memset(it, 0, sizeof(*it));
	memcpy(it->b, in->bytes, in->size);
	it->len = (uint8_t)in->size;
	if (is_rel_branch(in)) {
		int form = branch_form(in);

		if (form < 0)
			return 0;
		it->kind = IK_BRANCH, it->form = (uint8_t)form;
		it->rel_off = x->encoding.imm_offset, it->rel_size = x->encoding.imm_size;
		it->flags = item_flags(in, IK_BRANCH);
		branch_target(g, it, k);
		return 1;
	}
	it->flags = item_flags(in, IK_PLAIN);
	for (i = 0; i < x->op_count; i++) {
		if (x->operands[i].type != X86_OP_MEM || (x->operands[i].mem.base != X86_REG_RIP &&
							   x->operands[i].mem.base != X86_REG_EIP))
			continue;
		/* The displacement is 4 bytes whatever capstone says of its size. */
		it->kind = IK_RIP, it->rel_off = x->encoding.disp_offset, it->rel_size = 4;
		rip_target(g, it, in, k);
	}
	return 1;
}

/* ---- templates ---- */

/* Opcodes taking a ModRM byte: mandatory prefix, opcode bytes, the /digit
 * (-1: any register), cc (a condition code added to the last byte). */
struct op {
	uint8_t mp, n, b[3];
	int8_t digit;
	uint8_t cc;
};

static const struct op ops[] = {
	{ 0, 1, { 0x63 }, -1, 0 }, { 0, 1, { 0x69 }, -1, 0 }, { 0, 1, { 0x6b }, -1, 0 },
	{ 0, 1, { 0x80 }, -1, 0 }, { 0, 1, { 0x81 }, -1, 0 }, { 0, 1, { 0x83 }, -1, 0 },
	{ 0, 1, { 0x84 }, -1, 0 }, { 0, 1, { 0x85 }, -1, 0 }, { 0, 1, { 0x86 }, -1, 0 },
	{ 0, 1, { 0x87 }, -1, 0 }, { 0, 1, { 0x88 }, -1, 0 }, { 0, 1, { 0x89 }, -1, 0 },
	{ 0, 1, { 0x8a }, -1, 0 }, { 0, 1, { 0x8b }, -1, 0 }, { 0, 1, { 0x8b }, -1, 0 },
	{ 0, 1, { 0x8d }, -1, 0 }, { 0, 1, { 0x8d }, -1, 0 }, { 0, 1, { 0x8f }, 0, 0 },
	{ 0, 1, { 0xc0 }, -1, 0 }, { 0, 1, { 0xc1 }, -1, 0 }, { 0, 1, { 0xd0 }, -1, 0 },
	{ 0, 1, { 0xd1 }, -1, 0 }, { 0, 1, { 0xd2 }, -1, 0 }, { 0, 1, { 0xd3 }, -1, 0 },
	{ 0, 1, { 0xc6 }, 0, 0 }, { 0, 1, { 0xc7 }, 0, 0 }, { 0, 1, { 0xf6 }, -1, 0 },
	{ 0, 1, { 0xf7 }, -1, 0 }, { 0, 1, { 0xfe }, 0, 0 }, { 0, 1, { 0xfe }, 1, 0 },
	{ 0, 1, { 0xff }, 0, 0 }, { 0, 1, { 0xff }, 1, 0 }, { 0, 1, { 0xff }, 2, 0 },
	{ 0, 1, { 0xff }, 4, 0 }, { 0, 1, { 0xff }, 6, 0 },
	{ 0, 2, { 0x0f, 0x40 }, -1, 1 }, { 0, 2, { 0x0f, 0x40 }, -1, 1 },
	{ 0, 2, { 0x0f, 0x90 }, 0, 1 }, { 0, 2, { 0x0f, 0x90 }, 0, 1 },
	{ 0, 2, { 0x0f, 0xa3 }, -1, 0 }, { 0, 2, { 0x0f, 0xab }, -1, 0 },
	{ 0, 2, { 0x0f, 0xb3 }, -1, 0 }, { 0, 2, { 0x0f, 0xbb }, -1, 0 },
	{ 0, 2, { 0x0f, 0xba }, -1, 0 }, { 0, 2, { 0x0f, 0xaf }, -1, 0 },
	{ 0, 2, { 0x0f, 0xb0 }, -1, 0 }, { 0, 2, { 0x0f, 0xb1 }, -1, 0 },
	{ 0, 2, { 0x0f, 0xc0 }, -1, 0 }, { 0, 2, { 0x0f, 0xc1 }, -1, 0 },
	{ 0, 2, { 0x0f, 0xb6 }, -1, 0 }, { 0, 2, { 0x0f, 0xb7 }, -1, 0 },
	{ 0, 2, { 0x0f, 0xbe }, -1, 0 }, { 0, 2, { 0x0f, 0xbf }, -1, 0 },
	{ 0, 2, { 0x0f, 0xbc }, -1, 0 }, { 0, 2, { 0x0f, 0xbd }, -1, 0 },
	{ 0xf3, 2, { 0x0f, 0xb8 }, -1, 0 }, { 0xf3, 2, { 0x0f, 0xbc }, -1, 0 },
	{ 0xf3, 2, { 0x0f, 0xbd }, -1, 0 }, { 0, 2, { 0x0f, 0xa4 }, -1, 0 },
	{ 0, 2, { 0x0f, 0xa5 }, -1, 0 }, { 0, 2, { 0x0f, 0xac }, -1, 0 },
	{ 0, 2, { 0x0f, 0xad }, -1, 0 }, { 0, 2, { 0x0f, 0x1f }, 0, 0 },
	{ 0, 2, { 0x0f, 0xc7 }, 1, 0 }, { 0, 3, { 0x0f, 0x38, 0xf0 }, -1, 0 },
	{ 0, 3, { 0x0f, 0x38, 0xf1 }, -1, 0 },
};

enum { M_RIP, M_BASE, M_REG };

/* A ModRM instruction with a RIP, base+displacement or register operand,
 * into b (16 bytes, the tail random: capstone takes the immediate it needs). */
static void modrm_insn(struct gen *g, uint8_t *b, int mode)
{
	size_t n = 0, i;
	uint8_t reg, opc[3];
	struct op o;

	for (i = 0; i < 16; i++)
		b[i] = (uint8_t)next(&g->r);
	if (chance(&g->r, 22)) {	/* the ALU block: add, or, adc, sbb, and, sub, xor, cmp */
		memset(&o, 0, sizeof(o));
		o.n = 1, o.digit = -1;
		o.b[0] = (uint8_t)(below(&g->r, 8) << 3 | below(&g->r, 4));
	} else {
		o = ops[below(&g->r, sizeof(ops) / sizeof(*ops))];
	}
	memcpy(opc, o.b, sizeof(opc));
	if (o.cc)
		opc[o.n - 1] = (uint8_t)(opc[o.n - 1] + below(&g->r, 16));
	if (mode != M_REG && chance(&g->r, 4))
		b[n++] = 0xf0;			/* lock */
	if (chance(&g->r, 10))
		b[n++] = 0x66;
	if (mode != M_REG && chance(&g->r, 3))
		b[n++] = 0x67;			/* addr32: EIP-relative */
	if (o.mp)
		b[n++] = o.mp;
	if (chance(&g->r, 55))			/* REX: W and R; B too for registers */
		b[n++] = (uint8_t)(0x40 | below(&g->r, mode == M_REG ? 16 : 4) << (mode == M_REG ? 0 : 2));
	memcpy(b + n, opc, o.n);
	n += o.n;
	reg = (uint8_t)(o.digit >= 0 ? o.digit : (int)below(&g->r, 8));
	if (mode == M_RIP) {
		b[n++] = (uint8_t)(reg << 3 | 5);
		memset(b + n, 0, 4);
	} else if (mode == M_REG) {
		b[n++] = (uint8_t)(0xc0 | reg << 3 | below(&g->r, 8));
	} else {
		static const uint8_t bases[] = { 3, 5, 4 };	/* rbx, rbp, rsp */
		uint8_t base = bases[below(&g->r, 3)];
		int wide = chance(&g->r, 30);
		int32_t disp = (int32_t)below(&g->r, 0x180) - 0x80;

		b[n++] = (uint8_t)((wide ? 0x80 : 0x40) | reg << 3 | base);
		if (base == 4)
			b[n++] = 0x24;		/* SIB: no index, base rsp */
		if (wide)
			memcpy(b + n, &disp, 4);
		else
			b[n] = (uint8_t)(int8_t)(disp > 0x7f ? 0x7f : disp);
	}
}

/* Short instructions with no ModRM choice to make: r (0-7) is or-ed into
 * byte reg when reg is set; random immediates from byte imm on. */
struct special {
	uint8_t n, b[10], reg, imm;
};

static const struct special pushfs[] = {
	{ 1, { 0x9c }, 0, 0 }, { 2, { 0x66, 0x9c }, 0, 0 },
};

static const struct special specials[] = {
	{ 1, { 0x90 }, 0, 0 }, { 2, { 0x66, 0x90 }, 0, 0 }, { 3, { 0x0f, 0x1f, 0x00 }, 0, 0 },
	{ 4, { 0x0f, 0x1f, 0x40, 0x00 }, 0, 0 }, { 5, { 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 0, 0 },
	{ 6, { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 0, 0 },
	{ 7, { 0x0f, 0x1f, 0x80, 0, 0, 0, 0 }, 0, 0 }, { 8, { 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 }, 0, 0 },
	{ 2, { 0xf3, 0x90 }, 0, 0 }, { 4, { 0xf3, 0x0f, 0x1e, 0xfa }, 0, 0 },
	{ 2, { 0x6a, 0 }, 0, 1 }, { 5, { 0x68, 0, 0, 0, 0 }, 0, 1 },
	{ 1, { 0x50 }, 1, 0 }, { 2, { 0x41, 0x50 }, 2, 0 }, { 2, { 0x66, 0x50 }, 2, 0 },
	{ 1, { 0x58 }, 1, 0 }, { 2, { 0x41, 0x58 }, 2, 0 },
	{ 1, { 0x9e }, 0, 0 }, { 1, { 0x9f }, 0, 0 }, { 1, { 0xf8 }, 0, 0 }, { 1, { 0xf9 }, 0, 0 },
	{ 1, { 0xf5 }, 0, 0 }, { 2, { 0x48, 0x99 }, 0, 0 }, { 1, { 0x99 }, 0, 0 },
	{ 2, { 0x48, 0x98 }, 0, 0 }, { 1, { 0x98 }, 0, 0 },
	{ 1, { 0x90 }, 1, 0 }, { 2, { 0x48, 0x90 }, 2, 0 },
	{ 5, { 0xb8, 0, 0, 0, 0 }, 1, 1 }, { 10, { 0x48, 0xb8 }, 2, 2 }, { 6, { 0x41, 0xb8 }, 2, 2 },
	{ 2, { 0x0f, 0xc8 }, 2, 0 }, { 3, { 0x48, 0x0f, 0xc8 }, 3, 0 },
	{ 1, { 0xc3 }, 0, 0 }, { 3, { 0xc2, 0x08, 0x00 }, 0, 0 }, { 2, { 0xf3, 0xc3 }, 0, 0 },
};

static int gen_special(struct gen *g, struct rd_item *it, size_t k, const struct special *t,
		       size_t nt)
{
	int tries;

	for (tries = 0; tries < 32; tries++) {
		const struct special *sp = &t[below(&g->r, (unsigned)nt)];
		uint8_t b[16];
		size_t i;

		memcpy(b, sp->b, sizeof(sp->b));
		if (sp->reg)
			b[sp->reg - 1] = (uint8_t)(b[sp->reg - 1] | below(&g->r, 8));
		for (i = sp->imm; sp->imm && i < sp->n; i++)
			b[i] = (uint8_t)next(&g->r);
		if (take(g, it, b, sp->n, k, 0))
			return 1;
	}
	return 0;
}

/* A relative jmp, jcc, call or loop; sometimes with a prefix (branch
 * hints, bnd, REX) that some relocators get wrong. */
static int gen_branch(struct gen *g, struct rd_item *it, size_t k, int call)
{
	static const unsigned w[] = { 14, 8, 30, 14, 4 };
	static const uint8_t pfx[] = { 0x2e, 0x3e, 0xf2, 0x48, 0x40 };
	uint8_t b[16] = { 0 };
	size_t n = 0;
	int form = call ? BF_CALL32 : (int[]){ BF_JMP8, BF_JMP32, BF_JCC8, BF_JCC32,
					       BF_LOOP8 }[pick(&g->r, w, 5)];

	if (chance(&g->r, 6))
		b[n++] = pfx[below(&g->r, sizeof(pfx))];
	switch (form) {
	case BF_JMP8: b[n++] = 0xeb; n += 1; break;
	case BF_JMP32: b[n++] = 0xe9; n += 4; break;
	case BF_JCC8: b[n++] = (uint8_t)(0x70 | below(&g->r, 16)); n += 1; break;
	case BF_JCC32: b[n++] = 0x0f, b[n++] = (uint8_t)(0x80 | below(&g->r, 16)); n += 4; break;
	case BF_CALL32: b[n++] = 0xe8; n += 4; break;
	default: b[n++] = (uint8_t)(0xe0 | below(&g->r, 4)); n += 1; break;
	}
	return take(g, it, b, n, k, 0);
}

/* A loop's back edge that ends: r13 (0-4 at entry) counts down, and
 * nothing else writes it.  Two items. */
static size_t gen_counter(struct gen *g, struct rd_item *it, size_t k)
{
	static const uint8_t dec[][4] = { { 3, 0x49, 0xff, 0xcd }, { 4, 0x49, 0x83, 0xed },
					  { 3, 0x41, 0xff, 0xcd } };
	static const uint8_t cc[] = { 0xf, 0x9, 0xd };	/* jg, jns, jge */
	const uint8_t *d = dec[below(&g->r, 3)];
	uint8_t b[8] = { 0 };
	int wide = chance(&g->r, 30);

	memcpy(b, d + 1, 3);
	b[3] = 1;			/* sub's immediate */
	if (!take(g, it, b, d[0], k, 1))
		return 0;
	memset(b, 0, sizeof(b));
	if (wide)
		b[0] = 0x0f, b[1] = (uint8_t)(0x80 | cc[below(&g->r, 3)]);
	else
		b[0] = (uint8_t)(0x70 | cc[below(&g->r, 3)]);
	if (!take(g, it + 1, b, wide ? 6 : 2, k + 1, 0))
		return 0;
	switch (below(&g->r, 3)) {
	case 0: it[1].tkind = TG_ENTRY; break;
	case 1: it[1].tkind = TG_PATCH; break;
	default: it[1].tkind = TG_ITEM, it[1].targ = (uint16_t)below(&g->r, (unsigned)k + 1); break;
	}
	return 2;
}

/* Indirect calls and jumps: through a register a lea set (two items), a
 * slot of the data area, the stack (refused in the patch), or a far call
 * (first item only).  Returns the items made. */
static size_t gen_indirect(struct gen *g, struct rd_item *it, size_t k)
{
	static const uint8_t regs[] = { 0, 1, 2, 6, 7, 8, 9, 10, 11, 12, 14, 15 };
	static const uint8_t stack[][5] = { { 4, 0xff, 0x54, 0x24, 0x08 }, { 3, 0xff, 0x14, 0x24 },
					    { 2, 0xff, 0xd4 }, { 4, 0xff, 0x64, 0x24, 0x08 } };
	uint8_t b[16] = { 0 }, r = regs[below(&g->r, sizeof(regs))];
	int call = chance(&g->r, 60);
	const uint8_t *st;

	switch (below(&g->r, k ? 6 : 7)) {
	case 0: case 1:		/* lea X(%rip),%reg; call/jmp *%reg */
		b[0] = (uint8_t)(0x48 | (r >= 8 ? 4 : 0)), b[1] = 0x8d, b[2] = (uint8_t)((r & 7) << 3 | 5);
		if (!take(g, it, b, 7, k, 0))
			return 0;
		it->tkind = call || chance(&g->r, 30) ? TG_CALLEE : TG_EXIT;
		it->targ = (uint16_t)below(&g->r, it->tkind == TG_CALLEE ? RD_NCALLEES : RD_NEXITS);
		memset(b, 0, sizeof(b));
		b[0] = 0x41, b[1] = 0xff, b[2] = (uint8_t)((call ? 0xd0 : 0xe0) | (r & 7));
		return take(g, it + 1, r >= 8 ? b : b + 1, r >= 8 ? 3 : 2, k + 1, 0) ? 2 : 0;
	case 2: case 3:		/* call/jmp *slot(%rip) */
		b[0] = 0xff, b[1] = call ? 0x15 : 0x25;
		return (size_t)take(g, it, b, 6, k, 0);
	case 4:
		st = stack[below(&g->r, 4)];
		return (size_t)take(g, it, st + 1, st[0], k, 0);
	case 5:			/* through whatever the register holds */
		b[0] = 0x41, b[1] = 0xff, b[2] = (uint8_t)((call ? 0xd0 : 0xe0) | (r & 7));
		return (size_t)take(g, it, r >= 8 ? b : b + 1, r >= 8 ? 3 : 2, k, 0);
	default:		/* lcall *slot(%rip) */
		b[0] = 0xff, b[1] = 0x1d;
		return (size_t)take(g, it, b, 6, k, 0);
	}
}

/* Random bytes that happen to decode to something the sandbox may run. */
static int gen_random(struct gen *g, struct rd_item *it, size_t k)
{
	static const uint8_t pfx[] = { 0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x2e, 0x3e, 0x26,
				       0x36, 0x48, 0x4c, 0x41, 0x49, 0x40 };
	int tries;

	for (tries = 0; tries < 64; tries++) {
		uint8_t b[16];
		size_t n = 0, i;
		unsigned u = below(&g->r, 100);

		for (i = 0; i < sizeof(b); i++)
			b[i] = (uint8_t)next(&g->r);
		while (n < 3 && chance(&g->r, 25))
			b[n++] = pfx[below(&g->r, sizeof(pfx))];
		if (u >= 55 && u < 85) {
			b[n++] = 0x0f;
		} else if (u >= 85 && u < 90) {
			b[n++] = 0x0f;
			b[n++] = chance(&g->r, 50) ? 0x38 : 0x3a;
		} else if (u >= 90) {
			b[n++] = chance(&g->r, 50) ? 0xc4 : 0xc5;	/* VEX: BMI */
		}
		if (take(g, it, b, 15, k, 0))
			return 1;
	}
	return 0;
}

/* One instruction (or two) at item k; the first three are the likely
 * patch, so they lean to what the relocator rewrites or refuses. */
static size_t gen_item(struct gen *g, struct rd_item *it, size_t k)
{
	enum { C_RIP, C_BASE, C_REG, C_BRANCH, C_COUNTER, C_CALL, C_INDIRECT, C_PUSHF,
	       C_SPECIAL, C_RANDOM, C_N };
	static const unsigned patch[C_N] = { 28, 5, 12, 18, 3, 10, 6, 3, 7, 8 };
	static const unsigned rest[C_N] = { 18, 10, 22, 18, 4, 6, 4, 1, 5, 12 };
	int tries;

	for (tries = 0; tries < 16; tries++) {
		uint8_t b[16];
		size_t made;

		switch (pick(&g->r, k < 3 ? patch : rest, C_N)) {
		case C_RIP: modrm_insn(g, b, M_RIP); made = (size_t)take(g, it, b, 16, k, 0); break;
		case C_BASE: modrm_insn(g, b, M_BASE); made = (size_t)take(g, it, b, 16, k, 0); break;
		case C_REG: modrm_insn(g, b, M_REG); made = (size_t)take(g, it, b, 16, k, 0); break;
		case C_BRANCH: made = (size_t)gen_branch(g, it, k, 0); break;
		case C_COUNTER: made = gen_counter(g, it, k); break;
		case C_CALL: made = (size_t)gen_branch(g, it, k, 1); break;
		case C_INDIRECT: made = gen_indirect(g, it, k); break;
		case C_PUSHF: made = (size_t)gen_special(g, it, k, pushfs, 2); break;
		case C_SPECIAL:
			made = (size_t)gen_special(g, it, k, specials, sizeof(specials) / sizeof(*specials));
			break;
		default: made = (size_t)gen_random(g, it, k); break;
		}
		if (made)
			return made;
	}
	take(g, it, (const uint8_t *)"\x90", 1, k, 0);
	return 1;
}

/* How the function ends (when it does not fall off its end). */
static size_t gen_end(struct gen *g, struct rd_item *it, size_t k)
{
	static const unsigned w[] = { 40, 30, 10, 6, 6, 8 };
	static const uint8_t jmps[][6] = { { 2, 0xeb }, { 5, 0xe9 } };
	int c = pick(&g->r, w, 6);
	const uint8_t *j = jmps[below(&g->r, 2)];

	switch (c) {
	case 0:
		return (size_t)take(g, it, (const uint8_t *)"\xc3", 1, k, 0);
	case 1: case 2: case 3:
		if (!take(g, it, c == 3 ? (const uint8_t *)"\xe8\0\0\0\0" : j + 1,
			  c == 3 ? 5 : j[0], k, 0))
			return 0;
		it->tkind = c == 2 ? TG_CALLEE : TG_EXIT;
		it->targ = (uint16_t)below(&g->r, c == 2 ? RD_NCALLEES : RD_NEXITS);
		return 1;
	case 4:
		return (size_t)take(g, it, (const uint8_t[]){ 0xc2, (uint8_t)(8 * below(&g->r, 4)), 0 },
				    3, k, 0);
	default:
		return (size_t)take(g, it, (const uint8_t *)"\xff\x25\0\0\0\0", 6, k, 0);
	}
}

/* ---- layout ---- */

/* The absolute address item it aims at, in s as laid out so far. */
static uint64_t resolve(const struct rd_seq *s, const struct rd_item *it)
{
	uint64_t a = s->addr, next = it->at + it->len;

	/* A branch to the entry, the patch or its tail that is itself there
	 * spins for ever once taken: mostly, the next instruction instead. */
	switch (it->tkind) {
	case TG_ENTRY: return it->at == a && it->targ ? next : a;
	case TG_PATCH: return it->at == a + s->patch_at && it->targ ? next : a + s->patch_at;
	case TG_MIDPATCH:
		if (s->tail < s->patch_at + 2)
			return a;
		return a + s->patch_at + 1 + it->targ % (s->tail - s->patch_at - 1);
	case TG_TAIL: return it->at == a + s->tail && it->targ ? next : a + s->tail;
	case TG_ITEM: return it->targ < s->n ? s->it[it->targ].at : a + s->size;
	case TG_IN_ENDBR: return s->endbr ? a + 1 + it->targ % 3 : a;
	case TG_EXIT: return s->exit[it->targ % RD_NEXITS];
	case TG_CALLEE: return s->callee[it->targ % RD_NCALLEES];
	case TG_DATA: return RD_DATA + it->targ;
	case TG_FAR_DATA: return RD_FAR_DATA + it->targ;
	case TG_SLOT: return RD_DATA + 8 * (it->targ % 16);
	}
	return next;
}

/* A rel8 branch whose target is out of reach: its rel32 form (a loop
 * has none: it is aimed at the next instruction instead). */
static void widen(struct rd_item *it, size_t k)
{
	size_t op = (size_t)it->rel_off - 1;

	if (it->form == BF_JMP8) {
		it->b[op] = 0xe9;
		it->form = BF_JMP32, it->rel_size = 4, it->len = (uint8_t)(op + 5);
	} else if (it->form == BF_JCC8) {
		uint8_t cc = it->b[op] & 0x0f;

		it->b[op] = 0x0f, it->b[op + 1] = (uint8_t)(0x80 | cc);
		it->form = BF_JCC32, it->rel_off = (uint8_t)(op + 2), it->rel_size = 4;
		it->len = (uint8_t)(op + 6);
	} else {
		it->tkind = TG_ITEM, it->targ = (uint16_t)(k + 1);
	}
}

/* Addresses of items, exits and callees; patch_at and tail as a patch
 * would see them. */
static void place(struct rd_seq *s)
{
	uint64_t at = s->addr + (s->endbr ? 4 : 0), end;
	size_t k, cov = 0;

	for (k = 0; k < s->n; k++) {
		s->it[k].at = at;
		at += s->it[k].len;
	}
	s->size = (size_t)(at - s->addr);
	s->patch_at = s->endbr ? 4 : 0;
	s->first = 0;
	/* An endbr64 generated as the first instruction is one too. */
	if (!s->endbr && s->n && s->it[0].len == 4 && !memcmp(s->it[0].b, "\xf3\x0f\x1e\xfa", 4))
		s->patch_at = 4, s->first = 1;
	for (k = s->first; k < s->n && cov < OT_PATCH_LEN; k++)
		cov += s->it[k].len;
	s->ncovered = k - s->first;
	s->tail = cov < OT_PATCH_LEN ? s->size : s->patch_at + cov;
	end = at;
	s->exit[EX_FALL] = end, s->exit[EX_NEAR0] = end + 2, s->exit[EX_NEAR1] = end + 4;
	s->exit[EX_RET] = RD_STUBS, s->exit[EX_STRAY] = RD_STUBS + 2;
	s->exit[EX_STAT0] = RD_STUBS + 4, s->exit[EX_STAT1] = RD_STUBS + 6;
	s->exit[EX_FAR] = RD_FAR_CODE;
	s->callee[CA_NEAR] = end + 8, s->callee[CA_NEAR2] = end + 16;
	s->callee[CA_STAT] = RD_STUBS + 16, s->callee[CA_STAT2] = RD_STUBS + 24;
	s->callee[CA_FAR] = RD_FAR_CODE + 16;
}

static void layout(struct rd_seq *s)
{
	size_t k;
	int changed = 1;

	while (changed) {
		changed = 0;
		place(s);
		for (k = 0; k < s->n; k++) {
			struct rd_item *it = &s->it[k];
			int64_t d;

			if (it->kind == IK_PLAIN)
				continue;
			it->dest = resolve(s, it);
			d = (int64_t)(it->dest - (it->at + it->len));
			if (it->kind == IK_BRANCH && it->rel_size == 1 && (d < -128 || d > 127)) {
				widen(it, k);
				changed = 1;
			}
		}
	}
	memcpy(s->code, "\xf3\x0f\x1e\xfa", s->endbr ? 4 : 0);
	for (k = 0; k < s->n; k++) {
		struct rd_item *it = &s->it[k];
		int32_t d = (int32_t)(it->dest - (it->at + it->len));

		if (it->kind != IK_PLAIN && it->rel_size == 1)
			it->b[it->rel_off] = (uint8_t)(int8_t)d;
		else if (it->kind != IK_PLAIN)
			memcpy(it->b + it->rel_off, &d, 4);
		memcpy(s->code + (it->at - s->addr), it->b, it->len);
	}
}

/* ---- registers, memory, stubs ---- */

static uint64_t reg_value(struct rng *r)
{
	static const uint64_t edge[] = { 0, 1, 2, ~0ull, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
					 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
					 0x7fffffffffffffffull, 0x8000000000000000ull };

	switch (below(r, 10)) {
	case 0: case 1: case 2: return below(r, 17);
	case 3: return edge[below(r, 16)];
	case 4: case 5: return (uint32_t)next(r);
	case 9: return RD_DATA + below(r, RD_DATA_LEN);
	default: return next(r);
	}
}

/* rbx and rbp: anywhere in the data area a +-0x100 displacement stays in. */
static uint64_t data_pointer(struct rng *r)
{
	uint64_t p = RD_DATA + 0x180 + 8 * below(r, (0xe00 - 0x180) / 8);

	return chance(r, 20) ? p + below(r, 8) : p;
}

static void init_regs(struct rng *r, struct rd_regs *regs)
{
	int i;

	for (i = 0; i < 16; i++)
		regs->gpr[i] = reg_value(r);
	regs->gpr[3] = data_pointer(r);
	regs->gpr[4] = RD_STACK_TOP;
	regs->gpr[5] = data_pointer(r);
	regs->gpr[13] = below(r, 5);
	regs->flags = 0x202 | (next(r) & 0x8d5);	/* IF, bit 1; CF PF AF ZF SF OF */
}

/* Like reg_value, but from one draw: 1,568 of them a sequence. */
static uint64_t mem_value(struct rng *r)
{
	uint64_t v = next(r);

	switch (v & 7) {
	case 0: case 1: return (v >> 3) & 15;
	case 2: return (uint32_t)(v >> 3);
	case 3: return RD_DATA + ((v >> 3) & (RD_DATA_LEN - 1));
	default: return v;
	}
}

void rd_fill_memory(const struct rd_seq *s, uint8_t *data, uint8_t *far_data, uint8_t *stack)
{
	struct rng r = { s->mem_seed };
	uint64_t v;
	size_t i;

	/* Slots 0-15: code addresses for indirect calls and jumps. */
	for (i = 0; i < 16; i++) {
		v = i < 8 ? s->exit[i] : s->callee[(i - 8) % RD_NCALLEES];
		memcpy(data + 8 * i, &v, 8);
	}
	for (i = 16; i < RD_DATA_LEN / 8; i++) {
		v = mem_value(&r);
		memcpy(data + 8 * i, &v, 8);
	}
	for (i = 0; i < RD_FAR_DATA_LEN / 8; i++) {
		v = mem_value(&r);
		memcpy(far_data + 8 * i, &v, 8);
	}
	/* The stack: the caller's return address at rsp, stray returns
	 * elsewhere land on an exit (or a callee) or fault. */
	for (i = 0; i < RD_STACK_LEN / 8; i++) {
		v = mem_value(&r);
		if ((v & 0x300) == 0x100)
			v = s->exit[EX_STRAY];
		else if ((v & 0xf00) == 0x200)
			v = s->callee[(v >> 12) % RD_NCALLEES];
		memcpy(stack + 8 * i, &v, 8);
	}
	memcpy(stack + (RD_STACK_TOP - RD_STACK), &s->exit[EX_RET], 8);
}

/* A callee that records the return address it was given (r11), one
 * whose flags depend on it (not one that computes with it: an indirect
 * jump through a code address made that way lands anywhere); an exit: ud2. */
static const uint8_t callee_r11[] = { 0x4c, 0x8b, 0x1c, 0x24, 0xc3 };	/* mov (%rsp),%r11; ret */
static const uint8_t callee_cmp[] = { 0x4c, 0x3b, 0x24, 0x24, 0xc3 };	/* cmp (%rsp),%r12; ret */

static void put_exit(uint8_t *p)
{
	p[0] = 0x0f, p[1] = 0x0b;
}

void rd_write_stubs(const struct rd_seq *s, uint8_t *fn_page)
{
	uint8_t *end = fn_page + (s->exit[EX_FALL] - RD_FN);

	put_exit(end);
	put_exit(end + 2);
	put_exit(end + 4);
	memcpy(end + 8, callee_r11, sizeof(callee_r11));
	memcpy(end + 16, callee_cmp, sizeof(callee_cmp));
}

void rd_write_static_stubs(uint8_t *stubs, uint8_t *far)
{
	put_exit(stubs);
	put_exit(stubs + 2);
	put_exit(stubs + 4);
	put_exit(stubs + 6);
	memcpy(stubs + 16, callee_r11, sizeof(callee_r11));
	memcpy(stubs + 24, callee_cmp, sizeof(callee_cmp));
	put_exit(far);
	memcpy(far + 16, callee_r11, sizeof(callee_r11));
}

/* ---- sequences ---- */

static struct gen_cs {
	csh cs;
	cs_insn *insn;
} dis;

static void gen_open(struct gen *g)
{
	if (!dis.insn) {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &dis.cs) != CS_ERR_OK)
			abort();
		cs_option(dis.cs, CS_OPT_DETAIL, CS_OPT_ON);
		dis.insn = cs_malloc(dis.cs);
	}
	g->cs = dis.cs;
	g->insn = dis.insn;
}

void rd_generate(uint64_t seed, struct rd_seq *s)
{
	static const unsigned lengths[] = { 18, 50, 32 }, tramps[] = { 35, 35, 15, 15 };
	struct gen g;
	size_t k = 0, want;

	memset(s, 0, sizeof(*s));
	gen_open(&g);
	g.r.s = seed;
	s->seed = seed;
	s->endbr = chance(&g.r, 35);
	switch (pick(&g.r, lengths, 3)) {
	case 0: want = 1 + below(&g.r, 2); break;
	case 1: want = 3 + below(&g.r, 6); break;
	default: want = 9 + below(&g.r, 24); break;
	}
	while (k < want && k + 3 < RD_MAX_ITEMS)
		k += gen_item(&g, s->it + k, k);
	if (chance(&g.r, 88))
		k += gen_end(&g, s->it + k, k);
	s->n = k;
	s->addr = RD_FN + below(&g.r, 0x600);
	if (chance(&g.r, 50))
		s->addr &= ~15ull;
	s->tramp = rd_tramp_page[pick(&g.r, tramps, RD_NTRAMP)] + below(&g.r, 0xf00);
	if (chance(&g.r, 50))
		s->tramp &= ~15ull;
	layout(s);
	init_regs(&g.r, &s->regs);
	s->mem_seed = next(&g.r);
}

/* ---- the contract ---- */

/* Can a rel32 at the trampoline reach dest?  The layout keeps every
 * distance megabytes away from the limit, either way. */
static int reach(uint64_t from, uint64_t dest)
{
	int64_t d = (int64_t)(dest - from);

	return d > INT32_MIN && d < INT32_MAX;
}

void rd_reasons(const struct rd_seq *s, uint32_t *holds, uint32_t *must)
{
	uint64_t lo = s->addr + s->patch_at, hi = s->addr + s->tail;
	uint32_t h = 0, m;
	size_t k;

	if (s->size < s->patch_at + OT_PATCH_LEN) {
		*holds = *must = 1u << RR_SHORT;
		return;
	}
	m = 0;
	for (k = s->first; k < s->first + s->ncovered; k++) {
		const struct rd_item *it = &s->it[k];

		if (it->flags & IF_PUSHF)
			h |= 1u << RR_PUSHF;
		if (it->flags & IF_LOOP)
			h |= 1u << RR_LOOP;
		if (it->flags & IF_CALL_RSP)
			h |= 1u << RR_CALL_RSP;
		if (it->flags & IF_CALL_FORM)
			h |= 1u << RR_CALL_FORM;
		if (it->flags & IF_FAR_CALL)
			m |= 1u << RR_CALL_FORM;	/* push + jmp cannot do a far call */
		if (it->flags & IF_BRANCH_FORM)
			h |= 1u << RR_BRANCH_FORM;
		if (it->flags & IF_OPSIZE)
			h |= 1u << RR_OPSIZE;
		if ((it->flags & IF_CALL) && k + 1 < s->first + s->ncovered)
			h |= 1u << RR_CALL_MID;
		if (it->kind == IK_BRANCH && !reach(s->tramp, it->dest))
			h |= 1u << RR_FAR_BRANCH;
		if (it->kind == IK_RIP && !(it->flags & IF_EIP) && !reach(s->tramp, it->dest))
			h |= 1u << RR_FAR_RIP;
	}
	for (k = 0; k < s->n; k++)
		if (s->it[k].kind == IK_BRANCH && s->it[k].dest > lo && s->it[k].dest < hi)
			h |= 1u << RR_INTO_PATCH;
	*holds = h;
	*must = m | (h & ((1u << RR_PUSHF) | (1u << RR_LOOP) | (1u << RR_FAR_BRANCH) |
			  (1u << RR_FAR_RIP) | (1u << RR_CALL_MID) | (1u << RR_INTO_PATCH) |
			  (1u << RR_OPSIZE)));
}

void rd_dump(FILE *out, const char *what, const uint8_t *code, size_t len, uint64_t addr)
{
	cs_insn *in;
	size_t n, i, j, used = 0;
	csh cs;

	fprintf(out, "  %s (%zu bytes at %#llx):\n", what, len, (unsigned long long)addr);
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return;
	n = cs_disasm(cs, code, len, addr, 0, &in);
	for (i = 0; i < n; i++) {
		char hex[48] = "";

		for (j = 0; j < in[i].size && j < 15; j++)
			snprintf(hex + 3 * j, sizeof(hex) - 3 * j, "%02x ", in[i].bytes[j]);
		fprintf(out, "    %#llx: %-45s %s %s\n", (unsigned long long)in[i].address, hex,
			in[i].mnemonic, in[i].op_str);
		used += in[i].size;
	}
	if (used < len)
		fprintf(out, "    (%zu bytes undecoded)\n", len - used);
	cs_free(in, n);
	cs_close(&cs);
}
