/* Reading gpubench result files ("xgpu.gpubench/1") for the report: one
 * JSON text from memory into rows. Separate from the report's output, and
 * free of xgpu, so that it can be fuzzed (tests/fuzz/fuzz_report.c). */
#ifndef XGPU_GPUBENCH_REPORT_READ_H
#define XGPU_GPUBENCH_REPORT_READ_H

#include <stdbool.h>
#include <stddef.h>

/* The largest result file the report reads; a --full run on a large
 * machine writes well under 1 MiB. */
#define GB_REPORT_MAX_BYTES ((size_t)64 << 20)

typedef struct gb_row {
    char host[128], bench[16], impl[16], device[48], device_name[128], dtype[8], shape[64],
        unit[12];
    double size; /* -1 when the file has null */
    double rate; /* -1 when the file has null (the case did not run) */
    bool verified;
} gb_row;

typedef struct gb_table {
    gb_row *rows;
    size_t count, cap;
} gb_table;

/* Parses one result file's text (`len` bytes, no NUL needed) and appends
 * its rows to `t`. 0, or -1 with a message in `why` that names the key and
 * what was wrong ("results[3].gbs: expected a number or null"); the caller
 * adds the file name. On failure `t` holds the rows it had before. Longer
 * strings than a row holds are cut. Not thread-safe (cJSON's error
 * pointer). */
int gb_report_parse(const char *text, size_t len, gb_table *t, char *why, size_t why_size);

/* Frees the rows; `t` is empty and reusable afterwards. */
void gb_table_free(gb_table *t);

#endif
