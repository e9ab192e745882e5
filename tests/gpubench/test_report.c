/* gpubench report on generated result files: stragglers found with the
 * right gap and direction (GB/s and GFLOP/s: higher is better; us: lower
 * is better), not at 9%; throttled rows and stragglers listed before
 * everything else; damaged, foreign, other-major-version and duplicate
 * files skipped with a warning; the peer-to-peer matrix; old files still read.
 * 512 files: test_report_scale.c. */
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
#include <time.h>
#include <unistd.h>
#include <xgpu.h>

#include <cmocka.h>

/* 8 identical devices on one host, ranks 0 to 7, in gbr-sN.json. */
static void write_node(double factors[8][8], int throttled_rank) {
    for (int d = 0; d < 8; d++) {
        char path[64], uuid[64];
        snprintf(path, sizeof path, "gbr-s%d.json", d);
        snprintf(uuid, sizeof uuid, "GPU-0000000%d-aaaa-bbbb-cccc-dddddddddddd", d);
        device dev = {.host = "node-a",
                      .uuid = uuid,
                      .name = "NVIDIA H100 80GB HBM3",
                      .arch = "sm_90",
                      .rank = d,
                      .index = d,
                      .ncases = 8,
                      .factor = factors[d],
                      .throttled_case = d == throttled_rank ? 1 : -1};
        write_device(path, &dev);
    }
}

/* Case 0 (GEMM): rank 5 at 0.85 of the others, a straggler 15% below the
 * median. Case 2 (stream): rank 6 at 0.91, 9% below: not one. Case 3
 * (launch, us): rank 3 takes 1.2 times as long (a straggler, 20% worse),
 * rank 4 0.7 times (faster: not one). Case 6 (stream): rank 2 at 1.3
 * (faster: not one). */
static void report_finds_stragglers(void **state) {
    (void)state;
    double factors[8][8];
    for (int d = 0; d < 8; d++) {
        for (int c = 0; c < 8; c++) {
            factors[d][c] = 1;
        }
    }
    factors[5][0] = 0.85;
    factors[6][2] = 0.91;
    factors[3][3] = 1.2;
    factors[4][3] = 0.7;
    factors[2][6] = 1.3;
    write_node(factors, -1);
    free(report("gbr-strag",
                "gbr-s0.json gbr-s1.json gbr-s2.json gbr-s3.json gbr-s4.json "
                "gbr-s5.json gbr-s6.json gbr-s7.json",
                0));
    cJSON *j = read_json("gbr-strag.json");
    if (array_size(j, "stragglers") != 2) {
        char *text = cJSON_Print(cJSON_GetObjectItemCaseSensitive(j, "stragglers"));
        fail_msg("2 stragglers expected:\n%s", text);
    }
    /* GEMM: the median of 7 x base and 0.85 x base is base. */
    const cJSON *s = find_straggler(j, 5, "gemm");
    assert_non_null(s);
    double base = case_base(0);
    assert_float_equal(get_num(s, "median"), base, base * 1e-9);
    assert_float_equal(get_num(s, "rate"), base * 0.85, base * 1e-9);
    assert_float_equal(get_num(s, "gap_pct"), (base - base * 0.85) / base * 100, 1e-6);
    assert_string_equal(get_str(s, "host"), "node-a");
    assert_string_equal(get_str(s, "device"), "cuda:5");
    assert_string_equal(get_str(s, "device_uuid"), "GPU-00000005-aaaa-bbbb-cccc-dddddddddddd");
    assert_string_equal(get_str(s, "unit"), "GFLOP/s");
    /* Launch: lower is better; the slow one is the straggler. */
    s = find_straggler(j, 3, "launch");
    assert_non_null(s);
    assert_float_equal(get_num(s, "gap_pct"), 20.0, 1e-6);
    assert_string_equal(get_str(s, "unit"), "us");
    assert_null(find_straggler(j, 4, "launch"));
    assert_null(find_straggler(j, 6, "stream"));
    assert_null(find_straggler(j, 2, "stream"));
    /* The launch group says which way is better. */
    const cJSON *g;
    int lower = 0;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(j, "groups")) {
        bool us = !strcmp(get_str(g, "unit"), "us");
        assert_string_equal(get_str(g, "better"), us ? "lower" : "higher");
        lower += us;
        assert_int_equal((int)get_num(g, "devices"), 8);
    }
    assert_int_equal(lower, 2);
    assert_int_equal(array_size(j, "straggling_devices"), 2);
    cJSON_Delete(j);
    /* The Markdown and the page name them first, with the gap. */
    char *md = xt_read_file("gbr-strag.md", NULL);
    assert_non_null(md);
    char *sec = strstr(md, "## Stragglers"), *spread = strstr(md, "## Spread per benchmark case");
    assert_non_null(sec);
    assert_non_null(spread);
    assert_true(sec < strstr(md, "## Models"));
    char *line = strstr(sec, "| node-a | 5 | cuda:5 |");
    if (!line || line > spread || !strstr(line, "| 15.0% |") || !strstr(sec, "| 20.0% |")) {
        fail_msg("stragglers not listed with their gap:\n%s", md);
    }
    free(md);
    char *html = xt_read_file("gbr-strag.html", NULL);
    assert_non_null(html);
    char *h = strstr(html, "<h2>Stragglers</h2>");
    assert_non_null(h);
    assert_true(h < strstr(html, "<h2>Models</h2>"));
    assert_true(h < strstr(html, "<svg"));
    assert_non_null(strstr(html, "15.0%"));
    free(html);
}

