/* gpuinfo --watch end to end with the stand-in NVML (fake_nvml.c) serving
 * the machine's devices (XGPU_TELEMETRY_MATCH=index:0, as the OpenCL CPU
 * device has no PCI bus id): the table's columns, CSV, JSON lines parsed
 * with cJSON, --count, a clean stop on SIGINT, and usage errors. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>

#include "xt_file.h"
#include "fake_nvml_values.h"

#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define JSONL "watch-test.jsonl"
#define CSV "watch-test.csv"

static void fake_env(void) {
    setenv("XGPU_NVML_LIBRARY", FAKE_NVML_DIR "/full/libnvidia-ml.so.1", 1);
    setenv("XGPU_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
    setenv("XGPU_TELEMETRY_MATCH", "index:0", 1);
    fake_nvml_values();
    setenv("FAKE_NVML_REASONS", "0x24", 1); /* sw_power_cap, sw_thermal */
}

static int lines(const char *text) {
    int n = 0;
    for (const char *p = text; *p; p++) {
        n += *p == '\n';
    }
    return n;
}

static void check_json_line(const char *line) {
    cJSON *o = cJSON_Parse(line);
    if (!o) {
        fail_msg("not a JSON line: %s", line);
    }
    static const struct {
        const char *key;
        double want;
    } values[] = {{"sm_clock_mhz", 1410}, {"mem_clock_mhz", 2619}, {"power_w", 250.5},
                  {"power_limit_w", 700}, {"temp_c", 61},          {"util_pct", 87},
                  {"mem_used_mib", 3072}};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, values[i].key);
        if (!cJSON_IsNumber(v) || fabs(v->valuedouble - values[i].want) > 1e-9) {
            fail_msg("%s is not %g in %s", values[i].key, values[i].want, line);
        }
    }
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "source")->valuestring, "nvml");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "cpu_mhz")));
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(o, "device");
    assert_true(cJSON_IsString(dev) && strchr(dev->valuestring, ':'));
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "reasons");
    assert_int_equal(cJSON_GetArraySize(r), 2);
    assert_string_equal(cJSON_GetArrayItem(r, 0)->valuestring, "sw_power_cap");
    assert_string_equal(cJSON_GetArrayItem(r, 1)->valuestring, "sw_thermal");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "time"));
    cJSON_Delete(o);
}

/* Every line of a JSON-lines file checked; how many there were. */
static int check_json_lines(const char *path) {
    char *text = xt_read_file(path, NULL);
    assert_non_null(text);
    int n = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        check_json_line(line);
        n++;
    }
    free(text);
    return n;
}

/* Whole lines in `path` so far; 0 when it does not exist yet. */
static int lines_so_far(const char *path) {
    FILE *f = fopen(path, "r");
    int n = 0, c;
    while (f && (c = fgetc(f)) != EOF) {
        n += c == '\n';
    }
    if (f) {
        fclose(f);
    }
    return n;
}

