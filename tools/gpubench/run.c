/* The benchmark run, gpubench's default command: the devices chosen, each
 * one's context and benchmarks, the table on the terminal and the result
 * files. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"
#include "outfile.h"
#include "peaks.h"

#include <limits.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gb_run_device(const gb_options *o, xgpu_device *dev, gb_env *env) {
    env->device = dev;
    xgpu_device_get_info(dev, &env->info, sizeof env->info);
    snprintf(env->path, sizeof env->path, "%s:%u", env->info.backend, env->info.backend_index);
    peak_figure peak;
    peak_fp32(&env->info, &peak);
    env->peak_gflops = peak.known ? peak.value : -1;
    peak_bandwidth(&env->info, &peak);
    env->peak_gbs = peak.known ? peak.value : -1;
    if (xgpu_context_create(dev, &env->ctx) || xgpu_queue_create(env->ctx, &env->queue)) {
        fprintf(stderr, "gpubench: %s: %s\n", env->path, xgpu_last_error()->message);
        return -1;
    }
    gb_telemetry_open(env);
    gb_health_open(env);
    if (gb_selected(o->benches, "gemm")) {
        gb_bench_gemm(env);
    }
    if (gb_selected(o->benches, "reduce")) {
        gb_bench_reduce(env);
    }
    if (gb_selected(o->benches, "stream")) {
        gb_bench_stream(env);
    }
    if (gb_selected(o->benches, "transfer")) {
        gb_bench_transfer(env);
    }
    if (gb_selected(o->benches, "launch")) {
        gb_bench_launch(env);
    }
    gb_health_close(env);
    gb_telemetry_close(env);
    xgpu_queue_release(env->queue);
    xgpu_context_release(env->ctx);
    env->queue = NULL;
    env->ctx = NULL;
    return 0;
}

/* The devices to run on, in device order, in *out (malloc'ed): all of
 * them, or those `selector` matches (xgpu_device_match's grammar).
 * Returns 0; 1 when a term matches nothing, 2 when the selector does not
 * parse or memory runs out (said on stderr). */
int gb_select_devices(const char *selector, uint32_t ndev, xgpu_device ***out, uint32_t *n) {
    *out = NULL;
    *n = 0;
    uint32_t want = ndev;
    xgpu_status st = selector ? xgpu_device_match(selector, NULL, 0, &want) : XGPU_SUCCESS;
    if (st == XGPU_SUCCESS && want) {
        *out = calloc(want, sizeof **out);
        if (!*out) {
            fprintf(stderr, "gpubench: out of memory\n");
            return 2;
        }
        if (selector) {
            st = xgpu_device_match(selector, *out, want, n);
        } else {
            for (uint32_t i = 0; st == XGPU_SUCCESS && i < want; i++) {
                st = xgpu_device_get(i, &(*out)[i]);
                *n += st == XGPU_SUCCESS;
            }
        }
    }
    if (st != XGPU_SUCCESS) {
        if (selector) {
            fprintf(stderr, "gpubench: -d %s: %s\n", selector, xgpu_last_error()->message);
        } else {
            fprintf(stderr, "gpubench: %s\n", xgpu_last_error()->message);
        }
        free(*out);
        *out = NULL;
        *n = 0;
        return st == XGPU_ERROR_INVALID_ARGUMENT ? 2 : 1;
    }
    return 0;
}

/* The devices to run on, in *run (malloc'ed): every device or those -d
 * selects, then the launcher's rank or --all-devices' node devices (o->rank
 * and, for the rank's result file, o->json, pointing into `rank` and
 * `rank_json`). 0, or the exit status. */
static int choose_devices(gb_run_options *o, gb_rank *rank, xgpu_device ***run, uint32_t *nrun,
                          char *rank_json, size_t rank_json_size) {
    uint32_t ndev = 0;
    xgpu_device_count(&ndev);
    /* Every device, or those -d selects, before anything is created. */
    int sel_rc = gb_select_devices(o->selector, ndev, run, nrun);
    if (sel_rc != 0) {
        return sel_rc;
    }
    o->rank = gb_rank_detect(rank) ? rank : NULL;
    gb_take_rank(o, *run, nrun, rank_json, rank_json_size);
    if (o->all_devices && !o->rank && !o->selector) {
        *nrun = gb_node_devices(*run, *nrun);
    }
    return 0;
}

/* The chosen devices (all at once with --all-devices), the p2p matrix
 * between them, and OpenBLAS on the host; returns how many devices ran. */