/* Two identical devices are enough: the median is their mean, so 100 and
 * 80 put the slower one 11.1% below it. A device alone is no straggler,
 * however slow: another model's figures are no comparison. */
static void report_straggler_needs_two_devices(void **state) {
    (void)state;
    double slow[1] = {0.8};
    device d = {.host = "pair",
                .uuid = "GPU-p0",
                .name = "NVIDIA L4",
                .arch = "sm_89",
                .rank = 0,
                .ncases = 1,
                .throttled_case = -1};
    write_device("gbr-two0.json", &d);
    d.uuid = "GPU-p1";
    d.rank = 1;
    d.index = 1;
    d.factor = slow;
    write_device("gbr-two1.json", &d);
    d.uuid = "GPU-p2";
    d.rank = 2;
    d.name = "NVIDIA T4";
    d.arch = "sm_75";
    write_device("gbr-two2.json", &d);
    free(report("gbr-two", "gbr-two0.json gbr-two1.json gbr-two2.json", 0));
    cJSON *j = read_json("gbr-two.json");
    assert_int_equal(array_size(j, "stragglers"), 1);
    const cJSON *s = find_straggler(j, 1, "gemm");
    assert_non_null(s);
    double base = case_base(0), median = (base + 0.8 * base) / 2;
    assert_float_equal(get_num(s, "median"), median, 1e-9 * base);
    assert_float_equal(get_num(s, "gap_pct"), (median - 0.8 * base) / median * 100, 1e-6);
    assert_int_equal(array_size(j, "models"), 2);
    cJSON_Delete(j);
}

/* The devices of a straggler group of case 0 (GEMM), and its one straggler's
 * "device", or NULL. */
static const char *only_straggler(const cJSON *j, int *devices) {
    const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "groups"), 0);
    assert_non_null(g);
    *devices = (int)get_num(g, "devices");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "stragglers");
    if (cJSON_GetArraySize(list) > 1) {
        char *text = cJSON_Print(list);
        fail_msg("at most one straggler expected:\n%s", text);
    }
    const cJSON *s = cJSON_GetArrayItem(list, 0);
    return s ? get_str(s, "device") : NULL;
}

/* One device in several files (runs without a rank: gpu-check's before and
 * after a tune, a fleet run beside a single one) is one device, judged by
 * its best figure: alone it is no straggler, however its runs differ; a
 * slower second run does not make it one; a device whose best run is 15%
 * below the others' still is. */
static void one_device_in_two_files_is_one_device(void **state) {
    (void)state;
    double slower[1] = {0.7}, slow[1] = {0.8}, slow_best[1] = {0.85}, less[1] = {0.6};
    device d = {.host = "box",
                .name = "NVIDIA H100 80GB HBM3",
                .arch = "sm_90",
                .rank = -1,
                .ncases = 1,
                .throttled_case = -1};
    d.uuid = "GPU-a";
    write_device("gbr-one-a1.json", &d);
    d.factor = slower;
    write_device("gbr-one-a2.json", &d);
    d.uuid = "GPU-b";
    d.index = 1;
    d.factor = NULL;
    write_device("gbr-one-b.json", &d);
    d.uuid = "GPU-c";
    d.index = 2;
    d.factor = slow;
    write_device("gbr-one-c1.json", &d);
    d.factor = slow_best;
    write_device("gbr-one-c2.json", &d);
    free(report("gbr-one",
                "gbr-one-a1.json gbr-one-a2.json gbr-one-b.json gbr-one-c1.json "
                "gbr-one-c2.json",
                0));
    cJSON *j = read_json("gbr-one.json");
    int devices = 0;
    const char *who = only_straggler(j, &devices);
    assert_int_equal(devices, 3);
    assert_non_null(who);
    assert_string_equal(who, "cuda:2");
    const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "stragglers"), 0);
    double base = case_base(0);
    assert_float_equal(get_num(s, "rate"), 0.85 * base, 1e-9 * base);
    assert_float_equal(get_num(s, "median"), base, 1e-9 * base);
    assert_float_equal(get_num(s, "gap_pct"), 15.0, 1e-6);
    cJSON_Delete(j);

    /* Alone, in two runs 40% apart. */
    device solo = {.host = "solo",
                   .uuid = "GPU-s",
                   .name = "NVIDIA H200",
                   .arch = "sm_90",
                   .rank = -1,
                   .ncases = 1,
                   .throttled_case = -1};
    write_device("gbr-alone1.json", &solo);
    solo.factor = less;
    write_device("gbr-alone2.json", &solo);
    free(report("gbr-alone", "gbr-alone1.json gbr-alone2.json", 0));
    j = read_json("gbr-alone.json");
    assert_null(only_straggler(j, &devices));
    assert_int_equal(devices, 1);
    cJSON_Delete(j);
    char *md = xt_read_file("gbr-alone.md", NULL);
    assert_non_null(md);
    if (strstr(md, "## Stragglers") || strstr(md, "straggling")) {
        fail_msg("a device alone is listed as a straggler:\n%s", md);
    }
    free(md);
}

