/* xgpu_reduce on every device: sum, min, max, argmax over f32, f64, i32
 * and i64, at sizes from 0 to 16M elements, from an offset. Floating-point
 * sums against a compensated (Kahan) host sum; everything else exactly. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {0, 1, 7, 1000, 4097, (1u << 20) + 3, (1u << 24) + 1};

static double value_at(const void *x, xgpu_dtype dt, size_t i) {
    switch (dt) {
    case XGPU_F32:
        return ((const float *)x)[i];
    case XGPU_F64:
        return ((const double *)x)[i];
    case XGPU_I32:
        return ((const int32_t *)x)[i];
    default:
        return (double)((const int64_t *)x)[i];
    }
}

static void fill(void *x, xgpu_dtype dt, size_t n, uint32_t seed) {
    uint32_t s = seed | 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = xt_rand_u32(&s);
        double v = ((double)(r >> 8) / (1 << 24) - 0.3) * 1000.0;
        switch (dt) {
        case XGPU_F32:
            ((float *)x)[i] = (float)v;
            break;
        case XGPU_F64:
            ((double *)x)[i] = v;
            break;
        case XGPU_I32:
            ((int32_t *)x)[i] = (int32_t)(r % 2000001) - 1000000;
            break;
        default:
            /* Up to 2^40 in magnitude: 16M of them sum without overflow. */
            ((int64_t *)x)[i] = ((int64_t)r << 8) - ((int64_t)1 << 39);
            break;
        }
    }
}

static void check_at(xgpu_reduce_op op, xgpu_dtype dt, size_t n, size_t offset) {
    const size_t elem = xgpu_dtype_size(dt);
    unsigned char *x = malloc((n + offset) * elem);
    assert_non_null(x);
    fill(x, dt, n + offset, (uint32_t)(n * 7 + (size_t)op * 3 + (size_t)dt));
    if (n > 10 && op == XGPU_REDUCE_ARGMAX) {
        /* Two equal maxima: the first must win. */
        memcpy(x + (offset + n / 3) * elem, x + (offset + n - 2) * elem, 0);
        double big = 1e6;
        if (dt == XGPU_F32) {
            ((float *)x)[offset + n / 3] = ((float *)x)[offset + n - 2] = (float)big;
        } else if (dt == XGPU_F64) {
            ((double *)x)[offset + n / 3] = ((double *)x)[offset + n - 2] = big;
        } else if (dt == XGPU_I32) {
            ((int32_t *)x)[offset + n / 3] = ((int32_t *)x)[offset + n - 2] = 2000000;
        } else {
            ((int64_t *)x)[offset + n / 3] = ((int64_t *)x)[offset + n - 2] = (int64_t)1 << 60;
        }
    }
    xgpu_buffer *in, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, (n + offset) * elem, &in));
    XT_OK(xgpu_buffer_create(xt.ctx, 24, &out));
    XT_OK(xgpu_buffer_write(xt.queue, in, 0, x, (n + offset) * elem, true, NULL));
    unsigned char poison[24];
    memset(poison, 0xA5, sizeof poison);
    XT_OK(xgpu_buffer_write(xt.queue, out, 0, poison, sizeof poison, true, NULL));
    /* out_offset counts elements of the result dtype, like offset. */
    xgpu_dtype rdt = xgpu_reduce_result_dtype(op, dt);
    const size_t out_offset = 2, rsize = xgpu_dtype_size(rdt);
    XT_OK(xgpu_reduce(xt.queue, op, dt, in, offset, n, out, out_offset, NULL));
    unsigned char res[24];
    XT_OK(xgpu_buffer_read(xt.queue, out, 0, res, sizeof res, true, NULL));
    /* Only the result element is written: the bytes before and after it keep
     * their poison. */
    assert_memory_equal(res, poison, out_offset * rsize);
    assert_memory_equal(res + (out_offset + 1) * rsize, poison,
                        sizeof res - (out_offset + 1) * rsize);
    const unsigned char *r = res + out_offset * rsize;

    /* Host reference. */
    double kahan = 0, comp = 0, sum_abs = 0, best = op == XGPU_REDUCE_MIN ? INFINITY : -INFINITY;
    int64_t isum = 0, ibest = op == XGPU_REDUCE_MIN ? INT64_MAX : INT64_MIN;
    size_t best_at = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        double v = value_at(x, dt, offset + i);
        double y = v - comp, t = kahan + y;
        comp = (t - kahan) - y;
        kahan = t;
        sum_abs += fabs(v);
        if (dt == XGPU_I32 || dt == XGPU_I64) {
            int64_t iv = dt == XGPU_I32 ? ((int32_t *)x)[offset + i] : ((int64_t *)x)[offset + i];
            isum += iv;
            if ((op == XGPU_REDUCE_MIN && iv < ibest) || (op != XGPU_REDUCE_MIN && iv > ibest)) {
                ibest = iv;
                best_at = i;
            }
        } else if ((op == XGPU_REDUCE_MIN && v < best) || (op != XGPU_REDUCE_MIN && v > best)) {
            best = v;
            best_at = i;
        }
    }
    char what[96];
    snprintf(what, sizeof what, "op %d %s n=%zu", (int)op, xgpu_dtype_name(dt), n);
    if (op == XGPU_REDUCE_ARGMAX) {
        uint64_t idx;
        memcpy(&idx, r, 8);
        if (idx != (n ? (uint64_t)best_at : UINT64_MAX)) {
            fail_msg("%s: argmax %llu, expected %llu", what, (unsigned long long)idx,
                     (unsigned long long)best_at);
        }
    } else if (dt == XGPU_I32 || dt == XGPU_I64) {
        int64_t got;
        if (rdt == XGPU_I32) {
            int32_t g;
            memcpy(&g, r, 4);
            got = g;
        } else {
            memcpy(&got, r, 8);
        }
        int64_t want = op == XGPU_REDUCE_SUM ? isum : ibest;
        if (n == 0 && op != XGPU_REDUCE_SUM) {
            want = dt == XGPU_I32 ? (op == XGPU_REDUCE_MIN ? INT32_MAX : INT32_MIN) : ibest;
        }
        if (got != want) {
            fail_msg("%s: %lld, expected %lld", what, (long long)got, (long long)want);
        }
    } else {
        double got = dt == XGPU_F32 ? (double)*(const float *)r : *(const double *)r;
        if (op == XGPU_REDUCE_SUM) {
            double eps = dt == XGPU_F32 ? 0x1p-24 : 0x1p-53;
            /* A tree over compensated partials: error ~ depth x eps. */
            double tol = (log2((double)n + 1) + 4) * eps * sum_abs +
                         (dt == XGPU_F32 ? eps * fabs(kahan) : 0);
            if (!(fabs(got - kahan) <= tol)) {
                fail_msg("%s: sum %.10g, Kahan reference %.10g (tolerance %.3g)", what, got, kahan,
                         tol);
            }
        } else if (!(got == best)) {
            fail_msg("%s: %.10g, expected %.10g", what, got, best);
        }
    }
    free(x);
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
}

