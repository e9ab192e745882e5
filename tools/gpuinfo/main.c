/* gpuinfo: every compute device on the machine, one line per physical
 * device, and why a backend is missing. */
#define _GNU_SOURCE
#include "gpuinfo.h"
#include "fields.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: gpuinfo [-v | --json | --doctor] [-d SELECTOR] [-h]\n"
    "       gpuinfo --watch [-i SECONDS] [--count N] [--csv FILE] [--jsonl FILE]\n"
    "               [-d SELECTOR]\n"
    "       gpuinfo --fit MODEL [--dtype DTYPE] [--mode MODE] [--context N]\n"
    "               [--batch N] [-d SELECTOR] [--json]\n"
    "\n"
    "Lists every compute device xgpu reaches, one line per physical device:\n"
    "  index  vendor  name  arch  compute units  memory  backend paths\n"
    "The same GPU seen through two backends (CUDA and OpenCL) is one line with\n"
    "both paths. Then one line per backend that is unavailable, with the reason.\n"
    "\n"
    "  -v, --verbose   every field of every device, grouped, then the backends\n"
    "                  and the vendor libraries each one loaded\n"
    "  --json          the same as JSON (schema \"xgpu.gpuinfo/1\"): numbers as\n"
    "                  numbers, units in key names, unknown values as null\n"
    "  --doctor        check each backend layer by layer (plugin, vendor\n"
    "                  libraries, OpenCL ICD files, /dev nodes, environment),\n"
    "                  then build and run a small kernel on every device\n"
    "  -d SELECTOR     only the devices SELECTOR matches, a comma-separated list\n"
    "                  of: an index (0), a backend (cuda), a backend path\n"
    "                  (opencl:1), a PCI bus id (0000:01:00.0) or a UUID, as\n"
    "                  printed here; a GPU is shown when any of its paths\n"
    "                  matches (the grammar of xgpu_device_match in xgpu.h)\n"
    "  --watch         every device's SM and memory clocks (MHz), power and\n"
    "                  power limit (W), temperature (C), utilisation (%), memory\n"
    "                  used (MiB) and throttle reasons, one line per device per\n"
    "                  interval, from NVML or ROCm SMI (loaded when present;\n"
    "                  \"-\" for what is unknown), until Ctrl-C or SIGTERM\n"
    "    -i SECONDS    the interval, 0.1 to 3600 (default 1)\n"
    "    --count N     stop after N intervals\n"
    "    --csv FILE    also as CSV, --jsonl FILE as JSON lines (one object per\n"
    "                  device and interval, unknown values null); '-' is\n"
    "                  standard output, and the table is then left out\n"
    "  --fit MODEL     whether MODEL fits in each device's memory: the estimate by\n"
    "                  part (weights, KV cache, activations, gradients, optimizer\n"
    "                  states, overhead), each device's total and free memory,\n"
    "                  and the verdict (fits, does not fit, fits on N devices);\n"
    "                  MODEL is a parameter count (7b, 1.5b, 500m) or a Hugging\n"
    "                  Face config.json; formulas and sources in docs/fit.md\n"
    "    --dtype DTYPE fp32, fp16, bf16, int8 or int4 (default fp16; bf16 with\n"
    "                  qlora, whose base is always 4-bit NF4)\n"
    "    --mode MODE   infer, train (full, mixed-precision Adam), lora or qlora\n"
    "                  (rank 16 on q, k, v, o); default infer\n"
    "    --context N   tokens per sequence (default 4096), --batch N sequences\n"
    "                  (default 1); with --json, the \"xgpu.gpuinfo.fit/1\" document\n"
    "  -h, --help      this text\n"
    "\n"
    "Environment: XGPU_BACKENDS=cuda,opencl restricts the backends loaded;\n"
    "XGPU_PLUGIN_PATH adds plugin directories; XGPU_LOG=debug traces loading;\n"
    "CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES are\n"
    "applied by the vendor drivers. XGPU_NVML_LIBRARY and XGPU_ROCM_SMI_LIBRARY\n"
    "name the telemetry libraries --watch loads (libnvidia-ml.so.1,\n"
    "librocm_smi64.so).\n"
    "\n"
    "Exit status: 0 when at least one device was found (with --doctor: when at\n"
    "least one passed the smoke test), 1 when none, 2 on a usage or internal\n"
    "error. With --fit: 0 when the model fits (on one device or split over\n"
    "several), 1 when it does not, 2 on a bad MODEL, option or config.json.\n";

enum mode { MODE_SHORT, MODE_VERBOSE, MODE_JSON, MODE_DOCTOR };

/* The command line (--watch is taken before) into *mode and *selector.
 * Returns -1 to go on, else the exit status: 0 after --help, 2 on a usage
 * error (said on stderr). */
static int parse_args(int argc, char **argv, enum mode *mode, const char **selector) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            *mode = MODE_VERBOSE;
        } else if (!strcmp(a, "--json")) {
            *mode = MODE_JSON;
        } else if (!strcmp(a, "--doctor")) {
            *mode = MODE_DOCTOR;
        } else if (!strcmp(a, "-d") || !strcmp(a, "--device")) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                fprintf(stderr, "gpuinfo: %s needs a selector\n\n%s", a, usage);
                return 2;
            }
            *selector = argv[++i];
        } else if (!strcmp(a, "-i") || !strcmp(a, "--count") || !strcmp(a, "--csv") ||
                   !strcmp(a, "--jsonl")) {
            fprintf(stderr, "gpuinfo: %s is an option of --watch (gpuinfo --watch %s ...)\n", a, a);
            return 2;
        } else {
            fprintf(stderr, "gpuinfo: unknown option '%s'\n\n%s", a, usage);
            return 2;
        }
    }
    return -1;
}

/* The devices in the mode's form on stdout; returns how many count for
 * the exit status (with --doctor: those that passed the smoke test). */
static uint32_t print_mode(enum mode mode, const pd_device *devs, uint32_t n) {
    switch (mode) {
    case MODE_SHORT:
        gi_print_short(stdout, devs, n, 1);
        break;
    case MODE_VERBOSE:
        gi_print_verbose(stdout, devs, n);
        gi_print_backends(stdout);
        break;
    case MODE_JSON:
        df_print_json_more(stdout, devs, n, gi_frameworks_json, NULL);
        break;
    case MODE_DOCTOR:
        return gi_doctor(stdout, devs, n);
    }
    return n;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            break;
        }
        if (!strcmp(argv[i], "--watch")) {
            return gi_watch(argc, argv);
        }
        if (!strcmp(argv[i], "--fit")) {
            return gi_fit(argc, argv);
        }
    }
    enum mode mode = MODE_SHORT;
    const char *selector = NULL;
    int usage_rc = parse_args(argc, argv, &mode, &selector);
    if (usage_rc >= 0) {
        return usage_rc;
    }
    if (mode == MODE_DOCTOR) {
        /* The doctor reports the CUDA driver's and the HIP runtime's
         * versions even where they cannot see a GPU, so the backends must
         * load them. */
        setenv("XGPU_CUDA_PROBE", "always", 0);
        setenv("XGPU_HIP_PROBE", "always", 0);
    }
    pd_device *all = NULL;
    uint32_t n = 0;
    if (gi_devices(selector, &all, &n) == 2) {
        free(all);
        return 2;
    }
    uint32_t ok = print_mode(mode, all, n);
    free(all);
    if (fflush(stdout) != 0) {
        return 2; /* e.g. a closed pipe or a full disk: the output is incomplete */
    }
    return ok ? 0 : 1;
}
