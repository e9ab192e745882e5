/* The problems a tune measures candidates on: buffers filled with
 * pseudo-random values (never zeros), a host reference computed once in
 * higher precision, outputs poisoned before every checked run. */
#include "problem.h"

#include <math.h> /* INFINITY; the core does not link libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double absd(double x) {
    return x < 0 ? -x : x;
}

/* xorshift64*: the same inputs on every run. */
static uint64_t next(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dULL;
}

/* In [-1, 1), a multiple of 2^-10 so that every dtype holds it exactly. */
static double rnd(uint64_t *s) {
    return (double)((int64_t)(next(s) >> 53) - 1024) / 1024.0;
}

static void put(void *p, xgpu_dtype dt, size_t i, double v) {
    switch (dt) {
    case XGPU_F64:
        ((double *)p)[i] = v;
        break;
    case XGPU_I32:
        ((int32_t *)p)[i] = (int32_t)(v * 1024);
        break;
    case XGPU_I64:
        ((int64_t *)p)[i] = (int64_t)(v * 1024) * 1000003;
        break;
    case XGPU_F16: /* rounded: the reference reads back what is stored */
        ((uint16_t *)p)[i] = xgpu_f32_to_f16((float)v);
        break;
    case XGPU_BF16:
        ((uint16_t *)p)[i] = xgpu_f32_to_bf16((float)v);
        break;
    default:
        ((float *)p)[i] = (float)v;
        break;
    }
}

static double get(const void *p, xgpu_dtype dt, size_t i) {
    switch (dt) {
    case XGPU_F64:
        return ((const double *)p)[i];
    case XGPU_I32:
        return ((const int32_t *)p)[i];
    case XGPU_I64:
        return (double)((const int64_t *)p)[i];
    case XGPU_F16:
        return xgpu_f16_to_f32(((const uint16_t *)p)[i]);
    case XGPU_BF16:
        return xgpu_bf16_to_f32(((const uint16_t *)p)[i]);
    default:
        return ((const float *)p)[i];
    }
}

/* Elements [first, first + count) of p as doubles: get() a loop, the
 * dtype's switch outside it. */
static void widen(const void *p, xgpu_dtype dt, size_t first, size_t count, double *out) {
    switch (dt) {
    case XGPU_F64:
        for (size_t i = 0; i < count; i++) {
            out[i] = ((const double *)p)[first + i];
        }
        break;
    case XGPU_I32:
        for (size_t i = 0; i < count; i++) {
            out[i] = ((const int32_t *)p)[first + i];
        }
        break;
    case XGPU_I64:
        for (size_t i = 0; i < count; i++) {
            out[i] = (double)((const int64_t *)p)[first + i];
        }
        break;
    case XGPU_F32:
        for (size_t i = 0; i < count; i++) {
            out[i] = ((const float *)p)[first + i];
        }
        break;
    default:
        for (size_t i = 0; i < count; i++) {
            out[i] = get(p, dt, first + i);
        }
        break;
    }
}

void xgpu__tune_problem_free(xgpu__tune_problem *p) {
    for (int i = 0; i < 3; i++) {
        xgpu_buffer_release(p->buf[i]);
    }
    free(p->in[0]);
    free(p->in[1]);
    free(p->out);
    free(p->ref);
    free(p->scale);
    *p = (xgpu__tune_problem){0};
}

static xgpu_status upload(xgpu__tune_problem *p, int b, size_t bytes, uint64_t seed) {
    void *h = malloc(bytes);
    if (!h) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "xgpu_tune: malloc of %zu bytes failed",
                          bytes);
    }
    uint64_t s = seed;
    size_t elem = xgpu_dtype_size(p->dtype), n = bytes / elem;
    for (size_t i = 0; i < n; i++) {
        put(h, p->dtype, i, rnd(&s));
    }
    xgpu_status st = xgpu_buffer_create(p->ctx, bytes, &p->buf[b]);
    if (st == XGPU_SUCCESS) {
        st = xgpu_buffer_write(p->queue, p->buf[b], 0, h, bytes, true, NULL);
    }
    if (st == XGPU_SUCCESS) {
        p->in[b] = h; /* for the reference and the check */
        return st;
    }
    free(h);
    return st;
}

