/* -b reduce: xgpu_reduce's sum of f32, f64 and i32 beside a device-to-device
 * copy of the same bytes (its ceiling), min, max and argmax of the f32
 * input, and clpeak's global bandwidth on an OpenCL device. Every result is
 * checked against the host's. */
#include "measure.h"
#include "peers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct reduce_case {
    xgpu_dtype dtype;
    xgpu_buffer *in, *out;
    size_t n;
    xgpu_reduce_op op; /* 0: the sum */
} reduce_case;

static int run_reduce(gb_env *env, void *arg) {
    reduce_case *c = arg;
    xgpu_reduce_op op = c->op ? c->op : XGPU_REDUCE_SUM;
    return xgpu_reduce(env->queue, op, c->dtype, c->in, 0, c->n, c->out, 0, NULL) == XGPU_SUCCESS
               ? 0
               : -1;
}

/* The device-to-device copy of a reduction's input, the ceiling a sum is
 * read against: its bandwidth counts the bytes read and written. */
typedef struct copy_case {
    xgpu_buffer *src, *dst;
    size_t bytes;
} copy_case;

static int run_copy(gb_env *env, void *arg) {
    copy_case *c = arg;
    return xgpu_buffer_copy(env->queue, c->src, 0, c->dst, 0, c->bytes, NULL) == XGPU_SUCCESS ? 0
                                                                                              : -1;
}

/* clpeak's global-memory bandwidth on the same OpenCL device, the
 * reference the reductions are read against, read before them and, when
 * they took longer than CLPEAK_AGAIN_S, after them too: on a host whose
 * memory other tenants share the two readings can differ by half (34 and
 * 50 GB/s on pocl, 2 cores of an AMD EPYC), and a reading taken once says
 * nothing of that. */
#define CLPEAK_AGAIN_S 2.0
#define CLPEAK_NOTE "clpeak --global-bandwidth, best float vector width"

typedef struct clpeak_reading {
    gb_result *row; /* NULL: not an OpenCL device, or out of memory */
    double before, seconds, ended;
} clpeak_reading;

static double clpeak_once(gb_env *env, char *why, size_t why_size, double *seconds) {
    gb_progress(env, "clpeak --global-bandwidth");
    double t0 = gb_now();
    double gbs = peer_clpeak_bandwidth(env->info.name, why, why_size);
    *seconds = gb_now() - t0;
    return gbs;
}

static clpeak_reading clpeak_before(gb_env *env) {
    clpeak_reading c = {0};
    if (strcmp(env->info.backend, "opencl") != 0) {
        return c;
    }
    char why[200] = "";
    c.before = clpeak_once(env, why, sizeof why, &c.seconds);
    c.ended = gb_now();
    c.row = gb_add(env, "reduce", "clpeak", "f32", "global bandwidth", 0);
    if (!c.row) {
        return c;
    }
    c.row->unit = "GB/s";
    c.row->verified = true; /* clpeak's own figure: nothing of ours to check */
    c.row->rate = -1;
    snprintf(c.row->note, sizeof c.row->note, "%s", why);
    return c;
}

/* The row's figure: the higher of the two readings (clpeak's own
 * repetitions, not timed here). */
static void clpeak_after(gb_env *env, const clpeak_reading *c) {
    gb_result *r = c->row;
    if (!r || c->before <= 0) {
        return;
    }
    r->rate = c->before;
    if (gb_now() - c->ended <= CLPEAK_AGAIN_S) {
        snprintf(r->note, sizeof r->note, CLPEAK_NOTE " (ran %.1f s)", c->seconds);
        return;
    }
    char why[200] = "";
    double seconds = 0, after = clpeak_once(env, why, sizeof why, &seconds);
    r->rate = after > c->before ? after : c->before;
    if (after <= 0) {
        snprintf(r->note, sizeof r->note,
                 CLPEAK_NOTE ": %.1f GB/s before the reductions (ran %.1f s); after them: %s",
                 c->before, c->seconds, why);
        return;
    }
    double low = after < c->before ? after : c->before;
    int moved = (int)lround(100.0 * (r->rate - low) / low);
    char tail[160] = "";
    if (moved > 15) {
        snprintf(tail, sizeof tail,
                 "; the two differ by %d%%: the device's bandwidth moved during this run, so "
                 "ratios to this row say little",
                 moved);
    }
    snprintf(r->note, sizeof r->note,
             CLPEAK_NOTE ": %.1f GB/s before the reductions, %.1f after (ran %.1f s and %.1f s)%s",
             c->before, after, c->seconds, seconds, tail);
}

