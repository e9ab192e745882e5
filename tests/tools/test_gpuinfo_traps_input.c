/* gpuinfo's checks of the stack on bad input and in gpuinfo itself:
 * visible-devices values of 10,000 commas or a megabyte, binary, huge,
 * cut-short and FIFO /proc/driver/nvidia/version files, hostile
 * XGPU_SYSROOT values, bounded reads, driver versions in file names, the
 * findings as JSON; then gpuinfo --json and --doctor on the fake CUDA
 * driver (tests/cuda/fake_device.c, copied to a versioned file name) with
 * two GPUs out of bus order, MIG and a libcuda newer than the module. */
#define _GNU_SOURCE
#include "traps_machine.h"
#include "xt_file.h"
#include "xt_tree.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

/* 10,000 commas, a megabyte of digits, control characters: one finding
 * with the value cut short, never a crash or a message past its buffer. */
static void visible_bad_input_is_said_clearly(void **state) {
    (void)state;
    tm_nvidia_machine();
    size_t n = 10000;
    char *v = malloc(2 * n + 2);
    assert_non_null(v);
    memset(v, ',', n);
    v[n] = '\0';
    setenv("CUDA_VISIBLE_DEVICES", v, 1);
    const tr_finding *fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_ERROR);
    tm_assert_contains(fi->message, "entry 1 (\"\") is empty");
    tm_assert_contains(fi->message, "... (10000 bytes)");
    /* "0,0,...,0": every entry a GPU. */
    for (size_t i = 0; i < n; i++) {
        v[2 * i] = '0';
        v[2 * i + 1] = ',';
    }
    v[2 * n - 1] = '\0';
    setenv("CUDA_VISIBLE_DEVICES", v, 1);
    tm_expect_none(tm_check());
    free(v);
    size_t big = (size_t)1 << 20;
    v = malloc(big + 1);
    assert_non_null(v);
    memset(v, '7', big);
    v[big] = '\0';
    setenv("CUDA_VISIBLE_DEVICES", v, 1);
    fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_ERROR);
    tm_assert_contains(fi->message, "7777...\") is no GPU");
    free(v);
    setenv("CUDA_VISIBLE_DEVICES", "0,\x1b[31m\"x\\", 1);
    fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_WARNING);
    assert_null(strchr(fi->message, '\x1b'));
}

static void driver_versions_from_file_names(void **state) {
    (void)state;
    static const struct {
        const char *file, *version;
    } cases[] = {
        {"/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06", "580.65.06"},
        {"/usr/lib64/libnvidia-ml.so.535.104.05", "535.104.05"},
        {"/opt/a.so.1/libcuda.so.575.57", "575.57"},
        {"libcuda.so.1", ""},
        {"/usr/lib/wsl/drivers/x/libcuda.so.1.1", ""},
        {"libcuda.so.580.65.06.1", ""},
        {"libcuda.so.580.", ""},
        {"libcuda.so", ""},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char v[32];
        ni_file_version(cases[i].file, v, sizeof v);
        if (strcmp(v, cases[i].version)) {
            fail_msg("%s: '%s', not '%s'", cases[i].file, v, cases[i].version);
        }
    }
}

/* Binary, huge, cut-short or odd /proc/driver/nvidia/version files: a
 * clear finding, the version from /sys/module when it has one. */
