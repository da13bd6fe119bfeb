#include "elfsym.h"
#include "error.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
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
	struct ot_sym *syms;
	size_t nsyms;
	struct other *others;
	size_t nothers;
	char *strings;		/* names, one block */
	const char *source;
	int has_eh;
	uint64_t entry;		/* e_entry: the kernel jumps there, nobody calls it */
	struct seg *segs;	/* executable PT_LOADs */
	size_t nsegs;
	struct slot *slots;	/* GOT slots bound to functions, by relocation */
	size_t nslots;
};

#if defined(__x86_64__)
#define OT_EM EM_X86_64
#elif defined(__aarch64__)
#define OT_EM EM_AARCH64
#endif

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
 * The JUMP_SLOT and GLOB_DAT relocations of the file (x86-64): which
 * function each GOT slot will hold.  Missing or odd tables leave none.
 */
static void read_slots(struct ot_elf *e, Elf *elf)
{
#if defined(__x86_64__)
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
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(symdata, (int)GELF_R_SYM(r.r_info), &sym) ||
			    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)) || !*name)
				continue;
			e->slots = ot_xreallocarray(e->slots, e->nslots + 1, sizeof(*e->slots));
			e->slots[e->nslots].got = r.r_offset;
			e->slots[e->nslots++].name = ot_xstrdup(name);
		}
	}
#else
	(void)e;
	(void)elf;
#endif
}

static int has_section(Elf *elf, const char *want)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, want))
			return 1;
	}
	return 0;
}

static Elf_Scn *find_symtab(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	}
	return NULL;
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

static int read_symbols(struct ot_elf *e, Elf *elf, Elf_Scn *scn,
			const GElf_Shdr *sh, const struct seg *segs,
			size_t nsegs)
{
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
	if (sh->sh_type == SHT_DYNSYM && (vscn = find_symtab(elf, SHT_GNU_versym, &vsh)))
		versym = elf_getdata(vscn, NULL);
	count = sh->sh_size / sh->sh_entsize;
	e->syms = ot_xcalloc(count, sizeof(*e->syms));
	e->others = ot_xcalloc(count, sizeof(*e->others));
	/* Names are copied so nothing points into libelf's buffers. */
	for (i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(data, (int)i, &s))
			return -1;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (name)
			bytes += strlen(name) + 1;
	}
	e->strings = ot_xmalloc(bytes + 1);
	for (i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;
		uint64_t off;
		size_t len;

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
			int type = GELF_ST_TYPE(s.st_info);

			if (s.st_shndx == SHN_UNDEF ? type > STT_FUNC
						     : type != STT_OBJECT && type != STT_TLS &&
						       type != STT_GNU_IFUNC)
				continue;
			len = strlen(name) + 1;
			if (pos + len > bytes)
				return -1;
			memcpy(e->strings + pos, name, len);
			e->others[e->nothers].name = e->strings + pos;
			e->others[e->nothers++].kind = s.st_shndx == SHN_UNDEF ? OTHER_IMPORTED :
							type == STT_GNU_IFUNC ? OTHER_IFUNC : OTHER_DATA;
			pos += len;
			continue;
		}
		/*
		 * The debug .symtab spells versioned functions "fopen@@GLIBC_2.2.5"
		 * (the default, what programs call) and "realpath@GLIBC_2.2.5" (an
		 * old version kept for old binaries): keep the default under its
		 * plain name, leave the old ones out as .dynsym's versym does.
		 */
		if (strchr(name, '@') && !strstr(name, "@@")) {
			ot_verbose("%s: skipping %s: an old, hidden version", e->display, name);
			continue;
		}
		if (addr_to_offset(segs, nsegs, s.st_value, &off)) {
			ot_verbose("%s: skipping %s (0x%llx): not in an executable segment",
				   e->display, name, (unsigned long long)s.st_value);
			continue;
		}
		len = strstr(name, "@@") ? (size_t)(strstr(name, "@@") - name) : strlen(name);
		if (pos + len + 1 > bytes)
			return -1;
		memcpy(e->strings + pos, name, len);
		e->strings[pos + len] = 0;
		e->syms[kept].name = e->strings + pos;
		e->syms[kept].not_called = not_called(e, e->syms[kept].name, s.st_value);
		pos += len + 1;
		e->syms[kept].addr = s.st_value;
		e->syms[kept].size = s.st_size;
		e->syms[kept].offset = off;
		kept++;
	}
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
	return 0;
}