/* Each verified sum among the rows from `first` on says its rate over
 * clpeak's figure (the row's, the higher of its readings), the reference
 * the sums are held to; nothing when clpeak gave no figure. */
static void sums_against_clpeak(gb_env *env, size_t first, const clpeak_reading *c) {
    if (!c->row || c->row->rate <= 0) {
        return;
    }
    for (size_t i = first; i < env->results.count; i++) {
        gb_result *r = env->results.rows[i];
        if (!r->verified || !r->kernel || strcmp(r->kernel, "sum") != 0) {
            continue; /* clpeak's own row, the copy, min, max, argmax */
        }
        size_t len = strlen(r->note);
        snprintf(r->note + len, sizeof r->note - len, "%s%.2fx clpeak's %.1f GB/s", len ? "; " : "",
                 r->rate / c->row->rate, c->row->rate);
    }
}

/* The host's view of a reduction's input: its compensated sum, the sum of
 * magnitudes (the tolerance's scale), and the extremes. */
typedef struct reduce_ref {
    double sum, sum_abs, lo, hi;
    size_t max_at; /* the first index of the largest value */
} reduce_ref;

/* n pseudo-random elements of dt into h (i32 in [-1000, 1000], floats in
 * [0, 1)), and what the host makes of them. */
static void fill_input(xgpu_dtype dt, unsigned char *h, size_t n, reduce_ref *ref) {
    size_t elem = xgpu_dtype_size(dt);
    uint32_t seed = 5;
    double sum = 0, comp = 0, sum_abs = 0, lo = INFINITY, hi = -INFINITY;
    size_t max_at = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = gb_rand(&seed);
        double v;
        if (dt == XGPU_I32) {
            int32_t x = (int32_t)(r % 2001) - 1000;
            memcpy(h + i * elem, &x, 4);
            v = x;
        } else {
            v = (double)(r >> 8) / (1 << 24);
            if (dt == XGPU_F32) {
                float f = (float)v;
                memcpy(h + i * elem, &f, 4);
                v = f;
            } else {
                memcpy(h + i * elem, &v, 8);
            }
        }
        if (v > hi) {
            hi = v;
            max_at = i;
        }
        lo = v < lo ? v : lo;
        double y = v - comp, u = sum + y;
        comp = (u - sum) - y;
        sum = u;
        sum_abs += fabs(v);
    }
    *ref = (reduce_ref){sum, sum_abs, lo, hi, max_at};
}

/* One size of one dtype: its cases (the sum; for f32 also the copy of the
 * same bytes, min, max and argmax), their rows and what they run on. */
enum { CASE_SUM, CASE_COPY, CASE_MIN, CASE_MAX, CASE_ARGMAX, CASES };
#define DTYPES_MAX 3 /* f32, f64, i32 */

typedef struct size_run {
    reduce_case red[CASES]; /* CASE_COPY's unused */
    copy_case copy;         /* dst: f32 only */
    gb_result *row[CASES];  /* NULL: not run */
    reduce_ref ref;
    unsigned char *host; /* f32 only: what the copy is checked against */
} size_run;

static const char *const case_names[CASES] = {"", "d2d copy", "min", "max", "argmax"};
/* The library kernel each case times, as xgpu_tune names it (min and max
 * share one); NULL for the copy. */
static const char *const case_kernels[CASES] = {"sum", NULL, "minmax", "minmax", "argmax"};
static const xgpu_reduce_op case_ops[CASES] = {XGPU_REDUCE_SUM, 0, XGPU_REDUCE_MIN, XGPU_REDUCE_MAX,
                                               XGPU_REDUCE_ARGMAX};

/* The cases of one dtype: the sum, and with f32 the others. */
static int cases_of(xgpu_dtype dt) {
    return dt == XGPU_F32 ? CASES : 1;
}

