/*
 * coderefs.c - what in an ELF file can jump into a range of its code
 * (coderefs.h): rel32 windows, relocations, tables, and the landing pads
 * lib/symbols/ehframe reads from .eh_frame's LSDAs.
 */
#include "coderefs.h"
#include "arch/arch.h"
#include "ehframe.h"
#include "elffile.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCHECKS 9
#define TABLE_MAX 65536		/* entries read from one table start */

struct ref {
	uint64_t target;	/* where control may go */
	uint64_t at;		/* where the reference is */
};

struct refs {
	struct ref *v;
	size_t n, cap;
};

/* A check's reference, kept small (a large file has millions): its
 * addresses less the file's lowest, which spans less than 4 GiB. */
struct cref {
	uint32_t target, at;
};

struct crefs {
	struct cref *v;
	size_t n, cap;
};

struct sec {
	uint64_t lo, hi;	/* [sh_addr, sh_addr + sh_size) */
	const uint8_t *bytes;	/* NULL: none in the file (NOBITS) */
	const char *name;
	int exec;
};

struct ot_coderefs {
	struct ot_elf_file *file;
	Elf *elf;		/* file's */
	int pie;		/* ET_DYN: no absolute 4-byte addresses */
	uint64_t entry;
	struct sec *secs;	/* allocated sections, sorted by address */
	size_t nsecs;
	struct sec *code;	/* the executable ones */
	size_t ncode;
	uint64_t code_lo, code_hi;
	uint64_t base;		/* the lowest allocated address */
	struct crefs refs[NCHECKS];	/* by check bit, sorted by target */
	struct refs fdes;	/* target: pc_begin, at: its end */
	int bad_lsda;		/* 1: an LSDA, 2: .eh_frame cannot be read */
	uint64_t bad_at, bad_fde;
};

static const struct {
	const char *name, *noun;
} checks[NCHECKS] = {
	{ "BAD_LSDA", NULL },
	{ "LANDING_PAD", "an exception landing pad's call-site entry" },
	{ "TABLE", "a jump table entry" },
	{ "RELOC", "a relocated pointer" },
	{ "POINTER", "an 8-byte code pointer" },
	{ "ABS32", "a 4-byte absolute address" },
	{ "ENTRY", NULL },
	{ "REL8", "a rel8 branch" },
	{ "REL32", "a rel32 displacement" },
};

static int bit(unsigned check)
{
	return __builtin_ctz(check);
}

static int say(char *why, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int say(char *why, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static void push(struct refs *v, uint64_t target, uint64_t at)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 256;
		v->v = ot_xreallocarray(v->v, v->cap, sizeof(*v->v));
	}
	v->v[v->n].target = target;
	v->v[v->n++].at = at;
}

/* A reference of check into code: target must be in code. */
static void add(struct ot_coderefs *r, unsigned check, uint64_t target, uint64_t at)
{
	struct crefs *v = &r->refs[bit(check)];

	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 256;
		v->v = ot_xreallocarray(v->v, v->cap, sizeof(*v->v));
	}
	v->v[v->n].target = (uint32_t)(target - r->base);
	v->v[v->n++].at = (uint32_t)(at - r->base);
}

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);	/* x86-64 is little-endian, as its files */
	return v;
}

/* The section of secs[0..n) (sorted, disjoint) holding a, or NULL. */
static const struct sec *find_sec(const struct sec *secs, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a < secs[mid].lo)
			hi = mid;
		else if (a >= secs[mid].hi)
			lo = mid + 1;
		else
			return &secs[mid];
	}
	return NULL;
}

static int in_code(const struct ot_coderefs *r, uint64_t a)
{
	return a >= r->code_lo && a < r->code_hi && find_sec(r->code, r->ncode, a);
}

static const char *sec_name(const struct ot_coderefs *r, uint64_t a)
{
	const struct sec *s = find_sec(r->secs, r->nsecs, a);

	return s && s->name ? s->name : "no section";
}

