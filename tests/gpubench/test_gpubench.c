/* gpubench end to end: each benchmark's verification catches an injected
 * wrong result; JSON and CSV parse; report merges two machines into
 * Markdown and HTML; a truncated file is skipped with a warning.
 * Launchers, ranks and --all-devices: test_fleet.c; the fleet report:
 * test_report.c. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "xt_file.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static char *run(const char *cmdline, int *status) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s 2>&1", cmdline);
    char *out = xt_run_command(cmd, status);
    assert_non_null(out);
    return out;
}

static void verification_catches_injected_errors(void **state) {
    (void)state;
    static const char *const benches[] = {"gemm", "reduce", "stream", "transfer", "launch"};
    for (size_t i = 0; i < 5; i++) {
        char cmd[512];
        int status = 0;
        snprintf(cmd, sizeof cmd, "%s -b %s --size 1 --reps 3", GPUBENCH, benches[i]);
        char *out = run(cmd, &status);
        if (status != 0 || strstr(out, "FAILED")) {
            fail_msg("%s clean: status %d\n%s", benches[i], status, out);
        }
        free(out);
        snprintf(cmd, sizeof cmd, "XGPU_GPUBENCH_INJECT=%s %s -b %s --size 1 --reps 3", benches[i],
                 GPUBENCH, benches[i]);
        out = run(cmd, &status);
        if (status != 1 || !strstr(out, "FAILED")) {
            fail_msg("%s with a wrong result: status %d\n%s", benches[i], status, out);
        }
        free(out);
    }
}

static void json_and_csv_parse(void **state) {
    (void)state;
    char cmd[512];
    int status = 0;
    snprintf(cmd, sizeof cmd,
             "%s -b gemm,launch --size 32 --reps 3 --json gb-test.json --csv gb-test.csv",
             GPUBENCH);
    time_t before = time(NULL);
    char *out = run(cmd, &status);
    time_t after = time(NULL);
    assert_int_equal(status, 0);
    free(out);
    char *text = xt_read_file("gb-test.json", NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    if (!root) {
        fail_msg("gpubench --json is not valid JSON near: %.60s", cJSON_GetErrorPtr());
    }
    assert_string_equal(cJSON_GetObjectItem(root, "schema")->valuestring, "xgpu.gpubench/1");
    /* When the run began, in UTC, right after the version. */
    const cJSON *started = cJSON_GetObjectItem(root, "started_utc");
    assert_true(cJSON_IsString(started));
    char lo[32], hi[32];
    struct tm utc;
    strftime(lo, sizeof lo, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&before, &utc));
    strftime(hi, sizeof hi, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&after, &utc));
    /* The same form sorts as the time does. */
    if (strlen(started->valuestring) != strlen(lo) || strcmp(started->valuestring, lo) < 0 ||
        strcmp(started->valuestring, hi) > 0) {
        fail_msg("started_utc %s is not a UTC time within the run (%s to %s)", started->valuestring,
                 lo, hi);
    }
    const char *version_at = strstr(text, "\n\"xgpu_version\": ");
    const char *started_at = strstr(text, "\n\"started_utc\": ");
    assert_true(version_at && started_at > version_at && started_at < strstr(text, "\n\"rank\": "));
    cJSON *info = cJSON_GetObjectItem(root, "gpuinfo");
    assert_string_equal(cJSON_GetObjectItem(info, "schema")->valuestring, "xgpu.gpuinfo/1");
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(root, "command_line")));
    cJSON *results = cJSON_GetObjectItem(root, "results");
    int n = cJSON_GetArraySize(results);
    assert_true(n >= 4);
    cJSON *r;
    cJSON_ArrayForEach(r, results) {
        static const char *const keys[] = {
            "bench", "impl",  "device",   "backend",  "dtype",    "shape",      "median_s",
            "min_s", "max_s", "stddev_s", "pct_peak", "verified", "max_rel_err"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            if (!cJSON_GetObjectItem(r, keys[k])) {
                fail_msg("result lacks %s", keys[k]);
            }
        }
        assert_true(cJSON_GetObjectItem(r, "gflops") || cJSON_GetObjectItem(r, "gbs") ||
                    cJSON_GetObjectItem(r, "us"));
        /* GEMM rows say what ran and which peak they are read against. */
        static const char *const gemm_keys[] = {"c_dtype", "path",        "compute",
                                                "batch",   "peak_gflops", "peak_source"};
        bool gemm = !strcmp(cJSON_GetObjectItem(r, "bench")->valuestring, "gemm");
        for (size_t k = 0; gemm && k < sizeof gemm_keys / sizeof gemm_keys[0]; k++) {
            if (!cJSON_GetObjectItem(r, gemm_keys[k])) {
                fail_msg("gemm result lacks %s", gemm_keys[k]);
            }
        }
        if (gemm && !strcmp(cJSON_GetObjectItem(r, "impl")->valuestring, "clblast") &&
            !strcmp(cJSON_GetObjectItem(r, "dtype")->valuestring, "f32")) {
            assert_string_equal(cJSON_GetObjectItem(r, "path")->valuestring, "CLBlastSgemm");
            assert_int_equal(cJSON_GetObjectItem(r, "batch")->valueint, 1);
        }
    }
    cJSON_Delete(root);
    free(text);
    char *csv = xt_read_file("gb-test.csv", NULL);
    assert_non_null(csv);
    int lines = 0;
    for (char *p = csv; *p; p++) {
        lines += *p == '\n';
    }
    assert_int_equal(lines, n + 1); /* header + one row per result */
    assert_true(strncmp(csv, "host,bench,impl,device", 22) == 0);
    free(csv);
}

/* The launch benchmark reports the core's own cost per launch, measured on
 * the null backend in a child run, in the table, the JSON and the CSV.
 * Only that it is there and sane: the 0.3 us goal is the benchmark's to
 * show, never a test's to assert. */
