/* gpubench: GEMM, reductions, stream kernels, transfers and launch latency
 * on every device, xgpu's kernels beside the vendor library on the same
 * device and OpenBLAS on the host; every result verified. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"
#include "device_id.h"
#include "peaks.h"
#include "outfile.h"

#include <limits.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: gpubench [-b LIST] [-d SELECTOR] [--all-devices] [--dtype LIST] [--full]\n"
    "                [--size N] [--reps N] [--time S] [--csv FILE] [--json FILE]\n"
    "       gpubench report [-o PREFIX] RESULT.json...\n"
    "       gpubench tune [-d SELECTOR] [-k LIST] [--dtype LIST] [--time S] ...\n"
    "                     (gpubench tune --help)\n"
    "\n"
    "Runs the benchmarks on every device (or those -d selects), xgpu's kernels\n"
    "beside the vendor library on the same buffers (CLBlast, cuBLAS, rocBLAS) and\n"
    "OpenBLAS on the host. With no options: a quick suite (about a minute on a\n"
    "2-core CPU device).\n"
    "\n"
    "  -b LIST       benchmarks, comma-separated: gemm,reduce,stream,transfer,launch,\n"
    "                p2p (default: all; p2p only with --all-devices or when named)\n"
    "  -d SELECTOR   devices, a comma-separated list of: an index (0), a backend\n"
    "                (cuda), a path (opencl:0), a PCI bus id (0000:01:00.0) or a\n"
    "                UUID, as gpuinfo prints them (the grammar of xgpu_device_match\n"
    "                in xgpu.h); each matching device once, in gpuinfo's order\n"
    "  --dtype LIST  element types, comma-separated: f32,f64,f16 for GEMM (the\n"
    "                vendor BLAS runs f32 and f64, OpenBLAS f32), f32,f64,i32 for the\n"
    "                reductions (the device-to-device copy runs with f32), f32 for\n"
    "                stream; a list none of the chosen benchmarks runs is a usage\n"
    "                error; default: all\n"
    "  --all-devices every device of the node at the same time, a thread and a\n"
    "                context each (one path per GPU, GPUs only when there are any;\n"
    "                with -d: the selected devices), then the p2p matrix: copy\n"
    "                bandwidth and latency between every pair, direct or staged\n"
    "                through the host (labelled)\n"
    "  --full        the full sweep (sizes up to what fits the device)\n"
    "  --size N      one size: n for GEMM, MiB for the others\n"
    "  --reps N      fixed repetitions instead of a time budget (launch always\n"
    "                takes 200 samples)\n"
    "  --time S      seconds of timed repetitions per case (default 0.2)\n"
    "  --csv FILE    results as CSV ('-' for standard output: the table then goes\n"
    "                to standard error)\n"
    "  --json FILE   results as JSON (schema xgpu.gpubench/1, with gpuinfo's JSON;\n"
    "                '-' as for --csv). Under a launcher every rank writes FILE:\n"
    "                leave it out to get one file per rank\n"
    "\n"
    "Methodology: a warm-up run first (its time, builds included, is reported as\n"
    "first_s), then repetitions timed with device events; median, min, max and\n"
    "stddev. Inputs are pseudo-random, never zeros; every result is checked against\n"
    "a host reference and a failed check marks the row FAILED.\n"
    "\n"
    "Under a launcher, found by its variables (Open MPI OMPI_COMM_WORLD_*, MPICH\n"
    "PMI_RANK and MPI_LOCALRANKID, Slurm SLURM_PROCID and SLURM_LOCALID, PMI_RANK or\n"
    "PMIX_RANK, Kubernetes JOB_COMPLETION_INDEX, SkyPilot SKYPILOT_NODE_RANK, RANK and\n"
    "LOCAL_RANK), a process with a local rank and no -d or --all-devices takes the\n"
    "node's device (local rank mod the node's devices; a launcher that binds one GPU\n"
    "per task through CUDA_VISIBLE_DEVICES leaves one). Without --json, results go to\n"
    "gpubench-HOST-rRANK-UUID.json (lRANK for a local rank alone; the device's path\n"
    "without a UUID, \"node\" for several devices); 'gpubench report' merges the\n"
    "files and names stragglers (examples/fleet/README.md).\n"
    "\n"
    "Each timed case records the device's telemetry (NVML or ROCm SMI; the host\n"
    "CPU's clock where neither serves it); a row taken while a thermal or power\n"
    "reason fired, or the SM clock fell below XGPU_THROTTLE_CLOCK_FRACTION (0.75)\n"
    "of its maximum, ends in THROTTLED.\n"
    "\n"
    "Exit status: 0 when every result verified, 1 when one failed (or no device\n"
    "ran, or -d matched none), 2 on usage errors (a -d that does not parse) before\n"
    "anything runs. gpubench report --help and gpubench tune --help say theirs.\n";

int gb_run_device(gb_options *o, xgpu_device *dev, gb_env *env) {
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
        } else if (!strcmp(a, "--all-devices")) {
            o->all_devices = true;
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
    if (o->csv && o->json && !strcmp(o->csv, "-") && !strcmp(o->json, "-")) {
        fprintf(stderr, "gpubench: --csv - and --json - cannot both write to standard output\n");
        return 2;
    }
    char why[1024];
    if (gb_check_benches(o->benches, why, sizeof why) != 0 ||
        gb_check_dtypes(o->dtypes, why, sizeof why) != 0 ||
        gb_check_dtype_use(o->benches, o->dtypes, why, sizeof why) != 0 ||
        (o->size && gb_check_size(o->benches, o->size, why, sizeof why) != 0)) {
        fprintf(stderr, "gpubench: %s\n", why);
        return 2;
    }
    return -1;
}

/* Under a launcher (o->rank set): without -d and --all-devices, the
 * device of this node's local rank (local rank mod the node's devices,
 * gb_node_devices) replaces run[] with that one device; --all-devices
 * keeps the node's devices. Without --json, results go to
 * gpubench-HOST-rRANK-UUID.json in the working folder ("node" for the UUID
 * when several devices run), its path written in `json`, which must
 * outlive *o. */