/* From offset 5: the 16-byte loads start after a scalar head. */
static void check(xgpu_reduce_op op, xgpu_dtype dt, size_t n) {
    check_at(op, dt, n, 5);
}

/* Every start within a 16-byte block, at lengths that are not multiples
 * of 4 and that leave a head, whole blocks and a tail. */
static void every_alignment(void **state) {
    (void)state;
    static const xgpu_dtype dts[] = {XGPU_F32, XGPU_F64, XGPU_I32, XGPU_I64};
    static const size_t lengths[] = {2, 3, 5, 4099, 70001};
    for (size_t d = 0; d < 4; d++) {
        if (dts[d] == XGPU_F64 && !xt.info.fp64) {
            continue;
        }
        for (int op = XGPU_REDUCE_SUM; op <= XGPU_REDUCE_ARGMAX; op++) {
            for (size_t offset = 0; offset < 4; offset++) {
                for (size_t s = 0; s < sizeof lengths / sizeof lengths[0]; s++) {
                    check_at((xgpu_reduce_op)op, dts[d], lengths[s], offset);
                }
            }
        }
    }
}

/* XGPU_REDUCE_TWO_PASS takes 0 or 1 only. */
static void two_pass_variable_is_checked(void **state) {
    (void)state;
    const char *saved = getenv("XGPU_REDUCE_TWO_PASS");
    char keep[8] = "";
    if (saved) {
        snprintf(keep, sizeof keep, "%s", saved);
    }
    xgpu_buffer *in, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, 64, &in));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &out));
    setenv("XGPU_REDUCE_TWO_PASS", "yes", 1);
    XT_FAILS(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_F32, in, 0, 16, out, 0, NULL),
             XGPU_ERROR_INVALID_ARGUMENT, "XGPU_REDUCE_TWO_PASS='yes'");
    if (saved) {
        setenv("XGPU_REDUCE_TWO_PASS", keep, 1);
    } else {
        unsetenv("XGPU_REDUCE_TWO_PASS");
    }
    XT_OK(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_F32, in, 0, 16, out, 0, NULL));
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
}