static void launch_reports_core_overhead(void **state) {
    (void)state;
    char cmd[512];
    int status = 0;
    snprintf(cmd, sizeof cmd, "%s -b launch --json gb-core.json --csv gb-core.csv", GPUBENCH);
    char *out = run(cmd, &status);
    if (status != 0 || !strstr(out, "core overhead") || !strstr(out, "x the raw ")) {
        fail_msg("gpubench -b launch: status %d, no core-overhead row:\n%s", status, out);
    }
    free(out);
    char *text = xt_read_file("gb-core.json", NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    int rows = 0;
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results")) {
        if (strcmp(cJSON_GetObjectItem(r, "shape")->valuestring, "core overhead")) {
            continue;
        }
        rows++;
        assert_string_equal(cJSON_GetObjectItem(r, "bench")->valuestring, "launch");
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r, "verified")));
        double us = cJSON_GetObjectItem(r, "us")->valuedouble;
        double median = cJSON_GetObjectItem(r, "median_s")->valuedouble;
        assert_true(isfinite(us) && us > 0);
        assert_true(isfinite(median) && median > 0 &&
                    median <= cJSON_GetObjectItem(r, "max_s")->valuedouble);
        assert_true(cJSON_GetObjectItem(r, "reps")->valueint > 0);
    }
    assert_int_equal(rows, 1);
    /* The null backend ran in the child only: this run's devices lack it. */
    assert_null(strstr(text, "null device"));
    cJSON_Delete(root);
    free(text);
    char *csv = xt_read_file("gb-core.csv", NULL);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "\"launch\",\"xgpu\""));
    assert_non_null(strstr(csv, "\"core overhead\""));
    free(csv);
}

static void report_merges_two_machines(void **state) {
    (void)state;
    char cmd[1024];
    int status = 0;
    for (int m = 0; m < 2; m++) {
        snprintf(cmd, sizeof cmd,
                 "XGPU_GPUBENCH_HOST=%s %s -b gemm,stream --size %d --reps 3 --json gb-%s.json",
                 m ? "machine-beta" : "machine-alpha", GPUBENCH, m ? 64 : 32, m ? "beta" : "alpha");
        free(run(cmd, &status));
        assert_int_equal(status, 0);
    }
    snprintf(cmd, sizeof cmd, "%s report -o gb-report gb-alpha.json gb-beta.json", GPUBENCH);
    char *out = run(cmd, &status);
    assert_int_equal(status, 0);
    free(out);
    char *md = xt_read_file("gb-report.md", NULL), *html = xt_read_file("gb-report.html", NULL);
    assert_non_null(md);
    assert_non_null(html);
    assert_non_null(strstr(md, "machine-alpha"));
    assert_non_null(strstr(md, "machine-beta"));
    assert_non_null(strstr(html, "machine-alpha"));
    assert_non_null(strstr(html, "machine-beta"));
    assert_non_null(strstr(html, "<svg"));
    assert_non_null(strstr(html, "<polyline"));
    free(md);
    free(html);
    /* Today's files give each device of the table its date, xgpu version
     * and, from gpuinfo's document, backend and driver. */
    char *text = xt_read_file("gb-report.json", NULL);
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    const cJSON *table = cJSON_GetObjectItem(j, "device_table"), *d;
    assert_true(cJSON_GetArraySize(table) >= 2); /* a device of each machine */
    cJSON_ArrayForEach(d, table) {
        static const char *const keys[] = {"started_utc", "xgpu_version", "backend",
                                           "driver_version"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            if (!cJSON_IsString(cJSON_GetObjectItem(d, keys[k]))) {
                fail_msg("a device of the table has no %s:\n%s", keys[k], text);
            }
        }
        assert_string_equal(cJSON_GetObjectItem(d, "xgpu_version")->valuestring,
                            xgpu_version_string());
    }
    assert_true(cJSON_IsString(
        cJSON_GetObjectItem(cJSON_GetObjectItem(j, "headline"), "first_started_utc")));
    cJSON_Delete(j);
    free(text);
}

static void report_refuses_bad_files(void **state) {
    (void)state;
    char *text = xt_read_file("gb-alpha.json", NULL);
    assert_non_null(text);
    FILE *f = fopen("gb-truncated.json", "w");
    fwrite(text, 1, strlen(text) / 2, f);
    fclose(f);
    free(text);
    f = fopen("gb-foreign.json", "w");
    fputs("{\"schema\": \"something/else\", \"results\": []}\n", f);
    fclose(f);
    char cmd[512];
    int status = 0;
    /* A bad file is skipped with a warning; the others make the report. */
    snprintf(cmd, sizeof cmd, "%s report -o gb-skip gb-alpha.json gb-truncated.json", GPUBENCH);
    char *out = run(cmd, &status);
    assert_int_equal(status, 0);
    assert_non_null(
        strstr(out, "gpubench report: warning: gb-truncated.json: skipped: not valid JSON"));
    free(out);
    /* With nothing left to merge, the report fails. */
    snprintf(cmd, sizeof cmd, "%s report gb-foreign.json", GPUBENCH);
    out = run(cmd, &status);
    assert_int_equal(status, 2);
    assert_non_null(strstr(out, "gb-foreign.json: skipped: not a gpubench result file"));
    assert_non_null(strstr(out, "no result file could be merged"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s report no-such-file.json", GPUBENCH);
    out = run(cmd, &status);
    assert_int_equal(status, 2);
    assert_non_null(strstr(out, "no-such-file.json: skipped: cannot read"));
    free(out);
}

/* A result file written by hand: host and the results array's text. */
static void write_results(const char *path, const char *host, const char *results) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"schema\": \"xgpu.gpubench/1\", \"host\": %s, \"results\": [%s]}\n", host,
            results);
    assert_int_equal(fclose(f), 0);
}

#define ROW_HEAD                                                                                   \
    "\"bench\": \"gemm\", \"impl\": \"xgpu\", \"device\": \"opencl:0\", \"dtype\": \"f32\", "
#define GOOD_ROW                                                                                   \
    "{" ROW_HEAD "\"device_name\": \"dev\", \"shape\": \"s\", \"size\": 64, \"gflops\": 2.5, "     \
    "\"verified\": true}"

/* Device names, hosts and shapes are text from another machine: in the
 * Markdown a '|' or a newline broke the table and HTML went through. */
