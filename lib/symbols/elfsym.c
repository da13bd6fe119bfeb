/*
 * elfsym.c - an ELF file's function symbols (elfsym.h): .symtab, .dynsym or
 * .gopclntab with uprobe file offsets; lookups by name, address, slot and
 * table.
 */
#include "elfsym.h"
#include "debuginfo.h"
#include "elffile.h"
#include "gobin.h"
#include "arch/arch.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libiberty/demangle.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A name that is not a defined function, to explain why it cannot be traced. */
enum other_kind { OTHER_DATA, OTHER_IMPORTED, OTHER_IFUNC };

struct other {
	const char *name;	/* in ot_elf.strings */
	enum other_kind kind;
};

struct ot_elf {
	char *display;
	struct ot_elf_file *file; /* held open: later questions share it */
	struct ot_sym *syms;
	size_t nsyms;
	struct other *others;
	size_t nothers;
	char *strings;		/* names, one block */
	const char *source;
	char source_buf[96];	/* source, when it needs words of its own */
	int has_eh;
	uint64_t entry;		/* e_entry: the kernel jumps there, nobody calls it */
	struct seg *segs;	/* executable PT_LOADs */
	size_t nsegs;
	struct slot *slots;	/* GOT slots bound to functions, by relocation */
	size_t nslots;
	struct seg *objs;	/* data objects (vaddr, memsz = st_size): tables' extents */
	size_t nobjs;
	int type;		/* e_type: ET_EXEC or ET_DYN */
	int is_go;		/* a Go binary, built by go */
	struct ot_go go;
	struct ot_go_funcs gofn; /* its .gopclntab's functions (names of syms
				  * that came from there point into it) */
};


struct seg {
	uint64_t vaddr, memsz, offset;
};

struct slot {
	uint64_t got;		/* r_offset: the slot's vaddr */
	char *name;		/* the symbol it is bound to */
};

static int load_segments(Elf *elf, struct seg **out, size_t *n)
{
	size_t phnum, i;

	*out = NULL;
	*n = 0;
	if (elf_getphdrnum(elf, &phnum))
		return -1;
	*out = ot_xcalloc(phnum, sizeof(**out));
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -1;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		(*out)[*n].vaddr = ph.p_vaddr;
		(*out)[*n].memsz = ph.p_memsz;
		(*out)[*n].offset = ph.p_offset;
		(*n)++;
	}
	return 0;
}

static int addr_to_offset(const struct seg *segs, size_t n, uint64_t addr,
			  uint64_t *off)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (addr >= segs[i].vaddr && addr - segs[i].vaddr < segs[i].memsz) {
			*off = addr - segs[i].vaddr + segs[i].offset;
			return 0;
		}
	}
	return -1;
}

/*
 * The JUMP_SLOT and GLOB_DAT relocations of the file: which
 * function each GOT slot will hold.  Missing or odd tables leave none.
 */
static void read_slots(struct ot_elf *e, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Scn *symscn;
		GElf_Shdr symsh;
		Elf_Data *data, *symdata;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(symscn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
		    !(data = elf_getdata(scn, NULL)) || !(symdata = elf_getdata(symscn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;
			unsigned type;

			if (!gelf_getrela(data, (int)i, &r))
				break;
			type = (unsigned)GELF_R_TYPE(r.r_info);
			if ((type != OT_ARCH_R_JUMP_SLOT && type != OT_ARCH_R_GLOB_DAT) ||
			    !gelf_getsym(symdata, (int)GELF_R_SYM(r.r_info), &sym) ||
			    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)) || !*name)
				continue;
			e->slots = ot_xreallocarray(e->slots, e->nslots + 1, sizeof(*e->slots));
			e->slots[e->nslots].got = r.r_offset;
			e->slots[e->nslots++].name = ot_xstrdup(name);
		}
	}
}

/*
 * Why a function symbol is not entered by a call, or NULL.  A return probe
 * there would overwrite whatever is at the stack top (see ot_sym).
 */
