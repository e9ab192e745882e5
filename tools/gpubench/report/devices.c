/* The opening table: a row per device with its provenance and headline
 * figures, and the headline above it. One pass over the rows sorted by
 * device (gb_summary.by_device). See report_devices.h. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool same_model(const gb_row *a, const gb_row *b) {
    return !strcmp(a->device_name, b->device_name) && !strcmp(a->device_arch, b->device_arch);
}

/* The vendor library's rate for the same file, device, dtype and shape as
 * the xgpu GEMM row `x` (a GEMM row whose impl is neither xgpu nor the
 * CPU's), or -1. */
static double vendor_rate(const gb_summary *s, const gb_device_row *d, const gb_row *x,
                          char *vendor, size_t size) {
    for (size_t i = d->begin; i < d->end; i++) {
        const gb_row *r = s->by_device[i];
        if (r->file == x->file && !strcmp(r->bench, "gemm") && strcmp(r->impl, "xgpu") &&
            strcmp(r->impl, "openblas") && !strcmp(r->dtype, x->dtype) &&
            !strcmp(r->shape, x->shape) && gb_row_usable(r) && r->rate > 0) {
            snprintf(vendor, size, "%s", r->impl);
            return r->rate;
        }
    }
    return -1;
}

/* "triad 1024 MiB" is the triad kernel's row. */
static bool shape_is(const gb_row *r, const char *kernel) {
    size_t n = strlen(kernel);
    return !strncmp(r->shape, kernel, n) && (r->shape[n] == ' ' || !r->shape[n]);
}

/* The dtype of the model's fastest verified xgpu GEMM, so that its
 * devices' rows show the same GEMM; "" without one. */
static const char *model_gemm_dtype(const gb_summary *s, const gb_model *m) {
    const gb_row *best = NULL;
    for (size_t i = m->begin; i < m->end; i++) {
        const gb_row *r = s->by_device[i];
        if (!strcmp(r->bench, "gemm") && !strcmp(r->impl, "xgpu") && gb_row_usable(r) &&
            (!best || r->rate > best->rate)) {
            best = r;
        }
    }
    return best ? best->dtype : "";
}

/* The headline figures; the GEMM is the best of `dtype` (the model's),
 * else of any dtype. */
static void figures(const gb_summary *s, gb_device_row *d, const char *dtype) {
    const gb_row *best_gemm = NULL, *best_any = NULL;
    double triad = -1, copy = -1, round_trip = -1, any_launch = -1;
    d->gemm = d->gemm_ratio = d->stream = d->transfer = d->launch = -1;
    for (size_t i = d->begin; i < d->end; i++) {
        const gb_row *r = s->by_device[i];
        if (strcmp(r->impl, "xgpu") || !gb_row_usable(r)) {
            continue;
        }
        if (!strcmp(r->bench, "gemm")) {
            if (!best_any || r->rate > best_any->rate) {
                best_any = r;
            }
            if (!strcmp(r->dtype, dtype) && (!best_gemm || r->rate > best_gemm->rate)) {
                best_gemm = r;
            }
        } else if (!strcmp(r->bench, "stream") && shape_is(r, "triad")) {
            triad = fmax(triad, r->rate);
        } else if (!strcmp(r->bench, "stream") && shape_is(r, "copy")) {
            copy = fmax(copy, r->rate);
        } else if (!strcmp(r->bench, "transfer") && strstr(r->shape, "pinned")) {
            d->transfer = fmax(d->transfer, r->rate);
        } else if (!strcmp(r->bench, "launch")) {
            if (shape_is(r, "round trip")) {
                round_trip = round_trip < 0 ? r->rate : fmin(round_trip, r->rate);
            }
            any_launch = any_launch < 0 ? r->rate : fmin(any_launch, r->rate);
        }
    }
    best_gemm = best_gemm ? best_gemm : best_any;
    if (best_gemm) {
        d->gemm = best_gemm->rate;
        snprintf(d->gemm_dtype, sizeof d->gemm_dtype, "%s", best_gemm->dtype);
        double v = vendor_rate(s, d, best_gemm, d->gemm_vendor, sizeof d->gemm_vendor);
        d->gemm_ratio = v > 0 ? d->gemm / v : -1;
    }
    d->stream = triad >= 0 ? triad : copy;
    snprintf(d->stream_kernel, sizeof d->stream_kernel, "%s",
             triad >= 0 ? "triad" : (copy >= 0 ? "copy" : ""));
    d->launch = round_trip >= 0 ? round_trip : any_launch;
}