#define DEBUG_DIR "/usr/lib/debug"

/*
 * Separate debug info for a stripped file, found the standard ways
 * (.gnu_debuglink, build-id) by libdwfl; its .symtab is read with the
 * stripped file's own segments.  Returns 0 if symbols were read.
 */
/*
 * path as a libdwfl offline module, with the standard debug-info search
 * (.gnu_debuglink beside it, .debug/, DEBUG_DIR, build-id).  Free the
 * returned session with dwfl_end; *mod may be NULL.
 */
static Dwfl *offline_module(const char *path, Dwfl_Module **mod)
{
	static char *debuginfo_path = (char *)"+:.debug:" DEBUG_DIR;
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &debuginfo_path,
	};
	Dwfl *dwfl = dwfl_begin(&cb);

	*mod = NULL;
	if (!dwfl)
		return NULL;
	*mod = dwfl_report_offline(dwfl, "", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	return dwfl;
}

static int debug_symbols(struct ot_elf *e, const char *path,
			 const struct seg *segs, size_t nsegs)
{
	const char *debugfile = NULL;
	Dwfl_Module *mod;
	Dwfl *dwfl;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *elf;
	int fd, ret = -1;

	dwfl = offline_module(path, &mod);
	if (!dwfl)
		return -1;
	/* Looking for the symbol table makes libdwfl look for the debug file. */
	if (mod && dwfl_module_getsymtab(mod) > 0)
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (!debugfile) {
		dwfl_end(dwfl);
		return -1;
	}
	fd = open(debugfile, O_RDONLY | O_CLOEXEC);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	scn = elf ? find_symtab(elf, SHT_SYMTAB, &sh) : NULL;
	if (scn && !read_symbols(e, elf, scn, &sh, segs, nsegs)) {
		ot_verbose("%s: symbols from %s", e->display, debugfile);
		e->source = "symtab of the separate debug info";
		ret = 0;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	dwfl_end(dwfl);
	return ret;
}

int ot_elf_open(const char *path, const char *display, struct ot_elf **out)
{
	struct ot_elf *e;
	struct seg *segs = NULL;
	size_t nsegs = 0;
	struct stat st;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *elf;
	int fd, ret = -ENOEXEC;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		ot_error("libelf is unusable: %s", elf_errmsg(-1));
		return -ENOEXEC;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		ot_error_errno(errno, "cannot open %s", display);
		return ret;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ot_error("%s is not an ELF file", display);
		goto out_elf;
	}
	if (!gelf_getehdr(elf, &eh)) {
		ot_error("%s: corrupt ELF header: %s", display, elf_errmsg(-1));
		goto out_elf;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != OT_EM) {
		ot_error("%s is an ELF file for another machine (e_machine %u)",
			 display, eh.e_machine);
		goto out_elf;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		ot_error("%s is not an executable or shared object", display);
		goto out_elf;
	}
	/* libelf reads lazily: a table past the end would look merely absent. */
	if (fstat(fd, &st) == 0 &&
	    ((eh.e_shnum && eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > (uint64_t)st.st_size) ||
	     (eh.e_phnum && eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize > (uint64_t)st.st_size))) {
		ot_error("%s is truncated or corrupt: its %s headers lie beyond the end of the file (%lld bytes)",
			 display, eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize > (uint64_t)st.st_size ?
			 "program" : "section", (long long)st.st_size);
		goto out_elf;
	}
	e = ot_xcalloc(1, sizeof(*e));
	e->display = ot_xstrdup(display);
	e->entry = eh.e_entry;
	if (load_segments(elf, &segs, &nsegs)) {
		ot_error("%s: corrupt program headers: %s", display, elf_errmsg(-1));
		goto out_e;
	}
	e->has_eh = has_section(elf, ".gcc_except_table");
	e->source = "symtab";
	scn = find_symtab(elf, SHT_SYMTAB, &sh);
	/* Stripped: the full table may be in separate debug info. */
	if (!scn && !debug_symbols(e, path, segs, nsegs))
		goto done;
	if (!scn) {
		e->source = "dynsym";
		scn = find_symtab(elf, SHT_DYNSYM, &sh);
	}
	if (!scn) {
		ot_error("%s has no symbol table: no .symtab or .dynsym, and no separate "
			 "debug info (.gnu_debuglink beside it, in .debug/ or %s, or by "
			 "build-id in %s/.build-id)", display, DEBUG_DIR, DEBUG_DIR);
		ret = -ENODATA;
		goto out_e;
	}
	if (read_symbols(e, elf, scn, &sh, segs, nsegs)) {
		ot_error("%s: corrupt symbol table: %s", display, elf_errmsg(-1));
		goto out_e;
	}
done:
	read_slots(e, elf);
	e->segs = segs;
	e->nsegs = nsegs;
	elf_end(elf);
	close(fd);
	*out = e;
	return 0;
out_e:
	free(segs);
	ot_elf_close(e);
out_elf:
	elf_end(elf);
	close(fd);
	return ret;
}