static const char *not_called(const struct ot_elf *e, const char *name, uint64_t addr)
{
	static const char *const jumped[] = {
		"_start", "_dl_start_user", "__restore_rt", "_dl_runtime_resolve*",
		"_dl_runtime_profile*", "_dl_tlsdesc_*",
	};
	const char *cold = strstr(name, ".cold");
	size_t i;

	if (cold && (!cold[5] || cold[5] == '.'))
		return "a .cold part split off its function by the compiler, entered by a jump";
	if (e->entry && addr == e->entry)
		return "the ELF entry point, entered by the kernel, not called";
	for (i = 0; i < sizeof(jumped) / sizeof(*jumped); i++)
		if (!fnmatch(jumped[i], name, 0))
			return "entered by a jump or a signal return, not by a call";
	return NULL;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ot_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A name that is no function defined here (ot_elf_other), copied to
 * e->strings at *pos; data objects also into e->objs (tables' extents).
 * 0, or -1 when the strings overflow. */
static int add_other(struct ot_elf *e, const GElf_Sym *s, const char *name, size_t count,
		     size_t bytes, size_t *pos)
{
	int type = GELF_ST_TYPE(s->st_info);
	size_t len;

	if (s->st_shndx == SHN_UNDEF ? type > STT_FUNC
				      : type != STT_OBJECT && type != STT_TLS &&
					type != STT_GNU_IFUNC)
		return 0;
	if (type == STT_OBJECT && s->st_shndx != SHN_UNDEF && s->st_size >= 8 &&
	    e->nobjs < count) {
		e->objs[e->nobjs].vaddr = s->st_value;
		e->objs[e->nobjs++].memsz = s->st_size;
	}
	len = strlen(name) + 1;
	if (*pos + len > bytes)
		return -1;
	memcpy(e->strings + *pos, name, len);
	e->others[e->nothers].name = e->strings + *pos;
	e->others[e->nothers++].kind = s->st_shndx == SHN_UNDEF ? OTHER_IMPORTED :
					type == STT_GNU_IFUNC ? OTHER_IFUNC : OTHER_DATA;
	*pos += len;
	return 0;
}

/* A defined function, into e->syms[kept] with its name at *pos: 1 added,
 * 0 left out (said under -v), -1 when the strings overflow. */
static int add_function(struct ot_elf *e, const GElf_Sym *s, const char *name,
			const struct seg *segs, size_t nsegs, size_t kept, size_t bytes,
			size_t *pos)
{
	struct ot_sym *sym = &e->syms[kept];
	uint64_t off;
	size_t len;

	/*
	 * The debug .symtab spells versioned functions "fopen@@GLIBC_2.2.5"
	 * (the default, what programs call) and "realpath@GLIBC_2.2.5" (an
	 * old version kept for old binaries): keep the default under its
	 * plain name, leave the old ones out as .dynsym's versym does.
	 */
	if (strchr(name, '@') && !strstr(name, "@@")) {
		ot_verbose("%s: skipping %s: an old, hidden version", e->display, name);
		return 0;
	}
	if (addr_to_offset(segs, nsegs, s->st_value, &off)) {
		ot_verbose("%s: skipping %s (0x%llx): not in an executable segment",
			   e->display, name, (unsigned long long)s->st_value);
		return 0;
	}
	len = strstr(name, "@@") ? (size_t)(strstr(name, "@@") - name) : strlen(name);
	if (*pos + len + 1 > bytes)
		return -1;
	memcpy(e->strings + *pos, name, len);
	e->strings[*pos + len] = 0;
	sym->name = e->strings + *pos;
	sym->not_called = not_called(e, sym->name, s->st_value);
	*pos += len + 1;
	sym->addr = s->st_value;
	sym->size = s->st_size;
	sym->offset = off;
	return 1;
}

/* The kept symbols demangled, sorted by name, each (name, address) once. */
static void finish_symbols(struct ot_elf *e, size_t kept)
{
	size_t i;

	/* Demangled names are malloc'd by libiberty; freed in ot_elf_close. */
	for (i = 0; i < kept; i++) {
		e->syms[i].demangled = cplus_demangle(e->syms[i].name,
						      DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
		if (e->syms[i].demangled)
			e->syms[i].base = cplus_demangle(e->syms[i].name,
							 DMGL_ANSI | DMGL_AUTO);
	}
	qsort(e->syms, kept, sizeof(*e->syms), cmp_sym);
	/* The same name at the same address twice (versioned dynsym) is one. */
	e->nsyms = 0;
	for (i = 0; i < kept; i++) {
		if (e->nsyms && !cmp_sym(&e->syms[e->nsyms - 1], &e->syms[i])) {
			free((char *)e->syms[i].demangled);
			free((char *)e->syms[i].base);
			continue;
		}
		e->syms[e->nsyms++] = e->syms[i];
	}
}

/* The bytes the names of the count symbols take, NULs included: 0 and
 * *bytes, or -1. */
static int names_size(Elf *elf, Elf_Data *data, const GElf_Shdr *sh, size_t count,
		      size_t *bytes)
{
	size_t i;

	*bytes = 0;
	for (i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(data, (int)i, &s))
			return -1;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (name)
			*bytes += strlen(name) + 1;
	}
	return 0;
}

static int read_symbols(struct ot_elf *e, const struct ot_elf_file *f, Elf_Scn *scn,
			const GElf_Shdr *sh, const struct seg *segs,
			size_t nsegs)
{
	Elf *elf = ot_elf_file_elf(f);
	Elf_Data *data = elf_getdata(scn, NULL), *versym = NULL;
	size_t count, i, bytes = 0, pos = 0, kept = 0;
	GElf_Shdr vsh;
	Elf_Scn *vscn;

	if (!data || !sh->sh_entsize)
		return -1;
	/*
	 * .dynsym may hold old versions of a name next to the default one
	 * (memcpy@GLIBC_2.2.5 beside memcpy@@GLIBC_2.14): programs linked
	 * today call the default, so the hidden ones are left out.
	 */
	if (sh->sh_type == SHT_DYNSYM && (vscn = ot_elf_file_section_type(f, SHT_GNU_versym, &vsh)))
		versym = elf_getdata(vscn, NULL);
	count = sh->sh_size / sh->sh_entsize;
	e->syms = ot_xcalloc(count, sizeof(*e->syms));
	e->others = ot_xcalloc(count, sizeof(*e->others));
	free(e->objs);
	e->objs = ot_xcalloc(count, sizeof(*e->objs));
	e->nobjs = 0;
	/* Names are copied so nothing points into libelf's buffers. */
	if (names_size(elf, data, sh, count, &bytes))
		return -1;
	e->strings = ot_xmalloc(bytes + 1);
	for (i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;
		int r;

		if (!gelf_getsym(data, (int)i, &s))
			return -1;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (versym) {
			GElf_Versym v;

			if (gelf_getversym(versym, (int)i, &v) && (v & 0x8000)) {
				ot_verbose("%s: skipping %s: an old, hidden version", e->display, name);
				continue;
			}
		}
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    s.st_shndx == SHN_UNDEF || !s.st_value) {
			if (add_other(e, &s, name, count, bytes, &pos))
				return -1;
			continue;
		}
		r = add_function(e, &s, name, segs, nsegs, kept, bytes, &pos);
		if (r < 0)
			return -1;
		kept += (size_t)r;
	}
	finish_symbols(e, kept);
	return 0;
}

/* debugfile's .symtab into e, read with the stripped file's own
 * segments (the debug file's may differ: sections only).  0 if read. */
static int symbols_from(struct ot_elf *e, const char *debugfile, const struct seg *segs,
			size_t nsegs)
{
	struct ot_elf_file *f;
	GElf_Shdr sh;
	Elf_Scn *scn;
	int ret = -1;

	if (ot_elf_file_open(debugfile, 0, &f))
		return -1;
	scn = ot_elf_file_section_type(f, SHT_SYMTAB, &sh);
	if (scn && !read_symbols(e, f, scn, &sh, segs, nsegs)) {
		ot_verbose("%s: symbols from %s", e->display, debugfile);
		ret = 0;
	}
	ot_elf_file_close(f);
	return ret;
}

/*
 * Separate debug info for a stripped file, found locally
 * (lib/symbols/debuginfo): its .symtab.  Returns 0 if symbols were read.
 */
static int debug_symbols(struct ot_elf *e, const char *path,
			 const struct seg *segs, size_t nsegs)
{
	char *debugfile;
	int ret;

	if (ot_debuginfo_file(path, &debugfile))
		return -1;
	ret = symbols_from(e, debugfile, segs, nsegs);
	if (!ret)
		e->source = "symtab of the separate debug info";
	free(debugfile);
	return ret;
}

/* The value of the symbol name in f's .symtab: 0, or -1. */
static int symtab_value(const struct ot_elf_file *f, const char *name, uint64_t *v)
{
	static const Elf64_Word symtab[] = { SHT_SYMTAB };
	GElf_Sym sym;

	if (ot_elf_file_symbol(f, name, symtab, 1, &sym, NULL))
		return -1;
	*v = sym.st_value;
	return 0;
}

/*
 * A Go binary: recognized, and its functions' table read.  Its .symtab
 * (or, stripped, .gopclntab's names) says which functions are Go code:
 * ABIInternal keeps the goroutine in R14, assembly need not.
 */
static void go_detect(struct ot_elf *e, const struct ot_elf_file *f)
{
	Elf *elf = ot_elf_file_elf(f);
	const char *why;
	uint64_t at;
	int err;

	e->is_go = ot_go_detect(elf, &e->go);
	if (!e->is_go && !symtab_value(f, "runtime.buildVersion", &at)) {
		e->is_go = 1;
		(void)ot_go_version_at(elf, at, &e->go);
	}
	if (!e->is_go)
		return;
	err = ot_go_read_funcs(elf, &e->go, &e->gofn, &why);
	if (err)
		ot_verbose("%s: a Go binary (%s), but no function table: %s", e->display,
			   e->go.version[0] ? e->go.version : "version unknown", why);
	else
		ot_verbose("%s: a Go binary (%s), %zu functions in .gopclntab (%s)", e->display,
			   e->go.version[0] ? e->go.version : "version unknown", e->gofn.n,
			   e->gofn.format);
}

/* The pclntab's function at vaddr, or NULL (a binary search). */
static const struct ot_go_func *go_func_at(const struct ot_elf *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->gofn.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->gofn.fn[mid].entry < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->gofn.n && e->gofn.fn[lo].entry == vaddr ? &e->gofn.fn[lo] : NULL;
}

/* Which symbols are Go code, and which Go assembly (its .symtab spells
 * an ABI0 function "NAME.abi0"). */
static void go_mark(struct ot_elf *e)
{
	size_t i;

	for (i = 0; i < e->nsyms; i++) {
		const struct ot_go_func *f = go_func_at(e, e->syms[i].addr);
		size_t len = strlen(e->syms[i].name);

		if (!f)
			continue;
		e->syms[i].go = (f->flags & OT_GO_FUNC_ASM) ||
				(len > 5 && !strcmp(e->syms[i].name + len - 5, ".abi0")) ?
				OT_SYM_GO_ASM : OT_SYM_GO;
	}
}

/*
 * A stripped Go binary: .gopclntab's functions join .dynsym's (cgo's C
 * functions and exports), one (name, address) once.  Their names point
 * into e->gofn.
 */
static void go_symbols(struct ot_elf *e, const struct seg *segs, size_t nsegs)
{
	size_t i, n = e->nsyms, k;

	e->syms = ot_xreallocarray(e->syms, e->nsyms + e->gofn.n + 1, sizeof(*e->syms));
	for (i = 0; i < e->gofn.n; i++) {
		const struct ot_go_func *f = &e->gofn.fn[i];
		struct ot_sym *s = &e->syms[n];
		uint64_t off;

		if (addr_to_offset(segs, nsegs, f->entry, &off))
			continue;
		memset(s, 0, sizeof(*s));
		s->name = e->gofn.names + f->name;
		s->addr = f->entry;
		s->size = f->end - f->entry;
		s->offset = off;
		s->not_called = not_called(e, s->name, s->addr);
		for (k = 0; k < e->nsyms && (e->syms[k].addr != s->addr ||
					     strcmp(e->syms[k].name, s->name)); k++)
			;
		if (k == e->nsyms)
			n++;
	}
	e->nsyms = n;
	qsort(e->syms, e->nsyms, sizeof(*e->syms), cmp_sym);
	e->source = "gopclntab";
}

/* Whether elf (read from fd) is an ELF executable or shared object for
 * this machine, whole: 0 with *eh, or -1 after printing why not. */
static int check_header(Elf *elf, int fd, const char *display, GElf_Ehdr *eh)
{
	uint64_t sh_end, ph_end;
	struct stat st;

	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ot_error("%s is not an ELF file", display);
		return -1;
	}
	if (!gelf_getehdr(elf, eh)) {
		ot_error("%s: corrupt ELF header: %s", display, elf_errmsg(-1));
		return -1;
	}
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != OT_ARCH_EM) {
		ot_error("%s is an ELF file for another machine (e_machine %u)",
			 display, eh->e_machine);
		return -1;
	}
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) {
		ot_error("%s is not an executable or shared object", display);
		return -1;
	}
	/* libelf reads lazily: a table past the end would look merely absent. */
	if (fstat(fd, &st))
		return 0;
	sh_end = eh->e_shnum ? eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize : 0;
	ph_end = eh->e_phnum ? eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize : 0;
	if (sh_end > (uint64_t)st.st_size || ph_end > (uint64_t)st.st_size) {
		ot_error("%s is truncated or corrupt: its %s headers lie beyond the end of the "
			 "file (%lld bytes)", display,
			 ph_end > (uint64_t)st.st_size ? "program" : "section", (long long)st.st_size);
		return -1;
	}
	return 0;
}