static int run_benchmarks(const gb_run_options *o, xgpu_device **run, uint32_t nrun, gb_env *env) {
    int ran = 0;
    if (o->all_devices) {
        fprintf(stderr, "gpubench: --all-devices: %u device%s at once\n", nrun,
                nrun == 1 ? "" : "s");
        ran = gb_run_all(&o->bench, run, nrun, env);
    } else {
        for (uint32_t i = 0; i < nrun; i++) {
            ran += gb_run_device(&o->bench, run[i], env) == 0;
        }
    }
    if (o->bench.benches ? gb_selected(o->bench.benches, "p2p") : o->all_devices) {
        /* Between physical devices: CUDA and OpenCL paths to one GPU are
         * one device (with -d, what it selected). */
        uint32_t npeer = o->selector ? nrun : gb_node_devices(run, nrun);
        gb_bench_p2p(&o->bench, run, npeer, env);
    }
    if (gb_selected(o->bench.benches, "gemm") && gb_selected(o->bench.dtypes, "f32")) {
        gb_bench_openblas(env); /* the CPU baseline beside any device */
    }
    return ran;
}

/* The table and the one-line summary on `out` (stdout, or stderr when
 * --csv or --json writes to stdout); returns how many rows and p2p pairs
 * failed verification (a row that could not run is unverified). */
static int print_results(FILE *out, const gb_env *env, double t0) {
    if (env->progress) {
        fputs("\r\033[K", stderr);
    }
    gb_print_table(out, &env->results);
    int p2p_failed = gb_print_p2p(out, env->p2p) + env->p2p_failed;
    double first = 0;
    int failed = 0;
    for (size_t i = 0; i < env->results.count; i++) {
        first += env->results.rows[i]->first_s;
        failed += !env->results.rows[i]->verified;
    }
    char pairs[64] = "";
    if (env->p2p && env->p2p->count) {
        snprintf(pairs, sizeof pairs, " and %zu p2p pair(s)", env->p2p->count);
    }
    fprintf(out,
            "\n%zu results%s, %d failed verification; %.1f s in all, %.1f s of it in first runs "
            "(builds, first launches)\n",
            env->results.count, pairs, failed + p2p_failed, gb_now() - t0, first);
    return failed + p2p_failed;
}

/* --csv and --json written into their temporaries and renamed over the
 * destinations; 0, or 2 when one could not be committed (said on stderr). */
static int write_outputs(const gb_run_options *o, const gb_env *env, gb_outfile *csv,
                         gb_outfile *json) {
    char why[1024];
    int rc = 0;
    if (o->csv) {
        gb_write_csv(csv->f, &env->results);
        if (gb_outfile_commit(csv, why, sizeof why) != 0) {
            fprintf(stderr, "gpubench: --csv %s\n", why);
            rc = 2;
        }
    }
    if (o->json) {
        gb_write_json(json->f, o, env);
        if (gb_outfile_commit(json, why, sizeof why) != 0) {
            fprintf(stderr, "gpubench: --json %s\n", why);
            rc = 2;
        }
    }
    return rc;
}

int gb_run(const gb_run_options *cli) {
    gb_run_options o = *cli;
    gb_rank rank;
    char rank_json[PATH_MAX + 256];
    xgpu_device **run = NULL;
    uint32_t nrun = 0;
    int rc = choose_devices(&o, &rank, &run, &nrun, rank_json, sizeof rank_json);
    if (rc != 0) {
        return rc;
    }
    /* The destinations are checked (a temporary created beside each) before
     * the run, not found unwritable after it. */
    char why[1024];
    gb_outfile csv = {0}, json = {0};
    if ((o.csv && gb_outfile_open(&csv, o.csv, why, sizeof why) != 0) ||
        (o.json && gb_outfile_open(&json, o.json, why, sizeof why) != 0)) {
        fprintf(stderr, "gpubench: %s%s\n", o.csv && !csv.f ? "--csv " : "--json ", why);
        gb_outfile_discard(&csv);
        free(run);
        return 2;
    }
    gb_env env;
    memset(&env, 0, sizeof env);
    env.opt = &o.bench;
    env.progress = isatty(STDERR_FILENO);
    double t0 = gb_now();
    o.started = time(NULL);
    int ran = run_benchmarks(&o, run, nrun, &env);
    free(run);
    /* A machine-readable output on stdout keeps stdout to itself. */
    bool to_stdout = (o.csv && !strcmp(o.csv, "-")) || (o.json && !strcmp(o.json, "-"));
    int failed = print_results(to_stdout ? stderr : stdout, &env, t0);
    if (!ran) {
        fprintf(stderr, "gpubench: no device ran%s; see gpuinfo\n",
                o.selector ? " for that selector" : "");
    }
    rc = write_outputs(&o, &env, &csv, &json);
    gb_results_free(&env.results);
    gb_health_free(&env.health);
    if (env.p2p) {
        free(env.p2p->pairs);
        free(env.p2p);
    }
    return rc ? rc : (failed || !ran ? 1 : 0);
}
