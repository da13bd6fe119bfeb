/*
 * operand.h - the machine code a USDT site's trampoline (--backend
 * inject) runs to read one of the probe's operands, as its note declares
 * it ("-4@112(%rsp)", "8@-8(%rbp,%rax,8)", "$5", "%edi", "sym(%rip)"),
 * into rax: sign- or zero-extended from its size, the way the uprobe
 * backends' BPF program reads it.
 *
 * The code runs where the trampoline has moved the stack pointer `below`
 * bytes under the site's (past the red zone) and saved the site's rax at
 * 0(%rsp): every other register is the site's.  It touches no flag and
 * no register but rax.  Memory operands are the program's own (the
 * compiler emitted them for the probe's arguments), so reading them
 * faults only where the program would.  Pure: bytes out, nothing run.
 */
#ifndef OT_INJECT_OPERAND_H
#define OT_INJECT_OPERAND_H

#include <stddef.h>
#include <stdint.h>

struct ot_usdt_arg;

/* The most bytes ot_operand_code writes. */
#define OT_OPERAND_MAX 32

/*
 * The code for operand a at a site loaded at site_addr (a sym(%rip)'s
 * off is its distance from the site, as lib/probes/plan makes it) into
 * out: its length, or -1 with *why (a form notes do not have, a
 * displacement out of reach).
 */
int ot_operand_code(const struct ot_usdt_arg *a, uint64_t site_addr, int32_t below,
		    uint8_t out[OT_OPERAND_MAX], const char **why);

#endif