/* One row of C and of its scale: r += av b, s += |av| |b|. */
static void reference_row(size_t n, double av, const double *restrict b,
                          const double *restrict b_abs, double *restrict r, double *restrict s) {
    const double a_abs = absd(av);
    for (size_t j = 0; j < n; j++) {
        r[j] += av * b[j];
        s[j] += a_abs * b_abs[j];
    }
}

/* Rows of C a block: the block's rows of the reference and the scale stay
 * in cache while each row of B passes once per block. */
#define REFERENCE_ROWS 16

/* C = A B in double, with sum |a||b| per element for the tolerance; each
 * element sums over k in order (the scale may move by an ulp where the
 * compiler fuses its multiply-add: it only sets the tolerance). The inputs
 * are widened to double first (widen: a dtype switch per product made
 * n = 1024 take 7 s; now about 1). */
static xgpu_status gemm_reference(xgpu__tune_problem *p) {
    const size_t n = p->n, nn = n * n;
    double *ref = calloc(nn, sizeof *ref), *scale = calloc(nn, sizeof *scale);
    double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b);
    double *b_abs = malloc(nn * sizeof *b_abs);
    if (!ref || !scale || !a || !b || !b_abs) {
        free(ref);
        free(scale);
        free(a);
        free(b);
        free(b_abs);
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY,
                          "xgpu_tune: no memory for the GEMM reference");
    }
    widen(p->in[0], p->dtype, 0, nn, a);
    widen(p->in[1], p->dtype, 0, nn, b);
    for (size_t i = 0; i < nn; i++) {
        b_abs[i] = absd(b[i]);
    }
    for (size_t i0 = 0; i0 < n; i0 += REFERENCE_ROWS) {
        const size_t i1 = n - i0 < REFERENCE_ROWS ? n : i0 + REFERENCE_ROWS;
        for (size_t k = 0; k < n; k++) {
            for (size_t i = i0; i < i1; i++) {
                reference_row(n, a[i * n + k], b + k * n, b_abs + k * n, ref + i * n,
                              scale + i * n);
            }
        }
    }
    free(a);
    free(b);
    free(b_abs);
    free(p->in[0]);
    free(p->in[1]);
    p->in[0] = p->in[1] = NULL;
    p->ref = ref;
    p->scale = scale;
    p->out = malloc(nn * xgpu_dtype_size(p->dtype));
    return p->out ? XGPU_SUCCESS
                  : xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY,
                               "xgpu_tune: no memory for the GEMM result");
}

/* Elements reduce_reference widens at a time (4 KiB of stack). */
#define REFERENCE_BLOCK 512

/* The sum (long double), maximum and first index of the maximum. */
static xgpu_status reduce_reference(xgpu__tune_problem *p) {
    const void *x = p->in[0];
    long double sum = 0, abs_sum = 0;
    double max = -INFINITY;
    size_t at = 0;
    double v[REFERENCE_BLOCK];
    for (size_t i0 = 0; i0 < p->n; i0 += REFERENCE_BLOCK) {
        const size_t m = p->n - i0 < REFERENCE_BLOCK ? p->n - i0 : REFERENCE_BLOCK;
        widen(x, p->dtype, i0, m, v);
        for (size_t j = 0; j < m; j++) {
            sum += v[j];
            abs_sum += absd(v[j]);
            if (v[j] > max) {
                max = v[j];
                at = i0 + j;
            }
        }
    }
    free(p->in[0]);
    p->in[0] = NULL;
    p->ref_sum = (double)sum;
    p->ref_abs = (double)abs_sum;
    p->ref_max = max;
    p->ref_at = at;
    return XGPU_SUCCESS;
}

