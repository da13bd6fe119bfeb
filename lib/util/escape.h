/*
 * escape.h - text a traced program controls, made harmless wherever
 * orbit-trace writes it: its process name (comm, any 15 bytes through
 * prctl(PR_SET_NAME)), the strings it passes (:str), names and paths read
 * from its files.  Such text may hold any byte but NUL: terminal controls
 * (ESC sequences that set a window title or clear the screen, BEL), C1
 * controls, newlines that forge report lines, bytes that are not UTF-8
 * (which JSON and Prometheus readers refuse).
 *
 *   text, for people: printable UTF-8 as it is; every other byte as C
 *     writes it ("\n", "\t", "\x1b"), the bytes of C1 controls, of
 *     bidirectional overrides (U+202A..U+202E, U+2066..U+2069) and of
 *     sequences that are not UTF-8 included; quoted, in double quotes
 *     with a quote and a backslash escaped too;
 *   JSON: RFC 8259's escapes, each byte that is not UTF-8 as \ufffd,
 *     DEL, C1 controls and bidirectional overrides as \uXXXX (the same
 *     code points, harmless to a terminal that shows the file);
 *   Prometheus label values: backslash, double quote and newline as the
 *     exposition formats escape them (they have no other escape); every
 *     other byte the text escapes as the text writes it, its backslash
 *     escaped ("\x1b" in the file, the value's 4 characters \x1b).
 *
 * Pure: no state, nothing written but to the FILE or buffer given, never
 * fails (ot_x* allocation).
 */
#ifndef OT_ESCAPE_H
#define OT_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ot_escape_text's flags. */
#define OT_ESC_QUOTED 1		/* in double quotes, '"' and '\\' escaped */
#define OT_ESC_KEEP_LINES 2	/* '\n' and '\t' as they are (a message's own lines) */

/*
 * The well-formed UTF-8 sequence that starts at s (Unicode's table 3-7:
 * no overlong form, no surrogate, nothing past U+10FFFF): its length, 1
 * to 4, and its code point in *cp; 0 when s does not start one (and at
 * the terminating NUL).  Reads no byte past a NUL.
 */
size_t ot_utf8_next(const char *s, uint32_t *cp);

/* s (NULL as "") for text, into f. */
void ot_escape_text(FILE *f, const char *s, unsigned flags);

/* s for text: NULL when it needs no escape (print s itself), else its
 * escaped form, malloc'd (the caller frees it). */
char *ot_escape_text_dup(const char *s, unsigned flags);

/* s for text: s itself when it needs no escape, else its escaped form in
 * buf, cut at a whole character or escape to fit len bytes (len > 0). */
const char *ot_escape_text_buf(const char *s, char *buf, size_t len);

/* s (NULL as "") as a JSON string literal, quotes included. */
void ot_escape_json(FILE *f, const char *s);

/* s (NULL as "") as a Prometheus label value, quotes included. */
void ot_escape_prom_label(FILE *f, const char *s);

#endif
