/* The tuning database without a device: the JSON reader, the parameters'
 * text, damaged and unknown entries, the fallback order, versions, and
 * concurrent writers. */
#define _GNU_SOURCE
#include "core_int.h"
#include "tunedb_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static char dir[256];

static void path_in(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", dir, name);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static xgpu__tune_key key_of(const char *device, const char *arch, const char *vendor,
                             const char *type, const char *driver) {
    xgpu__tune_key k = {0};
    snprintf(k.backend, sizeof k.backend, "opencl");
    snprintf(k.vendor, sizeof k.vendor, "%s", vendor);
    snprintf(k.type, sizeof k.type, "%s", type);
    snprintf(k.device, sizeof k.device, "%s", device);
    snprintf(k.arch, sizeof k.arch, "%s", arch);
    k.compute_units = 2;
    snprintf(k.driver, sizeof k.driver, "%s", driver);
    snprintf(k.compiler, sizeof k.compiler, "Test Platform; cc 1");
    snprintf(k.source, sizeof k.source, "0123456789abcdef");
    snprintf(k.xgpu, sizeof k.xgpu, "0.5.0");
    return k;
}

static xgpu__tune_record record(xgpu__tune_key key, const char *best, double rate) {
    xgpu__tune_record r = {0};
    r.key = key;
    snprintf(r.kernel, sizeof r.kernel, "sum");
    snprintf(r.dtype, sizeof r.dtype, "f32");
    snprintf(r.cls, sizeof r.cls, "large");
    snprintf(r.unit, sizeof r.unit, "GB/s");
    snprintf(r.best, sizeof r.best, "%s", best);
    r.best_rate = rate;
    r.size = 1 << 20;
    r.complete = true;
    return r;
}

static void json_reader(void **state) {
    (void)state;
    char why[200];
    const char *good = " {\"a\": [1, -2.5e3, true, false, null], \"s\": \"x\\u00e9\\n\\\"\","
                       " \"pair\": \"\\ud83d\\ude00\"} ";
    xgpu__json *v = xgpu__json_parse(good, strlen(good), why, sizeof why);
    assert_non_null(v);
    double d = 0;
    assert_false(xgpu__json_number(v, "a", &d)); /* an array, not a number */
    const xgpu__json *a = xgpu__json_get(v, "a");
    assert_non_null(a);
    assert_int_equal(a->child->next->number, -2500);
    assert_string_equal(xgpu__json_string(v, "s"), "x\xc3\xa9\n\"");
    assert_string_equal(xgpu__json_string(v, "pair"), "\xf0\x9f\x98\x80");
    assert_null(xgpu__json_string(v, "missing"));
    xgpu__json_free(v);
    const char *bad[] = {"",         "{",           "{\"a\" 1}",         "[1,]",    "[01]",
                         "\"\\x\"",  "\"\\ud800\"", "{\"a\":1} x",       "[1e999]", "tru",
                         "\"a\nb\"", "[-]",         "{\"a\":\"\\u12\"}", "[1.]",    "{1:2}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        v = xgpu__json_parse(bad[i], strlen(bad[i]), why, sizeof why);
        if (v) {
            fail_msg("'%s' was accepted", bad[i]);
        }
        assert_non_null(strstr(why, "at byte"));
    }
    /* Nesting is bounded: no stack overflow on a hostile file. */
    char deep[400];
    memset(deep, '[', sizeof deep);
    assert_null(xgpu__json_parse(deep, sizeof deep, why, sizeof why));
    assert_non_null(strstr(why, "nested deeper"));
    /* The size bounds the read: no terminator needed. */
    assert_null(xgpu__json_parse("[1, 2", 5, why, sizeof why));
}

