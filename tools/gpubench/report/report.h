/* gpubench report across a fleet: the merged rows grouped by device model
 * (device_name + device_arch) and benchmark case, the spread of each group,
 * the stragglers and the throttled rows (summary.c), and the writers
 * that show them as Markdown, HTML with SVG charts, and JSON. */
#ifndef XGPU_GPUBENCH_REPORT_H
#define XGPU_GPUBENCH_REPORT_H

#include "report_devices.h"
#include "report_read.h"

#include <stdio.h>

/* A device counts as a straggler on a case when its figure is more than
 * this many percent worse than its group's median. */
#define GB_STRAGGLER_PCT 10.0

/* At most this many stragglers and throttled rows are listed in the
 * Markdown and the HTML; the JSON summary has them all. */
#define GB_REPORT_LIST_MAX 200

/* A file the report did not merge, and why. */
typedef struct gb_skip {
    const char *file;
    char why[512];
} gb_skip;

/* One model's figures for one benchmark case. */
typedef struct gb_group {
    const gb_row *key;       /* a row of the group: its model and case */
    size_t begin, end;       /* its rows in gb_summary.order */
    size_t n;                /* devices with a usable figure (finite, >= 0, verified) */
    size_t left_out;         /* devices without one: not run, not verified, not finite */
    double min, median, max; /* of each device's best usable figure; -1 when n == 0 */
    bool lower_better;       /* a time ("us"): lower is better */
} gb_group;

typedef struct gb_straggler {
    const gb_row *row;
    size_t group;   /* index into gb_summary.groups */
    double gap_pct; /* how much worse than the median, in percent (> 0) */
} gb_straggler;

/* A straggling device: how many cases it straggles on, and its worst. */
typedef struct gb_straggler_device {
    const gb_straggler *worst;
    size_t cases;
} gb_straggler_device;

/* A peer-to-peer copy more than GB_STRAGGLER_PCT slower than the median
 * of like pairs: the same path between the same two models. */
typedef struct gb_slow_link {
    const gb_pair *pair;
    double median;  /* GB/s of the like pairs */
    size_t like;    /* how many like pairs, this one included */
    double gap_pct; /* how much slower than the median, in percent */
} gb_slow_link;

/* A device model: rows [begin, end) of gb_summary.by_device. */
typedef struct gb_model {
    const gb_row *key;
    size_t begin, end;
    size_t devices, hosts;
} gb_model;

typedef struct gb_summary {
    const gb_table *t;
    const gb_row **order;     /* every row by model, case, host, rank, device */
    const gb_row **by_device; /* every row by model, host, rank, device */
    gb_group *groups;
    size_t ngroups;
    gb_model *models;
    size_t nmodels;
    gb_straggler *stragglers; /* worst gap first */
    size_t nstragglers;
    gb_straggler_device *straggling; /* one per device, worst gap first */
    size_t nstraggling;
    const gb_row **throttled; /* in the order of the files */
    size_t nthrottled;
    gb_slow_link *slow_links; /* in the order of the pairs' kinds */
    size_t nslow_links;
    /* Ranks of a launcher's job (rank.size in the files) no merged file
     * has: "slurm job of 8: 5, 9-12", "" when none. */
    char missing_ranks[512];
    size_t nmissing_ranks;
    size_t devices;       /* distinct devices over all models */
    bool mixed_backends;  /* some model has rows of two backends (gb_impl_text) */
    gb_device_row *table; /* the opening table (report_devices.h) */
    size_t ntable;
    gb_headline headline;
    const gb_skip *skipped; /* the caller's */
    size_t nskipped;
} gb_summary;

/* Groups, spreads, stragglers and throttled rows of `t`, which must outlive
 * `s`. 0, or -1 when memory ran out (`s` is then empty). Sorting, not
 * pairwise comparison: O(n log n) in the rows. */
int gb_summarize(const gb_table *t, gb_summary *s);
void gb_summary_free(gb_summary *s);

/* The opening table and headline into `s` (devices.c); 0, or -1 when
 * memory ran out. */
int gb_find_devices(gb_summary *s);

/* Sets device `device`'s verdict (gb_summary.table[device]): a short word
 * ("pass", "slow", "fail") and one line of why, each cut to its field and
 * either may be NULL for "". The writers print a "verdict" column only
 * when some device has a non-empty verdict. Call it between gb_summarize
 * and the writers; the rows of the device are
 * s->by_device[table[device].begin .. end). 0, or -1 when `device` is out
 * of range. */
