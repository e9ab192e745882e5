/* xgpu_tune on every device, with small budgets and problems: the winner
 * is stored, found again, used, and correct; a tune resumes; a damaged
 * database is set aside; bad arguments are refused. XGPU_TUNE_DB points at
 * a file of the build tree (CTest sets it). */
#define _GNU_SOURCE
#include "gemm_mixed.h"
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SMALL (256u << 10) /* at most this many bytes per buffer */

static const char *db(void) {
    const char *p = getenv("XGPU_TUNE_DB");
    assert_non_null(p);
    return p;
}

static void forget_db(void) {
    unlink(db());
}

static xgpu_tune_options quick(double seconds) {
    xgpu_tune_options o = {seconds, false, NULL, SMALL, NULL, NULL};
    return o;
}

/* The fp32 sum of n pseudo-random values, against a double sum. */
static void check_sum(size_t n, uint32_t seed) {
    float *h = malloc(n * sizeof *h);
    assert_non_null(h);
    xt_random_f32(h, n, seed, -1, 1);
    double want = 0, mag = 0;
    for (size_t i = 0; i < n; i++) {
        want += h[i];
        mag += fabs(h[i]);
    }
    xgpu_buffer *in, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, n * 4, &in));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &out));
    XT_OK(xgpu_buffer_write(xt.queue, in, 0, h, n * 4, true, NULL));
    const uint32_t poison = 0x7fc00001;
    XT_OK(xgpu_buffer_write(xt.queue, out, 0, &poison, 4, true, NULL));
    XT_OK(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_F32, in, 0, n, out, 0, NULL));
    float got = 0;
    XT_OK(xgpu_buffer_read(xt.queue, out, 0, &got, 4, true, NULL));
    if (!(fabs(got - want) <= 1e-5 * mag)) {
        fail_msg("sum of %zu: %.9g, expected %.9g", n, got, want);
    }
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
    free(h);
}

static void tune_is_stored_found_and_used(void **state) {
    (void)state;
    forget_db();
    xgpu_tune_choice c;
    XT_OK(xgpu_tune_lookup(xt.ctx, "sum", XGPU_F32, 1 << 20, &c));
    /* No user database yet: the built-in default, or a shipped entry. */
    if (strncmp(c.source, "built-in default", 16) != 0 && !strstr(c.source, "built-in database")) {
        fail_msg("before any tune: %s", c.source);
    }
    /* The same, as fields. */
    if (c.origin == XGPU_TUNE_ORIGIN_BUILTIN) {
        /* No entry, only other driver families' (warm starts), or
         * entries of this device made with other kernel sources. */
        assert_true(c.fit == XGPU_TUNE_FIT_NONE || c.fit == XGPU_TUNE_FIT_WARM_START ||
                    c.fit == XGPU_TUNE_FIT_OUTDATED);
        assert_false(c.shipped);
    } else {
        assert_int_equal(c.origin, XGPU_TUNE_ORIGIN_DATABASE);
        assert_true(c.shipped);
        assert_int_not_equal(c.fit, XGPU_TUNE_FIT_NONE);
    }
    xgpu_tune_options o = quick(2);
    xgpu_tune_summary s;
    XT_OK(xgpu_tune(xt.queue, "sum", XGPU_F32, &o, &s));
    assert_true(s.measured >= 2);
    assert_true(s.best[0][0] != '\0');
    assert_true(s.best_rate[0] > 0 && s.default_rate[0] > 0);
    assert_true(s.best_rate[0] >= s.default_rate[0]);
    assert_int_equal(access(db(), R_OK), 0);
    /* Found again, in this process (and in any other: the file). */
    XT_OK(xgpu_tune_lookup(xt.ctx, "sum", XGPU_F32, 1 << 20, &c));
    assert_string_equal(c.params, s.best[0]);
    assert_non_null(strstr(c.source, "this device"));
    assert_non_null(strstr(c.source, "user database"));
    assert_int_equal(c.origin, XGPU_TUNE_ORIGIN_DATABASE);
    assert_int_equal(c.fit, XGPU_TUNE_FIT_DEVICE);
    assert_false(c.shipped);
    assert_false(c.stale);
    assert_true(c.rate > 0);
    assert_string_equal(c.unit, "GB/s");
    /* The large class was not tuned (SMALL keeps the problem small). */
    XT_OK(xgpu_tune_lookup(xt.ctx, "sum", XGPU_F32, (size_t)64 << 20, &c));
    assert_null(strstr(c.source, "user database"));
    /* Used, and right, on sizes it was not tuned on. */
    check_sum(100003, 7);
    check_sum(1, 8);
    check_sum(65536 + 17, 9);
}