static void params_text(void **state) {
    (void)state;
    xgpu__tune_values v = {{128, 64, 16, 8, 16, 1, 1}}, back;
    char text[XGPU__TUNE_PARAMS_MAX], why[160];
    xgpu__tune_format(XGPU__TK_GEMM, &v, text, sizeof text);
    assert_string_equal(text, "tm=128,tn=64,tk=16,wm=8,wn=16,vw=1,contig=1");
    assert_true(xgpu__tune_parse(XGPU__TK_GEMM, text, &back, why, sizeof why));
    assert_memory_equal(&v, &back, sizeof v);
    /* Any order, every field once. */
    assert_true(
        xgpu__tune_parse(XGPU__TK_STREAM, "chunked=1,group=64,gpcu=4", &back, why, sizeof why));
    assert_int_equal(back.v[0], 64);
    /* unroll came later: older text has none and means 0 (elements one at
     * a time); the text written now has it. */
    assert_int_equal(back.v[3], 0);
    back.v[3] = 2;
    xgpu__tune_format(XGPU__TK_STREAM, &back, text, sizeof text);
    assert_string_equal(text, "group=64,gpcu=4,chunked=1,unroll=2");
    const char *bad[] = {"group=64,gpcu=4",
                         "group=64,gpcu=4,chunked=1,x=1",
                         "group=64,group=64,gpcu=4,chunked=1",
                         "group=-1,gpcu=4,chunked=1",
                         "group=99999999,gpcu=4,chunked=1",
                         "group=64,gpcu=4,chunked=1,",
                         "group=64;gpcu=4;chunked=1",
                         ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        if (xgpu__tune_parse(XGPU__TK_STREAM, bad[i], &back, why, sizeof why)) {
            fail_msg("'%s' was accepted", bad[i]);
        }
        assert_true(why[0] != '\0');
    }
    /* Candidates and neighbours suit the device they are for. */
    xgpu_device_info cpu = {
        .type = XGPU_DEVICE_TYPE_CPU, .max_group_size = 4096, .local_mem_bytes = 65536};
    xgpu_device_info gpu = {
        .type = XGPU_DEVICE_TYPE_GPU, .max_group_size = 256, .local_mem_bytes = 16384};
    xgpu__tune_values list[256], near[64];
    for (int id = 0; id < XGPU__TK_COUNT; id++) {
        for (int g = 0; g < 2; g++) {
            const xgpu_device_info *info = g ? &gpu : &cpu;
            size_t n = xgpu__tune_candidates((xgpu__tune_kernel_id)id, XGPU_F32, info, list, 256);
            assert_true(n >= 2);
            for (size_t i = 0; i < n; i++) {
                assert_true(xgpu__tune_valid((xgpu__tune_kernel_id)id, XGPU_F32, info, &list[i],
                                             why, sizeof why));
            }
            size_t m =
                xgpu__tune_neighbours((xgpu__tune_kernel_id)id, XGPU_F32, info, &list[0], near, 64);
            assert_true(m >= 1);
            for (size_t i = 0; i < m; i++) {
                assert_true(
                    xgpu__tune_valid((xgpu__tune_kernel_id)id, XGPU_F32, info, &near[i], NULL, 0));
                assert_memory_not_equal(&near[i], &list[0], sizeof near[i]);
            }
        }
    }
    /* A group the device does not allow is refused with the reason. */
    xgpu__tune_values big = {{1024, 8, 4, 1, 0}};
    assert_false(xgpu__tune_valid(XGPU__TK_SUM, XGPU_F32, &gpu, &big, why, sizeof why));
    assert_non_null(strstr(why, "group"));
}

