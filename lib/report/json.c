/* json.c - JSON strings for the report and the exports (json.h). */
#include "json.h"
#include "util/escape.h"

void ot_json_string(FILE *f, const char *s)
{
	ot_escape_json(f, s);
}

void ot_json_string_or_null(FILE *f, const char *s)
{
	if (s)
		ot_json_string(f, s);
	else
		fputs("null", f);
}
