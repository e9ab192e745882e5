/* The GEMM tests' problems and their check: device results against a
 * double-precision host reference on pseudo-random inputs, with a
 * tolerance that grows with k, C poisoned with NaN where beta is 0, and
 * nothing outside C written. Shared by test_lib_gemm and
 * test_lib_gemm_gpu. */
#ifndef XGPU_TEST_GEMM_CHECK_H
#define XGPU_TEST_GEMM_CHECK_H

#include "harness.h"

#include <stddef.h>

typedef struct problem {
    xgpu_dtype dtype;
    xgpu_layout layout;
    xgpu_transpose ta, tb;
    size_t m, n, k;
    size_t pad;    /* extra elements per leading dimension */
    size_t offset; /* elements before each matrix */
    double alpha, beta;
} problem;

/* Parameters for run_problem, NULL for the device's default. */
extern const xgpu_gemm_params *test_params;

/* Runs p on the test's device and checks C. */
void run_problem(const problem *p);
/* One problem, spelled out: transposes as 0 or 1. */
void run_one(xgpu_dtype dt, xgpu_layout l, int ta, int tb, size_t m, size_t n, size_t k, size_t pad,
             size_t offset, double alpha, double beta);
/* Every layout and transpose of m x n x k: alpha 1.25, beta -0.5 or (one
 * operand transposed) 0 over a poisoned C. */
void all_layouts_and_transposes(xgpu_dtype dt, size_t m, size_t n, size_t k, size_t pad,
                                size_t offset);

#endif
