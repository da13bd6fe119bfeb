/*
 * json.h - the little JSON writing report and export share: strings
 * escaped per RFC 8259 (quotes, backslashes, control characters), always
 * valid UTF-8 (a byte that is not is written \ufffd: lib/util/escape).
 */
#ifndef OT_JSON_H
#define OT_JSON_H

#include <stdio.h>

/* s as a JSON string literal, quotes included; NULL as "". */
void ot_json_string(FILE *f, const char *s);
/* The same, but NULL as null: a field that may have no value. */
void ot_json_string_or_null(FILE *f, const char *s);

#endif
