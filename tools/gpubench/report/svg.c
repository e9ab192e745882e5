/* The report's SVG charts, readable at any fleet size: one series or bar
 * per device model, at the median over its devices, with the min-max range
 * as error bars. Per-device figures are in the tables. */
#include "report.h"
#include "report_escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};
enum { MAX_SERIES = 8 };

/* A group the log-scale chart can place. A file may hold anything in size
 * and rate: 0, negative, 1e308, or an overflow to infinity. */
static bool plottable(const gb_group *g) {
    return !strcmp(g->key->bench, "gemm") && g->n && isfinite(g->median) && g->median > 0 &&
           isfinite(g->max) && isfinite(g->key->size) && g->key->size > 0;
}

/* GEMM groups by dtype, then model and impl (a series), then size. */
static int gemm_cmp(const void *pa, const void *pb) {
    const gb_row *a = (*(const gb_group *const *)pa)->key, *b = (*(const gb_group *const *)pb)->key;
    int c = strcmp(a->dtype, b->dtype);
    c = c ? c : gb_model_cmp(a, b);
    c = c ? c : strcmp(a->impl, b->impl);
    c = c ? c : gb_backend_cmp(a, b);
    return c ? c : (a->size < b->size ? -1 : a->size > b->size);
}

/* One series: a model's impl on one backend. */
static bool same_model_impl(const gb_row *a, const gb_row *b) {
    return !gb_model_cmp(a, b) && !strcmp(a->impl, b->impl) && !gb_backend_cmp(a, b);
}

static bool same_series(const gb_group *a, const gb_group *b) {
    return !strcmp(a->key->dtype, b->key->dtype) && same_model_impl(a->key, b->key);
}

/* A GEMM chart's frame in pixels (width, height, margins) and the data's
 * ranges: x is log2 of n, y GFLOP/s from 0. */
typedef struct gemm_chart {
    int W, H, L, R, T, B;
    double xmin, xmax, ymax;
} gemm_chart;

static double chart_x(const gemm_chart *c, double size) {
    return c->L + (c->W - c->L - c->R) * (log2(size) - c->xmin) / (c->xmax - c->xmin);
}

static double chart_y(const gemm_chart *c, double v) {
    return c->H - c->B - (c->H - c->B - c->T) * (v / c->ymax);
}

/* The axes, the GFLOP/s grid and the ticks of n at powers of two. */
static void gemm_axes(FILE *f, const gemm_chart *c) {
    const int W = c->W, H = c->H, L = c->L, R = c->R, T = c->T, B = c->B;
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", L, H - B, W - R,
            H - B);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", L, T, L, H - B);
    for (int g = 0; g <= 4; g++) {
        double v = c->ymax / 4 * g; /* ymax * g overflows near DBL_MAX */
        int y = (int)(H - B - (H - B - T) * g / 4.0);
        /* 50700, not 5.07e+04, where it fits */
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.*g</text>\n", L - 5, y + 4,
                v >= 1e4 && v < 1e9 ? 9 : 4, v >= 1e4 && v < 1e9 ? round(v) : v);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", L, y, W - R,
                y);
    }
    /* Ticks at powers of two, in doubles: log2 of a finite positive double
     * lies in [-1075, 1024], and at most about a dozen labels. */
    int first = (int)ceil(c->xmin), last = (int)floor(c->xmax);
    int step = last - first > 12 ? (last - first + 11) / 12 : 1;
    for (int e = first; e <= last; e += step) {
        int x = (int)(L + (W - L - R) * (e - c->xmin) / (c->xmax - c->xmin));
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.6g</text>\n", x, H - B + 16,
                exp2(e));
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">n</text>\n", (L + W) / 2, H - 10);
    fprintf(f,
            "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
            "text-anchor=\"middle\">GFLOP/s</text>\n",
            (H - B + T) / 2, (H - B + T) / 2);
}

/* Series number s, the groups [i, j), in colour c, named impl (as
 * gb_impl_text says it): its line through the medians, the min-max bars where it has several
 * devices, and its legend entry. */
