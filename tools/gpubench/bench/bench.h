/* gpubench's benchmarks, as the commands above them see them: the rows a
 * run collects, the device a run sets up for them (gb_env), the options
 * they read, and one entry point per benchmark (one file each in this
 * folder). What the benchmarks share among themselves is measure.h. */
#ifndef XGPU_GPUBENCH_BENCH_H
#define XGPU_GPUBENCH_BENCH_H

#include "health.h"
#include "telemetry.h"

#include <xgpu.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gb_stats {
    double median, min, max, stddev; /* seconds */
    int reps;
} gb_stats;

typedef struct gb_result {
    char bench[16];  /* gemm, reduce, stream, transfer, launch */
    char impl[16];   /* xgpu, clblast, cublas, rocblas, openblas */
    char device[48]; /* "opencl:0", or "host" */
    char device_name[256];
    char device_uuid[40]; /* "" when the device has none (and for the host) */
    char device_arch[64];
    char backend[32];
    char dtype[8];
    char shape[64];
    double size; /* x axis for charts: n for gemm, bytes otherwise */
    gb_stats t;
    const char *unit; /* "GFLOP/s", "GB/s", "us" */
    double rate;
    double pct_peak; /* < 0: unknown */
    double first_s;  /* the warm-up run: builds and first-launch costs */
    /* The xgpu library kernel the row times, as xgpu_tune names it
     * ("gemm", "sum", "minmax", "argmax"; a static string), NULL: none. */
    const char *kernel;
    /* Set by gb_note_tune_before: the lookup found no exact entry of this
     * device before the row's first call, so XGPU_TUNE=auto may tune in it. */
    bool exact_entry_missing;
    bool verified;
    double max_rel_err;
    char note[512];
    /* GEMM rows (new after 0.6.0; "" and 0 elsewhere): C's element type,
     * the path (xgpu: as xgpu_gemm_choose names it, "mma.sync"; a vendor:
     * the library's entry point, "cublasGemmEx"), the multiply's
     * precision ("bf16", "tf32") and the GEMMs per run (1: one). */
    char c_dtype[8];
    char path[48];
    char compute[8];
    size_t batch;
    /* The peak pct_peak is read against (GFLOP/s, < 0: none) and which it
     * is, with how it was derived. */
    double peak_gflops;
    char peak_source[280];
    /* What the device did during the timed repetitions (not the warm-up). */
    bool has_telemetry;
    gt_summary telemetry;
    char telemetry_why[640]; /* why no vendor library serves the device, "" if one does */
} gb_result;

/* The rows of a run, in the order they were added. Each row is an
 * allocation of its own, so a pointer gb_add returned stays valid while
 * more rows are added, until gb_results_free. */
typedef struct gb_results {
    gb_result **rows;
    size_t count, cap;
} gb_results;

/* What the benchmarks are asked to run. */
typedef struct gb_options {
    bool full;
    const char *benches; /* "gemm,reduce,...", NULL = all */
    const char *dtypes;  /* "f32,f64,...", NULL = all */
    size_t size;         /* --size: one problem size (n for gemm, MiB otherwise), 0 = suite's */
    size_t batch;        /* --batch: GEMMs per strided-batched run, 0 = one GEMM */
    double time_budget;  /* seconds per case for the timed repetitions */
    int reps;            /* fixed repetitions, 0 = calibrate to time_budget */
} gb_options;

/* One pair of the peer-to-peer matrix (p2p.c). */
typedef struct gb_p2p_pair {
    char src[48], dst[48], src_uuid[64], dst_uuid[64];
    char path[8];      /* "direct", "staged", or "local" on the diagonal */
    double gbs;        /* < 0: did not run */
    double latency_us; /* < 0: did not run */
    bool verified;
} gb_p2p_pair;

typedef struct gb_p2p {
    gb_p2p_pair *pairs; /* n * n, sources in rows */
    size_t count;
    size_t bytes; /* of each bandwidth copy */
} gb_p2p;

/* The health facts (health.h) of each device a run used, in the order
 * the devices ran. */
typedef struct gb_health {
    gh_facts *facts;
    size_t count;
} gb_health;

/* One device's run: its context and queue, and the rows its benchmarks
 * add. The caller sets opt and progress and fills the rest before the
 * first benchmark (gpubench.h's gb_run_device). */
