/* The fleet view of merged rows: groups of identical devices per benchmark
 * case, their spread, the stragglers among them and the throttled rows.
 * Everything comes from two sorts of row pointers and linear scans, so
 * hundreds of files with tens of thousands of rows take milliseconds. See
 * report.h. */
#include "report.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool gb_row_usable(const gb_row *r) {
    return r->verified && isfinite(r->rate) && r->rate >= 0;
}

const char *gb_rank_text(const gb_row *r, char *out, size_t size) {
    if (r->rank < 0) {
        snprintf(out, size, "-");
    } else {
        snprintf(out, size, "%ld", r->rank);
    }
    return out;
}

const char *gb_uuid_text(const gb_row *r) {
    return r->device_uuid[0] ? r->device_uuid : "-";
}

int gb_natural_cmp(const char *a, const char *b) {
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            /* Compare the runs of digits as numbers: the longer run (without
             * leading zeros) is larger, else the first differing digit. */
            while (*a == '0') {
                a++;
            }
            while (*b == '0') {
                b++;
            }
            size_t na = 0, nb = 0;
            while (isdigit((unsigned char)a[na])) {
                na++;
            }
            while (isdigit((unsigned char)b[nb])) {
                nb++;
            }
            if (na != nb) {
                return na < nb ? -1 : 1;
            }
            int c = strncmp(a, b, na);
            if (c) {
                return c;
            }
            a += na;
            b += nb;
            continue;
        }
        if (*a != *b) {
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        }
        a++;
        b++;
    }
    return *a ? 1 : (*b ? -1 : 0);
}

int gb_model_cmp(const gb_row *a, const gb_row *b) {
    int c = strcmp(a->device_name, b->device_name);
    return c ? c : strcmp(a->device_arch, b->device_arch);
}

const char *gb_name_arch_text(const char *name, const char *arch, char *out, size_t size) {
    if (arch[0]) {
        snprintf(out, size, "%s (%s)", name, arch);
    } else {
        snprintf(out, size, "%s", name);
    }
    return out;
}

const char *gb_model_text(const gb_row *r, char *out, size_t size) {
    return gb_name_arch_text(r->device_name, r->device_arch, out, size);
}

static size_t backend_len(const gb_row *r) {
    const char *colon = strchr(r->device, ':');
    return colon ? (size_t)(colon - r->device) : strlen(r->device);
}

int gb_backend_cmp(const gb_row *a, const gb_row *b) {
    size_t na = backend_len(a), nb = backend_len(b);
    int c = memcmp(a->device, b->device, na < nb ? na : nb);
    return c ? c : (na < nb ? -1 : na > nb);
}

const char *gb_backend_text(const gb_row *r, char *out, size_t size) {
    snprintf(out, size, "%.*s", (int)backend_len(r), r->device);
    return out;
}

const char *gb_impl_text(const gb_summary *s, const gb_row *r, char *out, size_t size) {
    if (s->mixed_backends) {
        snprintf(out, size, "%s (%.*s)", r->impl, (int)backend_len(r), r->device);
    } else {
        snprintf(out, size, "%s", r->impl);
    }
    return out;
}

/* A case: bench, impl, backend, dtype, shape (in the order of its
 * numbers: "copy 4 MiB" before "copy 256 MiB", 128x128x128 before
 * 1024x1024x1024), unit and size. */
static int case_cmp(const gb_row *a, const gb_row *b) {
    int c = strcmp(a->bench, b->bench);
    c = c ? c : strcmp(a->impl, b->impl);
    c = c ? c : gb_backend_cmp(a, b);
    c = c ? c : strcmp(a->dtype, b->dtype);
    c = c ? c : gb_natural_cmp(a->shape, b->shape);
    c = c ? c : strcmp(a->unit, b->unit);
    if (c) {
        return c;
    }
    /* NaN sizes cannot come from JSON; -1 (null) sorts first. */
    return a->size < b->size ? -1 : (a->size > b->size ? 1 : 0);
}

