/* gpubench report's opening: the headline and the device table's figures
 * from known files (the published H200 run, read from the source tree, and
 * hand-made ones), files of older 0.x versions merged with a note of what
 * they lack, the checks that found nothing as one line, an em dash where
 * a file has no such row, one GEMM dtype per model, and the verdict column only once a verdict is
 * set (through the report library, as `gpubench check` sets it). */
#define _POSIX_C_SOURCE 200809L
#include "report_gen.h"
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

#include <cmocka.h>

#define H200 XGPU_SOURCE_DIR "/docs/results/2026-11-30-h200/"
#define DASH "\xe2\x80\x94"

/* The rate of the first row of `bench` and `impl` with `dtype` and a
 * shape starting with `shape` in the parsed result file; the best of them
 * when `best`. */
static double rate_of(const cJSON *file, const char *bench, const char *impl, const char *shape,
                      const char *key, bool best) {
    double found = -1;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(file, "results")) {
        if (!strcmp(get_str(r, "bench"), bench) && !strcmp(get_str(r, "impl"), impl) &&
            !strncmp(get_str(r, "shape"), shape, strlen(shape))) {
            double v = get_num(r, key);
            if (!best) {
                return v;
            }
            found = fmax(found, v);
        }
    }
    return found;
}

/* The device table's only row. */
static const cJSON *only_device(const cJSON *j) {
    assert_int_equal(array_size(j, "device_table"), 1);
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "device_table"), 0);
}

/* The project's own H200 results, written by xgpu 0.3.0: merged, each
 * with the note of what it lacks, and the table's figures are the files'
 * (the ratio is xgpu's f32 GEMM over cuBLAS's on the same shape). */
static void h200_files_merge_with_their_figures(void **state) {
    (void)state;
    char *out = report("gbs-h200", H200 "gpubench-gemm.json " H200 "gpubench-memory.json", 0);
    static const char lacks[] = "written by xgpu 0.3.0: no telemetry, no rank, no date, no p2p, "
                                "no device_uuid, no device_arch (merged)";
    char want[512];
    snprintf(want, sizeof want, "gpubench report: note: %sgpubench-gemm.json: %s", H200, lacks);
    if (!strstr(out, want) || strstr(out, "skipped:")) {
        fail_msg("expected \"%s\" and nothing skipped in:\n%s", want, out);
    }
    snprintf(want, sizeof want, "gpubench report: note: %sgpubench-memory.json: %s", H200, lacks);
    assert_non_null(strstr(out, want));
    free(out);
    cJSON *gemm = read_json(H200 "gpubench-gemm.json"),
          *mem = read_json(H200 "gpubench-memory.json");
    double xgpu = rate_of(gemm, "gemm", "xgpu", "", "gflops", true);
    double cublas = rate_of(gemm, "gemm", "cublas", "4096x4096x4096", "gflops", false);
    cJSON *j = read_json("gbs-h200.json");
    assert_int_equal(array_size(j, "files"), 2);
    const cJSON *d = only_device(j); /* the host CPU's OpenBLAS row is not a device */
    assert_string_equal(get_str(d, "host"), "vm");
    assert_string_equal(get_str(d, "device"), "cuda:0");
    assert_string_equal(get_str(d, "device_name"), "NVIDIA H200");
    assert_string_equal(get_str(d, "backend"), "cuda");
    assert_string_equal(get_str(d, "driver_version"), "13.0");
    assert_string_equal(get_str(d, "api_version"), "CUDA 13.0");
    assert_string_equal(get_str(d, "xgpu_version"), "0.3.0");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(d, "started_utc")));
    assert_float_equal(get_num(d, "gemm_gflops"), xgpu, xgpu * 1e-8);
    assert_string_equal(get_str(d, "gemm_dtype"), "f32");
    assert_string_equal(get_str(d, "gemm_vendor"), "cublas");
    /* 22952.0282 / 50152.002, as the files have them. */
    assert_float_equal(get_num(d, "gemm_vs_vendor"), xgpu / cublas, 1e-8);
    assert_float_equal(get_num(d, "gemm_vs_vendor"), 22952.0282 / 50152.002, 1e-8);
    double triad = rate_of(mem, "stream", "xgpu", "triad", "gbs", true);
    double pinned = fmax(rate_of(mem, "transfer", "xgpu", "h2d pinned 64 MiB", "gbs", false),
                         rate_of(mem, "transfer", "xgpu", "d2h pinned 64 MiB", "gbs", false));
    double round_trip = rate_of(mem, "launch", "xgpu", "round trip", "us", false);
    assert_float_equal(get_num(d, "stream_gbs"), triad, triad * 1e-8);
    assert_string_equal(get_str(d, "stream_kernel"), "triad");
    assert_float_equal(get_num(d, "transfer_pinned_gbs"), pinned, pinned * 1e-8);
    assert_float_equal(get_num(d, "launch_us"), round_trip, round_trip * 1e-8);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "headline");
    assert_int_equal((int)get_num(h, "devices"), 1);
    assert_int_equal((int)get_num(h, "undated_files"), 2);
    const cJSON *f0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "files"), 0);
    assert_non_null(strstr(get_str(f0, "note"), "written by xgpu 0.3.0: no telemetry"));
    cJSON_Delete(j);
    cJSON_Delete(gemm);
    cJSON_Delete(mem);
    /* The Markdown opens with the headline and the table. */
    char *md = xt_read_file("gbs-h200.md", NULL);
    assert_non_null(md);
    const char *row =
        strstr(md, "| vm | cuda:0 | NVIDIA H200 (sm\\_90) | cuda | 13.0 | CUDA 13.0 | "
                   "0.3.0 | " DASH " | 22.95 TFLOP/s f32 | 0.46x cublas | 3597 GB/s "
                   "triad | 54.6 GB/s | 10.2 us |");
    if (!row || row > strstr(md, "## Models") ||
        !strstr(md, "**1 device(s) on 1 host(s), 1 model(s); no file records its date.**")) {
        fail_msg("no headline and device row first:\n%.3000s", md);
    }
    assert_non_null(strstr(md, "gpubench-gemm.json: written by xgpu 0.3.0: no telemetry"));
    free(md);
    char *html = xt_read_file("gbs-h200.html", NULL);
    assert_non_null(html);
    const char *table = strstr(html, "<table class=\"devices\">");
    assert_non_null(table);
    assert_true(table < strstr(html, "<h2>Models</h2>"));
    assert_non_null(strstr(table, "<td class=\"n\">0.46x<br><span class=\"sub\">cublas</span>"));
    /* gpubench check's verdict: the published run is OK. */
    assert_non_null(strstr(html, "<th>verdict</th>"));
    assert_non_null(strstr(html, "<b class=\"v-OK\">OK</b>"));
    free(html);
}

