/*
 * restore.h - orbit-trace --restore -p PID: no capture; take back what
 * an orbit-trace that was killed left in the process (lib/inject/inject's
 * recovery table says what), and say what was done, as text or JSON, to
 * -o or stdout.  Called by main instead of a capture.
 */
#ifndef OT_RESTORE_H
#define OT_RESTORE_H

#include "capture.h"

/* o's pid, output and json are read.  OT_CAPTURE_DONE, or
 * OT_CAPTURE_FAILED after printing why (the process cannot be held, the
 * report cannot be written, or bytes were kept). */
enum ot_capture_result ot_capture_restore(const struct ot_capture_opts *o);

#endif
