/*
 * dwarfarg.c - a function's parameters by their DWARF names located at its
 * entry, and its return type (dwarfarg.h), read with libdw into USDT-style
 * operands.
 */
#include "dwarfarg.h"
#include "debuginfo.h"
#include "select.h"
#include "arch/arch.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ot_dwarf_reg_to_perf(unsigned dwreg)
{
	return ot_arch_dwarf_reg(dwreg);
}

const char *ot_dwarf_describe(const struct ot_usdt_arg *a, char *buf, size_t len)
{
	const char *r = ot_arch_perf_reg_name(a->reg) ? ot_arch_perf_reg_name(a->reg) : "?";
	char t[8];

	snprintf(t, sizeof(t), ":%c%d", a->is_signed ? 's' : 'u', a->size * 8);
	if (a->kind == OT_USDT_ARG_REG)
		snprintf(buf, len, "%%%s%s", r, t);
	else if (a->kind == OT_USDT_ARG_MEM)
		snprintf(buf, len, "%+lld(%%%s)%s", (long long)a->off, r, t);
	else if (a->kind == OT_USDT_ARG_DEREF)
		snprintf(buf, len, "%+lld(%+lld(%%%s))%s", (long long)a->member, (long long)a->off,
			 r, t);
	else if (a->kind == OT_USDT_ARG_GOSTR && ot_arch_perf_reg_name(a->idx))
		snprintf(buf, len, "a Go string: its pointer %%%s, its length %%%s", r,
			 ot_arch_perf_reg_name(a->idx));
	else
		snprintf(buf, len, "?");
	return buf;
}

int ot_dwarf_loc_operand(const struct ot_dwarf_op *ops, size_t n, struct ot_usdt_arg *out,
			 char *why, size_t whylen)
{
	unsigned atom = n ? ops[0].atom : 0;
	int reg = -1;

	out->idx = -1;
	out->scale = 0;
	out->shift = 0;
	out->sym[0] = 0;
	/* Two registers of 8 bytes each (Go's string, pointer then length,
	 * under its register ABI). */
	if (n == 4 && ops[1].atom == DW_OP_piece && ops[1].number == 8 &&
	    ops[3].atom == DW_OP_piece && ops[3].number == 8 &&
	    ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31 &&
	    ops[2].atom >= DW_OP_reg0 && ops[2].atom <= DW_OP_reg31) {
		reg = ot_dwarf_reg_to_perf(ops[0].atom - DW_OP_reg0);
		out->idx = (int8_t)ot_dwarf_reg_to_perf(ops[2].atom - DW_OP_reg0);
		out->kind = OT_USDT_ARG_GOSTR;
		out->off = 0;
		out->size = 8;
		if (reg < 0 || out->idx < 0) {
			snprintf(why, whylen, "a register that holds no integer");
			return -EINVAL;
		}
		out->reg = (int8_t)reg;
		return 0;
	}
	if (n != 1) {
		snprintf(why, whylen, n ? "a location of %zu operations (a value built, "
			 "or in pieces)" : "no location", n);
		return -EINVAL;
	}
	if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
		reg = ot_dwarf_reg_to_perf(atom - DW_OP_reg0);
		out->kind = OT_USDT_ARG_REG;
		out->off = 0;
	} else if (atom == DW_OP_regx) {
		reg = ot_dwarf_reg_to_perf((unsigned)ops[0].number);
		out->kind = OT_USDT_ARG_REG;
		out->off = 0;
	} else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
		reg = ot_dwarf_reg_to_perf(atom - DW_OP_breg0);
		out->kind = OT_USDT_ARG_MEM;
		out->off = (int64_t)ops[0].number;
	} else if (atom == DW_OP_fbreg) {
		/*
		 * Below the CFA - 8 is the function's own frame, which its
		 * prologue writes: nothing is there at the entry (gcc -O0
		 * keeps every parameter there, copied from its register).
		 */
		if ((int64_t)ops[0].number < 0) {
			snprintf(why, whylen, "in the function's own frame (DW_OP_fbreg %lld), "
				 "written after the entry", (long long)(int64_t)ops[0].number);
			return -EINVAL;
		}
		reg = OT_ARCH_REG_SP;
		out->kind = OT_USDT_ARG_MEM;
		out->off = (int64_t)ops[0].number + OT_ARCH_CFA_FROM_SP;
	} else {
		snprintf(why, whylen, "DWARF operation 0x%x is not read", atom);
		return -EINVAL;
	}
	if (reg < 0) {
		snprintf(why, whylen, "a register that holds no integer");
		return -EINVAL;
	}
	out->reg = (int8_t)reg;
	return 0;
}