/* One GPU through CUDA and through OpenCL (gpu-check's -d cuda:0,opencl),
 * the OpenCL path 30% slower, beside a second GPU of the model on CUDA at
 * the first's speed: a case is per backend, so the OpenCL path is no
 * straggler against its own GPU's CUDA rows, and the tables and charts
 * name each impl with its backend. A model seen through one backend only
 * keeps the impl alone. */
static void one_gpu_on_two_backends_is_no_straggler(void **state) {
    (void)state;
    double slower[2] = {0.7, 0.7};
    device d = {.host = "nv",
                .uuid = "GPU-x",
                .name = "NVIDIA H100 80GB HBM3",
                .arch = "sm_90",
                .rank = -1,
                .ncases = 2,
                .throttled_case = -1};
    write_device("gbr-bk-cuda.json", &d);
    d.backend = "opencl";
    d.factor = slower;
    write_device("gbr-bk-ocl.json", &d);
    d.backend = NULL;
    d.factor = NULL;
    d.uuid = "GPU-y";
    d.index = 1;
    write_device("gbr-bk-cuda1.json", &d);
    free(report("gbr-bk", "gbr-bk-cuda.json gbr-bk-ocl.json gbr-bk-cuda1.json", 0));
    cJSON *j = read_json("gbr-bk.json");
    if (array_size(j, "stragglers") != 0) {
        char *text = cJSON_Print(cJSON_GetObjectItemCaseSensitive(j, "stragglers"));
        fail_msg("the OpenCL path was judged against CUDA's rows:\n%s", text);
    }
    /* Two cases, each on two backends: four groups; CUDA's of 2 devices. */
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(j, "groups");
    assert_int_equal(cJSON_GetArraySize(groups), 4);
    int cuda = 0, opencl = 0;
    for (int i = 0; i < 4; i++) {
        const cJSON *g = cJSON_GetArrayItem(groups, i);
        const char *backend = get_str(g, "backend");
        if (!strcmp(backend, "cuda")) {
            cuda++;
            assert_int_equal((int)get_num(g, "devices"), 2);
        } else if (!strcmp(backend, "opencl")) {
            opencl++;
            assert_int_equal((int)get_num(g, "devices"), 1);
        }
    }
    assert_int_equal(cuda, 2);
    assert_int_equal(opencl, 2);
    /* Three device paths, two GPUs: counted by host and UUID. */
    assert_int_equal((int)get_num(j, "devices"), 2);
    const cJSON *headline = cJSON_GetObjectItemCaseSensitive(j, "headline");
    assert_int_equal((int)get_num(headline, "devices"), 2);
    assert_int_equal((int)get_num(headline, "device_paths"), 3);
    assert_int_equal(array_size(j, "device_table"), 3);
    /* The OpenCL row names the CUDA path of its GPU; the others none. */
    const cJSON *table = cJSON_GetObjectItemCaseSensitive(j, "device_table");
    for (int i = 0; i < 3; i++) {
        const cJSON *row = cJSON_GetArrayItem(table, i);
        const cJSON *same = cJSON_GetObjectItemCaseSensitive(row, "same_device_as");
        if (!strcmp(get_str(row, "device"), "opencl:0")) {
            assert_true(cJSON_IsString(same));
            assert_string_equal(same->valuestring, "cuda:0");
        } else {
            assert_true(cJSON_IsNull(same));
        }
    }
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(j, "models");
    assert_int_equal(cJSON_GetArraySize(models), 1);
    assert_int_equal((int)get_num(cJSON_GetArrayItem(models, 0), "devices"), 2);
    cJSON_Delete(j);
    char *md = xt_read_file("gbr-bk.md", NULL);
    char *html = xt_read_file("gbr-bk.html", NULL);
    assert_non_null(md);
    assert_non_null(html);
    if (!strstr(md, "| xgpu (opencl) |") || !strstr(md, "| xgpu (cuda) |") ||
        strstr(md, "## Stragglers") || !strstr(md, "**2 device(s) (3 device paths) on 1 host(s)") ||
        !strstr(md, "| nv | opencl:0 (same GPU as cuda:0) |")) {
        fail_msg("the Markdown does not name the backends, lists a straggler or counts paths as "
                 "devices:\n%s",
                 md);
    }
    if (!strstr(html, "xgpu (opencl)") || !strstr(html, "xgpu (cuda)") ||
        !strstr(html, "opencl:0 &middot; same GPU as cuda:0")) {
        fail_msg("the HTML does not name the backends:\n%s", html);
    }
    free(md);
    free(html);

    /* Two OpenCL paths that report GPU-x beside cuda:0: two devices of
     * GPU-x (paths of one backend are never one device), four paths. */
    d.backend = "opencl";
    d.uuid = "GPU-x";
    write_device("gbr-bk-ocl1.json", &d);
    free(report("gbr-bk2", "gbr-bk-cuda.json gbr-bk-ocl.json gbr-bk-ocl1.json gbr-bk-cuda1.json",
                0));
    j = read_json("gbr-bk2.json");
    headline = cJSON_GetObjectItemCaseSensitive(j, "headline");
    assert_int_equal((int)get_num(headline, "devices"), 3);
    assert_int_equal((int)get_num(headline, "device_paths"), 4);
    assert_int_equal((int)get_num(j, "devices"), 3);
    cJSON_Delete(j);
    /* cuda:0 of two ranks on one host, one UUID: one GPU, two rows. */
    d = (device){.host = "nv2",
                 .uuid = "GPU-z",
                 .name = "NVIDIA H100 80GB HBM3",
                 .arch = "sm_90",
                 .rank = 0,
                 .ncases = 2,
                 .throttled_case = -1};
    write_device("gbr-bk-r0.json", &d);
    d.rank = 1;
    write_device("gbr-bk-r1.json", &d);
    free(report("gbr-bk3", "gbr-bk-r0.json gbr-bk-r1.json", 0));
    j = read_json("gbr-bk3.json");
    headline = cJSON_GetObjectItemCaseSensitive(j, "headline");
    assert_int_equal((int)get_num(headline, "devices"), 1);
    assert_int_equal((int)get_num(headline, "device_paths"), 2);
    cJSON_Delete(j);

    /* One backend: the impl alone. */
    free(report("gbr-bk1", "gbr-bk-cuda.json gbr-bk-cuda1.json", 0));
    md = xt_read_file("gbr-bk1.md", NULL);
    assert_non_null(md);
    if (strstr(md, "xgpu (cuda)") || !strstr(md, "| xgpu |")) {
        fail_msg("one backend, yet the impl names it:\n%s", md);
    }
    free(md);
}

