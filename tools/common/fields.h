/* The fields of a physical device: one row per field (group, JSON key,
 * label, unit, getter), walked by gpuinfo's text printer and by the JSON
 * document, schema "xgpu.gpuinfo/1", that gpuinfo --json prints and
 * gpubench embeds in its results. One table, so they cannot disagree. */
#ifndef XGPU_TOOLS_FIELDS_H
#define XGPU_TOOLS_FIELDS_H

#include "physdev.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum df_kind { DF_NULL, DF_STRING, DF_UINT, DF_FLOAT, DF_BOOL, DF_ERROR } df_kind;
typedef enum df_unit {
    DF_UNIT_NONE,
    DF_UNIT_BYTES,
    DF_UNIT_MHZ,
    DF_UNIT_GFLOPS,
    DF_UNIT_GBS
} df_unit;

/* A getter that cannot tell sets DF_NULL; one whose query failed sets
 * DF_ERROR with the message in `text`, shown in that cell only. */
typedef struct df_value {
    df_kind kind;
    char text[512]; /* DF_STRING, or the error for DF_ERROR */
    uint64_t u;
    double f;
    int b;
    char provenance[256]; /* how a derived number was obtained */
} df_value;

typedef struct df_field {
    const char *group; /* "identity", "compute", "memory", "limits", "versions" */
    const char *key;   /* JSON key, with the unit in its name */
    const char *label; /* text label */
    df_unit unit;
    void (*get)(const pd_device *d, df_value *v); /* v zeroed by the caller */
} df_field;

/* fields.c */
extern const df_field df_fields[];
extern const size_t df_field_count;

/* fields_json.c: the "xgpu.gpuinfo/1" document of `n` devices and every
 * backend (its status, plugin and vendor libraries). */
void df_print_json(FILE *out, const pd_device *devs, uint32_t n);
/* The same with more members of its top-level object after "backends",
 * each written by `more` as ",\n  \"key\": value" (gpuinfo's frameworks). */
typedef void (*df_json_more_fn)(FILE *out, void *arg);
void df_print_json_more(FILE *out, const pd_device *devs, uint32_t n, df_json_more_fn more,
                        void *arg);

#endif
