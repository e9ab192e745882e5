/* cu__nvrtc_load on a machine without the CUDA toolkit, NVRTC being in a
 * pip wheel's folder of a venv. Linked with -Wl,--wrap=dlopen: dlopen
 * refuses bare names (the library path) and every file under
 * /usr/local/cuda, as if the toolkit were absent, and records each file
 * asked for. The wheel's libnvrtc is a link to the toolkit's real one
 * (REAL_NVRTC, where CMake found it), so it really loads from the made-up
 * folder; without one that test is skipped. */
#define _GNU_SOURCE
#include "cuda_internal.h"
#include "core_int.h"
#include "xt_tree.h"

#include <glob.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

void *__real_dlopen(const char *file, int flags);

static char root[PATH_MAX];
static char opened[256][PATH_MAX];
static int nopened;

void *__wrap_dlopen(const char *file, int flags) {
    if (file && nopened < 256) {
        snprintf(opened[nopened++], sizeof opened[0], "%s", file);
    }
    if (!file || !strchr(file, '/') || !strncmp(file, "/usr/local/cuda", 15)) {
        /* Not on this machine; leaves a real dlerror() behind. */
        return __real_dlopen("/nonexistent/xgpu-no-toolkit.so", flags);
    }
    return __real_dlopen(file, flags);
}

/* The first file asked for that contains `part`, or -1. */
static int opened_index(const char *part) {
    for (int i = 0; i < nopened; i++) {
        if (strstr(opened[i], part)) {
            return i;
        }
    }
    return -1;
}

static const char *at(char *buf, const char *rel) {
    assert_int_equal(xt_tree_path(root, rel, buf), 0);
    return buf;
}

/* Only what the test names: no CUDA_PATH, no venv or conda, a HOME that
 * does not exist. */
static void environment(const char *path_rel) {
    char buf[PATH_MAX];
    setenv("PATH", path_rel ? at(buf, path_rel) : "", 1);
    setenv("HOME", at(buf, "nobody"), 1);
    unsetenv("CUDA_PATH");
    unsetenv("VIRTUAL_ENV");
    unsetenv("CONDA_PREFIX");
    nopened = 0;
}

static int make_tree(void **state) {
    (void)state;
    cu__services = &xgpu__services;
    return xt_tree_make("xgpu-nvrtc-wheels", root);
}

static int remove_tree(void **state) {
    (void)state;
    return xt_tree_remove(root);
}