/* Each line of the database's "tried" lists holds one candidate; within
 * one record (one device here) none may repeat. */
static void assert_no_repeated_candidates(void) {
    FILE *f = fopen(db(), "r");
    assert_non_null(f);
    enum { MAX = 512 };
    static char seen[MAX][160];
    size_t n = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "{\"params\": \"");
        if (!p) {
            if (strstr(line, "\"kernel\"")) {
                n = 0; /* a new record */
            }
            continue;
        }
        p += strlen("{\"params\": \"");
        const char *end = strchr(p, '"');
        assert_non_null(end);
        for (size_t i = 0; i < n; i++) {
            if ((size_t)(end - p) == strlen(seen[i]) && !strncmp(seen[i], p, (size_t)(end - p))) {
                fail_msg("%s was measured twice", seen[i]);
            }
        }
        assert_true(n < MAX);
        snprintf(seen[n++], sizeof seen[0], "%.*s", (int)(end - p), p);
    }
    fclose(f);
}

static void tune_resumes(void **state) {
    (void)state;
    forget_db();
    xgpu_tune_options o = quick(1);
    xgpu_tune_summary first, again, fresh;
    XT_OK(xgpu_tune(xt.queue, "stream", XGPU_F32, &o, &first));
    assert_true(first.measured >= 1);
    /* Candidates measured before are taken from the record, never run
     * again: no candidate appears twice in the database. */
    XT_OK(xgpu_tune(xt.queue, "stream", XGPU_F32, &o, &again));
    assert_true(again.resumed >= 1);
    assert_no_repeated_candidates();
    /* It goes on from the best so far: never worse. */
    if (!(again.best_rate[0] >= first.best_rate[0])) {
        fail_msg("best %g (%s) after %g (%s)", again.best_rate[0], again.best[0],
                 first.best_rate[0], first.best[0]);
    }
    o.restart = true;
    XT_OK(xgpu_tune(xt.queue, "stream", XGPU_F32, &o, &fresh));
    assert_int_equal(fresh.resumed, 0);
    assert_true(fresh.measured >= 1);
    /* A budget spent before the first candidate (making the problem
     * counts) still measures a new candidate each tune: a resumed record
     * does not stop at its built-in. */
    forget_db();
    xgpu_tune_options tiny = quick(1);
    tiny.seconds = 1e-6;
    xgpu_tune_summary t1, t2;
    XT_OK(xgpu_tune(xt.queue, "stream", XGPU_F32, &tiny, &t1));
    XT_OK(xgpu_tune(xt.queue, "stream", XGPU_F32, &tiny, &t2));
    assert_true(t1.measured >= 1);
    assert_true(t2.resumed >= 1);
    if (t2.measured < 1) {
        fail_msg("a second tune of a 1 us budget measured nothing new (%u resumed)", t2.resumed);
    }
    assert_no_repeated_candidates();
}