/* The OpenCL device version without the vendor's tail: "OpenCL 3.0 PoCL". */
static void first_words(const char *s, int words, char *out, size_t size) {
    size_t n = 0;
    for (int w = 0; s[n] && w < words; w++) {
        while (s[n] == ' ') {
            n++;
        }
        while (s[n] && s[n] != ' ') {
            n++;
        }
    }
    snprintf(out, size, "%.*s", (int)n, s);
}

/* Backend, driver and API version from the first file's gpuinfo; the
 * xgpu version and the earliest date over its files. */
static void provenance(const gb_summary *s, gb_device_row *d) {
    const gb_table *t = s->t;
    d->file = d->key->file;
    for (size_t i = d->begin; i < d->end; i++) {
        size_t f = s->by_device[i]->file;
        d->file = f < d->file ? f : d->file;
        const char *when = t->files[f].started_utc;
        if (when[0] && (!d->started[0] || strcmp(when, d->started) < 0)) {
            snprintf(d->started, sizeof d->started, "%s", when);
        }
    }
    const gb_file *fi = &t->files[d->file];
    snprintf(d->xgpu, sizeof d->xgpu, "%s", fi->version);
    const gb_devinfo *g = gb_devinfo_of(t, d->file, d->key->device);
    snprintf(d->arch, sizeof d->arch, "%s",
             d->key->device_arch[0] || !g ? d->key->device_arch : g->arch);
    const char *colon = strchr(d->key->device, ':');
    snprintf(d->backend, sizeof d->backend, "%.*s",
             g && g->backend[0] ? (int)strlen(g->backend)
                                : (colon ? (int)(colon - d->key->device) : 0),
             g && g->backend[0] ? g->backend : d->key->device);
    if (!g) {
        return;
    }
    snprintf(d->driver, sizeof d->driver, "%s", g->driver_version);
    if (!strcmp(d->backend, "cuda") && g->driver_version[0]) {
        /* The CUDA driver API's version (cuDriverGetVersion). */
        snprintf(d->api, sizeof d->api, "CUDA %.60s", g->driver_version);
    } else if (!strcmp(d->backend, "hip")) {
        first_words(g->language_version, 2, d->api, sizeof d->api);
    } else if (!strcmp(d->backend, "opencl")) {
        first_words(g->device_version, 3, d->api, sizeof d->api);
    }
}

/* The row before `d` that is its GPU through another backend, if any. */
static void same_gpu(const gb_summary *s, gb_device_row *d) {
    const gb_row *k = d->key;
    d->same_as = NULL;
    for (const gb_device_row *e = s->table; k->device_uuid[0] && e < d; e++) {
        if (!strcmp(e->key->host, k->host) && !strcmp(e->key->device_uuid, k->device_uuid) &&
            gb_backend_cmp(e->key, k) != 0) {
            d->same_as = e;
            return;
        }
    }
}

static int str_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int headline(gb_summary *s) {
    gb_headline *h = &s->headline;
    const char **hosts = malloc((s->ntable ? s->ntable : 1) * sizeof *hosts);
    const gb_row **keys = malloc((s->ntable ? s->ntable : 1) * sizeof *keys);
    if (!hosts || !keys) {
        free(hosts);
        free(keys);
        return -1;
    }
    h->paths = s->ntable;
    for (size_t i = 0; i < s->ntable; i++) {
        keys[i] = s->table[i].key;
    }
    long gpus = gb_count_gpus(keys, s->ntable);
    free(keys);
    if (gpus < 0) {
        free(hosts);
        return -1;
    }
    h->devices = (size_t)gpus;
    for (size_t i = 0; i < s->ntable; i++) {
        hosts[i] = s->table[i].key->host;
        h->models += !i || !same_model(s->table[i - 1].key, s->table[i].key);
    }
    qsort(hosts, s->ntable, sizeof *hosts, str_cmp);
    for (size_t i = 0; i < s->ntable; i++) {
        h->hosts += !i || strcmp(hosts[i - 1], hosts[i]);
    }
    free(hosts);
    for (size_t i = 0; i < s->t->nfiles; i++) {
        const char *when = s->t->files[i].started_utc;
        if (!when[0]) {
            h->undated++;
            continue;
        }
        if (!h->first[0] || strcmp(when, h->first) < 0) {
            snprintf(h->first, sizeof h->first, "%s", when);
        }
        if (!h->last[0] || strcmp(when, h->last) > 0) {
            snprintf(h->last, sizeof h->last, "%s", when);
        }
    }
    return 0;
}

