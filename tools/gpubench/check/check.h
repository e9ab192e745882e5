/* gpubench check's library: the facts a result file holds about each
 * device (facts.c), the reference table of GPU models (refs.c, shipped
 * as references.json), the rules that turn both into a verdict (rules.c)
 * and the verdicts written for people and machines (print.c). The
 * command (../check.c) runs the benchmarks into a result file and judges
 * that, so a live check and an offline one of the same file agree. */
#ifndef XGPU_GPUBENCH_CHECK_H
#define XGPU_GPUBENCH_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Unknown: NAN for a double, -1 for an int (and for a yes/no). */

/* One GPU model of the reference table. */
typedef struct gc_model {
    char model[64];
    char match[4][48]; /* names that mark it, whole words, case-insensitive */
    int nmatch;
    char vendor[16];
    double memory_gb;  /* nominal, 1e9 bytes */
    int compute_units; /* SMs or CUs */
    double max_clock_mhz;
    int pcie_gen, pcie_width;
    int nvlink_links; /* -1: not checked (no NVLink, or a bridge that may be absent) */
    int ecc;          /* shipped with ECC on: 1, off: 0 */
    double spec_bandwidth_gbs, spec_fp32_gflops, spec_fp64_gflops;
    char spec_source[192];
    double meas_triad_gbs, meas_gemm_vendor_gflops, meas_gemm_xgpu_gflops;
    double meas_transfer_gbs, meas_enqueue_us, meas_round_trip_us;
    int meas_gemm_n;        /* the sizes the medians were measured at; -1: not said */
    double meas_stream_mib; /* NAN: not said */
    char meas_source[192];
    char meas_backend[16]; /* the backend the medians were measured through; "": any */
    char exclude[4][24];   /* words that mark another model ("Laptop") */
    int nexclude;
} gc_model;

typedef struct gc_tolerance {
    double measured, spec_bandwidth, spec_gemm, link_transfer, launch;
} gc_tolerance;

typedef struct gc_refs {
    gc_model *models;
    size_t count;
    gc_tolerance tol;
    char updated[32];
    char source[256]; /* "shipped", or the user's file after it */
} gc_refs;

/* The shipped table (references.json, compiled in) into *r; 0, or -1
 * with why. */
int gc_refs_load_shipped(gc_refs *r, char *why, size_t why_size);
/* A table's text added to *r: its models replace those of the same
 * model name and add the rest; its tolerances replace the table's.
 * `origin` names it in messages. 0, or -1 with why (r unchanged). */
int gc_refs_add(gc_refs *r, const char *text, size_t len, const char *origin, char *why,
                size_t why_size);
/* The model whose match names occur in `device_name` as whole words and
 * none of whose exclude words do: one with the device's compute units
 * first (-1: unknown; a combined name such as "MI250X/MI250" names two
 * models), then the longest name. NULL when none. */
const gc_model *gc_refs_match(const gc_refs *r, const char *device_name, int compute_units);
void gc_refs_free(gc_refs *r);

/* A device's "health" object (after the 0.6.0 release). */
typedef struct gc_health {
    bool known; /* the file has the object */
    char source[16];
    int pcie_gen, pcie_max_gen, pcie_width, pcie_max_width, pcie_under_load;
    char pcie_source[16];
    int ecc_enabled;
    double ecc_volatile_unc, ecc_aggregate_unc, ecc_volatile_corr, ecc_aggregate_corr;
    double retired_sbe, retired_dbe;
    int retired_pending;
    double retired_unreservable; /* AMD: bad pages that could not be retired */
    int xid_readable;
    double xid_count; /* NVRM Xid lines in the kernel log, when readable */
    double remap_corr, remap_unc;
    int remap_pending, remap_failed;
    int nvlink_links, nvlink_up, mig_enabled, mig_pending, persistence;
    double temperature_c;
    char module_version[64], library_version[64];
    int driver_match;
} gc_health;

/* What one result file says about one device. */
typedef struct gc_facts {
    char file[256];
    char host[128], version[32], started[32];
    char device[48], name[256], type[16], backend[16];
    char pci_bus_id[32], driver[64];
    double mem_bytes, max_clock_mhz;
    int compute_units;
    /* The figures: the best of each kind the file has, NAN when none. */
    double triad_gbs, stream_mib;
    double gemm_vendor_gflops, gemm_xgpu_gflops;
    char gemm_vendor_impl[16], gemm_vendor_dtype[8], gemm_xgpu_dtype[8];
    int gemm_vendor_n, gemm_xgpu_n;
    double transfer_gbs; /* best pinned copy, either way */
    double transfer_mib; /* its size */
    char transfer_shape[64];
    double enqueue_us, round_trip_us;
    unsigned benches; /* a bit per benchmark with rows: gemm, reduce, stream, transfer, launch */
    int rows, failed_rows, unrun_rows, throttled_rows, thermal_rows;
    char failed_first[160], throttle_why[160];
    gc_health h;
    char lacks[256]; /* what an older file has not: "" when nothing */
} gc_facts;

