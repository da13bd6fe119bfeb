/*
 * A target's text for each output (lib/util/escape): UTF-8 decoded as
 * Unicode's table 3-7 says, escaped for people, JSON and Prometheus, with
 * the bytes a hostile process puts in its name and strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/escape.h"

/* What a process named itself with prctl(PR_SET_NAME): a window title,
 * BEL, a newline, bytes that are not UTF-8, a C1 CSI (U+009B). */
static const char comm[] = "\x1b]0;pwn\x07\n\xff\xc3(\xc2\x9b" "2J";

static char *text(const char *s, unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ot_escape_text(f, s, flags);
	fclose(f);
	return buf;
}

static char *json(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ot_escape_json(f, s);
	fclose(f);
	return buf;
}

static char *prom(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ot_escape_prom_label(f, s);
	fclose(f);
	return buf;
}

static void test_utf8(void **state)
{
	uint32_t cp = 0;

	(void)state;
	assert_int_equal(ot_utf8_next("a", &cp), 1);
	assert_int_equal(cp, 'a');
	assert_int_equal(ot_utf8_next("\xc3\xa9", &cp), 2);
	assert_int_equal(cp, 0xe9);
	assert_int_equal(ot_utf8_next("\xe2\x82\xac", &cp), 3);
	assert_int_equal(cp, 0x20ac);
	assert_int_equal(ot_utf8_next("\xf0\x9f\x98\x80", &cp), 4);
	assert_int_equal(cp, 0x1f600);
	/* Not UTF-8: a stray continuation, an overlong NUL and '/', a
	 * surrogate, past U+10FFFF, a truncated sequence, C0/C1 lead bytes. */
	assert_int_equal(ot_utf8_next("\x80", &cp), 0);
	assert_int_equal(ot_utf8_next("\xc0\x80", &cp), 0);
	assert_int_equal(ot_utf8_next("\xe0\x80\xaf", &cp), 0);
	assert_int_equal(ot_utf8_next("\xed\xa0\x80", &cp), 0);
	assert_int_equal(ot_utf8_next("\xf4\x90\x80\x80", &cp), 0);
	assert_int_equal(ot_utf8_next("\xe2\x82", &cp), 0);
	assert_int_equal(ot_utf8_next("\xf5\x80\x80\x80", &cp), 0);
	assert_int_equal(ot_utf8_next("", &cp), 0);
}

static void test_text(void **state)
{
	char *s = text(comm, 0), buf[16];

	(void)state;
	assert_string_equal(s, "\\x1b]0;pwn\\x07\\n\\xff\\xc3(\\xc2\\x9b2J");
	free(s);
	/* Printable UTF-8 stays; a bidirectional override does not. */
	s = text("caf\xc3\xa9 \xe2\x80\xae" "gnp.exe", 0);
	assert_string_equal(s, "caf\xc3\xa9 \\xe2\\x80\\xaegnp.exe");
	free(s);
	s = text("App\\Foo \"x\"\t", OT_ESC_QUOTED);
	assert_string_equal(s, "\"App\\\\Foo \\\"x\\\"\\t\"");
	free(s);
	s = text("two\nlines\tand \x1b[2J", OT_ESC_KEEP_LINES);
	assert_string_equal(s, "two\nlines\tand \\x1b[2J");
	free(s);
	/* Clean text is not copied; escaped text is cut at a whole escape. */
	assert_null(ot_escape_text_dup("outer", 0));
	assert_string_equal(ot_escape_text_buf("outer", buf, sizeof(buf)), "outer");
	assert_string_equal(ot_escape_text_buf(comm, buf, sizeof(buf)), "\\x1b]0;pwn\\x07");
	s = ot_escape_text_dup(comm, 0);
	assert_string_equal(s, "\\x1b]0;pwn\\x07\\n\\xff\\xc3(\\xc2\\x9b2J");
	free(s);
}

static void test_json(void **state)
{
	char *s = json(comm);

	(void)state;
	assert_string_equal(s, "\"\\u001b]0;pwn\\u0007\\u000a\\ufffd\\ufffd(\\u009b2J\"");
	free(s);
	s = json("caf\xc3\xa9 \"q\" \\ \x7f");
	assert_string_equal(s, "\"caf\xc3\xa9 \\\"q\\\" \\\\ \\u007f\"");
	free(s);
	s = json(NULL);
	assert_string_equal(s, "\"\"");
	free(s);
}

static void test_prom(void **state)
{
	char *s = prom(comm);

	(void)state;
	/* Only \\, \" and \n are escapes there: the rest is the text's
	 * escape, its backslash escaped, all of it ASCII. */
	assert_string_equal(s, "\"\\\\x1b]0;pwn\\\\x07\\n\\\\xff\\\\xc3(\\\\xc2\\\\x9b2J\"");
	free(s);
	s = prom("App\\Foo \"caf\xc3\xa9\"\t");
	assert_string_equal(s, "\"App\\\\Foo \\\"caf\xc3\xa9\\\"\\\\t\"");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_prom),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