/* One device: the host, the rank, the device path and its UUID. */
int gb_row_device_cmp(const gb_row *a, const gb_row *b) {
    int c = strcmp(a->host, b->host);
    if (c) {
        return c;
    }
    if (a->rank != b->rank) {
        return a->rank < b->rank ? -1 : 1;
    }
    c = gb_natural_cmp(a->device, b->device);
    return c ? c : strcmp(a->device_uuid, b->device_uuid);
}

/* The order gb_count_gpus counts in: rows with a UUID by host, UUID,
 * backend and path; the others by device (gb_row_device_cmp), after them. */
static int gpu_order(const gb_row *a, const gb_row *b) {
    int c = strcmp(a->host, b->host);
    if (c) {
        return c;
    }
    bool ua = a->device_uuid[0] != 0, ub = b->device_uuid[0] != 0;
    if (ua != ub) {
        return ua ? -1 : 1;
    }
    if (!ua) {
        return gb_row_device_cmp(a, b);
    }
    c = strcmp(a->device_uuid, b->device_uuid);
    c = c ? c : gb_backend_cmp(a, b);
    return c ? c : gb_natural_cmp(a->device, b->device);
}

static int gpu_qsort_cmp(const void *pa, const void *pb) {
    return gpu_order(*(const gb_row *const *)pa, *(const gb_row *const *)pb);
}

static bool same_host_uuid(const gb_row *a, const gb_row *b) {
    return a->device_uuid[0] && !strcmp(a->host, b->host) &&
           !strcmp(a->device_uuid, b->device_uuid);
}

long gb_count_gpus(const gb_row *const *rows, size_t n) {
    const gb_row **sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted) {
        return -1;
    }
    memcpy(sorted, rows, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, gpu_qsort_cmp);
    long gpus = 0;
    for (size_t i = 0; i < n;) {
        if (!sorted[i]->device_uuid[0]) {
            gpus += !i || gpu_order(sorted[i - 1], sorted[i]) != 0;
            i++;
            continue;
        }
        /* One host's paths with this UUID: each backend's distinct paths
         * are so many devices, and the backends see the same ones. */
        size_t most = 0, paths = 0, j = i;
        for (; j < n && same_host_uuid(sorted[i], sorted[j]); j++) {
            bool new_backend = j == i || gb_backend_cmp(sorted[j - 1], sorted[j]) != 0;
            paths = new_backend
                        ? 1
                        : paths + (gb_natural_cmp(sorted[j - 1]->device, sorted[j]->device) != 0);
            most = paths > most ? paths : most;
        }
        gpus += (long)most;
        i = j;
    }
    free(sorted);
    return gpus;
}

static int order_cmp(const void *pa, const void *pb) {
    const gb_row *a = *(const gb_row *const *)pa, *b = *(const gb_row *const *)pb;
    int c = gb_model_cmp(a, b);
    c = c ? c : case_cmp(a, b);
    c = c ? c : gb_row_device_cmp(a, b);
    /* Ties (one device's case twice) keep the files' order. */
    return c ? c : (a < b ? -1 : a > b);
}

static int by_device_cmp(const void *pa, const void *pb) {
    const gb_row *a = *(const gb_row *const *)pa, *b = *(const gb_row *const *)pb;
    int c = gb_model_cmp(a, b);
    c = c ? c : gb_row_device_cmp(a, b);
    return c ? c : (a < b ? -1 : a > b);
}

