/* runtime/src/tune (the search behind xgpu_tune), private: a problem a
 * tune measures candidates on (problem.c), one class's search (search.c). */
#ifndef XGPU_TUNE_PROBLEM_H
#define XGPU_TUNE_PROBLEM_H

#include "core.h"
#include "lib.h"
#include "support.h"
#include "tunedb.h"

typedef struct xgpu__tune_problem {
    xgpu__tune_kernel_id id;
    xgpu_dtype dtype;
    xgpu__tune_class cls;
    xgpu_queue *queue;
    xgpu_context *ctx;
    size_t n;     /* GEMM: n x n x n; else elements */
    size_t bytes; /* of each input */
    /* buf[0], buf[1]: inputs; buf[2]: the output. */
    xgpu_buffer *buf[3];
    void *in[2];         /* host copies of the inputs the check needs */
    void *out;           /* the output read back */
    double *ref, *scale; /* GEMM: the reference and sum |a||b| per element */
    double ref_sum, ref_abs, ref_max;
    size_t ref_at;
} xgpu__tune_problem;

/* Makes the class's standard problem (GEMM 256^3 or 1024^3; 1 MiB or 256
 * MiB of input, 128 MiB per stream buffer), shrunk to `max_size` bytes per
 * buffer and to the device. *fits is false, and nothing is made, when the
 * shrunk problem no longer belongs to the class. */
xgpu_status xgpu__tune_problem_make(xgpu__tune_problem *p, xgpu_queue *queue,
                                    xgpu__tune_kernel_id id, xgpu_dtype dtype, xgpu__tune_class cls,
                                    size_t max_size, bool *fits);
/* GEMM n^3 for timing only (the large class's confirmation): random
 * inputs, no reference, no check. *fits is false, and nothing is made,
 * when one n x n buffer exceeds `max_size` or a quarter of the device's
 * memory (its allocation limit). */
xgpu_status xgpu__tune_problem_make_timing(xgpu__tune_problem *p, xgpu_queue *queue,
                                           xgpu_dtype dtype, size_t n, size_t max_size, bool *fits);
void xgpu__tune_problem_free(xgpu__tune_problem *p);
/* Flops (GEMM) or bytes moved per run. */
double xgpu__tune_problem_work(const xgpu__tune_problem *p);
/* Enqueues one run with the values. */
xgpu_status xgpu__tune_problem_run(xgpu__tune_problem *p, const xgpu__tune_values *v);
/* One run on a poisoned output, compared with the reference: *ok, and why
 * not. A failing status is a failed build or launch. */
xgpu_status xgpu__tune_problem_check(xgpu__tune_problem *p, const xgpu__tune_values *v, bool *ok,
                                     char *why, size_t why_size);

/* ---- search.c ---- */
/* Whether the kernel takes the dtype on the device; the error names
 * `func`. */
xgpu_status xgpu__tune_check_dtype(const char *func, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                                   const xgpu_device_info *info);
/* One class's search, stored in `db_path` after every candidate; the
 * record says whether XGPU_TUNE=auto made it. */
xgpu_status xgpu__tune_class_search(xgpu_queue *queue, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                                    xgpu__tune_class cls, const char *db_path,
                                    const xgpu_tune_options *opt, bool auto_tuned,
                                    xgpu_tune_summary *sum);

#endif
