/* gpuinfo --watch: every device's clocks, power, temperature, utilisation,
 * memory used and throttle reasons once per interval, as a table (like
 * nvidia-smi dmon), CSV and JSON lines, until Ctrl-C or --count. */
#define _GNU_SOURCE
#include "gpuinfo.h"
#include "device_id.h"
#include "json_write.h"
#include "telemetry.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* SIGINT and SIGTERM stay blocked while --watch runs and are taken only
 * in its waits (sigtimedwait): one that comes while a line is written ends
 * the next wait at once, and no write is interrupted half way. */
static bool stop_requested;

/* Waits until `next` (CLOCK_MONOTONIC) or a stop signal. */
static void wait_until(const struct timespec *next, const sigset_t *stops) {
    for (;;) {
        struct timespec now, left;
        clock_gettime(CLOCK_MONOTONIC, &now);
        left.tv_sec = next->tv_sec - now.tv_sec;
        left.tv_nsec = next->tv_nsec - now.tv_nsec;
        if (left.tv_nsec < 0) {
            left.tv_nsec += 1000000000L;
            left.tv_sec--;
        }
        if (left.tv_sec < 0) {
            return;
        }
        int sig = sigtimedwait(stops, NULL, &left);
        if (sig == SIGINT || sig == SIGTERM) {
            stop_requested = true;
            return;
        }
        if (sig < 0 && errno == EAGAIN) {
            return; /* the time came */
        }
    }
}

typedef struct watch_opts {
    double interval;
    long count; /* 0: until a signal */
    const char *csv, *jsonl, *selector;
} watch_opts;

/* A column of the table and the CSV/JSON key, with its print format. */
static const struct {
    gt_value v;
    const char *head, *key, *fmt;
    int width;
} columns[] = {
    {GT_SM_CLOCK_MHZ, "sm_MHz", "sm_clock_mhz", "%.0f", 7},
    {GT_MEM_CLOCK_MHZ, "mem_MHz", "mem_clock_mhz", "%.0f", 7},
    {GT_POWER_W, "pwr_W", "power_w", "%.1f", 7},
    {GT_POWER_LIMIT_W, "limit_W", "power_limit_w", "%.1f", 7},
    {GT_TEMP_C, "temp_C", "temp_c", "%.0f", 6},
    {GT_UTIL_PCT, "util%", "util_pct", "%.0f", 5},
    {GT_MEM_USED_MIB, "mem_MiB", "mem_used_mib", "%.0f", 8},
    {GT_CPU_MHZ, "cpu_MHz", "cpu_mhz", "%.0f", 7}, /* the host CPU, where nothing else serves */
};
enum { NCOL = sizeof columns / sizeof columns[0] };

/* Options after --watch; -1 to go on, else the exit status (2). */
static int parse(int argc, char **argv, watch_opts *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(a, "--watch")) {
            continue;
        }
        if (!v && (!strcmp(a, "-i") || !strcmp(a, "--interval") || !strcmp(a, "--count") ||
                   !strcmp(a, "--csv") || !strcmp(a, "--jsonl") || !strcmp(a, "-d") ||
                   !strcmp(a, "--device"))) {
            fprintf(stderr, "gpuinfo: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "-i") || !strcmp(a, "--interval")) {
            o->interval = strtod(v, &end);
            if (!*v || *end || !(o->interval >= 0.1 && o->interval <= 3600)) {
                fprintf(stderr, "gpuinfo: %s %s: the interval is seconds from 0.1 to 3600\n", a, v);
                return 2;
            }
        } else if (!strcmp(a, "--count")) {
            errno = 0;
            o->count = strtol(v, &end, 10);
            if (!*v || *end || errno || o->count < 1) {
                fprintf(stderr, "gpuinfo: --count %s: a positive whole number is needed\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--csv")) {
            o->csv = v;
        } else if (!strcmp(a, "--jsonl")) {
            o->jsonl = v;
        } else if (!strcmp(a, "-d") || !strcmp(a, "--device")) {
            o->selector = v;
        } else {
            fprintf(stderr, "gpuinfo: --watch: unknown option '%s' (gpuinfo --help)\n", a);
            return 2;
        }
        i++;
    }
    if (o->csv && o->jsonl && !strcmp(o->csv, "-") && !strcmp(o->jsonl, "-")) {
        fprintf(stderr, "gpuinfo: --csv - and --jsonl - cannot both be standard output\n");
        return 2;
    }
    return -1;
}

