/*
 * -l's listing: the functions a selection chose, grouped by file, the
 * symbols it matched but cannot trace, and the USDT probes it chose, so
 * that a selection can be checked before anything is armed.
 */
#include "report.h"
#include "util/escape.h"

#include <errno.h>
#include <string.h>

/* The USDT probes, grouped by file: a row each, a line per site. */
static void probes_list(FILE *f, const struct ot_list *l)
{
	const char *shown = NULL;
	size_t i, k, n;

	for (i = 0; i < l->nprobes; i++) {
		const struct ot_list_probe *p = &l->probes[i];
		char name[256], esc[1024];

		if (!shown || strcmp(p->file, shown)) {
			shown = p->file;
			for (n = i; n < l->nprobes && !strcmp(l->probes[n].file, shown); n++)
				;
			fprintf(f, "# %s: %zu USDT probe%s\n# %-30s %5s  %s\n", shown, n - i,
				n - i == 1 ? "" : "s", "PROVIDER:NAME", "SITES",
				"SEMAPHORE (ADDRESS, FILE OFFSET)");
		}
		/* Names and argument specs from the file's notes: escaped. */
		snprintf(name, sizeof(name), "%s:%s", p->provider, p->name);
		fprintf(f, "%-32s %5zu  ", ot_escape_text_buf(name, esc, sizeof(esc)), p->nsites);
		if (p->sema_addr)
			fprintf(f, "0x%llx (file offset 0x%llx)\n", (unsigned long long)p->sema_addr,
				(unsigned long long)p->sema_offset);
		else
			fprintf(f, "-\n");
		for (k = 0; k < p->nsites; k++) {
			fprintf(f, "    at 0x%llx (file offset 0x%llx)%s",
				(unsigned long long)p->sites[k].addr,
				(unsigned long long)p->sites[k].offset,
				*p->sites[k].args ? ": " : ": no arguments");
			ot_escape_text(f, p->sites[k].args, 0);
			fputc('\n', f);
		}
	}
}

int ot_report_list(FILE *f, const struct ot_list *l)
{
	const char *shown = NULL;
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct ot_list_fn *fn = &l->fn[i];

		if (!shown || strcmp(fn->file, shown)) {
			shown = fn->file;
			fprintf(f, "# %s: %zu functions in .%s\n# %-12s %8s  %s\n",
				fn->file, fn->file_functions, fn->file_source,
				"OFFSET", "SIZE", "SYMBOL  [DEMANGLED]  [= ALIASES]");
		}
		/* The file's names, escaped: the file may be anyone's. */
		fprintf(f, "0x%-12llx %8llu  ", (unsigned long long)fn->offset,
			(unsigned long long)fn->size);
		ot_escape_text(f, fn->symbol, 0);
		if (fn->demangled) {
			fputs("  ", f);
			ot_escape_text(f, fn->demangled, 0);
		}
		if (fn->aliases) {
			fputs("  = ", f);
			ot_escape_text(f, fn->aliases, 0);
		}
		if (fn->inlined)
			fprintf(f, "  (also inlined at %llu call site%s: calls there are not counted)",
				(unsigned long long)fn->inlined, fn->inlined == 1 ? "" : "s");
		fputc('\n', f);
	}
	for (i = 0; i < l->nskipped; i++) {
		fprintf(f, "# skipped %s:", l->skipped[i].file);
		ot_escape_text(f, l->skipped[i].name, 0);
		fprintf(f, ": %s\n", l->skipped[i].why);
	}
	probes_list(f, l);
	return ferror(f) ? -EIO : 0;
}
