/* gpubench check: every rule against a made-up healthy H200 result file
 * changed one fact at a time (each case fails when its rule is removed),
 * the shipped reference table and bad ones, damaged and foreign result
 * files, the project's published H200 run judged offline, and the
 * command's exit statuses. The live run on pocl: test_check_live.c. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
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

static const char healthy[] =
    "{\"schema\": \"xgpu.gpubench/1\", \"host\": \"node1\", \"xgpu_version\": \"0.7.0\","
    " \"started_utc\": \"2026-12-01T00:00:00Z\","
    " \"gpuinfo\": {\"devices\": [{\"paths\": [\"cuda:0\"], \"name\": \"NVIDIA H200\","
    "  \"type\": \"gpu\", \"pci_bus_id\": \"0000:17:00.0\", \"compute_units\": 132,"
    "  \"max_clock_mhz\": 1980, \"global_mem_bytes\": 150109880320, \"driver_version\": "
    "\"13.0\"}]},"
    " \"health\": [{\"device\": \"cuda:0\", \"pci_bus_id\": \"0000:17:00.0\", \"source\": \"nvml\","
    "  \"pcie\": {\"source\": \"nvml\", \"under_load\": true, \"current_gen\": 5, \"max_gen\": 5,"
    "   \"current_width\": 16, \"max_width\": 16},"
    "  \"ecc\": {\"source\": \"nvml\", \"enabled\": true, \"volatile_corrected\": 0,"
    "   \"volatile_uncorrected\": 0, \"aggregate_corrected\": 0, \"aggregate_uncorrected\": 0},"
    "  \"retired_pages\": {\"source\": \"nvml\", \"single_bit\": 0, \"double_bit\": 0,"
    "   \"pending\": false},"
    "  \"remapped_rows\": {\"source\": \"nvml\", \"correctable\": 0, \"uncorrectable\": 0,"
    "   \"pending\": false, \"failed\": false},"
    "  \"nvlink\": {\"source\": \"nvml\", \"links\": 18, \"up\": 18},"
    "  \"mig\": {\"source\": \"nvml\", \"enabled\": false, \"pending\": false},"
    "  \"persistence\": {\"source\": \"nvml\", \"enabled\": true}, \"temperature_c\": 35,"
    "  \"driver\": {\"kernel_module\": \"580.1\", \"library\": \"580.1\", \"match\": true},"
    "  \"xid\": {\"readable\": false, \"count\": null, \"why\": \"not readable\"}}],"
    " \"results\": ["
    "  {\"bench\": \"gemm\", \"impl\": \"xgpu\", \"device\": \"cuda:0\", \"device_name\": \"NVIDIA "
    "H200\", \"backend\": \"cuda\","
    "   \"dtype\": \"f32\", \"shape\": \"4096x4096x4096\", \"size\": 4096, \"median_s\": 0.006,"
    "   \"gflops\": 23000, \"verified\": true, \"telemetry\": {\"throttled\": false}},"
    "  {\"bench\": \"gemm\", \"impl\": \"cublas\", \"device\": \"cuda:0\", \"device_name\": "
    "\"NVIDIA H200\", \"backend\": \"cuda\","
    "   \"dtype\": \"f32\", \"shape\": \"4096x4096x4096\", \"size\": 4096, \"median_s\": 0.003,"
    "   \"gflops\": 50000, \"verified\": true, \"telemetry\": {\"throttled\": false}},"
    "  {\"bench\": \"stream\", \"impl\": \"xgpu\", \"device\": \"cuda:0\", \"device_name\": "
    "\"NVIDIA H200\", \"backend\": \"cuda\","
    "   \"dtype\": \"f32\", \"shape\": \"triad 1024 MiB\", \"size\": 1073741824,"
    "   \"median_s\": 0.0009, \"gbs\": 3600, \"verified\": true, \"telemetry\": null},"
    "  {\"bench\": \"transfer\", \"impl\": \"xgpu\", \"device\": \"cuda:0\", \"device_name\": "
    "\"NVIDIA H200\", \"backend\": \"cuda\","
    "   \"dtype\": \"u8\", \"shape\": \"h2d pinned 64 MiB\", \"size\": 67108864,"
    "   \"median_s\": 0.0012, \"gbs\": 54, \"verified\": true, \"telemetry\": null},"
    "  {\"bench\": \"launch\", \"impl\": \"xgpu\", \"device\": \"cuda:0\", \"device_name\": "
    "\"NVIDIA H200\", \"backend\": \"cuda\","
    "   \"dtype\": \"-\", \"shape\": \"round trip\", \"size\": 0, \"median_s\": 1.0e-5,"
    "   \"us\": 10, \"verified\": true, \"telemetry\": null},"
    "  {\"bench\": \"gemm\", \"impl\": \"openblas\", \"device\": \"host\", \"device_name\": \"host "
    "CPU\", \"dtype\": \"f32\","
    "   \"shape\": \"4096x4096x4096\", \"size\": 4096, \"median_s\": 0.1, \"gflops\": 1000,"
    "   \"verified\": false}]}";

/* The item at a slash-separated path ("health/0/pcie/current_gen"). */
static cJSON *at(cJSON *root, const char *path) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    cJSON *o = root;
    for (char *save = NULL, *k = strtok_r(buf, "/", &save); k && o;
         k = strtok_r(NULL, "/", &save)) {
        o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(k)) : cJSON_GetObjectItem(o, k);
    }
    return o;
}

