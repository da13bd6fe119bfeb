/*
 * retsite.c - how an x86-64 function leaves, found by disassembling it with
 * capstone (lib/symbols/retsite.h, a contract each lib/arch folder meets):
 * its return instructions, its tail calls' targets, its jump tables and the
 * indirect jumps that cannot be followed.
 */
#include "symbols/retsite.h"
#include "symbols/elffile.h"
#include "util/xalloc.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OT_CS_ARCH CS_ARCH_X86
#define OT_CS_MODE CS_MODE_64
#define OT_INS_RET X86_INS_RET
#define OT_INS_JMP X86_INS_JMP

/* The direct target of a jump, if it has one. */
static int jump_target(const cs_insn *insn, uint64_t *target)
{
	const cs_x86 *x = &insn->detail->x86;

	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		*target = (uint64_t)x->operands[0].imm;
		return 1;
	}
	return 0;
}

/*
 * What the walk knows a general register holds, read in the order of the
 * code: an address made by lea (a table's, for a jump through it), or a
 * pointer read from a table of 8-byte pointers.  It holds only if no
 * branch lands between since and its use (checked once the function's
 * branches are known).
 */
enum { RV_NONE, RV_ADDR, RV_PTR };
struct regval {
	uint8_t kind;
	uint8_t known;		/* RV_PTR: the table's address is known */
	struct ot_table_jump at; /* RV_ADDR: the address; RV_PTR: the table's */
	uint64_t since;		/* the first instruction it comes from */
};
#define NGPR 16

