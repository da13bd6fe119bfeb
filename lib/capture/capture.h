/*
 * capture.h - one capture's life cycle: the engine behind orbit-trace's
 * main.
 *
 *   open    the report's output, SIGINT/SIGTERM as events, the target
 *           (-p PID found, -- CMD looked up), the selection resolved in its
 *           files (-l: printed, and the capture is done)
 *   arm     capabilities checked, --compensate calibrated, the command
 *           forked and held, the probes armed and enabled, capabilities
 *           dropped, the command released
 *   run     rings drained into scopes until the target exits, -d passes or
 *           a signal comes; the live status line on a terminal
 *   report  probes disabled, the rest drained, pairing finished, the
 *           verdict, the report written, the probes disarmed (the text
 *           report before, JSON after, to carry the cost), exports closed
 *   free    whatever is still held released: probes disarmed, a frozen
 *           target thawed, a held command stopped
 *
 * Every step prints its own errors (naming the object and the reason) and
 * returns a result; nothing here exits.  main maps results to exit
 * statuses.  Steps run in this order; after a result other than
 * OT_CAPTURE_OK only ot_capture_free is called.
 */
#ifndef OT_CAPTURE_H
#define OT_CAPTURE_H

#include "cli/options.h"

enum ot_capture_result {
	OT_CAPTURE_OK,		/* go on to the next step */
	OT_CAPTURE_DONE,	/* nothing more to do (-l) */
	OT_CAPTURE_FAILED,	/* a runtime failure, printed */
	OT_CAPTURE_BAD_INPUT,	/* something named cannot be traced, printed */
	OT_CAPTURE_CHECK_FAILED, /* --expect, --max-loss or the pairing's check */
};

struct ot_capture;

/* o is copied; what it points to (argv, --expect) must outlive the capture.
 * sigpipe_ignored: SIGPIPE as a started command gets it. */
struct ot_capture *ot_capture_new(const struct ot_options *o, int sigpipe_ignored);
enum ot_capture_result ot_capture_open(struct ot_capture *c);
enum ot_capture_result ot_capture_arm(struct ot_capture *c);
enum ot_capture_result ot_capture_run(struct ot_capture *c);
enum ot_capture_result ot_capture_report(struct ot_capture *c);
void ot_capture_free(struct ot_capture *c);

#endif
