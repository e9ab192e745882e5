/* The results file for machines, schema "xgpu.gpubench/1": the host, the
 * version, when the run began (UTC), the rank, the p2p matrix, the command
 * line and libraries, gpuinfo's document of the devices (fields.h), each
 * device's health facts (health.h), and every row with its telemetry. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"
#include "fields.h"
#include "json_write.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(GB_HAVE_OPENBLAS)
#include <cblas.h>
#endif

/* A string, or null when it is empty. */
static void json_string_or_null(FILE *f, const char *s) {
    if (*s) {
        jw_string(f, s);
    } else {
        fputs("null", f);
    }
}

static void json_rank(FILE *f, const gb_rank *rank) {
    if (!rank) {
        fputs("null", f);
        return;
    }
    fputs("{\"engine\": ", f);
    jw_string(f, rank->engine);
    fputs(", \"rank\": ", f);
    rank->rank >= 0 ? fprintf(f, "%d", rank->rank) : fputs("null", f);
    fputs(", \"local_rank\": ", f);
    rank->local_rank >= 0 ? fprintf(f, "%d", rank->local_rank) : fputs("null", f);
    fputs(", \"size\": ", f);
    rank->size >= 0 ? fprintf(f, "%d", rank->size) : fputs("null", f);
    fputs(", \"variable\": ", f);
    jw_string(f, rank->variable);
    fputs("}", f);
}

/* The "p2p" value: null, or the matrix. */
static void json_p2p(FILE *f, const gb_p2p *m) {
    if (!m || !m->count) {
        fputs("null", f);
        return;
    }
    uint32_t n = 0;
    while ((size_t)n * n < m->count) {
        n++;
    }
    fputs("{\"devices\": [", f);
    for (uint32_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        jw_string(f, m->pairs[i].dst);
    }
    fprintf(f, "], \"bytes\": %zu, \"pairs\": [", m->bytes);
    for (size_t i = 0; i < m->count; i++) {
        const gb_p2p_pair *p = &m->pairs[i];
        fputs(i ? ",\n    {\"src\": " : "\n    {\"src\": ", f);
        jw_string(f, p->src);
        fputs(", \"dst\": ", f);
        jw_string(f, p->dst);
        fputs(", \"src_uuid\": ", f);
        json_string_or_null(f, p->src_uuid);
        fputs(", \"dst_uuid\": ", f);
        json_string_or_null(f, p->dst_uuid);
        fputs(", \"path\": ", f);
        jw_string(f, p->path);
        fprintf(f, ", \"bytes\": %zu, \"gbs\": ", m->bytes);
        p->gbs >= 0 ? jw_number(f, p->gbs) : (void)fputs("null", f);
        fputs(", \"latency_us\": ", f);
        p->latency_us >= 0 ? jw_number(f, p->latency_us) : (void)fputs("null", f);
        fprintf(f, ", \"verified\": %s}", p->verified ? "true" : "false");
    }
    fputs("]}", f);
}

/* When the run began, as "2026-12-01T23:45:10Z"; null when unknown. */
static void json_started(FILE *f, time_t started) {
    struct tm utc;
    char text[32];
    if (started > 0 && gmtime_r(&started, &utc) &&
        strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc)) {
        jw_string(f, text);
    } else {
        fputs("null", f);
    }
}

/* Everything before the rows: the file's host, version, rank, p2p matrix,
 * command line, libraries and gpuinfo's document of the devices. */
static void json_header(FILE *f, const gb_run_options *opt, const gb_env *env) {
    fputs("{\n\"schema\": \"xgpu.gpubench/1\",\n\"host\": ", f);
    jw_string(f, gb_host_name());
    fputs(",\n\"xgpu_version\": ", f);
    jw_string(f, xgpu_version_string());
    fputs(",\n\"started_utc\": ", f);
    json_started(f, opt->started);
    fputs(",\n\"rank\": ", f);
    json_rank(f, opt->rank);
    fputs(",\n\"p2p\": ", f);
    json_p2p(f, env->p2p);
    fputs(",\n\"command_line\": [", f);
    for (int i = 0; i < opt->argc; i++) {
        fputs(i ? ", " : "", f);
        jw_string(f, opt->argv[i]);
    }
    fputs("],\n\"libraries\": {", f);
#if defined(GB_HAVE_OPENBLAS)
    fputs("\"openblas\": {\"config\": ", f);
    jw_string(f, openblas_get_config());
    fputs(", \"core\": ", f);
    jw_string(f, openblas_get_corename());
    fprintf(f, ", \"threads\": %d}", openblas_get_num_threads());
#endif
    fputs("},\n\"gpuinfo\": ", f);
    pd_device *devs = NULL;
    uint32_t nd = 0;
    if (pd_collect(&devs, &nd) == 0) {
        df_print_json(f, devs, nd);
    } else {
        fputs("null\n", f);
    }
    free(devs);
}

