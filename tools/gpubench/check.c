/* gpubench check: a verdict per device. Live, it runs a short verified
 * set (stream bandwidth, f32 GEMM through xgpu and the vendor library,
 * pinned transfers, launch latency) into a result file, then judges that
 * file; offline, it judges result files given on the command line. Both go
 * through the same reader and rules (check/check.h). */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "gpubench.h"
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char check_usage[] =
    "usage: gpubench check [-d SELECTOR] [--save FILE] [--reference FILE] [--json FILE]\n"
    "                      [--time S]\n"
    "       gpubench check [--reference FILE] [--json FILE] RESULT.json...\n"
    "\n"
    "A verdict per device: is it the model it claims, healthy, and as fast as\n"
    "others of its model? Without files it runs a short verified set on every\n"
    "device (or those -d selects): stream triad (1 GiB on a GPU with room),\n"
    "f32 GEMM through xgpu and the vendor library (n=4096 on a GPU), pinned\n"
    "host<->device copies and launch latency, with the device's telemetry and\n"
    "health (PCIe link under load, ECC, remapped rows, NVLink, MIG,\n"
    "persistence, driver versions). With files, it judges gpubench result\n"
    "files of any xgpu 0.x instead, saying what an older file lacks.\n"
    "\n"
    "Verdicts, worst first: FAULTY (wrong results, uncorrectable memory errors,\n"
    "a failed row remap, a driver library that does not match the kernel\n"
    "module), DEGRADED (a PCIe link below its maximum under load or a slot\n"
    "below the card's, NVLink links down, MIG on, persistence off, ECC off,\n"
    "pending remaps or page retirements, thermal slowdown, fewer compute units\n"
    "or less memory than the model), UNDERPERFORMING (a figure below its\n"
    "reference by more than the tolerance), UNKNOWN (no reference for the\n"
    "model: figures only), OK. The reference table ships with gpubench (spec\n"
    "sheets, and medians this project measured, each with its source).\n"
    "\n"
    "  -d SELECTOR       devices, as for gpubench -d (default: all)\n"
    "  --save FILE       keep the live run's result file (gpubench's JSON) as FILE\n"
    "  --reference FILE  a reference table (schema xgpu.gpu-references/1) over the\n"
    "                    shipped one: its models replace those of the same name\n"
    "  --json FILE       the verdicts as JSON (schema xgpu.gpubench-check/1; '-'\n"
    "                    for standard output, the table then goes to standard error)\n"
    "  --time S          seconds of timed repetitions per case (default 0.2)\n"
    "  -h, --help        this text\n"
    "\n"
    "Exit status: 0 when every device is OK; 1 when any is not (UNKNOWN\n"
    "included), or when no device ran; 2 on a usage error, a reference table\n"
    "that cannot be read, when no result file could be read, or when an output\n"
    "could not be written.\n";

typedef struct check_opts {
    const char *selector, *save, *reference, *json;
    double time;
    char **files;
    int nfiles;
} check_opts;

static bool is_value_option(const char *a) {
    static const char *const with_value[] = {"-d", "--save", "--reference", "--json", "--time"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++) {
        if (!strcmp(a, with_value[i])) {
            return true;
        }
    }
    return false;
}

static int parse(int argc, char **argv, check_opts *o) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(check_usage, stdout);
            return 0;
        } else if (!strcmp(a, "--")) {
            for (i++; i < argc; i++) {
                o->files[o->nfiles++] = argv[i];
            }
        } else if (is_value_option(a) && !v) {
            fprintf(stderr, "gpubench check: %s needs a value\n\n%s", a, check_usage);
            return 2;
        } else if (!strcmp(a, "-d")) {
            o->selector = v, i++;
        } else if (!strcmp(a, "--save")) {
            o->save = v, i++;
        } else if (!strcmp(a, "--reference")) {
            o->reference = v, i++;
        } else if (!strcmp(a, "--json")) {
            o->json = v, i++;
        } else if (!strcmp(a, "--time")) {
            char *end;
            o->time = strtod(v, &end);
            if (*end || !(o->time > 0 && o->time <= 60)) {
                fprintf(stderr, "gpubench check: --time %s: not a number of seconds in (0, 60]\n",
                        v);
                return 2;
            }
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpubench check: unknown option '%s'\n\n%s", a, check_usage);
            return 2;
        } else {
            o->files[o->nfiles++] = argv[i];
        }
    }
    if (o->nfiles && (o->selector || o->save)) {
        fprintf(stderr, "gpubench check: -d and --save are for a live run, not with result "
                        "files\n");
        return 2;
    }
    return -1;
}

