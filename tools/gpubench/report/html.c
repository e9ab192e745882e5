/* The report as one self-contained HTML page: the same sections as the
 * Markdown, in the same order, with SVG charts and heat maps. */
#include "report.h"
#include "report_escape.h"

#include <string.h>

/* A row of cells, each escaped; NULL ends the list. */
static void tr(FILE *f, const char *const *cells) {
    fputs("<tr>", f);
    for (size_t i = 0; cells[i]; i++) {
        fputs("<td>", f);
        gb_xml_text(f, cells[i]);
        fputs("</td>", f);
    }
}

static void th(FILE *f, const char *names) {
    fputs("<table><tr>", f);
    for (const char *p = names; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        fprintf(f, "<th>%.*s</th>", (int)n, p);
        p += n + (end != NULL);
    }
    fputs("</tr>\n", f);
}

static void td_rate(FILE *f, double rate, const char *unit) {
    if (rate >= 0) {
        fprintf(f, "<td class=\"n\">%.2f %s</td>", rate, unit);
    } else {
        fputs("<td class=\"n\">-</td>", f);
    }
}

static void more(FILE *f, size_t n) {
    if (n > GB_REPORT_LIST_MAX) {
        fprintf(f, "<p class=\"note\">%zu more: see the JSON summary.</p>\n",
                n - GB_REPORT_LIST_MAX);
    }
}

static void stragglers(FILE *f, const gb_summary *s) {
    if (!s->nstragglers) {
        return; /* a word in the opening's line */
    }
    fprintf(f,
            "<h2>Stragglers</h2>\n<p class=\"note\">Devices more than %.0f%% worse than the median "
            "of identical devices (same name and architecture) on a benchmark case; a device in "
            "several files counts once, with its best figure.</p>\n",
            GB_STRAGGLER_PCT);
    fprintf(f, "<p>%zu device(s) on %zu case(s).</p>\n", s->nstraggling, s->nstragglers);
    th(f, "host,rank,device,uuid,model,arch,cases,worst case,worst gap");
    for (size_t i = 0; i < s->nstraggling && i < GB_REPORT_LIST_MAX; i++) {
        const gb_straggler *x = s->straggling[i].worst;
        const gb_row *r = x->row;
        char rank[24], kase[200];
        snprintf(kase, sizeof kase, "%s %s %s %s", r->bench, r->impl, r->dtype, r->shape);
        const char *cells[] = {
            r->host,        gb_rank_text(r, rank, sizeof rank),       r->device, gb_uuid_text(r),
            r->device_name, r->device_arch[0] ? r->device_arch : "-", NULL};
        tr(f, cells);
        fprintf(f, "<td class=\"n\">%zu</td><td>", s->straggling[i].cases);
        gb_xml_text(f, kase);
        fprintf(f, "</td><td class=\"n bad\">%.1f%%</td></tr>\n", x->gap_pct);
    }
    fputs("</table>\n", f);
    more(f, s->nstraggling);
    fputs("<p>Every case, worst first:</p>\n", f);
    th(f, "host,rank,device,uuid,model,arch,case,rate,group median,gap");
    for (size_t i = 0; i < s->nstragglers && i < GB_REPORT_LIST_MAX; i++) {
        const gb_straggler *x = &s->stragglers[i];
        const gb_row *r = x->row;
        char rank[24], kase[200];
        snprintf(kase, sizeof kase, "%s %s %s %s", r->bench, r->impl, r->dtype, r->shape);
        const char *cells[] = {
            r->host,        gb_rank_text(r, rank, sizeof rank),       r->device, gb_uuid_text(r),
            r->device_name, r->device_arch[0] ? r->device_arch : "-", kase,      NULL};
        tr(f, cells);
        td_rate(f, r->rate, r->unit);
        td_rate(f, s->groups[x->group].median, r->unit);
        fprintf(f, "<td class=\"n bad\">%.1f%%</td></tr>\n", x->gap_pct);
    }
    fputs("</table>\n", f);
    more(f, s->nstragglers);
}