static void damaged_files(void **state) {
    (void)state;
    char path[300], why[400];
    path_in(path, sizeof path, "damaged.json");
    xgpu__tune_db db;
    /* Missing: an empty database, no error. */
    assert_int_equal(xgpu__tune_db_load(path, true, &db, why, sizeof why), XGPU__DB_OK);
    assert_int_equal(db.n, 0);
    const char *broken[] = {"not json", "{\"schema\": \"xgpu.tune/9\", \"records\": []}",
                            "{\"schema\": \"xgpu.tune/1\"}",
                            "{\"schema\": \"xgpu.tune/1\", "
                            "\"records\": [ {\"kernel\": \"su"};
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        write_text(path, broken[i]);
        why[0] = '\0';
        assert_int_equal(xgpu__tune_db_load(path, true, &db, why, sizeof why), XGPU__DB_DAMAGED);
        assert_int_equal(db.n, 0);
        assert_non_null(strstr(why, path));
    }
    /* Storing over a damaged file keeps the old one aside. */
    xgpu__tune_record r = record(key_of("dev", "arch", "v", "cpu", "1"),
                                 "group=4,gpcu=1,"
                                 "unroll=1,vec=64,"
                                 "chunked=1",
                                 10);
    assert_int_equal(xgpu__tune_db_store(path, &r, NULL, 0), XGPU_SUCCESS);
    char aside[320];
    snprintf(aside, sizeof aside, "%s.damaged", path);
    assert_int_equal(access(aside, F_OK), 0);
    assert_int_equal(xgpu__tune_db_load(path, true, &db, why, sizeof why), XGPU__DB_OK);
    assert_int_equal(db.n, 1);
    xgpu__tune_db_free(&db);
    /* A folder, not a file: refused with the reason. */
    assert_int_equal(xgpu__tune_db_load(dir, true, &db, why, sizeof why), XGPU__DB_UNREADABLE);
    /* Records that do not parse are skipped one by one; the rest stay. */
    const char *mixed = "{\"schema\": \"xgpu.tune/1\", \"records\": ["
                        "{\"kernel\": \"sum\"},"
                        "{\"kernel\": \"nosuch\", \"dtype\": \"f32\"},"
                        "7]}";
    write_text(path, mixed);
    assert_int_equal(xgpu__tune_db_load(path, true, &db, why, sizeof why), XGPU__DB_OK);
    assert_int_equal(db.n, 0);
    assert_int_equal(db.nraw, 2); /* the two objects, kept as text; not the 7 */
    xgpu__tune_db_free(&db);
    assert_int_equal(xgpu__tune_db_store(path, &r, NULL, 0), XGPU_SUCCESS);
    assert_int_equal(xgpu__tune_db_load(path, true, &db, why, sizeof why), XGPU__DB_OK);
    assert_int_equal(db.n, 1);
    /* A winner that is not the kernel's parameters makes the record void. */
    FILE *f = fopen(path, "r");
    char text[8192];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    char *best = strstr(text, "group=4,gpcu=1");
    assert_non_null(best);
    memcpy(best, "grope", 5);
    write_text(path, text);
    xgpu__tune_db_free(&db);
    assert_int_equal(xgpu__tune_db_load(path, true, &db, why, sizeof why), XGPU__DB_OK);
    assert_int_equal(db.n, 0);
    xgpu__tune_db_free(&db);
}

/* Nothing is lost: a second damaged file gets a name of its own; a folder
 * or other non-file at the path is left alone and the store fails; records
 * this build does not read are written back; two tunes of one record
 * merge their candidates. */