static void gemm_tuned_is_right(void **state) {
    (void)state;
    forget_db();
    xgpu_tune_options o = quick(3);
    o.max_size = 64u << 10; /* n = 128 */
    xgpu_tune_summary s;
    XT_OK(xgpu_tune(xt.queue, "gemm", XGPU_F32, &o, &s));
    assert_true(s.best[0][0] != '\0');
    xgpu_tune_choice c;
    XT_OK(xgpu_tune_lookup(xt.ctx, "gemm", XGPU_F32, 100 * 100 * 100, &c));
    assert_string_equal(c.params, s.best[0]);
    assert_string_equal(c.unit, "GFLOP/s");
    /* A GEMM with edges through the tuned parameters, against double. */
    const size_t m = 70, n = 53, k = 37;
    float *a = malloc(m * k * 4), *b = malloc(k * n * 4), *out = malloc(m * n * 4);
    assert_true(a && b && out);
    xt_random_f32(a, m * k, 11, -1, 1);
    xt_random_f32(b, k * n, 12, -1, 1);
    xgpu_buffer *ba, *bb, *bc;
    XT_OK(xgpu_buffer_create(xt.ctx, m * k * 4, &ba));
    XT_OK(xgpu_buffer_create(xt.ctx, k * n * 4, &bb));
    XT_OK(xgpu_buffer_create(xt.ctx, m * n * 4, &bc));
    XT_OK(xgpu_buffer_write(xt.queue, ba, 0, a, m * k * 4, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, bb, 0, b, k * n * 4, true, NULL));
    const unsigned char ff = 0xff; /* NaN: an element never written fails */
    XT_OK(xgpu_buffer_fill(xt.queue, bc, 0, m * n * 4, &ff, 1, NULL));
    xgpu_gemm_desc d = {.dtype = XGPU_F32,
                        .layout = XGPU_ROW_MAJOR,
                        .trans_a = XGPU_NO_TRANS,
                        .trans_b = XGPU_NO_TRANS,
                        .m = m,
                        .n = n,
                        .k = k,
                        .alpha = 1.0,
                        .beta = 0.0,
                        .a = {ba, 0, k},
                        .b = {bb, 0, n},
                        .c = {bc, 0, n},
                        .params = NULL};
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, bc, 0, out, m * n * 4, true, NULL));
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            double want = 0;
            for (size_t l = 0; l < k; l++) {
                want += (double)a[i * k + l] * b[l * n + j];
            }
            if (!(fabs(out[i * n + j] - want) <= 1e-4)) {
                fail_msg("C[%zu][%zu] = %g, expected %g with %s", i, j, out[i * n + j], want,
                         c.params);
            }
        }
    }
    XT_OK(xgpu_buffer_release(ba));
    XT_OK(xgpu_buffer_release(bb));
    XT_OK(xgpu_buffer_release(bc));
    free(a);
    free(b);
    free(out);
}

/* Replaces the quoted string or number after `key` in `line` with `value`
 * (the database writes one record field after another on a line). */
static void set_field(char *line, size_t size, const char *key, const char *value) {
    char *at = strstr(line, key);
    assert_non_null(at);
    at += strlen(key);
    char *end = at;
    if (*at == '"') {
        end = strchr(at + 1, '"');
        assert_non_null(end);
        end++;
    } else {
        end += strspn(at, "0123456789.e+-");
    }
    char rest[1024];
    snprintf(rest, sizeof rest, "%s", end);
    snprintf(at, size - (size_t)(at - line), "%s%s", value, rest);
}

typedef struct confirm_seen {
    unsigned count;
    char params[2][128];
    double rate[2];
    size_t size[2];
} confirm_seen;

static void on_progress(void *user, const xgpu_tune_progress *p) {
    confirm_seen *seen = user;
    if (!strcmp(p->status, "confirm")) {
        assert_string_equal(p->shape_class, "large");
        if (seen->count < 2) {
            snprintf(seen->params[seen->count], sizeof seen->params[0], "%s", p->params);
            seen->rate[seen->count] = p->rate;
            seen->size[seen->count] = p->size;
        }
        seen->count++;
    }
}