static int double_cmp(const void *pa, const void *pb) {
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

static int straggler_cmp(const void *pa, const void *pb) {
    const gb_straggler *a = pa, *b = pb;
    if (a->gap_pct != b->gap_pct) {
        return a->gap_pct > b->gap_pct ? -1 : 1;
    }
    int c = gb_row_device_cmp(a->row, b->row);
    return c ? c : (a->row < b->row ? -1 : a->row > b->row);
}

static int by_straggler_device_cmp(const void *pa, const void *pb) {
    const gb_straggler *a = *(const gb_straggler *const *)pa, *b = *(const gb_straggler *const *)pb;
    int c = gb_row_device_cmp(a->row, b->row);
    c = c ? c : gb_model_cmp(a->row, b->row);
    return c ? c : (a < b ? -1 : a > b);
}

/* Whether `a` is a better figure than `b` in the group's unit. */
static bool better(const gb_group *g, double a, double b) {
    return g->lower_better ? a < b : a > b;
}

/* One device's rows of a group begin at order[i] (a device's rows are
 * adjacent: order_cmp sorts by device within a case). Returns its best
 * usable row, or NULL when none is usable, and where the next device's
 * rows begin. One device measured in several files (gpu-check's runs
 * before and after a tune, a fleet run beside a single one) is one
 * device, judged by its best figure. */
static const gb_row *device_best(const gb_group *g, const gb_row **order, size_t i, size_t *next) {
    const gb_row *best = NULL;
    size_t j = i;
    for (; j < g->end && gb_row_device_cmp(order[j], order[i]) == 0; j++) {
        if (gb_row_usable(order[j]) && (!best || better(g, order[j]->rate, best->rate))) {
            best = order[j];
        }
    }
    *next = j;
    return best;
}

/* The group's spread over its devices' best figures, in `scratch` (room
 * for the group's rows). */
static void group_stats(gb_group *g, const gb_row **order, double *scratch) {
    g->n = 0;
    g->left_out = 0;
    g->lower_better = !strcmp(g->key->unit, "us");
    for (size_t i = g->begin, next; i < g->end; i = next) {
        const gb_row *best = device_best(g, order, i, &next);
        if (best) {
            scratch[g->n++] = best->rate;
        } else {
            g->left_out++;
        }
    }
    if (!g->n) {
        g->min = g->median = g->max = -1;
        return;
    }
    qsort(scratch, g->n, sizeof *scratch, double_cmp);
    g->min = scratch[0];
    g->max = scratch[g->n - 1];
    g->median = g->n % 2 ? scratch[g->n / 2] : (scratch[g->n / 2 - 1] + scratch[g->n / 2]) / 2;
}

/* How much worse than the median `rate` is, in percent; <= 0 when it is
 * as good or better. */
static double gap_pct(const gb_group *g, double rate) {
    if (!(g->median > 0)) {
        return 0;
    }
    double gap = g->lower_better ? rate - g->median : g->median - rate;
    return gap / g->median * 100;
}

static int find_stragglers(gb_summary *s) {
    size_t cap = 0;
    for (size_t gi = 0; gi < s->ngroups; gi++) {
        const gb_group *g = &s->groups[gi];
        if (g->n < 2) {
            continue; /* no identical device to compare with */
        }
        for (size_t i = g->begin, next; i < g->end; i = next) {
            const gb_row *r = device_best(g, s->order, i, &next);
            double gap = r ? gap_pct(g, r->rate) : 0;
            if (!(gap > GB_STRAGGLER_PCT) || !isfinite(gap)) {
                continue;
            }
            if (s->nstragglers == cap) {
                cap = cap ? cap * 2 : 64;
                gb_straggler *grown = realloc(s->stragglers, cap * sizeof *grown);
                if (!grown) {
                    return -1;
                }
                s->stragglers = grown;
            }
            s->stragglers[s->nstragglers++] = (gb_straggler){r, gi, gap};
        }
    }
    if (s->nstragglers) {
        qsort(s->stragglers, s->nstragglers, sizeof *s->stragglers, straggler_cmp);
    }
    return 0;
}

static int worst_cmp(const void *pa, const void *pb) {
    const gb_straggler_device *a = pa, *b = pb;
    return straggler_cmp(a->worst, b->worst);
}

/* The stragglers by device: the first of each device's run in gap order is
 * its worst. */
static int find_straggling(gb_summary *s) {
    if (!s->nstragglers) {
        return 0;
    }
    const gb_straggler **by = malloc(s->nstragglers * sizeof *by);
    s->straggling = malloc(s->nstragglers * sizeof *s->straggling);
    if (!by || !s->straggling) {
        free(by);
        return -1;
    }
    for (size_t i = 0; i < s->nstragglers; i++) {
        by[i] = &s->stragglers[i];
    }
    /* Stable in effect: ties on the device fall back to the gap order,
     * which is the array's. */
    qsort(by, s->nstragglers, sizeof *by, by_straggler_device_cmp);
    for (size_t i = 0; i < s->nstragglers; i++) {
        if (!i || gb_row_device_cmp(by[i - 1]->row, by[i]->row) ||
            gb_model_cmp(by[i - 1]->row, by[i]->row)) {
            s->straggling[s->nstraggling++] = (gb_straggler_device){by[i], 0};
        }
        s->straggling[s->nstraggling - 1].cases++;
    }
    free(by);
    qsort(s->straggling, s->nstraggling, sizeof *s->straggling, worst_cmp);
    return 0;
}

/* Models from the rows sorted by model and device: physical devices
 * (gb_count_gpus) and hosts per model. */
static int find_models(gb_summary *s) {
    const gb_table *t = s->t;
    s->models = calloc(t->count ? t->count : 1, sizeof *s->models);
    if (!s->models) {
        return -1;
    }
    for (size_t i = 0; i < t->count; i++) {
        const gb_row *r = s->by_device[i], *prev = i ? s->by_device[i - 1] : NULL;
        if (!prev || gb_model_cmp(prev, r)) {
            s->models[s->nmodels++] = (gb_model){.key = r, .begin = i};
            prev = NULL;
        }
        gb_model *m = &s->models[s->nmodels - 1];
        m->end = i + 1;
        if (!prev || strcmp(prev->host, r->host)) {
            m->hosts++;
        }
    }
    for (size_t i = 0; i < s->nmodels; i++) {
        gb_model *m = &s->models[i];
        long gpus = gb_count_gpus(s->by_device + m->begin, m->end - m->begin);
        if (gpus < 0) {
            return -1;
        }
        m->devices = (size_t)gpus;
    }
    long gpus = gb_count_gpus(s->by_device, t->count);
    if (gpus < 0) {
        return -1;
    }
    s->devices = (size_t)gpus;
    return 0;
}

int gb_summarize(const gb_table *t, gb_summary *s) {
    *s = (gb_summary){.t = t};
    size_t n = t->count ? t->count : 1;
    double *scratch = malloc(n * sizeof *scratch);
    s->order = malloc(n * sizeof *s->order);
    s->by_device = malloc(n * sizeof *s->by_device);
    s->groups = malloc(n * sizeof *s->groups);
    s->throttled = malloc(n * sizeof *s->throttled);
    if (!scratch || !s->order || !s->by_device || !s->groups || !s->throttled) {
        goto fail;
    }
    for (size_t i = 0; i < t->count; i++) {
        s->order[i] = s->by_device[i] = &t->rows[i];
        if (t->rows[i].throttled) {
            s->throttled[s->nthrottled++] = &t->rows[i];
        }
    }
    qsort(s->order, t->count, sizeof *s->order, order_cmp);
    qsort(s->by_device, t->count, sizeof *s->by_device, by_device_cmp);
    for (size_t i = 0; i < t->count; i++) {
        const gb_row *r = s->order[i], *prev = i ? s->order[i - 1] : NULL;
        if (!prev || gb_model_cmp(prev, r) || case_cmp(prev, r)) {
            s->groups[s->ngroups++] = (gb_group){.key = r, .begin = i};
        }
        s->groups[s->ngroups - 1].end = i + 1;
    }
    for (size_t g = 0; g < s->ngroups; g++) {
        group_stats(&s->groups[g], s->order, scratch);
    }
    /* by_device holds a model's rows together: where they have two
     * backends, two neighbours differ in it. */
    for (size_t i = 1; i < t->count && !s->mixed_backends; i++) {
        const gb_row *a = s->by_device[i - 1], *b = s->by_device[i];
        s->mixed_backends = !gb_model_cmp(a, b) && gb_backend_cmp(a, b);
    }
    if (find_stragglers(s) != 0 || find_straggling(s) != 0 || find_models(s) != 0 ||
        gb_find_links(s) != 0 || gb_find_devices(s) != 0) {
        goto fail;
    }
    free(scratch);
    return 0;
fail:
    free(scratch);
    gb_summary_free(s);
    return -1;
}

void gb_summary_free(gb_summary *s) {
    free(s->order);
    free(s->by_device);
    free(s->groups);
    free(s->models);
    free(s->stragglers);
    free(s->straggling);
    free(s->throttled);
    free(s->slow_links);
    free(s->table);
    *s = (gb_summary){0};
}