static void nothing_is_lost(void **state) {
    (void)state;
    char path[300], aside[320], why[400];
    path_in(path, sizeof path, "lost.json");
    xgpu__tune_record r = record(key_of("dev", "arch", "v", "cpu", "1"),
                                 "group=4,gpcu=1,unroll=1,vec=64,chunked=1", 10);
    for (int i = 0; i < 2; i++) {
        write_text(path, i ? "garbage B" : "garbage A");
        char note[700] = "";
        assert_int_equal(xgpu__tune_db_store(path, &r, note, sizeof note), XGPU_SUCCESS);
        assert_non_null(strstr(note, ".damaged"));
    }
    snprintf(aside, sizeof aside, "%s.damaged", path);
    char *a = NULL;
    FILE *f = fopen(aside, "r");
    assert_non_null(f);
    char text[64] = "";
    a = fgets(text, sizeof text, f);
    fclose(f);
    assert_non_null(a);
    assert_string_equal(text, "garbage A");
    snprintf(aside, sizeof aside, "%s.damaged.1", path);
    f = fopen(aside, "r");
    assert_non_null(f);
    a = fgets(text, sizeof text, f);
    fclose(f);
    assert_string_equal(text, "garbage B");
    /* A folder at the path: an error, and the folder as it was. */
    char folder[300], inside[340];
    path_in(folder, sizeof folder, "folder.json");
    assert_int_equal(mkdir(folder, 0700), 0);
    snprintf(inside, sizeof inside, "%s/keep.txt", folder);
    write_text(inside, "keep");
    assert_int_equal(xgpu__tune_db_store(folder, &r, NULL, 0), XGPU_ERROR_IO);
    assert_int_equal(access(inside, R_OK), 0);
    /* Another xgpu's record (an unknown kernel) comes back unchanged. */
    write_text(path, "{\"schema\": \"xgpu.tune/1\", \"records\": [{\"kernel\": \"softmax\", "
                     "\"future\": [1, 2]}]}");
    assert_int_equal(xgpu__tune_db_store(path, &r, NULL, 0), XGPU_SUCCESS);
    char *back = NULL;
    f = fopen(path, "r");
    assert_non_null(f);
    char big[8192];
    size_t len = fread(big, 1, sizeof big - 1, f);
    fclose(f);
    big[len] = '\0';
    back = strstr(big, "{\"kernel\": \"softmax\", \"future\": [1, 2]}");
    assert_non_null(back);
    xgpu__tune_db db;
    assert_int_equal(xgpu__tune_db_load(path, true, &db, why, sizeof why), XGPU__DB_OK);
    assert_int_equal(db.n, 1);
    assert_int_equal(db.nraw, 1);
    xgpu__tune_db_free(&db);
    /* Two tunes of one record: candidates joined, the better winner kept. */
    xgpu__tune_try t1 = {"group=4,gpcu=1,unroll=1,vec=64,chunked=1", 10, "ok"};
    xgpu__tune_try t2 = {"group=8,gpcu=1,unroll=1,vec=64,chunked=1", 20, "ok"};
    xgpu__tune_record first = record(key_of("dev2", "a", "v", "cpu", "1"), t2.params, 20);
    first.tried = &t2;
    first.ntried = 1;
    xgpu__tune_record second = record(key_of("dev2", "a", "v", "cpu", "1"), t1.params, 10);
    second.tried = &t1;
    second.ntried = 1;
    assert_int_equal(xgpu__tune_db_store(path, &first, NULL, 0), XGPU_SUCCESS);
    assert_int_equal(xgpu__tune_db_store(path, &second, NULL, 0), XGPU_SUCCESS);
    assert_int_equal(xgpu__tune_db_load(path, true, &db, why, sizeof why), XGPU__DB_OK);
    bool found = false;
    for (size_t i = 0; i < db.n; i++) {
        if (!strcmp(db.recs[i].key.device, "dev2")) {
            found = true;
            assert_int_equal(db.recs[i].ntried, 2);
            assert_string_equal(db.recs[i].best, t2.params);
        }
    }
    assert_true(found);
    xgpu__tune_db_free(&db);
}

/* The best of `dev` in the file at `path`, and its entry's status for
 * `params`. */
static void best_of(const char *path, const char *dev, const char *params, char *best,
                    char *status) {
    xgpu__tune_db db;
    char why[400];
    assert_int_equal(xgpu__tune_db_load(path, true, &db, why, sizeof why), XGPU__DB_OK);
    best[0] = status[0] = '\0';
    for (size_t i = 0; i < db.n; i++) {
        if (!strcmp(db.recs[i].key.device, dev)) {
            snprintf(best, 128, "%s", db.recs[i].best);
            for (size_t j = 0; j < db.recs[i].ntried; j++) {
                if (!strcmp(db.recs[i].tried[j].params, params)) {
                    snprintf(status, 16, "%s", db.recs[i].tried[j].status);
                }
            }
        }
    }
    xgpu__tune_db_free(&db);
}

