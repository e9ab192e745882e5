/* Every library kernel on oclgrind, a checking OpenCL device, with data
 * race and uninitialised-value detection: GEMM (f32, f64, f16 storage,
 * every transpose), every reduction over every dtype, every stream
 * kernel, at edge sizes around the group size and the bytes one group
 * covers. Results are checked against host references; any report in
 * oclgrind's log (OCLGRIND_LOG, set by CTest) fails the run.
 *
 * Arguments: the oclgrind ICD library and the log file. Exits 77 (CTest's
 * skip) when the library is missing. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xt_file.h"

/* Around a group of 256 (1, a group - 1, a group, a group + 1), then a
 * few of the 4096 elements a group covers with 16-byte loads, 4 in
 * flight, and an odd tail. */
static const size_t sizes[] = {1, 255, 256, 257, 3 * 4096 + 5};

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

/* Distinct-ish random values, never zero. */
static void fill(void *x, xgpu_dtype dt, size_t n, uint32_t seed) {
    uint32_t s = seed | 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = xt_rand_u32(&s);
        double v = ((double)(r >> 8) / (1 << 24) - 0.3) * 1000.0 + 0.5;
        if (dt == XGPU_F32) {
            ((float *)x)[i] = (float)v;
        } else if (dt == XGPU_F64) {
            ((double *)x)[i] = v;
        } else if (dt == XGPU_I32) {
            ((int32_t *)x)[i] = (int32_t)(r % 2000001) - 1000000 + 1;
        } else {
            ((int64_t *)x)[i] = ((int64_t)r << 8) - ((int64_t)1 << 39) + 1;
        }
    }
}

static void reduce_one(xgpu_reduce_op op, xgpu_dtype dt, size_t n, size_t offset) {
    size_t elem = xgpu_dtype_size(dt), total = n + offset;
    unsigned char *x = malloc(total * elem);
    assert_non_null(x);
    fill(x, dt, total, (uint32_t)(n * 13 + (size_t)op * 5 + (size_t)dt + offset));
    xgpu_buffer *in, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, total * elem, &in));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &out));
    XT_OK(xgpu_buffer_write(xt.queue, in, 0, x, total * elem, true, NULL));
    unsigned char res[8];
    memset(res, 0xA5, sizeof res);
    XT_OK(xgpu_buffer_write(xt.queue, out, 0, res, sizeof res, true, NULL));
    XT_OK(xgpu_reduce(xt.queue, op, dt, in, offset, n, out, 0, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, out, 0, res, sizeof res, true, NULL));
    double sum = 0, sum_abs = 0, best = op == XGPU_REDUCE_MIN ? INFINITY : -INFINITY;
    int64_t isum = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        double v = value_at(x, dt, offset + i);
        sum += v;
        sum_abs += fabs(v);
        if (dt == XGPU_I32) {
            isum += ((int32_t *)x)[offset + i];
        } else if (dt == XGPU_I64) {
            isum += ((int64_t *)x)[offset + i];
        }
        if ((op == XGPU_REDUCE_MIN && v < best) || (op != XGPU_REDUCE_MIN && v > best)) {
            best = v;
            at = i;
        }
    }
    char what[80];
    snprintf(what, sizeof what, "op %d %s n=%zu offset %zu", (int)op, xgpu_dtype_name(dt), n,
             offset);
    if (op == XGPU_REDUCE_ARGMAX) {
        uint64_t idx;
        memcpy(&idx, res, 8);
        if (idx != at) {
            fail_msg("%s: argmax %llu, expected %zu", what, (unsigned long long)idx, at);
        }
    } else if (dt == XGPU_I32 || dt == XGPU_I64) {
        int64_t got = 0;
        if (op != XGPU_REDUCE_SUM && dt == XGPU_I32) {
            int32_t g;
            memcpy(&g, res, 4);
            got = g;
        } else {
            memcpy(&got, res, 8);
        }
        int64_t want = op == XGPU_REDUCE_SUM ? isum : (int64_t)best;
        if (got != want) {
            fail_msg("%s: %lld, expected %lld", what, (long long)got, (long long)want);
        }
    } else {
        float gf;
        double got;
        memcpy(&gf, res, 4);
        memcpy(&got, res, 8);
        got = dt == XGPU_F32 ? gf : got;
        double eps = dt == XGPU_F32 ? 0x1p-24 : 0x1p-53;
        double want = op == XGPU_REDUCE_SUM ? sum : best;
        double tol = op == XGPU_REDUCE_SUM ? 32 * eps * sum_abs : 0;
        if (!(fabs(got - want) <= tol)) {
            fail_msg("%s: %.10g, expected %.10g", what, got, want);
        }
    }
    free(x);
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
}

static void reductions(void **state) {
    (void)state;
    static const xgpu_dtype dts[] = {XGPU_F32, XGPU_F64, XGPU_I32, XGPU_I64};
    for (size_t d = 0; d < 4; d++) {
        if (dts[d] == XGPU_F64 && !xt.info.fp64) {
            continue;
        }
        for (int op = XGPU_REDUCE_SUM; op <= XGPU_REDUCE_ARGMAX; op++) {
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                /* Offset 1: the 16-byte loads start after a scalar head. */
                reduce_one((xgpu_reduce_op)op, dts[d], sizes[s], s % 2);
            }
        }
    }
}