/* Replaces the value at `path` (its parent must exist) with `v`. */
static void set(cJSON *root, const char *path, cJSON *v) {
    const char *slash = strrchr(path, '/'), *key = slash ? slash + 1 : path;
    char parent[128];
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - path) : 0, path);
    cJSON *p = slash ? at(root, parent) : root;
    assert_non_null(p);
    if (cJSON_IsArray(p)) {
        assert_true(cJSON_ReplaceItemInArray(p, atoi(key), v));
    } else if (cJSON_GetObjectItem(p, key)) {
        assert_true(cJSON_ReplaceItemInObject(p, key, v));
    } else {
        cJSON_AddItemToObject(p, key, v);
    }
}

static gc_refs refs;

static int setup(void **state) {
    (void)state;
    char why[512];
    if (gc_refs_load_shipped(&refs, why, sizeof why) != 0) {
        fprintf(stderr, "%s\n", why);
        return -1;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    gc_refs_free(&refs);
    return 0;
}

static bool has_rule(const gc_judgement *j, const char *rule) {
    for (int i = 0; i < j->nreasons; i++) {
        if (!strcmp(j->reasons[i].rule, rule)) {
            return true;
        }
    }
    return false;
}

/* The file's one device judged; the verdict returned, *j filled. */
static gc_verdict judge_json(cJSON *root, gc_judgement *j, gc_facts **facts) {
    char *text = cJSON_PrintUnformatted(root);
    assert_non_null(text);
    size_t n = 0;
    char why[512] = "";
    int rc = gc_facts_read(text, strlen(text), "t.json", facts, &n, why, sizeof why);
    free(text);
    if (rc != 0) {
        fail_msg("gc_facts_read: %s", why);
    }
    assert_int_equal(n, 1);
    gc_judge(&(*facts)[0], &refs, j);
    return j->verdict;
}

typedef struct rule_case {
    const char *path;
    const char *value; /* JSON */
    gc_verdict want;
    const char *rule;
} rule_case;

static const rule_case cases[] = {
    {"results/0/verified", "false", GC_FAULTY, "results.wrong"},
    {"health/0/ecc/volatile_uncorrected", "2", GC_FAULTY, "ecc.volatile"},
    {"health/0/ecc/aggregate_uncorrected", "1", GC_DEGRADED, "ecc.aggregate"},
    {"health/0/ecc/enabled", "false", GC_DEGRADED, "ecc.off"},
    {"health/0/ecc/aggregate_corrected", "7", GC_OK, "ecc.corrected"},
    {"health/0/remapped_rows/failed", "true", GC_FAULTY, "remap.failed"},
    {"health/0/remapped_rows/pending", "true", GC_DEGRADED, "remap.pending"},
    {"health/0/retired_pages/pending", "true", GC_DEGRADED, "retired.pending"},
    {"health/0/retired_pages/double_bit", "2", GC_OK, "retired.pages"},
    {"health/0/source", "\"none\"", GC_OK, "health.none"},
    {"health/0/retired_pages/unreservable", "3", GC_FAULTY, "retired.unreservable"},
    {"health/0/xid/count", "4", GC_OK, "xid.events"},
    {"health/0/pcie/current_gen", "3", GC_DEGRADED, "pcie.link"},
    {"health/0/pcie/current_width", "8", GC_DEGRADED, "pcie.link"},
    {"health/0/pcie/max_gen", "4", GC_DEGRADED, "pcie.slot"},
    {"health/0/nvlink/up", "16", GC_DEGRADED, "nvlink.down"},
    {"health/0/nvlink/links", "12", GC_DEGRADED, "nvlink.missing"},
    {"health/0/nvlink", "{\"links\": 0, \"up\": 0}", GC_OK, "nvlink.none"},
    {"health/0/mig/enabled", "true", GC_DEGRADED, "mig.on"},
    {"health/0/mig/pending", "true", GC_OK, "mig.pending"},
    {"health/0/persistence/enabled", "false", GC_DEGRADED, "persistence.off"},
    {"health/0/driver/match", "false", GC_FAULTY, "stack.driver"},
    {"gpuinfo/devices/0/compute_units", "66", GC_DEGRADED, "identity.units"},
    {"gpuinfo/devices/0/global_mem_bytes", "85899345920", GC_DEGRADED, "identity.memory"},
    {"gpuinfo/devices/0/max_clock_mhz", "1410", GC_DEGRADED, "identity.clock"},
    {"results/2/gbs", "2500", GC_UNDERPERFORMING, "perf.bandwidth"},
    {"results/1/gflops", "30000", GC_UNDERPERFORMING, "perf.gemm"},
    {"results/0/gflops", "15000", GC_UNDERPERFORMING, "perf.gemm.xgpu"},
    {"results/3/gbs", "20", GC_UNDERPERFORMING, "perf.transfer"},
    {"results/4/median_s", "3.0e-5", GC_UNDERPERFORMING, "perf.launch"},
    {"results/1/telemetry",
     "{\"throttled\": true, \"reasons\": [\"hw_thermal\"], \"throttle_why\": \"hw_thermal\"}",
     GC_DEGRADED, "throttle.thermal"},
    {"results/1/telemetry",
     "{\"throttled\": true, \"reasons\": [\"sw_power_cap\"], \"throttle_why\": \"sw_power_cap\"}",
     GC_OK, "throttle.power"},
    {"results/0/median_s", "null", GC_OK, "results.unrun"},
    {"gpuinfo/devices/0/name", "\"Made-up GPU 9000\"", GC_UNKNOWN, "reference.none"},
    /* A figure of zero against a reference fails, never passes unjudged. */
    {"results/2/gbs", "0", GC_UNDERPERFORMING, "perf.bandwidth"},
    {"results/4/median_s", "0", GC_UNDERPERFORMING, "perf.launch"},
    /* A failed peer-to-peer copy is a wrong result of both its devices. */
    {"p2p",
     "{\"pairs\": [{\"src\": \"cuda:0\", \"dst\": \"cuda:1\", \"gbs\": 40,"
     " \"verified\": false}]}",
     GC_FAULTY, "results.wrong"},
    /* A slow figure of a case smaller than the reference's is not judged. */
    {"results/1/size", "1024", GC_OK, "size.gemm"},
    {"results/2/size", "67108864", GC_OK, "size.bandwidth"},
    {"results/3/size", "1048576", GC_OK, "size.transfer"},
};

static void healthy_file_is_ok(void **state) {
    (void)state;
    cJSON *root = cJSON_Parse(healthy);
    gc_judgement j;
    gc_facts *f = NULL;
    assert_int_equal(judge_json(root, &j, &f), GC_OK);
    assert_non_null(j.model);
    assert_string_equal(j.model->model, "NVIDIA H200 SXM");
    for (int i = 0; i < j.nreasons; i++) {
        fail_msg("a healthy file gave a reason: %s: %s", j.reasons[i].rule, j.reasons[i].text);
    }
    /* Every figure judged: bandwidth, vendor and xgpu GEMM, transfer, launch. */
    assert_int_equal(j.nfigures, 5);
    for (int i = 0; i < j.nfigures; i++) {
        assert_false(isnan(j.figures[i].ratio));
        assert_true(j.figures[i].pass);
        assert_false(j.figures[i].too_small);
    }
    /* The triad against the measured median: 3600 / 3597. */
    assert_string_equal(j.figures[0].ref_kind, "measured");
    assert_true(fabs(j.figures[0].ratio - 3600.0 / 3597.0) < 1e-9);
    /* The host's OpenBLAS row is not a device and not counted. */
    assert_int_equal(f->rows, 5);
    free(f);
    cJSON_Delete(root);
}

static void each_rule_sets_its_verdict(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *root = cJSON_Parse(healthy);
        cJSON *v = cJSON_Parse(cases[i].value);
        assert_non_null(v);
        set(root, cases[i].path, v);
        gc_judgement j;
        gc_facts *f = NULL;
        gc_verdict got = judge_json(root, &j, &f);
        if (got != cases[i].want || !has_rule(&j, cases[i].rule)) {
            fail_msg("%s = %s: verdict %s, want %s with rule %s (first reason: %s)", cases[i].path,
                     cases[i].value, gc_verdict_name(got), gc_verdict_name(cases[i].want),
                     cases[i].rule, j.nreasons ? j.reasons[0].text : "none");
        }
        free(f);
        cJSON_Delete(root);
    }
}

