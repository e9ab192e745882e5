/* The report as Markdown: the headline and the device table first
 * (front_md.c), the stragglers, slow links, missing ranks and throttled
 * rows found (one line for those not found), then the skipped files, the models, the spread per
 * benchmark case, the peer-to-peer matrices and every result. */
#include "report.h"
#include "report_escape.h"

#include <string.h>

/* Cells separated by " | ", each escaped; NULL ends the list. */
static void md_cells(FILE *f, const char *const *cells) {
    for (size_t i = 0; cells[i]; i++) {
        fputs(i ? " | " : "| ", f);
        gb_md_text(f, cells[i]);
    }
}

static void md_rate(FILE *f, double rate, const char *unit) {
    if (rate >= 0) {
        fprintf(f, " | %.2f %s", rate, unit);
    } else {
        fputs(" | -", f);
    }
}

static void case_text(const gb_row *r, char *out, size_t size) {
    snprintf(out, size, "%s %s %s %s", r->bench, r->impl, r->dtype, r->shape);
}

static void more(FILE *f, size_t n) {
    if (n > GB_REPORT_LIST_MAX) {
        fprintf(f, "\n%zu more: see the JSON summary.\n", n - GB_REPORT_LIST_MAX);
    }
}

static void stragglers(FILE *f, const gb_summary *s) {
    if (!s->nstragglers) {
        return; /* a word in the opening's line */
    }
    fprintf(f,
            "## Stragglers\n\nDevices more than %.0f%% worse than the median of identical "
            "devices (same name and architecture) on a benchmark case; a device in several files "
            "counts once, with its best figure.\n\n",
            GB_STRAGGLER_PCT);
    fprintf(f,
            "%zu device(s) on %zu case(s).\n\n| host | rank | device | uuid | model | cases | "
            "worst case | worst gap |\n|---|---:|---|---|---|---:|---|---:|\n",
            s->nstraggling, s->nstragglers);
    for (size_t i = 0; i < s->nstraggling && i < GB_REPORT_LIST_MAX; i++) {
        const gb_straggler *x = s->straggling[i].worst;
        const gb_row *r = x->row;
        char rank[24], model[GB_MODEL_TEXT_MAX], kase[200];
        gb_model_text(r, model, sizeof model);
        case_text(r, kase, sizeof kase);
        const char *cells[] = {
            r->host, gb_rank_text(r, rank, sizeof rank), r->device, gb_uuid_text(r), model, NULL};
        md_cells(f, cells);
        fprintf(f, " | %zu | ", s->straggling[i].cases);
        gb_md_text(f, kase);
        fprintf(f, " | %.1f%% |\n", x->gap_pct);
    }
    more(f, s->nstraggling);
    fputs("\nEvery case, worst first:\n\n"
          "| host | rank | device | uuid | model | case | rate | group median | gap |\n"
          "|---|---:|---|---|---|---|---:|---:|---:|\n",
          f);
    for (size_t i = 0; i < s->nstragglers && i < GB_REPORT_LIST_MAX; i++) {
        const gb_straggler *x = &s->stragglers[i];
        const gb_row *r = x->row;
        char rank[24], model[GB_MODEL_TEXT_MAX], kase[200];
        gb_model_text(r, model, sizeof model);
        case_text(r, kase, sizeof kase);
        const char *cells[] = {
            r->host, gb_rank_text(r, rank, sizeof rank), r->device, gb_uuid_text(r), model, kase,
            NULL};
        md_cells(f, cells);
        md_rate(f, r->rate, r->unit);
        md_rate(f, s->groups[x->group].median, r->unit);
        fprintf(f, " | %.1f%% |\n", x->gap_pct);
    }
    more(f, s->nstragglers);
    fputc('\n', f);
}

static void throttled(FILE *f, const gb_summary *s) {
    if (!s->nthrottled) {
        return;
    }
    fputs("## Throttled rows\n\n| host | rank | device | uuid | case | rate | telemetry | why |\n"
          "|---|---:|---|---|---|---:|---|---|\n",
          f);
    for (size_t i = 0; i < s->nthrottled && i < GB_REPORT_LIST_MAX; i++) {
        const gb_row *r = s->throttled[i];
        char rank[24], kase[200];
        case_text(r, kase, sizeof kase);
        const char *cells[] = {
            r->host, gb_rank_text(r, rank, sizeof rank), r->device, gb_uuid_text(r), kase, NULL};
        md_cells(f, cells);
        md_rate(f, r->rate, r->unit);
        const char *tail[] = {r->telemetry, r->throttle_why[0] ? r->throttle_why : "-", NULL};
        fputs(" ", f);
        md_cells(f, tail);
        fputs(" |\n", f);
    }
    more(f, s->nthrottled);
    fputc('\n', f);
}