/* The bar charts: each model's name once, on a line above its bars (not
 * beside every bar, where a long name ran off the chart), each bar labelled
 * with its case alone, and the cases in the order of their numbers
 * ("case 2" before "case 10"), in the tables too. */
static void bars_name_the_model_once_in_number_order(void **state) {
    (void)state;
    device d = {.host = "bars",
                .uuid = "GPU-bars",
                .name = "NVIDIA H100 80GB HBM3",
                .arch = "sm_90",
                .rank = -1,
                .ncases = 15,
                .throttled_case = -1};
    write_device("gbr-bars.json", &d);
    free(report("gbr-bars", "gbr-bars.json", 0));
    char *html = xt_read_file("gbr-bars.html", NULL);
    assert_non_null(html);
    /* Stream cases are 2, 6, 10 and 14: f32 2 and 10, f64 6 and 14
     * (i % 8 < 4). */
    char *chart = strstr(html, "Stream kernels");
    assert_non_null(chart);
    char *end = strstr(chart, "</svg>");
    assert_non_null(end);
    *end = 0;
    char *heading = strstr(chart, "font-weight=\"bold\">NVIDIA H100 80GB HBM3 (sm_90)</text>");
    char *c2 = strstr(chart, ">xgpu f32 case 2 (1)<"),
         *c10 = strstr(chart, ">xgpu f32 case 10 (1)<"),
         *c6 = strstr(chart, ">xgpu f64 case 6 (1)<"),
         *c14 = strstr(chart, ">xgpu f64 case 14 (1)<");
    if (!heading || !c2 || !c6 || !c10 || !c14 ||
        !(heading < c2 && c2 < c10 && c10 < c6 && c6 < c14) ||
        strstr(strstr(heading, "</text>"), "NVIDIA H100") || strstr(chart, "| xgpu")) {
        fail_msg("the stream chart does not name the model once, in number order:\n%s", chart);
    }
    free(html);
    char *md = xt_read_file("gbr-bars.md", NULL);
    assert_non_null(md);
    char *m6 = strstr(md, "| case 6 |"), *m2 = strstr(md, "| case 2 |");
    if (!m2 || !m6 || m6 < m2) {
        fail_msg("the spread table is not in number order:\n%s", md);
    }
    free(md);
}

/* A model and impl has one colour in every GEMM chart: xgpu's series is
 * the first of the f32 chart, the second of the f64 one (a vendor library
 * with f64 rows only comes first there), and keeps its colour. A chart of
 * one size puts its point under its own tick. */
