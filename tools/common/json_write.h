/* JSON values as the tools write them: gpuinfo's document, gpubench's
 * results and report, and the telemetry object share these spellings. */
#ifndef XGPU_TOOLS_JSON_WRITE_H
#define XGPU_TOOLS_JSON_WRITE_H

#include <stdio.h>

/* `s` as a quoted JSON string: quotes, backslashes and control characters
 * escaped, invalid UTF-8 written as U+FFFD. */
void jw_string(FILE *out, const char *s);
/* A finite number as %.9g; null when it is NaN or infinite. */
void jw_number(FILE *out, double v);

#endif
