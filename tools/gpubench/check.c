/* gpubench check: a verdict per device. Live, it runs a short verified
 * set (stream bandwidth, f32 GEMM through xgpu and the vendor library,
 * pinned transfers, launch latency) into a result file, then judges that
 * file; offline, it judges result files given on the command line. Both go
 * through the same reader and rules (check/check.h). */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "gpubench.h"
#include "outfile.h"
#include "tune_env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    "                    (repeatable: applied in order)\n"
    "  --json FILE       the verdicts as JSON (schema xgpu.gpubench-check/1; '-'\n"
    "                    for standard output, the table then goes to standard error)\n"
    "  --time S          seconds of timed repetitions per case (default 0.2)\n"
    "  -h, --help        this text\n"
    "\n"
    "Exit status: 0 when every device is OK; 1 when any is not (UNKNOWN\n"
    "included), or when no device ran; 2 on a usage error, a reference table\n"
    "that cannot be read, a result file that cannot be read (the others are\n"
    "still judged), --json or --save naming an input, or an output that could\n"
    "not be written. FILE '-' is standard input.\n";

typedef struct check_opts {
    const char *selector, *save, *json;
    const char *time_text;
    double time;
    char **files; /* the result files, then the --reference tables from refs */
    int nfiles, nrefs;
    char **refs;
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
        } else if ((!strcmp(a, "-d") && o->selector) || (!strcmp(a, "--save") && o->save) ||
                   (!strcmp(a, "--json") && o->json) || (!strcmp(a, "--time") && o->time_text)) {
            fprintf(stderr, "gpubench check: %s given twice\n", a);
            return 2;
        } else if (!strcmp(a, "-d")) {
            o->selector = v, i++;
        } else if (!strcmp(a, "--save")) {
            o->save = v, i++;
        } else if (!strcmp(a, "--reference")) {
            o->refs[o->nrefs++] = argv[++i];
        } else if (!strcmp(a, "--json")) {
            o->json = v, i++;
        } else if (!strcmp(a, "--time")) {
            o->time_text = v;
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
    size_t first = env->health.count;
    for (int s = 0; s < 3; s++) {
        env->opt = &sets[s];
        fprintf(stderr, "gpubench check: %s:%u: %s\n", info.backend, info.backend_index,
                sets[s].benches);
        gb_run_device(&sets[s], dev, env);
    }
    /* One health object per device: the last set's, read while the
     * transfers moved data. */
    if (env->health.count > first + 1) {
        env->health.facts[first] = env->health.facts[env->health.count - 1];
        env->health.count = first + 1;
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
    FILE *tmpf = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && !tmpf) {
        close(fd);
        unlink(tmp);
    }
    if (o->save ? gb_outfile_open(&out, o->save, why, sizeof why) != 0 : !tmpf) {
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
    FILE *f = o->save ? out.f : tmpf;
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
    gb_health_free(&env.health);
    if (rc == 0 && gc_facts_add_file(path, all, n, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench check: the run's own result file: %s\n", why);
        rc = 2;
    }
    if (!o->save) {
        unlink(tmp);
    }
    return rc;
}

/* The shipped table, then each --reference table over it in order; 0 or
 * the exit status. */
static int load_refs(const check_opts *o, gc_refs *refs) {
    char why[1024];
    if (gc_refs_load_shipped(refs, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench check: %s\n", why);
        return 2;
    }
    for (int i = 0; i < o->nrefs; i++) {
        size_t len = 0;
        char *text = gc_read_file(o->refs[i], &len, why, sizeof why);
        int rc = text ? gc_refs_add(refs, text, len, o->refs[i], why, sizeof why) : -1;
        free(text);
        if (rc != 0) {
            fprintf(stderr, "gpubench check: --reference %s%s%s\n", text ? "" : o->refs[i],
                    text ? "" : ": ", why);
            return 2;
        }
    }
    return 0;
}

/* Whether two paths name one existing file. */
static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return strcmp(a, "-") && strcmp(b, "-") && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* --json and --save must not name a file that is read: 0, or 2 said. */
static int check_outputs(const check_opts *o) {
    const char *outs[2] = {o->json, o->save}, *what[2] = {"--json", "--save"};
    if (o->json && o->save && (!strcmp(o->json, o->save) || same_file(o->json, o->save))) {
        fprintf(stderr, "gpubench check: --json and --save name the same file\n");
        return 2;
    }
    for (int k = 0; k < 2; k++) {
        for (int i = 0; outs[k] && i < o->nfiles + o->nrefs; i++) {
            const char *in = i < o->nfiles ? o->files[i] : o->refs[i - o->nfiles];
            if (!strcmp(outs[k], in) || same_file(outs[k], in)) {
                fprintf(stderr,
                        "gpubench check: %s %s is also an input: it would be "
                        "overwritten\n",
                        what[k], outs[k]);
                return 2;
            }
        }
    }
    return 0;
}

/* The result files' devices into *facts; 0, or 2 when one could not be
 * read (the others still judged, said on stderr). */
static int read_files(const check_opts *o, gc_facts **facts, size_t *n) {
    int rc = 0;
    for (int i = 0; i < o->nfiles; i++) {
        char why[1024];
        bool again = false;
        for (int k = 0; k < i; k++) {
            again |= !strcmp(o->files[k], o->files[i]) || same_file(o->files[k], o->files[i]);
        }
        if (again) {
            fprintf(stderr, "gpubench check: note: %s: given twice, read once\n", o->files[i]);
        } else if (gc_facts_add_file(o->files[i], facts, n, why, sizeof why) != 0) {
            fprintf(stderr, "gpubench check: warning: %s: skipped: %s\n", o->files[i], why);
            rc = 2;
        }
    }
    if (!*n) {
        fprintf(stderr, "gpubench check: no result file could be read\n");
    }
    return *n ? rc : 2;
}

int gb_check(int argc, char **argv) {
    check_opts o = {.time = 0.2,
                    .files = calloc((size_t)argc + 1, sizeof(char *)),
                    .refs = calloc((size_t)argc + 1, sizeof(char *))};
    gc_refs refs = {0};
    gc_facts *facts = NULL;
    gc_judgement *j = NULL;
    size_t n = 0;
    gb_outfile json = {0};
    char why[1024];
    int rc = o.files && o.refs ? parse(argc, argv, &o) : 2;
    if (rc >= 0 || (rc = check_outputs(&o)) != 0 || (rc = load_refs(&o, &refs)) != 0) {
        goto done;
    }
    if (!o.nfiles && tune_env_check(why, sizeof why) != 0) {
        fprintf(stderr, "gpubench check: %s\n", why);
        rc = 2;
        goto done;
    }
    /* --json is made before the run, not found unwritable after it. */
    if (o.json && gb_outfile_open(&json, o.json, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench check: --json %s\n", why);
        rc = 2;
        goto done;
    }
    rc = o.nfiles ? read_files(&o, &facts, &n) : run_live(&o, argc, argv, &facts, &n);
    n = gc_facts_merge_runs(facts, n);
    if (!n || !(j = calloc(n, sizeof *j))) {
        rc = rc ? rc : 2;
        goto done;
    }
    bool all_ok = true;
    for (size_t i = 0; i < n; i++) {
        gc_judge(&facts[i], &refs, &j[i]);
        all_ok &= j[i].verdict == GC_OK;
    }
    gc_print_text(json.f && !json.tmp ? stderr : stdout, j, n, &refs);
    if (json.f) {
        gc_print_json(json.f, j, n, &refs);
        if (gb_outfile_commit(&json, why, sizeof why) != 0) {
            fprintf(stderr, "gpubench check: --json %s\n", why);
            rc = 2;
        }
    }
    rc = rc ? rc : (all_ok ? 0 : 1);
done:
    gb_outfile_discard(&json);
    free(j);
    free(facts);
    gc_refs_free(&refs);
    free(o.files);
    free(o.refs);
    return rc;
}