void ot_elf_close(struct ot_elf *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nsyms; i++) {
		free((char *)e->syms[i].demangled);
		free((char *)e->syms[i].base);
	}
	for (i = 0; i < e->nslots; i++)
		free(e->slots[i].name);
	free(e->slots);
	free(e->segs);
	free(e->syms);
	free(e->others);
	free(e->strings);
	free(e->display);
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

const char *ot_elf_source(const struct ot_elf *e)
{
	return e->source;
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

int ot_elf_has_eh(const struct ot_elf *e)
{
	return e->has_eh;
}

size_t ot_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, *row, prev, d;

	row = ot_xcalloc(lb + 1, sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];

			d = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < d)
				d = row[j] + 1;
			if (row[j - 1] + 1 < d)
				d = row[j - 1] + 1;
			row[j] = d;
			prev = cur;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

static int is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

const char *ot_sym_display(const struct ot_sym *s)
{
	return s->demangled ? s->demangled : s->name;
}

/* forward */
static const char *last_component(const char *base);

/*
 * term names base by its last components: "middle" or
 * "orbit_stress::middle" for "crate::orbit_stress::middle", "twice" for
 * "app::twice<int>".
 */
static int bare_match(const char *base, const char *term)
{
	const char *c = last_component(base), *lt = strchr(c, '<');
	size_t n = strlen(term), bl = strlen(base);

	if (!strcmp(c, term) || (lt && (size_t)(lt - c) == n && !strncmp(c, term, n)))
		return 1;
	return strstr(term, "::") && bl > n + 2 && !strcmp(base + bl - n, term) &&
	       !strncmp(base + bl - n - 2, "::", 2);
}

/* term against every spelling of s: raw, demangled, without parameters. */
static int matches(const struct ot_sym *s, const char *term, int glob)
{
	if (glob)
		return !fnmatch(term, s->name, 0) ||
		       (s->demangled && !fnmatch(term, s->demangled, 0)) ||
		       (s->base && !fnmatch(term, s->base, 0));
	return !strcmp(term, s->name) ||
	       (s->demangled && !strcmp(term, s->demangled)) ||
	       (s->base && !strcmp(term, s->base));
}

/* The last "::" component of a demangled base, outside template brackets. */
static const char *last_component(const char *base)
{
	const char *p, *last = base;
	int depth = 0;

	for (p = base; *p; p++) {
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth)
			depth--;
		else if (!depth && p[0] == ':' && p[1] == ':')
			last = p + 2;
	}
	return last;
}