static void gemm_series_keep_their_colour(void **state) {
    (void)state;
    device d = {.host = "colours",
                .uuid = "GPU-col",
                .name = "NVIDIA A100-SXM4-80GB",
                .arch = "sm_80",
                .rank = -1,
                .ncases = 6,
                .throttled_case = -1};
    write_device("gbr-col-xgpu.json", &d);
    d.impl = "cublas";
    d.first_case = 4; /* cases 4 and 5: f64 GEMMs */
    write_device("gbr-col-blas.json", &d);
    free(report("gbr-col", "gbr-col-xgpu.json gbr-col-blas.json", 0));
    char *html = xt_read_file("gbr-col.html", NULL);
    assert_non_null(html);
    char *f32 = strstr(html, "<h3>GEMM f32"), *f64 = strstr(html, "<h3>GEMM f64");
    assert_non_null(f32);
    assert_non_null(f64);
    /* The colour of the legend entry before "/ xgpu" in each chart. */
    char colour[2][16] = {"", ""};
    char *chart[2] = {f32, f64};
    for (int c = 0; c < 2; c++) {
        char *end = strstr(chart[c], "</svg>");
        char *entry = strstr(chart[c], " / xgpu, ");
        assert_non_null(end);
        if (!entry || entry > end) {
            fail_msg("no xgpu series in chart %d:\n%.3000s", c, chart[c]);
        }
        char *fill = NULL;
        for (char *p = chart[c]; (p = strstr(p, "<rect ")) && p < entry; p++) {
            fill = strstr(p, "fill=\"");
        }
        assert_non_null(fill);
        assert_int_equal(sscanf(fill, "fill=\"%15[^\"]", colour[c]), 1);
        /* Every case here is n = 32: one tick, no 64. */
        char *tick = strstr(chart[c], "\">32</text>"), *other = strstr(chart[c], "\">64</text>");
        if (!tick || tick > end || (other && other < end)) {
            fail_msg("chart %d of one size has not its one tick:\n%.3000s", c, chart[c]);
        }
    }
    assert_true(strstr(f64, " / cublas, ") < strstr(f64, " / xgpu, "));
    assert_string_equal(colour[0], colour[1]);
    free(html);
}

/* A row whose telemetry says throttled is listed, with its reason, before
 * the models and the spread; the checks that found nothing are one line
 * above it, not sections of their own. */
static void report_lists_throttled_rows_first(void **state) {
    (void)state;
    double ones[8][8];
    for (int d = 0; d < 8; d++) {
        for (int c = 0; c < 8; c++) {
            ones[d][c] = 1;
        }
    }
    write_node(ones, 6);
    free(report("gbr-thr", "gbr-s*.json", 0));
    char *md = xt_read_file("gbr-thr.md", NULL);
    assert_non_null(md);
    /* The job of 512 ranks left 8 files: missing ranks, a section. */
    char *clear = strstr(md, "\nNo stragglers or slow links.\n"),
         *thr = strstr(md, "## Throttled rows"), *models = strstr(md, "## Models");
    assert_non_null(thr);
    assert_non_null(models);
    if (!clear || clear > thr || strstr(md, "## Stragglers") || !strstr(md, "## Missing ranks") ||
        strstr(md, "## Slow peer-to-peer links") ||
        (strstr(md, "\nnone\n") && strstr(md, "\nnone\n") < models)) {
        fail_msg("no stragglers or slow links, but not one line saying so:\n%s", md);
    }
    assert_true(thr < models);
    char *row = strstr(thr, "| node-a | 6 | cuda:6 |");
    if (!row || row > models || !strstr(row, "sw\\_thermal; SM clock 1210 MHz")) {
        fail_msg("the throttled row is not listed with its reason:\n%s", md);
    }
    char *next = strstr(row + 1, "| node-a |");
    assert_true(!next || next > models); /* only the one */
    free(md);
    cJSON *j = read_json("gbr-thr.json");
    assert_int_equal(array_size(j, "throttled"), 1);
    const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "throttled"), 0);
    assert_int_equal((int)get_num(t, "rank"), 6);
    assert_string_equal(get_str(t, "source"), "nvml");
    assert_string_equal(get_str(t, "bench"), "gemm");
    assert_int_equal(array_size(j, "stragglers"), 0);
    cJSON_Delete(j);
    char *html = xt_read_file("gbr-thr.html", NULL);
    char *h = strstr(html, "<h2>Throttled rows</h2>");
    assert_non_null(h);
    assert_null(strstr(html, "<h2>Stragglers</h2>"));
    assert_non_null(strstr(html, "No stragglers or slow links.</p>"));
    assert_true(h < strstr(html, "<h2>Models</h2>"));
    assert_non_null(strstr(h, "sw_thermal; SM clock 1210 MHz"));
    free(html);
}