static void gemm_series(FILE *f, const gemm_chart *ch, const gb_group *const *gs, size_t i,
                        size_t j, int s, const char *c, const char *impl, size_t devices) {
    fprintf(f, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"%s\" points=\"", c);
    for (size_t k = i; k < j; k++) {
        fprintf(f, "%.1f,%.1f ", chart_x(ch, gs[k]->key->size), chart_y(ch, gs[k]->median));
    }
    fputs("\"/>\n", f);
    for (size_t k = i; k < j; k++) {
        double px = chart_x(ch, gs[k]->key->size);
        double lo = chart_y(ch, gs[k]->min);
        double hi = chart_y(ch, gs[k]->max);
        if (gs[k]->n > 1) {
            fprintf(f, "<path stroke=\"%s\" d=\"M%.1f,%.1fV%.1fM%.1f,%.1fh8M%.1f,%.1fh8\"/>\n", c,
                    px, lo, hi, px - 4, lo, px - 4, hi);
        }
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", px,
                chart_y(ch, gs[k]->median), c);
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>", ch->L,
            ch->H + 20 * s, c);
    fprintf(f, "<text x=\"%d\" y=\"%d\">", ch->L + 18, ch->H + 20 * s + 11);
    char model[GB_MODEL_TEXT_MAX];
    gb_xml_text(f, gb_model_text(gs[i]->key, model, sizeof model));
    fputs(" / ", f);
    gb_xml_text(f, impl);
    fprintf(f, ", up to %zu device(s)</text>\n", devices);
}

/* A series' place among the report's GEMM series (model and impl, in
 * `keys`, nkeys of them): its colour in every chart, so that one model and
 * impl looks the same in the f32 chart as in the f64 one. */
static size_t series_index(const gb_row *const *keys, size_t nkeys, const gb_row *k) {
    for (size_t i = 0; i < nkeys; i++) {
        if (same_model_impl(keys[i], k)) {
            return i;
        }
    }
    return nkeys;
}

/* One chart: the groups [0, n) of one dtype; `keys` as series_index. */
static void gemm_one(FILE *f, const gb_summary *sum, const gb_group *const *gs, size_t n,
                     const gb_row *const *keys, size_t nkeys) {
    gemm_chart ch = {760, 360, 70, 20, 20, 50, INFINITY, -INFINITY, 0};
    int series = 0;
    for (size_t i = 0; i < n; i++) {
        ch.xmin = fmin(ch.xmin, log2(gs[i]->key->size));
        ch.xmax = fmax(ch.xmax, log2(gs[i]->key->size));
        ch.ymax = fmax(ch.ymax, gs[i]->max);
        series += (i == 0 || !same_series(gs[i - 1], gs[i])) && series < MAX_SERIES;
    }
    if (ch.xmax <= ch.xmin) {
        /* One size: its point in the middle, under its own tick. */
        ch.xmin -= 0.5;
        ch.xmax += 0.5;
    }
    fputs("<h3>GEMM ", f);
    gb_xml_text(f, gs[0]->key->dtype);
    fprintf(f,
            ": GFLOP/s against size (n x n x n)</h3>\n<p class=\"note\">Median per model; the "
            "bars span min to max over its devices.</p>\n<svg width=\"%d\" height=\"%d\" "
            "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" "
            "font-size=\"12\">\n",
            ch.W, ch.H + 20 * series + 20);
    gemm_axes(f, &ch);
    int s = 0;
    size_t dropped = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1, devices = gs[i]->n;
        while (j < n && same_series(gs[i], gs[j])) {
            devices = gs[j]->n > devices ? gs[j]->n : devices;
            j++;
        }
        if (s == MAX_SERIES) {
            dropped++;
        } else {
            /* The report's colour of this model and impl, unless there are
             * more of them than colours. */
            size_t at = series_index(keys, nkeys, gs[i]->key);
            const char *c = colours[nkeys <= MAX_SERIES && at < nkeys ? at : (size_t)s];
            char impl[64];
            gb_impl_text(sum, gs[i]->key, impl, sizeof impl);
            gemm_series(f, &ch, gs, i, j, s++, c, impl, devices);
        }
        i = j;
    }
    fputs("</svg>\n", f);
    if (dropped) {
        fprintf(f,
                "<p class=\"note\">%zu more series (model / impl) left out of the chart: see the "
                "table.</p>\n",
                dropped);
    }
}