/* "did you mean: a, b?" built from the closest names, or "" if none is close. */
static void suggest(const struct ot_elf *e, const char *name, char *buf,
		    size_t len)
{
	size_t best[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX };
	size_t dist[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX };
	size_t limit = strlen(name) / 3 + 1, i, k, used = 0;

	if (limit > 3)
		limit = 3;
	for (i = 0; i < e->nsyms; i++) {
		const struct ot_sym *s = &e->syms[i];
		size_t d = ot_edit_distance(name, s->base ? s->base : s->name);

		if (s->base) {
			size_t d2 = ot_edit_distance(name, last_component(s->base));

			if (d2 < d)
				d = d2;
		}

		if (d > limit)
			continue;
		for (k = 0; k < 3; k++) {
			if (d < dist[k]) {
				memmove(&dist[k + 1], &dist[k], (2 - k) * sizeof(*dist));
				memmove(&best[k + 1], &best[k], (2 - k) * sizeof(*best));
				dist[k] = d;
				best[k] = i;
				break;
			}
		}
	}
	buf[0] = 0;
	for (k = 0; k < 3 && best[k] != SIZE_MAX; k++) {
		const struct ot_sym *s = &e->syms[best[k]];
		int w = snprintf(buf + used, len - used, "%s%s",
				 k ? ", " : " (did you mean: ",
				 s->base ? s->base : s->name);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	if (used && used + 3 < len)
		strcat(buf, "?)");
}

static char *next_term(char **cursor)
{
	char *t = *cursor, *comma;

	if (!t)
		return NULL;
	comma = strchr(t, ',');
	if (comma) {
		*comma = 0;
		*cursor = comma + 1;
	} else {
		*cursor = NULL;
	}
	while (*t == ' ')
		t++;
	return t;
}

int ot_elf_select(const struct ot_elf *e, const char *spec,
		  struct ot_selection *out)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	uint32_t *chosen = ot_xcalloc(e->nsyms ? e->nsyms : 1, sizeof(*chosen));
	char *skipped = ot_xcalloc(e->nsyms ? e->nsyms : 1, 1);
	size_t *order, norder = 0, i, j, k;
	uint32_t nterm = 0;
	int ret = 0, any_include = 0;

	memset(out, 0, sizeof(*out));
	while ((term = next_term(&cursor))) {
		const struct ot_sym *refused = NULL;
		size_t hits = 0;

		if (!*term || *term == '!')
			continue;
		any_include = 1;
		nterm++;
		for (i = 0; i < e->nsyms; i++) {
			if (!matches(&e->syms[i], term, is_glob(term)))
				continue;
			if (e->syms[i].not_called && is_glob(term)) {
				skipped[i] = 1;
				refused = &e->syms[i];
				continue;
			}
			if (e->syms[i].not_called) {
				ot_error("'%s' in %s cannot be traced: %s", term, e->display,
					 e->syms[i].not_called);
				ret = -ENOENT;
				hits = SIZE_MAX;
				break;
			}
			if (!chosen[i])
				chosen[i] = nterm;
			hits++;
		}
		if (hits == SIZE_MAX)
			continue;
		/* "middle" for "orbit_stress::middle": only if one name fits. */
		for (i = 0; !hits && !is_glob(term) && i < e->nsyms; i++) {
			const struct ot_sym *s = &e->syms[i];
			size_t m;

			if (!s->base || !bare_match(s->base, term))
				continue;
			for (m = 0; m < e->nsyms; m++) {
				const struct ot_sym *o = &e->syms[m];

				if (o->base && strcmp(o->base, s->base) &&
				    bare_match(o->base, term))
					break;
			}
			if (m < e->nsyms) {
				char list[1024];
				size_t used = 0;

				for (m = 0; m < e->nsyms && used + 2 < sizeof(list); m++) {
					const struct ot_sym *o = &e->syms[m];
					int w;

					if (!o->base || !bare_match(o->base, term))
						continue;
					w = snprintf(list + used, sizeof(list) - used, "%s%s",
						     used ? ", " : "", o->demangled);
					if (w > 0)
						used += (size_t)w;
				}
				ot_error("'%s' is ambiguous in %s: %s; name one", term,
					 e->display, list);
				ret = -ENOENT;
				hits = SIZE_MAX;
				break;
			}
			for (m = 0; m < e->nsyms; m++) {
				if (e->syms[m].base && !strcmp(e->syms[m].base, s->base) &&
				    !e->syms[m].not_called) {
					if (!chosen[m])
						chosen[m] = nterm;
					hits++;
				}
			}
		}
		if (hits == SIZE_MAX)
			continue;
		if (!hits) {
			char hint[512];

			const struct other *o = NULL;

			/* .symtab spells imports with their version: printf@GLIBC_2.2.5 */
			for (j = 0; !is_glob(term) && j < e->nothers; j++) {
				size_t tl = strlen(term);

				if (!strncmp(e->others[j].name, term, tl) &&
				    (!e->others[j].name[tl] || e->others[j].name[tl] == '@'))
					o = &e->others[j];
			}
			if (is_glob(term) && refused) {
				ot_error("no function that can be traced matches '%s' in %s: "
					 "%s is %s", term, e->display, ot_sym_display(refused),
					 refused->not_called);
			} else if (is_glob(term)) {
				ot_error("no function matches '%s' in %s", term,
					 e->display);
			} else if (o && o->kind == OTHER_IFUNC) {
				/* Probing the resolver would count one call at load. */
				ot_error("'%s' in %s is an IFUNC: the loader picks one of its "
					 "implementations when the program starts; trace that one by "
					 "name (internal names need the library's .symtab)",
					 term, e->display);
			} else if (o && o->kind == OTHER_IMPORTED) {
				ot_error("'%s' is not defined in %s: it is imported from a "
					 "shared library; name the library's function instead",
					 term, e->display);
			} else if (o) {
				ot_error("'%s' in %s is a data object, not a function",
					 term, e->display);
			} else {
				suggest(e, term, hint, sizeof(hint));
				ot_error("no function '%s' in %s%s", term,
					 e->display, hint);
			}
			ret = -ENOENT;
		}
	}
	free(copy);
	if (!any_include && !ret) {
		ot_error("no function named in '%s'", spec);
		ret = -ENOENT;
	}
	if (ret)
		goto out;
	copy = ot_xstrdup(spec);
	cursor = copy;
	while ((term = next_term(&cursor))) {
		if (*term != '!')
			continue;
		for (i = 0; i < e->nsyms; i++)
			if (matches(&e->syms[i], term + 1, 1))
				chosen[i] = 0;
	}
	free(copy);

	/* Report in the order the user named them, names within a glob sorted. */
	order = ot_xcalloc(e->nsyms ? e->nsyms : 1, sizeof(*order));
	for (k = 1; k <= nterm; k++)
		for (i = 0; i < e->nsyms; i++)
			if (chosen[i] == k)
				order[norder++] = i;

	/* Merge names at one offset: the kernel would count one hit twice. */
	out->fn = ot_xcalloc(e->nsyms ? e->nsyms : 1, sizeof(*out->fn));
	for (k = 0; k < norder; k++) {
		i = order[k];
		out->requested++;
		for (j = 0; j < out->n; j++)
			if (out->fn[j].sym->offset == e->syms[i].offset)
				break;
		if (j < out->n) {
			struct ot_selected *s = &out->fn[j];
			char *a = NULL;

			if (asprintf(&a, "%s%s%s", s->aliases ? s->aliases : "",
				     s->aliases ? "," : "", ot_sym_display(&e->syms[i])) < 0)
				a = NULL;
			free(s->aliases);
			s->aliases = a;
			continue;
		}
		out->fn[out->n++].sym = &e->syms[i];
	}
	free(order);
	out->skipped = ot_xcalloc(e->nsyms ? e->nsyms : 1, sizeof(*out->skipped));
	for (i = 0; i < e->nsyms; i++) {
		if (!skipped[i])
			continue;
		out->skipped[out->nskipped++].sym = &e->syms[i];
		ot_verbose("%s: skipping %s: %s", e->display, ot_sym_display(&e->syms[i]),
			   e->syms[i].not_called);
	}
	if (!out->n) {
		ot_error("every function selected by '%s' is excluded", spec);
		ret = -ENOENT;
		ot_selection_free(out);
	}
out:
	free(skipped);
	free(chosen);
	return ret;
}

