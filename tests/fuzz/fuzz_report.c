/* libFuzzer target: bytes as one gpubench result file, read by the report's
 * parser (tools/gpubench/report/read.c). Any input must give rows, the
 * file's facts and its peer-to-peer pairs, or an error message, never a
 * crash, a leak or undefined behaviour. Seeds: tests/fuzz/corpus/report/. */
#include "report_read.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool whole(const char *s, size_t size) {
    return memchr(s, '\0', size) != NULL;
}

#define WHOLE(field) whole(field, sizeof field)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gb_table t = {0};
    char why[512];
    why[0] = '\0';
    /* Twice: the second file appends after the first, and dropping it
     * leaves the first as it was. */
    for (int pass = 0; pass < 2; pass++) {
        size_t rows = t.count, pairs = t.npairs, files = t.nfiles, infos = t.ndevinfos;
        if (gb_report_parse((const char *)data, size, &t, why, sizeof why) != 0) {
            if (!whole(why, sizeof why) || !why[0]) {
                __builtin_trap(); /* a failure always says why */
            }
            if (t.count != rows || t.npairs != pairs || t.nfiles != files || t.ndevinfos != infos) {
                __builtin_trap(); /* a failure adds nothing */
            }
            break;
        }
        const gb_file *fi = &t.files[t.nfiles - 1];
        if (t.nfiles != files + 1 || fi->first_row != rows || fi->rows != t.count - rows ||
            fi->first_pair != pairs || fi->pairs != t.npairs - pairs || fi->rank < -1 ||
            !WHOLE(fi->host) || !WHOLE(fi->version) || !WHOLE(fi->engine) ||
            !WHOLE(fi->started_utc) || fi->first_devinfo != infos ||
            fi->devinfos != t.ndevinfos - infos || (fi->has & ~(unsigned)GB_HAS_ALL)) {
            __builtin_trap();
        }
        /* Every device path is whole, points at its file and is found. */
        for (size_t i = infos; i < t.ndevinfos; i++) {
            const gb_devinfo *d = &t.devinfos[i];
            if (!WHOLE(d->path) || !WHOLE(d->backend) || !WHOLE(d->arch) ||
                !WHOLE(d->driver_version) || !WHOLE(d->device_version) ||
                !WHOLE(d->language_version) || d->file != files ||
                !gb_devinfo_of(&t, files, d->path)) {
                __builtin_trap();
            }
        }
        /* Every row and pair is whole and points at its file. */
        for (size_t i = rows; i < t.count; i++) {
            const gb_row *r = &t.rows[i];
            if (!WHOLE(r->device_name) || !WHOLE(r->unit) || !WHOLE(r->device_uuid) ||
                !WHOLE(r->device_arch) || !WHOLE(r->throttle_why) || !WHOLE(r->telemetry) ||
                !WHOLE(r->host) || r->file != files || r->rank != fi->rank) {
                __builtin_trap();
            }
        }
        for (size_t i = pairs; i < t.npairs; i++) {
            const gb_pair *p = &t.pairs[i];
            if (!WHOLE(p->src) || !WHOLE(p->dst) || p->file != files) {
                __builtin_trap();
            }
        }
        if (pass == 1) {
            gb_table_drop_last(&t);
            if (t.nfiles != 1 || t.count != rows || t.npairs != pairs || t.ndevinfos != infos) {
                __builtin_trap();
            }
        }
    }
    gb_table_free(&t);
    return 0;
}