/* GEMM's large class is searched at n = 1024 and keeps a winner only
 * where it is also not slower than the built-in at 2048. The database is
 * made to name the slowest candidate of a first tune as the winner, at a
 * made-up rate; a second tune times it beside the built-in at 2048 and
 * keeps whichever of the two was faster there. */
static void gemm_large_winner_is_confirmed(void **state) {
    (void)state;
    forget_db();
    xgpu_tune_options o = quick(3);
    o.max_size = 16u << 20; /* 1024^2 f32 for the search, 2048^2 for the confirmation */
    xgpu_tune_summary s;
    XT_OK(xgpu_tune(xt.queue, "gemm", XGPU_F32, &o, &s));
    if (s.size[1] != 1024) {
        skip(); /* the device holds no three 2048^2 fp32 buffers */
    }
    /* The large record: its built-in (the first candidate) and its
     * slowest other verified candidate. */
    FILE *f = fopen(db(), "r");
    assert_non_null(f);
    enum { LINES = 4096 };
    static char lines[LINES][1024];
    size_t n = 0, best_line = 0;
    char builtin[128] = "", slow[128] = "";
    double slow_rate = 0;
    bool large = false;
    while (n < LINES && fgets(lines[n], sizeof lines[0], f)) {
        const char *l = lines[n];
        if (strstr(l, "\"kernel\"")) {
            large = strstr(l, "\"class\": \"large\"") != NULL;
        } else if (large && strstr(l, "\"best\": ")) {
            best_line = n;
        } else if (large && strstr(l, "{\"params\": \"") && strstr(l, "\"status\": \"ok\"")) {
            char params[128];
            double rate;
            assert_int_equal(sscanf(l, " {\"params\": \"%127[^\"]\", \"rate\": %lf", params, &rate),
                             2);
            if (!builtin[0]) {
                snprintf(builtin, sizeof builtin, "%s", params);
            } else if (!slow[0] || rate < slow_rate) {
                snprintf(slow, sizeof slow, "%s", params);
                slow_rate = rate;
            }
        }
        n++;
    }
    assert_true(feof(f)); /* all of it read: it is written back */
    fclose(f);
    assert_true(best_line > 0 && builtin[0]);
    if (!slow[0]) {
        print_message("# the large search verified only the built-in in 3 s\n");
        skip();
    }
    char quoted[160];
    snprintf(quoted, sizeof quoted, "\"%s\"", slow);
    set_field(lines[best_line], sizeof lines[0], "\"best\": ", quoted);
    set_field(lines[best_line], sizeof lines[0], "\"rate\": ", "1000000");
    f = fopen(db(), "w");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++) {
        fputs(lines[i], f);
    }
    assert_int_equal(fclose(f), 0);

    confirm_seen seen = {0};
    o.seconds = 0.001; /* the recorded candidates, hardly any new one */
    o.progress = on_progress;
    o.user = &seen;
    XT_OK(xgpu_tune(xt.queue, "gemm", XGPU_F32, &o, &s));
    assert_int_equal(seen.count, 2);
    assert_string_equal(seen.params[0], builtin);
    assert_int_equal(seen.size[0], 2048);
    assert_int_equal(seen.size[1], 2048);
    assert_true(seen.rate[0] > 0);
    /* The winner (the slow candidate: nothing measured now can beat its
     * made-up rate) stays only if it kept within 2% of the built-in at
     * 2048. */
    assert_string_equal(seen.params[1], slow);
    const char *want = seen.rate[1] >= 0.98 * seen.rate[0] ? slow : builtin;
    if (strcmp(s.best[1], want)) {
        fail_msg("best %s, but at 2048 %s ran %g and the built-in %s %g", s.best[1], slow,
                 seen.rate[1], builtin, seen.rate[0]);
    }
    assert_true(s.best_rate[1] < 1000000 || !strcmp(want, slow));
    xgpu_tune_choice c;
    XT_OK(xgpu_tune_lookup(xt.ctx, "gemm", XGPU_F32, (size_t)2048 * 2048 * 2048, &c));
    assert_string_equal(c.params, want);
    print_message("# at 2048: built-in %g, %s %g GFLOP/s: %s stays\n", seen.rate[0], slow,
                  seen.rate[1], want == slow ? "the winner" : "the built-in");
}