void ot_selection_free(struct ot_selection *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->fn[i].aliases);
	free(s->fn);
	free(s->skipped);
	memset(s, 0, sizeof(*s));
}

struct ot_binset {
	struct ot_binary *bin;	/* bin[0] is the main executable */
	size_t n;
	ot_lib_resolve_fn resolve;
	void *ctx;
};

struct ot_binset *ot_binset_new(struct ot_elf *main_elf, const char *path,
				const char *display, ot_lib_resolve_fn resolve,
				void *ctx)
{
	struct ot_binset *b = ot_xcalloc(1, sizeof(*b));

	b->bin = ot_xcalloc(1, sizeof(*b->bin));
	b->bin[0].path = ot_xstrdup(path);
	b->bin[0].display = ot_xstrdup(display);
	b->bin[0].elf = main_elf;
	b->bin[0].is_main = 1;
	b->n = 1;
	b->resolve = resolve;
	b->ctx = ctx;
	return b;
}

void ot_binset_free(struct ot_binset *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->n; i++) {
		if (!b->bin[i].is_main)
			ot_elf_close(b->bin[i].elf);
		free(b->bin[i].path);
		free(b->bin[i].display);
	}
	free(b->bin);
	free(b);
}

/* Length of term's library prefix, or 0: "libc.so.6:malloc" -> 9. */
static size_t lib_prefix(const char *term)
{
	const char *p;

	for (p = term; (p = strchr(p, ':')); p += 2) {
		if (p[1] == ':')
			continue;
		if (p > term && p[-1] == ':')
			continue;
		if (memchr(term, '/', (size_t)(p - term)) ||
		    memmem(term, (size_t)(p - term), ".so", 3))
			return (size_t)(p - term);
		return 0;
	}
	return 0;
}

