/* Output for people (the table of rows, the p2p matrices) and CSV for
 * machines; the JSON is output_json.c's. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
                !x->note[0] ? "" : (x->t.reps ? "; " : (x->verified ? "" : ": ")), x->note,
                throttled ? "; THROTTLED: " : "", throttled ? tel->throttle_why : "");
    }
    print_telemetry_sources(out, res);
}

/* One matrix, sources down, destinations across. */
static void print_matrix(FILE *f, const gb_p2p *m, bool latency) {
    uint32_t n = 0;
    while (n * n < m->count) {
        n++;
    }
    char what[32];
    snprintf(what, sizeof what, "%zu MiB copies", m->bytes >> 20);
    fprintf(f, "\n%s (%s, %s)\n%-12s", latency ? "p2p latency, us" : "p2p bandwidth, GB/s",
            latency ? "8-byte copies" : what, "rows: from, columns: to", "");
    for (uint32_t t = 0; t < n; t++) {
        fprintf(f, " %14s", m->pairs[t].dst);
    }
    fputc('\n', f);
    for (uint32_t s = 0; s < n; s++) {
        fprintf(f, "%-12s", m->pairs[s * n].src);
        for (uint32_t t = 0; t < n; t++) {
            const gb_p2p_pair *p = &m->pairs[s * n + t];
            double v = latency ? p->latency_us : p->gbs;
            char cell[32];
            if (!p->verified || v < 0) {
                snprintf(cell, sizeof cell, "FAILED");
            } else {
                snprintf(cell, sizeof cell, "%.*f%s", latency ? 1 : 2, v,
                         !strcmp(p->path, "staged") ? " (staged)" : "");
            }
            fprintf(f, " %14s", cell);
        }
        fputc('\n', f);
    }
}

int gb_print_p2p(FILE *f, const gb_p2p *m) {
    if (!m || !m->count) {
        return 0;
    }
    print_matrix(f, m, false);
    print_matrix(f, m, true);
    int failed = 0;
    for (size_t i = 0; i < m->count; i++) {
        failed += !m->pairs[i].verified;
    }
    fprintf(f,
            "(%zu MiB copies; \"staged\": through host memory, no direct path; the diagonal "
            "is a copy within the device)\n",
            m->bytes >> 20);
    return failed;
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
               "stddev_s,reps,rate,unit,pct_peak,first_s,verified,max_rel_err,note,c_dtype,path,"
               "compute,batch,peak_gflops\n");
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
        fputc(',', f);
        csv_field(f, x->c_dtype);
        fputc(',', f);
        csv_field(f, x->path);
        fputc(',', f);
        csv_field(f, x->compute);
        fprintf(f, ",%zu,%.6g\n", x->batch, x->peak_gflops);
    }
}
