/* What the reader's files share (read.c, read_info.c); not for the report's
 * other files. */
#ifndef XGPU_GPUBENCH_REPORT_READ_INTERNAL_H
#define XGPU_GPUBENCH_REPORT_READ_INTERNAL_H

#include "report_read.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* A key added after the first schema: absent or null gives "", anything
 * but a string is an error naming `where`.`key`. */
int gb__opt_string(const cJSON *o, const char *where, const char *key, char *out, size_t out_size,
                   char *why, size_t why_size);
/* Room for one more element of `*items`; false when memory ran out. */
bool gb__grow(void **items, size_t count, size_t *cap, size_t size);

/* read_info.c: the file's provenance: "started_utc" (checked for its
 * form) and gpuinfo's devices into t->devinfos, with the GB_HAS_* bits of
 * both in fi->has. 0, or -1 with `why`. */
int gb__read_info(const cJSON *root, gb_table *t, gb_file *fi, char *why, size_t why_size);

#endif