/* The live run's benchmarks on one device: sizes a GPU's figures are
 * comparable at (the references were measured there), small ones on a
 * CPU device. */
static void run_device(xgpu_device *dev, double time, gb_env *env) {
    xgpu_device_info info;
    xgpu_device_get_info(dev, &info, sizeof info);
    bool gpu = info.type == XGPU_DEVICE_TYPE_GPU;
    size_t stream_mib = gpu && info.global_mem_bytes >= ((uint64_t)8 << 30) ? 1024 : 0;
    gb_options sets[3] = {
        {.benches = "gemm", .dtypes = "f32", .size = gpu ? 4096 : 256, .time_budget = time},
        {.benches = "stream", .dtypes = "f32", .size = stream_mib, .time_budget = time},
        {.benches = "transfer,launch", .dtypes = NULL, .size = 0, .time_budget = time},
    };
    for (int s = 0; s < 3; s++) {
        env->opt = &sets[s];
        fprintf(stderr, "gpubench check: %s:%u: %s\n", info.backend, info.backend_index,
                sets[s].benches);
        gb_run_device(&sets[s], dev, env);
    }
}

/* Why each backend that is not available is not: when no device is
 * left to check, that is the answer (gpuinfo --doctor walks it further). */
static void say_backends(FILE *f) {
    uint32_t nb = 0;
    xgpu_backend_count(&nb);
    for (uint32_t b = 0; b < nb; b++) {
        xgpu_backend_info bi;
        if (xgpu_backend_get_info(b, &bi, sizeof bi) == XGPU_SUCCESS && !bi.available) {
            fprintf(f, "%s: unavailable: %s\n", bi.name, bi.reason);
        }
    }
    fprintf(f, "(gpuinfo --doctor walks the stack layer by layer)\n");
}

/* The live run into a result file (o->save, else a temporary removed after
 * reading): 0 with its facts, else the exit status. */
