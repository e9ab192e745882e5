/* Result files merged into one table for the report (merge.c). */
#ifndef XGPU_GPUBENCH_REPORT_MERGE_H
#define XGPU_GPUBENCH_REPORT_MERGE_H

#include "report_read.h"

#include <stddef.h>
#include <stdint.h>

/* Reads the result file at `path` (which must outlive `t`: the file keeps
 * it as its name) and appends it to `t`. 0 when merged; -1 when skipped,
 * with the reason in `why`: unreadable, over GB_REPORT_MAX_BYTES, damaged
 * or foreign (gb_report_parse's message), written by another major version
 * of xgpu (or with a version that is no number), or a duplicate of an
 * earlier file (the same host and rank; or, without a rank, the same host
 * and results). A file of another minor version of this major is merged,
 * with the file's `note` saying what it lacks ("written by xgpu 0.3.0: no
 * telemetry, no rank, no date, ...") or that it is newer, also said on
 * stderr; another patch level is merged with a warning on stderr. keys[]
 * holds each merged file's identity; it must have room for one more than
 * t->nfiles. */
int gb_merge_file(gb_table *t, uint64_t *keys, const char *path, char *why, size_t why_size);

#endif
