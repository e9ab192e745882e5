/* gpuinfo --doctor and --json end to end on made-up Python environments
 * (a venv, a conda prefix, a user site) and a fake CUDA driver whose
 * version and GPU a test chooses (FAKE_CUDA_VERSION, FAKE_CUDA_SM), or a
 * fake HIP runtime (FAKE_HIP_VERSION): the frameworks section and the
 * "frameworks" array say what the unit tests' rules say, through the
 * fields xgpu's backends fill. */
#define _GNU_SOURCE /* PATH_MAX */
#include <cjson/cJSON.h>

#include "xt_file.h"
#include "xt_tree.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static char root[PATH_MAX];

static void write_at(const char *rel, const char *text) {
    char path[PATH_MAX], dir[PATH_MAX];
    assert_int_equal(xt_tree_path(root, rel, path), 0);
    snprintf(dir, sizeof dir, "%s", rel);
    *strrchr(dir, '/') = '\0';
    assert_int_equal(xt_tree_dir(root, dir), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void dist(const char *site, const char *stem, const char *name, const char *version) {
    char rel[PATH_MAX], text[256];
    snprintf(rel, sizeof rel, "%s/%s.dist-info/METADATA", site, stem);
    snprintf(text, sizeof text, "Metadata-Version: 2.1\nName: %s\nVersion: %s\n\n", name, version);
    write_at(rel, text);
}

#define VENV "venv/lib/python3.12/site-packages"
#define CONDA "conda/lib/python3.11/site-packages"
#define USER_SITE "home/.local/lib/python3.12/site-packages"
#define ROCM_VENV "rocm/lib/python3.12/site-packages"

static int make_tree(void **state) {
    (void)state;
    if (xt_tree_make("xgpu-doctor-frameworks", root) != 0) {
        return -1;
    }
    write_at(VENV "/torch/version.py", "__version__ = '2.8.0+cu128'\n"
                                       "cuda: Optional[str] = '12.8'\n"
                                       "hip: Optional[str] = None\n");
    dist(VENV, "torch-2.8.0+cu128", "torch", "2.8.0+cu128");
    dist(VENV, "nvidia_cuda_runtime_cu12-12.8.90", "nvidia-cuda-runtime-cu12", "12.8.90");
    dist(VENV, "nvidia_cudnn_cu12-9.10.2.21", "nvidia-cudnn-cu12", "9.10.2.21");
    write_at(CONDA "/tensorflow/python/platform/build_info.py",
             "import collections\n"
             "build_info = collections.OrderedDict([('cuda_compute_capabilities', ['sm_60', "
             "'sm_70', 'sm_75']), ('cuda_version', '12.3'), ('is_cuda_build', True), "
             "('is_rocm_build', False)])\n");
    dist(CONDA, "tensorflow-2.17.0", "tensorflow", "2.17.0");
    write_at(USER_SITE "/torch/version.py", "__version__ = '2.8.0+cpu'\n"
                                            "cuda = None\n"
                                            "hip = None\n");
    dist(USER_SITE, "torch-2.8.0+cpu", "torch", "2.8.0+cpu");
    write_at(ROCM_VENV "/torch/version.py", "__version__ = '2.5.1+rocm6.2'\n"
                                            "cuda = None\n"
                                            "hip = '6.2.41133-dd7f95766'\n");
    dist(ROCM_VENV, "torch-2.5.1+rocm6.2", "torch", "2.5.1+rocm6.2");
    return 0;
}

static int remove_tree(void **state) {
    (void)state;
    return xt_tree_remove(root);
}

/* gpuinfo `args` with only the variables given (plus the made-up
 * environments, and the sanitizers' options CI sets); its output,
 * malloc'ed. Standard error is left out, and must hold no sanitizer's
 * report (the tests run under ASan and UBSan in CI). */
static char *run(const char *vars, const char *venv, const char *args) {
    char cmd[4 * PATH_MAX], err[PATH_MAX];
    assert_int_equal(xt_tree_path(root, "stderr.txt", err), 0);
    int n =
        snprintf(cmd, sizeof cmd,
                 "env -i PATH= VIRTUAL_ENV=%s/%s CONDA_PREFIX=%s/conda HOME=%s/home XGPU_CACHE=off "
                 "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}\" LSAN_OPTIONS=\"${LSAN_OPTIONS:-}\" "
                 "UBSAN_OPTIONS=\"${UBSAN_OPTIONS:-}\" "
                 "XGPU_TUNE=off XGPU_NVRTC=none XGPU_HIPRTC=none %s %s %s 2>%s",
                 root, venv, root, root, vars, GPUINFO, args, err);
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    int status = 0;
    char *out = xt_run_command(cmd, &status);
    assert_non_null(out);
    char *errors = xt_read_file(err, NULL);
    assert_non_null(errors);
    if (strstr(errors, "Sanitizer") || strstr(errors, "runtime error:")) {
        fail_msg("gpuinfo %s: %s", args, errors);
    }
    free(errors);
    /* With --doctor: 1, the fake devices fail the smoke test (no NVRTC). */
    assert_true(status == 0 || status == 1);
    return out;
}

static void expect_line(const char *out, const char *want) {
    if (!strstr(out, want)) {
        fail_msg("the doctor lacks \"%s\":\n%s", want, out);
    }
}

static char cuda_vars[1024];

static const char *cuda(const char *version, const char *sm) {
    snprintf(cuda_vars, sizeof cuda_vars,
             "XGPU_BACKENDS=cuda XGPU_CUDA_DRIVER=%s FAKE_CUDA_VERSION=%s FAKE_CUDA_SM=%s",
             FAKE_CUDA, version, sm);
    return cuda_vars;
}

static void doctor_on_a_cuda_12_8_driver(void **state) {
    (void)state;
    char *out = run(cuda("12080", "90"), "venv", "--doctor");
    expect_line(out, "this machine: NVIDIA driver for CUDA 12.8, GPU sm_90 (cuda:0)");
    expect_line(out, "/" VENV " (VIRTUAL_ENV): 3 distributions\n");
    expect_line(out, "\n  ok    torch 2.8.0+cu128: CUDA 12.8 build: this driver supports CUDA "
                     "12.8");
    expect_line(out, "\n  ok    nvidia-cuda-runtime-cu12 12.8.90: for CUDA 12.8");
    expect_line(out, "/" CONDA " (CONDA_PREFIX): 1 distribution\n");
    expect_line(out, "\n  FAIL  tensorflow 2.17.0: built for sm_60,sm_70,sm_75: neither code for "
                     "this GPU's sm_90 (cuda:0)");
    expect_line(out, "/" USER_SITE " (HOME): 1 distribution\n");
    expect_line(
        out, "\n  FAIL  torch 2.8.0+cpu: CPU-only build on a machine with an NVIDIA GPU "
             "(sm_90, cuda:0): it never uses the GPU; pip install --user --force-reinstall torch "
             "--index-url https://download.pytorch.org/whl/cu128\n");
    /* The section sits between the environment and the kernel cache. */
    const char *env = strstr(out, "\nenvironment\n"), *fw = strstr(out, "\nframeworks: "),
               *cache = strstr(out, "\nkernel cache\n");
    assert_non_null(env);
    assert_non_null(fw);
    assert_non_null(cache);
    assert_true(env < fw && fw < cache);
    free(out);
}

static void doctor_on_a_driver_too_old_and_another_gpu(void **state) {
    (void)state;
    char *out = run(cuda("11080", "75"), "venv", "--doctor");
    expect_line(out,
                "\n  FAIL  torch 2.8.0+cu128: CUDA 12.8 build: needs a driver for CUDA 12.0 "
                "or newer (>= 525.60.13); this driver supports CUDA 11.8; upgrade the NVIDIA "
                "driver to >= 525.60.13 (CUDA 12.8's own: 570.26), or: pip install "
                "--force-reinstall torch --index-url https://download.pytorch.org/whl/cu118\n");
    /* sm_75 is in TensorFlow's list; its CUDA 12.3 is not this driver's. */
    expect_line(out, "\n  FAIL  tensorflow 2.17.0: CUDA 12.3 build: needs a driver for CUDA 12.0");
    free(out);
    out = run(cuda("12040", "75"), "venv", "--doctor");
    expect_line(out,
                "\n  ok    tensorflow 2.17.0: CUDA 12.3 build: this driver supports CUDA 12.4; "
                "sm_75 code for sm_75\n");
    expect_line(out, "\n  ok    torch 2.8.0+cu128: CUDA 12.8 build: runs under minor-version "
                     "compatibility on this driver for CUDA 12.4");
    free(out);
}

static void doctor_without_an_nvidia_driver(void **state) {
    (void)state;
    char *out =
        run("XGPU_BACKENDS=cuda XGPU_CUDA_DRIVER=/nonexistent/libcuda.so.1", "venv", "--doctor");
    expect_line(out, "this machine: no NVIDIA driver loaded;");
    expect_line(out, "\n  WARN  torch 2.8.0+cu128: CUDA 12.8 build: no NVIDIA driver is loaded, "
                     "so its GPU path cannot run here; where there is an NVIDIA GPU, install its "
                     "driver: >= 525.60.13 runs any CUDA 12.x build\n");
    expect_line(out, "\n  ok    torch 2.8.0+cpu: CPU-only build; no GPU is reached here\n");
    free(out);
}

static cJSON *field(const cJSON *obj, const char *key) {
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!f) {
        fail_msg("JSON key '%s' is missing", key);
    }
    return (cJSON *)f;
}

static void json_frameworks_array(void **state) {
    (void)state;
    char *out = run(cuda("12080", "90"), "venv", "--json");
    cJSON *doc = cJSON_Parse(out);
    if (!doc) {
        fail_msg("gpuinfo --json is not JSON near: %.80s", cJSON_GetErrorPtr());
    }
    assert_string_equal(field(doc, "schema")->valuestring, "xgpu.gpuinfo/1");
    const cJSON *envs = field(doc, "python_environments");
    assert_int_equal(cJSON_GetArraySize(envs), 3);
    assert_string_equal(field(cJSON_GetArrayItem(envs, 0), "found_by")->valuestring, "VIRTUAL_ENV");
    assert_int_equal(field(cJSON_GetArrayItem(envs, 0), "distributions")->valueint, 3);
    const cJSON *fws = field(doc, "frameworks"), *f = NULL;
    assert_int_equal(cJSON_GetArraySize(fws), 5);
    int seen = 0;
    cJSON_ArrayForEach(f, fws) {
        static const char *const keys[] = {"site_packages",
                                           "found_by",
                                           "name",
                                           "version",
                                           "built_for",
                                           "built_for_release",
                                           "built_for_major",
                                           "built_for_minor",
                                           "build_source",
                                           "cuda_archs",
                                           "cuda_archs_note",
                                           "status",
                                           "finding",
                                           "fix",
                                           "error"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            field(f, keys[k]);
        }
        const char *name = field(f, "name")->valuestring;
        const char *version = field(f, "version")->valuestring;
        if (!strcmp(name, "torch") && !strcmp(version, "2.8.0+cu128")) {
            seen |= 1;
            assert_string_equal(field(f, "built_for")->valuestring, "cuda");
            assert_string_equal(field(f, "built_for_release")->valuestring, "12.8");
            assert_int_equal(field(f, "built_for_major")->valueint, 12);
            assert_int_equal(field(f, "built_for_minor")->valueint, 8);
            assert_true(cJSON_IsNull(field(f, "cuda_archs")));
            assert_string_equal(field(f, "status")->valuestring, "ok");
            assert_true(cJSON_IsNull(field(f, "fix")));
            assert_true(cJSON_IsNull(field(f, "error")));
        } else if (!strcmp(name, "torch")) {
            seen |= 2;
            assert_string_equal(field(f, "built_for")->valuestring, "cpu");
            assert_true(cJSON_IsNull(field(f, "built_for_major")));
            assert_string_equal(field(f, "status")->valuestring, "fail");
            assert_non_null(strstr(field(f, "fix")->valuestring, "whl/cu128"));
        } else if (!strcmp(name, "tensorflow")) {
            seen |= 4;
            const cJSON *archs = field(f, "cuda_archs");
            assert_int_equal(cJSON_GetArraySize(archs), 3);
            assert_string_equal(cJSON_GetArrayItem(archs, 2)->valuestring, "sm_75");
            assert_string_equal(field(f, "status")->valuestring, "fail");
        } else if (!strcmp(name, "nvidia-cudnn-cu12")) {
            seen |= 8;
            assert_true(cJSON_IsNull(field(f, "built_for_minor")));
            assert_string_equal(field(f, "built_for_release")->valuestring, "12.x");
        }
    }
    assert_int_equal(seen, 15);
    /* The device the verdicts were made against is in the same document. */
    const cJSON *dev = cJSON_GetArrayItem(field(doc, "devices"), 0);
    assert_non_null(dev);
    assert_string_equal(field(dev, "arch")->valuestring, "sm_90");
    assert_string_equal(field(dev, "driver_version")->valuestring, "12.8");
    cJSON_Delete(doc);
    free(out);
}

static void doctor_with_a_rocm_runtime(void **state) {
#ifdef FAKE_HIP
    (void)state;
    char vars[1024];
    snprintf(vars, sizeof vars,
             "XGPU_BACKENDS=hip XGPU_HIP_RUNTIME=%s FAKE_HIP_ARCH=gfx90a FAKE_HIP_VERSION=%s",
             FAKE_HIP, "60200000");
    char *out = run(vars, "rocm", "--doctor");
    expect_line(out, "this machine: no NVIDIA driver loaded; ROCm 6.2 runtime, GPU gfx90a (hip:0)");
    expect_line(out, "\n  ok    torch 2.5.1+rocm6.2: ROCm 6.2 build; the ROCm runtime here is "
                     "6.2\n");
    /* The CPU-only build in ~/.local on the AMD machine. */
    expect_line(
        out, "\n  FAIL  torch 2.8.0+cpu: CPU-only build on a machine with an AMD GPU "
             "(gfx90a, hip:0): it never uses the GPU; pip install --user --force-reinstall torch "
             "--index-url https://download.pytorch.org/whl/rocm6.2.4\n");
    free(out);
    snprintf(vars, sizeof vars,
             "XGPU_BACKENDS=hip XGPU_HIP_RUNTIME=%s FAKE_HIP_ARCH=gfx90a FAKE_HIP_VERSION=%s",
             FAKE_HIP, "50700000");
    out = run(vars, "rocm", "--doctor");
    expect_line(out, "\n  FAIL  torch 2.5.1+rocm6.2: ROCm 6.2 build; the ROCm runtime here is "
                     "5.7: another major release; pip install --force-reinstall torch --index-url "
                     "https://download.pytorch.org/whl/rocm5.7\n");
    free(out);
#else
    (void)state;
    skip();
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(doctor_on_a_cuda_12_8_driver),
        cmocka_unit_test(doctor_on_a_driver_too_old_and_another_gpu),
        cmocka_unit_test(doctor_without_an_nvidia_driver),
        cmocka_unit_test(json_frameworks_array),
        cmocka_unit_test(doctor_with_a_rocm_runtime),
    };
    return cmocka_run_group_tests_name("gpuinfo doctor frameworks", tests, make_tree, remove_tree);
}
