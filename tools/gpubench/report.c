/* gpubench report: merges result files from many machines into a Markdown
 * table and a self-contained HTML page with SVG charts. Parses with cJSON;
 * a malformed or foreign file is an error naming the file and the problem. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    char host[128], bench[16], impl[16], device[48], device_name[128], dtype[8], shape[64],
        unit[12];
    double size, rate;
    bool verified;
} row;

typedef struct table {
    row *rows;
    size_t count, cap;
} table;

static char *read_all(const char *path, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot read: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown) {
                free(buf);
            }
            buf = grown;
        }
    }
    fclose(f);
    if (!buf) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

static const char *str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static int load(const char *path, table *t) {
    char err[256] = "";
    char *text = read_all(path, err, sizeof err);
    if (!text) {
        fprintf(stderr, "gpubench report: %s: %s\n", path, err);
        return -1;
    }
    cJSON *root = cJSON_Parse(text);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t offset = at && at >= text ? (size_t)(at - text) : 0;
        fprintf(stderr, "gpubench report: %s: not valid JSON (truncated or damaged) at byte %zu\n",
                path, offset);
        free(text);
        return -1;
    }
    free(text);
    const char *schema = str(root, "schema");
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    if (strcmp(schema, "xgpu.gpubench/1") != 0 || !cJSON_IsArray(results)) {
        fprintf(stderr,
                "gpubench report: %s: not a gpubench result file (schema \"%s\", expected "
                "\"xgpu.gpubench/1\" with a results array)\n",
                path, schema);
        cJSON_Delete(root);
        return -1;
    }
    const char *host = str(root, "host");
    const cJSON *r;
    cJSON_ArrayForEach(r, results) {
        if (t->count == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 64;
            row *grown = realloc(t->rows, cap * sizeof *grown);
            if (!grown) {
                break;
            }
            t->rows = grown;
            t->cap = cap;
        }
        row *x = &t->rows[t->count++];
        memset(x, 0, sizeof *x);
        snprintf(x->host, sizeof x->host, "%s", host);
        snprintf(x->bench, sizeof x->bench, "%s", str(r, "bench"));
        snprintf(x->impl, sizeof x->impl, "%s", str(r, "impl"));
        snprintf(x->device, sizeof x->device, "%s", str(r, "device"));
        snprintf(x->device_name, sizeof x->device_name, "%s", str(r, "device_name"));
        snprintf(x->dtype, sizeof x->dtype, "%s", str(r, "dtype"));
        snprintf(x->shape, sizeof x->shape, "%s", str(r, "shape"));
        x->size = num(r, "size");
        static const char *const keys[][2] = {{"gflops", "GFLOP/s"}, {"gbs", "GB/s"}, {"us", "us"}};
        x->rate = -1;
        for (size_t k = 0; k < 3; k++) {
            if (cJSON_GetObjectItemCaseSensitive(r, keys[k][0])) {
                x->rate = num(r, keys[k][0]);
                snprintf(x->unit, sizeof x->unit, "%s", keys[k][1]);
            }
        }
        x->verified = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "verified"));
    }
    cJSON_Delete(root);
    return 0;
}

static void xml_text(FILE *f, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static void series_name(const row *r, char *out, size_t size) {
    snprintf(out, size, "%.60s / %.100s / %s %s", r->host, r->device_name, r->impl, r->dtype);
}

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

/* GFLOP/s against n (log scale), one line per machine/device/impl/dtype. */
static void gemm_chart(FILE *f, const table *t) {
    const int W = 760, H = 360, L = 70, R = 20, T = 20, B = 50;
    double xmin = INFINITY, xmax = 0, ymax = 0;
    for (size_t i = 0; i < t->count; i++) {
        const row *r = &t->rows[i];
        if (!strcmp(r->bench, "gemm") && r->rate > 0 && r->size > 0) {
            xmin = fmin(xmin, log2(r->size));
            xmax = fmax(xmax, log2(r->size));
            ymax = fmax(ymax, r->rate);
        }
    }
    if (ymax <= 0) {
        return;
    }
    if (xmax <= xmin) {
        xmax = xmin + 1;
    }
    fprintf(f,
            "<h2>GEMM: GFLOP/s against size (n x n x n)</h2>\n<svg width=\"%d\" height=\"%d\" "
            "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H + 20 * 8);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", L, H - B, W - R,
            H - B);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", L, T, L, H - B);
    for (int g = 0; g <= 4; g++) {
        double v = ymax * g / 4;
        int y = (int)(H - B - (H - B - T) * g / 4.0);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f</text>\n", L - 5, y + 4, v);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", L, y, W - R,
                y);
    }
    for (int e = (int)xmin; e <= (int)xmax; e++) {
        int x = (int)(L + (W - L - R) * (e - xmin) / (xmax - xmin));
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", x, H - B + 16,
                1 << e);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">n</text>\n", (L + W) / 2, H - 10);
    fprintf(f,
            "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
            "text-anchor=\"middle\">GFLOP/s</text>\n",
            (H - B + T) / 2, (H - B + T) / 2);
    char names[8][256];
    int nseries = 0;
    for (size_t i = 0; i < t->count; i++) {
        const row *r = &t->rows[i];
        if (strcmp(r->bench, "gemm") || r->rate <= 0 || r->size <= 0) {
            continue;
        }
        char name[256];
        series_name(r, name, sizeof name);
        int s;
        for (s = 0; s < nseries && strcmp(names[s], name); s++) {
        }
        if (s == nseries) {
            if (nseries == 8) {
                continue;
            }
            snprintf(names[nseries++], sizeof names[0], "%s", name);
            /* The line, then a dot per point (a series may have one). */
            for (int pass = 0; pass < 2; pass++) {
                if (pass == 0) {
                    fprintf(f,
                            "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"%s\" "
                            "points=\"",
                            colours[s]);
                }
                for (size_t j = i; j < t->count; j++) {
                    const row *q = &t->rows[j];
                    char qn[256];
                    series_name(q, qn, sizeof qn);
                    if (strcmp(q->bench, "gemm") || q->rate <= 0 || q->size <= 0 ||
                        strcmp(qn, name)) {
                        continue;
                    }
                    double px = L + (W - L - R) * (log2(q->size) - xmin) / (xmax - xmin);
                    double py = H - B - (H - B - T) * q->rate / ymax;
                    if (pass == 0) {
                        fprintf(f, "%.1f,%.1f ", px, py);
                    } else {
                        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", px,
                                py, colours[s]);
                    }
                }
                if (pass == 0) {
                    fputs("\"/>\n", f);
                }
            }
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>", L,
                    H + 20 * s, colours[s]);
            fprintf(f, "<text x=\"%d\" y=\"%d\">", L + 18, H + 20 * s + 11);
            xml_text(f, name);
            fputs("</text>\n", f);
        }
    }
    fputs("</svg>\n", f);
}

