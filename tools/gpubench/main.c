/* gpubench: GEMM, reductions, stream kernels, transfers and launch latency
 * on every device, xgpu's kernels beside the vendor library on the same
 * device and OpenBLAS on the host; every result verified. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"
#include "gpuinfo.h"
#include "outfile.h"

#include <limits.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: gpubench [-b LIST] [-d SELECTOR] [--dtype LIST] [--full] [--size N]\n"
    "                [--reps N] [--time S] [--csv FILE] [--json FILE]\n"
    "       gpubench report [-o PREFIX] RESULT.json...\n"
    "       gpubench tune [-d SELECTOR] [-k LIST] [--dtype LIST] [--time S] ...\n"
    "                     (gpubench tune --help)\n"
    "\n"
    "Runs the benchmarks on every device (or those -d selects), xgpu's kernels\n"
    "beside the vendor library on the same buffers (CLBlast, cuBLAS, rocBLAS) and\n"
    "OpenBLAS on the host. With no options: a quick suite (about a minute on a\n"
    "2-core CPU device).\n"
    "\n"
    "  -b LIST       benchmarks, comma-separated: gemm,reduce,stream,transfer,launch\n"
    "                (default: all)\n"
    "  -d SELECTOR   devices, a comma-separated list of: an index (0), a backend\n"
    "                (cuda), a path (opencl:0), a PCI bus id (0000:01:00.0) or a\n"
    "                UUID, as gpuinfo prints them (the grammar of xgpu_device_match\n"
    "                in xgpu.h); each matching device once, in gpuinfo's order\n"
    "  --dtype LIST  element types, comma-separated: f32,f64,f16 for GEMM (the\n"
    "                vendor BLAS runs f32 and f64, OpenBLAS f32), f32,f64,i32 for the\n"
    "                reductions (the device-to-device copy runs with f32);\n"
    "                default: all\n"
    "  --full        the full sweep (sizes up to what fits the device)\n"
    "  --size N      one size: n for GEMM, MiB for the others\n"
    "  --reps N      fixed repetitions instead of a time budget\n"
    "  --time S      seconds of timed repetitions per case (default 0.2)\n"
    "  --csv FILE    results as CSV ('-' for standard output)\n"
    "  --json FILE   results as JSON (schema xgpu.gpubench/1, with gpuinfo's JSON)\n"
    "\n"
    "Methodology: a warm-up run first (its time, builds included, is reported as\n"
    "first_s), then repetitions timed with device events; median, min, max and\n"
    "stddev. Inputs are pseudo-random, never zeros; every result is checked against\n"
    "a host reference and a failed check marks the row FAILED.\n"
    "\n"
    "Under Slurm or an MPI launcher (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK,\n"
    "MPI_LOCALRANKID, LOCAL_RANK) each process takes device (rank mod count) and, without\n"
    "--json, writes gpubench-HOST-RANK.json; 'gpubench report' merges the files.\n"
    "\n"
    "Exit status: 0 when every result verified, 1 when one failed (or no device\n"
    "ran, or -d matched none), 2 on usage errors (a -d that does not parse) or\n"
    "unreadable report input.\n";

static int run_device(gb_options *o, xgpu_device *dev, gb_env *env) {
    env->device = dev;
    xgpu_device_get_info(dev, &env->info, sizeof env->info);
    snprintf(env->path, sizeof env->path, "%s:%u", env->info.backend, env->info.backend_index);
    gi_value v;
    memset(&v, 0, sizeof v);
    gi_peak_fp32(&env->info, &v);
    env->peak_gflops = v.kind == GI_FLOAT ? v.f : -1;
    memset(&v, 0, sizeof v);
    gi_peak_bandwidth(&env->info, &v);
    env->peak_gbs = v.kind == GI_FLOAT ? v.f : -1;
    if (xgpu_context_create(dev, &env->ctx) || xgpu_queue_create(env->ctx, &env->queue)) {
        fprintf(stderr, "gpubench: %s: %s\n", env->path, xgpu_last_error()->message);
        return -1;
    }
    gb_telemetry_open(env);
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

/* The command line into *o. Returns -1 to go on and run, else the exit
 * status: 0 after --help, 2 on a usage error (said on stderr). */
static int parse_args(int argc, char **argv, gb_options *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--full")) {
            o->full = true;
        } else if (!strcmp(a, "-b") && v) {
            o->benches = v, i++;
        } else if (!strcmp(a, "-d") && v) {
            o->selector = v, i++;
        } else if (!strcmp(a, "--dtype") && v) {
            o->dtypes = v, i++;
        } else if (!strcmp(a, "--size") && v) {
            char why[160];
            if (gb_parse_size(v, &o->size, why, sizeof why) != 0) {
                fprintf(stderr, "gpubench: %s\n", why);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--reps") && v && atoi(v) > 0) {
            o->reps = atoi(v), i++;
        } else if (!strcmp(a, "--time") && v && atof(v) > 0) {
            o->time_budget = atof(v), i++;
        } else if (!strcmp(a, "--csv") && v) {
            o->csv = v, i++;
        } else if (!strcmp(a, "--json") && v) {
            o->json = v, i++;
        } else {
            fprintf(stderr, "gpubench: bad argument '%s'\n\n%s", a, usage);
            return 2;
        }
    }
    char why[1024];
    if (gb_check_benches(o->benches, why, sizeof why) != 0 ||
        gb_check_dtypes(o->dtypes, why, sizeof why) != 0 ||
        (o->size && gb_check_size(o->benches, o->size, why, sizeof why) != 0)) {
        fprintf(stderr, "gpubench: %s\n", why);
        return 2;
    }
    return -1;
}

