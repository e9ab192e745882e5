/* The report as JSON ("xgpu.gpubench-report/1") for fleets to post-process:
 * the headline and a row per device first, the files merged (with their
 * notes) and skipped, the models, every group's spread, every
 * straggler (and, per straggling device, its worst case with the number of
 * cases) and throttled row (not cut at GB_REPORT_LIST_MAX), and the
 * peer-to-peer pairs. */
#include "json_write.h"
#include "report.h"

#include <math.h>
#include <xgpu.h>

/* A figure; null for "not measured" (< 0) or not finite. */
static void num(FILE *f, const char *key, double v) {
    fprintf(f, ", \"%s\": ", key);
    if (v >= 0 && isfinite(v)) {
        fprintf(f, "%.9g", v);
    } else {
        fputs("null", f);
    }
}

static void str(FILE *f, const char *key, const char *v, bool first) {
    fprintf(f, "%s\"%s\": ", first ? "" : ", ", key);
    if (v) {
        jw_string(f, v);
    } else {
        fputs("null", f);
    }
}

static void rank(FILE *f, long r) {
    if (r >= 0) {
        fprintf(f, ", \"rank\": %ld", r);
    } else {
        fputs(", \"rank\": null", f);
    }
}

static const char *or_null(const char *s) {
    return s[0] ? s : NULL;
}

/* The device and the case of a row. */
static void row_keys(FILE *f, const gb_summary *s, const gb_row *r) {
    str(f, "file", s->t->files[r->file].name, true);
    str(f, "host", r->host, false);
    rank(f, r->rank);
    str(f, "device", r->device, false);
    str(f, "device_uuid", or_null(r->device_uuid), false);
    str(f, "device_name", r->device_name, false);
    str(f, "device_arch", or_null(r->device_arch), false);
    str(f, "bench", r->bench, false);
    str(f, "impl", r->impl, false);
    str(f, "dtype", r->dtype, false);
    str(f, "shape", r->shape, false);
    num(f, "size", r->size);
    str(f, "unit", r->unit, false);
    num(f, "rate", r->rate);
}

static void str_or_null(FILE *f, const char *key, const char *v) {
    str(f, key, or_null(v), false);
}

/* The opening: the headline's counts and a row per device (figures null
 * where the files have no such row). */
static void front(FILE *f, const gb_summary *s) {
    const gb_headline *h = &s->headline;
    char line[512];
    gb_headline_text(h, line, sizeof line);
    fputs(",\n\"headline\": {", f);
    str(f, "text", line, true);
    fprintf(f, ", \"devices\": %zu, \"device_paths\": %zu, \"hosts\": %zu, \"models\": %zu",
            h->devices, h->paths, h->hosts, h->models);
    str_or_null(f, "first_started_utc", h->first);
    str_or_null(f, "last_started_utc", h->last);
    fprintf(f, ", \"undated_files\": %zu}", h->undated);
    fputs(",\n\"device_table\": [", f);
    for (size_t i = 0; i < s->ntable; i++) {
        const gb_device_row *d = &s->table[i];
        const gb_row *k = d->key;
        fputs(i ? ",\n  {" : "\n  {", f);
        str(f, "host", k->host, true);
        rank(f, k->rank);
        str(f, "device", k->device, false);
        str_or_null(f, "device_uuid", k->device_uuid);
        str_or_null(f, "same_device_as", d->same_as ? d->same_as->key->device : "");
        str(f, "device_name", k->device_name, false);
        str_or_null(f, "device_arch", k->device_arch);
        str_or_null(f, "backend", d->backend);
        str_or_null(f, "driver_version", d->driver);
        str_or_null(f, "api_version", d->api);
        str_or_null(f, "xgpu_version", d->xgpu);
        str_or_null(f, "started_utc", d->started);
        num(f, "gemm_gflops", d->gemm);
        str_or_null(f, "gemm_dtype", d->gemm >= 0 ? d->gemm_dtype : "");
        num(f, "gemm_vs_vendor", d->gemm_ratio);
        str_or_null(f, "gemm_vendor", d->gemm_ratio >= 0 ? d->gemm_vendor : "");
        num(f, "stream_gbs", d->stream);
        str_or_null(f, "stream_kernel", d->stream_kernel);
        num(f, "transfer_pinned_gbs", d->transfer);
        num(f, "launch_us", d->launch);
        str_or_null(f, "verdict", d->verdict);
        str_or_null(f, "verdict_why", d->verdict_why);
        fputs("}", f);
    }
    fputs("\n]", f);
}

static void files(FILE *f, const gb_summary *s) {
    fputs(",\n\"files\": [", f);
    for (size_t i = 0; i < s->t->nfiles; i++) {
        const gb_file *fi = &s->t->files[i];
        fputs(i ? ",\n  {" : "\n  {", f);
        str(f, "file", fi->name, true);
        str(f, "host", fi->host, false);
        rank(f, fi->rank);
        str(f, "engine", or_null(fi->engine), false);
        str(f, "xgpu_version", or_null(fi->version), false);
        str_or_null(f, "started_utc", fi->started_utc);
        str_or_null(f, "note", fi->note);
        fprintf(f, ", \"results\": %zu, \"p2p_pairs\": %zu}", fi->rows, fi->pairs);
    }
    fputs("\n],\n\"skipped\": [", f);
    for (size_t i = 0; i < s->nskipped; i++) {
        fputs(i ? ",\n  {" : "\n  {", f);
        str(f, "file", s->skipped[i].file, true);
        str(f, "reason", s->skipped[i].why, false);
        fputs("}", f);
    }
    fputs("\n]", f);
}