/* A winner one tune found slower (GEMM's large confirmation) or failed
 * stays so when another tune of the record, which saw it "ok" and best,
 * stores after it, in either order; that tune's best gives way to the
 * first one's. */
static void a_failure_outlives_a_merge(void **state) {
    (void)state;
    char path[300], best[128], status[16];
    path_in(path, sizeof path, "slower.json");
    const char *builtin = "group=4,gpcu=1,unroll=1,vec=64,chunked=1";
    const char *fast = "group=8,gpcu=1,unroll=1,vec=64,chunked=1";
    xgpu__tune_key k = key_of("dev3", "a", "v", "cpu", "1");
    xgpu__tune_try seen_ok[2] = {{"", 200, "ok"}, {"", 210, "ok"}};
    xgpu__tune_try seen_slow[2] = {{"", 200, "ok"}, {"", 0, "slower"}};
    for (int t = 0; t < 2; t++) {
        snprintf(seen_ok[t].params, sizeof seen_ok[t].params, "%s", t ? fast : builtin);
        snprintf(seen_slow[t].params, sizeof seen_slow[t].params, "%s", t ? fast : builtin);
    }
    xgpu__tune_record optimist = record(k, fast, 210), confirmed = record(k, builtin, 200);
    optimist.tried = seen_ok;
    optimist.ntried = 2;
    confirmed.tried = seen_slow;
    confirmed.ntried = 2;
    for (int order = 0; order < 2; order++) {
        unlink(path);
        xgpu__tune_record *a = order ? &confirmed : &optimist, *b = order ? &optimist : &confirmed;
        assert_int_equal(xgpu__tune_db_store(path, a, NULL, 0), XGPU_SUCCESS);
        assert_int_equal(xgpu__tune_db_store(path, b, NULL, 0), XGPU_SUCCESS);
        best_of(path, "dev3", fast, best, status);
        assert_string_equal(best, builtin);
        assert_string_equal(status, "slower");
    }
    /* With the built-in unknown to the other tune, the best sound rest. */
    unlink(path);
    xgpu__tune_try only_slow = {"", 0, "slower"};
    snprintf(only_slow.params, sizeof only_slow.params, "%s", fast);
    xgpu__tune_record lone = record(k, "", 0);
    lone.tried = &only_slow;
    lone.ntried = 1;
    assert_int_equal(xgpu__tune_db_store(path, &lone, NULL, 0), XGPU_SUCCESS);
    assert_int_equal(xgpu__tune_db_store(path, &optimist, NULL, 0), XGPU_SUCCESS);
    best_of(path, "dev3", fast, best, status);
    assert_string_equal(best, builtin);
    assert_string_equal(status, "slower");
}

/* Refuses the records of one device, as a lookup refuses parameters the
 * device cannot run. */
static bool not_this_device(const xgpu__tune_record *rec, void *user) {
    return strcmp(rec->key.device, user) != 0;
}