/* One row's members, from "bench" to "telemetry". */
static void json_row(FILE *f, const gb_result *x) {
    fputs("\"bench\": ", f);
    jw_string(f, x->bench);
    fputs(", \"impl\": ", f);
    jw_string(f, x->impl);
    fputs(", \"device\": ", f);
    jw_string(f, x->device);
    fputs(", \"device_name\": ", f);
    jw_string(f, x->device_name);
    fputs(", \"device_uuid\": ", f);
    json_string_or_null(f, x->device_uuid);
    fputs(", \"device_arch\": ", f);
    json_string_or_null(f, x->device_arch);
    fputs(", \"backend\": ", f);
    jw_string(f, x->backend);
    fputs(", \"dtype\": ", f);
    jw_string(f, x->dtype);
    fputs(", \"shape\": ", f);
    jw_string(f, x->shape);
    fputs(", \"size\": ", f);
    jw_number(f, x->size);
    if (x->t.reps) {
        fputs(", \"median_s\": ", f);
        jw_number(f, x->t.median);
        fputs(", \"min_s\": ", f);
        jw_number(f, x->t.min);
        fputs(", \"max_s\": ", f);
        jw_number(f, x->t.max);
        fputs(", \"stddev_s\": ", f);
        jw_number(f, x->t.stddev);
    } else {
        fputs(", \"median_s\": null, \"min_s\": null, \"max_s\": null, \"stddev_s\": null", f);
    }
    fprintf(f, ", \"reps\": %d", x->t.reps);
    const char *key =
        !x->unit
            ? "rate"
            : (!strcmp(x->unit, "GFLOP/s") ? "gflops" : (!strcmp(x->unit, "GB/s") ? "gbs" : "us"));
    fprintf(f, ", \"%s\": ", key);
    if (x->rate >= 0) {
        jw_number(f, x->rate);
    } else {
        fputs("null", f);
    }
    fputs(", \"pct_peak\": ", f);
    if (x->pct_peak >= 0) {
        jw_number(f, x->pct_peak);
    } else {
        fputs("null", f);
    }
    fputs(", \"first_s\": ", f);
    jw_number(f, x->first_s);
    fprintf(f, ", \"verified\": %s, \"max_rel_err\": ", x->verified ? "true" : "false");
    jw_number(f, x->max_rel_err);
    fputs(", \"note\": ", f);
    jw_string(f, x->note);
    if (!strcmp(x->bench, "gemm")) {
        /* New after 0.6.0: what the GEMM ran and the peak it is read
         * against (readers of older files find none of these). */
        fputs(", \"c_dtype\": ", f);
        json_string_or_null(f, x->c_dtype);
        fputs(", \"path\": ", f);
        json_string_or_null(f, x->path);
        fputs(", \"compute\": ", f);
        json_string_or_null(f, x->compute);
        fprintf(f, ", \"batch\": %zu, \"peak_gflops\": ", x->batch ? x->batch : 1);
        x->peak_gflops > 0 ? jw_number(f, x->peak_gflops) : (void)fputs("null", f);
        fputs(", \"peak_source\": ", f);
        json_string_or_null(f, x->peak_source);
    }
    fputs(", \"telemetry\": ", f);
    if (x->has_telemetry) {
        gt_write_json(f, &x->telemetry);
    } else {
        fputs("null", f);
    }
}

void gb_write_json(FILE *f, const gb_run_options *opt, const gb_env *env) {
    const gb_results *r = &env->results;
    json_header(f, opt, env);
    /* One object per device the run used (health.h), in the same shape
     * whatever is known. */
    fputs(",\n\"health\": [", f);
    for (size_t i = 0; i < env->health.count; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        gh_write_json(f, &env->health.facts[i]);
    }
    fputs(env->health.count ? "\n]" : "]", f);
    fputs(",\n\"results\": [", f);
    for (size_t i = 0; i < r->count; i++) {
        fputs(i ? ",\n  {" : "\n  {", f);
        json_row(f, r->rows[i]);
        fputs("}", f);
    }
    fputs("\n]\n}\n", f);
}
