/* xgpu__python_lib_dirs on a made-up machine: a venv whose python3 links
 * to a base interpreter, a python3.N-only install with dist-packages, a
 * python3 that is not executable, a user site and a conda prefix, all in
 * a temporary folder named by PATH, VIRTUAL_ENV, HOME and CONDA_PREFIX. */
#define _GNU_SOURCE /* nftw's FTW_PHYS */
#include "pyfolders.h"

#include <errno.h>
#include <ftw.h>
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

static char root[PATH_MAX];
static const char *const nvrtc_dirs[] = {"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", NULL};

/* root/rel, in buf (PATH_MAX bytes). */
static const char *at(char *buf, const char *rel) {
    assert_true(snprintf(buf, PATH_MAX, "%s/%s", root, rel) < PATH_MAX);
    return buf;
}

static void mkdirs(const char *rel) {
    char path[PATH_MAX];
    at(path, rel);
    for (char *p = path + strlen(root) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0700);
            *p = '/';
        }
    }
    assert_true(mkdir(path, 0700) == 0 || errno == EEXIST);
}

static void file(const char *rel, mode_t mode) {
    char path[PATH_MAX];
    FILE *f = fopen(at(path, rel), "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static void link_to(const char *rel, const char *target) {
    char path[PATH_MAX];
    assert_int_equal(symlink(target, at(path, rel)), 0);
}

static void expect(char (*got)[PATH_MAX], size_t i, const char *rel) {
    char want[PATH_MAX];
    at(want, rel);
    if (strcmp(got[i], want)) {
        fail_msg("folder %zu: got %s, want %s", i, got[i], want);
    }
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int make_tree(void **state) {
    (void)state;
    char tmpl[] = "/tmp/xgpu-pyfolders-XXXXXX";
    if (!mkdtemp(tmpl) || !realpath(tmpl, root)) {
        return -1;
    }
    /* A venv: bin/python3 links to the base interpreter; lib64 -> lib as
     * python -m venv makes it. */
    mkdirs("venv/bin");
    link_to("venv/bin/python3", "../../base/bin/python3.11");
    mkdirs("venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib");
    mkdirs("venv/lib/python3.11/site-packages/nvidia/cu13/lib");
    file("venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.13", 0644);
    link_to("venv/lib64", "lib");
    /* Its base: only python3.11 (and a -config script), NVRTC for CUDA 13,
     * a cuda_nvrtc without lib. */
    mkdirs("base/bin");
    file("base/bin/python3.11", 0755);
    file("base/bin/python3.11-config", 0755);
    mkdirs("base/lib/python3.11/site-packages/nvidia/cu13/lib");
    mkdirs("base/lib/python3.11/site-packages/nvidia/cuda_nvrtc");
    /* A python3.12 with Debian's dist-packages. */
    mkdirs("other/bin");
    file("other/bin/python3.12", 0755);
    mkdirs("other/lib/python3.12/dist-packages/nvidia/cu13/lib");
    /* A python3 that cannot run: not an installation. */
    mkdirs("noexec/bin");
    file("noexec/bin/python3", 0644);
    mkdirs("noexec/lib/python3.11/site-packages/nvidia/cu13/lib");
    /* The user site, conda, and a venv whose name glob(3) would misread. */
    mkdirs("home/.local/lib/python3.11/site-packages/nvidia/cu13/lib");
    mkdirs("conda/lib");
    mkdirs("ve[1]/lib/python3.10/site-packages/nvidia/cuda_nvrtc/lib");
    mkdirs("ve[1]/lib/python3.10/site-packages/nvidia/cu13");
    return 0;
}

static int remove_tree(void **state) {
    (void)state;
    return nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void set_env(const char *path, const char *venv, const char *home, const char *conda) {
    char buf[PATH_MAX];
    setenv("PATH", path, 1);
    if (venv) {
        setenv("VIRTUAL_ENV", at(buf, venv), 1);
    } else {
        unsetenv("VIRTUAL_ENV");
    }
    if (home) {
        setenv("HOME", at(buf, home), 1);
    } else {
        unsetenv("HOME");
    }
    if (conda) {
        setenv("CONDA_PREFIX", at(buf, conda), 1);
    } else {
        unsetenv("CONDA_PREFIX");
    }
}

static void documented_order_without_duplicates(void **state) {
    (void)state;
    char path[4 * PATH_MAX], a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
    /* The venv twice (and as VIRTUAL_ENV), a relative and an empty entry,
     * the python3 that cannot run, then python3.12's folder. */
    assert_true(snprintf(path, sizeof path, "%s:%s::bin:%s:%s", at(a, "venv/bin"), a,
                         at(b, "noexec/bin"), at(c, "other/bin")) < (int)sizeof path);
    set_env(path, "venv", "home", "conda");
    char(*got)[PATH_MAX] = malloc(XGPU_PYFOLDERS_MAX * sizeof *got);
    assert_non_null(got);
    size_t n = xgpu__python_lib_dirs(nvrtc_dirs, got, XGPU_PYFOLDERS_MAX);
    assert_int_equal(n, 6);
    expect(got, 0, "venv/lib/python3.11/site-packages/nvidia/cu13/lib");
    expect(got, 1, "venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib");
    expect(got, 2, "base/lib/python3.11/site-packages/nvidia/cu13/lib");
    expect(got, 3, "other/lib/python3.12/dist-packages/nvidia/cu13/lib");
    expect(got, 4, "home/.local/lib/python3.11/site-packages/nvidia/cu13/lib");
    expect(got, 5, "conda/lib");
    /* Bounded: the first ones, in the same order. */
    assert_int_equal(xgpu__python_lib_dirs(nvrtc_dirs, got, 2), 2);
    expect(got, 1, "venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib");
    /* Other subfolders: cuBLAS's. */
    static const char *const cublas_dirs[] = {"nvidia/cublas/lib", NULL};
    assert_int_equal(xgpu__python_lib_dirs(cublas_dirs, got, XGPU_PYFOLDERS_MAX), 1);
    expect(got, 0, "conda/lib");
    free(got);
}

static void base_interpreter_found_through_its_own_folder(void **state) {
    (void)state;
    char path[PATH_MAX];
    set_env(at(path, "base/bin"), NULL, NULL, NULL);
    char got[4][PATH_MAX];
    assert_int_equal(xgpu__python_lib_dirs(nvrtc_dirs, got, 4), 1);
    expect(got, 0, "base/lib/python3.11/site-packages/nvidia/cu13/lib");
}

static void venv_named_with_glob_characters(void **state) {
    (void)state;
    set_env("", "ve[1]", NULL, NULL);
    char got[4][PATH_MAX];
    assert_int_equal(xgpu__python_lib_dirs(nvrtc_dirs, got, 4), 1);
    expect(got, 0, "ve[1]/lib/python3.10/site-packages/nvidia/cuda_nvrtc/lib");
}

static void nothing_without_python_or_environment(void **state) {
    (void)state;
    char got[4][PATH_MAX];
    set_env("", NULL, NULL, NULL);
    assert_int_equal(xgpu__python_lib_dirs(nvrtc_dirs, got, 4), 0);
    unsetenv("PATH");
    assert_int_equal(xgpu__python_lib_dirs(nvrtc_dirs, got, 4), 0);
    /* Relative values name no installation. */
    set_env("venv/bin:.", NULL, NULL, NULL);
    setenv("VIRTUAL_ENV", "venv", 1);
    setenv("HOME", "home", 1);
    setenv("CONDA_PREFIX", "conda", 1);
    assert_int_equal(chdir(root), 0);
    assert_int_equal(xgpu__python_lib_dirs(nvrtc_dirs, got, 4), 0);
    /* The user site alone still counts. */
    set_env("", NULL, "home", NULL);
    assert_int_equal(xgpu__python_lib_dirs(nvrtc_dirs, got, 4), 1);
    assert_int_equal(xgpu__python_lib_dirs(nvrtc_dirs, got, 0), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(documented_order_without_duplicates),
        cmocka_unit_test(base_interpreter_found_through_its_own_folder),
        cmocka_unit_test(venv_named_with_glob_characters),
        cmocka_unit_test(nothing_without_python_or_environment),
    };
    return cmocka_run_group_tests_name("pyfolders", tests, make_tree, remove_tree);
}
