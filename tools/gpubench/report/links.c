/* What a fleet report must not let pass quietly besides slow devices: slow
 * peer-to-peer links (a pair more than GB_STRAGGLER_PCT below the median of
 * pairs like it: the same path kind between the same two models) and ranks
 * missing from a launcher's job (a file's rank object gives the job's
 * size). Found here, and written as Markdown, HTML and JSON sections. */
#include "json_write.h"
#include "report.h"
#include "report_escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A pair and what makes pairs alike. */
typedef struct link_key {
    const gb_pair *p;
    char kind[300]; /* path | source model | destination model */
} link_key;

static int link_cmp(const void *a, const void *b) {
    const link_key *x = a, *y = b;
    int c = strcmp(x->kind, y->kind);
    return c ? c : (x->p->gbs < y->p->gbs) - (x->p->gbs > y->p->gbs);
}

/* The model of the device `path` in the pair's file, "" when no row names
 * it. */
static void model_of(const gb_table *t, size_t file, const char *path, char *out, size_t size) {
    const gb_file *fi = &t->files[file];
    snprintf(out, size, "%s", "");
    for (size_t i = fi->first_row; i < fi->first_row + fi->rows; i++) {
        const gb_row *r = &t->rows[i];
        if (!strcmp(r->device, path)) {
            snprintf(out, size, "%.100s %.40s", r->device_name, r->device_arch);
            return;
        }
    }
}

static int find_slow_links(gb_summary *s) {
    const gb_table *t = s->t;
    link_key *k = malloc((t->npairs ? t->npairs : 1) * sizeof *k);
    s->slow_links = malloc((t->npairs ? t->npairs : 1) * sizeof *s->slow_links);
    if (!k || !s->slow_links) {
        free(k);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < t->npairs; i++) {
        const gb_pair *p = &t->pairs[i];
        if (!strcmp(p->src, p->dst) || !p->verified || !(p->gbs > 0) || !isfinite(p->gbs)) {
            continue; /* the diagonal is a copy within a device */
        }
        char from[160], to[160];
        model_of(t, p->file, p->src, from, sizeof from);
        model_of(t, p->file, p->dst, to, sizeof to);
        k[n].p = p;
        snprintf(k[n].kind, sizeof k[n].kind, "%s|%.140s|%.140s", p->path, from, to);
        n++;
    }
    qsort(k, n, sizeof *k, link_cmp);
    for (size_t b = 0, e; b < n; b = e) {
        for (e = b + 1; e < n && !strcmp(k[e].kind, k[b].kind);) {
            e++;
        }
        size_t m = e - b;
        if (m < 2) {
            continue;
        }
        /* Sorted fastest first. */
        double median =
            m % 2 ? k[b + m / 2].p->gbs : (k[b + m / 2 - 1].p->gbs + k[b + m / 2].p->gbs) / 2;
        for (size_t i = b; i < e; i++) {
            double gap = (median - k[i].p->gbs) / median * 100;
            if (gap > GB_STRAGGLER_PCT) {
                s->slow_links[s->nslow_links++] =
                    (gb_slow_link){.pair = k[i].p, .median = median, .like = m, .gap_pct = gap};
            }
        }
    }
    free(k);
    return 0;
}

/* A rank's place in a job: (engine, size, rank). */
typedef struct job_rank {
    const char *engine;
    long size, rank;
} job_rank;

static bool same_job(const job_rank *x, const job_rank *y) {
    return !strcmp(x->engine, y->engine) && x->size == y->size;
}

static int job_cmp(const void *a, const void *b) {
    const job_rank *x = a, *y = b;
    int c = strcmp(x->engine, y->engine);
    if (c) {
        return c;
    }
    return x->size != y->size ? (x->size > y->size) - (x->size < y->size)
                              : (x->rank > y->rank) - (x->rank < y->rank);
}

/* Appends "5" or "9-12" to the text, within its size. */
static void add_range(char *text, size_t size, long lo, long hi, bool first) {
    size_t used = strlen(text);
    if (used + 1 >= size) {
        return;
    }
    if (lo == hi) {
        snprintf(text + used, size - used, "%s%ld", first ? "" : ", ", lo);
    } else {
        snprintf(text + used, size - used, "%s%ld-%ld", first ? "" : ", ", lo, hi);
    }
}

/* The ranks 0..size-1 of each (engine, size) that no file has, as text. */
static int find_missing_ranks(gb_summary *s) {
    const gb_table *t = s->t;
    job_rank *j = malloc((t->nfiles ? t->nfiles : 1) * sizeof *j);
    if (!j) {
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < t->nfiles; i++) {
        const gb_file *fi = &t->files[i];
        if (fi->rank >= 0 && fi->size > 0 && fi->rank < fi->size) {
            j[n++] = (job_rank){fi->engine, fi->size, fi->rank};
        }
    }
    qsort(j, n, sizeof *j, job_cmp);
    char *text = s->missing_ranks;
    size_t size = sizeof s->missing_ranks;
    for (size_t b = 0, e; b < n; b = e) {
        for (e = b + 1; e < n && same_job(&j[b], &j[e]);) {
            e++;
        }
        size_t before = s->nmissing_ranks;
        size_t used = strlen(text);
        snprintf(text + used, size - used, "%s%s job of %ld: ", used ? "; " : "",
                 *j[b].engine ? j[b].engine : "a", j[b].size);
        long next = 0; /* the lowest rank not yet accounted for */
        bool first = true;
        for (size_t i = b; i <= e; i++) {
            long have = i < e ? j[i].rank : j[b].size;
            if (have > next) {
                add_range(text, size, next, have - 1, first);
                s->nmissing_ranks += (size_t)(have - next);
                first = false;
            }
            next = have + 1 > next ? have + 1 : next;
        }
        if (s->nmissing_ranks == before) {
            text[used] = '\0'; /* this job is whole */
        }
    }
    free(j);
    return 0;
}