/* The binary for library name, opened on first use; NULL after printing. */
static struct ot_binary *library(struct ot_binset *b, const char *name)
{
	struct ot_binary *lib;
	const char *slash;
	char *path = NULL;
	size_t i;

	if (b->resolve(b->ctx, name, &path))
		return NULL;
	for (i = 1; i < b->n; i++) {
		if (!strcmp(b->bin[i].path, path)) {
			free(path);
			return &b->bin[i];
		}
	}
	b->bin = ot_xreallocarray(b->bin, b->n + 1, sizeof(*b->bin));
	lib = &b->bin[b->n];
	memset(lib, 0, sizeof(*lib));
	lib->path = path;
	/* Shown by its file name: "libwork.so:work_add". */
	slash = strrchr(name, '/');
	lib->display = ot_xstrdup(slash ? slash + 1 : name);
	if (ot_elf_open(path, path, &lib->elf)) {
		free(lib->path);
		free(lib->display);
		return NULL;
	}
	b->n++;
	return lib;
}

static void append(char **s, const char *term, size_t len)
{
	size_t old = *s ? strlen(*s) : 0;

	*s = ot_xreallocarray(*s, old + len + 2, 1);
	if (old)
		(*s)[old++] = ',';
	memcpy(*s + old, term, len);
	(*s)[old + len] = 0;
}