static void proc_version_bad_input(void **state) {
    (void)state;
    tm_put("etc/OpenCL/vendors/nvidia.icd", "libnvidia-opencl.so.1\n");
    static const struct {
        const char *text;
        size_t size;
        const char *why;
    } cases[] = {
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  5\0\0\x7f"
         "ELF",
         53, "binary data"},
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  ", 0, "no version number"},
        {"NVRM version: NVIDIA UNIX x86_64 Kernel", 0, "no \"Kernel Module\""},
        {"", 0, "is empty"},
        {"GCC version: gcc 12\n", 0, "no \"NVRM version:\" line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = cases[i].size ? cases[i].size : strlen(cases[i].text);
        tm_put_bytes("proc/driver/nvidia/version", cases[i].text, n);
        const tr_finding *fi = tm_expect(tm_check(), "nvidia_version_unreadable", TR_INFO);
        tm_assert_contains(fi->message, cases[i].why);
        assert_string_equal(tm_rep->facts.nvidia_kmod, "");
    }
    /* A megabyte whose first line is good: read. */
    size_t big = (size_t)1 << 20;
    char *text = malloc(big);
    assert_non_null(text);
    memset(text, 'x', big);
    memcpy(text, NVRM_LINE, strlen(NVRM_LINE));
    tm_put_bytes("proc/driver/nvidia/version", text, big);
    tm_expect_none(tm_check());
    assert_string_equal(tm_rep->facts.nvidia_kmod, FAKE_NVML_KERNEL);
    /* A megabyte of one line: too long. */
    memcpy(text, "NVRM version: ", 14);
    memset(text + 14, 'x', big - 14);
    tm_put_bytes("proc/driver/nvidia/version", text, big);
    const tr_finding *fi = tm_expect(tm_check(), "nvidia_version_unreadable", TR_INFO);
    tm_assert_contains(fi->message, "longer than the 4096 bytes read");
    free(text);
    /* /sys/module's version is used, and named. */
    tm_put("sys/module/nvidia/version", "580.65.06\n");
    fi = tm_expect(tm_check(), "nvidia_version_unreadable", TR_INFO);
    tm_assert_contains(fi->message, "(/sys/module/nvidia/version says 580.65.06)");
    assert_string_equal(tm_rep->facts.nvidia_kmod, "580.65.06");
    /* A FIFO where the file should be: not read (and no hang), a folder
     * neither. */
    char path[PATH_MAX];
    assert_int_equal(xt_tree_path(tm_root, "proc/driver/nvidia/version", path), 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    tm_expect_none(tm_check());
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    tm_expect_none(tm_check());
}

/* ---- XGPU_SYSROOT ---- */

static void hostile_sysroot_is_refused_clearly(void **state) {
    (void)state;
    char file[PATH_MAX];
    assert_int_equal(xt_tree_path(tm_root, "a-file", file), 0);
    tm_put("a-file", "");
    char *longest = malloc(5001);
    assert_non_null(longest);
    longest[0] = '/';
    memset(longest + 1, 'a', 4999);
    longest[5000] = '\0';
    const struct {
        const char *value, *why;
    } cases[] = {
        {"relative/tree", "is not an absolute path"},
        {"/tmp/../etc", "holds a '..' component"},
        {"/tmp/..", "holds a '..' component"},
        {"/tmp/x\ny", "holds a control character"},
        {longest, "is 5000 bytes long, more than the 1024 taken"},
        {"/nonexistent/tree", "cannot be used: No such file or directory"},
        {file, "is not a folder"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("XGPU_SYSROOT", cases[i].value, 1);
        const tr_findings *fs = tm_check();
        assert_int_equal(fs->count, 1);
        const tr_finding *fi = tm_expect(fs, "sysroot_invalid", TR_ERROR);
        tm_assert_contains(fi->message, cases[i].why);
        tm_assert_contains(fi->message, "the machine was not checked");
        assert_true(strlen(fi->message) < 400);
        assert_null(strchr(fi->message, '\n'));
    }
    free(longest);
    /* "/tmp/..x" is a name, "/" and "" the machine itself. */
    setenv("XGPU_SYSROOT", "/", 1);
    tm_gather();
    assert_string_equal(tm_rep->facts.root, "");
    assert_string_equal(tm_rep->facts.root_error, "");
}

static void reads_are_bounded(void **state) {
    (void)state;
    tm_put("proc/small", "0123456789");
    tr_facts f;
    memset(&f, 0, sizeof f);
    snprintf(f.root, sizeof f.root, "%.1000s", tm_root);
    char buf[8];
    bool cut = false;
    assert_int_equal(tr_read_text(&f, "/proc/small", buf, sizeof buf, &cut), 7);
    assert_string_equal(buf, "0123456");
    assert_true(cut);
    char big[64];
    assert_int_equal(tr_read_text(&f, "/proc/small", big, sizeof big, &cut), 10);
    assert_false(cut);
    assert_int_equal(tr_read_text(&f, "/proc/missing", big, sizeof big, &cut), -1);
    assert_int_equal(tr_read_text(&f, "/proc", big, sizeof big, &cut), -1);
    assert_string_equal(big, "");
    /* A path past PATH_MAX is no file. */
    char *path = malloc(PATH_MAX + 16);
    assert_non_null(path);
    memset(path, 'a', PATH_MAX + 15);
    path[0] = '/';
    path[PATH_MAX + 15] = '\0';
    assert_int_equal(tr_read_text(&f, path, big, sizeof big, NULL), -1);
    assert_false(tr_exists(&f, path));
    free(path);
}

/* ---- the JSON form ---- */

static void findings_as_json(void **state) {
    (void)state;
    tm_nvidia_machine();
    setenv("CUDA_VISIBLE_DEVICES", "0,\"9\"\t", 1);
    fake_nvml_mig();
    const tr_findings *fs = tm_check();
    assert_int_equal(fs->count, 2);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    fputs("{", f);
    tr_write_json(f, fs);
    fputs("}", f);
    assert_int_equal(fclose(f), 0);
    cJSON *doc = cJSON_Parse(text);
    if (!doc) {
        fail_msg("not JSON: %s", text);
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "findings");
    assert_int_equal(cJSON_GetArraySize(list), 2);
    const cJSON *first = cJSON_GetArrayItem(list, 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "id")->valuestring,
                        "visible_devices_unmatched");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "severity")->valuestring,
                        "warning");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "message")->valuestring,
                        fs->items[0].message);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "fix")->valuestring,
                        fs->items[0].fix);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(first, "details")),
                     fs->items[0].detail_count);
    cJSON_Delete(doc);
    free(text);
    /* None: an empty array. */
    tr_findings none;
    memset(&none, 0, sizeof none);
    f = open_memstream(&text, &size);
    tr_write_json(f, &none);
    fclose(f);
    assert_string_equal(text, "\"findings\": []");
    free(text);
}