/* bf16 and f16 tune the fragment family, stored under their dtype, and
 * xgpu_gemm then runs the winner correctly. */
static void gemm_bf16_tuned_is_right(void **state) {
    (void)state;
    const xgpu_dtype types[] = {XGPU_BF16, XGPU_F16};
    for (size_t t = 0; t < 2; t++) {
        forget_db();
        /* A nanosecond, spent before the search starts: the built-in
         * alone, which runs whatever the budget. A longer search reached
         * a candidate not yet in the kernel cache, whose build alone took
         * 10-20 s on pocl. */
        xgpu_tune_options o = quick(1e-9);
        o.max_size = 32u << 10; /* n = 128 */
        xgpu_tune_summary s;
        XT_OK(xgpu_tune(xt.queue, "gemm", types[t], &o, &s));
        assert_true(s.measured >= 1);
        assert_true(s.best[0][0] != '\0');
        assert_non_null(strstr(s.best[0], "contig=3"));
        xgpu_tune_choice c;
        XT_OK(xgpu_tune_lookup(xt.ctx, "gemm", types[t], 60 * 50 * 40, &c));
        assert_string_equal(c.params, s.best[0]);
        mcase m = {.in = types[t], .layout = XGPU_ROW_MAJOR, .m = 60, .n = 50, .k = 40};
        m.alpha = 1.5;
        m.tb = XGPU_TRANS;
        xgpu_gemm_choice ch;
        mcase_run(&m, &ch);
        assert_non_null(strstr(ch.source, "tuned"));
        assert_int_equal(ch.params.contiguous, XGPU_GEMM_FRAGMENTS);
        m.out = XGPU_F32;
        mcase_run(&m, &ch);
    }
}

static void damaged_database_is_set_aside(void **state) {
    (void)state;
    FILE *f = fopen(db(), "w");
    assert_non_null(f);
    fputs("{\"schema\": \"xgpu.tune/1\", \"records\": [{\"kernel\":", f);
    fclose(f);
    char aside[4200];
    snprintf(aside, sizeof aside, "%s.damaged", db());
    unlink(aside);
    xgpu_tune_options o = quick(1);
    XT_OK(xgpu_tune(xt.queue, "argmax", XGPU_F32, &o, NULL));
    assert_int_equal(access(aside, R_OK), 0);
    xgpu_tune_choice c;
    XT_OK(xgpu_tune_lookup(xt.ctx, "argmax", XGPU_F32, 1 << 20, &c));
    assert_non_null(strstr(c.source, "this device"));
    unlink(aside);
}

static void tuning_off_uses_defaults(void **state) {
    (void)state;
    xgpu_tune_choice c;
    /* Only off and 0 are off: Off is a value it does not know, and the
     * database stays in use (with a warning). */
    setenv("XGPU_TUNE", "Off", 1);
    XT_OK(xgpu_tune_lookup(xt.ctx, "argmax", XGPU_I32, 1 << 20, &c));
    assert_int_not_equal(c.origin, XGPU_TUNE_ORIGIN_OFF);
    assert_null(strstr(c.source, "XGPU_TUNE=off"));
    setenv("XGPU_TUNE", "off", 1);
    /* min and max share one entry; none was tuned here, and off wins. */
    XT_OK(xgpu_tune_lookup(xt.ctx, "minmax", XGPU_F32, 1 << 20, &c));
    assert_non_null(strstr(c.source, "XGPU_TUNE=off"));
    assert_int_equal(c.origin, XGPU_TUNE_ORIGIN_OFF);
    assert_int_equal(c.fit, XGPU_TUNE_FIT_NONE);
    unsetenv("XGPU_TUNE");
}