static int cmp_sec(const void *a, const void *b)
{
	const struct sec *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* qsort's array may not be NULL, even empty. */
static void sort_refs(struct refs *v)
{
	if (v->n)
		qsort(v->v, v->n, sizeof(*v->v), cmp_ref);
}

/* By target, stable (equal targets in the order found): a radix sort,
 * two passes of 16 bits, 5 times faster than qsort on libLLVM's 3
 * million. */
static void sort_crefs(struct crefs *v)
{
	struct cref *a = v->v, *b = ot_xcalloc(v->n + 1, sizeof(*b)), *x;
	size_t *count = ot_xcalloc(65537, sizeof(*count)), i;
	unsigned shift;

	for (shift = 0; shift < 32; shift += 16) {
		memset(count, 0, 65537 * sizeof(*count));
		for (i = 0; i < v->n; i++)
			count[((a[i].target >> shift) & 0xffff) + 1]++;
		for (i = 1; i < 65537; i++)
			count[i] += count[i - 1];
		for (i = 0; i < v->n; i++)
			b[count[(a[i].target >> shift) & 0xffff]++] = a[i];
		x = a;
		a = b;
		b = x;
	}
	free(count);
	free(b);
	v->v = a;
	v->cap = v->n + 1;
}

/* The allocated sections with their bytes (TLS's .tbss overlaps others
 * and holds nothing): 0, or -1 with why. */
static int read_sections(struct ot_coderefs *r, char *why, size_t len)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, i;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(r->elf, &shstrndx))
		return say(why, len, -1, "no section headers: %s", elf_errmsg(-1));
	while ((scn = elf_nextscn(r->elf, scn))) {
		struct sec s = { 0 };
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			return say(why, len, -1, "a section header: %s", elf_errmsg(-1));
		if (!(sh.sh_flags & SHF_ALLOC) || !sh.sh_size ||
		    (sh.sh_type == SHT_NOBITS && (sh.sh_flags & SHF_TLS)))
			continue;
		s.lo = sh.sh_addr;
		s.hi = sh.sh_addr + sh.sh_size;
		s.name = elf_strptr(r->elf, shstrndx, sh.sh_name);
		s.exec = !!(sh.sh_flags & SHF_EXECINSTR);
		if (sh.sh_type != SHT_NOBITS) {
			d = elf_getdata(scn, NULL);
			if (!d || !d->d_buf || d->d_size != sh.sh_size || s.hi < s.lo)
				return say(why, len, -1, "section %s cannot be read",
					   s.name ? s.name : "?");
			s.bytes = d->d_buf;
		}
		r->secs = ot_xreallocarray(r->secs, r->nsecs + 1, sizeof(*r->secs));
		r->secs[r->nsecs++] = s;
	}
	if (r->nsecs)
		qsort(r->secs, r->nsecs, sizeof(*r->secs), cmp_sec);
	for (i = 0; i + 1 < r->nsecs; i++)
		if (r->secs[i].hi > r->secs[i + 1].lo)
			return say(why, len, -1, "sections %s and %s overlap", r->secs[i].name,
				   r->secs[i + 1].name);
	r->code = ot_xcalloc(r->nsecs + 1, sizeof(*r->code));
	for (i = 0; i < r->nsecs; i++)
		if (r->secs[i].exec && r->secs[i].bytes)
			r->code[r->ncode++] = r->secs[i];
	if (!r->ncode)
		return say(why, len, -1, "no executable section");
	r->base = r->secs[0].lo;
	if (r->secs[r->nsecs - 1].hi - r->base > UINT32_MAX)
		return say(why, len, -1, "its sections span more than 4 GiB");
	r->code_lo = r->code[0].lo;
	r->code_hi = r->code[r->ncode - 1].hi;
	return 0;
}

/*
 * REL32 (and ABS32 without PIE): the 4-byte windows of code.  A lea's
 * landing in data is a possible PIC jump table's start, into *bases:
 * code adds a table's entries to its address, which PIC code has from a
 * lea label(%rip) alone.  Every rel32 field would do too, but adds starts
 * that no instruction makes (libLLVM: 185,000 against 122,000), each
 * reading whatever it lands in as a table.
 */