/* ---- gpuinfo itself ---- */

#ifdef FAKE_CUDA_DEVICE
/* The fake CUDA driver copied to a name that carries a driver version,
 * as a real libcuda.so.1 resolves to libcuda.so.580.65.06. */
static void install_libcuda(const char *version) {
    size_t n = 0;
    char *image = xt_read_file(FAKE_CUDA_DEVICE, &n);
    assert_non_null(image);
    char rel[128], path[PATH_MAX];
    snprintf(rel, sizeof rel, "usr/lib/libcuda.so.%s", version);
    tm_put_bytes(rel, image, n);
    free(image);
    assert_int_equal(xt_tree_path(tm_root, rel, path), 0);
    setenv("XGPU_CUDA_DRIVER", path, 1);
    setenv("XGPU_BACKENDS", "cuda", 1);
    setenv("XGPU_NVRTC", "none", 1);
    setenv("XGPU_CACHE", "off", 1);
    setenv("XGPU_TUNE", "off", 1);
    setenv("FAKE_CUDA_DEVICES", "2", 1);
    setenv("FAKE_CUDA_PCI_BUS", "0x41,0x01", 1);
}

static void clear_libcuda(void) {
    static const char *const vars[] = {"XGPU_CUDA_DRIVER", "XGPU_BACKENDS", "XGPU_NVRTC",
                                       "XGPU_CACHE", "XGPU_TUNE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        unsetenv(vars[i]);
    }
}

static const char *const fake_machine_ids[] = {"cuda_device_order", "mig_enabled",
                                               "driver_version_mismatch"};

/* Two GPUs that CUDA numbers against the bus order, MIG on GPU 0, and a
 * libcuda newer than the kernel module. */