static FILE *open_out(const char *path, const char *opt) {
    if (!path) {
        return NULL;
    }
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "gpuinfo: %s %s: %s\n", opt, path, strerror(errno));
    }
    return f;
}

static void csv_row(FILE *f, const char *when, const char *path, gt_source src,
                    const gt_sample *s) {
    fprintf(f, "%s,%s,%s", when, path, gt_source_name(src));
    for (int c = 0; c < NCOL; c++) {
        fputc(',', f);
        if (!isnan(s->v[columns[c].v])) {
            fprintf(f, "%.9g", s->v[columns[c].v]);
        }
    }
    char reasons[256];
    gt_reasons_text(s->reasons, "|", reasons, sizeof reasons);
    fprintf(f, ",%s\n", reasons);
}

static void jsonl_row(FILE *f, const char *when, const pd_device *d, const char *path,
                      gt_source src, const gt_sample *s) {
    fputs("{\"time\": ", f);
    jw_string(f, when);
    fputs(", \"device\": ", f);
    jw_string(f, path);
    fputs(", \"name\": ", f);
    jw_string(f, d->infos[0].name);
    fputs(", \"source\": ", f);
    jw_string(f, gt_source_name(src));
    for (int c = 0; c < NCOL; c++) {
        gt_value v = columns[c].v;
        fprintf(f, ", \"%s\": ", columns[c].key);
        if (isnan(s->v[v])) {
            fputs("null", f);
        } else {
            fprintf(f, "%.9g", s->v[v]);
        }
    }
    fputs(", \"reasons\": [", f);
    int k = 0;
    for (uint64_t bit = 1; bit; bit <<= 1) {
        const char *name = (s->reasons & bit) ? gt_reason_name(bit) : NULL;
        if (name) {
            fputs(k++ ? ", " : "", f);
            jw_string(f, name);
        }
    }
    fputs("]}\n", f);
}

static void table_row(FILE *f, const char *clock, const char *path, const gt_sample *s) {
    fprintf(f, "%-8s %-10s", clock, path);
    for (int c = 0; c < NCOL; c++) {
        char cell[32] = "-";
        if (!isnan(s->v[columns[c].v])) {
            snprintf(cell, sizeof cell, columns[c].fmt, s->v[columns[c].v]);
        }
        fprintf(f, " %*s", columns[c].width, cell);
    }
    char reasons[256];
    gt_reasons_text(s->reasons, ",", reasons, sizeof reasons);
    fprintf(f, "  %s\n", reasons[0] ? reasons : "-");
}

/* The physical devices to watch: all, or those the selector matches. */
static int devices(const char *selector, pd_device **all, uint32_t *n) {
    if (pd_collect(all, n) != 0) {
        fprintf(stderr, "gpuinfo: %s\n", xgpu_last_error()->message);
        return 2;
    }
    if (!selector) {
        return 0;
    }
    uint32_t want = 0, got = 0;
    xgpu_status st = xgpu_device_match(selector, NULL, 0, &want);
    xgpu_device **chosen = NULL;
    if (st == XGPU_SUCCESS) {
        chosen = calloc(want ? want : 1, sizeof *chosen);
        if (!chosen) {
            fprintf(stderr, "gpuinfo: out of memory\n");
            return 2;
        }
        st = xgpu_device_match(selector, chosen, want, &got);
    }
    if (st != XGPU_SUCCESS) {
        fprintf(stderr, "gpuinfo: -d %s: %s\n", selector, xgpu_last_error()->message);
        free(chosen);
        return st == XGPU_ERROR_INVALID_ARGUMENT ? 2 : 1;
    }
    *n = pd_select(*all, *n, chosen, got);
    free(chosen);
    return 0;
}