static void scan_code(struct ot_coderefs *r, struct refs *bases)
{
	size_t i, q;

	for (i = 0; i < r->ncode; i++) {
		const struct sec *s = &r->code[i];
		size_t n = s->hi - s->lo;

		for (q = 0; q + 4 <= n; q++) {
			int32_t v = (int32_t)(uint32_t)le(s->bytes + q, 4);
			uint64_t at = s->lo + q, t = at + 4 + (uint64_t)(int64_t)v;
			const struct sec *d;

			if (!ot_arch_rel32_field(s->bytes, q))
				;
			else if (in_code(r, t))
				add(r, OT_CODEREF_REL32, t, at);
			else if (q >= 2 && s->bytes[q - 2] == 0x8d && (s->bytes[q - 1] & 0xc7) == 0x05 &&
				 (d = find_sec(r->secs, r->nsecs, t)) && d->bytes && !d->exec)
				push(bases, t, at);
			if (!r->pie && in_code(r, (uint32_t)v))
				add(r, OT_CODEREF_ABS32, (uint32_t)v, at);
		}
	}
}

/* POINTER (and ABS32 without PIE): the 4-aligned values of data. */
static void scan_data(struct ot_coderefs *r)
{
	size_t i, q;

	for (i = 0; i < r->nsecs; i++) {
		const struct sec *s = &r->secs[i];
		size_t n = s->hi - s->lo, q0 = (size_t)((4 - (s->lo & 3)) & 3);

		if (s->exec || !s->bytes)
			continue;
		for (q = q0; q + 8 <= n; q += 4) {
			uint64_t v = le(s->bytes + q, 8);

			if (in_code(r, v))
				add(r, OT_CODEREF_POINTER, v, s->lo + q);
		}
		for (q = q0; !r->pie && q + 4 <= n; q += 4) {
			uint64_t v = le(s->bytes + q, 4);

			if (in_code(r, v))
				add(r, OT_CODEREF_ABS32, v, s->lo + q);
		}
	}
}

/* The pointer relocation rel of an allocated SHT_RELA section writes, if
 * it is an address of this file: 1 with *t, else 0. */
static int reloc_target(Elf *elf, const GElf_Shdr *sh, const GElf_Rela *rel, uint64_t *t)
{
	unsigned type = (unsigned)GELF_R_TYPE(rel->r_info);
	Elf_Data *symdata;
	GElf_Sym sym;

	if (type == OT_ARCH_R_RELATIVE || type == OT_ARCH_R_IRELATIVE) {
		*t = (uint64_t)rel->r_addend;
		return 1;
	}
	if (type != OT_ARCH_R_ABS64 && type != OT_ARCH_R_GLOB_DAT && type != OT_ARCH_R_JUMP_SLOT)
		return 0;
	symdata = elf_getdata(elf_getscn(elf, sh->sh_link), NULL);
	if (!symdata || !gelf_getsym(symdata, (int)GELF_R_SYM(rel->r_info), &sym) ||
	    sym.st_shndx == SHN_UNDEF)
		return 0;
	*t = sym.st_value + (uint64_t)rel->r_addend;
	return 1;
}

/* RELOC: the pointers the loader writes. */
static void scan_relocs(struct ot_coderefs *r)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(r->elf, scn))) {
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !(sh.sh_flags & SHF_ALLOC) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Rela rel;
			uint64_t t;

			if (!gelf_getrela(d, (int)i, &rel))
				break;
			if (reloc_target(r->elf, &sh, &rel, &t) && in_code(r, t))
				add(r, OT_CODEREF_RELOC, t, rel.r_offset);
		}
	}
}

/* The first 4-aligned table start of b[from..n) above e (compilers align
 * tables): its index, n if none. */
static size_t next_start(const uint64_t *b, size_t n, size_t from, uint64_t e)
{
	while (from < n && (b[from] <= e || (b[from] & 3)))
		from++;
	return from;
}

/*
 * TABLE: the table at b[i], its int32 entries relative to it while they
 * land in code.  Data that merely looks like a table adds entries:
 * refusals, not crashes.  Tables lie back to back: read on through the
 * next start b[j] and each of them would read the rest of all (libLLVM:
 * 14 million entries), so one ends there, unless its entry there still
 * lands in the function part (FDE) of its first: a start found in bytes
 * that merely look like a lea must not cut a real table short.
 */