int ot_elf_open(const char *path, const char *display, struct ot_elf **out)
{
	struct ot_elf *e;
	struct seg *segs = NULL;
	size_t nsegs = 0;
	struct ot_elf_file *f;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *elf;
	int ret = -ENOEXEC;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		ot_error("libelf is unusable: %s", elf_errmsg(-1));
		return -ENOEXEC;
	}
	ret = ot_elf_file_open(path, 0, &f);
	if (ret == -ENOEXEC) {
		ot_error("%s is not an ELF file", display);
		return ret;
	}
	if (ret) {
		ot_error_errno(-ret, "cannot open %s", display);
		return ret;
	}
	ret = -ENOEXEC;
	elf = ot_elf_file_elf(f);
	if (check_header(elf, ot_elf_file_fd(f), display, &eh)) {
		ot_elf_file_close(f);
		return ret;
	}
	e = ot_xcalloc(1, sizeof(*e));
	e->display = ot_xstrdup(display);
	e->file = f;
	e->entry = eh.e_entry;
	e->type = eh.e_type;
	if (load_segments(elf, &segs, &nsegs)) {
		ot_error("%s: corrupt program headers: %s", display, elf_errmsg(-1));
		goto out_e;
	}
	e->has_eh = !!ot_elf_file_section(f, ".gcc_except_table", &sh);
	e->source = "symtab";
	go_detect(e, f);
	scn = ot_elf_file_section_type(f, SHT_SYMTAB, &sh);
	/* Stripped: the full table may be in separate debug info. */
	if (!scn && !debug_symbols(e, path, segs, nsegs))
		goto done;
	if (!scn) {
		e->source = "dynsym";
		scn = ot_elf_file_section_type(f, SHT_DYNSYM, &sh);
	}
	/* A stripped Go binary still has the runtime's own table. */
	if (!scn && e->gofn.n) {
		go_symbols(e, segs, nsegs);
		goto done;
	}
	if (!scn) {
		ot_error("%s has no symbol table: no .symtab or .dynsym, and no separate "
			 "debug info (.gnu_debuglink beside it, in .debug/ or %s, or by "
			 "build-id in %s/.build-id)", display, OT_DEBUG_DIR, OT_DEBUG_DIR);
		ret = -ENODATA;
		goto out_e;
	}
	if (read_symbols(e, f, scn, &sh, segs, nsegs)) {
		ot_error("%s: corrupt symbol table: %s", display, elf_errmsg(-1));
		goto out_e;
	}
	if (!strcmp(e->source, "dynsym") && e->gofn.n)
		go_symbols(e, segs, nsegs);