static void every_op_dtype_and_size(void **state) {
    (void)state;
    static const xgpu_dtype dts[] = {XGPU_F32, XGPU_F64, XGPU_I32, XGPU_I64};
    for (size_t d = 0; d < 4; d++) {
        if (dts[d] == XGPU_F64 && !xt.info.fp64) {
            continue;
        }
        for (int op = XGPU_REDUCE_SUM; op <= XGPU_REDUCE_ARGMAX; op++) {
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                /* The largest size for f32 sum only: it is the one whose
                 * error growth matters, and the slowest on a CPU device. */
                if (s + 1 == sizeof sizes / sizeof sizes[0] &&
                    (dts[d] != XGPU_F32 || op != XGPU_REDUCE_SUM)) {
                    continue;
                }
                check((xgpu_reduce_op)op, dts[d], sizes[s]);
            }
        }
    }
}

static void nan_never_wins(void **state) {
    (void)state;
    float x[5] = {1.0f, NAN, 3.0f, NAN, 2.0f};
    xgpu_buffer *in, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof x, &in));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &out));
    XT_OK(xgpu_buffer_write(xt.queue, in, 0, x, sizeof x, true, NULL));
    float m = 0;
    uint64_t idx = 0;
    XT_OK(xgpu_reduce(xt.queue, XGPU_REDUCE_MAX, XGPU_F32, in, 0, 5, out, 0, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, out, 0, &m, 4, true, NULL));
    assert_true(m == 3.0f);
    XT_OK(xgpu_reduce(xt.queue, XGPU_REDUCE_ARGMAX, XGPU_F32, in, 0, 5, out, 0, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, out, 0, &idx, 8, true, NULL));
    assert_int_equal(idx, 2);
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
}

/* xgpu_reduce's argmax of x[0..n) (host memory, type dt), through buffers
 * made and released here, so that a wrong index found by the caller
 * leaves no buffer live. */
static uint64_t argmax_of(xgpu_dtype dt, const void *x, size_t n) {
    xgpu_buffer *in, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, n * xgpu_dtype_size(dt), &in));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &out));
    XT_OK(xgpu_buffer_write(xt.queue, in, 0, x, n * xgpu_dtype_size(dt), true, NULL));
    uint64_t idx = 12345;
    XT_OK(xgpu_reduce(xt.queue, XGPU_REDUCE_ARGMAX, dt, in, 0, n, out, 0, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, out, 0, &idx, 8, true, NULL));
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
    return idx;
}

/* v as element i of x, of type dt (f32 or f64). */
static void store_float(void *x, xgpu_dtype dt, size_t i, double v) {
    if (dt == XGPU_F32) {
        ((float *)x)[i] = (float)v;
    } else {
        ((double *)x)[i] = v;
    }
}

/* Argmax at sizes that reach the vectorised lanes (CPU: 64 per
 * work-item) and the tail, in f32 and f64: all -inf gives the first index,
 * NaN never wins (all NaN: no index, UINT64_MAX), and the first of equal
 * maxima wins whichever lane or work-item holds it. Case 4 gives every
 * lane NaN first and -inf after (blocks of 64 alternately NaN and -inf):
 * the -inf at 64 must win, though no element is greater than the
 * starting value. */