static void report_escapes_markdown(void **state) {
    (void)state;
    write_results("gb-evil.json", "\"evil|host\"",
                  GOOD_ROW ", {" ROW_HEAD "\"device_name\": \"<script>alert(1)</script>|x\\ny\", "
                           "\"shape\": \"a*b_c`d`[e](f)\\\\\", \"size\": 64, \"gbs\": null, "
                           "\"verified\": false}");
    char cmd[512];
    int status = 0;
    snprintf(cmd, sizeof cmd, "%s report -o gb-evil gb-evil.json", GPUBENCH);
    char *out = run(cmd, &status);
    assert_int_equal(status, 0);
    free(out);
    char *md = xt_read_file("gb-evil.md", NULL);
    assert_non_null(md);
    if (strstr(md, "<script>") || !strstr(md, "&lt;script&gt;")) {
        fail_msg("HTML passed into the Markdown:\n%s", md);
    }
    /* Every line of a table has as many cell separators as its header. */
    int pipes_in_header = -1, rows = 0;
    bool in_results = false;
    for (char *line = md; *line;) {
        char *end = strchr(line, '\n');
        assert_non_null(end);
        int pipes = 0;
        for (char *p = line; p < end; p++) {
            pipes += *p == '|' && (p == line || p[-1] != '\\');
        }
        if (*line != '|') {
            pipes_in_header = -1;
        } else if (pipes_in_header < 0) {
            pipes_in_header = pipes;
        } else if (pipes != pipes_in_header) {
            fail_msg("%d cell separators, %d expected: %.*s", pipes, pipes_in_header,
                     (int)(end - line), line);
        } else if (in_results && line[1] != '-') {
            rows++;
        }
        if (!strncmp(line, "## ", 3)) {
            in_results = !strncmp(line, "## All results", 14);
        }
        line = end + 1;
    }
    assert_int_equal(rows, 2); /* both results, each on one line */
    free(md);
    char *html = xt_read_file("gb-evil.html", NULL);
    assert_null(strstr(html, "<script>"));
    free(html);
}

/* A field of the wrong type, or missing, is an error naming the file and
 * the key; it used to become an empty string or -1 without a word. */
static void report_names_the_bad_key(void **state) {
    (void)state;
    static const char *const cases[][3] = {
        {"\"h\"",
         GOOD_ROW ", {" ROW_HEAD
                  "\"device_name\": \"d\", \"shape\": \"s\", \"size\": 1, \"gbs\": \"fast\", "
                  "\"verified\": true}",
         "gb-typed.json: skipped: results[1].gbs: expected a number"},
        {"\"h\"", "{" ROW_HEAD "\"shape\": \"s\", \"size\": 1, \"gbs\": 1, \"verified\": true}",
         "gb-typed.json: skipped: results[0].device_name: missing"},
        {"\"h\"",
         "{" ROW_HEAD "\"device_name\": 7, \"shape\": \"s\", \"size\": 1, \"gbs\": 1, "
         "\"verified\": true}",
         "gb-typed.json: skipped: results[0].device_name: expected a string"},
        {"\"h\"",
         "{" ROW_HEAD "\"device_name\": \"d\", \"shape\": \"s\", \"size\": \"1\", \"gbs\": 1, "
         "\"verified\": true}",
         "gb-typed.json: skipped: results[0].size: expected a number"},
        {"\"h\"",
         "{" ROW_HEAD "\"device_name\": \"d\", \"shape\": \"s\", \"size\": 1, \"gbs\": 1, "
         "\"verified\": \"yes\"}",
         "gb-typed.json: skipped: results[0].verified: expected true or false"},
        {"\"h\"",
         "{" ROW_HEAD "\"device_name\": \"d\", \"shape\": \"s\", \"size\": 1, "
         "\"verified\": true}",
         "gb-typed.json: skipped: results[0]: missing a rate"},
        {"\"h\"", GOOD_ROW ", 5", "gb-typed.json: skipped: results[1]: expected an object"},
        {"42", GOOD_ROW, "gb-typed.json: skipped: host: expected a string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_results("gb-typed.json", cases[i][0], cases[i][1]);
        char cmd[512];
        int status = 0;
        snprintf(cmd, sizeof cmd, "%s report -o gb-typed gb-typed.json", GPUBENCH);
        char *out = run(cmd, &status);
        if (status != 2 || !strstr(out, cases[i][2])) {
            fail_msg("case %zu: status %d, expected 2 and \"%s\"\n%s", i, status, cases[i][2], out);
        }
        free(out);
    }
}

/* Input is bounded (a sparse file over the limit, /dev/zero) and a folder
 * is named as one. */
static void report_bounds_its_input(void **state) {
    (void)state;
    FILE *f = fopen("gb-huge.json", "w");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)65 << 20), 0); /* sparse: no disk used */
    fclose(f);
    static const char *const cases[][2] = {
        {"gb-huge.json", "gb-huge.json: skipped: 68157440 bytes, over the 64 MiB limit"},
        {"/dev/zero", "/dev/zero: skipped: more than the 64 MiB limit"},
        {".", ".: skipped: a directory, not a result file"},
    };
    for (size_t i = 0; i < 3; i++) {
        char cmd[512];
        int status = 0;
        snprintf(cmd, sizeof cmd, "%s report -o gb-huge %s", GPUBENCH, cases[i][0]);
        char *out = run(cmd, &status);
        if (status != 2 || !strstr(out, cases[i][1])) {
            fail_msg("%s: status %d, expected 2 and \"%s\"\n%s", cases[i][0], status, cases[i][1],
                     out);
        }
        free(out);
    }
    unlink("gb-huge.json");
}

/* Sizes of 2^31 and more, below 1, zero, negative or infinite, and an
 * infinite rate: the axis used 1 << e (labels -2147483648, nan). */
static void report_chart_axis_is_safe(void **state) {
    (void)state;
    char rows[4096] = GOOD_ROW;
    static const char *const odd[][2] = {{"2147483648", "3"}, {"4294967296", "4"}, {"0.5", "1"},
                                         {"1e400", "2"},      {"-4", "2"},         {"0", "2"},
                                         {"128", "1e999"}};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        char row[512];
        snprintf(row, sizeof row,
                 ", {" ROW_HEAD "\"device_name\": \"dev\", \"shape\": \"s\", \"size\": %s, "
                 "\"gflops\": %s, \"verified\": true}",
                 odd[i][0], odd[i][1]);
        strcat(rows, row);
    }
    write_results("gb-axis.json", "\"h\"", rows);
    char cmd[512];
    int status = 0;
    snprintf(cmd, sizeof cmd, "%s report -o gb-axis gb-axis.json", GPUBENCH);
    char *out = run(cmd, &status);
    assert_int_equal(status, 0);
    free(out);
    char *html = xt_read_file("gb-axis.html", NULL);
    assert_non_null(html);
    char *svg = strstr(html, "<svg"), *end = svg ? strstr(svg, "</svg>") : NULL;
    assert_non_null(end);
    *end = '\0';
    if (strstr(svg, "-2147483648") || strstr(svg, "nan") || strstr(svg, "inf") ||
        !strstr(svg, ">0.5</text>") || !strstr(svg, "<polyline")) {
        fail_msg("a bad axis:\n%s", svg);
    }
    assert_non_null(strstr(end + 1, "4 GEMM result(s) left out of the chart"));
    free(html);
}