done:
	go_mark(e);
	read_slots(e, elf);
	e->segs = segs;
	e->nsegs = nsegs;
	*out = e;
	return 0;
out_e:
	free(segs);
	ot_elf_close(e);
	return ret;
}

/* The symbol tables of e (not its segments or GOT slots), freed. */
static void free_symbols(struct ot_elf *e)
{
	size_t i;

	for (i = 0; i < e->nsyms; i++) {
		free((char *)e->syms[i].demangled);
		free((char *)e->syms[i].base);
	}
	free(e->syms);
	free(e->others);
	free(e->strings);
	free(e->objs);
	e->syms = NULL;
	e->others = NULL;
	e->strings = NULL;
	e->objs = NULL;
	e->nsyms = e->nothers = e->nobjs = 0;
}

int ot_elf_symbols_stripped(const struct ot_elf *e)
{
	return !strcmp(e->source, "dynsym");
}

int ot_elf_fetch_symbols(struct ot_elf *e, const char *path, int required)
{
	struct ot_elf *n;
	char *debugfile;
	size_t had = e->nsyms;
	int ret;

	ret = ot_debuginfo_fetch(path, e->display, required, &debugfile);
	if (ret)
		return ret;
	/* Read apart, then swapped in: e stays whole if the file is bad. */
	n = ot_xcalloc(1, sizeof(*n));
	n->display = e->display;
	n->entry = e->entry;
	n->type = e->type;
	ret = symbols_from(n, debugfile, e->segs, e->nsegs);
	if (ret) {
		(required ? ot_error : ot_warn)("%s: the debug info debuginfod sent (%s) has no "
						"symbol table", e->display, debugfile);
		free_symbols(n);
	} else {
		free_symbols(e);
		e->syms = n->syms;
		e->nsyms = n->nsyms;
		e->others = n->others;
		e->nothers = n->nothers;
		e->strings = n->strings;
		e->objs = n->objs;
		e->nobjs = n->nobjs;
		snprintf(e->source_buf, sizeof(e->source_buf), "symtab of debuginfod's debug info "
			 "(%zu more than .dynsym)", e->nsyms > had ? e->nsyms - had : 0);
		e->source = e->source_buf;
	}
	free(n);
	free(debugfile);
	return ret ? -ENODATA : 0;
}