static void read_table(struct ot_coderefs *r, const uint64_t *b, size_t n, size_t i)
{
	uint64_t base = b[i], f_lo = 0, f_hi = 0;
	const struct sec *s = find_sec(r->secs, r->nsecs, base);
	size_t k, j = next_start(b, n, i + 1, base);

	for (k = 0; k < TABLE_MAX && base + 4 * k + 4 <= s->hi; k++) {
		uint64_t e = base + 4 * k;
		int32_t v = (int32_t)(uint32_t)le(s->bytes + (e - s->lo), 4);
		uint64_t t = base + (uint64_t)(int64_t)v;

		if (!in_code(r, t))
			break;
		if (!k && ot_coderefs_fde(r, t, &f_lo, &f_hi)) {
			f_lo = 0;	/* no FDE to tell: never cut */
			f_hi = UINT64_MAX;
		}
		if (j < n && e >= b[j]) {
			if (t < f_lo || t >= f_hi)
				break;
			j = next_start(b, n, j, e);
		}
		add(r, OT_CODEREF_TABLE, t, e);
	}
}

static void scan_tables(struct ot_coderefs *r, struct refs *bases)
{
	uint64_t *b = ot_xcalloc(bases->n + 1, sizeof(*b));
	size_t i, n = 0;

	sort_refs(bases);
	for (i = 0; i < bases->n; i++)
		if (!n || bases->v[i].target != b[n - 1])
			b[n++] = bases->v[i].target;
	for (i = 0; i < n; i++)
		read_table(r, b, n, i);
	free(b);
}

static void bad_lsda(struct ot_coderefs *r, int how, uint64_t at, uint64_t fde)
{
	if (r->bad_lsda)
		return;
	r->bad_lsda = how;
	r->bad_at = at;
	r->bad_fde = fde;
}

/* LANDING_PAD: a landing pad of an LSDA's call-site table (ehframe.h). */
static void landing_pad(void *arg, uint64_t lp, uint64_t at)
{
	struct ot_coderefs *r = arg;

	if (in_code(r, lp))
		add(r, OT_CODEREF_LANDING_PAD, lp, at);
}

/* An FDE of .eh_frame: its range, and its LSDA's landing pads. */
static void eh_fde(void *arg, uint64_t entry, uint64_t lo, uint64_t hi, uint64_t lsda)
{
	struct ot_coderefs *r = arg;
	const struct sec *s;

	(void)entry;
	push(&r->fdes, lo, hi);
	if (!lsda)
		return;
	s = find_sec(r->secs, r->nsecs, lsda);
	if (!s || !s->bytes ||
	    ot_eh_lsda_pads(&(struct ot_eh_bytes){ s->bytes, s->lo, s->hi - s->lo }, lsda, lo,
			    landing_pad, r))
		bad_lsda(r, 1, lsda, lo);
}

/* .eh_frame itself cannot be read at at (ehframe.h). */
static void eh_bad(void *arg, uint64_t at, uint64_t fde_lo)
{
	bad_lsda(arg, 2, at, fde_lo);
}

/* Every FDE of .eh_frame (lib/symbols/ehframe).  No .eh_frame: nothing
 * unwinds, no landing pads. */
static void read_eh_frame(struct ot_coderefs *r)
{
	const struct sec *eh = NULL;
	size_t i;

	for (i = 0; i < r->nsecs && !eh; i++)
		if (r->secs[i].name && !strcmp(r->secs[i].name, ".eh_frame") && r->secs[i].bytes)
			eh = &r->secs[i];
	if (!eh)
		return;
	ot_eh_frame_walk(&(struct ot_eh_bytes){ eh->bytes, eh->lo, eh->hi - eh->lo },
			 &(struct ot_eh_visit){ eh_fde, eh_bad, r });
}

void ot_coderefs_free(struct ot_coderefs *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < NCHECKS; i++)
		free(r->refs[i].v);
	free(r->fdes.v);
	free(r->code);
	free(r->secs);
	ot_elf_file_close(r->file);
	free(r);
}

/* The ELF header of an executable or shared object of the machine's: 0,
 * or -1. */
static int check_header(struct ot_coderefs *r, char *why, size_t len)
{
	GElf_Ehdr eh;

	if (!r->elf || elf_kind(r->elf) != ELF_K_ELF || !gelf_getehdr(r->elf, &eh))
		return say(why, len, -1, "not an ELF file");
	if (gelf_getclass(r->elf) != ELFCLASS64 || eh.e_machine != OT_ARCH_EM)
		return say(why, len, -1, "not an " OT_ARCH_NAME " file");
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return say(why, len, -1, "not an executable or shared object");
	r->pie = eh.e_type == ET_DYN;
	r->entry = eh.e_entry;
	return 0;
}

