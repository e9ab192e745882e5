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

/* An open watch: the devices, their telemetry sources and paths, and the
 * outputs, NULL where not asked (the table is left out when CSV or JSON
 * lines go to standard output). */
typedef struct watch_run {
    pd_device *all;
    uint32_t n;
    gt_device **tel;
    char (*paths)[48];
    FILE *table, *csv, *jsonl;
} watch_run;

/* Each device's telemetry source, and why a vendor library serves none;
 * 0, or 2 when memory runs out. */
static int open_sources(watch_run *w) {
    for (uint32_t i = 0; i < w->n; i++) {
        devid_path(&w->all[i].infos[0], w->paths[i], sizeof w->paths[i]);
        w->tel[i] = gt_open(&w->all[i].infos[0]);
        if (!w->tel[i]) {
            return 2;
        }
        if (gt_device_reason(w->tel[i])[0]) {
            fprintf(stderr, "gpuinfo: %s: no GPU telemetry (%s)%s\n", w->paths[i],
                    gt_device_reason(w->tel[i]),
                    gt_device_source(w->tel[i]) == GT_SOURCE_HOST ? "; the host CPU's clock only"
                                                                  : "");
        }
    }
    return 0;
}

static void print_headers(const watch_run *w) {
    if (w->table) {
        fprintf(w->table, "%-8s %-10s", "# time", "device");
        for (int c = 0; c < NCOL; c++) {
            fprintf(w->table, " %*s", columns[c].width, columns[c].head);
        }
        fprintf(w->table, "  reasons\n");
    }
    if (w->csv) {
        fprintf(w->csv, "time,device,source");
        for (int c = 0; c < NCOL; c++) {
            fprintf(w->csv, ",%s", columns[c].key);
        }
        fprintf(w->csv, ",reasons\n");
    }
}

/* One interval: a sample of every device in every output, flushed so that
 * each interval is seen as it comes. */
static void sample_all(const watch_run *w) {
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char when[32], clock[16];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    strftime(clock, sizeof clock, "%H:%M:%S", &tm);
    for (uint32_t i = 0; i < w->n; i++) {
        gt_sample s;
        gt_sample_now(w->tel[i], &s);
        if (w->table) {
            table_row(w->table, clock, w->paths[i], &s);
        }
        if (w->csv) {
            csv_row(w->csv, when, w->paths[i], gt_device_source(w->tel[i]), &s);
        }
        if (w->jsonl) {
            jsonl_row(w->jsonl, when, &w->all[i], w->paths[i], gt_device_source(w->tel[i]), &s);
        }
    }
    fflush(stdout);
    if (w->csv) {
        fflush(w->csv);
    }
    if (w->jsonl) {
        fflush(w->jsonl);
    }
}

/* `next` moved on by `interval` seconds. */
static void next_interval(struct timespec *next, double interval) {
    double whole = floor(interval);
    next->tv_sec += (time_t)whole;
    next->tv_nsec += (long)((interval - whole) * 1e9);
    if (next->tv_nsec >= 1000000000L) {
        next->tv_nsec -= 1000000000L;
        next->tv_sec++;
    }
}

/* Closes the sources and the outputs; rc, or 2 when an output could not
 * be written. */
static int close_run(watch_run *w, int rc) {
    for (uint32_t i = 0; w->tel && i < w->n; i++) {
        gt_close(w->tel[i]);
    }
    int bad = (w->csv && w->csv != stdout && fclose(w->csv) != 0) ||
              (w->jsonl && w->jsonl != stdout && fclose(w->jsonl) != 0) || fflush(stdout) != 0;
    if (bad && !rc) {
        fprintf(stderr, "gpuinfo: --watch: an output could not be written\n");
        rc = 2;
    }
    free(w->tel);
    free(w->paths);
    free(w->all);
    return rc;
}

int gi_watch(int argc, char **argv) {
    watch_opts o = {1.0, 0, NULL, NULL, NULL};
    int rc = parse(argc, argv, &o);
    if (rc >= 0) {
        return rc;
    }
    watch_run w = {NULL, 0, NULL, NULL, NULL, NULL, NULL};
    rc = gi_devices(o.selector, &w.all, &w.n);
    if (rc) {
        free(w.all);
        return rc;
    }
    if (!w.n) {
        fprintf(stderr, "gpuinfo: no device to watch\n");
        gi_print_backends(stderr); /* why each backend has none */
        free(w.all);
        return 1;
    }
    w.csv = open_out(o.csv, "--csv");
    w.jsonl = open_out(o.jsonl, "--jsonl");
    w.tel = calloc(w.n, sizeof *w.tel);
    w.paths = calloc(w.n, sizeof *w.paths);
    rc = (o.csv && !w.csv) || (o.jsonl && !w.jsonl) || !w.tel || !w.paths ? 2 : 0;
    w.table = (w.csv == stdout || w.jsonl == stdout) ? NULL : stdout;
    if (!rc) {
        rc = open_sources(&w);
    }
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    if (!rc) {
        pthread_sigmask(SIG_BLOCK, &stops, NULL);
        print_headers(&w);
    }
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (long round = 0; !rc && !stop_requested && (!o.count || round < o.count); round++) {
        sample_all(&w);
        if (o.count && round + 1 >= o.count) {
            break;
        }
        next_interval(&next, o.interval);
        wait_until(&next, &stops);
    }
    return close_run(&w, rc);
}
