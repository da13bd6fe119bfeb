/*
 * orbit-trace --restore's report: what a killed orbit-trace had left in a
 * process, and what of it was taken back, as text and as JSON.
 */
#include "report.h"
#include "json.h"
#include "util/escape.h"

#include <inttypes.h>

void ot_report_restore_text(FILE *f, const struct ot_report_restore *r)
{
	char comm[128];	/* the process's own name: escaped for a terminal */
	const char *c = ot_escape_text_buf(r->comm, comm, sizeof(comm));

	if (!r->found) {
		fprintf(f, "process %d (%s): nothing of orbit-trace's to restore\n", r->pid, c);
		return;
	}
	fprintf(f, "process %d (%s): left instrumented by orbit-trace process %d, which is gone\n",
		r->pid, c, r->tracer);
	fprintf(f, "restored: %zu of %zu patched entr%s (checked against their files), "
		"%zu return address%s\n", r->restored, r->patches, r->patches == 1 ? "y" : "ies",
		r->returns_restored, r->returns_restored == 1 ? "" : "es");
	if (r->semaphores)
		fprintf(f, "semaphores: %zu of %zu USDT semaphore%s lowered\n", r->semaphores_lowered,
			r->semaphores, r->semaphores == 1 ? "" : "s");
	if (r->kept)
		fprintf(f, "kept: %zu entr%s: %s\n", r->kept, r->kept == 1 ? "y" : "ies", r->kept_why);
	/* The regions' reserved size, not memory used (issue 34: "unmapped
	 * 16644.4 MB" read as that much memory). */
	fprintf(f, "unmapped: %.1f MB of address space", (double)r->unmapped_bytes / 1048576.0);
	if (r->left_bytes)
		fprintf(f, " (%.1f MB left mapped: %s)", (double)r->left_bytes / 1048576.0,
			r->left_why ? r->left_why : "?");
	fputc('\n', f);
}

void ot_report_restore_json(FILE *f, const struct ot_report_restore *r)
{
	fprintf(f, "{\"type\": \"restore\", \"version\": %d, \"pid\": %d, \"comm\": ",
		OT_JSON_VERSION, r->pid);
	ot_json_string(f, r->comm);
	fprintf(f, ", \"found\": %s, \"tracer\": %d, \"patches\": %zu, \"restored\": %zu, "
		"\"kept\": %zu, \"kept_why\": ", r->found ? "true" : "false", r->tracer, r->patches,
		r->restored, r->kept);
	ot_json_string_or_null(f, r->kept_why);
	fprintf(f, ", \"returns_restored\": %zu, \"semaphores\": %zu, \"semaphores_lowered\": %zu, "
		"\"unmapped_bytes\": %" PRIu64 ", \"left_mapped_bytes\": %" PRIu64 ", \"left_why\": ",
		r->returns_restored, r->semaphores, r->semaphores_lowered, r->unmapped_bytes,
		r->left_bytes);
	ot_json_string_or_null(f, r->left_why);
	fputs("}\n", f);
}
