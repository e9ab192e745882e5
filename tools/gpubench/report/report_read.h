/* Reading gpubench result files ("xgpu.gpubench/1") for the report: one
 * JSON text from memory into rows, the file's facts and its peer-to-peer
 * pairs. Separate from the report's output, and free of xgpu, so that it
 * can be fuzzed (tests/fuzz/fuzz_report.c). */
#ifndef XGPU_GPUBENCH_REPORT_READ_H
#define XGPU_GPUBENCH_REPORT_READ_H

#include <stdbool.h>
#include <stddef.h>

/* The largest result file the report reads; a --full run on a large
 * machine writes well under 1 MiB. */
#define GB_REPORT_MAX_BYTES ((size_t)64 << 20)

/* One result: one device's figure for one benchmark case. Every key added
 * after the first schema (rank, device_uuid, device_arch, telemetry, p2p)
 * is optional: an older file reads with them empty. */
typedef struct gb_row {
    char host[128], bench[16], impl[16], device[48], device_name[128], dtype[8], shape[64],
        unit[12];
    char device_uuid[64], device_arch[64]; /* "" when the file has none or null */
    double size;                           /* -1 when the file has null */
    double rate;                           /* -1 when the file has null (the case did not run) */
    bool verified;
    bool throttled;         /* telemetry.throttled */
    char throttle_why[192]; /* telemetry.throttle_why, "" when not throttled */
    char telemetry[12];     /* telemetry.source, "" without telemetry */
    long rank;              /* the file's rank.rank, -1 without one */
    size_t file;            /* index into gb_table.files */
} gb_row;

/* A peer-to-peer copy between two devices of one file's host. */
typedef struct gb_pair {
    char src[48], dst[48];
    bool staged;       /* "path": "staged": through host memory, not direct */
    char path[8];      /* "direct", "staged", "local" (within one device), "" unknown */
    double gbs;        /* -1 when null */
    double latency_us; /* -1 when null or absent */
    bool verified;
    size_t file;
} gb_pair;

/* What one file says about itself. */
typedef struct gb_file {
    const char *name; /* the caller's (a path); NULL from the parser */
    char host[128];
    char version[32];         /* "xgpu_version", "" when absent */
    char engine[16];          /* rank.engine, "" when absent */
    long rank;                /* rank.rank, -1 when the file has no rank object */
    long local_rank;          /* -1 when absent or null */
    long size;                /* rank.size: ranks in the job, -1 when absent or null */
    bool has_p2p;             /* a "p2p" object, even with no pairs */
    size_t first_row, rows;   /* its rows in gb_table.rows */
    size_t first_pair, pairs; /* its pairs in gb_table.pairs */
} gb_file;

typedef struct gb_table {
    gb_row *rows;
    size_t count, cap;
    gb_file *files;
    size_t nfiles, files_cap;
    gb_pair *pairs;
    size_t npairs, pairs_cap;
} gb_table;

/* Parses one result file's text (`len` bytes, no NUL needed) and appends
 * one gb_file, its rows and its pairs to `t`. 0, or -1 with a message in
 * `why` that names the key and what was wrong ("results[3].gbs: expected a
 * number or null"); the caller adds the file name. On failure `t` holds
 * what it had before. Longer strings than a field holds are cut. Not
 * thread-safe (cJSON's error pointer). */
int gb_report_parse(const char *text, size_t len, gb_table *t, char *why, size_t why_size);

/* Takes the last file read back out of `t`, with its rows and pairs (the
 * caller decided to skip it). */
void gb_table_drop_last(gb_table *t);

/* Frees everything; `t` is empty and reusable afterwards. */
void gb_table_free(gb_table *t);

#endif
