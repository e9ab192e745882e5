/* The same matrix product twice: C = A * B in single precision, n x n, once
 * on the host with a plain loop in C and once on the device with
 * xgpu_gemm. The device's C is checked against the host's, and the program
 * prints both times, the speed-up, and what the copies to and from the
 * device cost beside it.
 *
 * Usage: matmul [-d SELECTOR] [N]   (see usage() below)
 * Exit status: 0 verified, 1 a wrong result or an xgpu error, 2 a usage
 * error. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <xgpu.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_N 16384 /* three 1 GiB matrices; the host loop takes hours there */

static void usage(FILE *to) {
    fprintf(to,
            "usage: matmul [-d SELECTOR] [N]\n"
            "\n"
            "Multiplies two random N x N single-precision matrices (default N = 1024,\n"
            "at most %d) on the host with a plain loop and on the device with\n"
            "xgpu_gemm, checks the device's result against the host's, and prints\n"
            "both times, the speed-up and the cost of the copies to and from the\n"
            "device.\n"
            "\n"
            "  -d SELECTOR  the device, as gpuinfo -d takes it (0, opencl:0, cuda, a PCI\n"
            "               bus id or a UUID); default: device 0\n"
            "  -h, --help   this text\n"
            "\n"
            "Exit status: 0 when the result verified, 1 when it did not or xgpu\n"
            "failed, 2 on a usage error.\n",
            MAX_N);
}

/* Prints what went wrong, from xgpu's own description of the failure. */
static bool failed(xgpu_status status, const char *what) {
    if (status == XGPU_SUCCESS) {
        return false;
    }
    const xgpu_error_info *e = xgpu_last_error();
    fprintf(stderr, "matmul: %s: %s: %s", what, xgpu_status_name(status), e->message);
    if (e->native_name) {
        fprintf(stderr, " (%s %s)", e->backend ? e->backend : "backend", e->native_name);
    }
    fprintf(stderr, "\n");
    return true;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Uniform in [-1, 1]: random signs, so a missed term or a wrong index
 * shows, and never a matrix of zeros that any product would match. */
static void fill_random(float *x, size_t count, unsigned seed) {
    srand(seed);
    for (size_t i = 0; i < count; i++) {
        x[i] = (float)rand() / ((float)RAND_MAX + 1.0f) * 2.0f - 1.0f;
    }
}

/* C = A * B, row-major, in the i-p-j order that walks B and C along rows.
 * Each C element is summed in float, term by term. */
static void host_matmul(size_t n, const float *a, const float *b, float *c) {
    for (size_t i = 0; i < n; i++) {
        float *ci = c + i * n;
        for (size_t j = 0; j < n; j++) {
            ci[j] = 0.0f;
        }
        for (size_t p = 0; p < n; p++) {
            const float aip = a[i * n + p];
            const float *bp = b + p * n;
            for (size_t j = 0; j < n; j++) {
                ci[j] += aip * bp[j];
            }
        }
    }
}

/* Device times, in milliseconds, from events around the enqueued work. */
typedef struct timings {
    double first_ms; /* the first xgpu_gemm, host clock: builds the kernel */
    double gemm_ms;  /* the second, timed by events */
    double h2d_ms;   /* A and B to the device */
    double d2h_ms;   /* C back */
} timings;

/* Copies A and B to the device, multiplies there and copies C back into
 * c. The first xgpu_gemm builds the GEMM kernel (or loads it from the
 * kernel cache); the second, on a freshly poisoned C, is the one timed and
 * the one whose result comes back. */
static bool device_matmul(xgpu_device *dev, size_t n, const float *a, const float *b, float *c,
                          timings *t) {
    const size_t bytes = n * n * sizeof(float);
    const float nan = NAN;
    bool ok = false;
    xgpu_context *ctx = NULL;
    xgpu_queue *q = NULL;
    xgpu_buffer *da = NULL, *db = NULL, *dc = NULL;
    xgpu_event *e[6] = {NULL};
    if (failed(xgpu_context_create(dev, &ctx), "creating a context") ||
        failed(xgpu_queue_create(ctx, &q), "creating a queue") ||
        failed(xgpu_buffer_create(ctx, bytes, &da), "allocating A") ||
        failed(xgpu_buffer_create(ctx, bytes, &db), "allocating B") ||
        failed(xgpu_buffer_create(ctx, bytes, &dc), "allocating C")) {
        goto done;
    }
    /* Host to device: both copies between two events. */
    if (failed(xgpu_queue_record_event(q, &e[0]), "recording an event") ||
        failed(xgpu_buffer_write(q, da, 0, a, bytes, false, NULL), "copying A") ||
        failed(xgpu_buffer_write(q, db, 0, b, bytes, false, &e[1]), "copying B")) {
        goto done;
    }
    /* Row-major C = 1 * A * B + 0 * C: beta 0, so C is not read. */
    xgpu_gemm_desc g = {
        .dtype = XGPU_F32,
        .layout = XGPU_ROW_MAJOR,
        .trans_a = XGPU_NO_TRANS,
        .trans_b = XGPU_NO_TRANS,
        .m = n,
        .n = n,
        .k = n,
        .alpha = 1.0,
        .beta = 0.0,
        .a = {da, 0, n}, /* buffer, offset and leading dimension, in elements */
        .b = {db, 0, n},
        .c = {dc, 0, n},
        .params = NULL, /* the tuned or built-in parameters for this device */
    };
    double t0 = now_ms();
    if (failed(xgpu_gemm(q, &g, NULL), "xgpu_gemm (first call)") ||
        failed(xgpu_queue_finish(q), "waiting for the first xgpu_gemm")) {
        goto done;
    }
    t->first_ms = now_ms() - t0;
    /* Poison C: an element the timed run fails to write stays NaN. */
    if (failed(xgpu_buffer_fill(q, dc, 0, bytes, &nan, sizeof nan, NULL), "poisoning C") ||
        failed(xgpu_queue_record_event(q, &e[2]), "recording an event") ||
        failed(xgpu_gemm(q, &g, &e[3]), "xgpu_gemm") ||
        failed(xgpu_queue_record_event(q, &e[4]), "recording an event") ||
        failed(xgpu_buffer_read(q, dc, 0, c, bytes, true, &e[5]), "copying C back")) {
        goto done;
    }
    if (failed(xgpu_event_elapsed_ms(e[0], e[1], &t->h2d_ms), "timing the copies in") ||
        failed(xgpu_event_elapsed_ms(e[2], e[3], &t->gemm_ms), "timing xgpu_gemm") ||
        failed(xgpu_event_elapsed_ms(e[4], e[5], &t->d2h_ms), "timing the copy back")) {
        goto done;
    }
    ok = true;
done:
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
        xgpu_event_release(e[i]);
    }
    xgpu_buffer_release(da);
    xgpu_buffer_release(db);
    xgpu_buffer_release(dc);
    xgpu_queue_release(q);
    if (failed(xgpu_context_release(ctx), "releasing the context")) {
        ok = false;
    }
    return ok;
}

