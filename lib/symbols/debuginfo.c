#include "debuginfo.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEBUG_DIR OT_DEBUG_DIR

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

int ot_debuginfo_file(const char *path, char **debugfile)
{
	const char *file = NULL;
	Dwfl_Module *mod;
	Dwfl *dwfl = offline_module(path, &mod);

	*debugfile = NULL;
	if (!dwfl)
		return -ENODATA;
	/* Looking for the symbol table makes libdwfl look for the debug file. */
	if (mod && dwfl_module_getsymtab(mod) > 0)
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &file);
	if (file)
		*debugfile = strdup(file);
	dwfl_end(dwfl);
	return *debugfile ? 0 : -ENODATA;
}

struct inline_walk {
	const char *const *names;
	size_t n;
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
		for (i = 0; name && i < w->n; i++)
			if (!strcmp(w->names[i], name))
				w->counts[i]++;
	}
	if (dwarf_child(die, &child) == 0) {
		do
			count_inlined(&child, w);
		while (dwarf_siblingof(&child, &child) == 0);
	}
}

int ot_debuginfo_inlined(const char *path, const char *const *names, size_t n,
			 uint64_t *counts)
{
	struct inline_walk w = { names, n, counts };
	Dwarf_Off off = 0, next;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf *dw;
	Dwfl *dwfl;
	size_t hsize;

	memset(counts, 0, n * sizeof(*counts));
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
