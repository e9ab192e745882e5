/* libFuzzer target: bytes as one gpubench result file, read by the report's
 * parser (tools/gpubench/report_read.c). Any input must give rows or an
 * error message, never a crash, a leak or undefined behaviour. Seeds:
 * tests/fuzz/corpus/report/. */
#include "report_read.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gb_table t = {0};
    char why[512];
    why[0] = '\0';
    if (gb_report_parse((const char *)data, size, &t, why, sizeof why) == 0) {
        /* Every row is whole: its strings are terminated within the row. */
        for (size_t i = 0; i < t.count; i++) {
            const gb_row *r = &t.rows[i];
            if (memchr(r->device_name, '\0', sizeof r->device_name) == NULL ||
                memchr(r->unit, '\0', sizeof r->unit) == NULL) {
                __builtin_trap();
            }
        }
    } else if (!memchr(why, '\0', sizeof why) || !why[0]) {
        __builtin_trap(); /* a failure always says why */
    }
    gb_table_free(&t);
    return 0;
}