static int run_live(const check_opts *o, int argc, char **argv, gc_facts **all, size_t *n) {
    uint32_t ndev = 0;
    xgpu_device **devs = NULL;
    uint32_t nrun = 0;
    xgpu_device_count(&ndev);
    int rc = gb_select_devices(o->selector, ndev, &devs, &nrun);
    if (rc) {
        return rc;
    }
    if (!nrun) {
        fprintf(stderr, "gpubench check: no device to check%s\n",
                o->selector ? " for that selector" : "");
        say_backends(stderr);
        free(devs);
        return 1;
    }
    char tmp[] = "/tmp/gpubench-check-XXXXXX";
    const char *path = o->save ? o->save : tmp;
    char why[1024];
    gb_outfile out = {0};
    int fd = o->save ? -1 : mkstemp(tmp);
    if (fd >= 0) {
        close(fd);
    }
    if (o->save ? gb_outfile_open(&out, o->save, why, sizeof why) != 0 : fd < 0) {
        fprintf(stderr, "gpubench check: %s\n", o->save ? why : "cannot create a temporary file");
        free(devs);
        return 2;
    }
    gb_env env;
    memset(&env, 0, sizeof env);
    gb_run_options ro = {
        .bench = {.time_budget = o->time}, .argc = argc, .argv = argv, .started = time(NULL)};
    for (uint32_t i = 0; i < nrun; i++) {
        run_device(devs[i], o->time, &env);
    }
    env.opt = NULL;
    free(devs);
    FILE *f = o->save ? out.f : fopen(tmp, "w");
    rc = f ? 0 : 2;
    if (f) {
        gb_write_json(f, &ro, &env);
    }
    if (o->save) {
        rc = gb_outfile_commit(&out, why, sizeof why) != 0 ? 2 : 0;
        if (rc) {
            fprintf(stderr, "gpubench check: --save %s\n", why);
        }
    } else if (f && fclose(f) != 0) {
        rc = 2;
    }
    gb_results_free(&env.results);
    if (rc == 0 && gc_facts_add_file(path, all, n, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench check: the run's own result file: %s\n", why);
        rc = 2;
    }
    if (!o->save) {
        unlink(tmp);
    }
    return rc;
}

static int write_verdicts(const check_opts *o, const gc_judgement *j, size_t n,
                          const gc_refs *refs) {
    bool json_stdout = o->json && !strcmp(o->json, "-");
    gc_print_text(json_stdout ? stderr : stdout, j, n, refs);
    if (!o->json) {
        return 0;
    }
    char why[1024];
    gb_outfile out;
    if (gb_outfile_open(&out, o->json, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench check: --json %s\n", why);
        return 2;
    }
    gc_print_json(out.f, j, n, refs);
    if (gb_outfile_commit(&out, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench check: --json %s\n", why);
        return 2;
    }
    return 0;
}

static int load_refs(const char *user, gc_refs *refs) {
    char why[1024];
    if (gc_refs_load_shipped(refs, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench check: %s\n", why);
        return 2;
    }
    size_t len = 0;
    char *text = user ? gc_read_file(user, &len, why, sizeof why) : NULL;
    if (user && (!text || gc_refs_add(refs, text, len, user, why, sizeof why) != 0)) {
        fprintf(stderr, "gpubench check: --reference %s%s%s\n", text ? "" : user, text ? "" : ": ",
                why);
        free(text);
        return 2;
    }
    free(text);
    return 0;
}

int gb_check(int argc, char **argv) {
    check_opts o = {.time = 0.2, .files = calloc((size_t)argc + 1, sizeof(char *))};
    gc_refs refs = {0};
    gc_facts *facts = NULL;
    gc_judgement *j = NULL;
    size_t n = 0;
    int rc = o.files ? parse(argc, argv, &o) : 2;
    if (rc >= 0 || (rc = load_refs(o.reference, &refs)) != 0) {
        goto done;
    }
    if (o.json && o.save && !strcmp(o.json, o.save)) {
        fprintf(stderr, "gpubench check: --json and --save name the same file\n");
        rc = 2;
        goto done;
    }
    if (!o.nfiles) {
        rc = run_live(&o, argc, argv, &facts, &n);
    } else {
        for (int i = 0; i < o.nfiles; i++) {
            char why[1024];
            if (gc_facts_add_file(o.files[i], &facts, &n, why, sizeof why) != 0) {
                fprintf(stderr, "gpubench check: warning: %s: skipped: %s\n", o.files[i], why);
            }
        }
        rc = n ? 0 : 2;
        if (!n) {
            fprintf(stderr, "gpubench check: no result file could be read\n");
        }
    }
    n = gc_facts_merge_runs(facts, n);
    if (rc || !n || !(j = calloc(n, sizeof *j))) {
        rc = rc ? rc : 2;
        goto done;
    }
    bool all_ok = true;
    for (size_t i = 0; i < n; i++) {
        gc_judge(&facts[i], &refs, &j[i]);
        all_ok &= j[i].verdict == GC_OK;
    }
    rc = write_verdicts(&o, j, n, &refs);
    rc = rc ? rc : (all_ok ? 0 : 1);
done:
    free(j);
    free(facts);
    gc_refs_free(&refs);
    free(o.files);
    return rc;
}
