/*
 * capture_report.h - what a capture's report says, put together from the
 * capture's parts: the verdict's reasons, every figure of struct
 * ot_report, the backend's own account; and -l's listing of a selection.
 *
 * Only lib/capture/capture calls these, in its steps' order: at the end, with the
 * probes disabled and drained but not yet disarmed (the report reads
 * them), backend_said, then judge, then fill_report; outputs once the
 * report is printed.  They print nothing but -l's listing and what
 * outputs says; nothing here fails but a write.
 */
#ifndef OT_CAPTURE_REPORT_H
#define OT_CAPTURE_REPORT_H

#include "capture.h"

#include <stddef.h>
#include <stdint.h>

struct ot_report;

/* What the backend says of its part (c->said: why some counts are not
 * exact; what an in-process backend did) and the functions it did not
 * arm in the program the process runs last (c->refused). */
void ot_capture_backend_said(struct ot_capture *c);

/* The verdict (c->check): --expect, --max-loss, the pairing's check, and
 * every loss the backends or --returns insn reported. */
void ot_capture_judge(struct ot_capture *c);

/* c->rep, read while the probes and rings still exist. */
void ot_capture_fill_report(struct ot_capture *c);

/* -a: the name process pid had when the probes saw it (the backend's,
 * or the rings' record of its exec): 0, or -ENOENT. */
int ot_capture_seen_comm(struct ot_capture *c, uint32_t pid, char *buf, size_t len);

/* While the capture runs, what its metrics say (lib/capture/metrics): the
 * functions' rows and counts so far, the records, the rows per process;
 * r->check NULL.  Free with ot_capture_snapshot_free. */
void ot_capture_snapshot(struct ot_capture *c, struct ot_report *r);
void ot_capture_snapshot_free(struct ot_report *r);

/*
 * The exports finished (--folded written, --trace closed), the report's
 * write checked, a failed verdict's reasons said.  OT_CAPTURE_OK,
 * OT_CAPTURE_FAILED or OT_CAPTURE_CHECK_FAILED, printed.
 */
enum ot_capture_result ot_capture_outputs(struct ot_capture *c);

/* -l: the selection listed to c->out.  OT_CAPTURE_DONE, or
 * OT_CAPTURE_FAILED when it could not be written. */
enum ot_capture_result ot_capture_list(struct ot_capture *c);

#endif
