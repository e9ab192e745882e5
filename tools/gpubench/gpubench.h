/* gpubench internals. */
#ifndef XGPU_GPUBENCH_H
#define XGPU_GPUBENCH_H

#include "telemetry.h"

#include <xgpu.h>

#include <stdbool.h>
#include <stdio.h>

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
    bool verified;
    double max_rel_err;
    char note[512];
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

/* The rank a launcher gave this process (rank.c), read from the variables
 * of Open MPI, MPICH, Slurm, PMI/PMIx, Kubernetes Indexed Jobs, SkyPilot
 * and torchrun-style launchers, in that order. */
typedef struct gb_rank {
    const char *engine;         /* "openmpi", "mpich", "slurm", "pmi", "kubernetes", ... */
    const char *variable;       /* where `rank` came from (or local_rank, without one) */
    const char *local_variable; /* where `local_rank` came from, NULL without one */
    int rank;                   /* global rank, -1 when the engine gave none */
    int local_rank;             /* node-local rank, -1 when the engine has none */
    int size;                   /* ranks in all, -1 when unknown */
} gb_rank;

typedef struct gb_options {
    bool full;
    bool all_devices;    /* --all-devices: every device at once, a thread each */
    const char *benches; /* "gemm,reduce,..." */
    const char *dtypes;  /* "f32,f64,...", NULL = all */
    const char *selector;
    size_t size;        /* --size: one problem size (n for gemm, MiB otherwise), 0 = suite's */
    double time_budget; /* seconds per case for the timed repetitions */
    int reps;           /* fixed repetitions, 0 = calibrate to time_budget */
    const char *csv, *json;
    const gb_rank *rank; /* the launcher's rank, NULL when none */
    int argc;
    char **argv;
} gb_options;

/* One pair of the peer-to-peer matrix (bench_p2p.c). */
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

typedef struct gb_env {
    const gb_options *opt;
    xgpu_device *device;
    xgpu_device_info info;
    char path[48];
    xgpu_context *ctx;
    xgpu_queue *queue;
    double peak_gflops, peak_gbs; /* < 0: unknown */
    gb_results results;
    bool progress;        /* stderr is a terminal */
    gt_device *telemetry; /* gb_telemetry_open, NULL: none */
    gb_p2p *p2p;          /* -b p2p's matrix, NULL when it did not run */
    bool p2p_failed;      /* -b p2p could not set up (said on stderr) */
} gb_env;

/* measure.c */
typedef int (*gb_enqueue_fn)(gb_env *env, void *arg);
/* Warm-up run (timed on the wall clock into *first_s), then repetitions
 * calibrated to the time budget, each timed by device events around the
 * enqueued work. 0 or -1 on an xgpu error (printed). */
int gb_time_device(gb_env *env, gb_enqueue_fn fn, void *arg, gb_stats *st, double *first_s);
/* The same on the host clock, for host work (OpenBLAS). */
typedef int (*gb_host_fn)(void *arg);
int gb_time_host(const gb_env *env, gb_host_fn fn, void *arg, gb_stats *st, double *first_s);
double gb_now(void);
/* A new row of env's results, filled with the device's identity and these
 * labels; NULL when memory runs out. The pointer stays valid (gb_results). */
gb_result *gb_add(gb_env *env, const char *bench, const char *impl, const char *dtype,
                  const char *shape, double size);
/* Moves every row of `from` to the end of `into`; false when memory runs
 * out (then both keep what they had). */
bool gb_results_move(gb_results *into, gb_results *from);
/* Frees the rows; `r` is empty and reusable afterwards. */
void gb_results_free(gb_results *r);
void gb_progress(const gb_env *env, const char *what);
/* The benchmark named in XGPU_GPUBENCH_INJECT gets a wrong result, so that
 * tests can see verification catch it. */
bool gb_inject(const char *bench);
uint32_t gb_rand(uint32_t *state);

/* telemetry_glue.c: the device's telemetry around each timed case. */
/* Opens env->telemetry for env->info's device (run_device, after the
 * context is made); gb_telemetry_close closes it. */
void gb_telemetry_open(gb_env *env);
void gb_telemetry_close(gb_env *env);
/* Starts sampling d (NULL: nothing); gb_telemetry_end stops it and puts
 * the summary on the result whose stats are *st (measure.c). */
void gb_telemetry_begin(gt_device *d);
void gb_telemetry_end(const gb_env *env, gt_device *d, const gb_stats *st);

/* bench_gemm.c, bench_memory.c */
void gb_bench_gemm(gb_env *env);
void gb_bench_openblas(gb_env *env);
void gb_bench_reduce(gb_env *env);
void gb_bench_stream(gb_env *env);
void gb_bench_transfer(gb_env *env);
void gb_bench_launch(gb_env *env);

