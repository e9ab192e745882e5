/* xgpu_tune: a budgeted search over a library kernel's parameters, class
 * by class, every candidate checked before it is timed, every result
 * stored as it comes (so an interrupted tune resumes); and the public
 * lookups. */
#define _GNU_SOURCE
#include "problem.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CANDIDATES_MAX 256
#define DEFAULT_SECONDS 20.0
#define REP_SECONDS 0.25 /* timed repetitions per candidate, at least 3 */
#define REPS_MAX 15

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

xgpu_status xgpu_tune_db_path(char *path, size_t size) {
    if (!path || !size) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "xgpu_tune_db_path: path is NULL or size is 0");
    }
    char why[300] = "";
    char buf[XGPU__KCACHE_PATH_MAX];
    if (!xgpu__tune_db_path(buf, sizeof buf, why, sizeof why)) {
        path[0] = '\0';
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED, "xgpu_tune_db_path: %s", why);
    }
    if (strlen(buf) >= size) {
        path[0] = '\0';
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE,
                          "xgpu_tune_db_path: the path needs %zu bytes, size is %zu",
                          strlen(buf) + 1, size);
    }
    memcpy(path, buf, strlen(buf) + 1);
    return XGPU_SUCCESS;
}

/* Whether the kernel takes the dtype on this device. */
xgpu_status xgpu__tune_check_dtype(const char *func, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                                   const xgpu_device_info *info) {
    bool ok;
    switch (id) {
    case XGPU__TK_GEMM:
        ok = dtype == XGPU_F32 || dtype == XGPU_F64 || dtype == XGPU_F16 || dtype == XGPU_BF16;
        break;
    case XGPU__TK_STREAM:
        ok = dtype == XGPU_F32 || dtype == XGPU_F64;
        break;
    default:
        ok = dtype == XGPU_F32 || dtype == XGPU_F64 || dtype == XGPU_I32 || dtype == XGPU_I64;
        break;
    }
    if (!ok) {
        return xgpu__fail(
            XGPU_ERROR_UNSUPPORTED,
            "%s: %s does not tune dtype %s (gemm: f32, f64, f16, bf16; stream: f32, f64; sum, "
            "minmax, argmax: f32, f64, i32, i64)",
            func, xgpu__tune_kernel_get(id)->name, xgpu_dtype_name(dtype));
    }
    return xgpu__check_fp64(func, dtype, info);
}

static xgpu_status kernel_id(const char *func, const char *kernel, xgpu__tune_kernel_id *id) {
    int k = xgpu__tune_kernel_find(kernel);
    if (k < 0) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: kernel '%.40s' is not one of gemm, sum, minmax, argmax, stream",
                          func, kernel ? kernel : "(NULL)");
    }
    *id = (xgpu__tune_kernel_id)k;
    return XGPU_SUCCESS;
}

/* The public struct keeps 0.6.0's size and offsets (see xgpu.h). */
_Static_assert(offsetof(xgpu_tune_choice, origin) == 208 && offsetof(xgpu_tune_choice, rate) == 224,
               "xgpu_tune_choice must keep the layout of 0.6.0");

/* A stale entry of this device is found at the arch level, but it is this
 * device's. */
static int32_t public_fit(const xgpu__tune_choice *c) {
    switch (c->level) {
    case XGPU__TL_EXACT:
        return XGPU_TUNE_FIT_DEVICE;
    case XGPU__TL_ARCH:
        return c->stale ? XGPU_TUNE_FIT_DEVICE : XGPU_TUNE_FIT_ARCH;
    case XGPU__TL_VENDOR:
        return XGPU_TUNE_FIT_VENDOR;
    case XGPU__TL_WARM: /* never a lookup's winner */
    case XGPU__TL_NONE:
        break;
    }
    return c->outdated    ? XGPU_TUNE_FIT_OUTDATED
           : c->warm_only ? XGPU_TUNE_FIT_WARM_START
                          : XGPU_TUNE_FIT_NONE;
}

/* The parameters an XGPU_*_PARAMS variable sets, checked as a call checks
 * them (the same error when the call would fail); *set false when the
 * variable is unset or empty. */
