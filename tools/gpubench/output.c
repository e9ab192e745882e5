/* Output: a table for people, CSV and JSON ("xgpu.gpubench/1") for
 * machines. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"
#include "json_write.h"
#include "fields.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(GB_HAVE_OPENBLAS)
#include <cblas.h>
#endif

const char *gb_host_name(void) {
    static char host[256];
    const char *forced = getenv("XGPU_GPUBENCH_HOST"); /* tests fake machines */
    if (forced && *forced) {
        return forced;
    }
    if (!host[0] && gethostname(host, sizeof host - 1) != 0) {
        snprintf(host, sizeof host, "unknown");
    }
    return host;
}

static const char *rate_text(const gb_result *r, char *buf, size_t size) {
    if (r->rate < 0) {
        return "-";
    }
    snprintf(buf, size, "%.2f %s", r->rate, r->unit ? r->unit : "");
    return buf;
}

/* Once per device, under the table: which telemetry source its rows
 * have, and the host CPU's clock where that is all there is. */
static void print_telemetry_sources(FILE *out, const gb_results *res) {
    for (size_t i = 0; i < res->count; i++) {
        const gb_result *x = res->rows[i];
        bool first = x->has_telemetry;
        for (size_t j = 0; j < i && first; j++) {
            const gb_result *y = res->rows[j];
            first = !(y->has_telemetry && !strcmp(y->device, x->device));
        }
        if (!first) {
            continue;
        }
        const gt_range *cpu = &x->telemetry.r[GT_CPU_MHZ];
        gt_source src = x->telemetry.source;
        fprintf(out, "%s telemetry: ", x->device);
        if (src == GT_SOURCE_NVML || src == GT_SOURCE_ROCM_SMI) {
            fputs(gt_source_name(src), out);
        } else if (x->telemetry_why[0]) {
            fprintf(out, "none (%s)", x->telemetry_why);
        }
        if (cpu->known) {
            fprintf(out, "%shost CPU %.0f MHz", x->telemetry_why[0] ? "; " : "", cpu->median);
        } else if (src == GT_SOURCE_NONE) {
            fputs(x->telemetry_why[0] ? "; Linux shows no host CPU clock"
                                      : "none (Linux shows no host CPU clock)",
                  out);
        }
        fputc('\n', out);
    }
}

void gb_print_table(FILE *out, const gb_results *res) {
    fprintf(out, "%-9s %-9s %-9s %-4s %-22s %14s %8s %10s %7s  %s\n", "bench", "impl", "device",
            "type", "shape", "rate", "%peak", "median", "reps", "check");
    for (size_t i = 0; i < res->count; i++) {
        const gb_result *x = res->rows[i];
        char rate[48], peak[16], med[32];
        snprintf(peak, sizeof peak, x->pct_peak >= 0 ? "%.0f%%" : "-", x->pct_peak);
        if (x->t.reps) {
            snprintf(med, sizeof med, "%.3f ms", x->t.median * 1e3);
        } else {
            snprintf(med, sizeof med, "-");
        }
        const gt_summary *tel = &x->telemetry;
        bool throttled = x->has_telemetry && tel->throttled;
        fprintf(out, "%-9s %-9s %-9s %-4s %-22s %14s %8s %10s %7d  %s%s%s%s%s\n", x->bench, x->impl,
                x->device, x->dtype, x->shape, rate_text(x, rate, sizeof rate), peak, med,
                x->t.reps,
                x->t.reps ? (x->verified ? "verified" : "FAILED") : (x->verified ? "" : "FAILED"),
                x->note[0] && x->t.reps ? "; " : "", x->note, throttled ? "; THROTTLED: " : "",
                throttled ? tel->throttle_why : "");
    }
    print_telemetry_sources(out, res);
}

/* A CSV field: quoted, quotes doubled. */
static void csv_field(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') {
            fputc('"', f);
        }
        fputc(*s, f);
    }
    fputc('"', f);
}

void gb_write_csv(FILE *f, const gb_results *r) {
    fprintf(f, "host,bench,impl,device,device_name,backend,dtype,shape,size,median_s,min_s,max_s,"
               "stddev_s,reps,rate,unit,pct_peak,first_s,verified,max_rel_err,note\n");
    for (size_t i = 0; i < r->count; i++) {
        const gb_result *x = r->rows[i];
        csv_field(f, gb_host_name());
        fputc(',', f);
        csv_field(f, x->bench);
        fputc(',', f);
        csv_field(f, x->impl);
        fputc(',', f);
        csv_field(f, x->device);
        fputc(',', f);
        csv_field(f, x->device_name);
        fputc(',', f);
        csv_field(f, x->backend);
        fputc(',', f);
        csv_field(f, x->dtype);
        fputc(',', f);
        csv_field(f, x->shape);
        fprintf(f, ",%.0f,%.9g,%.9g,%.9g,%.9g,%d,%.6g,", x->size, x->t.median, x->t.min, x->t.max,
                x->t.stddev, x->t.reps, x->rate);
        csv_field(f, x->unit ? x->unit : "");
        fprintf(f, ",%.3g,%.6g,%s,%.3g,", x->pct_peak, x->first_s, x->verified ? "true" : "false",
                x->max_rel_err);
        csv_field(f, x->note);
        fputc('\n', f);
    }
}

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

void gb_write_p2p_json(FILE *f, const gb_p2p *m) {
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

void gb_write_json(FILE *f, const gb_options *opt, const gb_env *env) {
    const gb_results *r = &env->results;
    fputs("{\n\"schema\": \"xgpu.gpubench/1\",\n\"host\": ", f);
    jw_string(f, gb_host_name());
    fputs(",\n\"xgpu_version\": ", f);
    jw_string(f, xgpu_version_string());
    fputs(",\n\"rank\": ", f);
    json_rank(f, opt->rank);
    fputs(",\n\"p2p\": ", f);
    gb_write_p2p_json(f, env->p2p);
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
    fputs(",\n\"results\": [", f);
    for (size_t i = 0; i < r->count; i++) {
        const gb_result *x = r->rows[i];
        fputs(i ? ",\n  {" : "\n  {", f);
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
            !x->unit ? "rate"
                     : (!strcmp(x->unit, "GFLOP/s") ? "gflops"
                                                    : (!strcmp(x->unit, "GB/s") ? "gbs" : "us"));
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
        fputs(", \"telemetry\": ", f);
        if (x->has_telemetry) {
            gt_write_json(f, &x->telemetry);
        } else {
            fputs("null", f);
        }
        fputs("}", f);
    }
    fputs("\n]\n}\n", f);
}
