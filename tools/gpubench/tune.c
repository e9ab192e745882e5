/* gpubench tune: xgpu_tune on each selected device, kernel and dtype,
 * with a progress line on a terminal and a table of what won, against the
 * built-in default, on stdout. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char tune_usage[] =
    "usage: gpubench tune [-d SELECTOR] [-k LIST] [--dtype LIST] [--time S]\n"
    "                     [--restart] [--db FILE] [--max-mib N]\n"
    "\n"
    "Searches the launch parameters of xgpu's library kernels on each device (or\n"
    "those -d selects) and stores the winners in the tuning database, which\n"
    "xgpu_gemm, xgpu_reduce and xgpu_stream then use in every process. Each shape\n"
    "class is tuned on its own problem: GEMM n = 256 (small) and 1024 (large);\n"
    "the reductions on 1 MiB and 256 MiB; the stream triad on 1 MiB and 128 MiB\n"
    "per buffer. Every candidate is checked against a host reference before it\n"
    "is timed; a wrong result, a failed build or launch is recorded and never\n"
    "tried again. GEMM's large winner is then timed beside the built-in\n"
    "parameters at n = 2048 and kept unless it is over 2% slower there (the\n"
    "'confirm' lines). Results are stored after each candidate: an interrupted\n"
    "tune resumes where it stopped, and a finished class is not searched again\n"
    "(--restart forgets it).\n"
    "\n"
    "  -d SELECTOR   devices, as for gpubench (default: all)\n"
    "  -k LIST       kernels, comma-separated: gemm,sum,minmax,argmax,stream\n"
    "                (default: all)\n"
    "  --dtype LIST  f32,f64,i32,i64,f16,bf16 (gemm takes f32, f64, f16 and bf16,\n"
    "                stream f32 and f64); default: f32, and f64 for gemm\n"
    "  --time S      search budget per kernel, dtype and class (default 20),\n"
    "                counted from the making of the class's problem\n"
    "  --restart     search again from the built-in default, forgetting earlier\n"
    "                candidates of this device\n"
    "  --db FILE     the database (default: $XGPU_TUNE_DB, else tune.json in\n"
    "                xgpu's cache folder, as gpuinfo --doctor shows)\n"
    "  --max-mib N   at most N MiB per buffer (small devices)\n"
    "  -h, --help    this text\n"
    "\n"
    "Exit status: 0 when every search stored a verified winner, 1 when one\n"
    "failed or found none, 2 on usage errors.\n";

static const char *const all_kernels[] = {"gemm", "sum", "minmax", "argmax", "stream"};

typedef struct tune_cli {
    const char *selector, *kernels, *dtypes, *db;
    double seconds;
    bool restart;
    size_t max_bytes;
    bool tty;
} tune_cli;

/* Every item of `list` is one of `known`; else the unknown one in `bad`. */
static bool list_known(const char *list, const char *const *known, size_t count, char *bad,
                       size_t bad_size) {
    size_t len_all = strlen(list);
    if (!len_all || list[0] == ',' || list[len_all - 1] == ',' || strstr(list, ",,")) {
        snprintf(bad, bad_size, "%.40s", list);
        return false; /* an empty item */
    }
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        bool found = false;
        for (size_t i = 0; i < count && !found; i++) {
            found = strlen(known[i]) == len && !strncmp(p, known[i], len);
        }
        if (!found || !len) {
            snprintf(bad, bad_size, "%.*s", (int)(len < 40 ? len : 40), p);
            return false;
        }
        p += len + (comma != NULL);
    }
    return true;
}

static void progress(void *user, const xgpu_tune_progress *p) {
    const tune_cli *cli = user;
    char line[256];
    snprintf(line, sizeof line, "%s %s %s [%u/%u, %.0f/%.0f s] %s: %s %.4g %s (best %.4g)",
             p->kernel, xgpu_dtype_name(p->dtype), p->shape_class, p->done, p->planned,
             p->elapsed_s, p->budget_s, p->params, p->status, p->rate, p->unit, p->best_rate);
    if (cli->tty) {
        fprintf(stderr, "\r\033[K%.*s", 150, line);
    } else if (strcmp(p->status, "ok") && strcmp(p->status, "resumed")) {
        /* Off a terminal: failures and the confirmation only. */
        fprintf(stderr, "gpubench tune: %s\n", line);
    }
}

/* The dtypes a tune may take, in the order they run. */
static const xgpu_dtype dts[] = {XGPU_F32, XGPU_F64, XGPU_I32, XGPU_I64, XGPU_F16, XGPU_BF16};
#define NDTYPES (sizeof dts / sizeof dts[0])