static void fallback_order(void **state) {
    (void)state;
    const char *p = "group=4,gpcu=1,unroll=1,vec=64,chunked=1";
    xgpu__tune_key me = key_of("pocl-zen", "znver3", "AuthenticAMD", "cpu", "3.1");
    xgpu__tune_db db = {0};
    xgpu__tune_record recs[] = {
        record(key_of("other-gpu", "sm_90", "NVIDIA", "gpu", "580"), p, 1000),      /* none */
        record(key_of("intel-cpu", "skylake", "GenuineIntel", "cpu", "3.1"), p, 5), /* warm */
        record(key_of("pocl-zen2", "znver2", "AuthenticAMD", "cpu", "3.1"), p, 6),  /* vendor */
        record(key_of("pocl-zen-b", "znver3", "AuthenticAMD", "cpu", "3.1"), p, 7), /* arch */
        record(me, p, 8),                                                           /* exact */
    };
    xgpu__tune_level want[] = {XGPU__TL_NONE, XGPU__TL_WARM, XGPU__TL_VENDOR, XGPU__TL_ARCH,
                               XGPU__TL_EXACT};
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(xgpu__tune_fit(&recs[i], &me), want[i]);
    }
    /* Added from the farthest to the closest, each closer one wins; a
     * warm start never does. */
    for (size_t i = 0; i < 5; i++) {
        assert_true(xgpu__tune_db_put(&db, &recs[i]));
        xgpu__tune_level level = XGPU__TL_NONE;
        long at = xgpu__tune_db_match(&db, &me, "sum", "f32", "large", &level, NULL, NULL);
        assert_int_equal(at, i <= 1 ? -1 : (long)i);
        assert_int_equal(level, i <= 1 ? XGPU__TL_NONE : want[i]);
    }
    /* A refused entry gives way to the next closest. */
    xgpu__tune_level lv = XGPU__TL_NONE;
    assert_int_equal(xgpu__tune_db_match(&db, &me, "sum", "f32", "large", &lv, not_this_device,
                                         (void *)"pocl-zen"),
                     3);
    assert_int_equal(lv, XGPU__TL_ARCH);
    /* Another kernel, dtype or class: nothing. */
    xgpu__tune_level level = XGPU__TL_NONE;
    assert_int_equal(xgpu__tune_db_match(&db, &me, "sum", "f64", "large", &level, NULL, NULL), -1);
    assert_int_equal(xgpu__tune_db_match(&db, &me, "argmax", "f32", "large", &level, NULL, NULL),
                     -1);
    assert_int_equal(xgpu__tune_db_match(&db, &me, "sum", "f32", "small", &level, NULL, NULL), -1);
    /* An unknown device type matches nothing; nor does a device of a
     * known type with nothing else in common (its entries are warm starts). */
    xgpu__tune_key accel = key_of("fpga", "x", "y", "accel", "1");
    level = XGPU__TL_NONE;
    assert_int_equal(xgpu__tune_db_match(&db, &accel, "sum", "f32", "large", &level, NULL, NULL),
                     -1);
    xgpu__tune_key stranger = key_of("risc-v", "rv64", "someone", "cpu", "1");
    level = XGPU__TL_NONE;
    assert_int_equal(xgpu__tune_db_match(&db, &stranger, "sum", "f32", "large", &level, NULL, NULL),
                     -1);
    assert_int_equal(level, XGPU__TL_NONE);
    assert_true(xgpu__tune_db_has_warm(&db, &stranger, "sum", "f32", "large"));
    /* Putting the same device again replaces its record. */
    xgpu__tune_record again = record(me, p, 9);
    assert_true(xgpu__tune_db_put(&db, &again));
    assert_int_equal(db.n, 5);
    assert_true(db.recs[4].best_rate == 9);
    /* A record without a verified winner is never chosen. */
    xgpu__tune_record empty =
        record(key_of("pocl-zen", "znver3", "AuthenticAMD", "cpu", "3.1"), "", 0);
    snprintf(empty.kernel, sizeof empty.kernel, "argmax");
    assert_true(xgpu__tune_db_put(&db, &empty));
    level = XGPU__TL_NONE;
    assert_int_equal(xgpu__tune_db_match(&db, &me, "argmax", "f32", "large", &level, NULL, NULL),
                     -1);
    xgpu__tune_db_free(&db);
}