/* A type with typedefs and qualifiers peeled off; 0, or -1 for void. */
static int peel(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die t = *type;

	for (;;) {
		int tag = dwarf_tag(&t);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type)
			break;
		if (!dwarf_attr_integrate(&t, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
			return -1;
	}
	*out = t;
	return 0;
}

/* die's DW_AT_type, peeled: 0, or -1 for none (void). */
static int type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return -1;
	return peel(&t, out);
}

/* Whether die's type is Go's string: struct string {str *uint8; len int}. */
static int go_string(Dwarf_Die *die)
{
	Dwarf_Die t;
	const char *name;

	return !type_of(die, &t) && dwarf_tag(&t) == DW_TAG_structure_type &&
	       (name = dwarf_diename(&t)) && !strcmp(name, "string") && dwarf_bytesize(&t) == 16;
}

/* An integer type's size and sign: 0, or -EINVAL with why. */
static int integer(Dwarf_Die *die, const char *what, uint8_t *size, uint8_t *is_signed,
		   char *why, size_t whylen)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = DW_ATE_unsigned;
	int tag, bytes;

	if (type_of(die, &t)) {
		snprintf(why, whylen, "%s is void", what);
		return -EINVAL;
	}
	tag = dwarf_tag(&t);
	bytes = dwarf_bytesize(&t);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type) {
		bytes = 8;
	} else if (tag == DW_TAG_enumeration_type) {
		Dwarf_Die u;

		if (!type_of(&t, &u) && dwarf_attr_integrate(&u, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
	} else if (tag == DW_TAG_base_type) {
		if (dwarf_attr_integrate(&t, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float) {
			snprintf(why, whylen, "%s is a floating-point %s", what,
				 dwarf_diename(&t) ? dwarf_diename(&t) : "number");
			return -EINVAL;
		}
	} else {
		snprintf(why, whylen, "%s is %s, not an integer or a pointer", what,
			 tag == DW_TAG_structure_type ? "a struct" :
			 tag == DW_TAG_union_type ? "a union" :
			 tag == DW_TAG_array_type ? "an array" : "of a type not read");
		return -EINVAL;
	}
	if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) {
		snprintf(why, whylen, "%s is %d bytes: 1, 2, 4 or 8 are read", what, bytes);
		return -EINVAL;
	}
	*size = (uint8_t)bytes;
	*is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	return 0;
}

struct dw {
	Dwfl *dwfl;
	Dwarf_Die fn;
	Dwarf_Die cu;		/* found by scanning (no .debug_aranges) */
	Dwarf_Addr pc;		/* the entry, as the DWARF addresses it */
};

/*
 * A subprogram's entry: DW_AT_entry_pc or DW_AT_low_pc, or for one in
 * pieces (gcc's hot and .cold parts, DW_AT_ranges alone) its first
 * range's start; 0 when it says none.
 */
static Dwarf_Addr entry_of(Dwarf_Die *fn)
{
	Dwarf_Addr entry = 0, base, start, end;

	if (dwarf_entrypc(fn, &entry) == 0)
		return entry;
	if (dwarf_ranges(fn, 0, &base, &start, &end) > 0)
		return start;
	return 0;
}

/*
 * The compile unit whose ranges hold addr, by scanning them: Go's
 * linker writes no .debug_aranges, which dwfl_module_addrdie needs.
 */
static Dwarf_Die *scan_cus(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias, Dwarf_Die *out)
{
	Dwarf *dw = dwfl_module_getdwarf(mod, bias);
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dw && !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(dw, off + hsize, out) && dwarf_haspc(out, addr - *bias) > 0)
			return out;
		off = next;
	}
	return NULL;
}