static xgpu_status env_choice(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                              xgpu__tune_values *v, bool *set, const char **var) {
    if (id != XGPU__TK_GEMM) {
        *var = id == XGPU__TK_STREAM ? "XGPU_STREAM_PARAMS" : "XGPU_REDUCE_PARAMS";
        return xgpu__lib_env_params("xgpu_tune_lookup", ctx, id, dtype, v, set);
    }
    *var = "XGPU_GEMM_PARAMS";
    xgpu_gemm_params p;
    xgpu_status st =
        xgpu__gemm_env_checked(xgpu__context_info(ctx), dtype, "xgpu_tune_lookup", &p, set);
    if (st == XGPU_SUCCESS && *set) {
        *v = xgpu__tune_from_gemm(&p);
    }
    return st;
}

xgpu_status xgpu_tune_lookup(xgpu_context *context, const char *kernel, xgpu_dtype dtype,
                             size_t size, xgpu_tune_choice *choice) {
    XGPU__CHECK_OR_RETURN(context, XGPU__MAGIC_CONTEXT, __func__, "context");
    if (!choice) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: choice is NULL", __func__);
    }
    memset(choice, 0, sizeof *choice);
    xgpu__tune_kernel_id id = XGPU__TK_GEMM;
    xgpu_status st = kernel_id(__func__, kernel, &id);
    if (st == XGPU_SUCCESS) {
        st = xgpu__tune_check_dtype(__func__, id, dtype, xgpu__context_info(context));
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu__tune_values forced;
    bool set = false;
    const char *var = NULL;
    st = env_choice(context, id, dtype, &forced, &set, &var);
    if (st != XGPU_SUCCESS || set) {
        if (set) {
            xgpu__tune_format(id, &forced, choice->params, sizeof choice->params);
            snprintf(choice->source, sizeof choice->source, "set by %s", var);
            choice->origin = XGPU_TUNE_ORIGIN_ENV;
        }
        return st;
    }
    xgpu__tune_choice c;
    st = xgpu__lib_peek(context, id, dtype, xgpu__tune_class_of(id, size), &c);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu__tune_format(id, &c.values, choice->params, sizeof choice->params);
    xgpu__lib_choice_source(&c, choice->source, sizeof choice->source);
    choice->origin = c.level != XGPU__TL_NONE
                         ? (c.auto_tuned ? XGPU_TUNE_ORIGIN_AUTO : XGPU_TUNE_ORIGIN_DATABASE)
                     : c.off ? XGPU_TUNE_ORIGIN_OFF
                             : XGPU_TUNE_ORIGIN_BUILTIN;
    choice->fit = public_fit(&c);
    choice->shipped = c.level != XGPU__TL_NONE && c.shipped;
    choice->rate = c.rate;
    snprintf(choice->unit, sizeof choice->unit, "%s", c.unit);
    choice->stale = c.stale;
    return XGPU_SUCCESS;
}

/* ---- the search ---- */

typedef struct search {
    xgpu__tune_problem *prob;
    xgpu__tune_record rec;
    const char *db;
    const xgpu_tune_options *opt;
    xgpu_tune_summary *sum;
    xgpu__tune_values queue[CANDIDATES_MAX];
    size_t queued, next;
    size_t fresh; /* candidates measured by this call (not resumed) */
    double start;
} search;

static bool tried(const xgpu__tune_record *rec, const char *params, size_t *at) {
    for (size_t i = 0; i < rec->ntried; i++) {
        if (!strcmp(rec->tried[i].params, params)) {
            *at = i;
            return true;
        }
    }
    return false;
}

static void enqueue(search *s, const xgpu__tune_values *v, size_t count) {
    for (size_t i = 0; i < count && s->queued < CANDIDATES_MAX; i++) {
        bool dup = false;
        for (size_t j = 0; j < s->queued && !dup; j++) {
            dup = !memcmp(&s->queue[j], &v[i], sizeof v[i]);
        }
        if (!dup) {
            s->queue[s->queued++] = v[i];
        }
    }
}