static size_t cap(size_t want, size_t max_size, const xgpu_device_info *info, int buffers) {
    uint64_t limit = info->max_alloc_bytes ? info->max_alloc_bytes : UINT64_MAX;
    if (info->global_mem_bytes && info->global_mem_bytes / (uint64_t)(buffers + 1) < limit) {
        limit = info->global_mem_bytes / (uint64_t)(buffers + 1);
    }
    if (max_size && max_size < limit) {
        limit = max_size;
    }
    return want < limit ? want : (size_t)limit;
}

/* An empty problem of the kind, on the queue. */
static void start(xgpu__tune_problem *p, xgpu_queue *queue, xgpu__tune_kernel_id id,
                  xgpu_dtype dtype, xgpu__tune_class cls) {
    *p = (xgpu__tune_problem){
        .id = id, .dtype = dtype, .cls = cls, .queue = queue, .ctx = xgpu__queue_context(queue)};
}

xgpu_status xgpu__tune_problem_make(xgpu__tune_problem *p, xgpu_queue *queue,
                                    xgpu__tune_kernel_id id, xgpu_dtype dtype, xgpu__tune_class cls,
                                    size_t max_size, bool *fits) {
    start(p, queue, id, dtype, cls);
    const xgpu_device_info info = *xgpu__context_info(p->ctx);
    size_t elem = xgpu_dtype_size(dtype);
    *fits = false;
    if (id == XGPU__TK_GEMM) {
        size_t n = cls == XGPU__TC_SMALL ? 256 : 1024;
        while (n > 64 && n * n * elem > cap(n * n * elem, max_size, &info, 3)) {
            n /= 2;
        }
        if (xgpu__tune_class_of(id, n * n * n) != cls) {
            return XGPU_SUCCESS;
        }
        p->n = n;
        p->bytes = n * n * elem;
    } else {
        size_t want = cls == XGPU__TC_SMALL ? (size_t)1 << 20 : (size_t)256 << 20;
        if (id == XGPU__TK_STREAM && cls == XGPU__TC_LARGE) {
            want = (size_t)128 << 20;
        }
        p->bytes = cap(want, max_size, &info, id == XGPU__TK_STREAM ? 3 : 1) / elem * elem;
        p->n = p->bytes / elem;
        if (!p->n || xgpu__tune_class_of(id, p->bytes) != cls) {
            return XGPU_SUCCESS;
        }
    }
    *fits = true;
    xgpu_status st = upload(p, 0, p->bytes, 0x9e3779b97f4a7c15ULL);
    if (st == XGPU_SUCCESS && id != XGPU__TK_SUM && id != XGPU__TK_MINMAX &&
        id != XGPU__TK_ARGMAX) {
        st = upload(p, 1, p->bytes, 0xd1b54a32d192ed03ULL);
    }
    if (st == XGPU_SUCCESS) {
        size_t out = id == XGPU__TK_GEMM || id == XGPU__TK_STREAM ? p->bytes : 8;
        st = xgpu_buffer_create(p->ctx, out, &p->buf[2]);
    }
    if (st == XGPU_SUCCESS) {
        st = id == XGPU__TK_GEMM     ? gemm_reference(p)
             : id == XGPU__TK_STREAM ? XGPU_SUCCESS
                                     : reduce_reference(p);
    }
    if (st == XGPU_SUCCESS && id == XGPU__TK_STREAM) {
        /* triad: out = in0 + scalar * in1, checked element by element. */
        p->out = malloc(p->bytes);
        st = p->out ? XGPU_SUCCESS
                    : xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY,
                                 "xgpu_tune: no memory for the stream result");
    }
    if (st != XGPU_SUCCESS) {
        xgpu__tune_problem_free(p);
    }
    return st;
}

