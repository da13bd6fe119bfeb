/*
 * gobin.c - Go binaries: their build information (version) and the
 * functions of their .gopclntab, read with libelf and checked against the
 * bounds of the sections they point into (a file is untrusted input).
 */
#include "gobin.h"
#include "util/xalloc.h"
#include "arch/arch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The section named want, with its header, or NULL. */
static Elf_Scn *section(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* len bytes at vaddr of elf's loaded image, from the file (the part of a
 * PT_LOAD the file holds): 0, or -1. */
static int read_vaddr(Elf *elf, uint64_t vaddr, void *buf, size_t len)
{
	size_t phnum, i;
	char *img;
	size_t size;

	if (elf_getphdrnum(elf, &phnum) || !(img = elf_rawfile(elf, &size)))
		return -1;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || vaddr < ph.p_vaddr ||
		    vaddr - ph.p_vaddr > ph.p_filesz || len > ph.p_filesz - (vaddr - ph.p_vaddr))
			continue;
		if (ph.p_offset > size || vaddr - ph.p_vaddr + len > size - ph.p_offset)
			return -1;
		memcpy(buf, img + ph.p_offset + (vaddr - ph.p_vaddr), len);
		return 0;
	}
	return -1;
}

/* "go1.19.8" (a release; "devel go1.22-abc" too) into *go: 0, or -ENOENT. */
static int set_version(struct ot_go *go, const char *s, size_t len)
{
	const char *v;
	char buf[sizeof(go->version)];
	unsigned major = 0, minor = 0;

	if (!len || len >= sizeof(buf))
		return -ENOENT;
	memcpy(buf, s, len);
	buf[len] = 0;
	v = strstr(buf, "go");
	if (!v || sscanf(v, "go%u.%u", &major, &minor) < 1)
		return -ENOENT;
	memcpy(go->version, buf, len + 1);
	go->major = major;
	go->minor = minor;
	return 0;
}

int ot_go_version_at(Elf *elf, uint64_t vaddr, struct ot_go *go)
{
	uint64_t hdr[2];
	char buf[sizeof(go->version)];

	if (read_vaddr(elf, vaddr, hdr, sizeof(hdr)) || !hdr[1] || hdr[1] >= sizeof(buf) ||
	    read_vaddr(elf, hdr[0], buf, (size_t)hdr[1]))
		return -ENOENT;
	return set_version(go, buf, (size_t)hdr[1]);
}

/* A varint-prefixed string at p (end: the data's end): its length, with
 * *s; -1 when it does not fit. */
static int64_t uvarint_string(const uint8_t *p, const uint8_t *end, const char **s)
{
	uint64_t v = 0;
	unsigned shift;

	for (shift = 0; p < end && shift < 64; shift += 7) {
		uint8_t b = *p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (v > (uint64_t)(end - p))
				return -1;
			*s = (const char *)p;
			return (int64_t)v;
		}
	}
	return -1;
}

int ot_go_detect(Elf *elf, struct ot_go *go)
{
	static const char magic[] = "\xff Go buildinf:";
	GElf_Shdr sh;
	Elf_Scn *scn = section(elf, ".go.buildinfo", &sh);
	Elf_Data *d;
	const uint8_t *p;
	const char *s;
	int64_t len;

	memset(go, 0, sizeof(*go));
	if (!scn)
		return 0;
	d = elf_getdata(scn, NULL);
	/* 14 bytes of magic, pointer size, flags, then two pointers (or,
	 * with flags bit 2, inline strings after the 32-byte header). */
	if (!d || !d->d_buf || d->d_size < 32 || memcmp(d->d_buf, magic, 14))
		return 1;
	p = d->d_buf;
	if (p[15] & 2) {
		len = uvarint_string(p + 32, p + d->d_size, &s);
		if (len > 0)
			(void)set_version(go, s, (size_t)len);
	} else if (p[14] == 8 && !(p[15] & 1)) {
		uint64_t at;

		memcpy(&at, p + 16, 8);
		(void)ot_go_version_at(elf, at, go);
	}
	return 1;
}

int ot_go_regabi(const struct ot_go *go)
{
	return go->major > 1 || (go->major == 1 && go->minor >= 17);
}

