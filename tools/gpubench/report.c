/* gpubench report: merges result files from many machines into a Markdown
 * table and a self-contained HTML page with SVG charts. Parses with cJSON;
 * a malformed or foreign file is an error naming the file and the problem. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"
#include "outfile.h"
#include "report_read.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole file, at most GB_REPORT_MAX_BYTES: /dev/zero or a runaway
 * file is refused, not read until memory runs out. */
static char *read_all(const char *path, size_t *len, char *why, size_t why_size) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(why, why_size, "cannot read: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) != 0) {
        snprintf(why, why_size, "cannot read: %s", strerror(errno));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "is a directory, not a result file");
        goto fail;
    }
    const size_t limit = GB_REPORT_MAX_BYTES;
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > limit) {
        snprintf(why, why_size, "%jd bytes, over the %zu MiB limit for a result file",
                 (intmax_t)st.st_size, limit >> 20);
        goto fail;
    }
    /* Pipes and devices have no size: read up to one byte over the limit. */
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : (size_t)1 << 16;
    size_t used = 0;
    buf = malloc(cap);
    for (;;) {
        if (!buf) {
            snprintf(why, why_size, "out of memory");
            goto fail;
        }
        if (used == cap) {
            size_t grown_cap = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            char *grown = grown_cap > cap ? realloc(buf, grown_cap) : NULL;
            if (!grown) {
                free(buf);
            }
            buf = grown;
            cap = grown_cap;
            continue;
        }
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            snprintf(why, why_size, "cannot read: %s", strerror(errno));
            goto fail;
        }
        if (got == 0) {
            break;
        }
        used += (size_t)got;
        if (used > limit) {
            snprintf(why, why_size, "more than the %zu MiB limit for a result file", limit >> 20);
            goto fail;
        }
    }
    close(fd);
    *len = used;
    return buf;
fail:
    free(buf);
    close(fd);
    return NULL;
}

