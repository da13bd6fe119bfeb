/* error.c - every message orbit-trace prints, one write each (error.h). */
#include "error.h"
#include "escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int verbosity;

void ot_error_set_verbosity(int level)
{
	verbosity = level;
}

int ot_error_verbosity(void)
{
	return verbosity;
}

/*
 * Format into one buffer and write it with a single fputs: the traced
 * command may be writing to the same terminal, and a message split over
 * several writes can be interleaved with its output.  A message may name
 * what a target controls (a function of its files, a path, its name):
 * terminal controls and bytes that are not UTF-8 are escaped
 * (lib/util/escape), the message's own lines kept.
 */
static void emit(const char *prefix, int err, const char *fmt, va_list ap)
{
	char *msg = NULL;
	char *line = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	if (err > 0) {
		if (asprintf(&line, "orbit-trace: %s%s: %s\n", prefix,
			     msg ? msg : fmt, err == 524 ?
			     /* the kernel's ENOTSUPP, which libc does not name */
			     "the kernel cannot probe the instruction there (ENOTSUPP)" :
			     strerror(err)) < 0)
			line = NULL;
	} else if (asprintf(&line, "orbit-trace: %s%s\n", prefix,
			    msg ? msg : fmt) < 0) {
		line = NULL;
	}
	if (line) {
		char *safe = ot_escape_text_dup(line, OT_ESC_KEEP_LINES);

		if (safe) {
			free(line);
			line = safe;
		}
	}
	fputs(line ? line : "orbit-trace: out of memory\n", stderr);
	free(line);
	free(msg);
}

void ot_error(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < -1)
		return;
	va_start(ap, fmt);
	emit("", 0, fmt, ap);
	va_end(ap);
}

void ot_error_errno(int err, const char *fmt, ...)
{
	va_list ap;

	if (verbosity < -1)
		return;
	va_start(ap, fmt);
	emit("", err, fmt, ap);
	va_end(ap);
}

void ot_warn(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	emit("warning: ", 0, fmt, ap);
	va_end(ap);
}

void ot_note(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	emit("", 0, fmt, ap);
	va_end(ap);
}

void ot_verbose(const char *fmt, ...)
{
	va_list ap;

	if (verbosity <= 0)
		return;
	va_start(ap, fmt);
	emit("", 0, fmt, ap);
	va_end(ap);
}