int ot_binset_select(struct ot_binset *b, const char *spec,
		     struct ot_selection *out)
{
	char *copy = ot_xstrdup(spec), *cursor = copy, *term;
	char **groups = NULL, *global_excl = NULL;
	const char **keys = NULL;
	size_t ngroups = 0, g, i, *idx = NULL, *skidx = NULL;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	/* Group the terms by binary, keeping the order they came in. */
	while ((term = next_term(&cursor))) {
		int neg = *term == '!';
		size_t pre = lib_prefix(term + neg);
		char *key = pre ? ot_xstrdup(term + neg) : NULL;
		char *name = term + neg + (pre ? pre + 1 : 0);
		char buf[4096];

		if (key)
			key[pre] = 0;
		if (!*name) {
			free(key);
			continue;
		}
		if (neg && !key) {
			append(&global_excl, term, strlen(term));
			continue;
		}
		for (g = 0; g < ngroups; g++)
			if ((!key && !keys[g]) || (key && keys[g] && !strcmp(key, keys[g])))
				break;
		if (g == ngroups) {
			groups = ot_xreallocarray(groups, ngroups + 1, sizeof(*groups));
			keys = ot_xreallocarray(keys, ngroups + 1, sizeof(*keys));
			groups[ngroups] = NULL;
			keys[ngroups++] = key;
		} else {
			free(key);
		}
		snprintf(buf, sizeof(buf), "%s%s", neg ? "!" : "", name);
		append(&groups[g], buf, strlen(buf));
	}
	for (g = 0; g < ngroups && !ret; g++) {
		struct ot_binary *bin = keys[g] ? library(b, keys[g]) : &b->bin[0];
		struct ot_selection part;

		if (!bin) {
			ret = -ENOEXEC;
			break;
		}
		if (global_excl)
			append(&groups[g], global_excl, strlen(global_excl));
		if (ot_elf_select(bin->elf, groups[g], &part)) {
			ret = -ENOENT;
			break;
		}
		out->fn = ot_xreallocarray(out->fn, out->n + part.n, sizeof(*out->fn));
		idx = ot_xreallocarray(idx, out->n + part.n, sizeof(*idx));
		for (i = 0; i < part.n; i++) {
			out->fn[out->n + i] = part.fn[i];
			idx[out->n + i] = (size_t)(bin - b->bin);
		}
		out->n += part.n;
		out->requested += part.requested;
		out->skipped = ot_xreallocarray(out->skipped, out->nskipped + part.nskipped + 1,
						sizeof(*out->skipped));
		skidx = ot_xreallocarray(skidx, out->nskipped + part.nskipped + 1, sizeof(*skidx));
		for (i = 0; i < part.nskipped; i++) {
			out->skipped[out->nskipped + i] = part.skipped[i];
			skidx[out->nskipped + i] = (size_t)(bin - b->bin);
		}
		out->nskipped += part.nskipped;
		free(part.skipped);
		free(part.fn);
	}
	/* bin[] moves as libraries are added: point into it once all are open. */
	for (i = 0; !ret && i < out->n; i++)
		out->fn[i].bin = &b->bin[idx[i]];
	for (i = 0; !ret && i < out->nskipped; i++)
		out->skipped[i].bin = &b->bin[skidx[i]];
	free(idx);
	free(skidx);
	for (g = 0; g < ngroups; g++) {
		free(groups[g]);
		free((char *)keys[g]);
	}
	free(groups);
	free(keys);
	free(global_excl);
	free(copy);
	if (ret)
		ot_selection_free(out);
	return ret;
}

struct inline_walk {
	const struct ot_selection *sel;
	uint64_t *counts;
};

static void count_inlined(Dwarf_Die *die, struct inline_walk *w)
{
	Dwarf_Die child, origin;
	Dwarf_Attribute attr;

	if (dwarf_tag(die) == DW_TAG_inlined_subroutine &&
	    dwarf_attr_integrate(die, DW_AT_abstract_origin, &attr) &&
	    dwarf_formref_die(&attr, &origin)) {
		Dwarf_Attribute la;
		const char *name = NULL;
		size_t i;

		if (dwarf_attr_integrate(&origin, DW_AT_linkage_name, &la))
			name = dwarf_formstring(&la);
		if (!name)
			name = dwarf_diename(&origin);
		for (i = 0; name && i < w->sel->n; i++)
			if (!strcmp(w->sel->fn[i].sym->name, name))
				w->counts[i]++;
	}
	if (dwarf_child(die, &child) == 0) {
		do
			count_inlined(&child, w);
		while (dwarf_siblingof(&child, &child) == 0);
	}
}

int ot_elf_inlined(const char *path, const struct ot_selection *sel,
		   uint64_t *counts)
{
	struct inline_walk w = { sel, counts };
	Dwarf_Off off = 0, next;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf *dw;
	Dwfl *dwfl;
	size_t hsize;

	memset(counts, 0, sel->n * sizeof(*counts));
	dwfl = offline_module(path, &mod);
	if (!dwfl)
		return -ENODATA;
	dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	if (!dw) {
		dwfl_end(dwfl);
		return -ENODATA;
	}
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			count_inlined(&cu, &w);
		off = next;
	}
	dwfl_end(dwfl);
	return 0;
}
