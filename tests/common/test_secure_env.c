/* The variables that name a library to dlopen (XGPU_CUDA_DRIVER, CUDA_PATH;
 * XGPU_HIP_RUNTIME, ROCM_PATH, DTK_PATH) are read through secure_getenv, so
 * a setuid program never loads a file its caller chose. Built once per
 * backend (SECURE_ENV_CUDA or SECURE_ENV_HIP) and linked with
 * -Wl,--wrap=secure_getenv,--wrap=dlopen: the wrapped secure_getenv answers
 * NULL for every name, as glibc does in a setuid program, and dlopen records
 * each file asked for. A plain getenv would still see the planted paths. */
#define _GNU_SOURCE
#if defined(SECURE_ENV_CUDA)
#include "cuda_internal.h"
#else
#include "hip_internal.h"
#endif
#include "internal.h"

#include <dlfcn.h>
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
    setenv("XGPU_HIP_RUNTIME", PLANTED "/libamdhip64.so.6", 1);
    setenv("ROCM_PATH", PLANTED, 1);
    setenv("DTK_PATH", PLANTED, 1);
    hip__services = &xgpu__services;
    hip_runtime rt;
    memset(&rt, 0, sizeof rt);
    int count = 0;
    char reason[1024];
    assert_int_not_equal(hip__runtime_load(&rt, &count, reason, sizeof reason), XGPU_SUCCESS);
#endif
    assert_true(secure_reads > 0);
    assert_true(nopened > 0);
    for (int i = 0; i < nopened; i++) {
        if (strstr(opened[i], PLANTED)) {
            fail_msg("dlopen(\"%s\"): a path from the environment that secure_getenv hides",
                     opened[i]);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_planted_file_is_opened),
    };
    return cmocka_run_group_tests_name("secure_env", tests, NULL, NULL);
}