static void argmax_edges(void **state) {
    (void)state;
    static const size_t lengths[] = {5, 4099, 200003};
    static const xgpu_dtype dts[] = {XGPU_F32, XGPU_F64};
    for (size_t d = 0; d < 2; d++) {
        for (size_t s = 0; s < 3; s++) {
            const xgpu_dtype dt = dts[d];
            if (dt == XGPU_F64 && !xt.info.fp64) {
                continue;
            }
            size_t n = lengths[s];
            void *x = malloc(n * sizeof(double));
            assert_non_null(x);
            for (int c = 0; c < 5; c++) {
                uint64_t want = 0;
                for (size_t i = 0; i < n; i++) {
                    double v = c == 0 ? -INFINITY : (c == 1 ? NAN : (double)(i % 7) - 3.0);
                    if (c == 3) { /* -inf and NaN only, one finite value at the end */
                        v = i % 2 ? NAN : -INFINITY;
                    } else if (c == 4) {
                        v = (i / 64) % 2 ? -INFINITY : NAN;
                    }
                    store_float(x, dt, i, v);
                }
                if (c == 1) {
                    want = UINT64_MAX;
                } else if (c == 2) { /* NaN first, maxima 3.0 at 6, 13, ...; one 4.0 twice */
                    store_float(x, dt, 0, NAN);
                    store_float(x, dt, n - 1, 4.0);
                    store_float(x, dt, n / 2, 4.0);
                    want = n / 2;
                } else if (c == 3) {
                    store_float(x, dt, n - 1, -1e30);
                    want = n - 1;
                } else if (c == 4) {
                    want = n > 64 ? 64 : UINT64_MAX;
                }
                const uint64_t idx = argmax_of(dt, x, n);
                if (idx != want) {
                    free(x);
                    fail_msg("%s, n %zu, case %d: argmax %llu, expected %llu", xgpu_dtype_name(dt),
                             n, c, (unsigned long long)idx, (unsigned long long)want);
                }
            }
            free(x);
        }
    }
}

/* Integer argmax where the maximum is the type's minimum: every element
 * (the first wins); then one larger element in the middle, inside the
 * vectorised blocks. */
static void argmax_of_integer_minimum(void **state) {
    (void)state;
    const size_t n = 100003;
    static const xgpu_dtype dts[] = {XGPU_I32, XGPU_I64};
    for (size_t d = 0; d < 2; d++) {
        const xgpu_dtype dt = dts[d];
        void *x = malloc(n * sizeof(int64_t));
        assert_non_null(x);
        for (int c = 0; c < 2; c++) {
            for (size_t i = 0; i < n; i++) {
                if (dt == XGPU_I32) {
                    ((int32_t *)x)[i] = i == n / 2 && c ? INT32_MIN + 1 : INT32_MIN;
                } else {
                    ((int64_t *)x)[i] = i == n / 2 && c ? INT64_MIN + 1 : INT64_MIN;
                }
            }
            const uint64_t idx = argmax_of(dt, x, n);
            if (idx != (c ? n / 2 : 0)) {
                free(x);
                fail_msg("%s, case %d: argmax %llu, expected %zu", xgpu_dtype_name(dt), c,
                         (unsigned long long)idx, c ? n / 2 : 0);
            }
        }
        free(x);
    }
}

/* Several reductions into one result array, each at its element index:
 * out_offset s puts slice s's result in out[s]. */
static void results_land_at_element_offsets(void **state) {
    (void)state;
    enum { SLICES = 5, LEN = 1001 };
    int32_t *x = malloc(SLICES * LEN * sizeof *x);
    assert_non_null(x);
    fill(x, XGPU_I32, SLICES * LEN, 77);
    xgpu_buffer *in, *sums, *mins;
    XT_OK(xgpu_buffer_create(xt.ctx, SLICES * LEN * sizeof *x, &in));
    XT_OK(xgpu_buffer_create(xt.ctx, SLICES * sizeof(int64_t), &sums));
    XT_OK(xgpu_buffer_create(xt.ctx, SLICES * sizeof(int32_t), &mins));
    XT_OK(xgpu_buffer_write(xt.queue, in, 0, x, SLICES * LEN * sizeof *x, true, NULL));
    for (size_t s = 0; s < SLICES; s++) {
        XT_OK(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_I32, in, s * LEN, LEN, sums, s, NULL));
        XT_OK(xgpu_reduce(xt.queue, XGPU_REDUCE_MIN, XGPU_I32, in, s * LEN, LEN, mins, s, NULL));
    }
    int64_t got_sum[SLICES];
    int32_t got_min[SLICES];
    XT_OK(xgpu_buffer_read(xt.queue, sums, 0, got_sum, sizeof got_sum, true, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, mins, 0, got_min, sizeof got_min, true, NULL));
    for (size_t s = 0; s < SLICES; s++) {
        int64_t want_sum = 0;
        int32_t want_min = INT32_MAX;
        for (size_t i = s * LEN; i < (s + 1) * LEN; i++) {
            want_sum += x[i];
            want_min = x[i] < want_min ? x[i] : want_min;
        }
        assert_int_equal(got_sum[s], want_sum);
        assert_int_equal(got_min[s], want_min);
    }
    free(x);
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(sums));
    XT_OK(xgpu_buffer_release(mins));
}