static void version_change(void **state) {
    (void)state;
    xgpu__tune_key me = key_of("pocl-zen", "znver3", "AuthenticAMD", "cpu", "3.1");
    const char *p = "group=4,gpcu=1,unroll=1,vec=64,chunked=1";
    /* A new driver, compiler or xgpu: this device's entry is no longer
     * exact; it falls back to the arch's level (a warm start, not a
     * silent winner). */
    const char *fields[] = {"driver", "compiler", "xgpu"};
    for (size_t i = 0; i < 3; i++) {
        xgpu__tune_key old = me;
        if (i == 0) {
            snprintf(old.driver, sizeof old.driver, "3.0");
        } else if (i == 1) {
            snprintf(old.compiler, sizeof old.compiler, "Test Platform; cc 0");
        } else {
            snprintf(old.xgpu, sizeof old.xgpu, "0.4.0");
        }
        xgpu__tune_record r = record(old, p, 5);
        if (xgpu__tune_fit(&r, &me) != XGPU__TL_ARCH) {
            fail_msg("a changed %s still fits exactly", fields[i]);
        }
    }
    /* Another kernel source: the parameters may mean something else. */
    xgpu__tune_key src = me;
    snprintf(src.source, sizeof src.source, "fedcba9876543210");
    xgpu__tune_record r = record(src, p, 5);
    assert_int_equal(xgpu__tune_fit(&r, &me), XGPU__TL_NONE);
    /* Both records survive a store: the old one for the old driver. */
    char path[300];
    path_in(path, sizeof path, "versions.json");
    xgpu__tune_key old = me;
    snprintf(old.driver, sizeof old.driver, "3.0");
    xgpu__tune_record a = record(old, p, 5), b = record(me, p, 6);
    assert_int_equal(xgpu__tune_db_store(path, &a, NULL, 0), XGPU_SUCCESS);
    assert_int_equal(xgpu__tune_db_store(path, &b, NULL, 0), XGPU_SUCCESS);
    xgpu__tune_db db;
    char why[300];
    assert_int_equal(xgpu__tune_db_load(path, true, &db, why, sizeof why), XGPU__DB_OK);
    assert_int_equal(db.n, 2);
    xgpu__tune_level level = XGPU__TL_NONE;
    long at = xgpu__tune_db_match(&db, &me, "sum", "f32", "large", &level, NULL, NULL);
    assert_int_equal(level, XGPU__TL_EXACT);
    assert_true(db.recs[at].best_rate == 6);
    xgpu__tune_db_free(&db);
}

/* Writers in several processes at once: every record arrives, the file
 * always parses. */
