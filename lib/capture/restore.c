/*
 * restore.c - --restore -p PID: what a killed orbit-trace left in a process
 * taken back through the backends' recovery (lib/probes), and said as text
 * or JSON (restore.h).
 */
#include "restore.h"
#include "util/error.h"
#include "probes/probes.h"
#include "process/procfs.h"
#include "report/report.h"
#include "process/target.h"
#include "util/outfile.h"

#include <errno.h>
#include <stdio.h>

enum ot_capture_result ot_capture_restore(const struct ot_capture_opts *o)
{
	struct ot_probes_restored rec;
	struct ot_report_restore r;
	char comm[32];
	struct ot_target t;
	struct ot_outfile *of = NULL;
	FILE *out = stdout;
	int bad;

	/* No such process, a kernel thread, a zombie: said as for -p. */
	if (ot_target_attach(&t, o->pid))
		return OT_CAPTURE_FAILED;
	ot_target_fini(&t);
	if (ot_proc_comm(o->pid, comm, sizeof(comm)))
		snprintf(comm, sizeof(comm), "?");
	if (ot_probes_restore(o->pid, &rec))
		return OT_CAPTURE_FAILED;
	if (o->output) {
		if (ot_outfile_open(o->output, &of))
			return OT_CAPTURE_FAILED;
		out = ot_outfile_stream(of);
	}
	r = (struct ot_report_restore){
		.pid = o->pid, .comm = comm, .found = rec.found, .tracer = rec.tracer,
		.patches = rec.patches, .restored = rec.restored, .kept = rec.kept,
		.kept_why = rec.kept ? rec.why : NULL, .returns_restored = rec.returns_restored,
		.semaphores = rec.semaphores, .semaphores_lowered = rec.semaphores_lowered,
		.unmapped_bytes = rec.unmapped_bytes, .left_bytes = rec.left_bytes,
		.left_why = rec.left_why,
	};
	if (o->json)
		ot_report_restore_json(out, &r);
	else
		ot_report_restore_text(out, &r);
	/* -o's file says why itself when it cannot be written. */
	bad = of ? ot_outfile_close(of, 1) != 0 : fflush(out) || ferror(out);
	if (bad) {
		if (!of)
			ot_error("cannot write the report");
		return OT_CAPTURE_FAILED;
	}
	return rec.kept ? OT_CAPTURE_FAILED : OT_CAPTURE_DONE;
}