void ot_elf_close(struct ot_elf *e)
{
	size_t i;

	if (!e)
		return;
	free_symbols(e);
	for (i = 0; i < e->nslots; i++)
		free(e->slots[i].name);
	free(e->slots);
	free(e->segs);
	free(e->display);
	ot_go_funcs_free(&e->gofn);
	ot_elf_file_close(e->file);
	free(e);
}

size_t ot_elf_nsyms(const struct ot_elf *e)
{
	return e->nsyms;
}

const struct ot_sym *ot_elf_sym(const struct ot_elf *e, size_t i)
{
	return &e->syms[i];
}

const struct ot_sym *ot_elf_sym_at(const struct ot_elf *e, uint64_t off)
{
	size_t i;

	for (i = 0; i < e->nsyms; i++)
		if (off >= e->syms[i].offset && off - e->syms[i].offset < e->syms[i].size)
			return &e->syms[i];
	return NULL;
}

int64_t ot_elf_text_delta(const struct ot_elf *e, uint64_t off)
{
	size_t i;

	for (i = 0; i < e->nsegs; i++)
		if (off >= e->segs[i].offset && off - e->segs[i].offset < e->segs[i].memsz)
			return (int64_t)(e->segs[i].vaddr - e->segs[i].offset);
	return 0;
}

