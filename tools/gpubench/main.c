/* gpubench: GEMM, reductions, stream kernels, transfers and launch latency
 * on every device, xgpu's kernels beside the vendor library on the same
 * device and OpenBLAS on the host; every result verified. This file picks
 * the command: the run (run.c), report (report.c) or tune (tune.c). */
#include "gpubench.h"
#include "tune_env.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: gpubench [-b LIST] [-d SELECTOR] [--all-devices] [--dtype LIST] [--full]\n"
    "                [--size N] [--batch N] [--reps N] [--time S] [--csv FILE]\n"
    "                [--json FILE]\n"
    "       gpubench check [-d SELECTOR] [RESULT.json...] (gpubench check --help)\n"
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
    "  --dtype LIST  element types, comma-separated: f32,f64,f16,bf16,tf32,int8 for\n"
    "                GEMM (f16 and bf16: A and B in that type, C in f32; tf32: f32\n"
    "                buffers multiplied in tf32 where the device has matrix units;\n"
    "                int8: the vendor BLAS only, C in int32; OpenBLAS runs f32),\n"
    "                f32,f64,i32 for the reductions (the device-to-device copy runs\n"
    "                with f32), f32 for stream; a list none of the chosen benchmarks\n"
    "                runs is a usage error; default: all\n"
    "  --all-devices every device of the node at the same time, a thread and a\n"
    "                context each (one path per GPU, GPUs only when there are any;\n"
    "                with -d: the selected devices), then the p2p matrix: copy\n"
    "                bandwidth and latency between every pair, direct or staged\n"
    "                through the host (labelled)\n"
    "  --full        the full sweep (sizes up to what fits the device)\n"
    "  --size N      one size: n for GEMM, MiB for the others\n"
    "  --batch N     GEMM as strided-batched: N GEMMs of n x n x n per run (n: --size,\n"
    "                else 512), xgpu beside the vendor's batched GEMM (1 to 65535)\n"
    "  --reps N      fixed repetitions instead of a time budget (launch always\n"
    "                takes 200 samples)\n"
    "  --time S      seconds of timed repetitions per case (default 0.2)\n"
    "  --csv FILE    results as CSV ('-' for standard output: the table then goes\n"
    "                to standard error)\n"
    "  --json FILE   results as JSON (schema xgpu.gpubench/1, with gpuinfo's JSON;\n"
    "                '-' as for --csv). Under a launcher every rank writes FILE:\n"
    "                leave it out to get one file per rank\n"
    "  -h, --help    this text\n";

/* The rest of --help (one string would pass C's 4095-character minimum). */
static const char usage_notes[] =
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
    "ran, or -d matched none), 2 on usage errors (a -d that does not parse, an\n"
    "XGPU_TUNE or XGPU_TUNE_BUDGET_S the library does not read) before anything\n"
    "runs, or when a result file could not be written. gpubench report --help and\n"
    "gpubench tune --help say theirs; the guide is docs/gpubench.md (man gpubench).\n";

/* The command line into *o. Returns -1 to go on and run, else the exit
 * status: 0 after --help, 2 on a usage error (said on stderr). */
static int parse_args(int argc, char **argv, gb_run_options *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            fputs(usage_notes, stdout);
            return 0;
        } else if (!strcmp(a, "--full")) {
            o->bench.full = true;
        } else if (!strcmp(a, "--all-devices")) {
            o->all_devices = true;
        } else if (!strcmp(a, "-b") && v) {
            o->bench.benches = v, i++;
        } else if (!strcmp(a, "-d") && v) {
            o->selector = v, i++;
        } else if (!strcmp(a, "--dtype") && v) {
            o->bench.dtypes = v, i++;
        } else if (!strcmp(a, "--size") && v) {
            char why[160];
            if (gb_parse_size(v, &o->bench.size, why, sizeof why) != 0) {
                fprintf(stderr, "gpubench: %s\n", why);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--batch") && v) {
            char why[160];
            if (gb_parse_batch(v, &o->bench.batch, why, sizeof why) != 0) {
                fprintf(stderr, "gpubench: %s\n", why);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--reps") && v && atoi(v) > 0) {
            o->bench.reps = atoi(v), i++;
        } else if (!strcmp(a, "--time") && v && atof(v) > 0) {
            o->bench.time_budget = atof(v), i++;
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
    const gb_options *b = &o->bench;
    if (gb_check_benches(b->benches, why, sizeof why) != 0 ||
        gb_check_dtypes(b->dtypes, why, sizeof why) != 0 ||
        gb_check_dtype_use(b->benches, b->dtypes, why, sizeof why) != 0 ||
        (b->size && gb_check_size(b->benches, b->size, why, sizeof why) != 0) ||
        (b->batch && gb_check_batch(b->benches, b->size, b->batch, why, sizeof why) != 0)) {
        fprintf(stderr, "gpubench: %s\n", why);
        return 2;
    }
    /* A typo in XGPU_TUNE would measure every kernel under a mode nobody
     * asked for (the library only warns, under XGPU_LOG=warn). */
    if (tune_env_check(why, sizeof why) != 0) {
        fprintf(stderr, "gpubench: %s\n", why);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "report")) {
        return gb_report(argc - 2, argv + 2);
    }
    if (argc > 1 && !strcmp(argv[1], "check")) {
        return gb_check(argc - 2, argv + 2);
    }
    if (argc > 1 && !strcmp(argv[1], "tune")) {
        return gb_tune(argc - 2, argv + 2);
    }
    gb_run_options o = {.bench = {.time_budget = 0.2}, .argc = argc, .argv = argv};
    int usage_rc = parse_args(argc, argv, &o);
    if (usage_rc >= 0) {
        return usage_rc;
    }
    return gb_run(&o);
}