/* Compares the device's C with the host's, in double. Both sum n products
 * in float, in different orders; each is within gamma_n * sum_p |a_ip b_pj|
 * of the exact value, gamma_n = n u / (1 - n u) with u = 2^-24 (Higham,
 * "Accuracy and Stability of Numerical Algorithms", 3.1), so they may differ
 * by twice that. sum_p |a_ip b_pj| <= max_p |a_ip| * sum_p |b_pj| bounds it
 * in O(n^2). A missed term or tile errs by about |a b| sqrt(terms), far
 * above the bound for any n this program takes; NaN (the poison) fails. */
static size_t check_result(size_t n, const float *a, const float *b, const float *host,
                           const float *dev, double *max_err, double *max_ratio) {
    const double u = FLT_EPSILON / 2;
    const double gamma = (double)n * u / (1.0 - (double)n * u);
    double *col_sum = calloc(n, sizeof *col_sum);
    size_t bad = 0;
    *max_err = 0;
    *max_ratio = 0;
    if (!col_sum) {
        fprintf(stderr, "matmul: out of host memory for the check\n");
        return n * n;
    }
    for (size_t p = 0; p < n; p++) {
        for (size_t j = 0; j < n; j++) {
            col_sum[j] += fabs((double)b[p * n + j]);
        }
    }
    for (size_t i = 0; i < n; i++) {
        double row_max = 0;
        for (size_t p = 0; p < n; p++) {
            row_max = fmax(row_max, fabs((double)a[i * n + p]));
        }
        for (size_t j = 0; j < n; j++) {
            double err = fabs((double)dev[i * n + j] - (double)host[i * n + j]);
            double tol = 2.0 * gamma * row_max * col_sum[j];
            if (!(err <= tol)) { /* NaN fails too */
                if (bad++ < 5) {
                    fprintf(stderr, "matmul: C[%zu][%zu] = %.9g on the device, %.9g on the host\n",
                            i, j, (double)dev[i * n + j], (double)host[i * n + j]);
                }
            }
            *max_err = isnan(err) ? INFINITY : fmax(*max_err, err);
            *max_ratio = isnan(err) ? INFINITY : fmax(*max_ratio, tol > 0 ? err / tol : 0.0);
        }
    }
    free(col_sum);
    return bad;
}