const struct ot_sym *ot_elf_slot_target(const struct ot_elf *e, uint64_t got_vaddr,
					const char **name)
{
	size_t i, k;

	*name = NULL;
	for (i = 0; i < e->nslots; i++) {
		if (e->slots[i].got != got_vaddr)
			continue;
		*name = e->slots[i].name;
		for (k = 0; k < e->nsyms; k++)
			if (!strcmp(e->syms[k].name, e->slots[i].name))
				return &e->syms[k];
		return NULL;
	}
	return NULL;
}

const char *ot_elf_display(const struct ot_elf *e)
{
	return e->display;
}

const char *ot_elf_source(const struct ot_elf *e)
{
	return e->source;
}

const struct ot_go *ot_elf_go(const struct ot_elf *e)
{
	return e->is_go ? &e->go : NULL;
}

const char *ot_elf_stack_switch(const struct ot_elf *e)
{
	static const char *const names[] = {
		"swapcontext", "setcontext", "jump_fcontext", "ontop_fcontext", "coctx_swap",
	};
	size_t i, k;

	for (k = 0; k < sizeof(names) / sizeof(*names); k++) {
		size_t len = strlen(names[k]);

		for (i = 0; i < e->nothers; i++)
			if (e->others[i].kind == OTHER_IMPORTED && !strncmp(e->others[i].name, names[k], len) &&
			    (!e->others[i].name[len] || e->others[i].name[len] == '@'))
				return names[k];
		for (i = 0; i < e->nsyms; i++)
			if (!strcmp(e->syms[i].name, names[k]))
				return names[k];
	}
	return NULL;
}

int ot_elf_file_has_section(const char *path, const char *name)
{
	struct ot_elf_file *f;
	GElf_Shdr sh;
	int has = ot_elf_file_open(path, 0, &f);

	if (has)
		return has == -ENOEXEC ? 0 : has;
	has = !!ot_elf_file_section(f, name, &sh);
	ot_elf_file_close(f);
	return has;
}

int ot_elf_has_eh(const struct ot_elf *e)
{
	return e->has_eh;
}

const char *ot_sym_display(const struct ot_sym *s)
{
	return s->demangled ? s->demangled : s->name;
}

enum ot_other ot_elf_other(const struct ot_elf *e, const char *name)
{
	size_t j, tl = strlen(name);
	enum ot_other found = OT_OTHER_NONE;

	/* .symtab spells imports with their version: printf@GLIBC_2.2.5 */
	for (j = 0; j < e->nothers; j++)
		if (!strncmp(e->others[j].name, name, tl) &&
		    (!e->others[j].name[tl] || e->others[j].name[tl] == '@'))
			found = e->others[j].kind == OTHER_IFUNC ? OT_OTHER_IFUNC :
				e->others[j].kind == OTHER_IMPORTED ? OT_OTHER_IMPORTED : OT_OTHER_DATA;
	return found;
}