static void groups(FILE *f, const gb_summary *s) {
    fputs(",\n\"models\": [", f);
    for (size_t i = 0; i < s->nmodels; i++) {
        const gb_model *m = &s->models[i];
        fputs(i ? ",\n  {" : "\n  {", f);
        str(f, "device_name", m->key->device_name, true);
        str(f, "device_arch", or_null(m->key->device_arch), false);
        fprintf(f, ", \"devices\": %zu, \"hosts\": %zu}", m->devices, m->hosts);
    }
    fputs("\n],\n\"groups\": [", f);
    for (size_t i = 0; i < s->ngroups; i++) {
        const gb_group *g = &s->groups[i];
        const gb_row *k = g->key;
        fputs(i ? ",\n  {" : "\n  {", f);
        str(f, "device_name", k->device_name, true);
        str(f, "device_arch", or_null(k->device_arch), false);
        str(f, "bench", k->bench, false);
        str(f, "impl", k->impl, false);
        char backend[48];
        str(f, "backend", gb_backend_text(k, backend, sizeof backend), false);
        str(f, "dtype", k->dtype, false);
        str(f, "shape", k->shape, false);
        num(f, "size", k->size);
        str(f, "unit", k->unit, false);
        str(f, "better", g->lower_better ? "lower" : "higher", false);
        fprintf(f, ", \"devices\": %zu, \"left_out\": %zu", g->n, g->left_out);
        num(f, "min", g->min);
        num(f, "median", g->median);
        num(f, "max", g->max);
        num(f, "spread_pct", g->n && g->median > 0 ? (g->max - g->min) / g->median * 100 : -1);
        fputs("}", f);
    }
    fputs("\n]", f);
}

static void lists(FILE *f, const gb_summary *s) {
    fputs(",\n\"stragglers\": [", f);
    for (size_t i = 0; i < s->nstragglers; i++) {
        const gb_straggler *x = &s->stragglers[i];
        fputs(i ? ",\n  {" : "\n  {", f);
        row_keys(f, s, x->row);
        num(f, "median", s->groups[x->group].median);
        num(f, "gap_pct", x->gap_pct);
        fputs("}", f);
    }
    fputs("\n],\n\"straggling_devices\": [", f);
    for (size_t i = 0; i < s->nstraggling; i++) {
        const gb_straggler *x = s->straggling[i].worst;
        fputs(i ? ",\n  {" : "\n  {", f);
        row_keys(f, s, x->row);
        num(f, "median", s->groups[x->group].median);
        num(f, "gap_pct", x->gap_pct);
        fprintf(f, ", \"cases\": %zu}", s->straggling[i].cases);
    }
    fputs("\n],\n\"throttled\": [", f);
    for (size_t i = 0; i < s->nthrottled; i++) {
        const gb_row *r = s->throttled[i];
        fputs(i ? ",\n  {" : "\n  {", f);
        row_keys(f, s, r);
        str(f, "source", r->telemetry, false);
        str(f, "throttle_why", r->throttle_why, false);
        fputs("}", f);
    }
    fputs("\n]", f);
}

static void p2p(FILE *f, const gb_summary *s) {
    const gb_table *t = s->t;
    fputs(",\n\"p2p\": [", f);
    bool first = true;
    for (size_t i = 0; i < t->nfiles; i++) {
        const gb_file *fi = &t->files[i];
        if (!fi->has_p2p) {
            continue;
        }
        fputs(first ? "\n  {" : ",\n  {", f);
        first = false;
        str(f, "file", fi->name, true);
        str(f, "host", fi->host, false);
        rank(f, fi->rank);
        fputs(", \"pairs\": [", f);
        for (size_t p = fi->first_pair; p < fi->first_pair + fi->pairs; p++) {
            const gb_pair *x = &t->pairs[p];
            fputs(p > fi->first_pair ? ",\n    {" : "\n    {", f);
            str(f, "src", x->src, true);
            str(f, "dst", x->dst, false);
            str(f, "path", *x->path ? x->path : "unknown", false);
            num(f, "gbs", x->gbs);
            num(f, "latency_us", x->latency_us);
            fprintf(f, ", \"verified\": %s}", x->verified ? "true" : "false");
        }
        fputs("]}", f);
    }
    fputs("\n]", f);
}

void gb_write_report_json(FILE *f, const gb_summary *s) {
    fputs("{\n\"schema\": \"xgpu.gpubench-report/1\",\n\"xgpu_version\": ", f);
    jw_string(f, xgpu_version_string());
    fprintf(f, ",\n\"straggler_pct\": %g,\n\"devices\": %zu", GB_STRAGGLER_PCT, s->devices);
    front(f, s);
    files(f, s);
    groups(f, s);
    lists(f, s);
    gb_links_json(f, s);
    p2p(f, s);
    fputs("\n}\n", f);
}