static void json_lists_the_findings(void **state) {
    (void)state;
    tm_nvidia_machine();
    fake_nvml_mig();
    install_libcuda(FAKE_NVML_NEWER);
    int status = -1;
    char *out = xt_run_command(GPUINFO " --json 2>/dev/null", &status);
    clear_libcuda();
    assert_non_null(out);
    assert_int_equal(status, 0);
    cJSON *doc = cJSON_Parse(out);
    if (!doc) {
        fail_msg("gpuinfo --json is not JSON: %s", out);
    }
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "devices")), 2);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "findings");
    if (cJSON_GetArraySize(list) != 3) {
        fail_msg("not three findings: %s", out);
    }
    for (int i = 0; i < 3; i++) {
        const cJSON *fi = cJSON_GetArrayItem(list, i);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(fi, "id")->valuestring,
                            fake_machine_ids[i]);
        assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(fi, "message")));
        assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(fi, "fix")));
        assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(fi, "details")));
    }
    const cJSON *mismatch = cJSON_GetArrayItem(list, 2);
    tm_assert_contains(cJSON_GetObjectItemCaseSensitive(mismatch, "message")->valuestring,
                       "but libcuda is " FAKE_NVML_NEWER);
    cJSON_Delete(doc);
    free(out);
}

static void doctor_prints_each_finding_and_its_fix(void **state) {
    (void)state;
    tm_nvidia_machine();
    fake_nvml_mig();
    install_libcuda(FAKE_NVML_NEWER);
    int status = -1;
    char *out = xt_run_command(GPUINFO " --doctor 2>&1", &status);
    clear_libcuda();
    assert_non_null(out);
    assert_int_equal(status, 1); /* the fake's kernels compute nothing */
    static const char *const lines[] = {
        "stack: visible devices, CUDA device order, MIG, containers, WSL, driver versions\n",
        "  -     PCI bus: 2 NVIDIA, 0 AMD or Hygon GPU(s): 0000:01:00.0, 0000:41:00.0\n",
        "  -     kernel modules: nvidia " FAKE_NVML_KERNEL " (/proc/driver/nvidia/version)\n",
        "  WARN  cuda_device_order: CUDA_DEVICE_ORDER is unset",
        "          0      0000:41:00.0",
        "        fix: export CUDA_DEVICE_ORDER=PCI_BUS_ID\n",
        "  info  mig_enabled: MIG is on for 1 of 2 GPU(s)",
        "  FAIL  driver_version_mismatch: the NVIDIA kernel module is " FAKE_NVML_KERNEL,
        "        fix: reboot, or reload the nvidia modules",
        "kernel cache\n",
    };
    const char *at = out;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const char *next = strstr(at, lines[i]);
        if (!next) {
            fail_msg("the doctor lacks, in order, '%s':\n%s", lines[i], out);
        }
        at = next;
    }
    free(out);
}
#endif

static void json_of_a_pocl_machine_has_no_finding(void **state) {
    (void)state;
    tm_put("etc/OpenCL/vendors/pocl.icd", "libpocl.so.2\n");
    tm_put(".dockerenv", "");
    int status = -1;
    char *out = xt_run_command("XGPU_BACKENDS=opencl " GPUINFO " --json 2>/dev/null", &status);
    assert_non_null(out);
    assert_int_equal(status, 0);
    /* No finding; the frameworks' members may follow. */
    assert_non_null(strstr(out, "\n  \"findings\": []"));
    free(out);
    out = xt_run_command("XGPU_BACKENDS=opencl XGPU_SYSROOT=relative " GPUINFO " --json", &status);
    assert_non_null(out);
    assert_int_equal(status, 0);
    cJSON *doc = cJSON_Parse(out);
    assert_non_null(doc);
    const cJSON *fi = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "findings"), 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(fi, "id")->valuestring, "sysroot_invalid");
    cJSON_Delete(doc);
    free(out);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, tm_setup, tm_teardown)
    const struct CMUnitTest tests[] = {
        T(visible_bad_input_is_said_clearly),
        T(driver_versions_from_file_names),
        T(proc_version_bad_input),
        T(hostile_sysroot_is_refused_clearly),
        T(reads_are_bounded),
        T(findings_as_json),
        T(json_of_a_pocl_machine_has_no_finding),
#ifdef FAKE_CUDA_DEVICE
        T(json_lists_the_findings),
        T(doctor_prints_each_finding_and_its_fix),
#endif
    };
#undef T
    return cmocka_run_group_tests_name("gpuinfo_traps_input", tests, NULL, NULL);
}