/* ot_elf_lookup in the first ntypes of .dynsym, .symtab. */
static int lookup(const char *path, const char *name, size_t ntypes, uint64_t *offset,
		  uint64_t *size, void *buf, size_t len)
{
	static const Elf64_Word types[] = { SHT_DYNSYM, SHT_SYMTAB };
	struct ot_elf_file *f;
	GElf_Sym sym;
	int ret = ot_elf_file_open(path, 0, &f);

	if (ret)
		return ret;
	ret = ot_elf_file_symbol(f, name, types, ntypes, &sym, offset);
	if (!ret) {
		*size = sym.st_size;
		if (buf && ot_elf_file_pread(f, buf, len, *offset) != (ssize_t)len)
			ret = -EIO;
	}
	ot_elf_file_close(f);
	return ret;
}

int ot_elf_lookup(const char *path, const char *name, uint64_t *offset, uint64_t *size,
		  void *buf, size_t len)
{
	return lookup(path, name, 2, offset, size, buf, len);
}

int ot_elf_lookup_dynamic(const char *path, const char *name, uint64_t *offset, uint64_t *size)
{
	return lookup(path, name, 1, offset, size, NULL, 0);
}

/* The first PT_LOAD's p_vaddr, 0 without one. */
static uint64_t first_load(Elf *elf)
{
	size_t i;

	for (i = 0;; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return 0;
		if (ph.p_type == PT_LOAD)
			return ph.p_vaddr;
	}
}

int ot_elf_image_lookup(const void *image, size_t len, const char *name, uint64_t *off)
{
	/* A copy: libelf may write to the image it reads, and this one is
	 * the process's own vDSO. */
	unsigned char *copy;
	Elf *elf;
	Elf_Scn *scn = NULL;
	uint64_t first;
	int ret = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	copy = ot_xmalloc(len);
	memcpy(copy, image, len);
	elf = elf_memory((char *)copy, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		free(copy);
		return -ENOEXEC;
	}
	first = first_load(elf);
	while (ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (k = 0; data && k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym s;
			const char *sname;

			if (!gelf_getsym(data, (int)k, &s))
				continue;
			sname = elf_strptr(elf, sh.sh_link, s.st_name);
			if (sname && !strcmp(sname, name) && s.st_value) {
				*off = s.st_value - first;
				ret = 0;
			}
		}
	}
	elf_end(elf);
	free(copy);
	return ret;
}


/* The most entries ot_elf_code_table reads from one table. */
#define TABLE_MAX 65536

/*
 * The PT_LOAD holding the len bytes at vaddr: 0 if the program cannot
 * change them once loaded (a read-only segment, or PT_GNU_RELRO),
 * -EACCES if it can, -ERANGE if no segment holds them all.
 */
static int table_segment(Elf *elf, uint64_t vaddr, uint64_t len, GElf_Phdr *load)
{
	size_t phnum, i;
	int found = 0, relro = 0;

	if (elf_getphdrnum(elf, &phnum))
		return -EIO;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -EIO;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr > ph.p_memsz ||
		    len > ph.p_memsz - (vaddr - ph.p_vaddr))
			continue;
		if (ph.p_type == PT_LOAD && !found) {
			*load = ph;
			found = 1;
		} else if (ph.p_type == PT_GNU_RELRO) {
			relro = 1;
		}
	}
	if (!found)
		return -ERANGE;
	return (load->p_flags & PF_W) && !relro ? -EACCES : 0;
}

/*
 * Packed relative relocations (SHT_RELR): each slot at vaddr they name
 * gets the value the file holds there plus the load bias, raw[k] in the
 * file's own addresses.  An even entry names a slot, an odd one is a
 * bitmap of the 63 slots after the last named.
 */
static void table_relr(Elf_Data *data, uint64_t vaddr, size_t n, const uint64_t *raw,
		       uint64_t *val)
{
	uint64_t where = 0, w, a;
	size_t i;
	int bit;

	for (i = 0; i + 8 <= data->d_size; i += 8) {
		memcpy(&w, (const char *)data->d_buf + i, 8);
		for (bit = 0; bit < 64; bit++, w >>= 1) {
			if (!bit && !(w & 1)) {
				a = w;		/* an address */
				where = w + 8;
			} else if (bit && (w & 1)) {
				a = where + 8 * (uint64_t)(bit - 1);
			} else {
				continue;
			}
			if (a >= vaddr && a < vaddr + 8 * (uint64_t)n && !((a - vaddr) % 8))
				val[(a - vaddr) / 8] = raw[(a - vaddr) / 8];
			if (!bit)
				break;
		}
		if (bit == 64)
			where += 63 * 8;
	}
}

