/* The variables that name a library to dlopen (XGPU_CUDA_DRIVER, CUDA_PATH,
 * and PATH, VIRTUAL_ENV, HOME and CONDA_PREFIX, which lead to NVRTC's pip
 * wheels and conda packages; XGPU_HIP_RUNTIME, XGPU_HIPRTC, ROCM_PATH,
 * DTK_PATH and XGPU_HIP_SYSROOT, which lead to Hygon DTK's folders) are
 * read through secure_getenv, so a setuid program never loads a file its
 * caller chose. Built once per backend (SECURE_ENV_CUDA or SECURE_ENV_HIP)
 * and linked with -Wl,--wrap=secure_getenv,--wrap=dlopen: the wrapped
 * secure_getenv answers NULL for every name, as glibc does in a setuid
 * program, and dlopen records each file asked for. A plain getenv would
 * still see the planted paths. */
#define _GNU_SOURCE
#if defined(SECURE_ENV_CUDA)
#include "cuda_internal.h"
#else
#include "hip_internal.h"
#endif
#include "core_int.h"
#include "xt_tree.h"

#include <dlfcn.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define PLANTED "/tmp/xgpu-planted-by-caller"

char *__real_secure_getenv(const char *name);
void *__real_dlopen(const char *file, int flags);

static int secure_reads;
static char opened[64][640];
static int nopened;

char *__wrap_secure_getenv(const char *name) {
    (void)name;
    secure_reads++;
    return NULL; /* AT_SECURE: glibc hides the environment */
}

void *__wrap_dlopen(const char *file, int flags) {
    if (file && nopened < 64) {
        snprintf(opened[nopened++], sizeof opened[0], "%s", file);
    }
    /* Never load anything; leave a real dlerror() behind. */
    return __real_dlopen("/nonexistent/xgpu-secure-env-test.so", flags);
}

static void no_planted_file_is_opened(void **state) {
    (void)state;
#if defined(SECURE_ENV_CUDA)
    /* A venv, a user site and a conda prefix that really hold a (broken)
     * NVRTC: only the environment leads there. */
    char tree[PATH_MAX];
    assert_int_equal(xt_tree_make("xgpu-planted", tree), 0);
    assert_int_equal(xt_tree_file(tree, "bin/python3", 0755), 0);
    assert_int_equal(
        xt_tree_file(tree, "lib/python3.11/site-packages/nvidia/cu13/lib/libnvrtc.so.13", 0644), 0);
    assert_int_equal(
        xt_tree_file(tree, ".local/lib/python3.11/site-packages/nvidia/cu13/lib/libnvrtc.so.13",
                     0644),
        0);
    assert_int_equal(xt_tree_file(tree, "lib/libnvrtc.so.13", 0644), 0);
    char bin[PATH_MAX];
    assert_int_equal(xt_tree_path(tree, "bin", bin), 0);
    setenv("PATH", bin, 1);
    setenv("VIRTUAL_ENV", tree, 1);
    setenv("HOME", tree, 1);
    setenv("CONDA_PREFIX", tree, 1);
    setenv("XGPU_CUDA_DRIVER", PLANTED "/libcuda.so.1", 1);
    setenv("CUDA_PATH", PLANTED, 1);
    cu__services = &xgpu__services;
    cu_driver drv;
    cu_nvrtc nvrtc;
    int version = 0;
    char reason[1024];
    assert_int_not_equal(cu__driver_load(&drv, &version, reason, sizeof reason), XGPU_SUCCESS);
    memset(&nvrtc, 0, sizeof nvrtc);
    assert_int_not_equal(cu__nvrtc_load(&nvrtc, 0, reason, sizeof reason), XGPU_SUCCESS);
#else
    /* A DTK tree that really holds (broken) runtimes and a hiprtc, reached
     * only through XGPU_HIP_SYSROOT, DTK_PATH and ROCM_PATH. */
    char tree[PATH_MAX], dtk[PATH_MAX], hyhal[PATH_MAX];
    assert_int_equal(xt_tree_make("xgpu-planted", tree), 0);
    assert_int_equal(xt_tree_file(tree, "opt/dtk-26.04/.hyhal/lib/libamdhip64.so.5", 0644), 0);
    assert_int_equal(xt_tree_file(tree, "opt/dtk-26.04/.hyhal/lib/libhiprtc.so.5", 0644), 0);
    assert_int_equal(xt_tree_file(tree, "opt/dtk-26.04/lib/libgalaxyhip.so", 0644), 0);
    assert_int_equal(xt_tree_file(tree, "opt/rocm/lib/libamdhip64.so.6", 0644), 0);
    assert_int_equal(xt_tree_path(tree, "opt/dtk-26.04", dtk), 0);
    assert_int_equal(xt_tree_path(tree, "opt/dtk-26.04/.hyhal", hyhal), 0);
    setenv("XGPU_HIP_SYSROOT", tree, 1);
    setenv("XGPU_HIP_RUNTIME", PLANTED "/libamdhip64.so.6", 1);
    setenv("XGPU_HIPRTC", PLANTED "/libhiprtc.so.6", 1);
    setenv("ROCM_PATH", hyhal, 1);
    setenv("DTK_PATH", dtk, 1);
    hip__services = &xgpu__services;
    hip_runtime rt;
    memset(&rt, 0, sizeof rt);
    int count = 0;
    char reason[1024];
    assert_int_not_equal(hip__runtime_load(&rt, &count, reason, sizeof reason), XGPU_SUCCESS);
    /* hiprtc: neither XGPU_HIPRTC nor DTK_PATH leads anywhere. */
    hip_rtc rtc;
    memset(&rt, 0, sizeof rt);
    assert_int_not_equal(hip__rtc_load(&rt, &rtc, reason, sizeof reason), XGPU_SUCCESS);
#endif
    assert_true(secure_reads > 0);
    assert_true(nopened > 0);
    int planted = -1, found = -1;
    for (int i = 0; i < nopened; i++) {
        if (planted < 0 && strstr(opened[i], PLANTED)) {
            planted = i;
        }
        if (found < 0 && strstr(opened[i], tree)) {
            found = i;
        }
    }
    assert_int_equal(xt_tree_remove(tree), 0);
    if (planted >= 0) {
        fail_msg("dlopen(\"%s\"): a path from the environment that secure_getenv hides",
                 opened[planted]);
    }
    if (found >= 0) {
        fail_msg("dlopen(\"%s\"): a folder found through the environment that secure_getenv "
                 "hides",
                 opened[found]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_planted_file_is_opened),
    };
    return cmocka_run_group_tests_name("secure_env", tests, NULL, NULL);
}