/* Median seconds of timed runs (at least 3, up to REP_SECONDS of them). */
static xgpu_status time_runs(xgpu__tune_problem *p, const xgpu__tune_values *v, double *median) {
    double t[REPS_MAX];
    size_t n = 0;
    double begin = now_s();
    while (n < REPS_MAX && (n < 3 || now_s() - begin < REP_SECONDS)) {
        double t0 = now_s();
        xgpu_status st = xgpu__tune_problem_run(p, v);
        if (st == XGPU_SUCCESS) {
            st = xgpu_queue_finish(p->queue);
        }
        if (st != XGPU_SUCCESS) {
            return st;
        }
        t[n++] = now_s() - t0;
    }
    for (size_t i = 1; i < n; i++) { /* insertion sort: n <= 15 */
        for (size_t j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    }
    *median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    return XGPU_SUCCESS;
}

static bool record_try(xgpu__tune_record *rec, const char *params, double rate,
                       const char *status) {
    xgpu__tune_try *t = realloc(rec->tried, (rec->ntried + 1) * sizeof *t);
    if (!t) {
        return false;
    }
    rec->tried = t;
    xgpu__tune_try *x = &t[rec->ntried++];
    snprintf(x->params, sizeof x->params, "%s", params);
    snprintf(x->status, sizeof x->status, "%s", status);
    x->rate = rate;
    if (rate > rec->best_rate) {
        rec->best_rate = rate;
        snprintf(rec->best, sizeof rec->best, "%s", params);
    }
    return true;
}

static void stamp(xgpu__tune_record *rec) {
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(rec->tuned, sizeof rec->tuned, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* One candidate's result at `size` (GEMM n, else bytes) to the progress
 * callback. */
static void report_at(search *s, size_t size, const char *params, const char *status, double rate,
                      double best_rate) {
    const xgpu__tune_problem *p = s->prob;
    if (!s->opt->progress) {
        return;
    }
    xgpu_tune_progress pr = {
        .kernel = s->rec.kernel,
        .shape_class = s->rec.cls,
        .dtype = p->dtype,
        .size = size,
        .done = (unsigned)s->next,
        .planned = (unsigned)s->queued,
        .params = params,
        .status = status,
        .rate = rate,
        .best_rate = best_rate,
        .unit = s->rec.unit,
        .elapsed_s = now_s() - s->start,
        .budget_s = s->opt->seconds > 0 ? s->opt->seconds : DEFAULT_SECONDS,
    };
    s->opt->progress(s->opt->user, &pr);
}

static void report(search *s, const char *params, const char *status, double rate,
                   bool is_default) {
    const xgpu__tune_problem *p = s->prob;
    if (is_default && rate > s->sum->default_rate[p->cls]) {
        s->sum->default_rate[p->cls] = rate;
    }
    report_at(s, p->id == XGPU__TK_GEMM ? p->n : p->bytes, params, status, rate, s->rec.best_rate);
}

/* Stores the record; a note about the database (a damaged file set
 * aside) goes to the summary. */
static xgpu_status store(search *s) {
    char note[sizeof s->sum->warning];
    xgpu_status st = xgpu__tune_db_store(s->db, &s->rec, note, sizeof note);
    if (note[0]) {
        snprintf(s->sum->warning, sizeof s->sum->warning, "%s", note);
    }
    return st;
}

/* Builds, checks and times one candidate, and stores the record. */
static xgpu_status measure(search *s, const xgpu__tune_values *v, bool is_default) {
    char params[XGPU__TUNE_PARAMS_MAX], why[256] = "";
    xgpu__tune_format(s->prob->id, v, params, sizeof params);
    size_t at;
    if (tried(&s->rec, params, &at)) {
        s->sum->resumed++;
        report(s, params, "resumed", s->rec.tried[at].rate, is_default);
        return XGPU_SUCCESS;
    }
    bool ok = false;
    const char *status = "ok";
    double rate = 0, median = 0;
    struct xgpu__error_state *saved = xgpu__error_save();
    xgpu_status st = xgpu__tune_problem_check(s->prob, v, &ok, why, sizeof why);
    if (st != XGPU_SUCCESS) {
        status = st == XGPU_ERROR_BUILD_FAILED ? "build" : "launch";
        snprintf(why, sizeof why, "%s", xgpu_last_error()->message);
    } else if (!ok) {
        status = "wrong";
    } else if ((st = time_runs(s->prob, v, &median)) != XGPU_SUCCESS) {
        status = "launch";
        snprintf(why, sizeof why, "%s", xgpu_last_error()->message);
    } else {
        /* Six digits, as the database keeps it: a resumed record compares
         * alike with a fresh one. */
        rate = xgpu__json_round(xgpu__tune_problem_work(s->prob) / median / 1e9);
    }
    xgpu__error_restore(saved);
    bool fatal = st == XGPU_ERROR_DEVICE_LOST || st == XGPU_ERROR_OUT_OF_DEVICE_MEMORY;
    if (fatal) {
        /* Recorded first, so that a resumed tune does not run it again. */
        status = st == XGPU_ERROR_DEVICE_LOST ? "lost" : "memory";
        if (record_try(&s->rec, params, 0, status)) {
            xgpu__tune_db_store(s->db, &s->rec, NULL, 0);
        }
        return xgpu__fail(st, "xgpu_tune: %s with %s: %s", s->rec.kernel, params, why);
    }
    if (strcmp(status, "ok")) {
        s->sum->failed++;
        xgpu__log("tune", XGPU_LOG_INFO, "%s %s %s: %s: %s", s->rec.kernel, s->rec.dtype, params,
                  status, why);
    }
    s->sum->measured++;
    s->fresh++;
    if (!record_try(&s->rec, params, rate, status)) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "xgpu_tune: out of memory");
    }
    stamp(&s->rec);
    report(s, params, status, rate, is_default);
    return store(s);
}

/* The record to continue: this device's exact one (unless restarting).
 * Warm starts: this device's entry from another driver, compiler or xgpu,
 * and the closest other device's winner. */
static void prepare(search *s, xgpu__tune_key *key, xgpu__tune_db *db) {
    xgpu__tune_record *rec = &s->rec;
    rec->key = *key;
    const xgpu_device_info *info = xgpu__context_info(s->prob->ctx);
    const xgpu__tune_record *stale = NULL, *other = NULL;
    xgpu__tune_level other_level = XGPU__TL_NONE;
    for (size_t i = 0; i < db->n; i++) {
        const xgpu__tune_record *r = &db->recs[i];
        if (strcmp(r->kernel, rec->kernel) || strcmp(r->dtype, rec->dtype) ||
            strcmp(r->cls, rec->cls) || !r->best[0]) {
            continue;
        }
        xgpu__tune_level level = xgpu__tune_fit(r, key);
        bool mine = xgpu__tune_same_device(&r->key, key);
        if (level == XGPU__TL_EXACT) {
            if (!s->opt->restart && !rec->tried && r->ntried) { /* the first such record */
                rec->tried = malloc(r->ntried * sizeof *rec->tried);
                if (rec->tried) {
                    memcpy(rec->tried, r->tried, r->ntried * sizeof *rec->tried);
                    rec->ntried = r->ntried;
                    rec->best_rate = r->best_rate;
                    snprintf(rec->best, sizeof rec->best, "%s", r->best);
                }
            }
        } else if (level != XGPU__TL_NONE && mine) {
            stale = !stale || r->best_rate > stale->best_rate ? r : stale;
        } else if (level != XGPU__TL_NONE &&
                   (level < other_level ||
                    (level == other_level && r->best_rate > other->best_rate))) {
            other = r;
            other_level = level;
        }
    }
    const xgpu__tune_record *warm[2] = {stale, other};
    for (int w = 0; w < 2; w++) {
        xgpu__tune_values v;
        if (warm[w] && xgpu__tune_parse(s->prob->id, warm[w]->best, &v, NULL, 0) &&
            xgpu__tune_valid(s->prob->id, s->prob->dtype, info, &v, NULL, 0)) {
            enqueue(s, &v, 1);
        }
    }
}

/* GEMM's large class is measured at n = 1024 and used at every size above
 * 512^3, and a tiling that wins at 1024 may lose at 2048 (pocl on an Intel
 * Xeon, SGEMM: a winner by 1.05x at 1024 ran 0.6x the built-in at 2048).
 * So after the search the winner is timed beside the built-in at 2n, the
 * two alternating, the better of two medians each ("confirm" to the
 * progress callback), and stays unless it is more than CONFIRM_BAND
 * slower there (the noise of two medians). Else the built-in is stored as
 * the best and the winner's entry says "slower" ("launch", "lost" where
 * it failed at 2n), which no resumed tune or merge takes back. Where 2n
 * does not fit, the winner stays unconfirmed. Each tune whose best is not
 * the built-in confirms again. */
#define CONFIRM_BAND 0.02

/* Marks the winner `status` (rate 0) and makes the built-in, entry `at`,
 * the best. */
static void demote(search *s, const char *status, size_t at, const char *builtin_params) {
    size_t lost;
    if (tried(&s->rec, s->rec.best, &lost)) {
        s->rec.tried[lost].rate = 0;
        snprintf(s->rec.tried[lost].status, sizeof s->rec.tried[lost].status, "%s", status);
    }
    snprintf(s->rec.best, sizeof s->rec.best, "%s", builtin_params);
    s->rec.best_rate = s->rec.tried[at].rate;
}

static xgpu_status confirm_large(search *s, const xgpu__tune_values *builtin) {
    const xgpu__tune_problem *p = s->prob;
    xgpu__tune_values best;
    if (p->id != XGPU__TK_GEMM || p->cls != XGPU__TC_LARGE || !s->rec.best[0] ||
        !xgpu__tune_parse(p->id, s->rec.best, &best, NULL, 0) ||
        !memcmp(&best, builtin, sizeof best)) {
        return XGPU_SUCCESS;
    }
    char builtin_params[XGPU__TUNE_PARAMS_MAX], winner[XGPU__TUNE_PARAMS_MAX];
    xgpu__tune_format(p->id, builtin, builtin_params, sizeof builtin_params);
    snprintf(winner, sizeof winner, "%s", s->rec.best);
    size_t at;
    if (!tried(&s->rec, builtin_params, &at) || strcmp(s->rec.tried[at].status, "ok")) {
        return XGPU_SUCCESS; /* the built-in failed at n: nothing to fall back on */
    }
    const size_t n2 = 2 * p->n;
    const xgpu__tune_values *who[2] = {builtin, &best};
    double rate[2] = {0, 0};
    xgpu_status run[2] = {XGPU_SUCCESS, XGPU_SUCCESS};
    char why[2][256] = {"", ""};
    struct xgpu__error_state *saved = xgpu__error_save();
    xgpu__tune_problem big;
    bool fits = false;
    xgpu_status st =
        xgpu__tune_problem_make_timing(&big, p->queue, p->dtype, n2, s->opt->max_size, &fits);
    char make_why[256];
    snprintf(make_why, sizeof make_why, "%s", st == XGPU_SUCCESS ? "" : xgpu_last_error()->message);
    for (int round = 0; round < 2 && st == XGPU_SUCCESS && fits; round++) {
        for (int w = 0; w < 2; w++) {
            double median = 0;
            if (run[w] != XGPU_SUCCESS) {
                continue;
            }
            run[w] = time_runs(&big, who[w], &median);
            if (run[w] != XGPU_SUCCESS) {
                snprintf(why[w], sizeof why[w], "%s", xgpu_last_error()->message);
            } else {
                double r = xgpu__json_round(xgpu__tune_problem_work(&big) / median / 1e9);
                rate[w] = r > rate[w] ? r : rate[w];
            }
        }
    }
    xgpu__tune_problem_free(&big);
    xgpu__error_restore(saved);
    if (st == XGPU_ERROR_DEVICE_LOST || run[0] == XGPU_ERROR_DEVICE_LOST) {
        return xgpu__fail(XGPU_ERROR_DEVICE_LOST, "xgpu_tune: %s at %zu^3: %s", s->rec.kernel, n2,
                          st != XGPU_SUCCESS ? make_why : why[0]);
    }
    if (run[1] == XGPU_ERROR_DEVICE_LOST) {
        /* Recorded first, so that a resumed tune does not run it again. */
        demote(s, "lost", at, builtin_params);
        xgpu__tune_db_store(s->db, &s->rec, NULL, 0);
        return xgpu__fail(XGPU_ERROR_DEVICE_LOST, "xgpu_tune: %s with %s at %zu^3: %s",
                          s->rec.kernel, winner, n2, why[1]);
    }
    if (st != XGPU_SUCCESS || !fits) {
        xgpu__log("tune", XGPU_LOG_INFO, "%s %s large: %s kept unconfirmed: %zu^3 %s",
                  s->rec.kernel, s->rec.dtype, winner, n2, fits ? make_why : "does not fit");
        return XGPU_SUCCESS;
    }
    const double top = rate[0] > rate[1] ? rate[0] : rate[1];
    report_at(s, n2, builtin_params, run[0] == XGPU_SUCCESS ? "confirm" : "launch", rate[0], top);
    report_at(s, n2, winner, run[1] == XGPU_SUCCESS ? "confirm" : "launch", rate[1], top);
    bool keep = run[1] == XGPU_SUCCESS &&
                (run[0] != XGPU_SUCCESS || rate[1] >= (1.0 - CONFIRM_BAND) * rate[0]);
    xgpu__log("tune", XGPU_LOG_INFO,
              "%s %s large at %zu^3: %s %.4g%s%s, built-in %s %.4g%s%s %s: %s", s->rec.kernel,
              s->rec.dtype, n2, winner, rate[1], why[1][0] ? " " : "", why[1], builtin_params,
              rate[0], why[0][0] ? " " : "", why[0], s->rec.unit,
              keep ? "the winner stays" : "the built-in stays");
    if (!keep) {
        demote(s, run[1] == XGPU_SUCCESS ? "slower" : "launch", at, builtin_params);
    }
    return XGPU_SUCCESS;
}

xgpu_status xgpu__tune_class_search(xgpu_queue *queue, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                                    xgpu__tune_class cls, const char *db_path,
                                    const xgpu_tune_options *opt, bool auto_tuned,
                                    xgpu_tune_summary *sum) {
    /* The budget counts from here: making the problem (its inputs and host
     * reference) is part of the wait. */
    const double begun = now_s();
    xgpu__tune_problem prob;
    bool fits = false;
    xgpu_status st = xgpu__tune_problem_make(&prob, queue, id, dtype, cls, opt->max_size, &fits);
    if (st != XGPU_SUCCESS || !fits) {
        return st;
    }
    search s = {.prob = &prob, .db = db_path, .opt = opt, .sum = sum, .start = begun};
    const xgpu__tune_kernel *k = xgpu__tune_kernel_get(id);
    snprintf(s.rec.kernel, sizeof s.rec.kernel, "%s", k->name);
    snprintf(s.rec.dtype, sizeof s.rec.dtype, "%s", xgpu_dtype_name(dtype));
    snprintf(s.rec.cls, sizeof s.rec.cls, "%s", xgpu__tune_class_name(cls));
    snprintf(s.rec.unit, sizeof s.rec.unit, "%s", k->unit);
    s.rec.size = id == XGPU__TK_GEMM ? prob.n : prob.bytes;
    s.rec.auto_tuned = auto_tuned;
    xgpu__tune_key key;
    xgpu__tune_key_of(prob.ctx, id, &key);
    xgpu__tune_db db;
    char why[400] = "";
    /* Unreadable or damaged: a fresh start (the store says what it does). */
    xgpu__tune_db_load(db_path, true, &db, why, sizeof why);
    const xgpu_device_info *info = xgpu__context_info(prob.ctx);
    xgpu__tune_values builtin, list[CANDIDATES_MAX];
    xgpu__tune_builtin(id, dtype, cls, info, &builtin);
    enqueue(&s, &builtin, 1);
    prepare(&s, &key, &db);
    xgpu__tune_db_free(&db);
    enqueue(&s, list, xgpu__tune_candidates(id, dtype, info, list, CANDIDATES_MAX));
    double budget = opt->seconds > 0 ? opt->seconds : DEFAULT_SECONDS;
    sum->size[cls] = s.rec.size;
    /* Until one candidate is measured, whatever the budget (making the
     * problem may spend a short one): a fresh tune always stores a
     * verified best, and a resumed one, whose built-in comes from the
     * record, still goes on by one candidate. */
    while (st == XGPU_SUCCESS && (s.fresh == 0 || now_s() - s.start < budget) &&
           s.rec.ntried < XGPU__TUNE_TRIED_MAX) {
        if (s.next == s.queued) {
            /* The list is done: neighbours of the best so far. */
            xgpu__tune_values best;
            if (!s.rec.best[0] || !xgpu__tune_parse(id, s.rec.best, &best, NULL, 0)) {
                break;
            }
            size_t before = s.queued;
            enqueue(&s, list, xgpu__tune_neighbours(id, dtype, info, &best, list, CANDIDATES_MAX));
            if (s.queued == before) {
                break;
            }
            continue;
        }
        const xgpu__tune_values *v = &s.queue[s.next++];
        st = measure(&s, v, !memcmp(v, &builtin, sizeof builtin));
    }
    /* Complete when the search ran out of candidates; else the next tune
     * goes on from here. */
    if (st == XGPU_SUCCESS) {
        st = confirm_large(&s, &builtin);
    }
    if (st == XGPU_SUCCESS) {
        s.rec.complete = s.next == s.queued;
        bool more = now_s() - s.start >= budget && !s.rec.complete;
        xgpu__log("tune", XGPU_LOG_INFO, "%s %s %s: best %s at %.4g %s%s", s.rec.kernel,
                  s.rec.dtype, s.rec.cls, s.rec.best, s.rec.best_rate, s.rec.unit,
                  more ? " (budget spent; a next tune continues)" : "");
        stamp(&s.rec);
        st = store(&s);
    }
    sum->best_rate[cls] = s.rec.best_rate;
    snprintf(sum->best[cls], sizeof sum->best[cls], "%s", s.rec.best);
    xgpu__tune_record_free(&s.rec);
    xgpu__tune_problem_free(&prob);
    return st;
}

xgpu_status xgpu_tune(xgpu_queue *queue, const char *kernel, xgpu_dtype dtype,
                      const xgpu_tune_options *options, xgpu_tune_summary *summary) {
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, __func__, "queue");
    xgpu__tune_kernel_id id = XGPU__TK_GEMM;
    xgpu_status st = kernel_id(__func__, kernel, &id);
    if (st == XGPU_SUCCESS) {
        st = xgpu__tune_check_dtype(__func__, id, dtype,
                                    xgpu__context_info(xgpu__queue_context(queue)));
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu_tune_options opt = options ? *options : (xgpu_tune_options){0};
    if (!(opt.seconds >= 0 && opt.seconds <= 1e6)) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: seconds %g is not in 0..1e6", __func__,
                          opt.seconds);
    }
    char path[XGPU__KCACHE_PATH_MAX], why[300] = "";
    if (opt.db && (!opt.db[0] || strlen(opt.db) + XGPU__TUNE_DB_SUFFIX_MAX >= sizeof path)) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: options->db is %s", __func__,
                          opt.db[0] ? "longer than a path may be" : "empty (NULL: the default)");
    }
    if (opt.db) {
        snprintf(path, sizeof path, "%s", opt.db);
    } else if (!xgpu__tune_db_path(path, sizeof path, why, sizeof why)) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: nowhere to store results: %s (set XGPU_TUNE_DB)", __func__, why);
    }
    xgpu_tune_summary local;
    xgpu_tune_summary *sum = summary ? summary : &local;
    *sum = (xgpu_tune_summary){0};
    for (int cls = 0; cls < XGPU__TC_COUNT && st == XGPU_SUCCESS; cls++) {
        st = xgpu__tune_class_search(queue, id, dtype, (xgpu__tune_class)cls, path, &opt, false,
                                     sum);
    }
    xgpu__tune_forget(); /* later calls see the results */
    return st;
}