static void skipped(FILE *f, const gb_summary *s) {
    if (!s->nskipped) {
        return;
    }
    fputs("## Skipped files\n\n| file | reason |\n|---|---|\n", f);
    for (size_t i = 0; i < s->nskipped; i++) {
        const char *cells[] = {s->skipped[i].file, s->skipped[i].why, NULL};
        md_cells(f, cells);
        fputs(" |\n", f);
    }
    fputc('\n', f);
}

static void models(FILE *f, const gb_summary *s) {
    fputs("## Models\n\n| model | arch | devices | hosts |\n|---|---|---:|---:|\n", f);
    for (size_t i = 0; i < s->nmodels; i++) {
        const gb_model *m = &s->models[i];
        const char *cells[] = {m->key->device_name,
                               m->key->device_arch[0] ? m->key->device_arch : "-", NULL};
        md_cells(f, cells);
        fprintf(f, " | %zu | %zu |\n", m->devices, m->hosts);
    }
    fputc('\n', f);
}

/* One line per model and case, by case: the spread across identical
 * devices. */
static void spread(FILE *f, const gb_summary *s) {
    fputs("## Spread per benchmark case\n\nmin, median and max over the devices of a model "
          "(verified results; left out: not run, not verified or not finite); for us, lower is "
          "better.\n\n"
          "| bench | impl | dtype | shape | model | devices | min | median | max | spread |\n"
          "|---|---|---|---|---|---:|---:|---:|---:|---:|\n",
          f);
    for (size_t i = 0; i < s->ngroups; i++) {
        const gb_group *g = &s->groups[i];
        const gb_row *k = g->key;
        char model[GB_MODEL_TEXT_MAX], impl[64];
        gb_model_text(k, model, sizeof model);
        const char *cells[] = {
            k->bench, gb_impl_text(s, k, impl, sizeof impl), k->dtype, k->shape, model, NULL};
        md_cells(f, cells);
        fprintf(f, " | %zu", g->n);
        if (g->left_out) {
            fprintf(f, " (+%zu left out)", g->left_out);
        }
        md_rate(f, g->min, k->unit);
        md_rate(f, g->median, k->unit);
        md_rate(f, g->max, k->unit);
        if (g->n && g->median > 0) {
            fprintf(f, " | %.1f%% |\n", (g->max - g->min) / g->median * 100);
        } else {
            fputs(" | - |\n", f);
        }
    }
    fputc('\n', f);
}

/* Every row, by model, case and device: the per-device detail. */
static void all_rows(FILE *f, const gb_summary *s) {
    fputs("## All results\n\n"
          "| machine | rank | device | bench | impl | dtype | shape | rate | verified | "
          "throttled |\n|---|---:|---|---|---|---|---|---:|---|---|\n",
          f);
    for (size_t i = 0; i < s->t->count; i++) {
        const gb_row *r = s->order[i];
        char rank[24], device[200];
        snprintf(device, sizeof device, "%s (%s)", r->device_name, r->device);
        const char *cells[] = {r->host,  gb_rank_text(r, rank, sizeof rank),
                               device,   r->bench,
                               r->impl,  r->dtype,
                               r->shape, NULL};
        md_cells(f, cells);
        md_rate(f, r->rate, r->unit);
        fprintf(f, " | %s | %s |\n", r->verified ? "yes" : "**NO**",
                r->throttled ? "**yes**" : (r->telemetry[0] ? "no" : "-"));
    }
}

void gb_write_report_md(FILE *f, const gb_summary *s) {
    gb_front_md(f, s);
    stragglers(f, s);
    gb_links_md(f, s);
    throttled(f, s);
    skipped(f, s);
    models(f, s);
    spread(f, s);
    gb_p2p_md(f, s);
    all_rows(f, s);
}