/* Each file that cannot be merged is named with its reason and skipped;
 * the others make the report (exit 0). With none left: exit 2. */
static void report_skips_what_it_cannot_merge(void **state) {
    (void)state;
    device d = {.host = "node-b",
                .uuid = "GPU-b0",
                .name = "NVIDIA A100",
                .arch = "sm_80",
                .rank = 0,
                .ncases = 4,
                .throttled_case = -1};
    write_device("gbr-k-good.json", &d);
    write_device("gbr-k-dup.json", &d); /* node-b rank 0 again */
    d.rank = 1;
    d.version = "0.0.1";
    write_device("gbr-k-old.json", &d); /* another minor version: merged, with a note */
    d.version = XGPU_VERSION_MAJOR ? "0.0.0" : "1.0.0";
    write_device("gbr-k-major.json", &d);
    char patch[32];
    snprintf(patch, sizeof patch, "%d.%d.%d", XGPU_VERSION_MAJOR, XGPU_VERSION_MINOR,
             XGPU_VERSION_PATCH + 1);
    d.version = patch;
    d.rank = 2;
    write_device("gbr-k-patch.json", &d); /* merged, with a warning */
    d.version = "banana";
    d.rank = 3;
    write_device("gbr-k-banana.json", &d);
    /* Without a rank, the same results from one host are a duplicate; other
     * results from it are not. */
    d.version = NULL;
    d.rank = -1;
    d.uuid = "GPU-b9";
    write_device("gbr-k-norank.json", &d);
    write_device("gbr-k-norank2.json", &d);
    double faster[4] = {1.01, 1, 1, 1};
    d.factor = faster;
    write_device("gbr-k-norank3.json", &d);
    write_text("gbr-k-foreign.json", "{\"schema\": \"other/2\", \"results\": []}\n");
    write_text("gbr-k-noschema.json", "{\"results\": []}\n");
    write_text("gbr-k-trunc.json", "{\"schema\": \"xgpu.gpubench/1\", \"host\": \"x\", \"resu");
    write_text("gbr-k-badkey.json", "{\"schema\": \"xgpu.gpubench/1\", \"host\": \"x\", "
                                    "\"rank\": {\"rank\": -3}, \"results\": []}\n");
    char *out = report("gbr-skip",
                       "gbr-k-good.json gbr-k-dup.json gbr-k-old.json gbr-k-major.json "
                       "gbr-k-patch.json gbr-k-banana.json gbr-k-norank.json gbr-k-norank2.json "
                       "gbr-k-norank3.json gbr-k-foreign.json gbr-k-noschema.json "
                       "gbr-k-trunc.json gbr-k-badkey.json gbr-k-missing.json",
                       0);
    expect_skipped(out, "gbr-k-dup.json", "duplicate of gbr-k-good.json (host node-b, rank 0)");
    expect_skipped(out, "gbr-k-major.json",
                   XGPU_VERSION_MAJOR ? "written by xgpu 0.0.0, this gpubench is " VERSION
                                        " (another major version)"
                                      : "written by xgpu 1.0.0, this gpubench is " VERSION
                                        " (another major version)");
    expect_skipped(out, "gbr-k-banana.json", "xgpu_version \"banana\" is not MAJOR.MINOR.PATCH");
    expect_skipped(out, "gbr-k-norank2.json",
                   "duplicate of gbr-k-norank.json (host node-b, no rank, the same results)");
    expect_skipped(out, "gbr-k-foreign.json", "not a gpubench result file (schema \"other/2\"");
    expect_skipped(out, "gbr-k-noschema.json", "not a gpubench result file");
    expect_skipped(out, "gbr-k-trunc.json", "not valid JSON");
    expect_skipped(out, "gbr-k-badkey.json", "rank.rank: expected a whole number");
    expect_skipped(out, "gbr-k-missing.json", "cannot read");
    char want[256];
    snprintf(want, sizeof want, "gpubench report: warning: gbr-k-patch.json: written by xgpu %s",
             patch);
    if (!strstr(out, want) || strstr(out, "gbr-k-patch.json: skipped") ||
        strstr(out, "gbr-k-good.json: skipped") || strstr(out, "gbr-k-norank3.json: skipped") ||
        strstr(out, "gbr-k-old.json: skipped") || strstr(out, "gbr-k-norank.json: skipped")) {
        fail_msg("a good file was skipped, or no word on the patch level:\n%s", out);
    }
    free(out);
    cJSON *j = read_json("gbr-skip.json");
    assert_int_equal(array_size(j, "files"), 5);
    assert_int_equal(array_size(j, "skipped"), 9);
    cJSON_Delete(j);
    char *md = xt_read_file("gbr-skip.md", NULL);
    assert_non_null(strstr(md, "## Skipped files"));
    assert_non_null(strstr(md, "| gbr-k-dup.json | duplicate of gbr-k-good.json"));
    free(md);
    /* Nothing left to merge: exit 2, saying so. */
    out = report("gbr-none", "gbr-k-foreign.json gbr-k-trunc.json", 2);
    expect_skipped(out, "gbr-k-foreign.json", "not a gpubench result file");
    assert_non_null(strstr(out, "no result file could be merged (2 skipped)"));
    assert_int_equal(access("gbr-none.md", F_OK), -1);
    free(out);
    out = report("gbr-none", "", 2);
    assert_non_null(strstr(out, "usage: gpubench report"));
    free(out);
}