static bool wanted(const tune_cli *cli, const char *kernel, xgpu_dtype dt,
                   const xgpu_device_info *info);

static int parse(int argc, char **argv, tune_cli *cli) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(tune_usage, stdout);
            return 0;
        } else if (!strcmp(a, "-d") && v) {
            cli->selector = v, i++;
        } else if (!strcmp(a, "-k") && v) {
            cli->kernels = v, i++;
        } else if (!strcmp(a, "--dtype") && v) {
            cli->dtypes = v, i++;
        } else if (!strcmp(a, "--db") && v && *v) {
            cli->db = v, i++;
        } else if (!strcmp(a, "--restart")) {
            cli->restart = true;
        } else if (!strcmp(a, "--time") && v && (cli->seconds = strtod(v, &end)) > 0 && !*end &&
                   cli->seconds <= 1e6) {
            i++;
        } else if (!strcmp(a, "--max-mib") && v) {
            unsigned long long mib = strtoull(v, &end, 10);
            if (*v == '-' || !*v || *end || mib == 0 || mib > (1ull << 30)) {
                fprintf(stderr, "gpubench tune: --max-mib '%s' is not a whole number 1..2^30\n", v);
                return 2;
            }
            cli->max_bytes = (size_t)mib << 20;
            i++;
        } else if (!strcmp(a, "--time") || !strcmp(a, "--db")) {
            fprintf(stderr, "gpubench tune: %s '%s': %s\n", a, v ? v : "",
                    !strcmp(a, "--time") ? "not a number of seconds in (0, 1e6]"
                                         : "needs a file name");
            return 2;
        } else {
            fprintf(stderr, "gpubench tune: bad argument '%s'\n\n%s", a, tune_usage);
            return 2;
        }
    }
    static const char *const dtypes[] = {"f32", "f64", "i32", "i64", "f16", "bf16"};
    char bad[48];
    if (cli->kernels && !list_known(cli->kernels, all_kernels, 5, bad, sizeof bad)) {
        fprintf(stderr,
                "gpubench tune: -k: '%s' is not a list of gemm, sum, minmax, argmax, stream\n",
                bad);
        return 2;
    }
    if (cli->dtypes && !list_known(cli->dtypes, dtypes, NDTYPES, bad, sizeof bad)) {
        fprintf(stderr,
                "gpubench tune: --dtype: '%s' is not a list of f32, f64, i32, i64, f16, bf16\n",
                bad);
        return 2;
    }
    /* Some kernel must take some dtype, on a device with fp64 at least. */
    const xgpu_device_info any = {.fp64 = true};
    bool some = false;
    for (size_t k = 0; k < 5 && !some; k++) {
        for (size_t d = 0; d < NDTYPES && !some; d++) {
            some = gb_selected(cli->kernels, all_kernels[k]) &&
                   wanted(cli, all_kernels[k], dts[d], &any);
        }
    }
    if (!some) {
        fprintf(stderr,
                "gpubench tune: -k %s --dtype %s selects nothing: gemm takes f32, f64, f16 and "
                "bf16, stream f32 and f64, the reductions f32, f64, i32 and i64\n",
                cli->kernels ? cli->kernels : "(all)", cli->dtypes ? cli->dtypes : "(default)");
        return 2;
    }
    return -1;
}

/* Whether to tune this kernel and dtype: as listed, or the defaults. */
static bool wanted(const tune_cli *cli, const char *kernel, xgpu_dtype dt,
                   const xgpu_device_info *info) {
    bool half = dt == XGPU_F16 || dt == XGPU_BF16;
    bool takes = !strcmp(kernel, "gemm")     ? dt == XGPU_F32 || dt == XGPU_F64 || half
                 : !strcmp(kernel, "stream") ? dt == XGPU_F32 || dt == XGPU_F64
                                             : !half;
    if (!takes || (dt == XGPU_F64 && !info->fp64)) {
        return false;
    }
    if (cli->dtypes) {
        return gb_selected(cli->dtypes, xgpu_dtype_name(dt));
    }
    return dt == XGPU_F32 || (dt == XGPU_F64 && !strcmp(kernel, "gemm"));
}