/* A result file of an older shape: no rank, p2p, UUID, arch, telemetry or
 * start time; `extra` adds top-level members. */
static void write_old(const char *path, const char *version, const char *host, const char *extra) {
    char text[2048];
    snprintf(text, sizeof text,
             "{\"schema\": \"xgpu.gpubench/1\", \"host\": \"%s\", \"xgpu_version\": \"%s\", %s"
             "\"results\": [{\"bench\": \"gemm\", \"impl\": \"xgpu\", \"device\": \"opencl:0\", "
             "\"device_name\": \"cpu\", \"backend\": \"opencl\", \"dtype\": \"f32\", \"shape\": "
             "\"256x256x256\", \"size\": 256, \"gflops\": 12.5, \"verified\": true}]}\n",
             host, version, extra);
    write_text(path, text);
}

/* Every 0.x file of this schema is merged, with one line per file of what
 * it lacks; a newer minor version is merged as newer; only another major
 * version (or damage) is refused; a duplicate is still one. */
static void older_versions_merge_with_a_note(void **state) {
    (void)state;
    write_old("gbs-v03.json", "0.3.0", "h03",
              "\"gpuinfo\": {\"devices\": [{\"backend\": \"opencl\", \"paths\": [\"opencl:0\"], "
              "\"driver_version\": \"5.0+debian\", \"device_version\": \"OpenCL 3.0 PoCL HSTR: "
              "x\", \"language_version\": null}]},");
    write_old("gbs-v04.json", "0.4.2", "h04", "");
    write_old("gbs-v05.json", "0.5.0", "h05",
              "\"started_utc\": \"2026-11-02T10:00:00Z\", \"rank\": null, \"p2p\": null, "
              "\"gpuinfo\": null,");
    write_old("gbs-v03-again.json", "0.3.0", "h03", "");
    char newer[32], major[32];
    snprintf(newer, sizeof newer, "%d.%d.0", XGPU_VERSION_MAJOR, XGPU_VERSION_MINOR + 1);
    snprintf(major, sizeof major, "%d.0.0", XGPU_VERSION_MAJOR + 1);
    write_old("gbs-newer.json", newer, "hnew", "");
    write_old("gbs-major.json", major, "hmaj", "");
    char *out = report("gbs-old",
                       "gbs-v03.json gbs-v04.json gbs-v05.json gbs-v03-again.json gbs-newer.json "
                       "gbs-major.json",
                       0);
    static const char *const notes[][2] = {
        {"gbs-v03.json", "written by xgpu 0.3.0: no telemetry, no rank, no date, no p2p, no "
                         "device_uuid, no device_arch (merged)"},
        {"gbs-v04.json", "written by xgpu 0.4.2: no telemetry, no rank, no date, no p2p, no "
                         "device_uuid, no device_arch, no gpuinfo devices (merged)"},
        {"gbs-v05.json", "written by xgpu 0.5.0: no telemetry, no device_uuid, no device_arch, "
                         "no gpuinfo devices (merged)"},
    };
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++) {
        char want[512];
        snprintf(want, sizeof want, "gpubench report: note: %s: %s", notes[i][0], notes[i][1]);
        if (!strstr(out, want)) {
            fail_msg("expected \"%s\" in:\n%s", want, out);
        }
    }
    char want[256];
    snprintf(want, sizeof want, "gbs-newer.json: written by xgpu %s, newer than this gpubench",
             newer);
    assert_non_null(strstr(out, want));
    expect_skipped(out, "gbs-v03-again.json", "duplicate of gbs-v03.json (host h03, no rank");
    snprintf(want, sizeof want,
             "written by xgpu %s, this gpubench is " VERSION " (another major version)", major);
    expect_skipped(out, "gbs-major.json", want);
    free(out);
    cJSON *j = read_json("gbs-old.json");
    assert_int_equal(array_size(j, "files"), 4);
    assert_int_equal(array_size(j, "skipped"), 2);
    assert_int_equal(array_size(j, "device_table"), 4);
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(j, "device_table")) {
        if (!strcmp(get_str(d, "host"), "h03")) {
            assert_string_equal(get_str(d, "api_version"), "OpenCL 3.0 PoCL");
            assert_string_equal(get_str(d, "driver_version"), "5.0+debian");
        }
        if (!strcmp(get_str(d, "host"), "h05")) {
            assert_string_equal(get_str(d, "started_utc"), "2026-11-02T10:00:00Z");
        }
    }
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "headline");
    assert_string_equal(get_str(h, "first_started_utc"), "2026-11-02T10:00:00Z");
    assert_int_equal((int)get_num(h, "undated_files"), 3);
    cJSON_Delete(j);
    char *md = xt_read_file("gbs-old.md", NULL);
    assert_non_null(strstr(md, "- gbs-v04.json: written by xgpu 0.4.2: no telemetry"));
    assert_non_null(strstr(md, "run 2026-11-02 10:00 UTC (3 file(s) without a date).**"));
    free(md);
    /* A start time that is no UTC time is named. */
    write_old("gbs-baddate.json", "0.5.0", "hb", "\"started_utc\": \"yesterday\",");
    out = report("gbs-bad", "gbs-v03.json gbs-baddate.json", 0);
    expect_skipped(out, "gbs-baddate.json", "started_utc: expected a UTC time");
    free(out);
}

