/*
 * json_text.h — writing text as a JSON string, shared by the simulator's
 * and the benchmarks' JSON output (tools/gpualloc-sim.c, bench_forecast.c,
 * bench_report.c).
 */
#ifndef GPUALLOC_JSON_TEXT_H
#define GPUALLOC_JSON_TEXT_H

#include <stdio.h>

/*
 * s in double quotes, with '"' and '\' escaped, control bytes as \u00XX
 * and each byte that is not part of well-formed UTF-8 as \ufffd, so the
 * output is valid JSON whatever bytes a name holds.
 */
void		json_write_string(FILE *out, const char *s);

/*
 * The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0 when there is none.
 */
int			utf8_sequence(const unsigned char *s);

#endif