static void concurrent_writers(void **state) {
    (void)state;
    char path[300];
    path_in(path, sizeof path, "concurrent.json");
    enum { PROCS = 6, EACH = 15 };
    pid_t pids[PROCS];
    for (int w = 0; w < PROCS; w++) {
        pids[w] = fork();
        assert_true(pids[w] >= 0);
        if (pids[w] == 0) {
            for (int i = 0; i < EACH; i++) {
                char name[64];
                snprintf(name, sizeof name, "dev-%d-%d", w, i);
                xgpu__tune_record r =
                    record(key_of(name, "a", "v", "cpu", "1"),
                           "group=4,gpcu=1,unroll=1,vec=64,chunked=1", w * 100 + i);
                xgpu__tune_try t = {"group=4,gpcu=1,unroll=1,vec=64,chunked=1", 1, "ok"};
                r.tried = &t;
                r.ntried = 1;
                if (xgpu__tune_db_store(path, &r, NULL, 0) != XGPU_SUCCESS) {
                    _exit(1);
                }
                /* A reader in between always sees a whole file. */
                xgpu__tune_db db;
                char why[300];
                if (xgpu__tune_db_load(path, true, &db, why, sizeof why) != XGPU__DB_OK) {
                    _exit(2);
                }
                xgpu__tune_db_free(&db);
            }
            _exit(0);
        }
    }
    for (int w = 0; w < PROCS; w++) {
        int status = 0;
        assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    xgpu__tune_db db;
    char why[300];
    assert_int_equal(xgpu__tune_db_load(path, true, &db, why, sizeof why), XGPU__DB_OK);
    assert_int_equal(db.n, PROCS * EACH);
    xgpu__tune_db_free(&db);
}

/* The entries built into the library parse whole: no record is skipped. */
static void shipped_entries_parse(void **state) {
    (void)state;
    xgpu__tune_db db;
    char why[300] = "";
    assert_true(xgpu__tune_db_parse(xgpu__tune_shipped, strlen(xgpu__tune_shipped), true, &db, why,
                                    sizeof why));
    size_t records = 0;
    for (const char *p = xgpu__tune_shipped; (p = strstr(p, "\"kernel\"")); p++) {
        records++;
    }
    assert_int_equal(db.n, records);
    for (size_t i = 0; i < db.n; i++) {
        assert_true(db.recs[i].best[0] != '\0');
        assert_true(db.recs[i].best_rate > 0);
    }
    xgpu__tune_db_free(&db);
}

/* Every shipped record can be used by the build it ships with: its
 * kernel's source hash is this build's (any change under kernels/, or to
 * the prelude, makes the old entries dead weight that no lookup takes),
 * the search was complete, and its winner parses and was verified.
 * Fails naming each record that is not, and what to do. */
static void shipped_entries_match_these_kernels(void **state) {
    (void)state;
    xgpu__tune_db db;
    char why[300] = "";
    assert_true(xgpu__tune_db_parse(xgpu__tune_shipped, strlen(xgpu__tune_shipped), true, &db, why,
                                    sizeof why));
    size_t bad = 0;
    for (size_t i = 0; i < db.n; i++) {
        const xgpu__tune_record *r = &db.recs[i];
        int id = xgpu__tune_kernel_find(r->kernel);
        char problem[600] = "";
        xgpu__tune_values v;
        bool verified = false;
        for (size_t t = 0; t < r->ntried; t++) {
            verified |= !strcmp(r->tried[t].params, r->best) && !strcmp(r->tried[t].status, "ok");
        }
        if (id < 0 || xgpu__tune_class_find(r->cls) < 0) {
            snprintf(problem, sizeof problem, "unknown kernel or class");
        } else if (strcmp(r->key.source, xgpu__tune_source_hash((xgpu__tune_kernel_id)id)) != 0) {
            snprintf(problem, sizeof problem,
                     "made with kernel source %s, this build's is %s: never used", r->key.source,
                     xgpu__tune_source_hash((xgpu__tune_kernel_id)id));
        } else if (!r->complete) {
            snprintf(problem, sizeof problem, "an incomplete search");
        } else if (!xgpu__tune_parse((xgpu__tune_kernel_id)id, r->best, &v, why, sizeof why)) {
            snprintf(problem, sizeof problem, "best '%.128s' does not parse: %.300s", r->best, why);
        } else if (!verified) {
            snprintf(problem, sizeof problem, "best '%.128s' is not among its verified candidates",
                     r->best);
        }
        if (problem[0]) {
            print_message("runtime/tune/shipped.json record %zu (%s %s %s, %s): %s\n", i + 1,
                          r->kernel, r->dtype, r->cls, r->key.device, problem);
            bad++;
        }
    }
    xgpu__tune_db_free(&db);
    if (bad) {
        fail_msg("%zu shipped record(s) cannot be used: re-tune the device and merge the records "
                 "with scripts/tune-ship.py (runtime/tune/README.md), which drops records made "
                 "with other kernel sources, or delete them",
                 bad);
    }
}

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "%s/xgpu-tune-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_reader),
        cmocka_unit_test(params_text),
        cmocka_unit_test(damaged_files),
        cmocka_unit_test(fallback_order),
        cmocka_unit_test(version_change),
        cmocka_unit_test(concurrent_writers),
        cmocka_unit_test(shipped_entries_parse),
        cmocka_unit_test(shipped_entries_match_these_kernels),
        cmocka_unit_test(nothing_is_lost),
        cmocka_unit_test(a_failure_outlives_a_merge),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