/* argmax where every lane starts with NaN and goes on with -inf (blocks of
 * 64 alternately): in the CPU layout no element beats the starting value,
 * and the second sweep of each chunk must find the first -inf (64). */
static void argmax_second_sweep(void **state) {
    (void)state;
    enum { N = 3 * 4096 + 5 };
    float *x = malloc(N * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < N; i++) {
        x[i] = (i / 64) % 2 ? -INFINITY : NAN;
    }
    xgpu_buffer *in, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, N * sizeof *x, &in));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &out));
    XT_OK(xgpu_buffer_write(xt.queue, in, 0, x, N * sizeof *x, true, NULL));
    uint64_t idx = 12345;
    XT_OK(xgpu_reduce(xt.queue, XGPU_REDUCE_ARGMAX, XGPU_F32, in, 0, N, out, 0, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, out, 0, &idx, 8, true, NULL));
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
    free(x);
    assert_int_equal(idx, 64);
}

static void stream_one(xgpu_dtype dt, size_t n) {
    size_t elem = xgpu_dtype_size(dt);
    double *h[3];
    unsigned char *raw[3];
    xgpu_buffer *buf[3], *out;
    for (int i = 0; i < 3; i++) {
        h[i] = malloc(n * sizeof(double));
        raw[i] = malloc(n * elem);
        assert_true(h[i] && raw[i]);
        for (size_t j = 0; j < n; j++) {
            h[i][j] = 1.0 + (double)((j * 7 + (size_t)i * 3) % 17) / 8.0;
            if (dt == XGPU_F32) {
                ((float *)raw[i])[j] = (float)h[i][j];
            } else {
                ((double *)raw[i])[j] = h[i][j];
            }
        }
        XT_OK(xgpu_buffer_create(xt.ctx, n * elem, &buf[i]));
        XT_OK(xgpu_buffer_write(xt.queue, buf[i], 0, raw[i], n * elem, true, NULL));
    }
    XT_OK(xgpu_buffer_create(xt.ctx, elem, &out));
    /* c = a; b = 3c; c = a + b; a = b + 3c; dot(a, b): exact in binary. */
    XT_OK(xgpu_stream(xt.queue, XGPU_STREAM_COPY, dt, buf[0], buf[1], buf[2], 3.0, n, out, NULL));
    XT_OK(xgpu_stream(xt.queue, XGPU_STREAM_MUL, dt, buf[0], buf[1], buf[2], 3.0, n, out, NULL));
    XT_OK(xgpu_stream(xt.queue, XGPU_STREAM_ADD, dt, buf[0], buf[1], buf[2], 3.0, n, out, NULL));
    XT_OK(xgpu_stream(xt.queue, XGPU_STREAM_TRIAD, dt, buf[0], buf[1], buf[2], 3.0, n, out, NULL));
    XT_OK(xgpu_stream(xt.queue, XGPU_STREAM_DOT, dt, buf[0], buf[1], buf[2], 3.0, n, out, NULL));
    double dot = 0;
    for (size_t j = 0; j < n; j++) {
        double a = h[0][j], c = a, b = 3 * c;
        c = a + b;
        a = b + 3 * c;
        h[0][j] = a;
        h[1][j] = b;
        h[2][j] = c;
        dot += a * b;
    }
    for (int i = 0; i < 3; i++) {
        XT_OK(xgpu_buffer_read(xt.queue, buf[i], 0, raw[i], n * elem, true, NULL));
        for (size_t j = 0; j < n; j++) {
            double got = dt == XGPU_F32 ? ((float *)raw[i])[j] : ((double *)raw[i])[j];
            if (got != h[i][j]) {
                fail_msg("stream %s n=%zu: array %d [%zu] = %g, expected %g", xgpu_dtype_name(dt),
                         n, i, j, got, h[i][j]);
            }
        }
    }
    unsigned char r[8];
    XT_OK(xgpu_buffer_read(xt.queue, out, 0, r, elem, true, NULL));
    double got = dt == XGPU_F32 ? (double)*(float *)r : *(double *)r;
    if (!(fabs(got - dot) <= 1e-5 * dot)) {
        fail_msg("stream %s n=%zu: dot %.10g, expected %.10g", xgpu_dtype_name(dt), n, got, dot);
    }
    for (int i = 0; i < 3; i++) {
        XT_OK(xgpu_buffer_release(buf[i]));
        free(h[i]);
        free(raw[i]);
    }
    XT_OK(xgpu_buffer_release(out));
}

static void stream_kernels(void **state) {
    (void)state;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        stream_one(XGPU_F32, sizes[s]);
        if (xt.info.fp64) {
            stream_one(XGPU_F64, sizes[s]);
        }
    }
}

/* IEEE half from float, round to nearest even, for the values used here
 * (small multiples of 1/8, exact in half). */