/* int32 sums are exact in int64 at the type's extremes, over enough
 * elements that every work-item's 32-bit lanes would overflow many times
 * and several of their runs (1024 blocks) end. */
static void i32_sums_are_exact(void **state) {
    (void)state;
    const size_t n = ((size_t)1 << 22) + 3;
    int32_t *x = malloc(n * sizeof *x);
    assert_non_null(x);
    xgpu_buffer *in, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, n * sizeof *x, &in));
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof(int64_t), &out));
    uint32_t seed = 2026;
    for (int pattern = 0; pattern < 4; pattern++) {
        int64_t want = 0;
        for (size_t i = 0; i < n; i++) {
            const uint32_t r = xt_rand_u32(&seed);
            x[i] = pattern == 0   ? INT32_MAX
                   : pattern == 1 ? INT32_MIN
                   : pattern == 2 ? (int32_t)r /* the whole range */
                                  : (i % 3 ? INT32_MIN + (int32_t)(r & 0xffff) : INT32_MAX);
            want += x[i];
        }
        XT_OK(xgpu_buffer_write(xt.queue, in, 0, x, n * sizeof *x, true, NULL));
        const int64_t poison = INT64_C(0x5a5a5a5a5a5a5a5a);
        XT_OK(xgpu_buffer_write(xt.queue, out, 0, &poison, sizeof poison, true, NULL));
        XT_OK(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_I32, in, 0, n, out, 0, NULL));
        int64_t got = 0;
        XT_OK(xgpu_buffer_read(xt.queue, out, 0, &got, sizeof got, true, NULL));
        if (got != want) {
            fail_msg("pattern %d: sum of %zu int32 is %lld, expected %lld", pattern, n,
                     (long long)got, (long long)want);
        }
    }
    free(x);
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
}

static void bad_arguments_are_refused(void **state) {
    (void)state;
    xgpu_buffer *in, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, 400, &in));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &out));
    XT_FAILS(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_F32, in, 1, 100, out, 0, NULL),
             XGPU_ERROR_OUT_OF_RANGE, "in needs a buffer of 404 bytes (400 bytes from byte 4)");
    XT_FAILS(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_F64, in, 0, 10, out, 4, NULL),
             xt.info.fp64 ? XGPU_ERROR_OUT_OF_RANGE : XGPU_ERROR_UNSUPPORTED, NULL);
    XT_FAILS(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_F16, in, 0, 10, out, 0, NULL),
             XGPU_ERROR_UNSUPPORTED, "dtype f16");
    XT_FAILS(xgpu_reduce(xt.queue, (xgpu_reduce_op)9, XGPU_F32, in, 0, 10, out, 0, NULL),
             XGPU_ERROR_UNSUPPORTED, "op 9");
    /* out_offset counts result elements: an i32 sum is an i64. */
    XT_FAILS(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_I32, in, 0, 10, out, 1, NULL),
             XGPU_ERROR_OUT_OF_RANGE, "out needs a buffer of 16 bytes (8 bytes from byte 8)");
    XT_FAILS(xgpu_reduce(xt.queue, XGPU_REDUCE_MAX, XGPU_F32, in, 0, 10, out, 2, NULL),
             XGPU_ERROR_OUT_OF_RANGE, "out needs a buffer of 12 bytes (4 bytes from byte 8)");
    XT_FAILS(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_F32, in, 0, 10, out, SIZE_MAX / 2, NULL),
             XGPU_ERROR_INVALID_SIZE, "out_offset");
    XT_FAILS(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_F32, in, SIZE_MAX, 2, out, 0, NULL),
             XGPU_ERROR_INVALID_SIZE, "overflows");
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_op_dtype_and_size),
        cmocka_unit_test(every_alignment),
        cmocka_unit_test(two_pass_variable_is_checked),
        cmocka_unit_test(nan_never_wins),
        cmocka_unit_test(argmax_edges),
        cmocka_unit_test(argmax_of_integer_minimum),
        cmocka_unit_test(results_land_at_element_offsets),
        cmocka_unit_test(i32_sums_are_exact),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return XT_RUN("reduce", tests);
}