xgpu_status xgpu__tune_problem_make_timing(xgpu__tune_problem *p, xgpu_queue *queue,
                                           xgpu_dtype dtype, size_t n, size_t max_size,
                                           bool *fits) {
    start(p, queue, XGPU__TK_GEMM, dtype, XGPU__TC_LARGE);
    size_t bytes = n * n * xgpu_dtype_size(dtype);
    *fits = cap(bytes, max_size, xgpu__context_info(p->ctx), 3) == bytes;
    if (!*fits) {
        return XGPU_SUCCESS;
    }
    p->n = n;
    p->bytes = bytes;
    xgpu_status st = upload(p, 0, bytes, 0x9e3779b97f4a7c15ULL);
    if (st == XGPU_SUCCESS) {
        st = upload(p, 1, bytes, 0xd1b54a32d192ed03ULL);
    }
    if (st == XGPU_SUCCESS) {
        st = xgpu_buffer_create(p->ctx, bytes, &p->buf[2]);
    }
    free(p->in[0]); /* nothing checks the result */
    free(p->in[1]);
    p->in[0] = p->in[1] = NULL;
    if (st != XGPU_SUCCESS) {
        xgpu__tune_problem_free(p);
    }
    return st;
}

double xgpu__tune_problem_work(const xgpu__tune_problem *p) {
    switch (p->id) {
    case XGPU__TK_GEMM:
        return 2.0 * (double)p->n * (double)p->n * (double)p->n;
    case XGPU__TK_STREAM:
        return 3.0 * (double)p->bytes; /* two read, one written */
    default:
        return (double)p->bytes;
    }
}

static xgpu_reduce_op op_of(xgpu__tune_kernel_id id) {
    return id == XGPU__TK_SUM ? XGPU_REDUCE_SUM
                              : (id == XGPU__TK_ARGMAX ? XGPU_REDUCE_ARGMAX : XGPU_REDUCE_MAX);
}

xgpu_status xgpu__tune_problem_run(xgpu__tune_problem *p, const xgpu__tune_values *v) {
    if (p->id == XGPU__TK_GEMM) {
        xgpu_gemm_params params = xgpu__tune_to_gemm(v);
        xgpu_gemm_desc d = {.dtype = p->dtype,
                            .layout = XGPU_ROW_MAJOR,
                            .trans_a = XGPU_NO_TRANS,
                            .trans_b = XGPU_NO_TRANS,
                            .m = p->n,
                            .n = p->n,
                            .k = p->n,
                            .alpha = 1.0,
                            .beta = 0.0,
                            .a = {p->buf[0], 0, p->n},
                            .b = {p->buf[1], 0, p->n},
                            .c = {p->buf[2], 0, p->n},
                            .params = &params};
        return xgpu_gemm(p->queue, &d, NULL);
    }
    if (p->id == XGPU__TK_STREAM) {
        return xgpu__stream_run("xgpu_tune", p->queue, XGPU_STREAM_TRIAD, p->dtype, p->buf[2],
                                p->buf[0], p->buf[1], 0.375, p->n, NULL, v, NULL); /* a = b + s c */
    }
    return xgpu__reduce_run("xgpu_tune", p->queue, op_of(p->id), p->dtype, p->buf[0], 0, p->n,
                            p->buf[2], 0, v, NULL);
}

static bool check_gemm(xgpu__tune_problem *p, char *why, size_t why_size) {
    size_t nn = p->n * p->n;
    /* f16 and bf16 accumulate in fp32 and round C once to their own
     * precision (2^-11, 2^-8 relative). */
    double eps = p->dtype == XGPU_F64 ? 0x1p-52 : 0x1p-23;
    double out_eps = p->dtype == XGPU_F16 ? 0x1p-11 : (p->dtype == XGPU_BF16 ? 0x1p-8 : 0);
    for (size_t i = 0; i < nn; i++) {
        double got = get(p->out, p->dtype, i);
        double tol = (2.0 * (double)p->n * eps + out_eps) * p->scale[i] + 1e-300;
        if (!(absd(got - p->ref[i]) <= tol)) {
            snprintf(why, why_size, "C[%zu][%zu] is %.9g, the reference %.9g", i / p->n, i % p->n,
                     got, p->ref[i]);
            return false;
        }
    }
    return true;
}