int gb_find_links(gb_summary *s) {
    return find_slow_links(s) != 0 || find_missing_ranks(s) != 0 ? -1 : 0;
}

/* ---- writers ---- */

/* One slow link's cells: host, rank, from, to, path. */
static void link_cells(const gb_summary *s, const gb_slow_link *l, const char *cells[6], char *rank,
                       size_t rank_size) {
    const gb_file *fi = &s->t->files[l->pair->file];
    if (fi->rank >= 0) {
        snprintf(rank, rank_size, "%ld", fi->rank);
    } else {
        snprintf(rank, rank_size, "-");
    }
    cells[0] = fi->host;
    cells[1] = rank;
    cells[2] = l->pair->src;
    cells[3] = l->pair->dst;
    cells[4] = *l->pair->path ? l->pair->path : "-";
    cells[5] = NULL;
}

void gb_links_md(FILE *f, const gb_summary *s) {
    /* An empty section is a word in the opening's line (gb_clear_text). */
    if (s->nslow_links) {
        fprintf(f,
                "## Slow peer-to-peer links\n\n"
                "Copies more than %g%% slower than the median of like pairs (the same path "
                "between the same two models).\n\n"
                "| host | rank | from | to | path | GB/s | median of like pairs | gap |\n"
                "|---|---:|---|---|---|---:|---:|---:|\n",
                GB_STRAGGLER_PCT);
        for (size_t i = 0; i < s->nslow_links && i < GB_REPORT_LIST_MAX; i++) {
            const gb_slow_link *l = &s->slow_links[i];
            const char *cells[6];
            char rank[24];
            link_cells(s, l, cells, rank, sizeof rank);
            for (size_t c = 0; cells[c]; c++) {
                fputs(c ? " | " : "| ", f);
                gb_md_text(f, cells[c]);
            }
            fprintf(f, " | %.2f | %.2f (%zu pairs) | %.1f%% |\n", l->pair->gbs, l->median, l->like,
                    l->gap_pct);
        }
        fputc('\n', f);
    }
    if (s->nmissing_ranks) {
        fprintf(
            f,
            "## Missing ranks\n\n%zu rank(s) of a launcher's job wrote no file that was merged: ",
            s->nmissing_ranks);
        gb_md_text(f, s->missing_ranks);
        fputs(".\n\n", f);
    }
}

void gb_links_html(FILE *f, const gb_summary *s) {
    if (s->nslow_links) {
        fputs(
            "<h2>Slow peer-to-peer "
            "links</h2>\n<table><tr><th>host</th><th>rank</th><th>from</th><th>to</th><th>path</th>"
            "<th>GB/s</th><th>median of like pairs</th><th>gap</th></tr>\n",
            f);
        for (size_t i = 0; i < s->nslow_links && i < GB_REPORT_LIST_MAX; i++) {
            const gb_slow_link *l = &s->slow_links[i];
            const char *cells[6];
            char rank[24];
            link_cells(s, l, cells, rank, sizeof rank);
            fputs("<tr>", f);
            for (size_t c = 0; cells[c]; c++) {
                fputs("<td>", f);
                gb_xml_text(f, cells[c]);
                fputs("</td>", f);
            }
            fprintf(f,
                    "<td class=\"n\">%.2f</td><td class=\"n\">%.2f (%zu pairs)</td>"
                    "<td class=\"n bad\">%.1f%%</td></tr>\n",
                    l->pair->gbs, l->median, l->like, l->gap_pct);
        }
        fputs("</table>\n", f);
    }
    if (s->nmissing_ranks) {
        fprintf(f,
                "<h2>Missing ranks</h2>\n<p>%zu rank(s) of a launcher's job wrote no file that "
                "was merged: ",
                s->nmissing_ranks);
        gb_xml_text(f, s->missing_ranks);
        fputs("</p>\n", f);
    }
}

void gb_links_json(FILE *f, const gb_summary *s) {
    fputs(",\n\"slow_links\": [", f);
    for (size_t i = 0; i < s->nslow_links; i++) {
        const gb_slow_link *l = &s->slow_links[i];
        const gb_file *fi = &s->t->files[l->pair->file];
        fputs(i ? ",\n  {\"host\": " : "\n  {\"host\": ", f);
        jw_string(f, fi->host);
        fputs(", \"rank\": ", f);
        fi->rank >= 0 ? fprintf(f, "%ld", fi->rank) : fputs("null", f);
        fputs(", \"file\": ", f);
        jw_string(f, fi->name ? fi->name : "");
        fputs(", \"src\": ", f);
        jw_string(f, l->pair->src);
        fputs(", \"dst\": ", f);
        jw_string(f, l->pair->dst);
        fputs(", \"path\": ", f);
        jw_string(f, l->pair->path);
        fprintf(f, ", \"gbs\": %.9g, \"median_gbs\": %.9g, \"like_pairs\": %zu, \"gap_pct\": %.9g}",
                l->pair->gbs, l->median, l->like, l->gap_pct);
    }
    fprintf(f, "%s],\n\"missing_ranks\": {\"count\": %zu, \"text\": ", s->nslow_links ? "\n" : "",
            s->nmissing_ranks);
    jw_string(f, s->missing_ranks);
    fputs("}", f);
}
