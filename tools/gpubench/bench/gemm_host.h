/* The GEMM benchmark's host side: operands in every storage type it
 * runs, and the check of a result against a double-precision reference
 * computed from the operands as stored (so rounded to bf16 or f16). */
#ifndef XGPU_GPUBENCH_GEMM_HOST_H
#define XGPU_GPUBENCH_GEMM_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gm_elem { GM_F32, GM_F64, GM_F16, GM_BF16, GM_I8, GM_I32 } gm_elem;

size_t gm_size(gm_elem e);
double gm_get(const void *p, gm_elem e, size_t i);
/* n pseudo-random values: in [-0.5, 0.5) rounded to e (never zeros
 * only), integers in [-64, 63] for GM_I8. */
void gm_fill(void *p, gm_elem e, size_t n, uint32_t seed);

/* C's poison, as a 4-byte fill pattern: a NaN in every floating type
 * (f64, f32, and each 16-bit half), and for int32 a value no int8 GEMM
 * of gpubench's sizes reaches. */
#define GM_POISON 0x7fc07fc0u

/* One result to check: batch GEMMs C = A B, row-major, dense. */
typedef struct gm_check {
    gm_elem in, out; /* A's and B's storage; C's */
    size_t m, n, k, batch;
    /* The bound, relative to sum |a b| over k (gm_tolerance). */
    double tolerance;
} gm_check;

/* The error bound of one element relative to sum |a_i b_i|: the inputs'
 * rounding on the device (u_in: 2^-11 for tf32, 0 when the reference has
 * the operands as the device read them), 2 (k + 2) roundings of the
 * accumulator (u_acc: its unit roundoff, 0 for integers) and one of C's
 * storage (f16 2^-11, bf16 2^-8). */
double gm_tolerance(double u_in, double u_acc, gm_elem out, size_t k);
/* The unit roundoff of an accumulation named "f32", "f64", "f16", "i32". */
double gm_acc_unit(const char *acc);

/* Checks 256 sampled elements (the last row and the last column among
 * them) of the first, last and random batches; *max_rel: the largest
 * error relative to sum |a b|. */
bool gm_verify(const void *a, const void *b, const void *c, const gm_check *g, double *max_rel);

#endif