/* One dtype's input at one size on the device, and every buffer its cases
 * write (outputs poisoned: all ones, a NaN or an index past the end);
 * false when something cannot be made (size_close releases what was). */
static bool size_open(gb_env *env, size_run *z, xgpu_dtype dt, double bytes) {
    size_t elem = xgpu_dtype_size(dt), n = (size_t)bytes / elem;
    *z = (size_run){0};
    unsigned char *h = malloc(n * elem);
    z->host = h;
    xgpu_buffer *in = NULL;
    if (!h || xgpu_buffer_create(env->ctx, n * elem, &in)) {
        return false;
    }
    z->copy = (copy_case){in, NULL, n * elem};
    uint32_t poison = 0xffffffffu;
    for (int k = 0; k < cases_of(dt); k++) {
        z->red[k] = (reduce_case){dt, in, NULL, n, case_ops[k]};
        xgpu_status st = k == CASE_COPY ? xgpu_buffer_create(env->ctx, n * elem, &z->copy.dst)
                                        : xgpu_buffer_create(env->ctx, 8, &z->red[k].out);
        if (st == XGPU_SUCCESS && k != CASE_COPY) {
            st = xgpu_buffer_fill(env->queue, z->red[k].out, 0, 8, &poison, 4, NULL);
        }
        if (st != XGPU_SUCCESS) {
            return false;
        }
    }
    fill_input(dt, h, n, &z->ref);
    if (xgpu_buffer_write(env->queue, in, 0, h, n * elem, true, NULL) != XGPU_SUCCESS) {
        return false;
    }
    if (dt != XGPU_F32) { /* a sum is checked against z->ref alone */
        free(z->host);
        z->host = NULL;
    }
    return true;
}

static void size_close(size_run *z) {
    for (int k = 0; k < CASES; k++) {
        xgpu_buffer_release(z->red[k].out);
    }
    xgpu_buffer_release(z->copy.dst);
    xgpu_buffer_release(z->copy.src);
    free(z->host);
    *z = (size_run){0};
}

/* Case k's row, and how to time it into *t; false when no row could be
 * added. */
static bool add_case(gb_env *env, size_run *z, int k, double bytes, gb_timed *t) {
    char shape[64];
    gb_shape_mib(shape, sizeof shape, case_names[k], bytes);
    xgpu_dtype dt = z->red[CASE_SUM].dtype;
    gb_result *r =
        gb_add(env, "reduce", "xgpu", k == CASE_COPY ? "u8" : xgpu_dtype_name(dt), shape, bytes);
    if (!r) {
        return false;
    }
    z->row[k] = r;
    r->kernel = case_kernels[k];
    if (k == CASE_COPY) {
        *t = (gb_timed){.fn = run_copy, .arg = &z->copy, .st = &r->t, .first_s = &r->first_s};
    } else {
        /* A tune at first use runs in the case's first run. */
        gb_note_tune_before(env, r, r->kernel, k == CASE_SUM ? dt : XGPU_F32, (size_t)bytes);
        *t = (gb_timed){.fn = run_reduce, .arg = &z->red[k], .st = &r->t, .first_s = &r->first_s};
    }
    return true;
}

/* The 8 bytes a reduction wrote; false (the row's note says why) when
 * they cannot be read. */
static bool read_result(gb_env *env, const reduce_case *c, gb_result *r, unsigned char res[8]) {
    if (xgpu_buffer_read(env->queue, c->out, 0, res, 8, true, NULL) != XGPU_SUCCESS) {
        snprintf(r->note, sizeof r->note, "not checked: %s", xgpu_last_error()->message);
        return false;
    }
    return true;
}

/* The sum the device wrote, as a double (i64 for i32 input). */
static double sum_value(xgpu_dtype dt, const unsigned char res[8]) {
    if (dt == XGPU_I32) {
        int64_t g;
        memcpy(&g, res, 8);
        return (double)g;
    }
    if (dt == XGPU_F32) {
        float g;
        memcpy(&g, res, 4);
        return g;
    }
    double g;
    memcpy(&g, res, 8);
    return g;
}

/* Whether the copy wrote every byte of its input; the row's note says
 * why when it could not be checked. */
