#include "retsite.h"
#include "xalloc.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#define OT_CS_ARCH CS_ARCH_X86
#define OT_CS_MODE CS_MODE_64
#define OT_INS_RET X86_INS_RET
#define OT_INS_JMP X86_INS_JMP
#elif defined(__aarch64__)
#define OT_CS_ARCH CS_ARCH_ARM64
#define OT_CS_MODE CS_MODE_ARM
#define OT_INS_RET ARM64_INS_RET
#define OT_INS_JMP ARM64_INS_B
#endif

/* The direct target of a jump, if it has one. */
static int jump_target(const cs_insn *insn, uint64_t *target)
{
#if defined(__x86_64__)
	const cs_x86 *x = &insn->detail->x86;

	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		*target = (uint64_t)x->operands[0].imm;
		return 1;
	}
#elif defined(__aarch64__)
	const cs_arm64 *a = &insn->detail->arm64;

	if (a->cc == ARM64_CC_INVALID && a->op_count == 1 &&
	    a->operands[0].type == ARM64_OP_IMM) {
		*target = (uint64_t)a->operands[0].imm;
		return 1;
	}
#endif
	return 0;
}

/*
 * An indirect jump that may leave the function.  A switch jumps through
 * a table: with Intel CET (Debian's gcc default) the jump is "notrack", as
 * it lands without endbr64, while a tail call through a pointer must land
 * on one; without CET the table is read just before the jump with a
 * scaled index (jmp *tab(,%rax,8), or movslq (%rdx,%rax,4),%rax; add
 * %rdx,%rax; jmp *%rax).  Anything else may be a tail call.  table_age:
 * instructions since the last scaled-index load.
 */
static int indirect_exit(const cs_insn *insn, unsigned table_age)
{
#if defined(__x86_64__)
	const cs_x86 *x = &insn->detail->x86;

	if (x->op_count != 1 || x->operands[0].type == X86_OP_IMM)
		return 0;
	if (x->prefix[1] == X86_PREFIX_DS)	/* notrack (3e) */
		return 0;
	if (x->operands[0].type == X86_OP_MEM && x->operands[0].mem.index != X86_REG_INVALID &&
	    x->operands[0].mem.scale > 1)
		return 0;
	return !(x->operands[0].type == X86_OP_REG && table_age <= 4);
#elif defined(__aarch64__)
	(void)table_age;
	return insn->id == ARM64_INS_BR;
#endif
}

/* jmp *disp(%rip): the slot's address (the next instruction's + disp). */
static int rip_slot(const cs_insn *insn, uint64_t *slot)
{
#if defined(__x86_64__)
	const cs_x86 *x = &insn->detail->x86;

	if (x->op_count == 1 && x->operands[0].type == X86_OP_MEM &&
	    x->operands[0].mem.base == X86_REG_RIP && x->operands[0].mem.index == X86_REG_INVALID) {
		*slot = insn->address + insn->size + (uint64_t)x->operands[0].mem.disp;
		return 1;
	}
#else
	(void)insn;
	(void)slot;
#endif
	return 0;
}

/* Does insn read memory through a scaled index register (a table)? */
static int table_load(const cs_insn *insn)
{
#if defined(__x86_64__)
	const cs_x86 *x = &insn->detail->x86;
	uint8_t k;

	for (k = 0; k < x->op_count; k++)
		if (x->operands[k].type == X86_OP_MEM &&
		    x->operands[k].mem.index != X86_REG_INVALID && x->operands[k].mem.scale >= 4)
			return 1;
#else
	(void)insn;
#endif
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

int ot_exits_mem(const uint8_t *code, size_t size, uint64_t offset, struct ot_exits *x)
{
	const uint8_t *p = code;
	uint64_t addr = offset;
	size_t left = size;
	unsigned table_age = 100;
	cs_insn *insn;
	csh cs;

	memset(x, 0, sizeof(*x));
	if (cs_open(OT_CS_ARCH, OT_CS_MODE, &cs) != CS_ERR_OK)
		return -ENOTSUP;
	/* Data in code (jump tables) must not stop the walk: skip it. */
	cs_option(cs, CS_OPT_SKIPDATA, CS_OPT_ON);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(cs);
	while (left && cs_disasm_iter(cs, &p, &left, &addr, insn)) {
		uint64_t target;

		if (!insn->detail || !insn->id)	/* data skipped by CS_OPT_SKIPDATA */
			continue;
		table_age = insn->id != OT_INS_JMP && table_load(insn) ? 0 : table_age + 1;
		if (insn->id == OT_INS_RET)
			add(&x->rets, &x->nrets, insn->address);
		else if (insn->id != OT_INS_JMP)
			continue;
		else if (jump_target(insn, &target)) {
			if (target < offset || target >= offset + size)
				add(&x->tails, &x->ntails, target);
		} else if (rip_slot(insn, &target)) {
			add(&x->slots, &x->nslots, target);
		} else if (indirect_exit(insn, table_age)) {
			x->indirect++;
		}
	}
	cs_free(insn, 1);
	cs_close(&cs);
	return 0;
}

/* The size bytes at file offset offset of path, malloc'd: 0 or -errno. */
static int read_code(const char *path, uint64_t offset, uint64_t size, uint8_t **code)
{
	ssize_t got;
	int fd;

	*code = NULL;
	if (!size || size > (64u << 20))
		return -EIO;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*code = ot_xmalloc(size);
	got = pread(fd, *code, size, (off_t)offset);
	close(fd);
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
	memset(x, 0, sizeof(*x));
}

static int only_rets(int ret, struct ot_exits *x, uint64_t **sites, int *tail_calls)
{
	*sites = NULL;
	*tail_calls = 0;
	if (ret)
		return ret;
	*sites = x->rets;
	*tail_calls = x->ntails || x->indirect || x->nslots;
	free(x->tails);
	free(x->slots);
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
#if defined(__x86_64__)
			lock = insn->detail->x86.prefix[0] == X86_PREFIX_LOCK;
#endif
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