typedef struct gb_env {
    const gb_options *opt;
    xgpu_device *device;
    xgpu_device_info info;
    char path[48];
    xgpu_context *ctx;
    xgpu_queue *queue;
    double peak_gflops, peak_gbs; /* < 0: unknown */
    gb_results results;
    bool progress;            /* stderr is a terminal */
    gt_device *telemetry;     /* gb_telemetry_open, NULL: none */
    gh_device *health_device; /* gb_health_open, NULL: none */
    gb_health health;         /* the facts of every device run, for the outputs */
    gb_p2p *p2p;              /* -b p2p's matrix, NULL when it did not run */
    bool p2p_failed;          /* -b p2p could not set up (said on stderr) */
} gb_env;

/* The benchmarks, each adding its rows to env (every row verified, or
 * marked FAILED with why in its note). */
void gb_bench_gemm(gb_env *env);     /* gemm.c: xgpu, the vendor BLAS */
void gb_bench_openblas(gb_env *env); /* gemm.c: OpenBLAS on the host */
void gb_bench_reduce(gb_env *env);   /* reduce.c */
void gb_bench_stream(gb_env *env);   /* stream.c */
void gb_bench_transfer(gb_env *env); /* transfer.c */
void gb_bench_launch(gb_env *env);   /* launch.c */
/* p2p.c: -b p2p, copies between every pair of `devs` (bandwidth and
 * latency, direct or staged through the host), the matrix kept in
 * into->p2p for the outputs. */
void gb_bench_p2p(const gb_options *o, xgpu_device **devs, uint32_t n, gb_env *into);

/* results.c */
/* Moves every row of `from` to the end of `into`; false when memory runs
 * out (then both keep what they had). */
bool gb_results_move(gb_results *into, gb_results *from);
/* Frees the rows; `r` is empty and reusable afterwards. */
void gb_results_free(gb_results *r);

/* case_telemetry.c: the device's telemetry around each timed case. Opens
 * env->telemetry for env->info's device (after the context is made);
 * gb_telemetry_close closes it. */
void gb_telemetry_open(gb_env *env);
void gb_telemetry_close(gb_env *env);

/* case_health.c: the device's health facts. gb_health_open reads them
 * for env->info's device (after the context is made; the transfer
 * benchmark watches the PCIe link while it copies); gb_health_close adds
 * them to env->health and closes the device. */
void gb_health_open(gb_env *env);
void gb_health_close(gb_env *env);
/* Appends every fact of `from` to `into` and empties `from`; false when
 * memory runs out (both keep what they had). */
bool gb_health_move(gb_health *into, gb_health *from);
void gb_health_free(gb_health *h);

/* measure.c: seconds on the monotonic clock. */
double gb_now(void);

/* args.c: checks of the command line, before anything runs. Each returns
 * 0, or -1 with a message naming the option and its value in `why`. */
#define GB_SIZE_LIMIT_BYTES ((size_t)1 << 40)          /* buffers of one --size case */
bool gb_selected(const char *list, const char *bench); /* list NULL: all */
int gb_check_benches(const char *list, char *why, size_t why_size);
/* --dtype: f32, f64, f16, bf16, tf32, int8 (GEMM), i32 (reductions). */
int gb_check_dtypes(const char *list, char *why, size_t why_size);
/* Whether --dtype keeps anything the chosen benchmarks run (a list that
 * leaves them nothing to do is a usage error). */
int gb_check_dtype_use(const char *benches, const char *dtypes, char *why, size_t why_size);
/* A positive decimal number that fits a size_t: no sign, blank or suffix. */
int gb_parse_size(const char *text, size_t *size, char *why, size_t why_size);
/* --batch: a whole number from 1 to GB_BATCH_MAX. */
#define GB_BATCH_MAX 65535
int gb_parse_batch(const char *text, size_t *batch, char *why, size_t why_size);
/* Whether the buffers `size` asks of the selected benchmarks fit a size_t
 * and GB_SIZE_LIMIT_BYTES. */
int gb_check_size(const char *benches, size_t size, char *why, size_t why_size);
/* Whether --batch GEMMs of --size (0: GB_BATCH_DEFAULT_N) fit the same
 * limit, and -b runs gemm. */
#define GB_BATCH_DEFAULT_N 512
int gb_check_batch(const char *benches, size_t size, size_t batch, char *why, size_t why_size);

#endif
