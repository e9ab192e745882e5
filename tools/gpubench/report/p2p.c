/* Peer-to-peer matrices: for each file with pairs, its devices as rows
 * (source) and columns (destination), GB/s in each cell, a copy staged
 * through host memory marked as such. A Markdown table, and an SVG heat map
 * on one colour scale for the whole report. */
#include "report.h"
#include "report_escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* More devices than this on one host are not drawn as a matrix. */
#define P2P_MAX_DEVICES 64

typedef struct p2p_matrix {
    const char *dev[P2P_MAX_DEVICES];
    size_t n;
    const gb_pair *cell[P2P_MAX_DEVICES][P2P_MAX_DEVICES]; /* [src][dst], NULL if absent */
} p2p_matrix;

static int name_cmp(const void *a, const void *b) {
    return gb_natural_cmp(*(const char *const *)a, *(const char *const *)b);
}

static long find(const p2p_matrix *m, const char *dev) {
    for (size_t i = 0; i < m->n; i++) {
        if (!strcmp(m->dev[i], dev)) {
            return (long)i;
        }
    }
    return -1;
}

/* The file's matrix; false when it has more devices than fit. */
static bool build(const gb_table *t, const gb_file *fi, p2p_matrix *m) {
    memset(m, 0, sizeof *m);
    for (size_t i = fi->first_pair; i < fi->first_pair + fi->pairs; i++) {
        const char *ends[2] = {t->pairs[i].src, t->pairs[i].dst};
        for (int e = 0; e < 2; e++) {
            if (find(m, ends[e]) < 0) {
                if (m->n == P2P_MAX_DEVICES) {
                    return false;
                }
                m->dev[m->n++] = ends[e];
            }
        }
    }
    qsort(m->dev, m->n, sizeof m->dev[0], name_cmp);
    for (size_t i = fi->first_pair; i < fi->first_pair + fi->pairs; i++) {
        m->cell[find(m, t->pairs[i].src)][find(m, t->pairs[i].dst)] = &t->pairs[i];
    }
    return true;
}

static bool any_pairs(const gb_table *t) {
    return t->npairs > 0;
}

static void title(FILE *f, const gb_file *fi, bool html) {
    char text[512];
    char rank[32] = "";
    if (fi->rank >= 0) {
        snprintf(rank, sizeof rank, ", rank %ld", fi->rank);
    }
    snprintf(text, sizeof text, "%s%s (%s)", fi->host, rank, fi->name ? fi->name : "");
    if (html) {
        fputs("<h3>", f);
        gb_xml_text(f, text);
        fputs("</h3>\n", f);
    } else {
        fputs("### ", f);
        gb_md_text(f, text);
        fputs("\n\n", f);
    }
}

static void cell_text(const gb_pair *p, char *out, size_t size) {
    if (!p) {
        snprintf(out, size, "-");
        return;
    }
    char gbs[32] = "n/a";
    if (p->gbs >= 0 && isfinite(p->gbs)) {
        snprintf(gbs, sizeof gbs, "%.1f", p->gbs);
    }
    snprintf(out, size, "%s%s%s", gbs, p->staged ? " (staged)" : "",
             p->verified ? "" : " (NOT verified)");
}

void gb_p2p_md(FILE *f, const gb_summary *s) {
    const gb_table *t = s->t;
    fputs("## Peer-to-peer bandwidth\n\n", f);
    if (!any_pairs(t)) {
        fputs("none\n\n", f);
        return;
    }
    fputs("GB/s from the row's device to the column's; staged: copied through host memory "
          "(no direct path).\n\n",
          f);
    p2p_matrix *m = malloc(sizeof *m); /* 32 KiB: not on the stack */
    if (!m) {
        fputs("(out of memory)\n\n", f);
        return;
    }
    for (size_t fi = 0; fi < t->nfiles; fi++) {
        if (!t->files[fi].pairs) {
            continue;
        }
        title(f, &t->files[fi], false);
        if (!build(t, &t->files[fi], m)) {
            fprintf(f, "more than %d devices: see the JSON summary.\n\n", P2P_MAX_DEVICES);
            continue;
        }
        fputs("| src \\\\ dst", f);
        for (size_t j = 0; j < m->n; j++) {
            fputs(" | ", f);
            gb_md_text(f, m->dev[j]);
        }
        fputs(" |\n|---", f);
        for (size_t j = 0; j < m->n; j++) {
            fputs("|---:", f);
        }
        fputs("|\n", f);
        for (size_t i = 0; i < m->n; i++) {
            fputs("| ", f);
            gb_md_text(f, m->dev[i]);
            for (size_t j = 0; j < m->n; j++) {
                char text[64];
                cell_text(m->cell[i][j], text, sizeof text);
                fputs(" | ", f);
                gb_md_text(f, text);
            }
            fputs(" |\n", f);
        }
        fputc('\n', f);
    }
    free(m);
}

