/* What gpubench's benchmarks share among themselves (the layer above sees
 * bench.h only): the methodology (measure.c), the rows (results.c), the
 * telemetry around each timed case (case_telemetry.c) and the core's own
 * launch cost (launch_core.c). */
#ifndef XGPU_GPUBENCH_MEASURE_H
#define XGPU_GPUBENCH_MEASURE_H

#include "bench.h"

#include <stdio.h>

/* measure.c */
typedef int (*gb_enqueue_fn)(gb_env *env, void *arg);
/* Warm-up run (timed on the wall clock into *first_s), then repetitions
 * calibrated to the time budget, each timed by device events around the
 * enqueued work. 0 or -1 on an xgpu error (printed). */
int gb_time_device(gb_env *env, gb_enqueue_fn fn, void *arg, gb_stats *st, double *first_s);
/* Cases timed side by side (gb_time_rounds): the row's stats and warm-up
 * time, and what became of the case. */
typedef struct gb_timed {
    gb_enqueue_fn fn;
    void *arg;
    gb_stats *st;
    double *first_s;
    int rc;             /* out: 0, or -1 with the error in status and why */
    xgpu_status status; /* out */
    char why[256];
} gb_timed;
/* Each case warmed up alone (into *first_s), then rounds in which every
 * case runs once in turn, each run timed by device events, so that a
 * device or host whose speed moves during the run (clocks, other
 * tenants' memory traffic) moves all of them alike and their ratios
 * hold. Rounds: --reps, else as many as n cases' time budgets allow (3
 * to 100). A case that fails leaves the rounds (rc -1, its error printed
 * and in why); the others go on. Returns how many failed. */
int gb_time_rounds(gb_env *env, gb_timed *cases, size_t n);
/* The same on the host clock, for host work (OpenBLAS, peer copies). */
typedef int (*gb_host_fn)(void *arg);
int gb_time_host(const gb_env *env, gb_host_fn fn, void *arg, gb_stats *st, double *first_s);
/* The progress line on a terminal: the device's path and `what`. */
void gb_progress(const gb_env *env, const char *what);
/* The benchmark named in XGPU_GPUBENCH_INJECT gets a wrong result, so that
 * tests can see verification catch it. */
bool gb_inject(const char *bench);
uint32_t gb_rand(uint32_t *state);

/* measure.c, for the memory-bound benchmarks (reduce, stream, transfer). */
#define GB_MIB (1024.0 * 1024.0)
/* Whether one buffer of `bytes` fits the device's largest allocation. */
bool gb_fits(const gb_env *env, double bytes);
/* "what 64 MiB" (or KiB below a MiB; `what` may be ""). */
void gb_shape_mib(char *out, size_t size, const char *what, double bytes);
/* r's rate as GB/s of `bytes` per median run, and its share of the peak. */
void gb_set_bandwidth(const gb_env *env, gb_result *r, double bytes);

/* results.c */
/* A new row of env's results, filled with the device's identity and these
 * labels; NULL when memory runs out. The pointer stays valid (gb_results). */
gb_result *gb_add(gb_env *env, const char *bench, const char *impl, const char *dtype,
                  const char *shape, double size);
/* Appends to r's note where the library call took its parameters from:
 * "tuned params (this device)" or "built-in params"; "auto-tuned params
 * (this device, tuned in this run)" when the entry is XGPU_TUNE=auto's
 * and gb_note_tune_before found no exact entry before the row's first
 * call. */
void gb_note_params(const gb_env *env, gb_result *r, const char *kernel, xgpu_dtype dtype,
                    size_t size);
/* Before the row's first call of the kernel: whether the lookup has an
 * exact entry of this device yet (without one, XGPU_TUNE=auto tunes
 * inside that call; the lookup itself never tunes). */
void gb_note_tune_before(const gb_env *env, gb_result *r, const char *kernel, xgpu_dtype dtype,
                         size_t size);

/* case_telemetry.c: starts sampling d (NULL: nothing); gb_telemetry_end stops
 * it and puts the summary on each row whose stats are one of the n in sts
 * (measure.c). */
void gb_telemetry_begin(gt_device *d);
void gb_telemetry_end(const gb_env *env, gt_device *d, const gb_stats *const *sts, size_t n);

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

#endif