/* The OpenCL device 0, or false (nothing to do: the clpeak row is for
 * OpenCL devices). */
static bool opencl_device_name(char *name, size_t size) {
    xgpu_device *dev = NULL;
    xgpu_device_info info;
    assert_int_equal(xgpu_device_get(0, &dev), XGPU_SUCCESS);
    assert_int_equal(xgpu_device_get_info(dev, &info, sizeof info), XGPU_SUCCESS);
    snprintf(name, size, "%s", info.name);
    return !strcmp(info.backend, "opencl");
}

/* Row r of a run whose rows share their rounds: verified, and timed as
 * many times as the rows before it (*reps; -1 before the first). */
static void same_rounds_row(const cJSON *r, int *reps) {
    const char *dtype = cJSON_GetObjectItem(r, "dtype")->valuestring;
    const char *shape = cJSON_GetObjectItem(r, "shape")->valuestring;
    const char *note = cJSON_GetStringValue(cJSON_GetObjectItem(r, "note"));
    int n = cJSON_GetObjectItem(r, "reps")->valueint;
    if (!cJSON_IsTrue(cJSON_GetObjectItem(r, "verified"))) {
        fail_msg("%s %s: not verified: %s", dtype, shape, note ? note : "");
    }
    if (*reps >= 0 && n != *reps) {
        fail_msg("%s %s: %d repetitions, another row of its rounds %d", dtype, shape, n, *reps);
    }
    *reps = n;
}

/* gb-fakebin/clpeak: reports `figure` (shell words) as device `name`'s
 * float bandwidth. */
static void fake_clpeak(const char *name, const char *figure) {
    int status = 0;
    free(run("rm -rf gb-fakebin && mkdir gb-fakebin", &status));
    FILE *f = fopen("gb-fakebin/clpeak", "w");
    assert_non_null(f);
    fprintf(f,
            "#!/bin/sh\n"
            "echo 'Platform: fake'\n"
            "echo '  Device: %s'\n"
            "echo '    Global memory bandwidth (GBPS)'\n"
            "echo \"      float   : %s\"\n"
            "echo '      float2  : 1.50'\n",
            name, figure);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod("gb-fakebin/clpeak", 0755), 0);
}

/* The JSON rows of a run that exits with `want` (the caller deletes the
 * root). */
static cJSON *run_json_status(const char *cmd, const char *path, int want) {
    int status = 0;
    char *out = run(cmd, &status);
    if (status != want) {
        fail_msg("%s: status %d, not %d\n%s", cmd, status, want, out);
    }
    free(out);
    char *text = xt_read_file(path, NULL);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    return root;
}

static cJSON *run_json(const char *cmd, const char *path) {
    return run_json_status(cmd, path, 0);
}

/* The sum row `sum` says its rate over clpeak's `gbs` (-1: clpeak gave no
 * figure, and the note says nothing of it). */
static void clpeak_ratio_noted(const cJSON *sum, double gbs) {
    const char *note = cJSON_GetObjectItem(sum, "note")->valuestring;
    const cJSON *rate = cJSON_GetObjectItem(sum, "gbs");
    if (!cJSON_IsNumber(rate)) {
        fail_msg("the sum has no rate: note \"%s\"", note);
    }
    if (gbs <= 0) {
        if (strstr(note, "clpeak")) {
            fail_msg("no clpeak figure, yet the sum's note reads \"%s\"", note);
        }
        return;
    }
    char want[96];
    snprintf(want, sizeof want, "%.2fx clpeak's %.1f GB/s", rate->valuedouble / gbs, gbs);
    if (!strstr(note, want)) {
        fail_msg("the sum at %g GB/s, clpeak %g: note \"%s\" lacks \"%s\"", rate->valuedouble, gbs,
                 note, want);
    }
}

/* clpeak is whatever PATH finds: a fake one made the reference row read
 * 1e308 GB/s. A figure that is not finite and in (0, 100000] drops the
 * row's figure with the reason in its note; a figure kept is what the
 * sums are read against, in their notes. */
static void clpeak_figure_is_checked(void **state) {
    (void)state;
    char name[256];
    if (!opencl_device_name(name, sizeof name)) {
        skip();
    }
    fake_clpeak(name, "$GB_FAKE_GBS");
    static const struct {
        const char *figure;
        double rate; /* -1: dropped */
    } cases[] = {{"12.5", 12.5}, {"1e308", -1}, {"inf", -1},   {"nan", -1},
                 {"-3", -1},     {"0", -1},     {"100001", -1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "PATH=\"$PWD/gb-fakebin:$PATH\" GB_FAKE_GBS=%s %s -b reduce --size 1 --reps 3 "
                 "--json gb-clpeak.json",
                 cases[i].figure, GPUBENCH);
        cJSON *root = run_json(cmd, "gb-clpeak.json");
        const cJSON *r, *row = NULL, *sum = NULL;
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results")) {
            if (!strcmp(cJSON_GetObjectItem(r, "impl")->valuestring, "clpeak")) {
                row = r;
            } else if (!strcmp(cJSON_GetObjectItem(r, "shape")->valuestring, "1 MiB") &&
                       !strcmp(cJSON_GetObjectItem(r, "dtype")->valuestring, "f32")) {
                sum = r;
            }
        }
        assert_non_null(row);
        assert_non_null(sum);
        clpeak_ratio_noted(sum, cases[i].rate);
        const cJSON *gbs = cJSON_GetObjectItem(row, "gbs");
        const char *note = cJSON_GetObjectItem(row, "note")->valuestring;
        if (cases[i].rate > 0 ? !cJSON_IsNumber(gbs) || gbs->valuedouble != cases[i].rate
                              : !cJSON_IsNull(gbs) || !strstr(note, "figure dropped")) {
            fail_msg("clpeak reporting %s: gbs %s, note \"%s\"", cases[i].figure,
                     cJSON_IsNumber(gbs) ? "a number" : "null", note);
        }
        cJSON_Delete(root);
    }
}

