/*
 * json_text.c — see json_text.h.
 */
#include "json_text.h"

void
json_write_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++)
	{
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char) *s < 0x20)
			fprintf(out, "\\u%04x", (unsigned char) *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}