static int load(const char *path, gb_table *t) {
    char why[512] = "";
    size_t len = 0;
    char *text = read_all(path, &len, why, sizeof why);
    int rc = text ? gb_report_parse(text, len, t, why, sizeof why) : -1;
    if (rc != 0) {
        /* "X is a directory" reads better without the colon. */
        fprintf(stderr, "gpubench report: %s%s%s\n", path, strncmp(why, "is a ", 5) ? ": " : " ",
                why);
    }
    free(text);
    return rc;
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

static void series_name(const gb_row *r, char *out, size_t size) {
    snprintf(out, size, "%.60s / %.100s / %s %s", r->host, r->device_name, r->impl, r->dtype);
}

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

/* A point the log-scale chart can place. A file may hold anything in size
 * and rate: 0, negative, 1e308, or an overflow to infinity. */
static bool plottable(const gb_row *r) {
    return !strcmp(r->bench, "gemm") && isfinite(r->rate) && r->rate > 0 && isfinite(r->size) &&
           r->size > 0;
}

/* GFLOP/s against n (log scale), one line per machine/device/impl/dtype. */
static void gemm_chart(FILE *f, const gb_table *t) {
    const int W = 760, H = 360, L = 70, R = 20, T = 20, B = 50;
    double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
    size_t left_out = 0;
    for (size_t i = 0; i < t->count; i++) {
        const gb_row *r = &t->rows[i];
        if (plottable(r)) {
            xmin = fmin(xmin, log2(r->size));
            xmax = fmax(xmax, log2(r->size));
            ymax = fmax(ymax, r->rate);
        } else if (!strcmp(r->bench, "gemm") && r->rate != -1) { /* -1: did not run */
            left_out++;
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
        double v = ymax / 4 * g; /* ymax * g overflows near DBL_MAX */
        int y = (int)(H - B - (H - B - T) * g / 4.0);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.4g</text>\n", L - 5, y + 4, v);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", L, y, W - R,
                y);
    }
    /* Ticks at powers of two, in doubles: log2 of a finite positive double
     * lies in [-1075, 1024], and at most about a dozen labels. */
    int first = (int)ceil(xmin), last = (int)floor(xmax);
    int step = last - first > 12 ? (last - first + 11) / 12 : 1;
    for (int e = first; e <= last; e += step) {
        int x = (int)(L + (W - L - R) * (e - xmin) / (xmax - xmin));
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.6g</text>\n", x, H - B + 16,
                exp2(e));
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">n</text>\n", (L + W) / 2, H - 10);
    fprintf(f,
            "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
            "text-anchor=\"middle\">GFLOP/s</text>\n",
            (H - B + T) / 2, (H - B + T) / 2);
    char names[8][256];
    int nseries = 0;
    for (size_t i = 0; i < t->count; i++) {
        const gb_row *r = &t->rows[i];
        if (!plottable(r)) {
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
                    const gb_row *q = &t->rows[j];
                    char qn[256];
                    series_name(q, qn, sizeof qn);
                    if (!plottable(q) || strcmp(qn, name)) {
                        continue;
                    }
                    double px = L + (W - L - R) * (log2(q->size) - xmin) / (xmax - xmin);
                    double py = H - B - (H - B - T) * (q->rate / ymax);
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
    if (left_out) {
        fprintf(f,
                "<p class=\"note\">%zu GEMM result(s) left out of the chart: size or rate is "
                "not a positive finite number (see the table).</p>\n",
                left_out);
    }
}

/* One horizontal bar per row of a bandwidth or latency benchmark. */
static void bar_chart(FILE *f, const gb_table *t, const char *bench, const char *title) {
    double vmax = 0;
    size_t bars = 0;
    for (size_t i = 0; i < t->count; i++) {
        const gb_row *r = &t->rows[i];
        if (!strcmp(r->bench, bench) && isfinite(r->rate) && r->rate > 0) {
            vmax = fmax(vmax, r->rate);
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
        const gb_row *r = &t->rows[i];
        if (strcmp(r->bench, bench) || !isfinite(r->rate) || r->rate <= 0) {
            continue;
        }
        int h;
        for (h = 0; h < nhosts && strcmp(hosts[h], r->host); h++) {
        }
        if (h == nhosts && nhosts < 8) {
            snprintf(hosts[nhosts++], sizeof hosts[0], "%s", r->host);
        }
        double w = (W - L - 80) * (r->rate / vmax);
        fprintf(f, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", L - 6, y + 12);
        char label[400];
        snprintf(label, sizeof label, "%s %s %s %s", r->host, r->device, r->dtype, r->shape);
        xml_text(f, label);
        fprintf(f, "</text><rect x=\"%d\" y=\"%zu\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", L,
                y, w, bar, colours[h % 8]);
        fprintf(f, "<text x=\"%.1f\" y=\"%zu\">%.4g %s</text>\n", L + w + 4, y + 12, r->rate,
                r->unit);
        y += bar + 4;
    }
    fputs("</svg>\n", f);
}

/* Text in a Markdown table cell: a '|' would end the cell and a newline the
 * row; HTML in Markdown is passed through to the page, so <, > and & become
 * entities; the characters of emphasis, code and links are escaped. */
static void md_text(FILE *f, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f) {
            fputc(' ', f);
        } else if (c == '<') {
            fputs("&lt;", f);
        } else if (c == '>') {
            fputs("&gt;", f);
        } else if (c == '&') {
            fputs("&amp;", f);
        } else if (strchr("|\\`*_[]~", c)) {
            fputc('\\', f);
            fputc(c, f);
        } else {
            fputc(c, f);
        }
    }
}

static void write_markdown(FILE *f, const gb_table *t) {
    fputs("| machine | device | bench | impl | dtype | shape | rate | verified |\n"
          "|---|---|---|---|---|---|---:|---|\n",
          f);
    for (size_t i = 0; i < t->count; i++) {
        const gb_row *r = &t->rows[i];
        fputs("| ", f);
        md_text(f, r->host);
        fputs(" | ", f);
        md_text(f, r->device_name);
        fputs(" (", f);
        md_text(f, r->device);
        fputs(") | ", f);
        const char *cells[] = {r->bench, r->impl, r->dtype, r->shape};
        for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++) {
            md_text(f, cells[c]);
            fputs(" | ", f);
        }
        if (r->rate >= 0) {
            fprintf(f, "%.2f %s", r->rate, r->unit);
        } else {
            fputs("-", f);
        }
        fprintf(f, " | %s |\n", r->verified ? "yes" : "**NO**");
    }
}

static void write_html(FILE *f, const gb_table *t, int files) {
    fprintf(f,
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpubench report"
            "</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:900px}"
            "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
            "padding:2px 6px}td.n{text-align:right}.bad{color:#b00;font-weight:bold}"
            ".note{color:#666;font-size:12px}</style>"
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
        const gb_row *r = &t->rows[i];
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
}

int gb_report(int argc, char **argv) {
    const char *prefix = "gpubench-report";
    gb_table t = {0};
    int files = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            prefix = argv[++i];
            continue;
        }
        if (load(argv[i], &t) != 0) {
            gb_table_free(&t);
            return 2;
        }
        files++;
    }
    if (!files) {
        fprintf(stderr, "usage: gpubench report [-o PREFIX] RESULT.json...\n");
        return 2;
    }
    char md[1024], html[1024], why[1024];
    snprintf(md, sizeof md, "%s.md", prefix);
    snprintf(html, sizeof html, "%s.html", prefix);
    /* Both written whole or not at all (outfile.h). */
    gb_outfile mdf, htmlf;
    int rc = 2;
    if (gb_outfile_open(&mdf, md, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench report: %s\n", why);
        goto done;
    }
    if (gb_outfile_open(&htmlf, html, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench report: %s\n", why);
        gb_outfile_discard(&mdf);
        goto done;
    }
    write_markdown(mdf.f, &t);
    write_html(htmlf.f, &t, files);
    if (gb_outfile_commit(&mdf, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench report: %s\n", why);
        gb_outfile_discard(&htmlf);
        goto done;
    }
    if (gb_outfile_commit(&htmlf, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench report: %s\n", why);
        goto done;
    }
    printf("wrote %s and %s (%zu results from %d file(s))\n", md, html, t.count, files);
    rc = 0;
done:
    gb_table_free(&t);
    return rc;
}
