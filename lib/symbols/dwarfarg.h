/*
 * dwarfarg.h - a function's parameters by their DWARF names, where they
 * are at its entry (the probe address), and its return type: what
 * -f 'handle(flags)', 'handle(req->len)' and 'handle%ret' read.
 *
 * Reads the file's DWARF or its separate debug info (libdwfl's standard
 * search, as lib/symbols/debuginfo) with libdw.  A parameter's location
 * at the entry (a location list's entry that covers it, or a single
 * expression) becomes the operand a USDT argument would be (struct
 * ot_usdt_arg): a register, or memory at a register plus an offset
 * (DW_OP_fbreg from DW_AT_frame_base's DW_OP_call_frame_cfa, which is the
 * stack pointer + 8 at the first instruction).  A member through a
 * pointer ("req->len") is the pointer's operand, then the member's
 * offset and size (OT_USDT_ARG_DEREF when the pointer itself is in
 * memory).  A Go string in two registers (DW_OP_regN, DW_OP_piece 8,
 * twice: Go's register ABI) is OT_USDT_ARG_GOSTR.  Go's linker writes no
 * .debug_aranges: the compile units' own ranges find the function.  x86-64 only (its DWARF register numbers, its CFA at the
 * entry).  Pure: prints nothing, exits never; every refusal is a one-line
 * reason in why.
 */
#ifndef OT_DWARFARG_H
#define OT_DWARFARG_H

#include "usdt.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Where parameter expr ("flags", "req->len") of the function at vaddr
 * (its symbol's st_value in path) is at its entry, sized and signed by
 * its DWARF type: *out.  Returns 0; -ENODATA when path has no DWARF for
 * that address (the caller may fall back to the ABI); -ENOENT when the
 * function has no such parameter or no such member (why names the close
 * ones); -EINVAL when it has no location at the entry, or one or a type
 * this cannot read (why says which).
 */
int ot_dwarf_param(const char *path, uint64_t vaddr, const char *expr, struct ot_usdt_arg *out,
		   char *why, size_t whylen);

/*
 * The DWARF type of parameter expr ("path", "req->name") of the function
 * at vaddr, as C writes it ("const char *", "unsigned int", "char[]")
 * into type (len bytes), for ":str": 2 a pointer to a character type
 * (char, signed or unsigned, through typedefs and qualifiers) or a Go
 * string, 1 another pointer, 0 not a pointer (an integer, an array
 * member); -ENODATA,
 * -ENOENT with why as ot_dwarf_param.
 */
int ot_dwarf_param_type(const char *path, uint64_t vaddr, const char *expr, char *type,
			size_t len, char *why, size_t whylen);

/*
 * The return type of the function at vaddr: *size bytes (1, 2, 4, 8),
 * *is_signed.  0; -ENODATA without DWARF; -EINVAL when it returns void,
 * a float or an aggregate (why says which).
 */
int ot_dwarf_ret(const char *path, uint64_t vaddr, uint8_t *size, uint8_t *is_signed,
		 char *why, size_t whylen);

/*
 * The pure part, for the unit tests: one DWARF location expression
 * (ops, n) at the entry of a function whose frame base is the CFA
 * (stack pointer + 8 there), as an operand of size bytes; two 8-byte
 * register pieces a Go string's (OT_USDT_ARG_GOSTR).  0, or -EINVAL
 * with why naming the operation it cannot read.
 */
struct ot_dwarf_op {
	uint8_t atom;		/* DW_OP_* */
	uint64_t number, number2;
};

int ot_dwarf_loc_operand(const struct ot_dwarf_op *ops, size_t n, struct ot_usdt_arg *out,
			 char *why, size_t whylen);

/*
 * An operand as perf probe's fetch arguments write it (perf probe -D):
 * "%di:s32", "+8(%sp):u64", "+16(+8(%sp)):s32"; into buf, returned.
 */
const char *ot_dwarf_describe(const struct ot_usdt_arg *a, char *buf, size_t len);

/* A DWARF register number of the machine as perf numbers it
 * (ot_usdt_arg.reg), or -1 (lib/arch's ot_arch_dwarf_reg). */
int ot_dwarf_reg_to_perf(unsigned dwreg);

#endif
