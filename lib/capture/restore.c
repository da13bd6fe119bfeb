#include "restore.h"
#include "util/error.h"
#include "inject/inject.h"
#include "process/procfs.h"
#include "report/report.h"
#include "process/target.h"

#include <errno.h>
#include <stdio.h>

enum ot_capture_result ot_capture_restore(const struct ot_options *o)
{
	struct ot_inject_recovery rec;
	struct ot_report_restore r;
	char comm[32];
	struct ot_target t;
	FILE *out = stdout;
	int bad;

	/* No such process, a kernel thread, a zombie: said as for -p. */
	if (ot_target_attach(&t, o->pid))
		return OT_CAPTURE_FAILED;
	ot_target_fini(&t);
	if (ot_proc_comm(o->pid, comm, sizeof(comm)))
		snprintf(comm, sizeof(comm), "?");
	if (ot_inject_restore(o->pid, &rec))
		return OT_CAPTURE_FAILED;
	if (o->output && !(out = fopen(o->output, "we"))) {
		ot_error_errno(errno, "cannot open %s", o->output);
		return OT_CAPTURE_FAILED;
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
	bad = fflush(out) || ferror(out);
	if (out != stdout)
		bad |= fclose(out);
	if (bad) {
		ot_error("cannot write the report%s%s", o->output ? " to " : "",
			 o->output ? o->output : "");
		return OT_CAPTURE_FAILED;
	}
	return rec.kept ? OT_CAPTURE_FAILED : OT_CAPTURE_DONE;
}