int ot_coderefs_open(const char *path, struct ot_coderefs **out, char *why, size_t len)
{
	struct ot_coderefs *r;
	struct refs bases = { 0 };
	size_t i;

	int err;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return say(why, len, -ENOEXEC, "libelf: %s", elf_errmsg(-1));
	r = ot_xcalloc(1, sizeof(*r));
	/* Mapped: every section is read, and libLLVM's are large. */
	err = ot_elf_file_open(path, OT_ELF_FILE_MAP, &r->file);
	if (err && err != -ENOEXEC) {
		free(r);
		return say(why, len, err, "%s: %s", path, strerror(-err));
	}
	r->elf = r->file ? ot_elf_file_elf(r->file) : NULL;
	if (check_header(r, why, len) || read_sections(r, why, len)) {
		ot_coderefs_free(r);
		return -ENOEXEC;
	}
	scan_code(r, &bases);
	scan_data(r);
	scan_relocs(r);
	read_eh_frame(r);
	sort_refs(&r->fdes);	/* read_table asks for FDEs */
	scan_tables(r, &bases);
	free(bases.v);
	if (in_code(r, r->entry))
		add(r, OT_CODEREF_ENTRY, r->entry, r->entry);
	for (i = 0; i < NCHECKS; i++)
		sort_crefs(&r->refs[i]);
	*out = r;
	return 0;
}