static void count_two_writes_table_csv_and_jsonl(void **state) {
    (void)state;
    fake_env();
    unlink(JSONL);
    unlink(CSV);
    int status = -1;
    char *out = xt_run_command(
        GPUINFO " --watch --count 2 -i 0.1 --jsonl " JSONL " --csv " CSV " 2>/dev/null", &status);
    assert_non_null(out);
    assert_int_equal(status, 0);
    /* a header, then one line per device per interval */
    int rows = lines(out) - 1;
    assert_true(rows >= 2 && rows % 2 == 0);
    const char *heads[] = {"time",   "device", "sm_MHz",  "mem_MHz", "pwr_W",  "limit_W",
                           "temp_C", "util%",  "mem_MiB", "cpu_MHz", "reasons"};
    char *second = strchr(out, '\n') + 1;
    second[-1] = '\0';
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        if (!strstr(out, heads[i])) {
            fail_msg("the header lacks %s: %s", heads[i], out);
        }
    }
    char dev[64];
    double sm, mem, pwr, lim, temp, util, used;
    char cpu[16], reasons[64];
    assert_int_equal(sscanf(second, "%*s %63s %lf %lf %lf %lf %lf %lf %lf %15s %63s", dev, &sm,
                            &mem, &pwr, &lim, &temp, &util, &used, cpu, reasons),
                     10);
    assert_true(sm == 1410 && mem == 2619 && pwr == 250.5 && lim == 700 && temp == 61 &&
                util == 87 && used == 3072);
    assert_string_equal(cpu, "-");
    assert_string_equal(reasons, "sw_power_cap,sw_thermal");
    free(out);
    assert_int_equal(check_json_lines(JSONL), rows);
    char *csv = xt_read_file(CSV, NULL);
    assert_non_null(csv);
    assert_int_equal(lines(csv), rows + 1);
    assert_non_null(strstr(csv, "time,device,source,sm_clock_mhz,mem_clock_mhz,power_w,"
                                "power_limit_w,temp_c,util_pct,mem_used_mib,cpu_mhz,reasons\n"));
    assert_non_null(strstr(csv, ",nvml,1410,2619,250.5,700,61,87,3072,,sw_power_cap|sw_thermal\n"));
    free(csv);
}

static void jsonl_on_stdout_leaves_the_table_out(void **state) {
    (void)state;
    fake_env();
    int status = -1;
    char *out = xt_run_command(GPUINFO " --watch --count 1 -i 0.1 --jsonl - 2>/dev/null", &status);
    assert_non_null(out);
    assert_int_equal(status, 0);
    assert_null(strstr(out, "sm_MHz"));
    char *nl = strchr(out, '\n');
    assert_non_null(nl);
    *nl = '\0';
    check_json_line(out);
    free(out);
}

static void sigint_stops_cleanly(void **state) {
    (void)state;
    fake_env();
    unlink(JSONL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(GPUINFO, GPUINFO, "--watch", "-i", "0.1", "--jsonl", JSONL, (char *)NULL);
        _exit(127);
    }
    /* Once a line is written the handler is in place: wait for it (at
     * most 30 s, however slow the machine), then interrupt. */
    struct timespec t = {0, 50000000L};
    for (int i = 0; i < 600 && lines_so_far(JSONL) < 1; i++) {
        nanosleep(&t, NULL);
    }
    assert_int_equal(kill(pid, SIGINT), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(check_json_lines(JSONL) >= 1); /* every line whole */
}

static void bad_options_are_usage_errors(void **state) {
    (void)state;
    static const char *const bad[] = {"-i 0.05",   "-i 3601",    "-i abc", "-i ''",
                                      "--count 0", "--count 2x", "-i",     "--csv - --jsonl -",
                                      "--bogus",   "-d x::"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%s --watch %s 2>&1", GPUINFO, bad[i]);
        int status = -1;
        char *out = xt_run_command(cmd, &status);
        assert_non_null(out);
        if (status != 2 || !strstr(out, "gpuinfo: ")) {
            fail_msg("'--watch %s': status %d, output %s", bad[i], status, out);
        }
        free(out);
    }
}

static void device_selector(void **state) {
    (void)state;
    fake_env();
    int status = -1;
    char *out =
        xt_run_command(GPUINFO " --watch --count 1 -i 0.1 -d opencl:0 2>/dev/null", &status);
    assert_non_null(out);
    assert_int_equal(status, 0);
    assert_int_equal(lines(out), 2); /* the header, the one device */
    assert_non_null(strstr(out, "opencl:0"));
    free(out);
    out = xt_run_command(GPUINFO " --watch --count 1 -d 999 2>&1", &status);
    assert_non_null(out);
    assert_int_equal(status, 1);
    assert_non_null(strstr(out, "gpuinfo: -d 999: "));
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(count_two_writes_table_csv_and_jsonl),
        cmocka_unit_test(jsonl_on_stdout_leaves_the_table_out),
        cmocka_unit_test(sigint_stops_cleanly),
        cmocka_unit_test(bad_options_are_usage_errors),
        cmocka_unit_test(device_selector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