/* Medians measured through CUDA do not judge the same GPU through
 * OpenCL: its figures go against the spec sheet. 40000 GFLOP/s is 0.80x
 * the cuBLAS median (fails 0.85) but 0.60x the 67000 spec (passes 0.5). */
static void other_backend_against_the_spec(void **state) {
    (void)state;
    cJSON *root = cJSON_Parse(healthy);
    for (int i = 0; i < 5; i++) {
        char path[32];
        snprintf(path, sizeof path, "results/%d/backend", i);
        set(root, path, cJSON_CreateString("opencl"));
    }
    set(root, "results/1/gflops", cJSON_CreateNumber(40000));
    set(root, "results/1/impl", cJSON_CreateString("clblast"));
    gc_judgement j;
    gc_facts *f = NULL;
    assert_int_equal(judge_json(root, &j, &f), GC_OK);
    bool seen = false;
    for (int i = 0; i < j.nfigures; i++) {
        if (!strcmp(j.figures[i].name, "gemm")) {
            assert_string_equal(j.figures[i].ref_kind, "spec");
            seen = true;
        }
        /* xgpu's and the launch medians are CUDA's: not shown against them. */
        assert_string_not_equal(j.figures[i].name, "launch");
        assert_string_not_equal(j.figures[i].name, "gemm.xgpu");
    }
    assert_true(seen);
    free(f);
    cJSON_Delete(root);
}