/*
 * The loader's relocations of the n slots at vaddr, whose bytes in the
 * file are raw: a RELATIVE one gives its slot the value (the addend, or
 * for RELR the bytes in place); any other (a symbol's, which another file
 * may interpose; an IFUNC's) leaves it OT_TABLE_UNKNOWN.  Returns 0, or
 * -ENOTSUP without section headers to find them by.
 */
static int table_relocs(Elf *elf, uint64_t vaddr, size_t n, const uint64_t *raw, uint64_t *val)
{
	Elf_Scn *scn = NULL;
	size_t shnum;

	if (elf_getshdrnum(elf, &shnum) || !shnum)
		return -ENOTSUP;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		size_t i, cnt;

		/* Not loaded: --emit-relocs' record of what the linker did. */
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		if (sh.sh_type == SHT_RELR)
			table_relr(data, vaddr, n, raw, val);
		if ((sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) || !sh.sh_entsize)
			continue;
		cnt = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < cnt; i++) {
			GElf_Rela r = { 0, 0, 0 };
			GElf_Rel rel;
			uint64_t k;

			if (sh.sh_type == SHT_RELA ? !gelf_getrela(data, (int)i, &r) :
						     !gelf_getrel(data, (int)i, &rel))
				break;
			if (sh.sh_type == SHT_REL) {
				r.r_offset = rel.r_offset;
				r.r_info = rel.r_info;
			}
			if (r.r_offset + 8 <= vaddr || r.r_offset >= vaddr + 8 * (uint64_t)n)
				continue;
			k = r.r_offset < vaddr ? 0 : (r.r_offset - vaddr) / 8;
			if (sh.sh_type == SHT_RELA && GELF_R_TYPE(r.r_info) == OT_ARCH_R_RELATIVE &&
			    r.r_offset == vaddr + 8 * k) {
				val[k] = (uint64_t)r.r_addend;
				continue;
			}
			val[k] = OT_TABLE_UNKNOWN;
			if (r.r_offset != vaddr + 8 * k && k + 1 < n)
				val[k + 1] = OT_TABLE_UNKNOWN;
		}
	}
	return 0;
}

/* The extent of the table at vaddr: to the end of the data objects holding it. */
static size_t table_entries(const struct ot_elf *e, uint64_t vaddr)
{
	uint64_t end = 0;
	size_t i;

	for (i = 0; i < e->nobjs; i++)
		if (vaddr >= e->objs[i].vaddr && vaddr - e->objs[i].vaddr < e->objs[i].memsz &&
		    e->objs[i].vaddr + e->objs[i].memsz > end)
			end = e->objs[i].vaddr + e->objs[i].memsz;
	return end > vaddr ? (size_t)((end - vaddr) / 8) : 0;
}

int ot_elf_code_table(const struct ot_elf *e, const char *path, uint64_t vaddr,
		      uint64_t **out, int *bounded)
{
	size_t n = table_entries(e, vaddr), i;
	uint64_t *val, *raw, at;
	Elf *elf = ot_elf_file_elf(e->file);
	GElf_Phdr ld;
	int ret;

	memset(&ld, 0, sizeof(ld));
	*out = NULL;
	*bounded = n > 0;
	if (n > TABLE_MAX)
		return -E2BIG;
	n = n ? n : 1;
	(void)path;	/* e's own handle reads the file it was read from */
	ret = table_segment(elf, vaddr, 8 * (uint64_t)n, &ld);
	raw = ot_xcalloc(n, sizeof(*raw));
	val = ot_xcalloc(n, sizeof(*val));
	at = vaddr - ld.p_vaddr;
	if (!ret && at < ld.p_filesz &&
	    ot_elf_file_pread(e->file, raw,
			      (size_t)(ld.p_filesz - at < 8 * n ? ld.p_filesz - at : 8 * n),
			      ld.p_offset + at) < 0)
		ret = -EIO;
	/* The file's bytes are the values in a file loaded where it says
	 * (ET_EXEC); elsewhere only the relocations make pointers. */
	if (!ret && e->type == ET_EXEC)
		memcpy(val, raw, n * sizeof(*val));
	if (!ret)
		ret = table_relocs(elf, vaddr, n, raw, val);
	for (i = 0; !ret && i < n; i++) {
		uint64_t off;

		if (val[i] == OT_TABLE_UNKNOWN)
			continue;
		val[i] = val[i] && !addr_to_offset(e->segs, e->nsegs, val[i], &off) ?
			 off : OT_TABLE_NONE;
	}
	free(raw);
	if (ret) {
		free(val);
		return ret;
	}
	*out = val;
	return (int)n;
}