static void throttled(FILE *f, const gb_summary *s) {
    if (!s->nthrottled) {
        return;
    }
    fputs("<h2>Throttled rows</h2>\n", f);
    th(f, "host,rank,device,uuid,case,rate,telemetry,why");
    for (size_t i = 0; i < s->nthrottled && i < GB_REPORT_LIST_MAX; i++) {
        const gb_row *r = s->throttled[i];
        char rank[24], kase[200];
        snprintf(kase, sizeof kase, "%s %s %s %s", r->bench, r->impl, r->dtype, r->shape);
        const char *cells[] = {
            r->host, gb_rank_text(r, rank, sizeof rank), r->device, gb_uuid_text(r), kase, NULL};
        tr(f, cells);
        td_rate(f, r->rate, r->unit);
        fputs("<td>", f);
        gb_xml_text(f, r->telemetry);
        fputs("</td><td class=\"bad\">", f);
        gb_xml_text(f, r->throttle_why[0] ? r->throttle_why : "-");
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    more(f, s->nthrottled);
}

static void skipped(FILE *f, const gb_summary *s) {
    if (!s->nskipped) {
        return;
    }
    fputs("<h2>Skipped files</h2>\n", f);
    th(f, "file,reason");
    for (size_t i = 0; i < s->nskipped; i++) {
        const char *cells[] = {s->skipped[i].file, s->skipped[i].why, NULL};
        tr(f, cells);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void models(FILE *f, const gb_summary *s) {
    fputs("<h2>Models</h2>\n", f);
    th(f, "model,arch,devices,hosts");
    for (size_t i = 0; i < s->nmodels; i++) {
        const gb_model *m = &s->models[i];
        const char *cells[] = {m->key->device_name,
                               m->key->device_arch[0] ? m->key->device_arch : "-", NULL};
        tr(f, cells);
        fprintf(f, "<td class=\"n\">%zu</td><td class=\"n\">%zu</td></tr>\n", m->devices, m->hosts);
    }
    fputs("</table>\n", f);
}

static void spread(FILE *f, const gb_summary *s) {
    fputs("<h2>Spread per benchmark case</h2>\n", f);
    gb_svg_gemm(f, s);
    gb_svg_bars(f, s, "stream", "Stream kernels: GB/s");
    gb_svg_bars(f, s, "reduce", "Reductions: GB/s");
    gb_svg_bars(f, s, "transfer", "Host <-> device transfers: GB/s");
    gb_svg_bars(f, s, "launch", "Launch latency: microseconds (shorter is better)");
    fputs("<p class=\"note\">min, median and max over the devices of a model (verified "
          "results); for us, lower is better.</p>\n",
          f);
    th(f, "bench,impl,dtype,shape,model,arch,devices,min,median,max,spread");
    for (size_t i = 0; i < s->ngroups; i++) {
        const gb_group *g = &s->groups[i];
        const gb_row *k = g->key;
        char impl[64];
        const char *cells[] = {
            k->bench,       gb_impl_text(s, k, impl, sizeof impl),    k->dtype, k->shape,
            k->device_name, k->device_arch[0] ? k->device_arch : "-", NULL};
        tr(f, cells);
        fprintf(f, "<td class=\"n\">%zu", g->n);
        if (g->left_out) {
            fprintf(f, " (+%zu left out)", g->left_out);
        }
        fputs("</td>", f);
        td_rate(f, g->min, k->unit);
        td_rate(f, g->median, k->unit);
        td_rate(f, g->max, k->unit);
        if (g->n && g->median > 0) {
            fprintf(f, "<td class=\"n\">%.1f%%</td></tr>\n", (g->max - g->min) / g->median * 100);
        } else {
            fputs("<td class=\"n\">-</td></tr>\n", f);
        }
    }
    fputs("</table>\n", f);
}

static void all_rows(FILE *f, const gb_summary *s) {
    fprintf(f,
            "<h2>All results</h2>\n<details%s><summary>%zu results, by model, case and "
            "device</summary>\n",
            s->t->count <= 200 ? " open" : "", s->t->count);
    th(f, "machine,rank,device,uuid,bench,impl,dtype,shape,rate,verified,throttled");
    for (size_t i = 0; i < s->t->count; i++) {
        const gb_row *r = s->order[i];
        char rank[24], device[200];
        snprintf(device, sizeof device, "%s (%s)", r->device_name, r->device);
        const char *cells[] = {r->host,  gb_rank_text(r, rank, sizeof rank),
                               device,   gb_uuid_text(r),
                               r->bench, r->impl,
                               r->dtype, r->shape,
                               NULL};
        tr(f, cells);
        td_rate(f, r->rate, r->unit);
        fprintf(f, "<td%s>%s</td><td%s>%s</td></tr>\n", r->verified ? "" : " class=\"bad\"",
                r->verified ? "yes" : "NO", r->throttled ? " class=\"bad\"" : "",
                r->throttled ? "yes" : (r->telemetry[0] ? "no" : "-"));
    }
    fputs("</table>\n</details>\n", f);
}

void gb_write_report_html(FILE *f, const gb_summary *s) {
    gb_front_html(f, s);
    stragglers(f, s);
    gb_links_html(f, s);
    throttled(f, s);
    skipped(f, s);
    models(f, s);
    spread(f, s);
    gb_p2p_html(f, s);
    all_rows(f, s);
    fputs("</main></body></html>\n", f);
}