/* The general register reg is part of (0..15), or -1. */
static int gpr(unsigned reg)
{
	static const uint16_t names[NGPR][5] = {
		{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
		{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
		{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
		{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
		{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, X86_REG_SIL },
		{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, X86_REG_DIL },
		{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, X86_REG_BPL },
		{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, X86_REG_SPL },
		{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, X86_REG_R8B },
		{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, X86_REG_R9B },
		{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, X86_REG_R10B },
		{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, X86_REG_R11B },
		{ X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, X86_REG_R12B },
		{ X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, X86_REG_R13B },
		{ X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, X86_REG_R14B },
		{ X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, X86_REG_R15B },
	};
	int i, k;

	for (i = 0; i < NGPR; i++)
		for (k = 0; k < 5; k++)
			if (names[i][k] == reg)
				return i;
	return -1;
}

/*
 * The table a scaled-index operand reads 8-byte pointers from: an
 * absolute one (jmp *tab(,%rdx,8), non-PIE code), or based on a register
 * the walk saw loaded by lea (then *since is the lea's address).  1 with
 * *t, 0 if unknown.
 */
static int table_of(const x86_op_mem *m, const struct regval *rv, struct ot_table_jump *t,
		    uint64_t *since)
{
	int b;

	if (m->index == X86_REG_INVALID || m->scale != 8 || m->segment != X86_REG_INVALID)
		return 0;
	if (m->base == X86_REG_INVALID) {
		t->addr = (uint64_t)m->disp;
		t->vaddr = 1;
		return 1;
	}
	b = gpr(m->base);
	if (b < 0 || rv[b].kind != RV_ADDR)
		return 0;
	*t = rv[b].at;
	t->addr += (uint64_t)m->disp;
	*since = rv[b].since;
	return 1;
}

/*
 * After insn: what each register holds.  Any write the walk does not
 * understand forgets the register; a call forgets those the callee may
 * change.
 */
static void track(csh cs, const cs_insn *insn, struct regval *rv)
{
	static const uint16_t clobbered[] = {
		X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RSI, X86_REG_RDI,
		X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11,
	};
	const cs_x86 *x = &insn->detail->x86;
	struct regval v = { RV_NONE, 0, { 0, 0 }, insn->address };
	cs_regs rd, wr;
	uint8_t nrd, nwr, k;
	int dst = -1;

	if (x->op_count == 2 && x->operands[0].type == X86_OP_REG && x->operands[0].size == 8 &&
	    x->operands[1].type == X86_OP_MEM) {
		const x86_op_mem *m = &x->operands[1].mem;

		dst = gpr(x->operands[0].reg);
		if (insn->id == X86_INS_LEA && m->base == X86_REG_RIP && m->index == X86_REG_INVALID) {
			v.kind = RV_ADDR;
			v.at.addr = insn->address + insn->size + (uint64_t)m->disp;
		} else if (insn->id == X86_INS_MOV && m->index != X86_REG_INVALID && m->scale == 8) {
			v.kind = RV_PTR;
			v.known = (uint8_t)table_of(m, rv, &v.at, &v.since);
		}
	}
	if (cs_regs_access(cs, insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		memset(rv, 0, NGPR * sizeof(*rv));
	else
		for (k = 0; k < nwr; k++)
			if (gpr(wr[k]) >= 0)
				rv[gpr(wr[k])].kind = RV_NONE;
	if (insn->id == X86_INS_CALL)
		for (k = 0; k < sizeof(clobbered) / sizeof(*clobbered); k++)
			rv[gpr(clobbered[k])].kind = RV_NONE;
	if (dst >= 0 && v.kind)
		rv[dst] = v;
}

/*
 * How an indirect jump leaves: 0 not at all (a switch), 1 maybe (a tail
 * call through a pointer: indirect), 2 through the table of pointers in
 * *t, if no branch lands after *since up to the jump.  A switch jumps through a table of its labels: with Intel CET
 * (-fcf-protection, Ubuntu's gcc default) the jump is "notrack", as it
 * lands without endbr64, while a tail call through a pointer must land on
 * one; without CET, gcc's and clang's PIC switches read a table of 32-bit
 * offsets just before the jump (movslq (%rdx,%rax,4),%rax; add %rdx,%rax;
 * jmp *%rax).  A jump through 8-byte pointers (jmp *(%rdx,%rax,8), or a
 * register loaded from them) may be a non-PIE switch or a table of
 * functions: only its entries tell.  table_age: instructions since the
 * last scaled-index load.
 */
static int indirect_exit(const cs_insn *insn, unsigned table_age, const struct regval *rv,
			 struct ot_table_jump *t, uint64_t *since)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *op = &x->operands[0];

	*since = insn->address;
	if (x->op_count != 1 || op->type == X86_OP_IMM)
		return 0;
	if (x->prefix[1] == X86_PREFIX_DS)	/* notrack (3e) */
		return 0;
	if (op->type == X86_OP_MEM)
		return table_of(&op->mem, rv, t, since) ? 2 : 1;
	if (op->type == X86_OP_REG && gpr(op->reg) >= 0 && rv[gpr(op->reg)].kind == RV_PTR) {
		*t = rv[gpr(op->reg)].at;
		*since = rv[gpr(op->reg)].since;
		return rv[gpr(op->reg)].known ? 2 : 1;
	}
	return !(op->type == X86_OP_REG && table_age <= 4);
}

/* jmp *disp(%rip): the slot's address (the next instruction's + disp). */
static int rip_slot(const cs_insn *insn, uint64_t *slot)
{
	const cs_x86 *x = &insn->detail->x86;

	if (x->op_count == 1 && x->operands[0].type == X86_OP_MEM &&
	    x->operands[0].mem.base == X86_REG_RIP && x->operands[0].mem.index == X86_REG_INVALID) {
		*slot = insn->address + insn->size + (uint64_t)x->operands[0].mem.disp;
		return 1;
	}
	return 0;
}

/* Does insn read memory through a scaled index register (a table)? */
static int table_load(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;
	uint8_t k;

	for (k = 0; k < x->op_count; k++)
		if (x->operands[k].type == X86_OP_MEM &&
		    x->operands[k].mem.index != X86_REG_INVALID && x->operands[k].mem.scale >= 4)
			return 1;
	return 0;
}

static void add(uint64_t **v, size_t *n, uint64_t x)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i] == x)
			return;
	*v = ot_xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = x;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The targets of the function's own direct branches, sorted: where the
 * walk must forget what registers hold (another path joins there).
 */
static size_t branch_targets(csh cs, cs_insn *insn, const uint8_t *code, size_t size,
			     uint64_t offset, uint64_t **out)
{
	const uint8_t *p = code;
	uint64_t addr = offset, target;
	size_t left = size, n = 0, cap = 0;

	*out = NULL;
	while (left && cs_disasm_iter(cs, &p, &left, &addr, insn)) {
		if (!insn->detail || !insn->id || !cs_insn_group(cs, insn, CS_GRP_JUMP) ||
		    !jump_target(insn, &target) || target < offset || target >= offset + size)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			*out = ot_xreallocarray(*out, cap, sizeof(**out));
		}
		(*out)[n++] = target;
	}
	if (n)
		qsort(*out, n, sizeof(**out), cmp_u64);
	return n;
}

/*
 * One unconditional jump of the function: what it adds to x.  A table
 * jump's span (the first instruction its table's address comes from, and
 * the jump's own) goes to spans[2 * k], for the check against branches.
 */
static void classify_jump(const cs_insn *insn, uint64_t offset, size_t size, unsigned table_age,
			  const struct regval *rv, struct ot_exits *x, uint64_t **spans)
{
	struct ot_table_jump t;
	uint64_t target, since;

	if (jump_target(insn, &target)) {
		if (target < offset || target >= offset + size)
			add(&x->tails, &x->ntails, target);
	} else if (rip_slot(insn, &target)) {
		add(&x->slots, &x->nslots, target);
	} else {
		switch (indirect_exit(insn, table_age, rv, &t, &since)) {
		case 2:
			x->tables = ot_xreallocarray(x->tables, x->ntables + 1, sizeof(*x->tables));
			*spans = ot_xreallocarray(*spans, 2 * (x->ntables + 1), sizeof(**spans));
			(*spans)[2 * x->ntables] = since;
			(*spans)[2 * x->ntables + 1] = insn->address;
			x->tables[x->ntables++] = t;
			break;
		case 1:
			x->indirect++;
			break;
		}
	}
}

/*
 * A table's address holds at its jump only if no branch of the function
 * lands after where it was made, up to the jump (another path, with
 * another value, would join there): such jumps are indirect after all.
 */
static void check_spans(csh cs, cs_insn *insn, const uint8_t *code, size_t size, uint64_t offset,
			const uint64_t *spans, struct ot_exits *x)
{
	uint64_t *joins;
	size_t njoins = branch_targets(cs, insn, code, size, offset, &joins), k, kept = 0, j;

	for (k = 0; k < x->ntables; k++) {
		for (j = 0; j < njoins && !(joins[j] > spans[2 * k] && joins[j] <= spans[2 * k + 1]);
		     j++)
			;
		if (j < njoins)
			x->indirect++;
		else
			x->tables[kept++] = x->tables[k];
	}
	x->ntables = kept;
	free(joins);
}

int ot_exits_mem(const uint8_t *code, size_t size, uint64_t offset, struct ot_exits *x)
{
	const uint8_t *p = code;
	uint64_t addr = offset, *spans = NULL;
	size_t left = size;
	unsigned table_age = 100;
	struct regval rv[NGPR];
	cs_insn *insn;
	csh cs;

	memset(x, 0, sizeof(*x));
	memset(rv, 0, sizeof(rv));
	if (cs_open(OT_CS_ARCH, OT_CS_MODE, &cs) != CS_ERR_OK)
		return -ENOTSUP;
	/* Data in code (jump tables) must not stop the walk: skip it. */
	cs_option(cs, CS_OPT_SKIPDATA, CS_OPT_ON);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(cs);
	while (left && cs_disasm_iter(cs, &p, &left, &addr, insn)) {
		if (!insn->detail || !insn->id) {	/* data skipped by CS_OPT_SKIPDATA */
			memset(rv, 0, sizeof(rv));
			continue;
		}
		table_age = insn->id != OT_INS_JMP && table_load(insn) ? 0 : table_age + 1;
		if (insn->id == OT_INS_RET)
			add(&x->rets, &x->nrets, insn->address);
		else if (insn->id == OT_INS_JMP)
			classify_jump(insn, offset, size, table_age, rv, x, &spans);
		track(cs, insn, rv);
		/* Only a branch reaches what follows a jmp or ret. */
		if (insn->id == OT_INS_RET || insn->id == OT_INS_JMP)
			memset(rv, 0, sizeof(rv));
	}
	if (x->ntables)
		check_spans(cs, insn, code, size, offset, spans, x);
	free(spans);
	cs_free(insn, 1);
	cs_close(&cs);
	return 0;
}

/* The size bytes at file offset offset of path, malloc'd: 0 or -errno.
 * Through the handle the file's symbols were read by while it is open
 * (lib/symbols/elffile): not opened again per function. */
static int read_code(const char *path, uint64_t offset, uint64_t size, uint8_t **code)
{
	struct ot_elf_file *f;
	ssize_t got;
	int err;

	*code = NULL;
	if (!size || size > (64u << 20))
		return -EIO;
	if ((err = ot_elf_file_open(path, OT_ELF_FILE_BYTES, &f)))
		return err;
	*code = ot_xmalloc(size);
	got = ot_elf_file_pread(f, *code, size, offset);
	ot_elf_file_close(f);
	if (got == (ssize_t)size)
		return 0;
	free(*code);
	*code = NULL;
	return -EIO;
}

int ot_exits_file(const char *path, uint64_t offset, uint64_t size, struct ot_exits *x)
{
	uint8_t *code;
	int ret;

	memset(x, 0, sizeof(*x));
	ret = read_code(path, offset, size, &code);
	if (!ret)
		ret = ot_exits_mem(code, size, offset, x);
	free(code);
	return ret;
}

void ot_exits_free(struct ot_exits *x)
{
	free(x->rets);
	free(x->tails);
	free(x->slots);
	free(x->tables);
	memset(x, 0, sizeof(*x));
}

static int only_rets(int ret, struct ot_exits *x, uint64_t **sites, int *tail_calls)
{
	*sites = NULL;
	*tail_calls = 0;
	if (ret)
		return ret;
	*sites = x->rets;
	*tail_calls = x->ntails || x->indirect || x->nslots || x->ntables;
	free(x->tails);
	free(x->slots);
	free(x->tables);
	return (int)x->nrets;
}

int ot_ret_sites_mem(const uint8_t *code, size_t size, uint64_t offset,
		     uint64_t **sites, int *tail_calls)
{
	struct ot_exits x;

	return only_rets(ot_exits_mem(code, size, offset, &x), &x, sites, tail_calls);
}

int ot_ret_sites(const char *path, uint64_t offset, uint64_t size,
		 uint64_t **sites, int *tail_calls)
{
	struct ot_exits x;

	return only_rets(ot_exits_file(path, offset, size, &x), &x, sites, tail_calls);
}

int ot_entry_point(const char *path, uint64_t offset, uint64_t size,
		   uint64_t *probe, const char **why)
{
	uint8_t *code;
	const uint8_t *p;
	uint64_t addr = offset, next = 0;
	size_t left;
	int ret, first = 1, lock = 0;
	cs_insn *insn;
	csh cs;

	*probe = offset;
	*why = NULL;
	if (!size)
		return 0;
	ret = read_code(path, offset, size, &code);
	if (ret)
		return ret;
	if (cs_open(OT_CS_ARCH, OT_CS_MODE, &cs) != CS_ERR_OK) {
		free(code);
		return -ENOTSUP;
	}
	cs_option(cs, CS_OPT_SKIPDATA, CS_OPT_ON);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(cs);
	p = code;
	left = size;
	while (left && cs_disasm_iter(cs, &p, &left, &addr, insn)) {
		uint64_t target;

		if (!insn->detail || !insn->id)
			continue;
		if (first) {
			lock = insn->detail->x86.prefix[0] == X86_PREFIX_LOCK;
			if (!lock)
				break;
			next = insn->address + insn->size;
			first = 0;
			continue;
		}
		if (cs_insn_group(cs, insn, CS_GRP_JUMP) && jump_target(insn, &target) &&
		    (target == offset || target == next)) {
			*why = "its first instruction has a LOCK prefix, which the kernel cannot "
			       "probe, and a branch of the function lands on it or the next one";
			ret = -ENOTSUP;
			break;
		}
	}
	if (lock && !ret) {
		if (next >= offset + size) {
			*why = "its only instruction has a LOCK prefix, which the kernel cannot probe";
			ret = -ENOTSUP;
		} else {
			*probe = next;
			*why = "its first instruction has a LOCK prefix, which the kernel cannot "
			       "probe: the entry probe is on the next one";
		}
	}
	cs_free(insn, 1);
	cs_close(&cs);
	free(code);
	return ret;
}

/*
 * Whether insn only prepares Go's stack check: it writes no register but
 * R12 (the frame's bottom: lea -N(%rsp),%r12; mov %rsp,%r12; sub $N,%r12),
 * R14 (g loaded from thread-local storage, in a function C may call) and
 * the flags, and branches nowhere but conditionally (jb to morestack).
 */
static int go_check_prep(csh cs, const cs_insn *insn)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr, k;

	if (cs_insn_group(cs, insn, CS_GRP_JUMP))
		return insn->id == X86_INS_JB;
	if (cs_insn_group(cs, insn, CS_GRP_CALL) || cs_insn_group(cs, insn, CS_GRP_RET) ||
	    cs_regs_access(cs, insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return 0;
	for (k = 0; k < nwr; k++)
		if (wr[k] != X86_REG_R12 && wr[k] != X86_REG_R14 && wr[k] != X86_REG_EFLAGS)
			return 0;
	return insn->detail->x86.op_count < 2 || insn->detail->x86.operands[0].type != X86_OP_MEM;
}

/* cmp %rsp|%r12, 0x10(%r14): the SP against g.stackguard0. */
static int go_check_cmp(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	return insn->id == X86_INS_CMP && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
	       (x->operands[0].reg == X86_REG_RSP || x->operands[0].reg == X86_REG_R12) &&
	       x->operands[1].type == X86_OP_MEM && x->operands[1].mem.base == X86_REG_R14 &&
	       x->operands[1].mem.index == X86_REG_INVALID && x->operands[1].mem.disp == 16;
}

/* Past the stack check at the start of code, or 0 when there is none. */
static uint64_t go_after_check(csh cs, cs_insn *insn, const uint8_t *code, size_t size,
			       uint64_t offset)
{
	const uint8_t *p = code;
	uint64_t addr = offset;
	size_t left = size;
	int n, cmp = 0;

	for (n = 0; n < 8 && left && cs_disasm_iter(cs, &p, &left, &addr, insn); n++) {
		if (!insn->detail || !insn->id)
			return 0;
		if (cmp)
			return insn->id == X86_INS_JBE ? insn->address + insn->size : 0;
		if (go_check_cmp(insn))
			cmp = 1;
		else if (!go_check_prep(cs, insn))
			return 0;
	}
	return 0;
}

int ot_go_entry_point(const char *path, uint64_t offset, uint64_t size, uint64_t *probe,
		      const char **why)
{
	uint64_t *joins = NULL, after = 0;
	size_t njoins = 0, k;
	uint8_t *code;
	cs_insn *insn;
	int ret;
	csh cs;

	*probe = offset;
	*why = NULL;
	if (!size)
		return 0;
	if ((ret = read_code(path, offset, size, &code)))
		return ret;
	if (cs_open(OT_CS_ARCH, OT_CS_MODE, &cs) != CS_ERR_OK) {
		free(code);
		return -ENOTSUP;
	}
	cs_option(cs, CS_OPT_SKIPDATA, CS_OPT_ON);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(cs);
	after = go_after_check(cs, insn, code, size, offset);
	if (after)
		njoins = branch_targets(cs, insn, code, size, offset, &joins);
	/* A branch into the check but to its start (morestack's way back)
	 * would skip the probe, or run it twice. */
	for (k = 0; k < njoins && after; k++)
		if (joins[k] > offset && joins[k] <= after)
			after = 0;
	if (after) {
		*probe = after;
		*why = "past its stack check: a call that grows its stack runs the check again "
		       "after runtime.morestack, and is seen once";
	} else {
		*why = "no stack check at its start (a leaf or NOSPLIT function, which never "
		       "calls runtime.morestack): the entry probe is on its first instruction";
	}
	free(joins);
	cs_free(insn, 1);
	cs_close(&cs);
	free(code);
	return 0;
}