/* The table's data and what its header says, as the format has them. */
struct pcln {
	const uint8_t *d;
	size_t size;
	uint64_t vaddr;		/* the section's */
	uint32_t magic;
	uint64_t nfunc;
	uint64_t text;		/* entries are offsets from it (1.18+) */
	const uint8_t *names;	/* the function name table, and its size */
	size_t names_size;
	const uint8_t *ftab;	/* (entry, func offset) pairs, then the end */
	size_t ftab_size;
	const uint8_t *funcs;	/* func offsets are from here */
	size_t funcs_size;
	unsigned field;		/* bytes of an entry/offset in ftab */
	unsigned flag_at;	/* the ASM flag's byte in a _func, 0: none */
};

static int word(const struct pcln *t, size_t off, uint64_t *v)
{
	if (off > t->size || t->size - off < 8)
		return -1;
	memcpy(v, t->d + off, 8);
	return 0;
}

/* A part of the table from header word k (an offset from its start). */
static int part(const struct pcln *t, unsigned k, const uint8_t **p, size_t *size)
{
	uint64_t off;

	if (word(t, 8 + 8 * (size_t)k, &off) || off > t->size)
		return -1;
	*p = t->d + off;
	*size = t->size - (size_t)off;
	return 0;
}

/* A 1.18+ table of a position-independent file keeps textStart as a
 * relocation's addend (OT_ARCH_R_RELATIVE), the field itself 0. */
static uint64_t relocated(Elf *elf, uint64_t vaddr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;

			if (!gelf_getrela(data, (int)i, &r))
				break;
			if (r.r_offset == vaddr && GELF_R_TYPE(r.r_info) == OT_ARCH_R_RELATIVE)
				return (uint64_t)r.r_addend;
		}
	}
	return 0;
}

/* The header: where each part is.  0, or -errno with *why. */
static int header(Elf *elf, const struct ot_go *go, struct pcln *t, const char **why)
{
	const uint8_t *fdata;
	size_t fsize;

	*why = "its .gopclntab is too short or not of a known format";
	if (t->size < 16 || t->d[4] || t->d[5] || t->d[7] != 8)
		return t->size >= 8 && t->d[7] == 4 ? -ENOTSUP : -EBADMSG;
	memcpy(&t->magic, t->d, 4);
	t->field = 8;
	switch (t->magic) {
	case 0xfffffffb:	/* Go 1.2-1.15: everything from the table's start */
		if (word(t, 8, &t->nfunc))
			return -EBADMSG;
		t->names = t->funcs = t->d;
		t->names_size = t->funcs_size = t->size;
		t->ftab = t->d + 16;
		t->ftab_size = t->size - 16;
		return 0;
	case 0xfffffffa:	/* Go 1.16-1.17 */
		if (word(t, 8, &t->nfunc) || part(t, 2, &t->names, &t->names_size) ||
		    part(t, 6, &fdata, &fsize))
			return -EBADMSG;
		break;
	case 0xfffffff0:	/* Go 1.18-1.19 */
	case 0xfffffff1:	/* Go 1.20 and later */
		if (word(t, 8, &t->nfunc) || word(t, 24, &t->text) ||
		    part(t, 3, &t->names, &t->names_size) || part(t, 7, &fdata, &fsize))
			return -EBADMSG;
		if (!t->text)
			t->text = relocated(elf, t->vaddr + 24);
		if (!t->text) {
			*why = "its .gopclntab does not say where the code starts";
			return -EBADMSG;
		}
		t->field = 4;
		/* _func.flag: after 9 words (1.18-1.19), 10 (1.20+: startLine). */
		t->flag_at = t->magic == 0xfffffff1 ? 41 :
			     go && go->major == 1 && go->minor == 19 ? 37 : 0;
		break;
	default:
		*why = "its .gopclntab is of a format orbit-trace does not know "
		       "(Go 1.2 to 1.22 are known)";
		return -ENOTSUP;
	}
	t->ftab = t->funcs = fdata;
	t->ftab_size = t->funcs_size = fsize;
	return 0;
}

static uint64_t field(const struct pcln *t, const uint8_t *p)
{
	uint64_t v = 0;

	memcpy(&v, p, t->field);
	return v;
}