static void take_rank(gb_options *o, xgpu_device **run, uint32_t *nrun, char *json,
                      size_t json_size) {
    const gb_rank *r = o->rank;
    if (!r) {
        return;
    }
    fprintf(stderr, "gpubench: %s launcher: rank %d (%s)", r->engine, r->rank,
            r->rank >= 0 ? r->variable : "none");
    if (r->local_rank >= 0) {
        fprintf(stderr, ", local rank %d (%s)", r->local_rank, r->local_variable);
    }
    fputs("\n", stderr);
    bool pick = !o->selector && !o->all_devices && r->local_rank >= 0;
    if ((pick || (o->all_devices && !o->selector)) && *nrun) {
        *nrun = gb_node_devices(run, *nrun);
    }
    if (pick && *nrun) {
        run[0] = run[(uint32_t)r->local_rank % *nrun];
        xgpu_device_info info;
        xgpu_device_get_info(run[0], &info, sizeof info);
        fprintf(stderr, "gpubench: local rank %d: device %s:%u (%u of this node's %u)\n",
                r->local_rank, info.backend, info.backend_index, (uint32_t)r->local_rank % *nrun,
                *nrun);
        *nrun = 1;
    }
    if (o->json && r->size != 1) {
        fprintf(stderr,
                "gpubench: warning: every rank writes --json %s (the last one wins); leave "
                "--json out for a file per rank\n",
                o->json);
    }
    if (o->json || !*nrun) {
        return;
    }
    char id[64] = "node";
    if (*nrun == 1) {
        xgpu_device_info info;
        xgpu_device_get_info(run[0], &info, sizeof info);
        devid_uuid(&info, id, sizeof id);
        if (!*id) { /* no UUID: the path, unique on the host */
            snprintf(id, sizeof id, "%s%u", info.backend, info.backend_index);
        }
    }
    /* Said in full: a job's working folder is easy to mistake. */
    char cwd[PATH_MAX], host[128], uuid[64];
    gb_file_part(gb_host_name(), host, sizeof host);
    gb_file_part(id, uuid, sizeof uuid);
    /* A local rank alone ("l3") must not take a global rank's name. */
    snprintf(json, json_size, "%s/gpubench-%s-%s%d-%s.json", getcwd(cwd, sizeof cwd) ? cwd : ".",
             host, r->rank >= 0 ? "r" : "l", r->rank >= 0 ? r->rank : r->local_rank, uuid);
    o->json = json;
    fprintf(stderr, "gpubench: results to %s\n", json);
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
static int write_outputs(const gb_options *o, const gb_env *env, gb_outfile *csv,
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

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "report")) {
        return gb_report(argc - 2, argv + 2);
    }
    if (argc > 1 && !strcmp(argv[1], "tune")) {
        return gb_tune(argc - 2, argv + 2);
    }
    gb_options o = {false, false, NULL, NULL, NULL, 0, 0.2, 0, NULL, NULL, NULL, argc, argv};
    int usage_rc = parse_args(argc, argv, &o);
    if (usage_rc >= 0) {
        return usage_rc;
    }
    uint32_t ndev = 0;
    xgpu_device_count(&ndev);
    /* Every device, or those -d selects, before anything is created. */
    xgpu_device **run = NULL;
    uint32_t nrun = 0;
    int sel_rc = gb_select_devices(o.selector, ndev, &run, &nrun);
    if (sel_rc != 0) {
        return sel_rc;
    }
    gb_rank rank;
    o.rank = gb_rank_detect(&rank) ? &rank : NULL;
    char rank_json[PATH_MAX + 256];
    take_rank(&o, run, &nrun, rank_json, sizeof rank_json);
    if (o.all_devices && !o.rank && !o.selector) {
        nrun = gb_node_devices(run, nrun);
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
    if (o.all_devices) {
        fprintf(stderr, "gpubench: --all-devices: %u device%s at once\n", nrun,
                nrun == 1 ? "" : "s");
        ran = gb_run_all(&o, run, nrun, &env);
    } else {
        for (uint32_t i = 0; i < nrun; i++) {
            ran += gb_run_device(&o, run[i], &env) == 0;
        }
    }
    if (o.benches ? gb_selected(o.benches, "p2p") : o.all_devices) {
        /* Between physical devices: CUDA and OpenCL paths to one GPU are
         * one device (with -d, what it selected). */
        uint32_t npeer = o.selector ? nrun : gb_node_devices(run, nrun);
        gb_bench_p2p(&o, run, npeer, &env);
    }
    free(run);
    if (gb_selected(o.benches, "gemm") && gb_selected(o.dtypes, "f32")) {
        gb_bench_openblas(&env); /* the CPU baseline beside any device */
    }
    /* A machine-readable output on stdout keeps stdout to itself. */
    bool to_stdout = (o.csv && !strcmp(o.csv, "-")) || (o.json && !strcmp(o.json, "-"));
    int failed = print_results(to_stdout ? stderr : stdout, &env, t0);
    if (!ran) {
        fprintf(stderr, "gpubench: no device ran%s; see gpuinfo\n",
                o.selector ? " for that selector" : "");
    }
    int rc = write_outputs(&o, &env, &csv, &json);
    gb_results_free(&env.results);
    if (env.p2p) {
        free(env.p2p->pairs);
        free(env.p2p);
    }
    return rc ? rc : (failed || !ran ? 1 : 0);
}
