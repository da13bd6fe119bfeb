#include "retsite.h"
#include "xalloc.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
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

int ot_ret_sites_mem(const uint8_t *code, size_t size, uint64_t offset,
		     uint64_t **sites, int *tail_calls)
{
	const uint8_t *p = code;
	uint64_t addr = offset;
	size_t left = size, n = 0;
	cs_insn *insn;
	csh cs;

	*sites = NULL;
	*tail_calls = 0;
	if (cs_open(OT_CS_ARCH, OT_CS_MODE, &cs) != CS_ERR_OK)
		return -ENOTSUP;
	/* Data in code (jump tables) must not stop the walk: skip it. */
	cs_option(cs, CS_OPT_SKIPDATA, CS_OPT_ON);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(cs);
	while (left && cs_disasm_iter(cs, &p, &left, &addr, insn)) {
		uint64_t target;

		if (insn->id == OT_INS_JMP && jump_target(insn, &target) &&
		    (target < offset || target >= offset + size))
			*tail_calls = 1;
		if (insn->id != OT_INS_RET)
			continue;
		*sites = ot_xreallocarray(*sites, n + 1, sizeof(**sites));
		(*sites)[n++] = insn->address;
	}
	cs_free(insn, 1);
	cs_close(&cs);
	return (int)n;
}

int ot_ret_sites(const char *path, uint64_t offset, uint64_t size,
		 uint64_t **sites, int *tail_calls)
{
	uint8_t *code;
	ssize_t got;
	int fd, ret;

	*sites = NULL;
	*tail_calls = 0;
	if (!size || size > (64u << 20))
		return -EIO;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	code = ot_xmalloc(size);
	got = pread(fd, code, size, (off_t)offset);
	close(fd);
	ret = got == (ssize_t)size ?
	      ot_ret_sites_mem(code, size, offset, sites, tail_calls) : -EIO;
	free(code);
	return ret;
}