/* From #f7fbff (slow) to #08306b (fast). */
static void colour(double v, char *out, size_t size) {
    v = v < 0 ? 0 : (v > 1 ? 1 : v);
    snprintf(out, size, "#%02x%02x%02x", (int)(247 + (8 - 247) * v), (int)(251 + (48 - 251) * v),
             (int)(255 + (107 - 255) * v));
}

static void heat_map(FILE *f, const p2p_matrix *m, double vmax, size_t id) {
    const int L = 90, T = 30, CW = 70, CH = 30;
    int w = L + CW * (int)m->n + 10, h = T + CH * (int)m->n + 50;
    if (w < L + 360) {
        w = L + 360; /* room for the legend */
    }
    fprintf(f,
            "<svg width=\"%d\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n<defs><linearGradient id=\"p2p%zu\">"
            "<stop offset=\"0\" stop-color=\"#f7fbff\"/><stop offset=\"1\" "
            "stop-color=\"#08306b\"/></linearGradient></defs>\n",
            w, h, id);
    for (size_t j = 0; j < m->n; j++) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", L + CW * (int)j + CW / 2,
                T - 8);
        gb_xml_text(f, m->dev[j]);
        fputs("</text>\n", f);
    }
    for (size_t i = 0; i < m->n; i++) {
        int y = T + CH * (int)i;
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", L - 6, y + CH / 2 + 4);
        gb_xml_text(f, m->dev[i]);
        fputs("</text>\n", f);
        for (size_t j = 0; j < m->n; j++) {
            const gb_pair *p = m->cell[i][j];
            int x = L + CW * (int)j;
            bool known = p && p->gbs >= 0 && isfinite(p->gbs);
            double v = known && vmax > 0 ? p->gbs / vmax : 0;
            char fill[8] = "#eeeeee", text[64];
            if (known) {
                colour(v, fill, sizeof fill);
            }
            cell_text(p, text, sizeof text);
            char *paren = strstr(text, " (staged)");
            if (paren) {
                memcpy(paren, " *", 3); /* the legend says what * means */
            }
            fputs("<g><title>", f);
            gb_xml_text(f, m->dev[i]);
            fputs(" to ", f);
            gb_xml_text(f, m->dev[j]);
            if (p) {
                fprintf(f, ": %s", *p->path ? p->path : "path unknown");
                if (p->latency_us >= 0 && isfinite(p->latency_us)) {
                    fprintf(f, ", latency %.2f us", p->latency_us);
                }
            }
            fprintf(f,
                    "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                    "stroke=\"%s\"%s/>",
                    x, y, CW, CH, fill, p && p->staged ? "#d62728" : "#fff",
                    p && p->staged ? " stroke-dasharray=\"4 2\" stroke-width=\"2\"" : "");
            fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">", x + CW / 2,
                    y + CH / 2 + 4, v > 0.5 ? "#fff" : "#000");
            gb_xml_text(f, text);
            fputs("</text></g>\n", f);
        }
    }
    int ly = T + CH * (int)m->n + 14;
    fprintf(f,
            "<rect x=\"%d\" y=\"%d\" width=\"160\" height=\"12\" fill=\"url(#p2p%zu)\"/>"
            "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.1f "
            "GB/s</text><text x=\"%d\" y=\"%d\">* staged through the host</text>\n</svg>\n",
            L, ly, id, L, ly + 26, L + 160, ly + 26, vmax, L + 180, ly + 10);
}

void gb_p2p_html(FILE *f, const gb_summary *s) {
    const gb_table *t = s->t;
    fputs("<h2>Peer-to-peer bandwidth</h2>\n", f);
    if (!any_pairs(t)) {
        fputs("<p>none</p>\n", f);
        return;
    }
    /* One scale for every host, so that colours compare across hosts. */
    double vmax = 0;
    for (size_t i = 0; i < t->npairs; i++) {
        if (isfinite(t->pairs[i].gbs)) {
            vmax = fmax(vmax, t->pairs[i].gbs);
        }
    }
    fputs("<p class=\"note\">GB/s from the row's device to the column's; a dashed red border and "
          "* mark a copy staged through host memory (no direct path).</p>\n",
          f);
    p2p_matrix *m = malloc(sizeof *m);
    if (!m) {
        fputs("<p>(out of memory)</p>\n", f);
        return;
    }
    for (size_t fi = 0; fi < t->nfiles; fi++) {
        if (!t->files[fi].pairs) {
            continue;
        }
        title(f, &t->files[fi], true);
        if (!build(t, &t->files[fi], m)) {
            fprintf(f, "<p>more than %d devices: see the JSON summary.</p>\n", P2P_MAX_DEVICES);
            continue;
        }
        heat_map(f, m, vmax, fi);
    }
    free(m);
}
