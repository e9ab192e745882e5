/* gpubench's cuBLAS peer on a machine without the CUDA toolkit, cuBLAS
 * being in a pip wheel's folder of a venv. vendor_blas.c is included to
 * reach open_blas; linked with -Wl,--wrap=dlopen, dlopen refuses bare
 * names (the library path) and every file under /usr/local/cuda, as if the
 * toolkit were absent. The wheel's libcublas is a link to the toolkit's
 * (REAL_CUBLAS, where CMake found it): it loads from the made-up folder,
 * then cannot make a handle without a GPU driver, which the reason says
 * with the file it loaded. */
#include "vendor_blas.c"

#include "xt_tree.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

void *__real_dlopen(const char *file, int flags);

void *__wrap_dlopen(const char *file, int flags) {
    if (!file || !strchr(file, '/') || !strncmp(file, "/usr/local/cuda", 15)) {
        return __real_dlopen("/nonexistent/xgpu-no-toolkit.so", flags);
    }
    return __real_dlopen(file, flags);
}

static char root[PATH_MAX];
static const char *const cublas[] = {"libcublas.so.13", "libcublas.so.12",
                                     "/usr/local/cuda/lib64/libcublas.so", NULL};

static void environment(const char *path_rel) {
    char buf[PATH_MAX];
    assert_int_equal(xt_tree_path(root, path_rel, buf), 0);
    setenv("PATH", buf, 1);
    assert_int_equal(xt_tree_path(root, "nobody", buf), 0);
    setenv("HOME", buf, 1);
    unsetenv("VIRTUAL_ENV");
    unsetenv("CONDA_PREFIX");
}

static int make_tree(void **state) {
    (void)state;
    return xt_tree_make("xgpu-cublas-wheels", root);
}

static int remove_tree(void **state) {
    (void)state;
    return xt_tree_remove(root);
}

static void not_found_says_where_and_what_to_install(void **state) {
    (void)state;
    assert_int_equal(xt_tree_file(root, "empty/bin/python3", 0755), 0);
    assert_int_equal(xt_tree_dir(root, "empty/lib/python3.12/site-packages/nvidia/cublas/lib"), 0);
    environment("empty/bin");
    static blas_lib l;
    assert_int_equal(open_blas(true, cublas, "cublasCreate_v2", "cublasSetStream_v2",
                               "cublasSgemm_v2", "cublasDgemm_v2", &l),
                     -1);
    printf("%s\n", l.failed);
    assert_string_equal(l.failed, "not run: cuBLAS (libcublas.so.13/.12) not found in the library "
                                  "path, /usr/local/cuda/lib64 or 1 pip wheel or conda folder; pip "
                                  "install nvidia-cublas (CUDA 13) or nvidia-cublas-cu12");
}

static void loads_from_a_wheel(void **state) {
    (void)state;
#if defined(REAL_CUBLAS)
    char real[PATH_MAX];
    if (!realpath(REAL_CUBLAS, real)) {
        skip();
    }
    const char *soname = strstr(real, "libcublas.so.13") ? "libcublas.so.13" : "libcublas.so.12";
    char rel[PATH_MAX], want[PATH_MAX];
    assert_int_equal(xt_tree_file(root, "venv/bin/python3", 0755), 0);
    snprintf(rel, sizeof rel, "venv/lib/python3.12/site-packages/nvidia/cu13/lib/%s", soname);
    assert_int_equal(xt_tree_link(root, rel, real), 0);
    assert_int_equal(xt_tree_path(root, rel, want), 0);
    environment("venv/bin");
    static blas_lib l;
    assert_int_equal(open_blas(true, cublas, "cublasCreate_v2", "cublasSetStream_v2",
                               "cublasSgemm_v2", "cublasDgemm_v2", &l),
                     0);
    assert_string_equal(l.name, want);
    /* Without a GPU driver, no handle: said with the file it loaded. */
    void *handle = NULL;
    char reason[256] = ""; /* gpubench's size */
    int rc = device_handle(&l, 0, &handle, reason, sizeof reason);
    printf("%s%s\n", l.name, rc ? reason + strlen("not run:") : ": handle made");
#else
    skip(); /* no CUDA toolkit here to take a real libcublas from */
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(not_found_says_where_and_what_to_install),
        cmocka_unit_test(loads_from_a_wheel),
    };
    return cmocka_run_group_tests_name("vendor_blas_wheels", tests, make_tree, remove_tree);
}