/* Function i's entry (a vaddr) and its _func's offset in t->funcs. */
static int ftab_at(const struct pcln *t, uint64_t i, uint64_t *entry, uint64_t *func)
{
	size_t at = 2 * (size_t)i * t->field;

	if (at > t->ftab_size || t->ftab_size - at < 2 * (size_t)t->field)
		return -1;
	*entry = field(t, t->ftab + at) + t->text;
	*func = field(t, t->ftab + at + t->field);
	return 0;
}

/* Function i's name (NUL-terminated inside the name table) and flags. */
static const char *func_name(const struct pcln *t, uint64_t func, uint8_t *flags)
{
	/* The _func: entry (a word, or 4 bytes from 1.18), then nameoff. */
	size_t at = t->field == 4 ? 4 : 8;
	int32_t nameoff;
	const char *name;

	*flags = 0;
	if (func > t->funcs_size || t->funcs_size - func < 48)
		return NULL;
	memcpy(&nameoff, t->funcs + func + at, 4);
	if (nameoff < 0 || (size_t)nameoff >= t->names_size)
		return NULL;
	name = (const char *)t->names + nameoff;
	if (!memchr(name, 0, t->names_size - (size_t)nameoff) || !*name)
		return NULL;
	if (t->flag_at && (t->funcs[func + t->flag_at] & 4))	/* funcFlag_ASM */
		*flags = OT_GO_FUNC_ASM;
	return name;
}

/* Every function, its name copied: 0, or -EBADMSG with *why. */
static int functions(const struct pcln *t, struct ot_go_funcs *out, const char **why)
{
	size_t bytes = 0, i, cap = 4096;
	uint64_t func, next;

	*why = "its .gopclntab's function table runs past its end";
	if (!t->nfunc || t->nfunc > t->ftab_size / (2 * t->field))
		return -EBADMSG;
	out->fn = ot_xcalloc((size_t)t->nfunc, sizeof(*out->fn));
	out->names = ot_xmalloc(cap);
	for (i = 0; i < t->nfunc; i++) {
		struct ot_go_func *f = &out->fn[i];
		const char *name;
		size_t len;

		if (ftab_at(t, i, &f->entry, &func) ||
		    ftab_at(t, i + 1, &f->end, &next) ||
		    !(name = func_name(t, func, &f->flags)))
			return -EBADMSG;
		if (f->end <= f->entry || (i && f->entry < out->fn[i - 1].end)) {
			*why = "its .gopclntab's functions are not in order";
			return -EBADMSG;
		}
		len = strlen(name) + 1;
		while (bytes + len > cap)
			out->names = ot_xreallocarray(out->names, cap *= 2, 1);
		memcpy(out->names + bytes, name, len);
		f->name = (uint32_t)bytes;
		bytes += len;
	}
	out->n = (size_t)t->nfunc;
	out->names_size = bytes;
	return 0;
}

int ot_go_read_funcs(Elf *elf, const struct ot_go *go, struct ot_go_funcs *out,
		     const char **why)
{
	static const char *const formats[] = {
		"Go 1.2-1.15", "Go 1.16-1.17", "Go 1.18-1.19", "Go 1.20+",
	};
	struct pcln t;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&t, 0, sizeof(t));
	*why = "it has no .gopclntab section";
	/* A position-independent one's is relocated: in .data.rel.ro. */
	if (!(scn = section(elf, ".gopclntab", &sh)) &&
	    !(scn = section(elf, ".data.rel.ro.gopclntab", &sh)))
		return -ENODATA;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || sh.sh_type != SHT_PROGBITS) {
		*why = "its .gopclntab cannot be read";
		return -EBADMSG;
	}
	t.d = d->d_buf;
	t.size = d->d_size;
	t.vaddr = sh.sh_addr;
	if ((ret = header(elf, go, &t, why)) || (ret = functions(&t, out, why))) {
		ot_go_funcs_free(out);
		return ret;
	}
	out->format = formats[t.magic == 0xfffffffb ? 0 : t.magic == 0xfffffffa ? 1 :
			      t.magic == 0xfffffff0 ? 2 : 3];
	return 0;
}

void ot_go_funcs_free(struct ot_go_funcs *f)
{
	free(f->fn);
	free(f->names);
	memset(f, 0, sizeof(*f));
}
