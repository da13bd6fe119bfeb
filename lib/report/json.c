#include "json.h"

void ot_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void ot_json_string_or_null(FILE *f, const char *s)
{
	if (s)
		ot_json_string(f, s);
	else
		fputs("null", f);
}
