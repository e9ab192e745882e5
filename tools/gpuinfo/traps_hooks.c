/* Where gpuinfo calls the checks of the stack (traps.h): the doctor's
 * section, and the "findings" of gpuinfo --json. */
#include "gpuinfo.h"
#include "fields.h"
#include "traps.h"

#include <stdlib.h>

void gi_doctor_traps(FILE *out) {
    tr_report *r = tr_run();
    if (!r) {
        fprintf(out, "stack\n  FAIL  out of host memory: the machine was not checked\n");
        return;
    }
    tr_print_doctor(out, r);
    free(r);
}

/* The document's members after "backends": the findings, then the
 * Python environments and their frameworks (fw_report.c). */
static void write_more(FILE *out, void *arg) {
    const tr_report *r = arg;
    fputs(",\n  ", out);
    if (r) {
        tr_write_json(out, &r->findings);
    } else {
        fputs("\"findings\": null", out); /* out of memory: not checked */
    }
    gi_frameworks_json(out, NULL);
}

void gi_print_json(FILE *out, const pd_device *devs, uint32_t n) {
    tr_report *r = tr_run();
    df_print_json_more(out, devs, n, write_more, r);
    free(r);
}