/* launch_core.c: the core's own cost per xgpu_launch, on the null backend
 * (backends/null), whose hooks do no work. */
#define GB_CORE_SHAPE "core overhead" /* the row's shape */
enum { GB_CORE_BATCH = 100 };         /* launches per timed sample */
#define GB_CORE_JSON_MAX ((size_t)1 << 20)
/* On the null device: `n` samples of GB_CORE_BATCH launches of `k` with
 * one argument, each sample the seconds per launch. Returns how many
 * launches failed. */
int gb_core_series(gb_env *env, xgpu_kernel *k, const xgpu_range *range, const xgpu_arg *args,
                   double *series, int n);
/* From a run on any other device: the null device's row, measured once per
 * process by running this gpubench again with XGPU_BACKENDS=null. 0, or -1
 * with the reason in `why`. */
int gb_core_from_child(gb_stats *t, bool *verified, char *why, size_t why_size);

/* output.c */
void gb_print_table(FILE *out, const gb_results *r);
/* Write to an open file (outfile.h: written to a temporary, renamed at the
 * end); errors show in ferror(f). */
void gb_write_csv(FILE *f, const gb_results *r);
void gb_write_json(FILE *f, const gb_options *opt, const gb_env *env);
const char *gb_host_name(void);

/* args.c: checks of the command line, before anything runs. Each returns
 * 0, or -1 with a message naming the option and its value in `why`. */
#define GB_SIZE_LIMIT_BYTES ((size_t)1 << 40)          /* buffers of one --size case */
bool gb_selected(const char *list, const char *bench); /* list NULL: all */
int gb_check_benches(const char *list, char *why, size_t why_size);
/* --dtype: f32, f64, f16 (GEMM), i32 (reductions). */
int gb_check_dtypes(const char *list, char *why, size_t why_size);
/* Whether --dtype keeps anything the chosen benchmarks run (a list that
 * leaves them nothing to do is a usage error). */
int gb_check_dtype_use(const char *benches, const char *dtypes, char *why, size_t why_size);
/* A positive decimal number that fits a size_t: no sign, blank or suffix. */
int gb_parse_size(const char *text, size_t *size, char *why, size_t why_size);
/* Whether the buffers `size` asks of the selected benchmarks fit a size_t
 * and GB_SIZE_LIMIT_BYTES. */
int gb_check_size(const char *benches, size_t size, char *why, size_t why_size);

/* rank.c: true when a launcher's variables were found (*r filled), else
 * false. */
bool gb_rank_detect(gb_rank *r);
/* `text` made a safe part of a file name: characters other than
 * [A-Za-z0-9._-] become '_'; cut to fit `size`. */
void gb_file_part(const char *text, char *out, size_t size);

/* main.c: the benchmarks on one device, into env's results; 0, or -1 when
 * no context or queue could be made (said on stderr). */
int gb_run_device(gb_options *o, xgpu_device *dev, gb_env *env);

/* fleet.c */
/* Keeps in `devs` (in order) the node's physical devices: one path per
 * device (the first, when CUDA and OpenCL both reach a GPU: same UUID or
 * PCI bus id), and only GPUs and accelerators when there are any. Returns
 * how many were kept. */
uint32_t gb_node_devices(xgpu_device **devs, uint32_t n);
/* --all-devices: gb_run_device on every device at once, a thread and a
 * context each; their results appended to `into` in device order. Returns
 * how many devices ran. */
int gb_run_all(gb_options *o, xgpu_device **devs, uint32_t n, gb_env *into);

/* bench_p2p.c: -b p2p, copies between every pair of `devs` (bandwidth and
 * latency, direct or staged through the host), as rows of `into` and the
 * matrix kept for the JSON's "p2p" (gb_write_p2p_json). */
void gb_bench_p2p(gb_options *o, xgpu_device **devs, uint32_t n, gb_env *into);
/* Both matrices as tables; returns how many pairs failed. */
int gb_print_p2p(FILE *f, const gb_p2p *m);
/* The "p2p" value of the result file: null, or the matrix. */
void gb_write_p2p_json(FILE *f, const gb_p2p *m);

/* report.c: gpubench report FILE... */
int gb_report(int argc, char **argv);
/* Appends to r's note where the library call took its parameters from:
 * "tuned params (this device)" or "built-in params" (tune.c). */
void gb_note_params(const gb_env *env, gb_result *r, const char *kernel, xgpu_dtype dtype,
                    size_t size);
/* `gpubench tune ...` (tune.c): the exit status. */
int gb_tune(int argc, char **argv);
/* Every device, or those `selector` matches, into a calloc'ed array; 0, or
 * the exit status after saying why on stderr. */
int gb_select_devices(const char *selector, uint32_t ndev, xgpu_device ***out, uint32_t *n);

#endif