/* XGPU_*_PARAMS: the lookup reports what every call then uses, and a value
 * a call would refuse makes the lookup fail the same way. */
static void params_from_the_environment(void **state) {
    (void)state;
    xgpu_tune_choice c;
    const char *forced = "group=16,gpcu=3,unroll=1,vec=1,chunked=2";
    setenv("XGPU_REDUCE_PARAMS", forced, 1);
    XT_OK(xgpu_tune_lookup(xt.ctx, "sum", XGPU_F32, 1 << 20, &c));
    assert_int_equal(c.origin, XGPU_TUNE_ORIGIN_ENV);
    assert_int_equal(c.fit, XGPU_TUNE_FIT_NONE);
    assert_string_equal(c.params, forced);
    assert_non_null(strstr(c.source, "XGPU_REDUCE_PARAMS"));
    XT_OK(xgpu_tune_lookup(xt.ctx, "argmax", XGPU_F64, 1 << 20, &c));
    assert_int_equal(c.origin, XGPU_TUNE_ORIGIN_ENV);
    check_sum(100003, 41); /* the calls run with them */
    XT_OK(xgpu_tune_lookup(xt.ctx, "stream", XGPU_F32, 1 << 20, &c));
    assert_int_not_equal(c.origin, XGPU_TUNE_ORIGIN_ENV);

    xgpu_buffer *in, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, 4096, &in));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &out));
    XT_OK(xgpu_buffer_fill(xt.queue, in, 0, 4096, &(float){1.5f}, 4, NULL));
    const char *malformed[] = {"group=16", "group=16,gpcu=3,unroll=1,vec=1,chunked=2,x=1",
                               "group=sixteen,gpcu=3,unroll=1,vec=1,chunked=2"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        setenv("XGPU_REDUCE_PARAMS", malformed[i], 1);
        XT_FAILS(xgpu_tune_lookup(xt.ctx, "sum", XGPU_F32, 1 << 20, &c),
                 XGPU_ERROR_INVALID_ARGUMENT, "XGPU_REDUCE_PARAMS");
        XT_FAILS(xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_F32, in, 0, 1024, out, 0, NULL),
                 XGPU_ERROR_INVALID_ARGUMENT, "is malformed");
    }
    /* Well formed, but groups are powers of two. */
    setenv("XGPU_REDUCE_PARAMS", "group=3,gpcu=3,unroll=1,vec=1,chunked=2", 1);
    XT_FAILS(xgpu_reduce(xt.queue, XGPU_REDUCE_MAX, XGPU_F32, in, 0, 1024, out, 0, NULL),
             XGPU_ERROR_INVALID_ARGUMENT, "cannot run on");
    XT_FAILS(xgpu_tune_lookup(xt.ctx, "minmax", XGPU_F32, 1 << 20, &c), XGPU_ERROR_INVALID_ARGUMENT,
             "cannot run on");
    setenv("XGPU_REDUCE_PARAMS", "", 1); /* empty: as unset */
    XT_OK(xgpu_tune_lookup(xt.ctx, "sum", XGPU_F32, 1 << 20, &c));
    assert_int_not_equal(c.origin, XGPU_TUNE_ORIGIN_ENV);
    unsetenv("XGPU_REDUCE_PARAMS");

    setenv("XGPU_STREAM_PARAMS", "group=16,gpcu=3,chunked=2,unroll=0", 1);
    XT_OK(xgpu_tune_lookup(xt.ctx, "stream", XGPU_F32, 1 << 20, &c));
    assert_int_equal(c.origin, XGPU_TUNE_ORIGIN_ENV);
    assert_string_equal(c.params, "group=16,gpcu=3,chunked=2,unroll=0");
    unsetenv("XGPU_STREAM_PARAMS");

    setenv("XGPU_GEMM_PARAMS", "32,32,8,4,4", 1);
    XT_OK(xgpu_tune_lookup(xt.ctx, "gemm", XGPU_F32, 1 << 20, &c));
    assert_int_equal(c.origin, XGPU_TUNE_ORIGIN_ENV);
    assert_non_null(strstr(c.params, "tm=32,tn=32,tk=8,wm=4,wn=4"));
    assert_non_null(strstr(c.source, "XGPU_GEMM_PARAMS"));
    setenv("XGPU_GEMM_PARAMS", "32,32,8", 1);
    XT_FAILS(xgpu_tune_lookup(xt.ctx, "gemm", XGPU_F32, 1 << 20, &c), XGPU_ERROR_INVALID_ARGUMENT,
             "xgpu_tune_lookup: XGPU_GEMM_PARAMS");
    unsetenv("XGPU_GEMM_PARAMS");
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
}