static void loads_from_a_wheel_the_drivers_version_first(void **state) {
    (void)state;
#if defined(REAL_NVRTC)
    char real[PATH_MAX];
    if (!realpath(REAL_NVRTC, real) || !strstr(real, "libnvrtc.so.13")) {
        skip(); /* the case below needs CUDA 13's NVRTC */
    }
    /* The CUDA 13 wheel (nvidia-cuda-nvrtc): libnvrtc and its builtins.
     * Beside it, a broken CUDA 12 one: tried first for a CUDA 12 driver. */
    static const char *site = "venv/lib/python3.12/site-packages/nvidia";
    char rel[PATH_MAX];
    assert_int_equal(xt_tree_file(root, "venv/bin/python3", 0755), 0);
    snprintf(rel, sizeof rel, "%s/cu13/lib/libnvrtc.so.13", site);
    assert_int_equal(xt_tree_link(root, rel, real), 0);
    char pattern[PATH_MAX + 32];
    snprintf(pattern, sizeof pattern, "%s", real);
    snprintf(strrchr(pattern, '/'), 32, "/libnvrtc-builtins.so.*");
    glob_t g;
    assert_int_equal(glob(pattern, 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        snprintf(rel, sizeof rel, "%s/cu13/lib%s", site, strrchr(g.gl_pathv[i], '/'));
        assert_int_equal(xt_tree_link(root, rel, g.gl_pathv[i]), 0);
    }
    globfree(&g);
    snprintf(rel, sizeof rel, "%s/cuda_nvrtc/lib/libnvrtc.so.12", site);
    assert_int_equal(xt_tree_file(root, rel, 0644), 0);

    environment("venv/bin");
    cu_nvrtc nvrtc;
    char reason[1024] = "";
    xgpu_status st = cu__nvrtc_load(&nvrtc, 12080, reason, sizeof reason);
    if (st != XGPU_SUCCESS) {
        fail_msg("%s", reason);
    }
    char want[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/cu13/lib/libnvrtc.so.13", site);
    at(want, rel);
    printf("NVRTC %d.%d from %s after %d tries\n", nvrtc.major, nvrtc.minor, nvrtc.path, nopened);
    assert_string_equal(nvrtc.path, want);
    assert_int_equal(nvrtc.major, 13);
    /* The library path and the toolkit's folder first; then the CUDA 12
     * wheel before the CUDA 13 one, as the driver is CUDA 12. */
    assert_string_equal(opened[0], "libnvrtc.so.12");
    int toolkit = opened_index("/usr/local/cuda/lib64/libnvrtc.so.12");
    int cu12 = opened_index("cuda_nvrtc/lib/libnvrtc.so.12");
    int cu13 = opened_index("cu13/lib/libnvrtc.so.13");
    assert_true(toolkit > 0 && cu12 > toolkit && cu13 > cu12);
    assert_int_equal(cu13, nopened - 1);
#else
    skip(); /* no CUDA toolkit here to take a real libnvrtc from */
#endif
}

static void not_found_says_where_and_what_to_install(void **state) {
    (void)state;
    /* Three wheel and conda folders without NVRTC in them. */
    assert_int_equal(xt_tree_file(root, "empty/bin/python3", 0755), 0);
    assert_int_equal(xt_tree_dir(root, "empty/lib/python3.12/site-packages/nvidia/cuda_nvrtc/lib"),
                     0);
    assert_int_equal(xt_tree_dir(root, "home/.local/lib/python3.12/site-packages/nvidia/cu13/lib"),
                     0);
    assert_int_equal(xt_tree_dir(root, "conda/lib"), 0);
    char buf[PATH_MAX], reason[1024];
    cu_nvrtc nvrtc;

    environment("empty/bin");
    setenv("HOME", at(buf, "home"), 1);
    setenv("CUDA_PATH", at(buf, "no-toolkit"), 1);
    setenv("CONDA_PREFIX", at(buf, "conda"), 1);
    assert_int_equal(cu__nvrtc_load(&nvrtc, 0, reason, sizeof reason),
                     XGPU_ERROR_BACKEND_UNAVAILABLE);
    printf("%s\n", reason);
    /* It fits gpuinfo --doctor's line (xgpu_library_info.detail). */
    assert_true(strlen(reason) < sizeof(((xgpu_library_info *)0)->detail));
    assert_non_null(strstr(reason, "the library path, "));
    assert_non_null(strstr(reason, at(buf, "no-toolkit/lib64/, /usr/local/cuda/lib64/")));
    assert_non_null(strstr(reason, " or 3 pip wheel or conda folders ("));
    assert_non_null(strstr(reason, at(buf, "empty/lib/python3.12/site-packages/nvidia/"
                                           "cuda_nvrtc/lib, ")));
    assert_non_null(strstr(reason, ", ...)"));
    assert_non_null(strstr(reason, "`pip install nvidia-cuda-nvrtc`"));
    assert_non_null(strstr(reason, "nvidia-cuda-nvrtc-cu12"));
    assert_non_null(strstr(reason, "set CUDA_PATH"));
    assert_true(opened_index(at(buf, "conda/lib/libnvrtc.so.13")) > 0);

    environment("empty/bin");
    assert_int_equal(cu__nvrtc_load(&nvrtc, 0, reason, sizeof reason),
                     XGPU_ERROR_BACKEND_UNAVAILABLE);
    assert_non_null(strstr(reason, " or 1 pip wheel or conda folder ("));
    assert_non_null(strstr(reason, "cuda_nvrtc/lib); install"));

    environment(NULL);
    assert_int_equal(cu__nvrtc_load(&nvrtc, 0, reason, sizeof reason),
                     XGPU_ERROR_BACKEND_UNAVAILABLE);
    printf("%s\n", reason);
    assert_non_null(strstr(reason, "the library path, /usr/local/cuda/lib64/, and there is no "
                                   "pip wheel or conda folder"));
    assert_true(strlen(reason) < sizeof(((xgpu_library_info *)0)->detail));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loads_from_a_wheel_the_drivers_version_first),
        cmocka_unit_test(not_found_says_where_and_what_to_install),
    };
    return cmocka_run_group_tests_name("nvrtc_wheels", tests, make_tree, remove_tree);
}