/* Nothing found by the four checks is one line, not four sections. */
static void nothing_wrong_is_one_line(void **state) {
    (void)state;
    device d = {.host = "calm",
                .uuid = "GPU-c0",
                .name = "NVIDIA L4",
                .arch = "sm_89",
                .rank = 0,
                .ncases = 4,
                .throttled_case = -1,
                .size = 1};
    write_device("gbs-calm.json", &d);
    free(report("gbs-calm", "gbs-calm.json", 0));
    char *md = xt_read_file("gbs-calm.md", NULL);
    assert_non_null(md);
    if (!strstr(md, "\nNo stragglers, slow links, missing ranks or throttled rows.\n") ||
        strstr(md, "## Stragglers") || strstr(md, "## Throttled rows") ||
        strstr(md, "## Missing ranks") || strstr(md, "## Slow peer-to-peer links")) {
        fail_msg("not one line for nothing found:\n%s", md);
    }
    free(md);
    char *html = xt_read_file("gbs-calm.html", NULL);
    assert_non_null(
        strstr(html, "<p class=\"clear\">No stragglers, slow links, missing ranks or throttled "
                     "rows.</p>"));
    assert_null(strstr(html, "<h2>Stragglers</h2>"));
    free(html);
}

/* A file with no GEMM row: the GEMM figures are a dash (null in the
 * JSON); a GEMM without the vendor library's row has no ratio; the copy
 * kernel stands in for a missing triad. */