/* Under a launcher that gives a node-local rank, and without -d: the
 * device (rank mod ndev), its selector written in `sel`, and without
 * --json, results to gpubench-HOST-RANK.json in the working folder, its
 * path written in `json`. Both buffers are the caller's and must outlive
 * *o. */
static void take_local_rank(gb_options *o, uint32_t ndev, char *sel, size_t sel_size, char *json,
                            size_t json_size) {
    const char *rank_var = NULL;
    int rank = gb_local_rank(&rank_var);
    if (rank < 0 || o->selector || !ndev) {
        return;
    }
    snprintf(sel, sel_size, "%u", (unsigned)rank % ndev);
    o->selector = sel;
    fprintf(stderr, "gpubench: %s=%d: device %s\n", rank_var, rank, sel);
    if (o->json) {
        return;
    }
    /* Said in full: a job's working folder is easy to mistake. */
    char cwd[PATH_MAX], host[128];
    snprintf(host, sizeof host, "%s", gb_host_name());
    for (char *c = host; *c; c++) {
        *c = *c == '/' ? '_' : *c; /* a forced name stays one file name */
    }
    snprintf(json, json_size, "%s/gpubench-%s-%d.json", getcwd(cwd, sizeof cwd) ? cwd : ".", host,
             rank);
    o->json = json;
    fprintf(stderr, "gpubench: %s=%d: results to %s\n", rank_var, rank, json);
}

/* The table and the one-line summary on stdout; returns how many rows
 * failed verification (a row that could not run is unverified). */
static int print_results(const gb_env *env, double t0) {
    if (env->progress) {
        fputs("\r\033[K", stderr);
    }
    gb_print_table(stdout, env->results, env->count);
    double first = 0;
    int failed = 0;
    for (size_t i = 0; i < env->count; i++) {
        first += env->results[i].first_s;
        failed += !env->results[i].verified;
    }
    printf("\n%zu results, %d failed verification; %.1f s in all, %.1f s of it in first runs "
           "(builds, first launches)\n",
           env->count, failed, gb_now() - t0, first);
    return failed;
}

/* --csv and --json written into their temporaries and renamed over the
 * destinations; 0, or 2 when one could not be committed (said on stderr). */
static int write_outputs(const gb_options *o, const gb_env *env, gb_outfile *csv,
                         gb_outfile *json) {
    char why[1024];
    int rc = 0;
    if (o->csv) {
        gb_write_csv(csv->f, env->results, env->count);
        if (gb_outfile_commit(csv, why, sizeof why) != 0) {
            fprintf(stderr, "gpubench: --csv %s\n", why);
            rc = 2;
        }
    }
    if (o->json) {
        gb_write_json(json->f, o, env->results, env->count);
        if (gb_outfile_commit(json, why, sizeof why) != 0) {
            fprintf(stderr, "gpubench: --json %s\n", why);
            rc = 2;
        }
    }
    return rc;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "report")) {
        return gb_report(argc - 2, argv + 2);
    }
    if (argc > 1 && !strcmp(argv[1], "tune")) {
        return gb_tune(argc - 2, argv + 2);
    }
    gb_options o = {false, NULL, NULL, NULL, 0, 0.2, 0, NULL, NULL, argc, argv};
    int usage_rc = parse_args(argc, argv, &o);
    if (usage_rc >= 0) {
        return usage_rc;
    }
    uint32_t ndev = 0;
    xgpu_device_count(&ndev);
    char rank_sel[16], rank_json[PATH_MAX + 192];
    take_local_rank(&o, ndev, rank_sel, sizeof rank_sel, rank_json, sizeof rank_json);
    /* Every device, or those -d selects, before anything is created. */
    xgpu_device **run = NULL;
    uint32_t nrun = 0;
    int sel_rc = gb_select_devices(o.selector, ndev, &run, &nrun);
    if (sel_rc != 0) {
        return sel_rc;
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
    env.opt = &o;
    env.progress = isatty(STDERR_FILENO);
    double t0 = gb_now();
    int ran = 0;
    for (uint32_t i = 0; i < nrun; i++) {
        ran += run_device(&o, run[i], &env) == 0;
    }
    free(run);
    if (gb_selected(o.benches, "gemm") && gb_selected(o.dtypes, "f32")) {
        gb_bench_openblas(&env); /* the CPU baseline beside any device */
    }
    int failed = print_results(&env, t0);
    if (!ran) {
        fprintf(stderr, "gpubench: no device ran%s; see gpuinfo\n",
                o.selector ? " for that selector" : "");
    }
    int rc = write_outputs(&o, &env, &csv, &json);
    free(env.results);
    return rc ? rc : (failed || !ran ? 1 : 0);
}