static uint16_t to_half(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000u, exp = (u >> 23) & 0xff, man = u & 0x7fffffu;
    if (exp == 0) {
        return (uint16_t)sign;
    }
    return (uint16_t)(sign | ((exp - 112) << 10) | (man >> 13));
}

static void gemm_one(xgpu_dtype dt, xgpu_transpose ta, xgpu_transpose tb, size_t m, size_t n,
                     size_t k) {
    size_t elem = xgpu_dtype_size(dt);
    size_t sizes_[3] = {m * k, k * n, m * n};
    double *h[3];
    unsigned char *raw[3];
    xgpu_buffer *buf[3];
    for (int i = 0; i < 3; i++) {
        h[i] = malloc(sizes_[i] * sizeof(double));
        raw[i] = malloc(sizes_[i] * elem);
        assert_true(h[i] && raw[i]);
        for (size_t j = 0; j < sizes_[i]; j++) {
            h[i][j] = (double)((int)((j * 5 + (size_t)i) % 13) - 6) / 8.0 + 0.0625;
            if (dt == XGPU_F32) {
                ((float *)raw[i])[j] = (float)h[i][j];
            } else if (dt == XGPU_F64) {
                ((double *)raw[i])[j] = h[i][j];
            } else {
                ((uint16_t *)raw[i])[j] = to_half((float)h[i][j]);
            }
        }
        XT_OK(xgpu_buffer_create(xt.ctx, sizes_[i] * elem, &buf[i]));
        XT_OK(xgpu_buffer_write(xt.queue, buf[i], 0, raw[i], sizes_[i] * elem, true, NULL));
    }
    /* Row-major: op(A) is m x k, A is stored k x m when transposed. */
    xgpu_gemm_desc d = {.dtype = dt,
                        .layout = XGPU_ROW_MAJOR,
                        .trans_a = ta,
                        .trans_b = tb,
                        .m = m,
                        .n = n,
                        .k = k,
                        .alpha = 1.0,
                        .beta = 0.5,
                        .a = {buf[0], 0, ta ? m : k},
                        .b = {buf[1], 0, tb ? k : n},
                        .c = {buf[2], 0, n}};
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, buf[2], 0, raw[2], sizes_[2] * elem, true, NULL));
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            double want = 0.5 * h[2][i * n + j];
            for (size_t p = 0; p < k; p++) {
                double a = ta ? h[0][p * m + i] : h[0][i * k + p];
                double b = tb ? h[1][j * k + p] : h[1][p * n + j];
                want += a * b;
            }
            double got;
            if (dt == XGPU_F32) {
                got = ((float *)raw[2])[i * n + j];
            } else if (dt == XGPU_F64) {
                got = ((double *)raw[2])[i * n + j];
            } else {
                /* Compared in float after converting the half on the host. */
                uint16_t hv = ((uint16_t *)raw[2])[i * n + j];
                int e = (hv >> 10) & 31, man = hv & 1023;
                got = (e ? ldexp(1024 + man, e - 25) : ldexp(man, -24)) * (hv & 0x8000 ? -1 : 1);
            }
            double tol = dt == XGPU_F16 ? 0x1p-10 * (fabs(want) + 1) : 1e-5 * (fabs(want) + 1);
            if (!(fabs(got - want) <= tol)) {
                fail_msg("gemm %s %c%c %zux%zux%zu: C[%zu,%zu] = %g, expected %g",
                         xgpu_dtype_name(dt), ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, i, j, got,
                         want);
            }
        }
    }
    for (int i = 0; i < 3; i++) {
        XT_OK(xgpu_buffer_release(buf[i]));
        free(h[i]);
        free(raw[i]);
    }
}

static void gemms(void **state) {
    (void)state;
    /* Two K tiles once; one (k 5, oclgrind is slow) for the transposes. */
    gemm_one(XGPU_F32, XGPU_NO_TRANS, XGPU_NO_TRANS, 17, 33, 19);
    for (int t = 1; t < 4; t++) {
        gemm_one(XGPU_F32, (xgpu_transpose)(t & 1), (xgpu_transpose)(t >> 1), 17, 33, 5);
    }
    if (xt.info.fp64) {
        gemm_one(XGPU_F64, XGPU_NO_TRANS, XGPU_TRANS, 9, 17, 5);
    }
    gemm_one(XGPU_F16, XGPU_TRANS, XGPU_NO_TRANS, 9, 17, 5);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OCLGRIND_ICD_LIBRARY LOG\n", argv[0]);
        return 2;
    }
    if (access(argv[1], R_OK) != 0) {
        printf("skipped: %s not found (Debian: apt-get install oclgrind)\n", argv[1]);
        return 77;
    }
    unlink(argv[2]); /* oclgrind appends to its log */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reductions),
        cmocka_unit_test(argmax_second_sweep),
        cmocka_unit_test(stream_kernels),
        cmocka_unit_test(gemms),
    };
    int rc = XT_RUN("oclgrind", tests);
    size_t size = 0;
    char *log = xt_read_file(argv[2], &size);
    if (log && size) {
        fprintf(stderr, "oclgrind reported errors (%s):\n%.20000s\n", argv[2], log);
        rc = 1;
    }
    free(log);
    return rc;
}
