/* What the gpubench report tests share: running the report, reading its
 * JSON summary, and result files generated as a launcher run leaves
 * them. Each check fails the running CMocka test. */
#ifndef XGPU_TEST_REPORT_GEN_H
#define XGPU_TEST_REPORT_GEN_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <xgpu.h>

#define RG_STR2(x) #x
#define RG_STR(x) RG_STR2(x)
/* This xgpu's version, as gpubench writes it in its files. */
#define VERSION                                                                                    \
    RG_STR(XGPU_VERSION_MAJOR) "." RG_STR(XGPU_VERSION_MINOR) "." RG_STR(XGPU_VERSION_PATCH)

/* What `cmdline` wrote on stdout and stderr (malloc'ed); its exit status in
 * *status. */
char *run(const char *cmdline, int *status);
/* Runs `gpubench report -o PREFIX ARGS`, failing unless it exits `want`;
 * its output (malloc'ed). */
char *report(const char *prefix, const char *args, int want);
/* The file parsed, failing when it is not JSON. */
cJSON *read_json(const char *path);
/* The size of the array j[key]; the text or number o[key]. Each fails the
 * test when the key is missing or of another type. */
int array_size(const cJSON *j, const char *key);
const char *get_str(const cJSON *o, const char *key);
double get_num(const cJSON *o, const char *key);

/* The generated benchmark cases: case i is a GEMM (GFLOP/s), a stream
 * (GB/s) or a launch (us), with its figure on a reference device. */
const char *case_bench(int i);
double case_base(int i);

typedef struct device {
    const char *host, *uuid, *name, *arch, *version;
    long rank;           /* -1: "rank": null */
    int index;           /* cuda:N */
    const char *backend; /* the device path's backend, NULL: "cuda" */
    int ncases;
    int first_case;       /* cases first_case .. ncases - 1 are written */
    const char *impl;     /* NULL: "xgpu" */
    const double *factor; /* the figure of case i is case_base(i) * factor[i]; NULL: 1 */
    int throttled_case;   /* -1: none */
    const char *p2p;      /* the "p2p" value's text, NULL: null */
    long size;            /* rank.size; 0: 512 */
} device;

/* A result file as gpubench writes it, with the keys a launcher run adds
 * (rank, device_uuid, device_arch, telemetry, p2p). */
void write_device(const char *path, const device *d);
void write_text(const char *path, const char *text);
/* Fails unless `out` has the warning for `file` with `reason` in it. */
void expect_skipped(const char *out, const char *file, const char *reason);
/* The summary's straggler of `rank` on `bench`, or NULL. */
const cJSON *find_straggler(const cJSON *j, long rank, const char *bench);

#endif