int gb_report_set_verdict(gb_summary *s, size_t device, const char *verdict, const char *why);
/* Whether some device has a verdict: the writers' column. */
bool gb_report_has_verdicts(const gb_summary *s);

/* The writers' opening (front_md.c, front_html.c): the headline, the
 * device table, the files' notes and one line for what is not wrong. */
void gb_front_md(FILE *f, const gb_summary *s);
void gb_front_html(FILE *f, const gb_summary *s);
/* Whether the four checks (stragglers, slow links, missing ranks,
 * throttled rows) found nothing; the line that then says so. */
bool gb_all_clear(const gb_summary *s);
void gb_clear_text(const gb_summary *s, char *out, size_t size);
/* What the checks found, counted, for the top of the page: "Needs a look:
 * 1 straggling device(s), 2 throttled row(s) (below the table)."; "" when
 * all is clear. */
void gb_issues_text(const gb_summary *s, char *out, size_t size);

/* Slow links and missing ranks into `s` (links.c); 0, or -1 when
 * memory ran out. And their sections, written by each writer. */
int gb_find_links(gb_summary *s);
void gb_links_md(FILE *f, const gb_summary *s);
void gb_links_html(FILE *f, const gb_summary *s);
void gb_links_json(FILE *f, const gb_summary *s);

/* Whether a row's figure counts in its group's spread. */
bool gb_row_usable(const gb_row *r);
/* The rank ("3"), or "-" without one, into `out`; returns `out`. */
const char *gb_rank_text(const gb_row *r, char *out, size_t size);
/* The device's identity: its UUID, else "-". */
const char *gb_uuid_text(const gb_row *r);
/* Whether two rows are of one device: host, rank, path, UUID. */
int gb_row_device_cmp(const gb_row *a, const gb_row *b);
/* Natural order, runs of digits as numbers: device paths ("cuda:2" before
 * "cuda:10") and shapes ("4 MiB" before "256 MiB"). */
int gb_natural_cmp(const char *a, const char *b);
/* How many physical devices rows[0..n) are of; -1 when out of memory.
 * Rows of one host and UUID are the same devices seen through each
 * backend: as many as the backend with the most distinct paths among them
 * has (one GPU through CUDA and OpenCL, or cuda:0 of two ranks, is one;
 * two paths of one backend that report one UUID are two, as gpuinfo
 * counts them). A row without a UUID is a device per host, rank and path
 * (gb_row_device_cmp). */
long gb_count_gpus(const gb_row *const *rows, size_t n);
/* One model: the device name and arch. */
int gb_model_cmp(const gb_row *a, const gb_row *b);
/* The model as the tables and charts name it: "NVIDIA H200 (sm_90)", the
 * name alone without an arch. Returns out. */
#define GB_MODEL_TEXT_MAX 200
const char *gb_model_text(const gb_row *r, char *out, size_t size);
/* The same from a name and an arch ("" for none), for a table whose arch
 * may come from another row of the device. */
const char *gb_name_arch_text(const char *name, const char *arch, char *out, size_t size);
/* One backend: the device paths' part before ':' ("cuda" of "cuda:0"). A
 * GPU seen through CUDA and through OpenCL is one model, and its rows of
 * one case are two groups, never one device against itself. */
int gb_backend_cmp(const gb_row *a, const gb_row *b);
/* That part, into out ("cuda"); returns out. */
const char *gb_backend_text(const gb_row *r, char *out, size_t size);
/* The impl as the tables and charts name it: "xgpu", or "xgpu (opencl)"
 * where some model of the report has rows of two backends. Returns out. */
const char *gb_impl_text(const gb_summary *s, const gb_row *r, char *out, size_t size);

/* The writers (md.c, html.c, json.c). Errors show in
 * ferror(f). */
void gb_write_report_md(FILE *f, const gb_summary *s);
void gb_write_report_html(FILE *f, const gb_summary *s);
void gb_write_report_json(FILE *f, const gb_summary *s);

/* The charts (svg.c): per model medians with their min-max range. */
void gb_svg_gemm(FILE *f, const gb_summary *s);
void gb_svg_bars(FILE *f, const gb_summary *s, const char *bench, const char *title);
/* Peer-to-peer heat maps, one per file that has pairs (p2p.c), and
 * the same as Markdown tables. */
void gb_p2p_html(FILE *f, const gb_summary *s);
void gb_p2p_md(FILE *f, const gb_summary *s);

#endif