void gb_svg_gemm(FILE *f, const gb_summary *s) {
    const gb_group **gs = malloc((s->ngroups ? s->ngroups : 1) * sizeof *gs);
    size_t n = 0, left_out = 0;
    if (!gs) {
        return;
    }
    for (size_t i = 0; i < s->ngroups; i++) {
        const gb_group *g = &s->groups[i];
        if (strcmp(g->key->bench, "gemm")) {
            continue;
        }
        if (plottable(g)) {
            gs[n++] = g;
        }
        /* Rows that did not run (-1) are no news; the others left out are. */
        for (size_t r = g->begin; r < g->end; r++) {
            const gb_row *row = s->order[r];
            left_out += row->rate != -1 && (!plottable(g) || !gb_row_usable(row));
        }
    }
    const gb_row **keys = malloc((n ? n : 1) * sizeof *keys);
    if (n && keys) {
        fputs("<h2>GEMM</h2>\n", f);
        qsort(gs, n, sizeof *gs, gemm_cmp);
        /* Every model and impl, in the order of the first chart they are in. */
        size_t nkeys = 0;
        for (size_t i = 0; i < n; i++) {
            if (series_index(keys, nkeys, gs[i]->key) == nkeys) {
                keys[nkeys++] = gs[i]->key;
            }
        }
        for (size_t i = 0; i < n;) {
            size_t j = i + 1;
            while (j < n && !strcmp(gs[i]->key->dtype, gs[j]->key->dtype)) {
                j++;
            }
            gemm_one(f, s, gs + i, j - i, keys, nkeys);
            i = j;
        }
    }
    free(keys);
    if (left_out) {
        fprintf(f,
                "<p class=\"note\">%zu GEMM result(s) left out of the chart: not verified, or "
                "size or rate is not a positive finite number (see the table).</p>\n",
                left_out);
    }
    free(gs);
}

/* Whether group g is drawn in the bar chart of `bench`. */
static bool has_bar(const gb_group *g, const char *bench) {
    return !strcmp(g->key->bench, bench) && g->n && isfinite(g->max) && g->max > 0;
}

/* One horizontal bar per model and case of a bandwidth or latency
 * benchmark: the median, with a whisker from min to max. Each model's bars
 * follow a line with its name, so that a bar's label is only its case
 * (a long model name beside every bar ran off the chart's left edge). */
void gb_svg_bars(FILE *f, const gb_summary *s, const char *bench, const char *title) {
    double vmax = 0;
    size_t bars = 0, models = 0;
    const gb_row *prev = NULL;
    for (size_t i = 0; i < s->ngroups; i++) {
        const gb_group *g = &s->groups[i];
        if (has_bar(g, bench)) {
            vmax = fmax(vmax, g->max);
            bars++;
            models += !prev || gb_model_cmp(prev, g->key);
            prev = g->key;
        }
    }
    if (!bars) {
        return;
    }
    const int W = 860, L = 300, bar = 16, step = bar + 4;
    fprintf(f, "<h3>");
    gb_xml_text(f, title);
    fprintf(f,
            "</h3>\n<svg width=\"%d\" height=\"%zu\" xmlns=\"http://www.w3.org/2000/svg\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n",
            W, (bars + models) * step + 10);
    const double scale = (W - L - 110) / vmax;
    size_t y = 0, model = 0;
    prev = NULL;
    for (size_t i = 0; i < s->ngroups; i++) {
        const gb_group *g = &s->groups[i];
        if (!has_bar(g, bench)) {
            continue;
        }
        const gb_row *k = g->key;
        if (!prev || gb_model_cmp(prev, k)) {
            model += prev != NULL;
            fprintf(f, "<rect x=\"0\" y=\"%zu\" width=\"10\" height=\"10\" fill=\"%s\"/>", y + 4,
                    colours[model % MAX_SERIES]);
            fprintf(f, "<text x=\"16\" y=\"%zu\" font-weight=\"bold\">", y + 13);
            char model_name[GB_MODEL_TEXT_MAX];
            gb_xml_text(f, gb_model_text(k, model_name, sizeof model_name));
            fputs("</text>\n", f);
            y += step;
        }
        prev = k;
        fprintf(f, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", L - 6, y + 12);
        char label[300], impl[64];
        snprintf(label, sizeof label, "%.40s %.16s %.120s (%zu)",
                 gb_impl_text(s, k, impl, sizeof impl), k->dtype, k->shape, g->n);
        gb_xml_text(f, label);
        fprintf(f, "</text><rect x=\"%d\" y=\"%zu\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", L,
                y, g->median * scale, bar, colours[model % MAX_SERIES]);
        if (g->n > 1) {
            fprintf(f, "<path stroke=\"#333\" d=\"M%.1f,%zuH%.1fM%.1f,%zuv8M%.1f,%zuv8\"/>",
                    L + g->min * scale, y + bar / 2, L + g->max * scale, L + g->min * scale,
                    y + bar / 2 - 4, L + g->max * scale, y + bar / 2 - 4);
        }
        fprintf(f, "<text x=\"%.1f\" y=\"%zu\">%.4g %s</text>\n", L + g->max * scale + 4, y + 12,
                g->median, k->unit);
        y += step;
    }
    fputs("</svg>\n", f);
}