/* The first reference of v (sorted) landing in (lo, hi): 1 with *found. */
static int first_inside(const struct ot_coderefs *r, const struct crefs *v, uint64_t lo,
			uint64_t hi, struct ref *found)
{
	size_t a = 0, b = v->n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (r->base + v->v[mid].target <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	if (a == v->n || r->base + v->v[a].target >= hi)
		return 0;
	*found = (struct ref){ r->base + v->v[a].target, r->base + v->v[a].at };
	return 1;
}

/*
 * A direct branch among the instructions of the code [flo, fhi) of
 * section s that start before to, decoded from flo (an unwind entry's
 * start is an instruction's), landing in (lo, hi): 1 with *found.  -1
 * when the code cannot be decoded up to to.
 */
static int decoded_inside(const struct sec *s, uint64_t flo, uint64_t fhi, uint64_t to,
			  uint64_t lo, uint64_t hi, struct ref *found)
{
	uint64_t t, from;
	int ret;

	ret = ot_arch_branch_inside(s->bytes + (flo - s->lo),
				    (size_t)((fhi < s->hi ? fhi : s->hi) - flo), flo, to, lo, hi, &t,
				    &from);
	if (ret > 0)
		*found = (struct ref){ t, from };
	return ret;
}

/*
 * REL8: a short branch outside [func_lo, func_hi) that reaches (lo, hi).
 * Code another unwind entry bounds is decoded from that entry's start (a
 * byte of an operand there is no branch); bytes no entry covers (padding,
 * code without unwind information) are read as branches.
 */
static int rel8_inside(const struct ot_coderefs *r, uint64_t func_lo, uint64_t func_hi,
		       uint64_t lo, uint64_t hi, struct ref *found)
{
	uint64_t from = lo > OT_ARCH_REL8_REACH ? lo - OT_ARCH_REL8_REACH : 0,
		 to = hi + OT_ARCH_REL8_REACH, a, flo, fhi;
	uint64_t bytes_lo = 0, bytes_hi = 0;	/* an entry that could not be decoded */
	size_t i;
	int d;

	for (i = 0; i < r->ncode; i++) {
		const struct sec *s = &r->code[i];

		for (a = from > s->lo ? from : s->lo; a < to && a + 1 < s->hi; a++) {
			uint64_t t;

			if (a >= func_lo && a < func_hi)
				continue;
			if (!(a >= bytes_lo && a < bytes_hi) && !ot_coderefs_fde(r, a, &flo, &fhi) &&
			    flo >= s->lo && (flo != func_lo || fhi != func_hi)) {
				d = decoded_inside(s, flo, fhi, to, lo, hi, found);
				if (d > 0)
					return 1;
				if (!d) {
					a = fhi - 1;	/* past that entry's code */
					continue;
				}
				bytes_lo = flo;
				bytes_hi = fhi;
			}
			if (!ot_arch_rel8_branch(s->bytes + (a - s->lo), a, &t))
				continue;
			if (t > lo && t < hi) {
				*found = (struct ref){ t, a };
				return 1;
			}
		}
	}
	return 0;
}

/* Check number k's first reference into (lo, hi): 1 with *found, else 0. */
static int find(const struct ot_coderefs *r, int k, uint64_t func_lo, uint64_t func_hi,
		uint64_t lo, uint64_t hi, struct ref *found)
{
	if (k == bit(OT_CODEREF_BAD_LSDA)) {
		*found = (struct ref){ r->bad_fde, r->bad_at };
		return r->bad_lsda != 0;
	}
	if (k == bit(OT_CODEREF_REL8))
		return rel8_inside(r, func_lo, func_hi, lo, hi, found);
	return first_inside(r, &r->refs[k], lo, hi, found);
}

static int explain(const struct ot_coderefs *r, int k, const struct ref *f, char *why, size_t len)
{
	if (k == bit(OT_CODEREF_BAD_LSDA) && r->bad_lsda == 1)
		return say(why, len, -1, "the LSDA at 0x%llx (%s) of the FDE for 0x%llx cannot be "
			   "read: the file's landing pads are unknown", (unsigned long long)f->at,
			   sec_name(r, f->at), (unsigned long long)f->target);
	if (k == bit(OT_CODEREF_BAD_LSDA))
		return say(why, len, -1, "the .eh_frame entry at 0x%llx cannot be read: the "
			   "file's landing pads are unknown", (unsigned long long)f->at);
	if (k == bit(OT_CODEREF_ENTRY))
		return say(why, len, -1, "the ELF entry point 0x%llx is inside the patched bytes",
			   (unsigned long long)f->target);
	return say(why, len, -1, "%s at 0x%llx (%s) lands at 0x%llx, inside the patched bytes",
		   checks[k].noun, (unsigned long long)f->at, sec_name(r, f->at),
		   (unsigned long long)f->target);
}

/* The range itself: 0, or -1 with why. */
static int check_range(const struct ot_coderefs *r, uint64_t func_lo, uint64_t func_hi,
		       uint64_t lo, uint64_t hi, char *why, size_t len)
{
	const struct sec *s = find_sec(r->code, r->ncode, lo);

	if (lo >= hi)
		return say(why, len, -1, "the patched bytes [0x%llx, 0x%llx) are empty",
			   (unsigned long long)lo, (unsigned long long)hi);
	if (lo < func_lo || hi > func_hi)
		return say(why, len, -1, "the patched bytes [0x%llx, 0x%llx) are not inside the "
			   "function [0x%llx, 0x%llx)", (unsigned long long)lo,
			   (unsigned long long)hi, (unsigned long long)func_lo,
			   (unsigned long long)func_hi);
	if (!s || hi > s->hi)
		return say(why, len, -1, "the patched bytes [0x%llx, 0x%llx) are not in one "
			   "executable section", (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

int ot_coderefs_inside(const struct ot_coderefs *r, uint64_t func_lo, uint64_t func_hi,
		       uint64_t lo, uint64_t hi, char *why, size_t len)
{
	struct ref f;
	int k;

	if (check_range(r, func_lo, func_hi, lo, hi, why, len))
		return -1;
	for (k = 0; k < NCHECKS; k++)
		if (find(r, k, func_lo, func_hi, lo, hi, &f))
			return explain(r, k, &f, why, len);
	return 0;
}

unsigned ot_coderefs_which(const struct ot_coderefs *r, uint64_t func_lo, uint64_t func_hi,
			   uint64_t lo, uint64_t hi)
{
	unsigned found = 0;
	struct ref f;
	int k;

	for (k = 0; k < NCHECKS; k++)
		if (find(r, k, func_lo, func_hi, lo, hi, &f))
			found |= 1u << k;
	return found;
}

const char *ot_coderef_name(unsigned check)
{
	if (!check || (check & (check - 1)) || bit(check) >= NCHECKS)
		return "?";
	return checks[bit(check)].name;
}

int ot_coderefs_fde(const struct ot_coderefs *r, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	size_t a = 0, b = r->fdes.n;

	/* The last FDE starting at or before addr. */
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (r->fdes.v[mid].target <= addr)
			a = mid + 1;
		else
			b = mid;
	}
	if (!a || addr >= r->fdes.v[a - 1].at)
		return -ENOENT;
	*lo = r->fdes.v[a - 1].target;
	*hi = r->fdes.v[a - 1].at;
	return 0;
}