int gb_find_devices(gb_summary *s) {
    const gb_table *t = s->t;
    s->table = calloc(t->count ? t->count : 1, sizeof *s->table);
    if (!s->table) {
        return -1;
    }
    const gb_model *m = s->models, *dtype_of = NULL;
    const char *dtype = "";
    for (size_t b = 0, e; b < t->count; b = e) {
        const gb_row *k = s->by_device[b];
        while (m + 1 < s->models + s->nmodels && b >= m->end) {
            m++; /* the model of rows [b, e): models are runs of by_device */
        }
        bool xgpu = false;
        for (e = b; e < t->count && same_model(s->by_device[e], k) &&
                    !gb_row_device_cmp(s->by_device[e], k);
             e++) {
            xgpu = xgpu || !strcmp(s->by_device[e]->impl, "xgpu");
        }
        if (!xgpu) {
            continue; /* the CPU library's rows, or a vendor library's alone */
        }
        gb_device_row *d = &s->table[s->ntable++];
        *d = (gb_device_row){.key = k, .begin = b, .end = e};
        if (dtype_of != m) {
            dtype = model_gemm_dtype(s, m); /* once per model */
            dtype_of = m;
        }
        figures(s, d, dtype);
        provenance(s, d);
        same_gpu(s, d);
    }
    return headline(s);
}

int gb_report_set_verdict(gb_summary *s, size_t device, const char *verdict, const char *why) {
    if (device >= s->ntable) {
        return -1;
    }
    gb_device_row *d = &s->table[device];
    snprintf(d->verdict, sizeof d->verdict, "%s", verdict ? verdict : "");
    snprintf(d->verdict_why, sizeof d->verdict_why, "%s", why ? why : "");
    return 0;
}

bool gb_report_has_verdicts(const gb_summary *s) {
    for (size_t i = 0; i < s->ntable; i++) {
        if (s->table[i].verdict[0]) {
            return true;
        }
    }
    return false;
}

/* A figure with three significant digits or more, in `unit` after
 * dividing by `scale`: "3597 GB/s", "54.6 GB/s", "2.02 TFLOP/s",
 * "0.0123 GFLOP/s"; GB_NONE for none. */
static void fmt(double v, double scale, const char *unit, char *out, size_t size) {
    if (!(v >= 0) || !isfinite(v)) {
        snprintf(out, size, "%s", GB_NONE);
        return;
    }
    double x = v / scale;
    int decimals = x >= 100 ? 0 : (x >= 10 ? 1 : 2);
    if (x > 0 && x < 0.1) {
        snprintf(out, size, "%.3g%s%s", x, *unit == 'x' ? "" : " ", unit);
    } else {
        snprintf(out, size, "%.*f%s%s", decimals, x, *unit == 'x' ? "" : " ", unit);
    }
}

void gb_fmt_flops(double gflops, char *out, size_t size) {
    if (gflops >= 1000 && isfinite(gflops)) {
        snprintf(out, size, "%.2f TFLOP/s", gflops / 1000); /* "22.95 TFLOP/s" */
    } else {
        fmt(gflops, 1, "GFLOP/s", out, size);
    }
}

void gb_fmt_gbs(double gbs, char *out, size_t size) {
    fmt(gbs, 1, "GB/s", out, size);
}

void gb_fmt_us(double us, char *out, size_t size) {
    fmt(us, 1, "us", out, size);
}

void gb_fmt_ratio(double ratio, char *out, size_t size) {
    fmt(ratio, 1, "x", out, size);
}

void gb_headline_text(const gb_headline *h, char *out, size_t size) {
    char dates[160], first[32], last[32];
    gb_date_text(h->first, first, sizeof first);
    gb_date_text(h->last, last, sizeof last);
    if (!h->first[0]) {
        snprintf(dates, sizeof dates, "no file records its date");
    } else if (!strcmp(first, last)) {
        snprintf(dates, sizeof dates, "run %s", first);
    } else {
        snprintf(dates, sizeof dates, "run from %s to %s", first, last);
    }
    char undated[64] = "";
    if (h->first[0] && h->undated) {
        snprintf(undated, sizeof undated, " (%zu file(s) without a date)", h->undated);
    }
    char paths[64] = "";
    if (h->paths != h->devices) {
        snprintf(paths, sizeof paths, " (%zu device paths)", h->paths);
    }
    snprintf(out, size, "%zu device(s)%s on %zu host(s), %zu model(s); %s%s.", h->devices, paths,
             h->hosts, h->models, dates, undated);
}

void gb_date_text(const char *utc, char *out, size_t size) {
    if (!utc[0]) {
        snprintf(out, size, "%s", GB_NONE);
    } else {
        /* "2026-12-01T23:45:10Z" as "2026-12-01 23:45 UTC". */
        snprintf(out, size, "%.10s %.5s UTC", utc, utc + 11);
    }
}

void gb_host_text(const gb_row *r, char *out, size_t size) {
    if (r->rank >= 0) {
        snprintf(out, size, "%s (rank %ld)", r->host, r->rank);
    } else {
        snprintf(out, size, "%s", r->host);
    }
}
