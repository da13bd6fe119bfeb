/*
 * x86emit.h - the two things every writer of x86-64 machine code here
 * needs: whether a displacement fits a signed 32-bit field, and storing
 * one (little-endian, unaligned).  Used by the relocator (lib/arch/x86_64/relocate.c)
 * and the trampolines (lib/inject/inject_tramp.c); static inlines, any caller.
 */
#ifndef OT_X86EMIT_H
#define OT_X86EMIT_H

#include <stdint.h>
#include <string.h>

/* Does v fit a signed 32-bit displacement (rel32, disp32)? */
static inline int fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static inline void put32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, sizeof(v));
}

#endif
