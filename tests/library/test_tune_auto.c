/* XGPU_TUNE=auto on every device, with a tiny budget: the first use of a
 * kernel tunes it and stores the record (marked as an auto-tune) in the
 * database, and the call's result is right; another process reads the
 * record and tunes no more; a database that cannot be written fails soft
 * (the call succeeds with the lookup's choice). XGPU_TUNE_DB points at a
 * file of the build tree (CTest sets it). */
#define _GNU_SOURCE
#include "harness.h"

#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool child; /* run as the second process */

static const char *db(void) {
    const char *p = getenv("XGPU_TUNE_DB");
    assert_non_null(p);
    return p;
}

static char *read_all(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        return NULL;
    }
    char *text = calloc(1 << 22, 1);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 22) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* The f32 sum of n pseudo-random values through xgpu_reduce, against a
 * double sum, on a poisoned output. */
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
    xgpu_status st = xgpu_reduce(xt.queue, XGPU_REDUCE_SUM, XGPU_F32, in, 0, n, out, 0, NULL);
    float got = 0;
    if (st == XGPU_SUCCESS) {
        st = xgpu_buffer_read(xt.queue, out, 0, &got, 4, true, NULL);
    }
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
    free(h);
    XT_OK(st);
    if (!(fabs(got - want) <= 1e-5 * mag)) {
        fail_msg("sum of %zu: %.9g, expected %.9g", n, got, want);
    }
}

static void first_use_tunes_and_stores(void **state) {
    (void)state;
    static bool cleared;
    if (!cleared) { /* once: later devices add their records to it */
        unlink(db());
        cleared = true;
    }
    setenv("XGPU_TUNE", "auto", 1);
    /* A lookup says what a call would use now: it does not tune. */
    xgpu_tune_choice c;
    struct stat st;
    bool had = stat(db(), &st) == 0;
    XT_OK(xgpu_tune_lookup(xt.ctx, "sum", XGPU_F32, 400012, &c));
    assert_int_not_equal(c.origin, XGPU_TUNE_ORIGIN_AUTO);
    if (!had) {
        assert_int_not_equal(stat(db(), &st), 0);
    }
    check_sum(100003, 3); /* 400 KB: the small class */
    XT_OK(xgpu_tune_lookup(xt.ctx, "sum", XGPU_F32, 400012, &c));
    if (c.origin != XGPU_TUNE_ORIGIN_AUTO) {
        fail_msg("after the first use: origin %d (%s), not an auto-tune", c.origin, c.source);
    }
    assert_int_equal(c.fit, XGPU_TUNE_FIT_DEVICE);
    assert_false(c.shipped);
    assert_true(c.rate > 0);
    assert_non_null(strstr(c.source, "auto-tuned"));
    char *text = read_all(db());
    assert_non_null(text);
    assert_non_null(strstr(text, "\"origin\": \"auto\""));
    assert_non_null(strstr(text, xt.info.name));
    free(text);
    /* The tuned parameters give the right sums on other sizes. */
    check_sum(1, 4);
    check_sum(65536 + 17, 5);
}

/* Runs this program again as the second process, on the same devices. */
static void another_process_reads_it(void **state) {
    (void)state;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(n > 0);
    exe[n] = '\0';
    char *argv[] = {exe, (char *)"--second-process", NULL};
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, exe, NULL, NULL, argv, environ), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fail_msg("the second process failed (status %d)", status);
    }
}

/* In the second process: the record is read, the database untouched. */
static void record_is_read_not_retuned(void **state) {
    (void)state;
    char *text = read_all(db());
    if (!text || !strstr(text, xt.info.name)) {
        free(text);
        skip(); /* the first process has not reached this device yet */
    }
    free(text);
    struct stat before, after;
    assert_int_equal(stat(db(), &before), 0);
    xgpu_tune_choice c;
    XT_OK(xgpu_tune_lookup(xt.ctx, "sum", XGPU_F32, 400012, &c));
    check_sum(100003, 6);
    assert_int_equal(stat(db(), &after), 0);
    assert_int_equal(c.origin, XGPU_TUNE_ORIGIN_AUTO);
    assert_int_equal(c.fit, XGPU_TUNE_FIT_DEVICE);
    if (before.st_mtim.tv_sec != after.st_mtim.tv_sec ||
        before.st_mtim.tv_nsec != after.st_mtim.tv_nsec || before.st_ino != after.st_ino) {
        fail_msg("the second process wrote the database: it tuned again");
    }
}

/* A database that cannot be written (its folder is a file): the call
 * succeeds with the lookup's choice, the database is not created. */
static void unwritable_database_fails_soft(void **state) {
    (void)state;
    char file[4200], bad[4300];
    snprintf(file, sizeof file, "%s.notafolder", db());
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(bad, sizeof bad, "%s/tune.json", file);
    char saved[4200];
    snprintf(saved, sizeof saved, "%s", db());
    setenv("XGPU_TUNE_DB", bad, 1);
    /* minmax: never tuned in this process, so a tune is tried. */
    float h[1000];
    xt_random_f32(h, 1000, 11, -1, 1);
    float want = h[0];
    for (int i = 1; i < 1000; i++) {
        want = h[i] < want ? h[i] : want;
    }
    xgpu_buffer *in, *out;
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof h, &in));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &out));
    XT_OK(xgpu_buffer_write(xt.queue, in, 0, h, sizeof h, true, NULL));
    xgpu_status st = xgpu_reduce(xt.queue, XGPU_REDUCE_MIN, XGPU_F32, in, 0, 1000, out, 0, NULL);
    float got = NAN;
    if (st == XGPU_SUCCESS) {
        st = xgpu_buffer_read(xt.queue, out, 0, &got, 4, true, NULL);
    }
    xgpu_tune_choice c;
    xgpu_status looked = xgpu_tune_lookup(xt.ctx, "minmax", XGPU_F32, sizeof h, &c);
    setenv("XGPU_TUNE_DB", saved, 1);
    XT_OK(xgpu_buffer_release(in));
    XT_OK(xgpu_buffer_release(out));
    unlink(file);
    XT_OK(st);
    XT_OK(looked);
    assert_true(got == want);
    assert_int_not_equal(c.origin, XGPU_TUNE_ORIGIN_AUTO);
}

int main(int argc, char **argv) {
    child = argc > 1 && !strcmp(argv[1], "--second-process");
    setenv("XGPU_TUNE_BUDGET_S", "0.3", 1);
    if (child) {
        const struct CMUnitTest second[] = {
            cmocka_unit_test(record_is_read_not_retuned),
        };
        return XT_RUN("tune_auto.second", second);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_use_tunes_and_stores),
        cmocka_unit_test(another_process_reads_it),
        cmocka_unit_test(unwritable_database_fails_soft),
    };
    int rc = XT_RUN("tune_auto", tests);
    unsetenv("XGPU_TUNE");
    return rc;
}
