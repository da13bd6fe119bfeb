/*
 * error.h - user-facing diagnostics for orbit-trace.
 *
 * Every message goes to stderr as one write, prefixed "orbit-trace: ", so
 * lines stay whole when the traced command shares the terminal.  lib/ code
 * may print with these but never exits; only main (orbit-trace.c) decides the exit status.
 */
#ifndef OT_ERROR_H
#define OT_ERROR_H

#include <stdarg.h>

/* Print "orbit-trace: MESSAGE\n". */
void ot_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "orbit-trace: MESSAGE: strerror(err)\n"; err is a positive errno. */
void ot_error_errno(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "orbit-trace: warning: MESSAGE\n" unless quiet was requested. */
void ot_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "orbit-trace: MESSAGE\n" unless quiet was requested: what a user
 * needs to act on (where --listen serves). */
void ot_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "orbit-trace: MESSAGE\n" only when verbose was requested. */
void ot_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Set how chatty ot_warn/ot_verbose are: level -1 is -q, 0 normal, > 0 -v;
 * -2 silences errors too (fuzz targets, which feed garbage on purpose).
 * This is the one piece of process-wide state outside the capture: it
 * belongs to stderr, which is process-wide too.
 */
void ot_error_set_verbosity(int level);
int ot_error_verbosity(void);

#endif