/* The GEMM figures are single GEMMs, as the references are: a faster
 * strided-batched row of the same n (schema members new after 0.6.0)
 * does not stand for the device, for the vendor or for xgpu. */
static void batched_gemm_is_not_the_figure(void **state) {
    (void)state;
    cJSON *root = cJSON_Parse(healthy);
    cJSON *results = cJSON_GetObjectItem(root, "results");
    for (int i = 0; i < 2; i++) {
        cJSON *batched = cJSON_Duplicate(cJSON_GetArrayItem(results, i), true);
        cJSON_ReplaceItemInObject(batched, "gflops", cJSON_CreateNumber(90000));
        cJSON_AddNumberToObject(batched, "batch", 64);
        cJSON_AddItemToArray(results, batched);
    }
    gc_judgement j;
    gc_facts *f = NULL;
    assert_int_equal(judge_json(root, &j, &f), GC_OK);
    int seen = 0;
    for (int i = 0; i < j.nfigures; i++) {
        if (!strcmp(j.figures[i].name, "gemm") || !strcmp(j.figures[i].name, "gemm.xgpu")) {
            assert_true(j.figures[i].value < 60000);
            seen++;
        }
    }
    assert_int_equal(seen, 2);
    free(f);
    cJSON_Delete(root);
}

/* The transfer figure is the best copy large enough to judge: a fast
 * small copy does not hide a slow large one. */
static void transfer_large_copy_counts(void **state) {
    (void)state;
    cJSON *root = cJSON_Parse(healthy);
    cJSON *small = cJSON_Duplicate(at(root, "results/3"), true);
    cJSON_ReplaceItemInObject(small, "shape", cJSON_CreateString("h2d pinned 1 MiB"));
    cJSON_ReplaceItemInObject(small, "size", cJSON_CreateNumber(1048576));
    cJSON_ReplaceItemInObject(small, "gbs", cJSON_CreateNumber(11));
    cJSON_AddItemToArray(at(root, "results"), small);
    set(root, "results/3/gbs", cJSON_CreateNumber(10));
    gc_judgement j;
    gc_facts *f = NULL;
    assert_int_equal(judge_json(root, &j, &f), GC_UNDERPERFORMING);
    assert_true(has_rule(&j, "perf.transfer"));
    assert_true(fabs(f->transfer_gbs - 10) < 1e-9);
    free(f);
    cJSON_Delete(root);
}

/* Names are cleaned of control characters and broken UTF-8 before they
 * reach a terminal or the JSON. */
static void names_are_cleaned(void **state) {
    (void)state;
    cJSON *root = cJSON_Parse(healthy);
    set(root, "gpuinfo/devices/0/name", cJSON_CreateString("NVIDIA H200\x1b[2J\r\nFAKE OK\xff"));
    gc_judgement j;
    gc_facts *f = NULL;
    judge_json(root, &j, &f);
    assert_string_equal(f->name, "NVIDIA H200?[2J??FAKE OK?");
    assert_non_null(j.model); /* still an H200 */
    free(f);
    cJSON_Delete(root);
}

/* Two runs of one device without dates (different days, the same
 * benchmarks) are two verdicts; one run split by benchmark is one. */