static void missing_rows_are_a_dash(void **state) {
    (void)state;
    write_text("gbs-nogemm.json",
               "{\"schema\": \"xgpu.gpubench/1\", \"host\": \"ng\", \"started_utc\": "
               "\"2026-12-01T23:45:10Z\", \"results\": ["
               "{\"bench\": \"stream\", \"impl\": \"xgpu\", \"device\": \"hip:0\", "
               "\"device_name\": \"AMD Instinct MI300X\", \"dtype\": \"f32\", \"shape\": \"copy 1 "
               "MiB\", \"size\": 1, \"gbs\": 812.5, \"verified\": true},"
               "{\"bench\": \"stream\", \"impl\": \"xgpu\", \"device\": \"hip:0\", "
               "\"device_name\": \"AMD Instinct MI300X\", \"dtype\": \"f32\", \"shape\": \"triad "
               "1 MiB\", \"size\": 1, \"gbs\": 999, \"verified\": false}]}\n");
    free(report("gbs-dash", "gbs-nogemm.json", 0));
    cJSON *j = read_json("gbs-dash.json");
    const cJSON *d = only_device(j);
    static const char *const nulls[] = {"gemm_gflops", "gemm_vs_vendor", "transfer_pinned_gbs",
                                        "launch_us", "gemm_dtype"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++) {
        if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(d, nulls[i]))) {
            fail_msg("%s should be null", nulls[i]);
        }
    }
    /* gpubench check's verdict: nothing in the file it can judge. */
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(d, "verdict")->valuestring, "UNKNOWN");
    /* The unverified triad does not count: the copy stands in. */
    assert_float_equal(get_num(d, "stream_gbs"), 812.5, 1e-9);
    assert_string_equal(get_str(d, "stream_kernel"), "copy");
    assert_string_equal(get_str(d, "backend"), "hip");
    cJSON_Delete(j);
    char *md = xt_read_file("gbs-dash.md", NULL);
    if (!strstr(md, "| 2026-12-01 23:45 UTC | " DASH " | " DASH " | 812 GB/s copy | " DASH
                    " | " DASH " |") ||
        !strstr(md, "run 2026-12-01 23:45 UTC.")) {
        fail_msg("no dashes for the missing rows:\n%.2000s", md);
    }
    free(md);
    /* A GEMM without its vendor row: a rate, no ratio. */
    device g = {.host = "gv",
                .uuid = "GPU-g",
                .name = "G",
                .arch = "a",
                .rank = -1,
                .ncases = 1,
                .throttled_case = -1};
    write_device("gbs-novendor.json", &g);
    free(report("gbs-nov", "gbs-novendor.json", 0));
    j = read_json("gbs-nov.json");
    d = only_device(j);
    assert_float_equal(get_num(d, "gemm_gflops"), case_base(0), 1e-9);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(d, "gemm_vs_vendor")));
    cJSON_Delete(j);
}

/* The devices of a model show the GEMM of one dtype, the model's fastest
 * (here f64: case 5), even where a device's best is another; what the
 * checks found is counted above the table. */
static void one_gemm_dtype_per_model(void **state) {
    (void)state;
    double half[8] = {1, 1, 1, 1, 1, 0.5, 1, 1};
    device d = {.host = "dt",
                .uuid = "GPU-d0",
                .name = "D",
                .arch = "a",
                .rank = 0,
                .ncases = 8,
                .throttled_case = -1,
                .size = 2};
    write_device("gbs-dt0.json", &d);
    d.uuid = "GPU-d1";
    d.rank = d.index = 1;
    d.factor = half;
    write_device("gbs-dt1.json", &d);
    free(report("gbs-dt", "gbs-dt0.json gbs-dt1.json", 0));
    cJSON *j = read_json("gbs-dt.json");
    assert_int_equal(array_size(j, "device_table"), 2);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "device_table");
    const cJSON *a = cJSON_GetArrayItem(t, 0), *b = cJSON_GetArrayItem(t, 1);
    assert_string_equal(get_str(a, "gemm_dtype"), "f64");
    assert_float_equal(get_num(a, "gemm_gflops"), case_base(5), 1e-9);
    /* Its f32 case 1 (2020) is faster than its f64 now, but f64 it is. */
    assert_string_equal(get_str(b, "gemm_dtype"), "f64");
    assert_float_equal(get_num(b, "gemm_gflops"), case_base(5) * 0.5, 1e-9);
    cJSON_Delete(j);
    char *md = xt_read_file("gbs-dt.md", NULL);
    const char *issues =
        strstr(md, "\n**Needs a look: 1 straggling device(s) (below the table).**\n");
    assert_non_null(issues);
    assert_true(issues < strstr(md, "| host | device |"));
    assert_non_null(strstr(md, "\nNo slow links, missing ranks or throttled rows.\n"));
    free(md);
}

int main(int argc, char **argv) {
    if (argc > 1) {
        cmocka_set_test_filter(argv[1]);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(h200_files_merge_with_their_figures),
        cmocka_unit_test(older_versions_merge_with_a_note),
        cmocka_unit_test(nothing_wrong_is_one_line),
        cmocka_unit_test(missing_rows_are_a_dash),
        cmocka_unit_test(one_gemm_dtype_per_model),
    };
    return cmocka_run_group_tests_name("gpubench report summary", tests, NULL, NULL);
}