/* The cases of one size (the f32, f64 and i32 sums, and beside the f32
 * input its copy, min, max and argmax) are timed in the same rounds: one
 * repetition count, though the copy takes twice a sum's time (each timed
 * alone got its own count), and every row checked. Reductions that take
 * longer than 2 s read clpeak again after them; the row keeps the higher
 * reading and says how far apart the two were. The rows' timed runs alone
 * take about 4 s on pocl; where they take under 2.5 s (a fast device) the
 * second reading may or may not come, and is not asked for. */
static void reduce_cases_share_rounds_and_clpeak_reads_twice(void **state) {
    (void)state;
    char name[256];
    bool opencl = opencl_device_name(name, sizeof name);
    if (opencl) { /* 20 GB/s, then 30 */
        fake_clpeak(name, "$(test -e gb-fakebin/read && echo 30 || { touch gb-fakebin/read; echo "
                          "20; })");
    }
    char cmd[1024];
    snprintf(
        cmd, sizeof cmd,
        "PATH=\"$PWD/gb-fakebin:$PATH\" %s -b reduce --dtype f32,f64,i32 --size 256 --time 0.6 "
        "--json gb-rounds.json",
        GPUBENCH);
    cJSON *root = run_json(cmd, "gb-rounds.json");
    int reps = -1, rows = 0;
    double timed_s = 0; /* the rows' repetitions: a lower bound of the reductions' time */
    const cJSON *r, *peer = NULL;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results")) {
        const char *impl = cJSON_GetObjectItem(r, "impl")->valuestring;
        if (!strcmp(impl, "clpeak")) {
            peer = r;
            continue;
        }
        same_rounds_row(r, &reps);
        rows++;
        timed_s += reps * cJSON_GetObjectItem(r, "median_s")->valuedouble;
    }
    assert_true(rows >= 6); /* 7 where the device has fp64 */
    assert_true(reps >= 3);
    if (opencl && timed_s > 2.5) {
        assert_non_null(peer);
        const cJSON *gbs = cJSON_GetObjectItem(peer, "gbs");
        const char *note = cJSON_GetObjectItem(peer, "note")->valuestring;
        if (!cJSON_IsNumber(gbs) || gbs->valuedouble != 30 ||
            !strstr(note, "20.0 GB/s before the reductions, 30.0 after") ||
            !strstr(note, "differ by 50%")) {
            fail_msg("clpeak read 20, then 30: gbs %g, note \"%s\"",
                     cJSON_IsNumber(gbs) ? gbs->valuedouble : -1, note);
        }
    }
    cJSON_Delete(root);
}

/* The five stream kernels are timed in the same rounds, in BabelStream's
 * order: one repetition count, though add and triad move three arrays to
 * copy's two (each timed alone got its own count); each row is checked
 * on a run from fresh arrays. */
static void stream_kernels_share_rounds(void **state) {
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -b stream --size 16 --time 0.05 --json gb-stream.json", GPUBENCH);
    cJSON *root = run_json(cmd, "gb-stream.json");
    int reps = -1, rows = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results")) {
        same_rounds_row(r, &reps);
        rows++;
    }
    assert_int_equal(rows, 5);
    assert_true(reps >= 3);
    cJSON_Delete(root);
}

/* --size gives the transfer benchmark one size, whose four copies (each
 * way, pageable and pinned) are timed in the same rounds: one repetition
 * count, each checked, and the pinned rows give their ratio to the
 * pageable copy the same way. */
static void transfer_cases_share_rounds(void **state) {
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -b transfer --size 8 --time 0.05 --json gb-transfer.json",
             GPUBENCH);
    cJSON *root = run_json(cmd, "gb-transfer.json");
    int reps = -1, rows = 0, ratios = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results")) {
        const char *shape = cJSON_GetObjectItem(r, "shape")->valuestring;
        const char *note = cJSON_GetStringValue(cJSON_GetObjectItem(r, "note"));
        if (!strstr(shape, " 8 MiB")) {
            fail_msg("%s: not the size asked for", shape);
        }
        same_rounds_row(r, &reps);
        ratios += strstr(shape, "pinned") && note && strstr(note, "x the pageable copy");
        rows++;
    }
    assert_int_equal(rows, 4);
    assert_int_equal(ratios, 2);
    assert_true(reps >= 3);
    cJSON_Delete(root);
    /* Without pinned memory the pageable copies still run and pass; the
     * pinned rows say why they have no figure, and the run fails. */
    snprintf(cmd, sizeof cmd,
             "XGPU_GPUBENCH_INJECT=transfer-pinned %s -b transfer --size 1 --reps 3 --json "
             "gb-transfer.json",
             GPUBENCH);
    root = run_json_status(cmd, "gb-transfer.json", 1);
    rows = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results")) {
        const char *shape = cJSON_GetObjectItem(r, "shape")->valuestring;
        const char *note = cJSON_GetStringValue(cJSON_GetObjectItem(r, "note"));
        bool pinned = strstr(shape, "pinned") != NULL;
        if (cJSON_IsTrue(cJSON_GetObjectItem(r, "verified")) == pinned ||
            (pinned && (!note || !strstr(note, "no pinned memory: refused")))) {
            fail_msg("%s without pinned memory: verified %d, note \"%s\"", shape,
                     cJSON_IsTrue(cJSON_GetObjectItem(r, "verified")), note ? note : "");
        }
        rows++;
    }
    assert_int_equal(rows, 4);
    cJSON_Delete(root);
}

/* xgpu's GEMM and the vendor library's on the same operands are timed in
 * the same rounds: one repetition count for the two rows, though on pocl
 * CLBlast takes over ten times xgpu's time (each timed alone got its own
 * count). Both rows are still checked. */