/* Rank 0 of node-p has a p2p matrix: 4 devices, one pair staged. */
static void report_p2p_matrix(void **state) {
    (void)state;
    char p2p[8192] =
        "{\"devices\": [\"cuda:0\", \"cuda:1\", \"cuda:2\", \"cuda:10\"], \"pairs\": [";
    static const char *const devs[] = {"cuda:0", "cuda:1", "cuda:2", "cuda:10"};
    bool first = true;
    for (int s = 0; s < 4; s++) {
        for (int d = 0; d < 4; d++) {
            if (s == d) {
                continue;
            }
            bool staged = s == 1 && d == 3; /* cuda:1 -> cuda:10 */
            char pair[512];
            snprintf(pair, sizeof pair,
                     "%s{\"src\": \"%s\", \"dst\": \"%s\", \"src_uuid\": \"GPU-%d\", "
                     "\"dst_uuid\": \"GPU-%d\", \"path\": \"%s\", \"bytes\": 268435456, "
                     "\"gbs\": %.1f, \"latency_us\": %.1f, \"verified\": true}",
                     first ? "" : ", ", devs[s], devs[d], s, d, staged ? "staged" : "direct",
                     staged ? 12.3 : 300.0 + 10 * s + d, staged ? 20.5 : 2.5);
            strcat(p2p, pair);
            first = false;
        }
    }
    strcat(p2p, "]}");
    device d = {.host = "node-p",
                .uuid = "GPU-0",
                .name = "NVIDIA H100",
                .arch = "sm_90",
                .rank = 0,
                .ncases = 2,
                .throttled_case = -1,
                .p2p = p2p};
    write_device("gbr-p2p.json", &d);
    free(report("gbr-p2p", "gbr-p2p.json", 0));
    char *md = xt_read_file("gbr-p2p.md", NULL);
    assert_non_null(md);
    char *sec = strstr(md, "## Peer-to-peer bandwidth");
    assert_non_null(sec);
    /* Columns in natural order; row cuda:1's last cell is the staged one. */
    if (!strstr(sec, "| src \\\\ dst | cuda:0 | cuda:1 | cuda:2 | cuda:10 |") ||
        !strstr(sec, "| cuda:1 | 310.0 | - | 312.0 | 12.3 (staged) |") ||
        !strstr(sec, "| cuda:10 | 330.0 | 331.0 | 332.0 | - |")) {
        fail_msg("a wrong matrix:\n%s", sec);
    }
    free(md);
    char *html = xt_read_file("gbr-p2p.html", NULL);
    char *h = strstr(html, "<h2>Peer-to-peer bandwidth</h2>");
    assert_non_null(h);
    assert_non_null(strstr(h, "<linearGradient"));
    assert_non_null(strstr(h, ">12.3 *</text>"));
    assert_non_null(strstr(h, "stroke-dasharray"));
    free(html);
    cJSON *j = read_json("gbr-p2p.json");
    const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "p2p"), 0);
    assert_non_null(m);
    assert_int_equal(array_size(m, "pairs"), 12);
    int staged = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(m, "pairs")) {
        staged += !strcmp(get_str(p, "path"), "staged");
    }
    assert_int_equal(staged, 1);
    cJSON_Delete(j);
}

/* A file without any of the fleet keys still reads; a fleet key of the
 * wrong type is named. */
/* Two hosts, each with copies both ways between its two GPUs, all direct:
 * the one copy at half the others' bandwidth is a slow link, and the job
 * of five ranks that left three files has two missing. */