int main(int argc, char **argv) {
    const char *selector = NULL;
    unsigned long n_arg = 1024;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "-d")) {
            if (i + 1 == argc) {
                fprintf(stderr, "matmul: -d needs a device selector\n");
                return 2;
            }
            selector = argv[++i];
            continue;
        }
        char *end = NULL;
        unsigned long v = strtoul(argv[i], &end, 10);
        if (argv[i][0] < '0' || argv[i][0] > '9' || *end || v < 1 || v > MAX_N) {
            fprintf(stderr, "matmul: %s: neither an option nor a size in 1..%d\n", argv[i], MAX_N);
            usage(stderr);
            return 2;
        }
        n_arg = v;
    }
    const size_t n = n_arg, count = n * n;
    const double flop = 2.0 * (double)n * (double)n * (double)n;
    int rc = 1;
    float *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b);
    float *host = malloc(count * sizeof *host), *dev = malloc(count * sizeof *dev);
    if (!a || !b || !host || !dev) {
        fprintf(stderr, "matmul: out of host memory for four %zu x %zu matrices\n", n, n);
        goto done;
    }
    fill_random(a, count, 1);
    fill_random(b, count, 2);
    for (size_t i = 0; i < count; i++) {
        dev[i] = NAN; /* the host's copy is poisoned too: C must come back */
    }

    xgpu_device *device = NULL;
    xgpu_device_info info;
    if (failed(selector ? xgpu_device_select(selector, &device) : xgpu_device_get(0, &device),
               "choosing the device") ||
        failed(xgpu_device_get_info(device, &info, sizeof info), "reading the device's info")) {
        goto done;
    }
    printf("matmul: C = A * B, %zu x %zu, single precision, on %s:%u (%s)\n", n, n, info.backend,
           info.backend_index, info.name);

    double t0 = now_ms();
    host_matmul(n, a, b, host);
    double host_ms = now_ms() - t0;

    timings t = {0};
    if (!device_matmul(device, n, a, b, dev, &t)) {
        goto done;
    }
    double copies_ms = t.h2d_ms + t.d2h_ms;
    printf("host      %10.3f ms  %8.2f GFLOP/s  a plain loop in C, one thread\n", host_ms,
           flop / (host_ms * 1e6));
    printf("device    %10.3f ms  %8.2f GFLOP/s  xgpu_gemm (its first call: %.3f ms, the kernel "
           "build or cache load included)\n",
           t.gemm_ms, t.gemm_ms > 0 ? flop / (t.gemm_ms * 1e6) : 0.0, t.first_ms);
    printf("copies    %10.3f ms  A and B in %.3f ms, C back in %.3f ms (%.1f MiB, pageable)\n",
           copies_ms, t.h2d_ms, t.d2h_ms, 3.0 * (double)(count * sizeof(float)) / 1048576.0);
    printf("speed-up  %10.2fx    the product alone; %.2fx with the copies\n",
           t.gemm_ms > 0 ? host_ms / t.gemm_ms : 0.0,
           t.gemm_ms + copies_ms > 0 ? host_ms / (t.gemm_ms + copies_ms) : 0.0);

    double max_err = 0, max_ratio = 0;
    size_t bad = check_result(n, a, b, host, dev, &max_err, &max_ratio);
    printf("check     max |device - host| = %.3g, %.3g of its bound at worst; %zu of %zu "
           "elements outside the bound: %s\n",
           max_err, max_ratio, bad, count, bad ? "FAILED" : "verified");
    rc = bad ? 1 : 0;
done:
    free(a);
    free(b);
    free(host);
    free(dev);
    return rc;
}
