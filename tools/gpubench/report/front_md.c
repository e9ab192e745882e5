/* The Markdown report's opening: the headline, a row per device with
 * where it ran and its headline figures, the notes on files of other xgpu
 * versions, and one line for the checks that found nothing. */
#include "report.h"
#include "report_escape.h"

#include <string.h>

bool gb_all_clear(const gb_summary *s) {
    return !s->nstragglers && !s->nslow_links && !s->nmissing_ranks && !s->nthrottled;
}

/* "No stragglers, slow links, missing ranks or throttled rows." with
 * only the empty ones named; "" when none is empty. */
void gb_clear_text(const gb_summary *s, char *out, size_t size) {
    const char *names[4];
    size_t n = 0;
    if (!s->nstragglers) {
        names[n++] = "stragglers";
    }
    if (!s->nslow_links) {
        names[n++] = "slow links";
    }
    if (!s->nmissing_ranks) {
        names[n++] = "missing ranks";
    }
    if (!s->nthrottled) {
        names[n++] = "throttled rows";
    }
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && used < size; i++) {
        const char *sep = !i ? "No " : (i + 1 == n ? " or " : ", ");
        int w = snprintf(out + used, size - used, "%s%s%s", sep, names[i], i + 1 == n ? "." : "");
        used += w > 0 ? (size_t)w : 0;
    }
}

void gb_issues_text(const gb_summary *s, char *out, size_t size) {
    const struct {
        size_t n;
        const char *what;
    } found[] = {{s->nstraggling, "straggling device(s)"},
                 {s->nslow_links, "slow link(s)"},
                 {s->nmissing_ranks, "missing rank(s)"},
                 {s->nthrottled, "throttled row(s)"}};
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof found / sizeof found[0] && used < size; i++) {
        if (found[i].n) {
            int w = snprintf(out + used, size - used, "%s%zu %s",
                             used ? ", " : "Needs a look: ", found[i].n, found[i].what);
            used += w > 0 ? (size_t)w : 0;
        }
    }
    if (used && used < size) {
        snprintf(out + used, size - used, " (below the table).");
    }
}

static void cell(FILE *f, const char *text) {
    fputs(" ", f);
    gb_md_text(f, text[0] ? text : GB_NONE);
    fputs(" |", f);
}

static void device_row(FILE *f, const gb_device_row *d, bool verdicts) {
    const gb_row *k = d->key;
    char host[160], model[200], date[32], v[64], device[112];
    gb_host_text(k, host, sizeof host);
    gb_name_arch_text(k->device_name, d->arch, model, sizeof model);
    gb_date_text(d->started, date, sizeof date);
    fputs("|", f);
    cell(f, host);
    if (d->same_as) {
        snprintf(device, sizeof device, "%s (same GPU as %s)", k->device, d->same_as->key->device);
    } else {
        snprintf(device, sizeof device, "%s", k->device);
    }
    cell(f, device);
    cell(f, model);
    cell(f, d->backend);
    cell(f, d->driver);
    cell(f, d->api);
    cell(f, d->xgpu);
    cell(f, date);
    gb_fmt_flops(d->gemm, v, sizeof v);
    if (d->gemm >= 0) {
        snprintf(v + strlen(v), sizeof v - strlen(v), " %s", d->gemm_dtype);
    }
    cell(f, v);
    gb_fmt_ratio(d->gemm_ratio, v, sizeof v);
    if (d->gemm_ratio >= 0) {
        snprintf(v + strlen(v), sizeof v - strlen(v), " %s", d->gemm_vendor);
    }
    cell(f, v);
    gb_fmt_gbs(d->stream, v, sizeof v);
    if (d->stream >= 0) {
        snprintf(v + strlen(v), sizeof v - strlen(v), " %s", d->stream_kernel);
    }
    cell(f, v);
    gb_fmt_gbs(d->transfer, v, sizeof v);
    cell(f, v);
    gb_fmt_us(d->launch, v, sizeof v);
    cell(f, v);
    if (verdicts) {
        cell(f, d->verdict);
        cell(f, d->verdict_why);
    }
    fputc('\n', f);
}

void gb_front_md(FILE *f, const gb_summary *s) {
    char line[512];
    gb_headline_text(&s->headline, line, sizeof line);
    fputs("# gpubench report\n\n**", f);
    gb_md_text(f, line);
    fprintf(f, "** %zu result file(s) merged, %zu skipped; %zu results.\n\n", s->t->nfiles,
            s->nskipped, s->t->count);
    gb_issues_text(s, line, sizeof line);
    if (line[0]) {
        fprintf(f, "**%s**\n\n", line);
    }
    bool verdicts = gb_report_has_verdicts(s);
    if (s->ntable) {
        fprintf(f,
                "| host | device | model | backend | driver | API | xgpu | date | best GEMM | "
                "vs vendor BLAS | stream | transfer (pinned) | launch |%s\n"
                "|---|---|---|---|---|---|---|---|---:|---:|---:|---:|---:|%s\n",
                verdicts ? " verdict | why |" : "", verdicts ? "---|---|" : "");
        for (size_t i = 0; i < s->ntable; i++) {
            device_row(f, &s->table[i], verdicts);
        }
        fputs("\nbest GEMM: the fastest verified xgpu GEMM and its dtype; vs vendor BLAS: it "
              "over the vendor library's rate on the same shape in the same file; stream: the "
              "triad kernel (else copy); launch: a launch's round trip (lower is better).\n\n",
              f);
    } else {
        fputs("No device with xgpu rows.\n\n", f);
    }
    bool notes = false;
    for (size_t i = 0; i < s->t->nfiles; i++) {
        const gb_file *fi = &s->t->files[i];
        if (fi->note[0]) {
            fputs(notes ? "- " : "Files of other xgpu versions (merged):\n\n- ", f);
            gb_md_text(f, fi->name ? fi->name : "-");
            fputs(": ", f);
            gb_md_text(f, fi->note);
            fputc('\n', f);
            notes = true;
        }
    }
    if (notes) {
        fputc('\n', f);
    }
    gb_clear_text(s, line, sizeof line);
    if (line[0]) {
        fprintf(f, "%s\n\n", line);
    }
}