/* The subprogram at vaddr in path: 0, or -ENODATA. */
static int open_fn(const char *path, uint64_t vaddr, struct dw *d)
{
	Dwarf_Addr elfbias = 0, dwbias = 0, cubias = 0;
	Dwfl_Module *mod;
	Dwarf_Die *cu, *scopes = NULL;
	int n, i;

	d->dwfl = ot_debuginfo_open(path, 1, &mod);
	if (!d->dwfl)
		return -ENODATA;
	if (!mod || !dwfl_module_getelf(mod, &elfbias) || !dwfl_module_getdwarf(mod, &dwbias))
		return -ENODATA;
	cu = dwfl_module_addrdie(mod, vaddr + elfbias, &cubias);
	if (!cu)
		cu = scan_cus(mod, vaddr + elfbias, &cubias, &d->cu);
	if (!cu)
		return -ENODATA;
	d->pc = vaddr + elfbias - cubias;
	n = dwarf_getscopes(cu, d->pc, &scopes);
	for (i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram && entry_of(&scopes[i]) == d->pc) {
			d->fn = scopes[i];
			free(scopes);
			return 0;
		}
	}
	free(scopes);
	return -ENODATA;
}

/* The parameter named name, or the close ones into why: 0 or -ENOENT. */
static int param(struct dw *d, const char *name, Dwarf_Die *out, char *why, size_t whylen)
{
	char close[160] = "", all[160] = "";
	Dwarf_Die c;

	if (dwarf_child(&d->fn, &c) == 0) {
		do {
			const char *pn = dwarf_diename(&c);
			char *list;

			if (dwarf_tag(&c) != DW_TAG_formal_parameter || !pn)
				continue;
			if (!strcmp(pn, name)) {
				*out = c;
				return 0;
			}
			/* Close: a third of the name off at most (flag for flags). */
			list = ot_edit_distance(pn, name) <= (strlen(name) + 1) / 3 ? close : all;
			if (strlen(list) + strlen(pn) + 3 < sizeof(close))
				sprintf(list + strlen(list), "%s%s", *list ? ", " : "", pn);
			if (list == close && strlen(all) + strlen(pn) + 3 < sizeof(all))
				sprintf(all + strlen(all), "%s%s", *all ? ", " : "", pn);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (*close)
		snprintf(why, whylen, "no parameter '%s' (did you mean %s?)", name, close);
	else
		snprintf(why, whylen, "no parameter '%s' (its parameters: %s)", name,
			 *all ? all : "none");
	return -ENOENT;
}

/* die's location at d->pc as an operand: 0 or -EINVAL with why. */
static int location(struct dw *d, Dwarf_Die *die, const char *name, struct ot_usdt_arg *out,
		    char *why, size_t whylen)
{
	struct ot_dwarf_op ops[8];
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t len, i;
	char r[96];
	int n;

	if (!dwarf_attr_integrate(die, DW_AT_location, &a)) {
		snprintf(why, whylen, "'%s' has no location (optimized out)", name);
		return -EINVAL;
	}
	n = dwarf_getlocation_addr(&a, d->pc, &expr, &len, 1);
	if (n <= 0) {
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;

		/* Say where it first has one, as perf probe -V shows ranges. */
		off = dwarf_getlocations(&a, off, &base, &start, &end, &expr, &len);
		if (off > 0 && start > d->pc)
			snprintf(why, whylen, "'%s' has no location at the entry (its first "
				 "is at +0x%llx)", name, (unsigned long long)(start - d->pc));
		else
			snprintf(why, whylen, "'%s' has no location at the entry", name);
		return -EINVAL;
	}
	for (i = 0; i < len && i < 8; i++) {
		ops[i].atom = expr[i].atom;
		ops[i].number = expr[i].number;
		ops[i].number2 = expr[i].number2;
	}
	if (len == 1 && expr[0].atom == DW_OP_fbreg) {
		/* fbreg needs the frame base to be the CFA (gcc, clang). */
		Dwarf_Attribute fa;
		Dwarf_Op *fb;
		size_t fblen;

		if (!dwarf_attr_integrate(&d->fn, DW_AT_frame_base, &fa) ||
		    dwarf_getlocation_addr(&fa, d->pc, &fb, &fblen, 1) != 1 || fblen != 1 ||
		    fb[0].atom != DW_OP_call_frame_cfa) {
			snprintf(why, whylen, "'%s' is relative to a frame base that is not the "
				 "CFA", name);
			return -EINVAL;
		}
	}
	if (ot_dwarf_loc_operand(ops, len > 8 ? 8 : len, out, r, sizeof(r))) {
		snprintf(why, whylen, "'%s' at the entry: %s", name, r);
		return -EINVAL;
	}
	return 0;
}

/* req->len: the member's offset and the member's die; 0, -ENOENT, -EINVAL. */
static int member(Dwarf_Die *ptr, const char *pname, const char *mname, Dwarf_Die *out,
		  uint32_t *offset, char *why, size_t whylen)
{
	Dwarf_Die t, s, c;
	Dwarf_Attribute a;
	Dwarf_Word off = 0;

	if (type_of(ptr, &t) || dwarf_tag(&t) != DW_TAG_pointer_type || type_of(&t, &s) ||
	    (dwarf_tag(&s) != DW_TAG_structure_type && dwarf_tag(&s) != DW_TAG_union_type)) {
		snprintf(why, whylen, "'%s' is not a pointer to a struct or union", pname);
		return -EINVAL;
	}
	if (dwarf_child(&s, &c) == 0) {
		do {
			const char *n = dwarf_diename(&c);

			if (dwarf_tag(&c) != DW_TAG_member || !n || strcmp(n, mname))
				continue;
			if (dwarf_attr_integrate(&c, DW_AT_data_member_location, &a) &&
			    dwarf_formudata(&a, &off)) {
				snprintf(why, whylen, "%s->%s is at no constant offset", pname, mname);
				return -EINVAL;
			}
			if (dwarf_hasattr(&c, DW_AT_bit_size)) {
				snprintf(why, whylen, "%s->%s is a bit-field", pname, mname);
				return -EINVAL;
			}
			*out = c;
			*offset = (uint32_t)off;
			return 0;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	snprintf(why, whylen, "%s %s has no member '%s'",
		 dwarf_tag(&s) == DW_TAG_union_type ? "union" : "struct",
		 dwarf_diename(&s) ? dwarf_diename(&s) : "(anonymous)", mname);
	return -ENOENT;
}

/* With the pointer's operand in out: the member at offset through it. */
static int through(struct ot_usdt_arg *out, uint32_t offset, char *why, size_t whylen)
{
	if (out->kind == OT_USDT_ARG_REG) {
		out->kind = OT_USDT_ARG_MEM;
		out->off = offset;
		return 0;
	}
	if (out->kind == OT_USDT_ARG_MEM && out->idx < 0) {
		out->kind = OT_USDT_ARG_DEREF;
		out->member = offset;
		return 0;
	}
	snprintf(why, whylen, "the pointer is where no member is read through");
	return -EINVAL;
}

/*
 * What expr ("name" or "name->member") names in the function at vaddr of
 * path: its DWARF opened into *d (the caller ends d->dwfl), the parameter
 * into *p, with an arrow the member into *m and its offset; name gets
 * the parameter's name.  0 (*arrow: whether a member was named), or an
 * error with why.
 */
static int named(const char *path, uint64_t vaddr, const char *expr, struct dw *d, char *name,
		 size_t namelen, Dwarf_Die *p, Dwarf_Die *m, uint32_t *offset, int *arrow,
		 char *why, size_t whylen)
{
	char *a;
	int err;

	snprintf(name, namelen, "%s", expr);
	a = strstr(name, "->");
	*arrow = a != NULL;
	if (a)
		*a = 0;
	err = open_fn(path, vaddr, d);
	if (err)
		snprintf(why, whylen, "no DWARF for it");
	if (!err)
		err = param(d, name, p, why, whylen);
	if (!err && a)
		err = member(p, name, a + 2, m, offset, why, whylen);
	return err;
}

int ot_dwarf_param(const char *path, uint64_t vaddr, const char *expr, struct ot_usdt_arg *out,
		   char *why, size_t whylen)
{
	char name[128];
	struct dw d = { 0 };
	Dwarf_Die p, m;
	uint32_t offset = 0;
	int err, arrow;

	memset(out, 0, sizeof(*out));
	err = named(path, vaddr, expr, &d, name, sizeof(name), &p, &m, &offset, &arrow, why,
		    whylen);
	if (!err)
		err = location(&d, &p, name, out, why, whylen);
	/* A Go string in two registers is its own kind: read with :str. */
	if (!err && out->kind == OT_USDT_ARG_GOSTR && (arrow || !go_string(&p))) {
		snprintf(why, whylen, "'%s' at the entry: a location in two registers, which is "
			 "read for a Go string only", name);
		err = -EINVAL;
	}
	if (!err && out->kind != OT_USDT_ARG_GOSTR)
		err = integer(arrow ? &m : &p, expr, &out->size, &out->is_signed, why, whylen);
	if (!err && arrow)
		err = through(out, offset, why, whylen);
	dwfl_end(d.dwfl);
	return err;
}

int ot_dwarf_ret(const char *path, uint64_t vaddr, uint8_t *size, uint8_t *is_signed,
		 char *why, size_t whylen)
{
	struct dw d = { 0 };
	int err = open_fn(path, vaddr, &d);

	if (err)
		snprintf(why, whylen, "no DWARF for it");
	else
		err = integer(&d.fn, "its return value", size, is_signed, why, whylen);
	dwfl_end(d.dwfl);
	return err;
}

/* Type die t as C writes it ("const char *", "struct req *") appended to
 * buf (len bytes, NUL-terminated); depth bounds a cycle. */
static void type_name(Dwarf_Die *t, char *buf, size_t len, int depth)
{
	const char *name = dwarf_diename(t), *kw = NULL;
	size_t at = strlen(buf);
	Dwarf_Attribute a;
	Dwarf_Die in;
	int tag = dwarf_tag(t), has = dwarf_attr_integrate(t, DW_AT_type, &a) &&
				     dwarf_formref_die(&a, &in);

	if (depth > 8 || at + 1 >= len)
		return;
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_array_type:
		if (has)
			type_name(&in, buf, len, depth + 1);
		else
			snprintf(buf + at, len - at, "void");
		at = strlen(buf);
		snprintf(buf + at, len - at, "%s", tag == DW_TAG_pointer_type ? " *" :
			 tag == DW_TAG_reference_type ? " &" : "[]");
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		kw = tag == DW_TAG_const_type ? "const" : "volatile";
		if (has && dwarf_tag(&in) == DW_TAG_pointer_type) {
			/* char *const: the pointer is what is const. */
			type_name(&in, buf, len, depth + 1);
			snprintf(buf + strlen(buf), len - strlen(buf), "%s", kw);
			return;
		}
		snprintf(buf + at, len - at, "%s ", kw);
		if (has)
			type_name(&in, buf, len, depth + 1);
		else
			snprintf(buf + strlen(buf), len - strlen(buf), "void");
		return;
	case DW_TAG_structure_type:
		kw = "struct";
		break;
	case DW_TAG_union_type:
		kw = "union";
		break;
	case DW_TAG_enumeration_type:
		kw = "enum";
		break;
	case DW_TAG_class_type:
		kw = "class";
		break;
	case DW_TAG_subroutine_type:
		snprintf(buf + at, len - at, "a function");
		return;
	default:
		break;
	}
	snprintf(buf + at, len - at, "%s%s%s", kw ? kw : "", kw ? " " : "",
		 name ? name : kw ? "(anonymous)" : "?");
}

/* Whether type die t (peeled) is a character: char, signed or unsigned. */
static int is_char(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;

	if (dwarf_tag(t) != DW_TAG_base_type || dwarf_bytesize(t) != 1)
		return 0;
	if (dwarf_attr_integrate(t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	return enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char || enc == DW_ATE_UTF;
}

int ot_dwarf_param_type(const char *path, uint64_t vaddr, const char *expr, char *type,
			size_t len, char *why, size_t whylen)
{
	char name[128];
	struct dw d = { 0 };
	Dwarf_Die p, m, *die, t, pointee;
	Dwarf_Attribute a;
	uint32_t offset = 0;
	int err, arrow;

	if (len)
		type[0] = 0;
	err = named(path, vaddr, expr, &d, name, sizeof(name), &p, &m, &offset, &arrow, why,
		    whylen);
	if (!err) {
		die = arrow ? &m : &p;
		if (dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, &t)) {
			type_name(&t, type, len, 0);
			err = !peel(&t, &t) && dwarf_tag(&t) == DW_TAG_pointer_type;
			if (!arrow && go_string(die))
				err = 2;	/* its bytes, as a char pointer's */
			if (err && type_of(&t, &pointee) == 0 && is_char(&pointee))
				err = 2;
		} else {
			snprintf(type, len, "void");
		}
	}
	dwfl_end(d.dwfl);
	return err;
}