static void bad_arguments_are_refused(void **state) {
    (void)state;
    xgpu_tune_options o = quick(1);
    xgpu_tune_choice c;
    XT_FAILS(xgpu_tune(NULL, "sum", XGPU_F32, &o, NULL), XGPU_ERROR_INVALID_HANDLE, "queue");
    XT_FAILS(xgpu_tune(xt.queue, "nosuch", XGPU_F32, &o, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "'nosuch'");
    XT_FAILS(xgpu_tune(xt.queue, NULL, XGPU_F32, &o, NULL), XGPU_ERROR_INVALID_ARGUMENT, NULL);
    XT_FAILS(xgpu_tune(xt.queue, "gemm", XGPU_I32, &o, NULL), XGPU_ERROR_UNSUPPORTED, "i32");
    XT_FAILS(xgpu_tune(xt.queue, "stream", XGPU_F16, &o, NULL), XGPU_ERROR_UNSUPPORTED, "f16");
    o.seconds = -1;
    XT_FAILS(xgpu_tune(xt.queue, "sum", XGPU_F32, &o, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "seconds");
    o.seconds = NAN;
    XT_FAILS(xgpu_tune(xt.queue, "sum", XGPU_F32, &o, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "seconds");
    XT_FAILS(xgpu_tune_lookup(NULL, "sum", XGPU_F32, 1, &c), XGPU_ERROR_INVALID_HANDLE, "context");
    XT_FAILS(xgpu_tune_lookup(xt.ctx, "sum", XGPU_F32, 1, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "choice");
    XT_FAILS(xgpu_tune_lookup(xt.ctx, "sums", XGPU_F32, 1, &c), XGPU_ERROR_INVALID_ARGUMENT,
             "'sums'");
    char small[4];
    XT_FAILS(xgpu_tune_db_path(NULL, 10), XGPU_ERROR_INVALID_ARGUMENT, "NULL");
    XT_FAILS(xgpu_tune_db_path(small, sizeof small), XGPU_ERROR_INVALID_SIZE, "bytes");
    char path[4200];
    XT_OK(xgpu_tune_db_path(path, sizeof path));
    assert_string_equal(path, db());
    /* A database that cannot be written (its folder is a file): the tune
     * fails and says where. */
    char file[4200], bad[4300];
    snprintf(file, sizeof file, "%s.notafolder", db());
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(bad, sizeof bad, "%s/tune.json", file);
    o = quick(1);
    o.db = bad;
    XT_FAILS(xgpu_tune(xt.queue, "sum", XGPU_F32, &o, NULL), XGPU_ERROR_IO, ".notafolder");
    unlink(file);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tune_is_stored_found_and_used),
        cmocka_unit_test(tune_resumes),
        cmocka_unit_test(gemm_tuned_is_right),
        cmocka_unit_test(gemm_bf16_tuned_is_right),
        cmocka_unit_test(gemm_large_winner_is_confirmed),
        cmocka_unit_test(damaged_database_is_set_aside),
        cmocka_unit_test(tuning_off_uses_defaults),
        cmocka_unit_test(params_from_the_environment),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return XT_RUN("tune", tests);
}