static void gemm_pair_shares_rounds(void **state) {
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -b gemm --dtype f32 --size 256 --time 0.05 --json gb-pair.json",
             GPUBENCH);
    cJSON *root = run_json(cmd, "gb-pair.json");
    const cJSON *r, *xgpu = NULL, *vendor = NULL;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results")) {
        const char *impl = cJSON_GetObjectItem(r, "impl")->valuestring;
        if (strcmp(cJSON_GetObjectItem(r, "device")->valuestring, "host") != 0) {
            *(strcmp(impl, "xgpu") ? &vendor : &xgpu) = r;
        }
    }
    assert_non_null(xgpu);
    assert_non_null(vendor);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(xgpu, "verified")));
    int xr = cJSON_GetObjectItem(xgpu, "reps")->valueint;
    const cJSON *vr = cJSON_GetObjectItem(vendor, "reps");
    if (cJSON_IsNumber(vr) && vr->valueint > 0) { /* the vendor library ran */
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(vendor, "verified")));
        if (xr != vr->valueint) {
            fail_msg("xgpu %d repetitions, %s %d", xr,
                     cJSON_GetObjectItem(vendor, "impl")->valuestring, vr->valueint);
        }
    }
    assert_true(xr >= 3);
    cJSON_Delete(root);
}

/* An unwritable destination is found before the run, not after it. */
static void unwritable_destination_is_found_first(void **state) {
    (void)state;
    static const char *const cases[][2] = {
        {"--json gb-no-such-dir/x.json", "--json gb-no-such-dir/x.json: cannot create"},
        {"--csv gb-no-such-dir/x.csv", "--csv gb-no-such-dir/x.csv: cannot create"},
        {"--json .", "--json . is a directory"},
        {"--csv gb-no-such-dir/", "gb-no-such-dir/"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[512];
        int status = 0;
        snprintf(cmd, sizeof cmd, "%s -b launch --reps 3 %s", GPUBENCH, cases[i][0]);
        char *out = run(cmd, &status);
        if (status != 2 || !strstr(out, cases[i][1]) || strstr(out, "results")) {
            fail_msg("gpubench %s: status %d, expected 2 before the run and \"%s\"\n%s",
                     cases[i][0], status, cases[i][1], out);
        }
        free(out);
    }
}

/* Entries of `dir` whose name starts with a dot: temporaries left behind. */
static int leftovers(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    }
    closedir(d);
    return n;
}

/* The file appears whole by rename: a symlink at the destination is
 * replaced (its target untouched), the mode is 0644 & ~umask whatever
 * mkstemp made, and no temporary stays behind. */
static void result_files_are_replaced_atomically(void **state) {
    (void)state;
    char cmd[1024];
    int status = 0;
    free(run("rm -rf gb-atomic && mkdir gb-atomic && echo precious > gb-atomic/victim && "
             "ln -s victim gb-atomic/out.json && ln -s victim gb-atomic/out.csv",
             &status));
    assert_int_equal(status, 0);
    static const struct {
        const char *umask;
        mode_t mode;
    } masks[] = {{"000", 0644}, {"027", 0640}, {"022", 0644}};
    for (size_t i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd,
                 "umask %s && %s -b launch --reps 3 --json gb-atomic/out.json "
                 "--csv gb-atomic/out.csv",
                 masks[i].umask, GPUBENCH);
        free(run(cmd, &status));
        assert_int_equal(status, 0);
        static const char *const files[] = {"gb-atomic/out.json", "gb-atomic/out.csv"};
        for (size_t k = 0; k < 2; k++) {
            struct stat st;
            assert_int_equal(lstat(files[k], &st), 0);
            if (!S_ISREG(st.st_mode) || (st.st_mode & 07777) != masks[i].mode) {
                fail_msg("%s with umask %s: mode %o, a regular file of %o expected", files[k],
                         masks[i].umask, (unsigned)st.st_mode, (unsigned)masks[i].mode);
            }
        }
        char *victim = xt_read_file("gb-atomic/victim", NULL);
        assert_string_equal(victim, "precious\n");
        free(victim);
        char *json = xt_read_file("gb-atomic/out.json", NULL);
        cJSON *root = cJSON_Parse(json);
        assert_non_null(root);
        cJSON_Delete(root);
        free(json);
        assert_int_equal(leftovers("gb-atomic"), 0);
    }
}

/* Whether `dir` holds a temporary for out.json yet. */
static bool has_temporary(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    bool found = false;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        found |= !strncmp(e->d_name, ".out.json.", 10);
    }
    closedir(d);
    return found;
}

/* A signal during the run (Ctrl-C, a batch system's SIGTERM, a closed
 * terminal) leaves the old file as it was and no temporary behind. */
static void interrupted_run_leaves_the_old_file(void **state) {
    (void)state;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < 3; i++) {
        int status = 0;
        free(run("rm -rf gb-int && mkdir gb-int && echo old > gb-int/out.json", &status));
        assert_int_equal(status, 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            signal(sigs[i], SIG_DFL); /* as a shell's foreground job has it */
            int null = open("/dev/null", O_WRONLY);
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
            /* Minutes of work on any device; killed within moments. */
            execl(GPUBENCH, GPUBENCH, "-b", "gemm", "--size", "4096", "--reps", "100", "--json",
                  "gb-int/out.json", (char *)NULL);
            _exit(127);
        }
        bool seen = false;
        for (int n = 0; n < 1200 && !(seen = has_temporary("gb-int")); n++) {
            nanosleep(&(struct timespec){0, 50000000}, NULL);
        }
        kill(pid, sigs[i]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(seen);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != sigs[i]) {
            fail_msg("signal %d: gpubench ended with status 0x%x", sigs[i], (unsigned)status);
        }
        char *old = xt_read_file("gb-int/out.json", NULL);
        if (!old || strcmp(old, "old\n") || leftovers("gb-int")) {
            fail_msg("signal %d: out.json \"%.80s\", %d temporaries left", sigs[i],
                     old ? old : "(missing)", leftovers("gb-int"));
        }
        free(old);
    }
}

/* Sizes and lists that cannot run are usage errors (status 2) that name the
 * option and the value, before any device is touched. */