int gi_watch(int argc, char **argv) {
    watch_opts o = {1.0, 0, NULL, NULL, NULL};
    int rc = parse(argc, argv, &o);
    if (rc >= 0) {
        return rc;
    }
    pd_device *all = NULL;
    uint32_t n = 0;
    rc = devices(o.selector, &all, &n);
    if (rc) {
        free(all);
        return rc;
    }
    if (!n) {
        fprintf(stderr, "gpuinfo: no device to watch\n");
        gi_print_backends(stderr); /* why each backend has none */
        free(all);
        return 1;
    }
    FILE *csv = open_out(o.csv, "--csv"), *jsonl = open_out(o.jsonl, "--jsonl");
    gt_device **tel = calloc(n, sizeof *tel);
    char(*paths)[48] = calloc(n, sizeof *paths);
    rc = (o.csv && !csv) || (o.jsonl && !jsonl) || !tel || !paths ? 2 : 0;
    /* With CSV or JSON lines on standard output the table is left out. */
    FILE *table = (csv == stdout || jsonl == stdout) ? NULL : stdout;
    for (uint32_t i = 0; !rc && i < n; i++) {
        devid_path(&all[i].infos[0], paths[i], sizeof paths[i]);
        tel[i] = gt_open(&all[i].infos[0]);
        if (!tel[i]) {
            rc = 2;
        } else if (gt_device_reason(tel[i])[0]) {
            fprintf(stderr, "gpuinfo: %s: no GPU telemetry (%s)%s\n", paths[i],
                    gt_device_reason(tel[i]),
                    gt_device_source(tel[i]) == GT_SOURCE_HOST ? "; the host CPU's clock only"
                                                               : "");
        }
    }
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    if (!rc) {
        pthread_sigmask(SIG_BLOCK, &stops, NULL);
        if (table) {
            fprintf(table, "%-8s %-10s", "# time", "device");
            for (int c = 0; c < NCOL; c++) {
                fprintf(table, " %*s", columns[c].width, columns[c].head);
            }
            fprintf(table, "  reasons\n");
        }
        if (csv) {
            fprintf(csv, "time,device,source");
            for (int c = 0; c < NCOL; c++) {
                fprintf(csv, ",%s", columns[c].key);
            }
            fprintf(csv, ",reasons\n");
        }
    }
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (long round = 0; !rc && !stop_requested && (!o.count || round < o.count); round++) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        char when[32], clock[16];
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
        strftime(clock, sizeof clock, "%H:%M:%S", &tm);
        for (uint32_t i = 0; i < n; i++) {
            gt_sample s;
            gt_sample_now(tel[i], &s);
            if (table) {
                table_row(table, clock, paths[i], &s);
            }
            if (csv) {
                csv_row(csv, when, paths[i], gt_device_source(tel[i]), &s);
            }
            if (jsonl) {
                jsonl_row(jsonl, when, &all[i], paths[i], gt_device_source(tel[i]), &s);
            }
        }
        fflush(stdout); /* each interval is seen as it comes */
        if (csv) {
            fflush(csv);
        }
        if (jsonl) {
            fflush(jsonl);
        }
        if (o.count && round + 1 >= o.count) {
            break;
        }
        double whole = floor(o.interval);
        next.tv_sec += (time_t)whole;
        next.tv_nsec += (long)((o.interval - whole) * 1e9);
        if (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        wait_until(&next, &stops);
    }
    for (uint32_t i = 0; tel && i < n; i++) {
        gt_close(tel[i]);
    }
    int bad = (csv && csv != stdout && fclose(csv) != 0) ||
              (jsonl && jsonl != stdout && fclose(jsonl) != 0) || fflush(stdout) != 0;
    if (bad && !rc) {
        fprintf(stderr, "gpuinfo: --watch: an output could not be written\n");
        rc = 2;
    }
    free(tel);
    free(paths);
    free(all);
    return rc;
}
