/*
 * ehframe.c - reads .eh_frame's CIEs and FDEs and an LSDA's call-site
 * table from section bytes (ehframe.h): the FDEs' bounds and the landing
 * pads lib/symbols/coderefs counts as ways into code.
 */
#include "ehframe.h"

#include <string.h>

#define OMIT 0xff		/* DW_EH_PE_omit */

/* A reader of a section's bytes; any read past end sets bad. */
struct cur {
	const uint8_t *b;
	uint64_t vaddr;		/* of b[0] */
	size_t pos, end;
	int bad;
};

static uint64_t get(struct cur *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || n > c->end - c->pos) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->b + c->pos, n);	/* x86-64 is little-endian, as its files */
	c->pos += n;
	return v;
}

static uint64_t uleb(struct cur *c, int is_signed)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)get(c, 1);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while ((b & 0x80) && !c->bad);
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

/*
 * A DW_EH_PE-encoded pointer, as libgcc reads it: a value of 0 stays 0
 * (none), pcrel adds the field's address.  Other bases (textrel, datarel,
 * funcrel, aligned) and indirect set bad: gcc and clang emit none of them
 * on x86-64 where this reads them, and guessing their base would guess
 * landing pads.
 */
static uint64_t enc_ptr(struct cur *c, uint8_t enc)
{
	uint64_t at = c->vaddr + c->pos, v;

	switch (enc & 0x0f) {
	case 0x00: case 0x04: case 0x0c: v = get(c, 8); break;
	case 0x01: v = uleb(c, 0); break;
	case 0x09: v = uleb(c, 1); break;
	case 0x02: v = get(c, 2); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)get(c, 2); break;
	case 0x03: v = get(c, 4); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)get(c, 4); break;
	default: c->bad = 1; return 0;
	}
	if ((enc & 0x70) == 0x10 && v)
		v += at;
	else if (enc & 0x70)
		c->bad = 1;
	if (enc & 0x80)
		c->bad = 1;
	return v;
}

int ot_eh_lsda_pads(const struct ot_eh_bytes *s, uint64_t lsda, uint64_t start,
		    void (*pad)(void *arg, uint64_t lp, uint64_t at), void *arg)
{
	struct cur c;
	uint64_t lpstart = start, cs_len;
	uint8_t enc;

	if (!s->b || lsda < s->vaddr || lsda - s->vaddr >= s->size)
		return -1;
	c = (struct cur){ s->b, s->vaddr, lsda - s->vaddr, s->size, 0 };
	if ((enc = (uint8_t)get(&c, 1)) != OMIT)
		lpstart = enc_ptr(&c, enc);
	if ((enc = (uint8_t)get(&c, 1)) != OMIT)
		uleb(&c, 0);	/* TType: catch clauses' types, not code */
	enc = (uint8_t)get(&c, 1);
	cs_len = uleb(&c, 0);
	if (c.bad || cs_len > c.end - c.pos)
		return -1;
	c.end = c.pos + cs_len;
	while (c.pos < c.end && !c.bad) {
		uint64_t at = c.vaddr + c.pos, lp;

		enc_ptr(&c, enc);	/* the call site's start */
		enc_ptr(&c, enc);	/* and length */
		lp = enc_ptr(&c, enc);
		uleb(&c, 0);		/* action */
		if (lp && !c.bad)
			pad(arg, lpstart + lp, at);
	}
	return c.bad ? -1 : 0;
}

struct cie {
	uint8_t fde_enc, lsda_enc;
	int z;			/* augmentation data follows an FDE's range */
};

/* The CIE at offset off of .eh_frame: 0, or -1 if it cannot be read. */
static int read_cie(const struct ot_eh_bytes *eh, size_t off, struct cie *ci)
{
	struct cur c = { eh->b, eh->vaddr, off, eh->size, 0 };
	uint64_t len = get(&c, 4), ver, aug_len;
	const char *aug;
	size_t n, i;
	int wide = len == 0xffffffff;

	if (wide)
		len = get(&c, 8);
	if (c.bad || len > c.end - c.pos)
		return -1;
	c.end = c.pos + len;
	if (get(&c, wide ? 8 : 4) != 0 || ((ver = get(&c, 1)) != 1 && ver != 3))
		return -1;
	aug = (const char *)c.b + c.pos;
	n = strnlen(aug, c.end - c.pos);
	c.pos += n + 1;
	if (n >= 2 && !strncmp(aug, "eh", 2))
		get(&c, 8);
	uleb(&c, 0);		/* code alignment */
	uleb(&c, 1);		/* data alignment */
	if (ver == 1)
		get(&c, 1);	/* return address register */
	else
		uleb(&c, 0);
	*ci = (struct cie){ 0, OMIT, aug[0] == 'z' };
	if (!ci->z)
		return c.bad || strcmp(aug, "") ? -1 : 0;
	aug_len = uleb(&c, 0);
	for (i = 1; i < n && !c.bad; i++) {
		if (aug[i] == 'L')
			ci->lsda_enc = (uint8_t)get(&c, 1);
		else if (aug[i] == 'R')
			ci->fde_enc = (uint8_t)get(&c, 1);
		else if (aug[i] == 'P')
			enc_ptr(&c, (uint8_t)get(&c, 1) & 0x0f);	/* only its size */
		else if (aug[i] != 'S' && aug[i] != 'B' && aug[i] != 'G')
			return -1;	/* what follows it is unknown */
	}
	return c.bad || aug_len > len ? -1 : 0;
}

/* The FDE whose CIE pointer c has just read (id, at idpos): its range
 * and LSDA to v. */
static void read_fde(const struct ot_eh_bytes *eh, struct cur *c, size_t idpos, uint64_t id,
		     const struct ot_eh_visit *v)
{
	uint64_t entry = eh->vaddr + idpos, begin, range, lsda = 0;
	struct cie ci;

	if (id > idpos || read_cie(eh, idpos - id, &ci)) {
		v->bad(v->arg, entry, 0);
		return;
	}
	begin = enc_ptr(c, ci.fde_enc);
	range = enc_ptr(c, ci.fde_enc & 0x0f);
	if (c->bad) {
		v->bad(v->arg, entry, 0);
		return;
	}
	if (ci.z && ci.lsda_enc != OMIT) {
		uleb(c, 0);	/* augmentation length */
		lsda = enc_ptr(c, ci.lsda_enc);
	}
	/* The range stands even when its LSDA cannot be read. */
	v->fde(v->arg, entry, begin, begin + range, c->bad ? 0 : lsda);
	if (c->bad)
		v->bad(v->arg, entry, begin);
}

void ot_eh_frame_walk(const struct ot_eh_bytes *eh, const struct ot_eh_visit *v)
{
	size_t pos = 0, size = eh->size;

	while (pos + 4 <= size) {
		struct cur c = { eh->b, eh->vaddr, pos, size, 0 };
		uint64_t len = get(&c, 4), id;
		int wide = len == 0xffffffff;
		size_t idpos;

		if (wide)
			len = get(&c, 8);
		if (c.bad || len > c.end - c.pos) {
			v->bad(v->arg, eh->vaddr + pos, 0);
			return;
		}
		if (!len) {
			pos = c.pos;
			continue;
		}
		c.end = c.pos + len;
		idpos = c.pos;
		id = get(&c, wide ? 8 : 4);
		if (id)
			read_fde(eh, &c, idpos, id, v);
		pos = c.end;
	}
}
