/*
 * trampcode.c - x86-64's encodings of inject's trampoline heads and
 * patches (trampcode.h): bytes only, placed by lib/inject/inject_tramp.c.
 */
#include "trampcode.h"
#include "operand.h"
#include "relocate.h"
#include "x86emit.h"

#include <string.h>

/* A call through slot at byte k of the head at tramp. */
static size_t call_slot(uint8_t *t, size_t k, uint64_t tramp, uint64_t slot)
{
	t[k] = 0xff, t[k + 1] = 0x15;			/* call *slot(%rip) */
	put32(t + k + 2, (int32_t)((int64_t)slot - (int64_t)(tramp + k + 6)));
	return k + 6;
}

size_t ot_tramp_entry(uint8_t *t, uint64_t tramp, uint32_t id, uint64_t slot)
{
	t[0] = 0x50;					/* push %rax */
	t[1] = 0xb8;					/* mov $id,%eax */
	put32(t + 2, (int32_t)id);
	call_slot(t, 6, tramp, slot);
	t[12] = 0x58;					/* pop %rax */
	return OT_TRAMP_ENTRY_LEN;
}

size_t ot_tramp_hook(uint8_t *t, uint64_t tramp, uint64_t slot)
{
	t[0] = 0x50;				/* push %rax */
	t[1] = 0x48, t[2] = 0x8d, t[3] = 0x05;	/* lea orig(%rip),%rax */
	put32(t + 4, OT_TRAMP_HOOK_LEN - 8);
	t[8] = 0xff, t[9] = 0x25;		/* jmp *slot(%rip) */
	put32(t + 10, (int32_t)((int64_t)slot - (int64_t)(tramp + 14)));
	return OT_TRAMP_HOOK_LEN;
}

size_t ot_tramp_point(uint8_t *t, uint64_t tramp, uint64_t slot, uint32_t id,
		      const struct ot_usdt_arg *arg, uint64_t site, int32_t red, const char **why)
{
	size_t k = 0;
	int n;

	memcpy(t + k, "\x48\x8d\x64\x24\x80", 5);		/* lea -128(%rsp),%rsp */
	k += 5;
	t[k++] = 0x50;					/* push %rax */
	if (arg) {
		n = ot_operand_code(arg, site, red, t + k, why);
		if (n < 0)
			return 0;
		k += (size_t)n;
		t[k++] = 0x50;				/* push %rax: the value */
	}
	t[k++] = 0xb8;					/* mov $id,%eax */
	put32(t + k, (int32_t)id);
	k = call_slot(t, k + 4, tramp, slot);
	if (arg) {
		memcpy(t + k, "\x48\x8d\x64\x24\x08", 5);	/* lea 8(%rsp),%rsp */
		k += 5;
	}
	t[k++] = 0x58;					/* pop %rax */
	memcpy(t + k, "\x48\x8d\xa4\x24\x80\x00\x00\x00", 8);	/* lea 128(%rsp),%rsp */
	return k + 8;
}

size_t ot_tramp_exit(uint8_t *t, uint64_t tramp, uint64_t slot, const uint32_t *ids, size_t n,
		     uint64_t *calls)
{
	size_t k = 0, j;

	memcpy(t + k, "\x48\x8d\x64\x24\x80", 5);		/* lea -128(%rsp),%rsp */
	k += 5;
	t[k++] = 0x50;					/* push %rax */
	for (j = 0; j < n; j++) {
		calls[j] = tramp + k;
		t[k++] = 0xb8;				/* mov $number,%eax */
		put32(t + k, (int32_t)ids[j]);
		k = call_slot(t, k + 4, tramp, slot);	/* OT_TRAMP_CALL_LEN in all */
	}
	t[k++] = 0x58;					/* pop %rax */
	memcpy(t + k, "\x48\x8d\xa4\x24\x80\x00\x00\x00", 8);	/* lea 128(%rsp),%rsp */
	return k + 8;
}

void ot_tramp_nop_call(uint8_t *p)
{
	static const uint8_t nops[OT_TRAMP_CALL_LEN] = { 0x0f, 0x1f, 0x44, 0x00, 0x00,
							 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	memcpy(p, nops, sizeof(nops));
}

int ot_tramp_jump(uint8_t *p, uint64_t at, uint64_t tramp)
{
	int64_t d = (int64_t)tramp - (int64_t)(at + OT_PATCH_LEN);

	if (!fits32(d))
		return -1;
	p[0] = 0xe9;					/* jmp rel32 */
	put32(p + 1, (int32_t)d);
	return 0;
}