/* The devices of one result file's text (gpubench's JSON of any 0.x
 * xgpu): one gc_facts each, calloc'ed into *out. 0, or -1 with why
 * (not JSON, not a gpubench file, no devices). */
int gc_facts_read(const char *text, size_t len, const char *file, gc_facts **out, size_t *n,
                  char *why, size_t why_size);

/* Whether a and b are one device of one machine and one xgpu in one run
 * (a run's results split across files): the same start time, or, in
 * files without one, no benchmark in both; never one file twice. Then
 * b's figures and counts folded into a (a's file names b's too). */
bool gc_facts_same_device(const gc_facts *a, const gc_facts *b);
void gc_facts_merge(gc_facts *into, const gc_facts *from);

/* files.c: a file read whole (at most 64 MiB), NUL-terminated and
 * malloc'ed, its length in *len; NULL with why. */
char *gc_read_file(const char *path, size_t *len, char *why, size_t why_size);
/* The devices of the result file `path` appended to *all (realloc'ed);
 * 0, or -1 with why (*all and *n unchanged). */
int gc_facts_add_file(const char *path, gc_facts **all, size_t *n, char *why, size_t why_size);
/* Folds the facts of one run's files into one per device (the order
 * kept); returns how many are left. */
size_t gc_facts_merge_runs(gc_facts *facts, size_t n);

typedef enum gc_verdict {
    GC_OK,
    GC_UNKNOWN,         /* no reference for the model: figures only */
    GC_UNDERPERFORMING, /* slower than its model should be */
    GC_DEGRADED,        /* a fault of configuration or a worn part: link, NVLink, MIG, ... */
    GC_FAULTY,          /* wrong results, uncorrectable errors, a broken stack */
} gc_verdict;

typedef struct gc_reason {
    gc_verdict level; /* what it makes the verdict at least; GC_OK for a note */
    char rule[24];    /* "pcie.link", "ecc.uncorrectable", ... */
    char text[256];
} gc_reason;

/* One figure set beside its reference. */
typedef struct gc_figure {
    char name[24]; /* "bandwidth", "gemm", "transfer", "launch" */
    char what[96]; /* "stream triad, 1024 MiB" */
    double value;  /* NAN: the file has none */
    char unit[12];
    double reference;  /* NAN: none */
    char ref_kind[12]; /* "measured", "spec", "link" */
    double ratio;      /* value / reference */
    double tolerance;  /* the least ratio that passes; for a latency, the most */
    bool lower_better; /* a latency */
    bool pass;
    bool too_small; /* the case was smaller than the reference's: shown, not judged */
} gc_figure;

/* The least sizes a figure is judged at against a spec sheet (below, caches
 * and start-up costs decide): GEMM n, MiB per stream array, MiB per copy. */
#define GC_SPEC_MIN_GEMM_N 2048
#define GC_SPEC_MIN_STREAM_MIB 256
#define GC_MIN_TRANSFER_MIB 16

#define GC_MAX_REASONS 24
#define GC_MAX_FIGURES 6

typedef struct gc_judgement {
    const gc_facts *facts;
    const gc_model *model; /* NULL: none matched */
    gc_verdict verdict;
    gc_reason reasons[GC_MAX_REASONS];
    int nreasons;
    gc_figure figures[GC_MAX_FIGURES];
    int nfigures;
} gc_judgement;

/* The rules (rules.c, one function each, named in every reason). */
void gc_judge(const gc_facts *f, const gc_refs *r, gc_judgement *out);
const char *gc_verdict_name(gc_verdict v); /* "OK", "DEGRADED", ... */
/* The theoretical rate of a PCIe link, GB/s each way; NAN when unknown. */
double gc_pcie_gbs(int gen, int width);

/* print.c */
void gc_print_text(FILE *f, const gc_judgement *j, size_t n, const gc_refs *r);
void gc_print_json(FILE *f, const gc_judgement *j, size_t n, const gc_refs *r);

#endif