static void dateless_runs_stay_apart(void **state) {
    (void)state;
    cJSON *a = cJSON_Parse(healthy), *b = cJSON_Parse(healthy);
    cJSON_DeleteItemFromObject(a, "started_utc");
    cJSON_DeleteItemFromObject(b, "started_utc");
    set(b, "results/1/gflops", cJSON_CreateNumber(20000));
    char *ta = cJSON_PrintUnformatted(a), *tb = cJSON_PrintUnformatted(b);
    gc_facts *fa = NULL, *fb = NULL;
    size_t na = 0, nb = 0;
    char why[256];
    assert_int_equal(gc_facts_read(ta, strlen(ta), "a.json", &fa, &na, why, sizeof why), 0);
    assert_int_equal(gc_facts_read(tb, strlen(tb), "b.json", &fb, &nb, why, sizeof why), 0);
    assert_false(gc_facts_same_device(&fa[0], &fb[0]));
    assert_false(gc_facts_same_device(&fa[0], &fa[0])); /* one file twice */
    free(fa);
    free(fb);
    free(ta);
    free(tb);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* A link read idle below its maximum is a note, not a fault. */
static void idle_link_is_not_judged(void **state) {
    (void)state;
    cJSON *root = cJSON_Parse(healthy);
    set(root, "health/0/pcie/current_gen", cJSON_CreateNumber(1));
    set(root, "health/0/pcie/under_load", cJSON_CreateFalse());
    gc_judgement j;
    gc_facts *f = NULL;
    assert_int_equal(judge_json(root, &j, &f), GC_OK);
    assert_true(has_rule(&j, "pcie.idle"));
    free(f);
    cJSON_Delete(root);
}

/* No reference: UNKNOWN, but rules that need none still judge; a
 * device with no PCI id says so. */
static void no_reference(void **state) {
    (void)state;
    cJSON *root = cJSON_Parse(healthy);
    set(root, "gpuinfo/devices/0/name", cJSON_CreateString("pthread-cpu"));
    set(root, "gpuinfo/devices/0/pci_bus_id", cJSON_CreateNull());
    gc_judgement j;
    gc_facts *f = NULL;
    assert_int_equal(judge_json(root, &j, &f), GC_UNKNOWN);
    assert_null(j.model);
    assert_non_null(strstr(j.reasons[0].text, "no PCI id"));
    for (int i = 0; i < j.nfigures; i++) {
        assert_true(isnan(j.figures[i].reference)); /* shown, never judged */
    }
    free(f);
    set(root, "health/0/pcie/current_width", cJSON_CreateNumber(4));
    assert_int_equal(judge_json(root, &j, &f), GC_DEGRADED);
    assert_true(has_rule(&j, "reference.none"));
    free(f);
    cJSON_Delete(root);
}

/* A file with nothing to judge (no figure at a reference's size, no
 * health) is UNKNOWN, never OK. */
static void nothing_to_judge(void **state) {
    (void)state;
    cJSON *root = cJSON_Parse(healthy);
    cJSON_DeleteItemFromObject(root, "health");
    for (int i = 0; i < 5; i++) {
        char path[32];
        snprintf(path, sizeof path, "results/%d/size", i);
        set(root, path, cJSON_CreateNumber(i == 4 ? 0 : 1024));
    }
    set(root, "results/4/median_s", cJSON_CreateNull());
    gc_judgement j;
    gc_facts *f = NULL;
    assert_int_equal(judge_json(root, &j, &f), GC_UNKNOWN);
    assert_true(has_rule(&j, "nothing.judged"));
    free(f);
    /* A health object that knows nothing is no health. */
    cJSON_AddItemToObject(root, "health",
                          cJSON_Parse("[{\"device\": \"cuda:0\", \"source\": \"none\"}]"));
    assert_int_equal(judge_json(root, &j, &f), GC_UNKNOWN);
    assert_true(has_rule(&j, "nothing.judged"));
    free(f);
    cJSON_Delete(root);
}

/* An old file without health: judged on what it has, the lack said. */
static void old_file_lacks_health(void **state) {
    (void)state;
    cJSON *root = cJSON_Parse(healthy);
    cJSON_DeleteItemFromObject(root, "health");
    cJSON_DeleteItemFromObject(root, "started_utc");
    set(root, "xgpu_version", cJSON_CreateString("0.3.0"));
    gc_judgement j;
    gc_facts *f = NULL;
    assert_int_equal(judge_json(root, &j, &f), GC_OK);
    assert_true(has_rule(&j, "file.lacks"));
    assert_non_null(strstr(f->lacks, "written by xgpu 0.3.0: no health"));
    assert_non_null(strstr(f->lacks, "no date"));
    free(f);
    cJSON_Delete(root);
}

static void models_match_whole_words(void **state) {
    (void)state;
    static const struct {
        const char *name, *model;
        int cu;
    } m[] = {
        {"AMD Instinct MI250X/MI250", "AMD Instinct MI250X (one GCD)", 110},
        {"AMD Instinct MI250X/MI250", "AMD Instinct MI250 (one GCD)", 104},
        {"NVIDIA H200", "NVIDIA H200 SXM", -1},
        {"NVIDIA H200 NVL", "NVIDIA H200 NVL", -1},
        {"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM 80GB", -1},
        {"NVIDIA H100 PCIe", "NVIDIA H100 PCIe 80GB", -1},
        {"NVIDIA L4", "NVIDIA L4", -1},
        {"NVIDIA L40S", "NVIDIA L40S", -1},
        {"NVIDIA A10", "NVIDIA A10", -1},
        {"NVIDIA A100-SXM4-80GB", "NVIDIA A100 SXM4 80GB", -1},
        {"NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090", -1},
        {"AMD Instinct MI250X", "AMD Instinct MI250X (one GCD)", -1},
        {"AMD Instinct MI250", "AMD Instinct MI250 (one GCD)", -1},
        {"AMD Instinct MI300X", "AMD Instinct MI300X", -1},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        const gc_model *got = gc_refs_match(&refs, m[i].name, m[i].cu);
        assert_non_null(got);
        if (strcmp(got->model, m[i].model) != 0) {
            fail_msg("%s matched %s, want %s", m[i].name, got->model, m[i].model);
        }
    }
    assert_null(gc_refs_match(&refs, "NVIDIA A10G", -1));
    assert_null(gc_refs_match(&refs, "NVIDIA L40", -1));
    assert_null(gc_refs_match(&refs, "pthread-skylake-avx512", -1));
    assert_null(gc_refs_match(&refs, "NVIDIA GeForce RTX 4090 Laptop GPU", -1));
    assert_null(gc_refs_match(&refs, "NVIDIA GeForce RTX 4090 D", -1));
    /* Every shipped figure has its source. */
    for (size_t i = 0; i < refs.count; i++) {
        assert_true(refs.models[i].spec_source[0]);
        assert_false(isnan(refs.models[i].spec_bandwidth_gbs));
    }
}

static void user_table_overrides(void **state) {
    (void)state;
    gc_refs r;
    char why[512];
    assert_int_equal(gc_refs_load_shipped(&r, why, sizeof why), 0);
    size_t before = r.count;
    const char *user =
        "{\"schema\": \"xgpu.gpu-references/1\", \"tolerance\": {\"measured\": 0.9}, \"models\": ["
        "{\"model\": \"NVIDIA H200 SXM\", \"match\": [\"H200\"], \"compute_units\": 140,"
        " \"spec\": {\"mem_bandwidth_gbs\": 1, \"source\": \"mine\"}},"
        "{\"model\": \"Made-up 9000\", \"match\": [\"Made-up GPU 9000\"],"
        " \"spec\": {\"mem_bandwidth_gbs\": 100, \"source\": \"mine\"}}]}";
    assert_int_equal(gc_refs_add(&r, user, strlen(user), "user.json", why, sizeof why), 0);
    assert_int_equal(r.count, before + 1);
    assert_int_equal(gc_refs_match(&r, "NVIDIA H200", -1)->compute_units, 140);
    assert_non_null(gc_refs_match(&r, "Made-up GPU 9000", -1));
    assert_true(fabs(r.tol.measured - 0.9) < 1e-12);
    assert_non_null(strstr(r.source, "user.json"));
    gc_refs_free(&r);
}

static void bad_tables_are_refused(void **state) {
    (void)state;
    static const struct {
        const char *text, *fragment;
    } bad[] = {
        {"{\"schema\": \"xgpu.gpu-references/1\", \"models\": [{\"model\": \"X\","
         " \"match\": [\"X\"], \"memory_gb\": \"80\"}]}",
         "model \"X\": \"memory_gb\" is not a number"},
        {"{\"schema\": \"xgpu.gpu-references/1\", \"models\": [{\"model\": \"X\","
         " \"match\": \"X\"}]}",
         "\"match\" is not a list"},
        {"{\"schema\": \"xgpu.gpu-references/1\", \"models\": [{\"match\": [\"X\"]}]}",
         "models[0]: no \"model\""},
        {"{\"schema\": \"xgpu.gpu-references/1\", \"tolerance\": {\"measured\": 3},"
         " \"models\": []}",
         "outside"},
        {"{\"schema\": \"other/1\", \"models\": []}", "not a reference table"},
        {"{\"schema\": \"xgpu.gpu-references/1\", \"models\": [", "not valid JSON"},
        {"[1, 2]", "not a reference table"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gc_refs r;
        char why[512] = "";
        assert_int_equal(gc_refs_load_shipped(&r, why, sizeof why), 0);
        size_t before = r.count;
        assert_int_equal(
            gc_refs_add(&r, bad[i].text, strlen(bad[i].text), "bad.json", why, sizeof why), -1);
        if (!strstr(why, bad[i].fragment) || !strstr(why, "bad.json")) {
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, why, bad[i].fragment);
        }
        assert_int_equal(r.count, before); /* unchanged */
        gc_refs_free(&r);
    }
}

static void bad_result_files(void **state) {
    (void)state;
    static const struct {
        const char *text, *fragment;
    } bad[] = {
        {"{\"schema\": \"xgpu.gpubench/1\", \"results\": [", "not valid JSON"},
        {"{\"schema\": \"xgpu.gpuinfo/1\", \"devices\": []}", "not a gpubench result file"},
        {"{\"schema\": \"xgpu.gpubench/1\", \"xgpu_version\": \"1.2.0\", \"results\": []}",
         "written by xgpu 1.2.0"},
        {"{\"schema\": \"xgpu.gpubench/1\", \"results\": [{\"device\": \"host\"}]}",
         "no device rows"},
        {"{\"schema\": \"xgpu.gpubench/1\", \"results\": [7, \"x\", null]}", "no device rows"},
        {"", "not valid JSON"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gc_facts *f = (gc_facts *)1;
        size_t n = 9;
        char why[512] = "";
        assert_int_equal(
            gc_facts_read(bad[i].text, strlen(bad[i].text), "x.json", &f, &n, why, sizeof why), -1);
        assert_null(f);
        assert_int_equal(n, 0);
        if (!strstr(why, bad[i].fragment)) {
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, why, bad[i].fragment);
        }
    }
    /* Members of the wrong type are unknown, never a crash or a number. */
    cJSON *root = cJSON_Parse(healthy);
    set(root, "health/0/pcie/current_gen", cJSON_CreateString("5"));
    set(root, "health/0/ecc", cJSON_CreateString("x"));
    set(root, "results/2/gbs", cJSON_CreateString("fast"));
    gc_judgement j;
    gc_facts *f = NULL;
    judge_json(root, &j, &f);
    assert_int_equal(f->h.pcie_gen, -1);
    assert_int_equal(f->h.ecc_enabled, -1);
    assert_true(isnan(f->triad_gbs));
    assert_int_not_equal(j.verdict, GC_FAULTY);
    free(f);
    cJSON_Delete(root);
}

/* The project's published H200 run (two files of one run): one device,
 * OK, every figure against the measured reference. */
static void published_h200_run(void **state) {
    (void)state;
    const char *names[] = {"gpubench-gemm.json", "gpubench-memory.json"};
    gc_facts all[2];
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/docs/results/2026-11-30-h200/%s", XGPU_SOURCE_DIR,
                 names[i]);
        size_t len = 0, n = 0;
        char *text = xt_read_file(path, &len);
        assert_non_null(text);
        gc_facts *f = NULL;
        char why[512] = "";
        assert_int_equal(gc_facts_read(text, len, path, &f, &n, why, sizeof why), 0);
        assert_int_equal(n, 1);
        all[i] = f[0];
        free(f);
        free(text);
    }
    assert_true(gc_facts_same_device(&all[0], &all[1]));
    gc_facts_merge(&all[0], &all[1]);
    gc_judgement j;
    gc_judge(&all[0], &refs, &j);
    assert_int_equal(j.verdict, GC_OK);
    assert_string_equal(j.model->model, "NVIDIA H200 SXM");
    assert_int_equal(j.nfigures, 5);
    for (int i = 0; i < j.nfigures; i++) {
        assert_true(j.figures[i].pass);
        assert_false(isnan(j.figures[i].ratio));
        assert_false(j.figures[i].too_small);
    }
    assert_true(has_rule(&j, "file.lacks")); /* 0.3.0 wrote no health */
}