/* One device: every kernel and dtype; the table rows on stdout. */
static int tune_device(const tune_cli *cli, xgpu_device *dev) {
    xgpu_device_info info;
    xgpu_context *ctx = NULL;
    xgpu_queue *q = NULL;
    if (xgpu_device_get_info(dev, &info, sizeof info) != XGPU_SUCCESS ||
        xgpu_context_create(dev, &ctx) != XGPU_SUCCESS ||
        xgpu_queue_create(ctx, &q) != XGPU_SUCCESS) {
        fprintf(stderr, "gpubench tune: %s\n", xgpu_last_error()->message);
        xgpu_context_release(ctx);
        return 1;
    }
    int rc = 0, tuned = 0;
    for (size_t k = 0; k < 5; k++) {
        if (!gb_selected(cli->kernels, all_kernels[k])) {
            continue;
        }
        for (size_t d = 0; d < NDTYPES; d++) {
            if (!wanted(cli, all_kernels[k], dts[d], &info)) {
                continue;
            }
            tuned++;
            xgpu_tune_options opt = {cli->seconds,   cli->restart, cli->db,
                                     cli->max_bytes, progress,     (void *)cli};
            xgpu_tune_summary sum;
            xgpu_status st = xgpu_tune(q, all_kernels[k], dts[d], &opt, &sum);
            if (cli->tty) {
                fputs("\r\033[K", stderr);
            }
            if (st != XGPU_SUCCESS) {
                fprintf(stderr, "gpubench tune: %s:%u %s %s: %s\n", info.backend,
                        info.backend_index, all_kernels[k], xgpu_dtype_name(dts[d]),
                        xgpu_last_error()->message);
                rc = 1;
                continue;
            }
            const char *unit = !strcmp(all_kernels[k], "gemm") ? "GFLOP/s" : "GB/s";
            if (sum.warning[0]) {
                fprintf(stderr, "gpubench tune: %s\n", sum.warning);
            }
            for (int c = 0; c < 2; c++) {
                if (!sum.size[c]) {
                    continue; /* the class did not fit the device or --max-mib */
                }
                double ratio = sum.default_rate[c] > 0 ? sum.best_rate[c] / sum.default_rate[c] : 0;
                printf("%-8s %s:%-3u %-4s %-5s %10.4g %-7s %6.2fx  %s\n", all_kernels[k],
                       info.backend, info.backend_index, xgpu_dtype_name(dts[d]),
                       c ? "large" : "small", sum.best_rate[c], unit, ratio,
                       sum.best[c][0] ? sum.best[c] : "(nothing verified)");
                rc |= !sum.best[c][0];
            }
            printf("%-8s %s:%-3u %-4s measured %u, resumed %u, failed %u\n", "", info.backend,
                   info.backend_index, xgpu_dtype_name(dts[d]), sum.measured, sum.resumed,
                   sum.failed);
            fflush(stdout);
        }
    }
    xgpu_queue_release(q);
    xgpu_context_release(ctx);
    if (!tuned) {
        fprintf(stderr,
                "gpubench tune: %s:%u: nothing to tune for -k %s --dtype %s (gemm takes f32, "
                "f64, f16, bf16, stream f32 and f64; f64 needs a device with fp64)\n",
                info.backend, info.backend_index, cli->kernels ? cli->kernels : "(all)",
                cli->dtypes ? cli->dtypes : "(default)");
        return 1;
    }
    return rc;
}

int gb_tune(int argc, char **argv) {
    tune_cli cli = {0};
    cli.seconds = 20;
    int rc = parse(argc, argv, &cli);
    if (rc >= 0) {
        return rc;
    }
    cli.tty = isatty(STDERR_FILENO);
    char path[4096];
    if (cli.db) {
        snprintf(path, sizeof path, "%s", cli.db);
    } else if (xgpu_tune_db_path(path, sizeof path) != XGPU_SUCCESS) {
        fprintf(stderr, "gpubench tune: %s\n", xgpu_last_error()->message);
        return 1;
    }
    uint32_t ndev = 0;
    xgpu_device_count(&ndev);
    xgpu_device **run = NULL;
    uint32_t nrun = 0;
    rc = gb_select_devices(cli.selector, ndev, &run, &nrun);
    if (rc != 0) {
        return rc;
    }
    if (!nrun) {
        fprintf(stderr, "gpubench tune: no device%s; see gpuinfo\n",
                cli.selector ? " matches that selector" : "");
        free(run);
        return 1;
    }
    printf("# tuning database: %s\n", path);
    printf("%-8s %-9s %-4s %-5s %10s %-7s %7s  %s\n", "kernel", "device", "type", "class", "best",
           "unit", "vs-dflt", "parameters");
    for (uint32_t i = 0; i < nrun; i++) {
        rc |= tune_device(&cli, run[i]);
    }
    free(run);
    return rc;
}
