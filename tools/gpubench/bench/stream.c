/* -b stream: the BabelStream kernels (copy, mul, add, triad, dot) through
 * xgpu_stream on f32 arrays, each result checked element by element
 * against the host's. */
#include "measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct stream_case {
    xgpu_stream_op op;
    xgpu_buffer *a, *b, *c, *out;
    size_t n;
} stream_case;

static int run_stream(gb_env *env, void *arg) {
    stream_case *s = arg;
    return xgpu_stream(env->queue, s->op, XGPU_F32, s->a, s->b, s->c, 0.4, s->n, s->out, NULL) ==
                   XGPU_SUCCESS
               ? 0
               : -1;
}

/* The host's copies of the three arrays, as the kernels should leave them,
 * and `res`, where what a kernel wrote is read back. */
typedef struct stream_host {
    float *a, *b, *c, *res;
} stream_host;

/* BabelStream's order; each kernel is idempotent given the previous ones,
 * so repetitions do not change the expected arrays. */
static const struct {
    xgpu_stream_op op;
    const char *name;
    int arrays;
} stream_ops[] = {{XGPU_STREAM_COPY, "copy", 2},
                  {XGPU_STREAM_MUL, "mul", 2},
                  {XGPU_STREAM_ADD, "add", 3},
                  {XGPU_STREAM_TRIAD, "triad", 3},
                  {XGPU_STREAM_DOT, "dot", 2}};
#define STREAM_SCALAR 0.4f

/* Host and device arrays of s->n floats: a and b pseudo-random in
 * [0.5, 1.5), c zero, written to the device. false when an allocation
 * fails (what was made is released by stream_release). */
static bool stream_setup(gb_env *env, stream_case *s, stream_host *h) {
    size_t n = s->n;
    h->a = malloc(n * 4), h->b = malloc(n * 4), h->c = malloc(n * 4), h->res = malloc(n * 4);
    if (!h->a || !h->b || !h->c || !h->res || xgpu_buffer_create(env->ctx, n * 4, &s->a) ||
        xgpu_buffer_create(env->ctx, n * 4, &s->b) || xgpu_buffer_create(env->ctx, n * 4, &s->c) ||
        xgpu_buffer_create(env->ctx, 8, &s->out)) {
        return false;
    }
    uint32_t seed = 9;
    for (size_t i = 0; i < n; i++) {
        h->a[i] = 0.5f + (float)(gb_rand(&seed) >> 8) / (float)(1 << 24);
        h->b[i] = 0.5f + (float)(gb_rand(&seed) >> 8) / (float)(1 << 24);
        h->c[i] = 0.0f;
    }
    xgpu_buffer_write(env->queue, s->a, 0, h->a, n * 4, true, NULL);
    xgpu_buffer_write(env->queue, s->b, 0, h->b, n * 4, true, NULL);
    xgpu_buffer_write(env->queue, s->c, 0, h->c, n * 4, true, NULL);
    return true;
}

static void stream_release(stream_case *s, stream_host *h) {
    xgpu_buffer_release(s->a);
    xgpu_buffer_release(s->b);
    xgpu_buffer_release(s->c);
    xgpu_buffer_release(s->out);
    free(h->a);
    free(h->b);
    free(h->c);
    free(h->res);
}

/* The host's version of step k on its arrays; for dot, the sum. */
static double stream_host_step(size_t k, stream_host *h, size_t n) {
    double dot = 0;
    for (size_t i = 0; i < n; i++) {
        switch (k) {
        case 0:
            h->c[i] = h->a[i];
            break;
        case 1:
            h->b[i] = STREAM_SCALAR * h->c[i];
            break;
        case 2:
            h->c[i] = h->a[i] + h->b[i];
            break;
        case 3:
            h->a[i] = h->b[i] + STREAM_SCALAR * h->c[i];
            break;
        default:
            dot += (double)h->a[i] * h->b[i];
            break;
        }
    }
    return dot;
}

/* Step k's result against the host's: the array the kernel wrote, element
 * by element, or dot's sum. Sets r->verified and r->max_rel_err. */
static void stream_check(gb_env *env, gb_result *r, const stream_case *s, size_t k, stream_host *h,
                         double dot) {
    size_t n = s->n;
    r->verified = true;
    if (k < 4) {
        const float *want = k == 1 ? h->b : (k == 3 ? h->a : h->c);
        xgpu_buffer *wrote = k == 1 ? s->b : (k == 3 ? s->a : s->c);
        xgpu_buffer_read(env->queue, wrote, 0, h->res, n * 4, true, NULL);
        if (gb_inject("stream")) {
            h->res[n / 2] += 1.0f;
        }
        for (size_t i = 0; i < n; i++) {
            double err = fabs((double)h->res[i] - want[i]) / fabs((double)want[i]);
            if (!(err <= 4e-7)) {
                r->verified = false;
                r->max_rel_err = isnan(err) ? INFINITY : err;
                break;
            }
            r->max_rel_err = err > r->max_rel_err ? err : r->max_rel_err;
        }
    } else {
        float got = 0;
        xgpu_buffer_read(env->queue, s->out, 0, &got, 4, true, NULL);
        if (gb_inject("stream")) {
            got *= 1.01f;
        }
        r->max_rel_err = fabs(got - dot) / fabs(dot);
        r->verified = r->max_rel_err <= 1e-4;
    }
}

void gb_bench_stream(gb_env *env) {
    if (!gb_selected(env->opt->dtypes, "f32")) {
        return; /* the stream kernels run f32 only */
    }
    size_t n = env->opt->size ? (size_t)(env->opt->size * GB_MIB / 4)
                              : (env->opt->full ? (size_t)1 << 26 : (size_t)1 << 24);
    double bytes = (double)n * 4;
    if (!gb_fits(env, bytes)) {
        return;
    }
    stream_case s = {XGPU_STREAM_COPY, NULL, NULL, NULL, NULL, n};
    stream_host h = {NULL, NULL, NULL, NULL};
    if (!stream_setup(env, &s, &h)) {
        goto done;
    }
    for (size_t k = 0; k < sizeof stream_ops / sizeof stream_ops[0]; k++) {
        s.op = stream_ops[k].op;
        char shape[64], what[96];
        gb_shape_mib(shape, sizeof shape, stream_ops[k].name, bytes);
        snprintf(what, sizeof what, "stream %s", shape);
        gb_progress(env, what);
        gb_result *r = gb_add(env, "stream", "xgpu", "f32", shape, bytes);
        if (!r || gb_time_device(env, run_stream, &s, &r->t, &r->first_s) != 0) {
            if (r) {
                snprintf(r->note, sizeof r->note, "%s", xgpu_last_error()->message);
            }
            break; /* later kernels need this one's output */
        }
        gb_set_bandwidth(env, r, bytes * stream_ops[k].arrays);
        double dot = stream_host_step(k, &h, n);
        stream_check(env, r, &s, k, &h, dot);
    }
done:
    stream_release(&s, &h);
}