static bool check_copy(gb_env *env, const size_run *z, gb_result *r) {
    unsigned char *back = malloc(z->copy.bytes);
    if (!back) {
        snprintf(r->note, sizeof r->note, "not checked: out of host memory");
        return false;
    }
    bool ok = false;
    if (xgpu_buffer_read(env->queue, z->copy.dst, 0, back, z->copy.bytes, true, NULL) !=
        XGPU_SUCCESS) {
        snprintf(r->note, sizeof r->note, "not checked: %s", xgpu_last_error()->message);
    } else {
        ok = memcmp(back, z->host, z->copy.bytes) == 0;
        snprintf(r->note, sizeof r->note, "xgpu_buffer_copy; bytes read plus bytes written");
    }
    free(back);
    return ok;
}

/* Whether case k (timed, rc 0) gave the host's answer: the sum within the
 * error bound of a tree of log2(n) levels, min and max exactly, argmax the
 * first index of the largest value, the copy every byte. */
static bool check_case(gb_env *env, size_run *z, int k) {
    const reduce_case *c = &z->red[k];
    gb_result *r = z->row[k];
    if (k == CASE_COPY) {
        return check_copy(env, z, r);
    }
    unsigned char res[8];
    if (!read_result(env, c, r, res)) {
        return false;
    }
    if (k == CASE_SUM) {
        double got = sum_value(c->dtype, res);
        if (gb_inject("reduce")) {
            got += 1.0 + fabs(got) * 0.01;
        }
        double eps = c->dtype == XGPU_F32 ? 0x1p-24 : 0x1p-53;
        double tol = c->dtype == XGPU_I32 ? 0 : (log2((double)c->n) + 4) * eps * z->ref.sum_abs;
        r->max_rel_err = fabs(got - z->ref.sum) / (fabs(z->ref.sum) > 0 ? fabs(z->ref.sum) : 1);
        return fabs(got - z->ref.sum) <= tol;
    }
    if (k == CASE_ARGMAX) {
        uint64_t got;
        memcpy(&got, res, 8);
        return got == z->ref.max_at;
    }
    float got;
    memcpy(&got, res, 4);
    return got == (float)(k == CASE_MIN ? z->ref.lo : z->ref.hi);
}

/* The notes of one dtype's rows once they are checked: the sum's ratio to
 * the copy timed beside it (f32's), the others' time over the sum's. */
static void size_notes(gb_env *env, size_run *z, const gb_result *copy) {
    gb_result *sum = z->row[CASE_SUM];
    xgpu_dtype dt = z->red[CASE_SUM].dtype;
    size_t bytes = z->copy.bytes;
    if (sum && sum->verified && copy && copy->verified) {
        snprintf(sum->note, sizeof sum->note, "%.2fx the device-to-device copy's %.1f GB/s",
                 sum->rate / copy->rate, copy->rate);
    }
    if (sum && sum->verified) {
        gb_note_params(env, sum, sum->kernel, dt, bytes);
    }
    for (int k = CASE_MIN; k < CASES; k++) {
        gb_result *r = z->row[k];
        if (r && r->verified && sum && sum->verified) {
            snprintf(r->note, sizeof r->note, "%.2fx the sum's time", r->t.median / sum->t.median);
        }
        if (r && r->verified) {
            gb_note_params(env, r, r->kernel, XGPU_F32, bytes);
        }
    }
}

/* One size: the sums of the nz dtypes opened in zs, and with f32 the copy
 * of the same bytes and min, max and argmax, all timed in the same rounds
 * (gb_time_rounds), so that each sum's ratio to the copy and the others'
 * to the f32 sum hold on a device or host whose bandwidth moves during
 * the run. */