static void pcie_rates(void **state) {
    (void)state;
    assert_true(fabs(gc_pcie_gbs(5, 16) - 63.016) < 0.01);
    assert_true(fabs(gc_pcie_gbs(4, 16) - 31.5072) < 0.01);
    assert_true(fabs(gc_pcie_gbs(3, 8) - 7.8768) < 0.01);
    assert_true(fabs(gc_pcie_gbs(1, 1) - 0.25) < 1e-9);
    assert_true(isnan(gc_pcie_gbs(0, 16)));
    assert_true(isnan(gc_pcie_gbs(7, 16)));
    assert_true(isnan(gc_pcie_gbs(4, 0)));
}

/* The command: exit statuses and outputs. */
static int run(const char *args, char **out) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s check %s 2>&1", GPUBENCH, args);
    int status = -1;
    char *text = xt_run_command(cmd, &status);
    assert_non_null(text);
    if (out) {
        *out = text;
    } else {
        free(text);
    }
    return status;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void command_exit_statuses(void **state) {
    (void)state;
    char *out = NULL;
    assert_int_equal(run("--help", &out), 0);
    assert_non_null(strstr(out, "Exit status"));
    free(out);
    assert_int_equal(run("--bogus", &out), 2);
    assert_non_null(strstr(out, "unknown option '--bogus'"));
    free(out);
    assert_int_equal(run("--time 0 x.json", NULL), 2);
    assert_int_equal(run("-d 0 check-healthy.json", NULL), 2);
    assert_int_equal(run("no-such-file.json", &out), 2);
    assert_non_null(strstr(out, "no-such-file.json: skipped: cannot open"));
    free(out);

    write_text("check-healthy.json", healthy);
    assert_int_equal(run("check-healthy.json", &out), 0);
    assert_non_null(strstr(out, "OK "));
    free(out);

    cJSON *root = cJSON_Parse(healthy);
    set(root, "health/0/pcie/current_width", cJSON_CreateNumber(8));
    set(root, "started_utc", cJSON_CreateString("2026-12-01T01:00:00Z")); /* another run */
    set(root, "host", cJSON_CreateString("node2"));
    char *text = cJSON_Print(root);
    write_text("check-x8.json", text);
    free(text);
    cJSON_Delete(root);
    /* One bad device of two files: 1, and the JSON says which. */
    assert_int_equal(run("--json check-verdicts.json check-healthy.json check-x8.json", NULL), 1);
    size_t len = 0;
    char *json = xt_read_file("check-verdicts.json", &len);
    assert_non_null(json);
    cJSON *v = cJSON_Parse(json);
    assert_non_null(v);
    assert_string_equal(cJSON_GetObjectItem(v, "schema")->valuestring, "xgpu.gpubench-check/1");
    cJSON *devs = cJSON_GetObjectItem(v, "devices");
    assert_int_equal(cJSON_GetArraySize(devs), 2);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(devs, 0), "verdict")->valuestring,
                        "OK");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(devs, 1), "verdict")->valuestring,
                        "DEGRADED");
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "summary"), "DEGRADED")->valueint,
                     1);
    cJSON_Delete(v);
    free(json);

    /* The report's verdict column is gpubench check's. */
    char rcmd[1024];
    snprintf(rcmd, sizeof rcmd, "%s report -o check-report check-healthy.json check-x8.json 2>&1",
             GPUBENCH);
    int rstatus = -1;
    char *rout = xt_run_command(rcmd, &rstatus);
    free(rout);
    assert_int_equal(rstatus, 0);
    char *md = xt_read_file("check-report.md", &len);
    assert_non_null(md);
    assert_non_null(strstr(md, "| verdict |"));
    assert_non_null(strstr(md, "| DEGRADED | PCIe link at Gen5 x8 under load"));
    assert_non_null(strstr(md, "| OK |"));
    free(md);

    /* --json - keeps standard output to the JSON. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s check --json - check-healthy.json 2>/dev/null", GPUBENCH);
    int status = -1;
    json = xt_run_command(cmd, &status);
    assert_int_equal(status, 0);
    v = cJSON_Parse(json);
    assert_non_null(v);
    cJSON_Delete(v);
    free(json);

    /* No device: 1, and why each backend is unavailable. */
    snprintf(cmd, sizeof cmd, "XGPU_BACKENDS=nosuch %s check 2>&1", GPUBENCH);
    out = xt_run_command(cmd, &status);
    assert_non_null(out);
    assert_int_equal(status, 1);
    assert_non_null(strstr(out, "no device to check"));
    assert_non_null(strstr(out, "nosuch: unavailable: no plugin"));
    free(out);

    /* A file that cannot be read among good ones: the others judged, 2. */
    assert_int_equal(run("check-healthy.json no-such-file.json", &out), 2);
    assert_non_null(strstr(out, "1 device: 1 OK"));
    free(out);
    /* --json naming an input would overwrite it: refused, the input kept. */
    assert_int_equal(run("--json check-healthy.json check-healthy.json", &out), 2);
    assert_non_null(strstr(out, "is also an input"));
    free(out);
    assert_int_equal(run("check-healthy.json", NULL), 0);
    assert_int_equal(run("--time 1 --time 2 check-healthy.json", &out), 2);
    assert_non_null(strstr(out, "--time given twice"));
    free(out);
    /* --json into a folder that does not exist fails before anything. */
    assert_int_equal(run("--json no-such-dir/v.json check-healthy.json", &out), 2);
    assert_null(strstr(out, "VERDICT"));
    free(out);
    /* Two --reference tables, applied in order. */
    write_text("check-ref-a.json", "{\"schema\": \"xgpu.gpu-references/1\", \"models\": ["
                                   "{\"model\": \"A\", \"match\": [\"Made-up A\"]}]}");
    write_text("check-ref-b.json", "{\"schema\": \"xgpu.gpu-references/1\", \"models\": ["
                                   "{\"model\": \"B\", \"match\": [\"Made-up B\"]}]}");
    assert_int_equal(
        run("--reference check-ref-a.json --reference check-ref-b.json check-healthy.json", &out),
        0);
    assert_non_null(strstr(out, "check-ref-a.json, then check-ref-b.json (2026-12-01, 22 models)"));
    free(out);

    write_text("check-bad-ref.json", "{\"schema\": \"xgpu.gpu-references/1\", \"models\": 3}");
    assert_int_equal(run("--reference check-bad-ref.json check-healthy.json", &out), 2);
    assert_non_null(strstr(out, "check-bad-ref.json: no \"models\" list"));
    free(out);
    write_text("check-damaged.json", "{\"schema\": \"xgpu.gpubench/1\", \"res");
    assert_int_equal(run("check-damaged.json", &out), 2);
    assert_non_null(strstr(out, "check-damaged.json: skipped: not valid JSON"));
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_file_is_ok),
        cmocka_unit_test(each_rule_sets_its_verdict),
        cmocka_unit_test(idle_link_is_not_judged),
        cmocka_unit_test(no_reference),
        cmocka_unit_test(old_file_lacks_health),
        cmocka_unit_test(nothing_to_judge),
        cmocka_unit_test(models_match_whole_words),
        cmocka_unit_test(user_table_overrides),
        cmocka_unit_test(bad_tables_are_refused),
        cmocka_unit_test(bad_result_files),
        cmocka_unit_test(published_h200_run),
        cmocka_unit_test(pcie_rates),
        cmocka_unit_test(other_backend_against_the_spec),
        cmocka_unit_test(batched_gemm_is_not_the_figure),
        cmocka_unit_test(transfer_large_copy_counts),
        cmocka_unit_test(names_are_cleaned),
        cmocka_unit_test(dateless_runs_stay_apart),
        cmocka_unit_test(command_exit_statuses),
    };
    return cmocka_run_group_tests_name("gpubench check", tests, setup, teardown);
}