static void bad_sizes_and_lists_are_usage_errors(void **state) {
    (void)state;
    static const char *const cases[][2] = {
        {"-b gemm --size 2147483648", "--size 2147483648"}, /* n*n*4 wraps */
        {"-b gemm --size 4294967296", "--size 4294967296"},
        {"-b gemm --size 300000", "--size 300000"}, /* fits, but 2 TiB */
        {"-b reduce --size 17592186044416", "--size 17592186044416"},
        {"-b stream --size 18446744073709551615", "--size 18446744073709551615"},
        {"--size 99999999999999999999999", "--size 99999999999999999999999"},
        {"-b gemm --size -1", "--size -1"},
        {"-b gemm --size ' 5'", "--size  5"},
        {"-b gemm --size abc", "--size abc"},
        {"-b gemm --size 12x", "--size 12x"},
        {"-b gemm --size 0", "--size 0"},
        {"-b ''", "-b \"\""},
        {"-b gemm,", "-b \"gemm,\""},
        {"-b ,gemm", "-b \",gemm\""},
        {"-b gemm,bogus", "'bogus'"},
        {"-b gemm --batch 0", "--batch 0: must be at least 1"},
        {"-b gemm --batch 65536", "--batch 65536: too large"},
        {"-b gemm --batch -2", "--batch -2"},
        {"-b gemm --batch 4x", "--batch 4x"},
        {"-b reduce --batch 4", "only the gemm benchmark"},
        {"-b gemm --size 100000 --batch 1000", "--batch 1000"}, /* 240 TiB */
        {"-b gemm --dtype bf17", "'bf17'"},
        {"-b reduce --dtype bf16,tf32,int8", "none of these element types"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[512];
        int status = 0;
        snprintf(cmd, sizeof cmd, "%s %s --reps 1", GPUBENCH, cases[i][0]);
        char *out = run(cmd, &status);
        if (status != 2 || !strstr(out, cases[i][1]) || strstr(out, "results")) {
            fail_msg("gpubench %s: status %d, expected 2 and a message naming %s\n%s", cases[i][0],
                     status, cases[i][1], out);
        }
        free(out);
    }
    /* A tuning variable the library would not read is refused too, by a
     * run and by a live check (a check of files runs no kernel). */
    static const char *const env[][3] = {
        {"XGPU_TUNE=autoo", "-b reduce --reps 1", "XGPU_TUNE='autoo' is not one of on, off, auto"},
        {"XGPU_TUNE=false", "check --time 0.01", "XGPU_TUNE='false' is not one of"},
        {"XGPU_TUNE_BUDGET_S=0", "-b reduce --reps 1",
         "XGPU_TUNE_BUDGET_S='0' is not a number of seconds"},
        {"XGPU_TUNE_BUDGET_S=5s", "-b reduce --reps 1", "XGPU_TUNE_BUDGET_S='5s'"},
    };
    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++) {
        char cmd[512];
        int status = 0;
        snprintf(cmd, sizeof cmd, "%s %s %s", env[i][0], GPUBENCH, env[i][1]);
        char *out = run(cmd, &status);
        if (status != 2 || !strstr(out, env[i][2]) || strstr(out, "verified")) {
            fail_msg("%s gpubench %s: status %d, expected 2 and '%s'\n%s", env[i][0], env[i][1],
                     status, env[i][2], out);
        }
        free(out);
    }
    /* The values it reads pass: auto and a budget in range. */
    char cmd[512];
    int status = 0;
    snprintf(cmd, sizeof cmd, "XGPU_TUNE=auto XGPU_TUNE_BUDGET_S=2.5 %s -b launch --reps 1",
             GPUBENCH);
    char *out = run(cmd, &status);
    if (status != 0) {
        fail_msg("XGPU_TUNE=auto XGPU_TUNE_BUDGET_S=2.5: status %d\n%s", status, out);
    }
    free(out);
}

/* The note of the row named by bench, impl and shape in root's results
 * ("" when there is no such row). */
static const char *row_note(const cJSON *root, const char *bench, const char *shape) {
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results")) {
        if (!strcmp(cJSON_GetObjectItem(r, "bench")->valuestring, bench) &&
            !strcmp(cJSON_GetObjectItem(r, "impl")->valuestring, "xgpu") &&
            !strcmp(cJSON_GetObjectItem(r, "shape")->valuestring, shape)) {
            return cJSON_GetObjectItem(r, "note")->valuestring;
        }
    }
    return "";
}

/* Under XGPU_TUNE=auto with no entry yet, the run whose first call tuned
 * says so in the row's note ("tuned in this run"); the next run reads the
 * stored entry and says "auto-tuned params (this device)" only. */
static void auto_tune_in_this_run_is_noted(void **state) {
    (void)state;
    char name[256];
    if (!opencl_device_name(name, sizeof name)) {
        skip();
    }
    fake_clpeak(name, "20");
    remove("gb-auto-tune.json");
    static const struct {
        const char *args, *bench, *shape;
    } cases[] = {{"-b gemm --dtype f32 --size 256", "gemm", "256x256x256"},
                 {"-b reduce --dtype f32 --size 1", "reduce", "1 MiB"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int run = 0; run < 2; run++) {
            char cmd[1024];
            snprintf(cmd, sizeof cmd,
                     "PATH=\"$PWD/gb-fakebin:$PATH\" XGPU_TUNE=auto XGPU_TUNE_BUDGET_S=0.5 "
                     "XGPU_TUNE_DB=gb-auto-tune.json %s %s --reps 3 --json gb-auto.json",
                     GPUBENCH, cases[i].args);
            cJSON *root = run_json(cmd, "gb-auto.json");
            const char *note = row_note(root, cases[i].bench, cases[i].shape);
            bool now = strstr(note, "tuned in this run") != NULL;
            if (!strstr(note, "auto-tuned params (this device") || now != (run == 0)) {
                fail_msg("%s, run %d: note \"%s\" (want %s)", cases[i].args, run + 1, note,
                         run == 0 ? "tuned in this run" : "the stored auto-tuned entry");
            }
            cJSON_Delete(root);
        }
    }
    remove("gb-auto-tune.json");
}

/* gpubench tune: usage errors name the bad value; a short real tune
 * stores a record that gpubench then uses and says so. */