static void time_size(gb_env *env, size_run *zs, int nz, double bytes) {
    gb_timed timed[DTYPES_MAX * CASES]; /* contiguous, for gb_time_rounds */
    struct {
        size_run *z;
        int k;
    } at[DTYPES_MAX * CASES]; /* whose each of timed is */
    int count = 0;
    char shape[64], what[128];
    gb_shape_mib(shape, sizeof shape, "", bytes);
    int used = snprintf(what, sizeof what, "reduce %s:", shape);
    for (int j = 0; j < nz && used > 0 && (size_t)used < sizeof what; j++) {
        xgpu_dtype dt = zs[j].red[CASE_SUM].dtype;
        used += snprintf(what + used, sizeof what - (size_t)used, " %s%s", xgpu_dtype_name(dt),
                         dt == XGPU_F32 ? " (sum, copy, min, max, argmax)" : " sum");
        for (int k = 0; k < cases_of(dt); k++) {
            if (add_case(env, &zs[j], k, bytes, &timed[count])) {
                at[count].z = &zs[j];
                at[count++].k = k;
            }
        }
    }
    gb_progress(env, what);
    gb_time_rounds(env, timed, (size_t)count);
    const gb_result *copy = NULL;
    for (int i = 0; i < count; i++) {
        size_run *z = at[i].z;
        gb_result *r = z->row[at[i].k];
        if (timed[i].rc) {
            snprintf(r->note, sizeof r->note, "%s", timed[i].why);
            continue;
        }
        gb_set_bandwidth(env, r, at[i].k == CASE_COPY ? 2.0 * bytes : bytes);
        r->verified = check_case(env, z, at[i].k);
        copy = at[i].k == CASE_COPY ? r : copy;
    }
    for (int j = 0; j < nz; j++) {
        size_notes(env, &zs[j], copy);
    }
}

/* One dtype alone at one size (a row saying why when it cannot run). */
static void one_dtype(gb_env *env, xgpu_dtype dt, double bytes) {
    size_run z;
    if (size_open(env, &z, dt, bytes)) {
        time_size(env, &z, 1, bytes);
    } else {
        fprintf(stderr, "gpubench: reduce %s %.0f MiB: not run: %s\n", xgpu_dtype_name(dt),
                bytes / GB_MIB, z.host ? xgpu_last_error()->message : "out of host memory");
    }
    size_close(&z);
}

/* The dtypes at one size side by side where their inputs and the copy's
 * output take at most half the device's memory (buffers may be placed
 * only when first used, so a creation that succeeds says little), each
 * alone otherwise, and each alone after the others when its buffers
 * cannot be made beside theirs. */
static void one_size(gb_env *env, const xgpu_dtype *dts, int ndt, double bytes) {
    uint64_t mem = env->info.global_mem_bytes;
    if (ndt < 2 || (mem && bytes * (ndt + 1) > 0.5 * (double)mem)) {
        for (int t = 0; t < ndt; t++) {
            one_dtype(env, dts[t], bytes);
        }
        return;
    }
    size_run zs[DTYPES_MAX];
    xgpu_dtype later[DTYPES_MAX];
    int nz = 0, nlater = 0;
    for (int t = 0; t < ndt; t++) {
        if (size_open(env, &zs[nz], dts[t], bytes)) {
            nz++;
        } else {
            size_close(&zs[nz]);
            later[nlater++] = dts[t];
        }
    }
    if (nz) {
        time_size(env, zs, nz, bytes);
    }
    for (int j = 0; j < nz; j++) {
        size_close(&zs[j]);
    }
    for (int t = 0; t < nlater; t++) {
        one_dtype(env, later[t], bytes);
    }
}

void gb_bench_reduce(gb_env *env) {
    static const double quick[] = {1, 64, 256}, full[] = {1, 4, 16, 64, 256, 1024};
    const double *mib = env->opt->full ? full : quick;
    size_t count = env->opt->full ? 6 : 3;
    double one = (double)env->opt->size;
    if (env->opt->size) {
        mib = &one;
        count = 1;
    }
    static const xgpu_dtype types[] = {XGPU_F32, XGPU_F64, XGPU_I32};
    xgpu_dtype dts[3];
    int ndt = 0;
    for (size_t t = 0; t < 3; t++) {
        if ((types[t] != XGPU_F64 || env->info.fp64) &&
            gb_selected(env->opt->dtypes, xgpu_dtype_name(types[t]))) {
            dts[ndt++] = types[t];
        }
    }
    clpeak_reading peer = clpeak_before(env);
    size_t first = env->results.count;
    for (size_t s = 0; s < count && ndt; s++) {
        double bytes = mib[s] * GB_MIB;
        if (gb_fits(env, bytes)) {
            one_size(env, dts, ndt, bytes);
        }
    }
    clpeak_after(env, &peer);
    sums_against_clpeak(env, first, &peer);
}
