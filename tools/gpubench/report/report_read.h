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

/* One device path of a file's gpuinfo document ("gpuinfo": {"devices":
 * [...]}): what the summary shows as the device's provenance. "" where the
 * document has null or nothing. */
typedef struct gb_devinfo {
    char path[48];             /* one of the device's "paths": "cuda:0" */
    char backend[16];          /* "cuda", "hip", "opencl" */
    char arch[64];             /* "sm_90", "gfx942" */
    char driver_version[64];   /* as the backend reports it */
    char device_version[96];   /* OpenCL: CL_DEVICE_VERSION; CUDA: compute capability */
    char language_version[96]; /* HIP: "HIP 6.2.41133 (...)"; OpenCL: OpenCL C */
    size_t file;
} gb_devinfo;

/* Which members of today's result files a file has (older xgpu versions
 * wrote fewer; all are optional to the reader). */
enum {
    GB_HAS_STARTED = 1 << 0,   /* "started_utc" */
    GB_HAS_RANK = 1 << 1,      /* "rank", even null */
    GB_HAS_P2P = 1 << 2,       /* "p2p", even null */
    GB_HAS_UUID = 1 << 3,      /* results[].device_uuid in every row */
    GB_HAS_ARCH = 1 << 4,      /* results[].device_arch in every row */
    GB_HAS_TELEMETRY = 1 << 5, /* results[].telemetry in every row, even null */
    GB_HAS_GPUINFO = 1 << 6,   /* "gpuinfo" with a devices array */
    GB_HAS_ALL = (1 << 7) - 1
};

/* What one file says about itself. */
typedef struct gb_file {
    const char *name; /* the caller's (a path); NULL from the parser */
    char host[128];
    char version[32];               /* "xgpu_version", "" when absent */
    char engine[16];                /* rank.engine, "" when absent */
    long rank;                      /* rank.rank, -1 when the file has no rank object */
    long local_rank;                /* -1 when absent or null */
    long size;                      /* rank.size: ranks in the job, -1 when absent or null */
    bool has_p2p;                   /* a "p2p" object, even with no pairs */
    unsigned has;                   /* GB_HAS_*: the members it has */
    char started_utc[32];           /* "2026-12-01T23:45:10Z", "" when absent or null */
    char note[256];                 /* what the merge says of it (report_merge.h), "" */
    size_t first_row, rows;         /* its rows in gb_table.rows */
    size_t first_pair, pairs;       /* its pairs in gb_table.pairs */
    size_t first_devinfo, devinfos; /* its device paths in gb_table.devinfos */
} gb_file;

typedef struct gb_table {
    gb_row *rows;
    size_t count, cap;
    gb_file *files;
    size_t nfiles, files_cap;
    gb_pair *pairs;
    size_t npairs, pairs_cap;
    gb_devinfo *devinfos;
    size_t ndevinfos, devinfos_cap;
} gb_table;

/* The gpuinfo entry of `path` in file `file`, or NULL. */
const gb_devinfo *gb_devinfo_of(const gb_table *t, size_t file, const char *path);

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