static void report_finds_slow_links_and_missing_ranks(void **state) {
    (void)state;
    static const long ranks[] = {0, 1, 3};
    static const double slow[][2] = {{300, 310}, {305, 150}, {298, 302}};
    for (int h = 0; h < 3; h++) {
        char p2p[1024], host[16], path[64];
        snprintf(p2p, sizeof p2p,
                 "{\"devices\": [\"cuda:0\", \"cuda:1\"], \"pairs\": ["
                 "{\"src\": \"cuda:0\", \"dst\": \"cuda:0\", \"path\": \"local\", \"gbs\": 2000, "
                 "\"latency_us\": 2, \"verified\": true}, "
                 "{\"src\": \"cuda:0\", \"dst\": \"cuda:1\", \"path\": \"direct\", \"gbs\": %g, "
                 "\"latency_us\": 3, \"verified\": true}, "
                 "{\"src\": \"cuda:1\", \"dst\": \"cuda:0\", \"path\": \"direct\", \"gbs\": %g, "
                 "\"latency_us\": 3, \"verified\": true}]}",
                 slow[h][0], slow[h][1]);
        snprintf(host, sizeof host, "node-%d", h);
        snprintf(path, sizeof path, "gbr-link-%d.json", h);
        device d = {.host = host,
                    .uuid = "GPU-0",
                    .name = "NVIDIA H200",
                    .arch = "sm_90",
                    .rank = ranks[h],
                    .ncases = 2,
                    .throttled_case = -1,
                    .p2p = p2p,
                    .size = 5};
        write_device(path, &d);
    }
    char *out = report("gbr-link", "gbr-link-0.json gbr-link-1.json gbr-link-2.json", 0);
    if (!strstr(out, "warning: 2 rank(s) missing: slurm job of 5: 2, 4")) {
        fail_msg("no missing-rank warning in\n%s", out);
    }
    free(out);
    cJSON *j = read_json("gbr-link.json");
    const cJSON *links = cJSON_GetObjectItemCaseSensitive(j, "slow_links");
    assert_int_equal(cJSON_GetArraySize(links), 1);
    const cJSON *l = cJSON_GetArrayItem(links, 0);
    assert_string_equal(get_str(l, "host"), "node-1");
    assert_string_equal(get_str(l, "src"), "cuda:1");
    assert_string_equal(get_str(l, "dst"), "cuda:0");
    /* Like pairs: cuda:1 -> cuda:0 on the three hosts (the files have rows
     * of cuda:0 only, so the two directions are told apart by model); the
     * median of 310, 150 and 302 is 302. */
    assert_true(fabs(get_num(l, "median_gbs") - 302) < 1e-9);
    assert_true(fabs(get_num(l, "gap_pct") - (302.0 - 150) / 302 * 100) < 1e-6);
    const cJSON *missing = cJSON_GetObjectItemCaseSensitive(j, "missing_ranks");
    assert_int_equal((int)get_num(missing, "count"), 2);
    cJSON_Delete(j);
    char *md = xt_read_file("gbr-link.md", NULL);
    assert_non_null(md);
    const char *links_at = strstr(md, "## Slow peer-to-peer links");
    const char *models_at = strstr(md, "## Models");
    assert_non_null(links_at);
    assert_non_null(models_at);
    assert_true(links_at < models_at);
    assert_non_null(strstr(md, "| node-1 | 1 | cuda:1 | cuda:0 | direct | 150.00 |"));
    free(md);
}

static void report_reads_old_files(void **state) {
    (void)state;
    write_text("gbr-old.json",
               "{\"schema\": \"xgpu.gpubench/1\", \"host\": \"old\", \"results\": [{\"bench\": "
               "\"gemm\", \"impl\": \"xgpu\", \"device\": \"opencl:0\", \"device_name\": \"d\", "
               "\"dtype\": \"f32\", \"shape\": \"s\", \"size\": 64, \"gflops\": 2.5, "
               "\"verified\": true}]}\n");
    write_text("gbr-typed.json",
               "{\"schema\": \"xgpu.gpubench/1\", \"host\": \"new\", \"results\": [{\"bench\": "
               "\"gemm\", \"impl\": \"xgpu\", \"device\": \"opencl:0\", \"device_name\": \"d\", "
               "\"dtype\": \"f32\", \"shape\": \"s\", \"size\": 64, \"gflops\": 2.5, "
               "\"verified\": true, \"telemetry\": {\"throttled\": \"yes\"}}]}\n");
    char *out = report("gbr-old", "gbr-old.json gbr-typed.json", 0);
    expect_skipped(out, "gbr-typed.json", "results[0].telemetry.throttled: expected true or false");
    free(out);
    char *md = xt_read_file("gbr-old.md", NULL);
    assert_non_null(strstr(md, "| old | - | d (opencl:0) | gemm | xgpu | f32 | s | 2.50 GFLOP/s | "
                               "yes | - |"));
    free(md);
}

int main(int argc, char **argv) {
    if (argc > 1) {
        cmocka_set_test_filter(argv[1]);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_finds_stragglers),
        cmocka_unit_test(report_straggler_needs_two_devices),
        cmocka_unit_test(one_device_in_two_files_is_one_device),
        cmocka_unit_test(one_gpu_on_two_backends_is_no_straggler),
        cmocka_unit_test(bars_name_the_model_once_in_number_order),
        cmocka_unit_test(gemm_series_keep_their_colour),
        cmocka_unit_test(report_lists_throttled_rows_first),
        cmocka_unit_test(report_skips_what_it_cannot_merge),
        cmocka_unit_test(report_p2p_matrix),
        cmocka_unit_test(report_finds_slow_links_and_missing_ranks),
        cmocka_unit_test(report_reads_old_files),
    };
    return cmocka_run_group_tests_name("gpubench report", tests, NULL, NULL);
}
