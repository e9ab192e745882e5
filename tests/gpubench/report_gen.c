/* Generated gpubench result files and the checks the report tests share
 * (report_gen.h). */
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

char *run(const char *cmdline, int *status) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "%s 2>&1", cmdline);
    char *out = xt_run_command(cmd, status);
    assert_non_null(out);
    return out;
}

/* Runs `gpubench report -o PREFIX ARGS`, expecting `want` as exit status. */
char *report(const char *prefix, const char *args, int want) {
    char cmd[4096];
    int status = -1;
    snprintf(cmd, sizeof cmd, "%s report -o %s %s", GPUBENCH, prefix, args);
    char *out = run(cmd, &status);
    if (status != want) {
        fail_msg("%s: exit %d, expected %d\n%s", cmd, status, want, out);
    }
    return out;
}

cJSON *read_json(const char *path) {
    char *text = xt_read_file(path, NULL);
    assert_non_null(text);
    cJSON *j = cJSON_Parse(text);
    if (!j) {
        fail_msg("%s is not JSON:\n%.2000s", path, text);
    }
    free(text);
    return j;
}

int array_size(const cJSON *j, const char *key) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, key);
    assert_true(cJSON_IsArray(a));
    return cJSON_GetArraySize(a);
}

const char *get_str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsString(v));
    return v->valuestring;
}

double get_num(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

/* The benchmark cases of the generated files: case i is a GEMM (GFLOP/s),
 * a stream (GB/s) or a launch (us), with its figure on a reference
 * device. */
const char *case_bench(int i) {
    static const char *const b[] = {"gemm", "gemm", "stream", "launch"};
    return b[i % 4];
}

static const char *case_key(int i) {
    static const char *const k[] = {"gflops", "gflops", "gbs", "us"};
    return k[i % 4];
}

double case_base(int i) {
    static const double base[] = {1000, 2000, 500, 5};
    return base[i % 4] * (1 + 0.01 * i);
}

/* A result file as gpubench writes it, with the keys a launcher run adds
 * (rank, device_uuid, device_arch, telemetry, p2p). */
void write_device(const char *path, const device *d) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\n\"schema\": \"xgpu.gpubench/1\",\n\"host\": \"%s\",\n", d->host);
    fprintf(f, "\"xgpu_version\": \"%s\",\n", d->version ? d->version : VERSION);
    fputs("\"command_line\": [\"gpubench\", \"-b\", \"gemm,stream,launch\"],\n"
          "\"libraries\": {},\n\"gpuinfo\": null,\n",
          f);
    if (d->rank >= 0) {
        fprintf(f,
                "\"rank\": {\"engine\": \"slurm\", \"rank\": %ld, \"local_rank\": %d, "
                "\"size\": %ld, \"variable\": \"SLURM_PROCID\"},\n",
                d->rank, d->index, d->size ? d->size : 512);
    } else {
        fputs("\"rank\": null,\n", f);
    }
    fprintf(f, "\"p2p\": %s,\n\"results\": [", d->p2p ? d->p2p : "null");
    for (int i = d->first_case; i < d->ncases; i++) {
        double rate = case_base(i) * (d->factor ? d->factor[i] : 1);
        bool throttled = i == d->throttled_case;
        fprintf(f,
                "%s\n  {\"bench\": \"%s\", \"impl\": \"%s\", \"device\": \"%s:%d\", "
                "\"device_name\": \"%s\", \"backend\": \"%s\", \"dtype\": \"%s\", "
                "\"shape\": \"case %d\", \"size\": %d, \"median_s\": 0.00123, \"min_s\": "
                "0.0012, \"max_s\": 0.0013, \"stddev_s\": 1.2e-05, \"reps\": 20, "
                "\"%s\": %.9g, \"pct_peak\": 61.5, \"first_s\": 0.05, \"verified\": true, "
                "\"max_rel_err\": 1.5e-07, \"note\": \"\", \"device_uuid\": \"%s\", "
                "\"device_arch\": \"%s\", \"host\": \"%s\", "
                "\"telemetry\": {\"source\": \"nvml\", \"samples\": 12, "
                "\"sm_clock_mhz\": {\"min\": %d, \"median\": 1980, \"max\": 1980}, "
                "\"mem_clock_mhz\": {\"min\": 2619, \"median\": 2619, \"max\": 2619}, "
                "\"power_w\": {\"min\": 310.5, \"median\": 402.1, \"max\": 455.0}, "
                "\"power_limit_w\": {\"min\": 700, \"median\": 700, \"max\": 700}, "
                "\"temp_c\": {\"min\": 51, \"median\": 58, \"max\": 63}, "
                "\"util_pct\": {\"min\": 97, \"median\": 100, \"max\": 100}, "
                "\"mem_used_mib\": {\"min\": 1200, \"median\": 1200, \"max\": 1200}, "
                "\"cpu_mhz\": null, \"sm_clock_max_mhz\": 1980, \"reasons\": [%s], "
                "\"throttled\": %s, \"throttle_why\": \"%s\"}}",
                i > d->first_case ? "," : "", case_bench(i), d->impl ? d->impl : "xgpu",
                d->backend ? d->backend : "cuda", d->index, d->name,
                d->backend ? d->backend : "cuda", i % 8 < 4 ? "f32" : "f64", i, 32 << (i / 8 % 6),
                case_key(i), rate, d->uuid, d->arch, d->host, throttled ? 1210 : 1980,
                throttled ? "\"sw_thermal\"" : "", throttled ? "true" : "false",
                throttled ? "sw_thermal; SM clock 1210 MHz < 0.75 of max 1980 MHz" : "");
    }
    fputs("\n]\n}\n", f);
    assert_int_equal(fclose(f), 0);
}

void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Expects `out` to have the warning for `file` with `reason` in it. */
void expect_skipped(const char *out, const char *file, const char *reason) {
    char want[512];
    snprintf(want, sizeof want, "gpubench report: warning: %s: skipped: %s", file, reason);
    if (!strstr(out, want)) {
        fail_msg("expected \"%s\" in:\n%s", want, out);
    }
}

const cJSON *find_straggler(const cJSON *j, long rank, const char *bench) {
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(j, "stragglers")) {
        if ((long)get_num(s, "rank") == rank && !strcmp(get_str(s, "bench"), bench)) {
            return s;
        }
    }
    return NULL;
}
