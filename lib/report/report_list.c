/*
 * -l's listing: the functions a selection chose, grouped by file, and the
 * symbols it matched but cannot trace, so that a selection can be checked
 * before anything is armed.
 */
#include "report.h"

#include <errno.h>
#include <string.h>

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
		fprintf(f, "0x%-12llx %8llu  %s%s%s%s%s",
			(unsigned long long)fn->offset, (unsigned long long)fn->size,
			fn->symbol, fn->demangled ? "  " : "", fn->demangled ? fn->demangled : "",
			fn->aliases ? "  = " : "", fn->aliases ? fn->aliases : "");
		if (fn->inlined)
			fprintf(f, "  (also inlined at %llu call site%s: calls there are not counted)",
				(unsigned long long)fn->inlined, fn->inlined == 1 ? "" : "s");
		fputc('\n', f);
	}
	for (i = 0; i < l->nskipped; i++)
		fprintf(f, "# skipped %s:%s: %s\n", l->skipped[i].file, l->skipped[i].name,
			l->skipped[i].why);
	return ferror(f) ? -EIO : 0;
}
