/*
 * escape.c - a target's text for people, JSON and Prometheus (escape.h):
 * one UTF-8 decoder, and per format what it does with what is not
 * printable UTF-8.
 */
#include "escape.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

size_t ot_utf8_next(const char *str, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return s[0] ? 1 : 0;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
		/* No overlong form, no surrogate (U+D800..U+DFFF). */
		if (s[0] == 0xe0)
			lo = 0xa0;
		if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
		/* No overlong form, nothing past U+10FFFF. */
		if (s[0] == 0xf0)
			lo = 0x90;
		if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	/* A NUL is no continuation byte: the loop stops at it. */
	for (i = 1; i < n; i++, lo = 0x80, hi = 0xbf) {
		if (s[i] < lo || s[i] > hi)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	*cp = c;
	return n;
}

/* Where escaped text goes: a FILE, or a buffer of len bytes that takes
 * only whole pieces (then full). */
struct sink {
	FILE *f;
	char *buf;
	size_t len, used;
	int full;
};

static void put(struct sink *k, const char *p, size_t n)
{
	if (k->f) {
		fwrite(p, 1, n, k->f);
		return;
	}
	if (k->full || k->used + n >= k->len) {
		k->full = 1;
		return;
	}
	memcpy(k->buf + k->used, p, n);
	k->used += n;
	k->buf[k->used] = 0;
}

/* Code points a terminal acts on or that reorder what it shows: C0, DEL,
 * C1, and the bidirectional embeddings, overrides and isolates. */
static int unprintable(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* The escape of the first byte at s for text, or NULL: the n bytes of the
 * character at s go as they are. */
static const char *text_escape(const char *s, unsigned flags, size_t *n, char *tmp)
{
	unsigned char c = (unsigned char)*s;
	uint32_t cp = 0;

	*n = ot_utf8_next(s, &cp);
	if (c == '\n' || c == '\t') {
		*n = 1;
		return flags & OT_ESC_KEEP_LINES ? NULL : c == '\n' ? "\\n" : "\\t";
	}
	if ((flags & OT_ESC_QUOTED) && (c == '"' || c == '\\'))
		return c == '"' ? "\\\"" : "\\\\";
	if (*n && !unprintable(cp))
		return NULL;
	/* Byte by byte: a C1 control's or an override's too, so that the
	 * bytes can be told apart from valid text. */
	*n = 1;
	snprintf(tmp, 8, "\\x%02x", c);
	return tmp;
}

static void text_to(struct sink *k, const char *s, unsigned flags)
{
	char tmp[8];

	if (flags & OT_ESC_QUOTED)
		put(k, "\"", 1);
	while (s && *s && !k->full) {
		size_t n;
		const char *e = text_escape(s, flags, &n, tmp);

		if (e)
			put(k, e, strlen(e));
		else
			put(k, s, n);
		s += n;
	}
	if (flags & OT_ESC_QUOTED)
		put(k, "\"", 1);
}

void ot_escape_text(FILE *f, const char *s, unsigned flags)
{
	struct sink k = { .f = f };

	text_to(&k, s, flags);
}

/* Whether s has a byte text shows escaped (quotes aside). */
static int text_unsafe(const char *s, unsigned flags)
{
	char tmp[8];
	size_t n;

	for (; s && *s; s += n)
		if (text_escape(s, flags & ~OT_ESC_QUOTED, &n, tmp))
			return 1;
	return 0;
}

char *ot_escape_text_dup(const char *s, unsigned flags)
{
	struct sink k = { 0 };

	if (!text_unsafe(s, flags))
		return NULL;
	/* At most 4 bytes ("\xNN") per byte, and the NUL. */
	k.len = 4 * strlen(s) + 1;
	k.buf = ot_xmalloc(k.len);
	k.buf[0] = 0;
	text_to(&k, s, flags & ~OT_ESC_QUOTED);
	return k.buf;
}

const char *ot_escape_text_buf(const char *s, char *buf, size_t len)
{
	struct sink k = { .buf = buf, .len = len };

	if (!text_unsafe(s, 0))
		return s ? s : "";
	buf[0] = 0;
	text_to(&k, s, 0);
	return buf;
}

void ot_escape_json(FILE *f, const char *s)
{
	fputc('"', f);
	while (s && *s) {
		unsigned char c = (unsigned char)*s;
		uint32_t cp;
		size_t n = ot_utf8_next(s, &cp);

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else if (!n)
			fputs("\\ufffd", f);	/* what jq and Go's encoder write */
		else if (unprintable(cp))
			fprintf(f, "\\u%04x", cp);	/* DEL, C1, overrides: the same code point */
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
	}
	fputc('"', f);
}

void ot_escape_prom_label(FILE *f, const char *s)
{
	char tmp[8];

	fputc('"', f);
	while (s && *s) {
		size_t n;
		const char *e = text_escape(s, OT_ESC_QUOTED, &n, tmp);

		if (*s == '\n')
			fputs("\\n", f);
		else if (!e)
			fwrite(s, 1, n, f);
		else if (*s == '"' || *s == '\\')
			fputs(e, f);		/* \" and \\, as the formats have them */
		else
			fprintf(f, "\\%s", e);	/* the text's "\x1b", its backslash escaped */
		s += n;
	}
	fputc('"', f);
}