static void tune_command(void **state) {
    (void)state;
    static const char *const bad[][2] = {
        {"-k bogus", "'bogus'"},
        {"-k gemm,", "-k"},
        {"-k ''", "-k"},
        {"--dtype bf17", "'bf17'"},
        {"-k sum --dtype bf16", "selects nothing"},
        {"-k stream --dtype f16", "selects nothing"},
        {"--time 0", "--time"},
        {"--time abc", "--time"},
        {"--max-mib 0", "--max-mib"},
        {"--max-mib -1", "--max-mib"},
        {"--db ''", "--db"},
        {"--frobnicate", "--frobnicate"},
        {"-k gemm --dtype i32", "selects nothing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cmd[512];
        int status = 0;
        snprintf(cmd, sizeof cmd, "%s tune %s", GPUBENCH, bad[i][0]);
        char *out = run(cmd, &status);
        if (status != 2 || !strstr(out, bad[i][1])) {
            fail_msg("gpubench tune %s: status %d, expected 2 naming %s\n%s", bad[i][0], status,
                     bad[i][1], out);
        }
        free(out);
    }
    int status = 0;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s tune --help", GPUBENCH);
    char *out = run(cmd, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "resumes"));
    free(out);
    char dir[] = "/tmp/gpubench-tune-XXXXXX";
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "XGPU_TUNE_DB=%s/t.json %s tune -k sum --dtype f32 --time 1 --max-mib 1", dir,
             GPUBENCH);
    out = run(cmd, &status);
    if (status != 0 || !strstr(out, "sum ") || !strstr(out, "group=")) {
        fail_msg("a short tune: status %d\n%s", status, out);
    }
    free(out);
    char path[128];
    snprintf(path, sizeof path, "%s/t.json", dir);
    char *text = xt_read_file(path, NULL);
    assert_non_null(text);
    cJSON *db = cJSON_Parse(text);
    assert_non_null(db);
    assert_string_equal(cJSON_GetObjectItem(db, "schema")->valuestring, "xgpu.tune/1");
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(db, "records")) >= 1);
    cJSON_Delete(db);
    free(text);
    /* The benchmark takes the tuned parameters and says so. */
    snprintf(cmd, sizeof cmd, "XGPU_TUNE_DB=%s/t.json %s -b reduce --dtype f32 --size 1 --reps 3",
             dir, GPUBENCH);
    out = run(cmd, &status);
    if (status != 0 || !strstr(out, "tuned params (this device)")) {
        fail_msg("gpubench with the tuned database: status %d\n%s", status, out);
    }
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void size_arithmetic_is_checked(void **state) {
    (void)state;
    char why[256];
    size_t n = 0;
    assert_int_equal(gb_parse_size("64", &n, why, sizeof why), 0);
    assert_int_equal(n, 64);
    assert_int_equal(gb_parse_size("-1", &n, why, sizeof why), -1);
    assert_int_equal(gb_parse_size("+1", &n, why, sizeof why), -1);
    assert_int_equal(gb_parse_size("", &n, why, sizeof why), -1);
    assert_int_equal(gb_parse_size("18446744073709551616", &n, why, sizeof why), -1);
    assert_int_equal(gb_check_size("gemm", 4096, why, sizeof why), 0);
    assert_int_equal(gb_check_size("gemm", (size_t)1 << 31, why, sizeof why), -1);
    assert_int_equal(gb_check_size("gemm", (size_t)1 << 32, why, sizeof why), -1); /* n*n wraps */
    assert_int_equal(gb_check_size("gemm", SIZE_MAX, why, sizeof why), -1);
    assert_int_equal(gb_check_size("launch", SIZE_MAX, why, sizeof why), 0); /* takes no size */
    assert_int_equal(gb_check_size("stream", 1024, why, sizeof why), 0);
    assert_int_equal(gb_check_size("stream", (size_t)1 << 44, why, sizeof why), -1);
    assert_int_equal(gb_check_size(NULL, (size_t)1 << 44, why, sizeof why), -1);
    assert_int_equal(gb_check_benches("", why, sizeof why), -1);
    assert_int_equal(gb_check_benches("gemm,launch", why, sizeof why), 0);
    assert_int_equal(gb_check_benches("gemm,,launch", why, sizeof why), -1);
    assert_int_equal(gb_check_dtypes("bf16,tf32,int8,f16", why, sizeof why), 0);
    assert_int_equal(gb_check_dtype_use("gemm", "int8", why, sizeof why), 0);
    assert_int_equal(gb_check_dtype_use("gemm", "tf32", why, sizeof why), 0);
    assert_int_equal(gb_check_dtype_use("stream", "bf16", why, sizeof why), -1);
    assert_int_equal(gb_parse_batch("65535", &n, why, sizeof why), 0);
    assert_int_equal(n, 65535);
    assert_int_equal(gb_parse_batch("65536", &n, why, sizeof why), -1);
    assert_int_equal(gb_check_batch("gemm", 0, 64, why, sizeof why), 0); /* n = 512 */
    assert_int_equal(gb_check_batch("gemm", 4096, 65535, why, sizeof why), -1);
    assert_int_equal(gb_check_batch(NULL, 512, 64, why, sizeof why), 0);
    assert_int_equal(gb_check_batch("launch", 512, 64, why, sizeof why), -1);
}

int main(int argc, char **argv) {
    if (argc > 1) {
        cmocka_set_test_filter(argv[1]); /* e.g. "report_*" */
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(verification_catches_injected_errors),
        cmocka_unit_test(json_and_csv_parse),
        cmocka_unit_test(launch_reports_core_overhead),
        cmocka_unit_test(report_merges_two_machines),
        cmocka_unit_test(report_refuses_bad_files),
        cmocka_unit_test(report_escapes_markdown),
        cmocka_unit_test(report_names_the_bad_key),
        cmocka_unit_test(report_bounds_its_input),
        cmocka_unit_test(report_chart_axis_is_safe),
        cmocka_unit_test(clpeak_figure_is_checked),
        cmocka_unit_test(reduce_cases_share_rounds_and_clpeak_reads_twice),
        cmocka_unit_test(gemm_pair_shares_rounds),
        cmocka_unit_test(stream_kernels_share_rounds),
        cmocka_unit_test(transfer_cases_share_rounds),
        cmocka_unit_test(bad_sizes_and_lists_are_usage_errors),
        cmocka_unit_test(tune_command),
        cmocka_unit_test(auto_tune_in_this_run_is_noted),
        cmocka_unit_test(unwritable_destination_is_found_first),
        cmocka_unit_test(result_files_are_replaced_atomically),
        cmocka_unit_test(interrupted_run_leaves_the_old_file),
        cmocka_unit_test(size_arithmetic_is_checked),
    };
    return cmocka_run_group_tests_name("gpubench", tests, NULL, NULL);
}
