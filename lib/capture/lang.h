/*
 * lang.h - what --lang's runtime needs of the target before anything is
 * armed, so that a capture where nothing can fire is refused saying why
 * instead of reporting 0 calls as ok: a -p process must run the runtime
 * (its file mapped), and, for php8.2, have USE_ZEND_DTRACE non-zero in the
 * environment it started with (/proc/PID/environ; a command's is
 * orbit-trace's own, checked when the command is the runtime itself - a
 * wrapper may set it before it execs php).  Prints and returns
 * OT_CAPTURE_BAD_INPUT (exit status 2), else OT_CAPTURE_OK.
 */
#ifndef OT_LANG_H
#define OT_LANG_H

#include "capture.h"

enum ot_capture_result ot_capture_lang_check(struct ot_capture *c);

/* At the end, judging: a runtime whose entry probe never fired, and that
 * has a reason for it (ruby's TracePoint), gets that reason said. */
void ot_capture_lang_judge(struct ot_capture *c);

/* After -f missed in a program that is a runtime --lang knows (php8.2,
 * python3, ruby) and without --lang: a note that --lang traces a script's
 * functions. */
void ot_capture_lang_hint(const struct ot_capture *c);

#endif
