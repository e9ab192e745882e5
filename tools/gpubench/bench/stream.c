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

/* BabelStream's order. A run of the five from stream_reset's arrays is
 * what is checked; the timed rounds run them in this order too (each
 * round changes the arrays, a shrinking by 0.96, as in BabelStream). */
static const struct {
    xgpu_stream_op op;
    const char *name;
    int arrays;
} stream_ops[] = {{XGPU_STREAM_COPY, "copy", 2},
                  {XGPU_STREAM_MUL, "mul", 2},
                  {XGPU_STREAM_ADD, "add", 3},
                  {XGPU_STREAM_TRIAD, "triad", 3},
                  {XGPU_STREAM_DOT, "dot", 2}};
enum { STREAM_OPS = sizeof stream_ops / sizeof stream_ops[0] };
#define STREAM_SCALAR 0.4f

/* a and b pseudo-random in [0.5, 1.5), c zero, on the host and written to
 * the device, dot's output poisoned (a NaN): the arrays a run of the
 * kernels in BabelStream's order starts from. */
static bool stream_reset(gb_env *env, stream_case *s, stream_host *h) {
    size_t n = s->n;
    uint32_t seed = 9, poison = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        h->a[i] = 0.5f + (float)(gb_rand(&seed) >> 8) / (float)(1 << 24);
        h->b[i] = 0.5f + (float)(gb_rand(&seed) >> 8) / (float)(1 << 24);
        h->c[i] = 0.0f;
    }
    return xgpu_buffer_write(env->queue, s->a, 0, h->a, n * 4, true, NULL) == XGPU_SUCCESS &&
           xgpu_buffer_write(env->queue, s->b, 0, h->b, n * 4, true, NULL) == XGPU_SUCCESS &&
           xgpu_buffer_write(env->queue, s->c, 0, h->c, n * 4, true, NULL) == XGPU_SUCCESS &&
           xgpu_buffer_fill(env->queue, s->out, 0, 8, &poison, 4, NULL) == XGPU_SUCCESS;
}

/* Host and device arrays of s->n floats, reset. false when an allocation
 * fails (what was made is released by stream_release). */
static bool stream_setup(gb_env *env, stream_case *s, stream_host *h) {
    size_t n = s->n;
    h->a = malloc(n * 4), h->b = malloc(n * 4), h->c = malloc(n * 4), h->res = malloc(n * 4);
    if (!h->a || !h->b || !h->c || !h->res || xgpu_buffer_create(env->ctx, n * 4, &s->a) ||
        xgpu_buffer_create(env->ctx, n * 4, &s->b) || xgpu_buffer_create(env->ctx, n * 4, &s->c) ||
        xgpu_buffer_create(env->ctx, 8, &s->out)) {
        return false;
    }
    return stream_reset(env, s, h);
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
    stream_case s = {XGPU_STREAM_COPY, NULL, NULL, NULL, NULL, n}, ops[STREAM_OPS];
    stream_host h = {NULL, NULL, NULL, NULL};
    if (!stream_setup(env, &s, &h)) {
        goto done;
    }
    /* The five kernels timed in the same rounds, in BabelStream's order,
     * so that their ratios hold while the device's bandwidth moves. */
    gb_result *rows[STREAM_OPS];
    gb_timed timed[STREAM_OPS];
    size_t count = 0;
    char shape[64], what[128];
    gb_shape_mib(shape, sizeof shape, "", bytes);
    snprintf(what, sizeof what, "stream %s: copy, mul, add, triad, dot", shape);
    gb_progress(env, what);
    for (size_t k = 0; k < STREAM_OPS; k++) {
        gb_shape_mib(shape, sizeof shape, stream_ops[k].name, bytes);
        rows[k] = gb_add(env, "stream", "xgpu", "f32", shape, bytes);
        if (!rows[k]) {
            break; /* later kernels need this one's output */
        }
        ops[k] = s;
        ops[k].op = stream_ops[k].op;
        timed[count++] = (gb_timed){
            .fn = run_stream, .arg = &ops[k], .st = &rows[k]->t, .first_s = &rows[k]->first_s};
    }
    gb_time_rounds(env, timed, count);
    /* The check: one run of the five from fresh arrays, each against the
     * host's step. */
    if (!stream_reset(env, &s, &h)) {
        for (size_t k = 0; k < count; k++) {
            snprintf(rows[k]->note, sizeof rows[k]->note, "not checked: %s",
                     xgpu_last_error()->message);
        }
        goto done;
    }
    for (size_t k = 0; k < count; k++) {
        gb_result *r = rows[k];
        if (timed[k].rc || run_stream(env, &ops[k]) != 0) {
            snprintf(r->note, sizeof r->note, "%s",
                     timed[k].rc ? timed[k].why : xgpu_last_error()->message);
            break; /* later kernels need this one's output */
        }
        gb_set_bandwidth(env, r, bytes * stream_ops[k].arrays);
        double dot = stream_host_step(k, &h, n);
        stream_check(env, r, &s, k, &h, dot);
    }
done:
    stream_release(&s, &h);
}
