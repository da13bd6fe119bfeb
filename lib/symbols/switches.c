/*
 * Whether a process may switch stacks, from the symbols its files import
 * and define (libelf): the one question lib/probes/plan asks before it
 * gives a function a return probe.
 */
#include "switches.h"
#include "elffile.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Is sym (perhaps "name@VERSION", as .symtab spells an import) one of names? */
static const char *one_of(const char *sym, const char *const *names)
{
	size_t k, len = strcspn(sym, "@");

	for (k = 0; names[k]; k++)
		if (strlen(names[k]) == len && !strncmp(sym, names[k], len))
			return names[k];
	return NULL;
}

static const char *const contexts[] = { "swapcontext", "setcontext", "makecontext", NULL };
/* Fiber libraries' switches: boost.context (PHP's fibers too), libco,
 * libaco, marl. */
static const char *const fibers[] = {
	"jump_fcontext", "ontop_fcontext", "coctx_swap", "acosw", "marl_fiber_swap", NULL,
};
static const char *const setjmps[] = { "setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", NULL };
static const char *const longjmps[] = {
	"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", NULL,
};

/* One symbol's part in what the file says. */
static void note(const char *name, int undef, int is_program, struct ot_switch_file *out)
{
	const char *hit;

	if (!*name)
		return;
	if (!out->call && (hit = one_of(name, fibers)))
		out->call = hit;
	if (!out->call && (undef || is_program) && (hit = one_of(name, contexts)))
		out->call = hit;
	if (!undef)
		return;
	if (one_of(name, (const char *const[]){ "sigaltstack", NULL }))
		out->altstack = 1;
	if (one_of(name, setjmps))
		out->setjmp = 1;
	if (one_of(name, longjmps))
		out->longjmp = 1;
}

/* Every symbol of one table (SHT_DYNSYM or SHT_SYMTAB). */
static void scan_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, int is_program,
		       struct ot_switch_file *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;

	if (!data || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &s) ||
		    !(name = elf_strptr(elf, sh->sh_link, s.st_name)))
			continue;
		type = GELF_ST_TYPE(s.st_info);
		if (s.st_shndx == SHN_UNDEF)
			note(name, 1, is_program, out);
		else if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE)
			note(name, 0, is_program, out);
	}
}

int ot_switch_scan(const char *path, int is_program, struct ot_switch_file *out)
{
	struct ot_elf_file *f;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = ot_elf_file_open(path, 0, &f)))
		return ret;
	elf = ot_elf_file_elf(f);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB))
			scan_table(elf, scn, &sh, is_program, out);
	ot_elf_file_close(f);
	return 0;
}

int ot_switch_process(const char *const *paths, const char *const *names, size_t n,
		      char *why, size_t len)
{
	const char *alt = NULL, *sj = NULL, *lj = NULL;
	size_t k;

	for (k = 0; k < n; k++) {
		struct ot_switch_file f;

		if (!paths[k] || ot_switch_scan(paths[k], k == 0, &f))
			continue;
		if (f.call) {
			snprintf(why, len, "%s, in %s", f.call, names[k]);
			return 1;
		}
		alt = alt ? alt : f.altstack ? names[k] : NULL;
		sj = sj ? sj : f.setjmp ? names[k] : NULL;
		lj = lj ? lj : f.longjmp ? names[k] : NULL;
	}
	if (!alt || !sj || !lj)
		return 0;
	if (!strcmp(alt, sj) && !strcmp(sj, lj))
		snprintf(why, len, "sigaltstack, setjmp and longjmp, in %s", alt);
	else
		snprintf(why, len, "sigaltstack, in %s, setjmp, in %s, and longjmp, in %s",
			 alt, sj, lj);
	return 1;
}