static bool check_stream(xgpu__tune_problem *p, char *why, size_t why_size) {
    for (size_t i = 0; i < p->n; i++) {
        double want = get(p->in[0], p->dtype, i) + 0.375 * get(p->in[1], p->dtype, i);
        double got = get(p->out, p->dtype, i);
        if (!(absd(got - want) <= 1e-6 * (absd(want) + 1))) {
            snprintf(why, why_size, "c[%zu] is %.9g, expected %.9g", i, got, want);
            return false;
        }
    }
    return true;
}

static bool check_reduce(xgpu__tune_problem *p, const unsigned char out[8], char *why,
                         size_t why_size) {
    if (p->id == XGPU__TK_ARGMAX) {
        uint64_t at;
        memcpy(&at, out, 8);
        if (at != p->ref_at) {
            snprintf(why, why_size, "argmax is %llu, the reference %zu", (unsigned long long)at,
                     p->ref_at);
            return false;
        }
        return true;
    }
    double got;
    if (p->dtype == XGPU_F64) {
        memcpy(&got, out, 8);
    } else if (p->dtype == XGPU_F32) {
        float f;
        memcpy(&f, out, 4);
        got = f;
    } else if (p->dtype == XGPU_I32 && p->id != XGPU__TK_SUM) {
        int32_t i;
        memcpy(&i, out, 4);
        got = i;
    } else {
        int64_t i;
        memcpy(&i, out, 8);
        got = (double)i;
    }
    double want = p->id == XGPU__TK_SUM ? p->ref_sum : p->ref_max;
    /* Floating-point sums: the error bound of a compensated per-item sum
     * and a tree, (log2 n + 4) eps times the sum of magnitudes. */
    double eps = p->dtype == XGPU_F32 ? 0x1p-24 : (p->dtype == XGPU_F64 ? 0x1p-53 : 0);
    int depth = 4;
    for (size_t m = p->n; m > 1; m >>= 1) {
        depth++;
    }
    double tol = p->id == XGPU__TK_SUM ? depth * eps * p->ref_abs : 0;
    if (p->dtype == XGPU_I64 && p->id == XGPU__TK_SUM) {
        tol = absd(want) * 0x1p-50; /* the reference's double rounding */
    }
    if (!(absd(got - want) <= tol)) {
        snprintf(why, why_size, "%s is %.17g, the reference %.17g",
                 p->id == XGPU__TK_SUM ? "sum" : "max", got, want);
        return false;
    }
    return true;
}

xgpu_status xgpu__tune_problem_check(xgpu__tune_problem *p, const xgpu__tune_values *v, bool *ok,
                                     char *why, size_t why_size) {
    *ok = false;
    /* Poison: NaN bytes (0xff) in the output, so an unwritten result fails. */
    size_t out = p->id == XGPU__TK_GEMM || p->id == XGPU__TK_STREAM ? p->bytes : 8;
    const unsigned char ff = 0xff;
    xgpu_status st = xgpu_buffer_fill(p->queue, p->buf[2], 0, out, &ff, 1, NULL);
    if (st == XGPU_SUCCESS) {
        st = xgpu__tune_problem_run(p, v);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (p->id == XGPU__TK_GEMM || p->id == XGPU__TK_STREAM) {
        st = xgpu_buffer_read(p->queue, p->buf[2], 0, p->out, p->bytes, true, NULL);
        *ok = st == XGPU_SUCCESS && (p->id == XGPU__TK_GEMM ? check_gemm(p, why, why_size)
                                                            : check_stream(p, why, why_size));
        return st;
    }
    unsigned char res[8];
    st = xgpu_buffer_read(p->queue, p->buf[2], 0, res, 8, true, NULL);
    *ok = st == XGPU_SUCCESS && check_reduce(p, res, why, why_size);
    return st;
}
