/* The HTML report's head and opening: the style, the headline, a row per
 * device (where it ran, with what software, when, and its headline
 * figures, right-aligned with their units), the notes on files of other
 * xgpu versions, and one line for the checks that found nothing. Sized to
 * read without horizontal scrolling at 1280 pixels. */
#include "report.h"
#include "report_escape.h"

#include <string.h>

static const char style[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#222;"
    "background:#fafafa}"
    "main{max-width:1220px;margin:0 auto;padding:16px 24px}"
    "h1{font-size:22px;margin:8px 0 4px}h2{font-size:17px;margin:28px 0 8px}"
    "p.lead{font-size:16px;margin:4px 0 12px}"
    "table{border-collapse:collapse;font-size:12px;background:#fff;max-width:100%}"
    "td,th{border:1px solid #ddd;padding:3px 7px;vertical-align:top}"
    "th{background:#f0f0f0;text-align:left}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "table.devices{font-size:14px;width:100%}table.devices td{padding:6px 9px}"
    "table.devices tr:nth-child(even) td{background:#f7f9fc}"
    ".sub{color:#666;font-size:12px}.bad{color:#b00;font-weight:bold}"
    ".ok{color:#060}.note{color:#555;font-size:12px}"
    ".v-OK{color:#060}.v-UNKNOWN{color:#555}.v-UNDERPERFORMING{color:#a60}"
    ".v-DEGRADED{color:#c50}.v-FAULTY{color:#b00}"
    "p.clear{font-size:15px;color:#060;margin:14px 0}"
    "svg{max-width:100%;height:auto}details>summary{cursor:pointer}";

static void text(FILE *f, const char *s) {
    gb_xml_text(f, s[0] ? s : GB_NONE);
}

/* A figure over its detail: "22.95 TFLOP/s" over "f32". */
static void figure(FILE *f, const char *value, const char *detail) {
    fputs("<td class=\"n\">", f);
    text(f, value);
    if (detail && detail[0]) {
        fputs("<br><span class=\"sub\">", f);
        gb_xml_text(f, detail);
        fputs("</span>", f);
    }
    fputs("</td>", f);
}

static void device_row(FILE *f, const gb_device_row *d, bool verdicts) {
    const gb_row *k = d->key;
    char host[160], date[32], v[64];
    gb_host_text(k, host, sizeof host);
    gb_date_text(d->started, date, sizeof date);
    fputs("<tr><td><b>", f);
    gb_xml_text(f, k->device_name);
    fputs("</b>", f);
    if (d->arch[0]) {
        fputs(" <span class=\"sub\">", f);
        gb_xml_text(f, d->arch);
        fputs("</span>", f);
    }
    fputs("<br><span class=\"sub\">", f);
    gb_xml_text(f, host);
    fputs(" &middot; ", f);
    gb_xml_text(f, k->device);
    if (d->same_as) {
        fputs(" &middot; same GPU as ", f);
        gb_xml_text(f, d->same_as->key->device);
    }
    fputs("</span></td><td>", f);
    text(f, d->api[0] ? d->api : d->backend);
    fputs("<br><span class=\"sub\">driver ", f);
    text(f, d->driver);
    fputs(" &middot; xgpu ", f);
    text(f, d->xgpu);
    fputs("</span></td><td class=\"n\">", f);
    text(f, date);
    fputs("</td>", f);
    gb_fmt_flops(d->gemm, v, sizeof v);
    figure(f, v, d->gemm >= 0 ? d->gemm_dtype : NULL);
    gb_fmt_ratio(d->gemm_ratio, v, sizeof v);
    figure(f, v, d->gemm_ratio >= 0 ? d->gemm_vendor : NULL);
    gb_fmt_gbs(d->stream, v, sizeof v);
    figure(f, v, d->stream >= 0 ? d->stream_kernel : NULL);
    gb_fmt_gbs(d->transfer, v, sizeof v);
    figure(f, v, NULL);
    gb_fmt_us(d->launch, v, sizeof v);
    figure(f, v, NULL);
    if (verdicts) {
        /* The verdict's class is its word when it is one of check's. */
        bool known = !strcmp(d->verdict, "OK") || !strcmp(d->verdict, "UNKNOWN") ||
                     !strcmp(d->verdict, "UNDERPERFORMING") || !strcmp(d->verdict, "DEGRADED") ||
                     !strcmp(d->verdict, "FAULTY");
        fprintf(f, "<td><b class=\"v-%s\">", known ? d->verdict : "other");
        text(f, d->verdict);
        fputs("</b>", f);
        if (d->verdict_why[0]) {
            fputs("<br><span class=\"sub\">", f);
            gb_xml_text(f, d->verdict_why);
            fputs("</span>", f);
        }
        fputs("</td>", f);
    }
    fputs("</tr>\n", f);
}

static void notes(FILE *f, const gb_summary *s) {
    bool any = false;
    for (size_t i = 0; i < s->t->nfiles; i++) {
        const gb_file *fi = &s->t->files[i];
        if (!fi->note[0]) {
            continue;
        }
        fputs(any ? "<li>"
                  : "<p class=\"note\">Files of other xgpu versions (merged):</p>"
                    "<ul class=\"note\"><li>",
              f);
        gb_xml_text(f, fi->name ? fi->name : "-");
        fputs(": ", f);
        gb_xml_text(f, fi->note);
        fputs("</li>\n", f);
        any = true;
    }
    if (any) {
        fputs("</ul>\n", f);
    }
}

void gb_front_html(FILE *f, const gb_summary *s) {
    char line[512];
    gb_headline_text(&s->headline, line, sizeof line);
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width\">"
            "<title>gpubench report</title>\n<style>%s</style></head><body><main>\n"
            "<h1>gpubench report</h1>\n<p class=\"lead\">",
            style);
    gb_xml_text(f, line);
    fprintf(f, "</p>\n<p class=\"note\">%zu result file(s) merged, %zu skipped; %zu results.</p>\n",
            s->t->nfiles, s->nskipped, s->t->count);
    gb_issues_text(s, line, sizeof line);
    if (line[0]) {
        fprintf(f, "<p class=\"bad\">%s</p>\n", line);
    }
    bool verdicts = gb_report_has_verdicts(s);
    if (s->ntable) {
        fprintf(f,
                "<table class=\"devices\"><tr><th>device</th><th>software</th><th "
                "class=\"n\">date</th><th class=\"n\">best GEMM</th><th class=\"n\">vs "
                "vendor BLAS</th><th class=\"n\">stream</th><th class=\"n\">transfer "
                "(pinned)</th><th class=\"n\">launch</th>%s</tr>\n",
                verdicts ? "<th>verdict</th>" : "");
        for (size_t i = 0; i < s->ntable; i++) {
            device_row(f, &s->table[i], verdicts);
        }
        fputs("</table>\n<p class=\"note\">best GEMM: the fastest verified xgpu GEMM and its "
              "dtype; vs vendor BLAS: it over the vendor library's rate on the same shape in the "
              "same file; stream: the triad kernel (else copy); transfer: the fastest pinned "
              "host&harr;device copy; launch: a launch's round trip (lower is better). "
              "&mdash;: the files have no such row.</p>\n",
              f);
    } else {
        fputs("<p>No device with xgpu rows.</p>\n", f);
    }
    notes(f, s);
    gb_clear_text(s, line, sizeof line);
    if (line[0]) {
        fprintf(f, "<p class=\"%s\">%s</p>\n", gb_all_clear(s) ? "clear" : "note", line);
    }
}