/* One horizontal bar per row of a bandwidth or latency benchmark. */
static void bar_chart(FILE *f, const table *t, const char *bench, const char *title) {
    double vmax = 0;
    size_t bars = 0;
    for (size_t i = 0; i < t->count; i++) {
        if (!strcmp(t->rows[i].bench, bench) && t->rows[i].rate > 0) {
            vmax = fmax(vmax, t->rows[i].rate);
            bars++;
        }
    }
    if (!bars) {
        return;
    }
    const int W = 760, L = 330, bar = 16;
    fprintf(f, "<h2>");
    xml_text(f, title);
    fprintf(f,
            "</h2>\n<svg width=\"%d\" height=\"%zu\" xmlns=\"http://www.w3.org/2000/svg\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n",
            W, bars * (bar + 4) + 10);
    size_t y = 0;
    char hosts[8][128];
    int nhosts = 0;
    for (size_t i = 0; i < t->count; i++) {
        const row *r = &t->rows[i];
        if (strcmp(r->bench, bench) || r->rate <= 0) {
            continue;
        }
        int h;
        for (h = 0; h < nhosts && strcmp(hosts[h], r->host); h++) {
        }
        if (h == nhosts && nhosts < 8) {
            snprintf(hosts[nhosts++], sizeof hosts[0], "%s", r->host);
        }
        double w = (W - L - 80) * r->rate / vmax;
        fprintf(f, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", L - 6, y + 12);
        char label[400];
        snprintf(label, sizeof label, "%s %s %s %s", r->host, r->device, r->dtype, r->shape);
        xml_text(f, label);
        fprintf(f, "</text><rect x=\"%d\" y=\"%zu\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", L,
                y, w, bar, colours[h % 8]);
        fprintf(f, "<text x=\"%.1f\" y=\"%zu\">%.2f %s</text>\n", L + w + 4, y + 12, r->rate,
                r->unit);
        y += bar + 4;
    }
    fputs("</svg>\n", f);
}

static int write_markdown(const char *path, const table *t) {
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    fputs("| machine | device | bench | impl | dtype | shape | rate | verified |\n"
          "|---|---|---|---|---|---|---:|---|\n",
          f);
    for (size_t i = 0; i < t->count; i++) {
        const row *r = &t->rows[i];
        fprintf(f, "| %s | %s (%s) | %s | %s | %s | %s | ", r->host, r->device_name, r->device,
                r->bench, r->impl, r->dtype, r->shape);
        if (r->rate >= 0) {
            fprintf(f, "%.2f %s", r->rate, r->unit);
        } else {
            fputs("-", f);
        }
        fprintf(f, " | %s |\n", r->verified ? "yes" : "**NO**");
    }
    return fclose(f);
}

static int write_html(const char *path, const table *t, int files) {
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    fprintf(f,
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpubench report"
            "</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:900px}"
            "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
            "padding:2px 6px}td.n{text-align:right}.bad{color:#b00;font-weight:bold}</style>"
            "</head><body>\n<h1>gpubench: %d result file(s)</h1>\n",
            files);
    gemm_chart(f, t);
    bar_chart(f, t, "stream", "Stream kernels: GB/s");
    bar_chart(f, t, "reduce", "Reductions: GB/s");
    bar_chart(f, t, "transfer", "Host <-> device transfers: GB/s");
    bar_chart(f, t, "launch", "Launch latency: microseconds (shorter is better)");
    fputs("<h2>All results</h2>\n<table><tr><th>machine</th><th>device</th><th>bench</th>"
          "<th>impl</th><th>dtype</th><th>shape</th><th>rate</th><th>verified</th></tr>\n",
          f);
    for (size_t i = 0; i < t->count; i++) {
        const row *r = &t->rows[i];
        fputs("<tr><td>", f);
        xml_text(f, r->host);
        fputs("</td><td>", f);
        xml_text(f, r->device_name);
        fputs("</td><td>", f);
        xml_text(f, r->bench);
        fputs("</td><td>", f);
        xml_text(f, r->impl);
        fputs("</td><td>", f);
        xml_text(f, r->dtype);
        fputs("</td><td>", f);
        xml_text(f, r->shape);
        if (r->rate >= 0) {
            fprintf(f, "</td><td class=\"n\">%.2f %s", r->rate, r->unit);
        } else {
            fputs("</td><td class=\"n\">-", f);
        }
        fprintf(f, "</td><td%s>%s</td></tr>\n", r->verified ? "" : " class=\"bad\"",
                r->verified ? "yes" : "NO");
    }
    fputs("</table>\n</body></html>\n", f);
    return fclose(f);
}

int gb_report(int argc, char **argv) {
    const char *prefix = "gpubench-report";
    table t = {0};
    int files = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            prefix = argv[++i];
            continue;
        }
        if (load(argv[i], &t) != 0) {
            free(t.rows);
            return 2;
        }
        files++;
    }
    if (!files) {
        fprintf(stderr, "usage: gpubench report [-o PREFIX] RESULT.json...\n");
        return 2;
    }
    char md[1024], html[1024];
    snprintf(md, sizeof md, "%s.md", prefix);
    snprintf(html, sizeof html, "%s.html", prefix);
    int rc = write_markdown(md, &t) || write_html(html, &t, files) ? 2 : 0;
    if (!rc) {
        printf("wrote %s and %s (%zu results from %d file(s))\n", md, html, t.count, files);
    }
    free(t.rows);
    return rc;
}
