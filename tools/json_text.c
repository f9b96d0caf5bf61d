/*
 * json_text.c — see json_text.h.
 */
#include "json_text.h"

int
utf8_sequence(const unsigned char *s)
{
	unsigned char lo = 0x80,
				hi = 0xBF;
	int			n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
	{
		n = 3;
		lo = s[0] == 0xE0 ? 0xA0 : 0x80;
		hi = s[0] == 0xED ? 0x9F : 0xBF;
	}
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
	{
		n = 4;
		lo = s[0] == 0xF0 ? 0x90 : 0x80;
		hi = s[0] == 0xF4 ? 0x8F : 0xBF;
	}
	else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

void
json_write_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *) s;

	fputc('"', out);
	while (*p)
	{
		int			n = utf8_sequence(p);

		if (n == 0)
		{
			/* JSON text is UTF-8: a stray byte (a Latin-1 name) is U+FFFD */
			fputs("\\ufffd", out);
			p++;
		}
		else if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p++);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p++);
		else
		{
			fwrite(p, 1, (size_t) n, out);
			p += n;
		}
	}
	fputc('"', out);
}
