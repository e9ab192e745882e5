/* gpubench report at fleet scale: 512 generated result files (64 hosts x
 * 8 devices, 40 results each, about 40 KiB a file) merge into the right
 * models, groups, stragglers and throttled rows. The time it took is
 * printed, not asserted. */
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

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

enum { HOSTS = 64, PER_HOST = 8, CASES = 40 };

/* 64 hosts x 8 devices, 40 cases each, in the layout a launcher leaves
 * (gpubench-HOST-rRANK-UUID.json): hosts 0-31 have one model, 32-63
 * another; each figure is off by up to 3% (no straggler), but rank 141
 * runs every GEMM at 0.8 and rank 300 is throttled on case 5. */
static void report_merges_a_fleet_of_512_files(void **state) {
    (void)state;
    char dir[] = "gbr-fleet-XXXXXX";
    assert_non_null(mkdtemp(dir));
    uint32_t seed = 12345;
    for (int h = 0; h < HOSTS; h++) {
        for (int g = 0; g < PER_HOST; g++) {
            long rank = h * PER_HOST + g;
            char host[32], uuid[64], path[256];
            snprintf(host, sizeof host, "gpu-node-%03d", h);
            snprintf(uuid, sizeof uuid, "GPU-%08lx-1111-2222-3333-444444444444", rank);
            snprintf(path, sizeof path, "%s/gpubench-%s-r%ld-%s.json", dir, host, rank, uuid);
            double factor[CASES];
            for (int c = 0; c < CASES; c++) {
                seed = seed * 1664525u + 1013904223u;
                factor[c] = 0.97 + 0.06 * (seed >> 8) / (double)(1u << 24);
                if (rank == 141 && !strcmp(case_bench(c), "gemm")) {
                    factor[c] = 0.8;
                }
            }
            device d = {.host = host,
                        .uuid = uuid,
                        .name = h < 32 ? "NVIDIA H100 80GB HBM3" : "NVIDIA A100-SXM4-80GB",
                        .arch = h < 32 ? "sm_90" : "sm_80",
                        .rank = rank,
                        .index = g,
                        .ncases = CASES,
                        .factor = factor,
                        .throttled_case = rank == 300 ? 5 : -1};
            write_device(path, &d);
        }
    }
    char args[512];
    snprintf(args, sizeof args, "%s/*.json", dir);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s/fleet", dir);
    double t0 = now();
    char *out = report(prefix, args, 0);
    double took = now() - t0;
    print_message("512 result files (%d results) merged in %.2f s\n", HOSTS * PER_HOST * CASES,
                  took);
    free(out);
    char path[128];
    snprintf(path, sizeof path, "%s/fleet.json", dir);
    cJSON *j = read_json(path);
    assert_int_equal(array_size(j, "files"), HOSTS * PER_HOST);
    assert_int_equal(array_size(j, "skipped"), 0);
    assert_int_equal((int)get_num(j, "devices"), HOSTS * PER_HOST);
    assert_int_equal(array_size(j, "models"), 2);
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "models")) {
        assert_int_equal((int)get_num(m, "devices"), HOSTS * PER_HOST / 2);
        assert_int_equal((int)get_num(m, "hosts"), HOSTS / 2);
    }
    assert_int_equal(array_size(j, "groups"), 2 * CASES);
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(j, "groups")) {
        assert_int_equal((int)get_num(g, "devices"), HOSTS * PER_HOST / 2);
        assert_true(get_num(g, "min") <= get_num(g, "median"));
        assert_true(get_num(g, "median") <= get_num(g, "max"));
    }
    /* Every straggler is rank 141 on a GEMM, 17-20% below its median; it
     * is one on each GEMM case. */
    int gemms = 0;
    for (int c = 0; c < CASES; c++) {
        gemms += !strcmp(case_bench(c), "gemm");
    }
    assert_int_equal(array_size(j, "stragglers"), gemms);
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(j, "stragglers")) {
        assert_int_equal((int)get_num(s, "rank"), 141);
        assert_string_equal(get_str(s, "host"), "gpu-node-017");
        assert_string_equal(get_str(s, "bench"), "gemm");
        double gap = get_num(s, "gap_pct");
        double want = (get_num(s, "median") - get_num(s, "rate")) / get_num(s, "median") * 100;
        assert_float_equal(gap, want, 1e-6);
        assert_true(gap > 17 && gap < 23);
    }
    /* ... and one straggling device, with its count of cases. */
    assert_int_equal(array_size(j, "straggling_devices"), 1);
    s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "straggling_devices"), 0);
    assert_int_equal((int)get_num(s, "rank"), 141);
    assert_int_equal((int)get_num(s, "cases"), gemms);
    assert_int_equal(array_size(j, "throttled"), 1);
    cJSON_Delete(j);
    /* The charts stay at one series per model. */
    snprintf(path, sizeof path, "%s/fleet.html", dir);
    char *html = xt_read_file(path, NULL);
    assert_non_null(html);
    assert_null(strstr(html, "more series"));
    assert_non_null(strstr(html, "<polyline"));
    free(html);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -r %s", dir);
    int status;
    free(run(cmd, &status));
    assert_int_equal(status, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_merges_a_fleet_of_512_files),
    };
    return cmocka_run_group_tests_name("gpubench report at scale", tests, NULL, NULL);
}
