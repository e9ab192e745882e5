/* xgpu_stream on every device: copy, mul, add, triad and dot in f32 and
 * f64, against host results (one rounding each, contraction allowed), dot
 * against a compensated host sum. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run(xgpu_dtype dt, size_t n) {
    size_t elem = xgpu_dtype_size(dt);
    double *ha = malloc(n * 8), *hb = malloc(n * 8), *hc = malloc(n * 8);
    unsigned char *ra = malloc(n * elem), *rb = malloc(n * elem), *rc = malloc(n * elem);
    assert_true(ha && hb && hc && ra && rb && rc);
    uint32_t s = (uint32_t)n | 1;
    for (size_t i = 0; i < n; i++) {
        double v[3];
        for (int j = 0; j < 3; j++) {
            v[j] = (double)(xt_rand_u32(&s) >> 8) / (1 << 24) + 0.5;
        }
        if (dt == XGPU_F32) {
            ((float *)ra)[i] = (float)v[0], ((float *)rb)[i] = (float)v[1],
                    ((float *)rc)[i] = (float)v[2];
            ha[i] = (float)v[0], hb[i] = (float)v[1], hc[i] = (float)v[2];
        } else {
            ((double *)ra)[i] = v[0], ((double *)rb)[i] = v[1], ((double *)rc)[i] = v[2];
            ha[i] = v[0], hb[i] = v[1], hc[i] = v[2];
        }
    }
    xgpu_buffer *a, *b, *c, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, n * elem, &a));
    XT_OK(xgpu_buffer_create(xt.ctx, n * elem, &b));
    XT_OK(xgpu_buffer_create(xt.ctx, n * elem, &c));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &out));
    XT_OK(xgpu_buffer_write(xt.queue, a, 0, ra, n * elem, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, b, 0, rb, n * elem, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, c, 0, rc, n * elem, true, NULL));
    const double scalar = 0.4;
    /* The BabelStream order: copy, mul, add, triad, dot; check after each. */
    XT_OK(xgpu_stream(xt.queue, XGPU_STREAM_COPY, dt, a, NULL, c, 0, n, NULL, NULL));
    for (size_t i = 0; i < n; i++) {
        hc[i] = ha[i];
    }
    XT_OK(xgpu_stream(xt.queue, XGPU_STREAM_MUL, dt, NULL, b, c, scalar, n, NULL, NULL));
    double sc = dt == XGPU_F32 ? (double)(float)scalar : scalar;
    for (size_t i = 0; i < n; i++) {
        hb[i] = sc * hc[i];
    }
    XT_OK(xgpu_stream(xt.queue, XGPU_STREAM_ADD, dt, a, b, c, 0, n, NULL, NULL));
    for (size_t i = 0; i < n; i++) {
        hc[i] = ha[i] + hb[i];
    }
    XT_OK(xgpu_stream(xt.queue, XGPU_STREAM_TRIAD, dt, a, b, c, scalar, n, NULL, NULL));
    for (size_t i = 0; i < n; i++) {
        ha[i] = hb[i] + sc * hc[i];
    }
    XT_OK(xgpu_stream(xt.queue, XGPU_STREAM_DOT, dt, a, b, NULL, 0, n, out, NULL));
    double eps = dt == XGPU_F32 ? 0x1p-23 : 0x1p-52;
    double *h[3] = {ha, hb, hc};
    xgpu_buffer *d[3] = {a, b, c};
    for (int v = 0; v < 3; v++) {
        XT_OK(xgpu_buffer_read(xt.queue, d[v], 0, rc, n * elem, true, NULL));
        for (size_t i = 0; i < n; i++) {
            double got = dt == XGPU_F32 ? ((float *)rc)[i] : ((double *)rc)[i];
            /* A few roundings of values near 1: a few ulps. */
            if (!(fabs(got - h[v][i]) <= 8 * eps * fabs(h[v][i]))) {
                fail_msg("%s n=%zu: %c[%zu] = %.9g, expected %.9g", xgpu_dtype_name(dt), n, 'a' + v,
                         i, got, h[v][i]);
            }
        }
    }
    double kahan = 0, comp = 0, sum_abs = 0;
    for (size_t i = 0; i < n; i++) {
        double t = ha[i] * hb[i], y = t - comp, u = kahan + y;
        comp = (u - kahan) - y;
        kahan = u;
        sum_abs += fabs(t);
    }
    unsigned char res[8];
    XT_OK(xgpu_buffer_read(xt.queue, out, 0, res, 8, true, NULL));
    double got = dt == XGPU_F32 ? (double)*(float *)res : *(double *)res;
    /* Each work-item sums n / items products in order, then a tree. */
    double tol = (double)n * 8 * eps * sum_abs / 1024 + 64 * eps * sum_abs;
    if (!(fabs(got - kahan) <= tol)) {
        fail_msg("%s n=%zu: dot %.10g, reference %.10g", xgpu_dtype_name(dt), n, got, kahan);
    }
    XT_OK(xgpu_buffer_release(a));
    XT_OK(xgpu_buffer_release(b));
    XT_OK(xgpu_buffer_release(c));
    XT_OK(xgpu_buffer_release(out));
    free(ha);
    free(hb);
    free(hc);
    free(ra);
    free(rb);
    free(rc);
}

static void five_kernels(void **state) {
    (void)state;
    static const size_t sizes[] = {1, 1000, (1u << 20) + 7};
    for (size_t s = 0; s < 3; s++) {
        run(XGPU_F32, sizes[s]);
        if (xt.info.fp64) {
            run(XGPU_F64, sizes[s]);
        }
    }
}

static void bad_arguments_are_refused(void **state) {
    (void)state;
    xgpu_buffer *a;
    XT_OK(xgpu_buffer_create(xt.ctx, 400, &a));
    XT_FAILS(xgpu_stream(xt.queue, XGPU_STREAM_COPY, XGPU_F32, a, NULL, a, 0, 101, NULL, NULL),
             XGPU_ERROR_OUT_OF_RANGE, "needs a buffer of 404 bytes");
    XT_FAILS(xgpu_stream(xt.queue, XGPU_STREAM_ADD, XGPU_F32, a, NULL, a, 0, 10, NULL, NULL),
             XGPU_ERROR_INVALID_HANDLE, "b is NULL");
    XT_FAILS(xgpu_stream(xt.queue, XGPU_STREAM_DOT, XGPU_I32, a, a, NULL, 0, 10, a, NULL),
             XGPU_ERROR_UNSUPPORTED, "dtype i32");
    XT_FAILS(xgpu_stream(xt.queue, XGPU_STREAM_COPY, XGPU_F32, a, NULL, a, 0, 0, NULL, NULL),
             XGPU_ERROR_INVALID_SIZE, "n is 0");
    XT_FAILS(xgpu_stream(xt.queue, (xgpu_stream_op)0, XGPU_F32, a, a, a, 0, 1, NULL, NULL),
             XGPU_ERROR_INVALID_ARGUMENT, "op 0");
    XT_OK(xgpu_buffer_release(a));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(five_kernels),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return XT_RUN("stream", tests);
}
