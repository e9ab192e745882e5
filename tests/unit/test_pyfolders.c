/* xgpu__python_lib_dirs and xgpu__python_sites on a made-up machine: a
 * venv whose python3 links to a base interpreter, a python3.N-only install
 * with dist-packages, a python3 that is not executable, a user site and a
 * conda prefix, all in a temporary folder named by PATH, VIRTUAL_ENV, HOME
 * and CONDA_PREFIX. */
#define _GNU_SOURCE /* setenv, PATH_MAX */
#include "pyfolders.h"
#include "xt_tree.h"

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

static char root[PATH_MAX];
static const char *const nvrtc_dirs[] = {"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", NULL};

/* root/rel, in buf (PATH_MAX bytes). */
static const char *at(char *buf, const char *rel) {
    assert_int_equal(xt_tree_path(root, rel, buf), 0);
    return buf;
}

static void expect(char (*got)[XGPU_PYFOLDER_SIZE], size_t i, const char *rel) {
    char want[PATH_MAX];
    at(want, rel);
    if (strcmp(got[i], want)) {
        fail_msg("folder %zu: got %s, want %s", i, got[i], want);
    }
}

static int make_tree(void **state) {
    (void)state;
    static const struct {
        char kind; /* d: folder, x: program, f: file, l: link */
        const char *rel, *target;
    } tree[] = {
        /* A venv: bin/python3 links to the base interpreter; lib64 -> lib
         * as python -m venv makes it. */
        {'l', "venv/bin/python3", "../../base/bin/python3.11"},
        {'d', "venv/lib/python3.11/site-packages/nvidia/cu13/lib", NULL},
        {'f', "venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.13", NULL},
        {'l', "venv/lib64", "lib"},
        /* Its base: only python3.11 (and a -config script), NVRTC for CUDA
         * 13, a cuda_nvrtc without lib. */
        {'x', "base/bin/python3.11", NULL},
        {'x', "base/bin/python3.11-config", NULL},
        {'d', "base/lib/python3.11/site-packages/nvidia/cu13/lib", NULL},
        {'d', "base/lib/python3.11/site-packages/nvidia/cuda_nvrtc", NULL},
        /* A python3.12 with Debian's dist-packages. */
        {'x', "other/bin/python3.12", NULL},
        {'d', "other/lib/python3.12/dist-packages/nvidia/cu13/lib", NULL},
        /* A python3 that cannot run: not an installation. */
        {'f', "noexec/bin/python3", NULL},
        {'d', "noexec/lib/python3.11/site-packages/nvidia/cu13/lib", NULL},
        /* The user site, conda, and a venv whose name glob(3) would
         * misread. */
        {'d', "home/.local/lib/python3.11/site-packages/nvidia/cu13/lib", NULL},
        {'d', "conda/lib/python3.12/site-packages", NULL},
        {'d', "ve[1]/lib/python3.10/site-packages/nvidia/cuda_nvrtc/lib", NULL},
        {'d', "ve[1]/lib/python3.10/site-packages/nvidia/cu13", NULL},
    };
    if (xt_tree_make("xgpu-pyfolders", root) != 0) {
        return -1;
    }
    for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++) {
        int rc = tree[i].kind == 'd' ? xt_tree_dir(root, tree[i].rel)
                 : tree[i].kind == 'l'
                     ? xt_tree_link(root, tree[i].rel, tree[i].target)
                     : xt_tree_file(root, tree[i].rel, tree[i].kind == 'x' ? 0755 : 0644);
        if (rc != 0) {
            return -1;
        }
    }
    return 0;
}

static int remove_tree(void **state) {
    (void)state;
    return xt_tree_remove(root);
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
    char(*got)[XGPU_PYFOLDER_SIZE] = malloc(XGPU_PYFOLDERS_MAX * sizeof *got);
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
    char got[4][XGPU_PYFOLDER_SIZE];
    assert_int_equal(xgpu__python_lib_dirs(nvrtc_dirs, got, 4), 1);
    expect(got, 0, "base/lib/python3.11/site-packages/nvidia/cu13/lib");
}

static void venv_named_with_glob_characters(void **state) {
    (void)state;
    set_env("", "ve[1]", NULL, NULL);
    char got[4][XGPU_PYFOLDER_SIZE];
    assert_int_equal(xgpu__python_lib_dirs(nvrtc_dirs, got, 4), 1);
    expect(got, 0, "ve[1]/lib/python3.10/site-packages/nvidia/cuda_nvrtc/lib");
}

static void nothing_without_python_or_environment(void **state) {
    (void)state;
    char got[4][XGPU_PYFOLDER_SIZE];
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

static void expect_site(const xgpu_pysite *got, size_t i, const char *rel, const char *by) {
    char want[PATH_MAX];
    at(want, rel);
    if (strcmp(got[i].path, want) || strcmp(got[i].found_by, by)) {
        fail_msg("site %zu: got %s (%s), want %s (%s)", i, got[i].path, got[i].found_by, want, by);
    }
}

static void sites_of_every_environment_in_order(void **state) {
    (void)state;
    char path[3 * PATH_MAX], a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
    /* The venv's python3 (its base is found through the link), the one
     * that cannot run, python3.12's folder. */
    assert_true(snprintf(path, sizeof path, "%s:%s:%s", at(a, "venv/bin"), at(b, "noexec/bin"),
                         at(c, "other/bin")) < (int)sizeof path);
    set_env(path, "venv", "home", "conda");
    xgpu_pysite *got = calloc(XGPU_PYFOLDERS_MAX, sizeof *got);
    assert_non_null(got);
    assert_int_equal(xgpu__python_sites(got, XGPU_PYFOLDERS_MAX), 5);
    /* lib64 -> lib is the same folder: listed once. */
    expect_site(got, 0, "venv/lib/python3.11/site-packages", "VIRTUAL_ENV");
    expect_site(got, 1, "conda/lib/python3.12/site-packages", "CONDA_PREFIX");
    expect_site(got, 2, "base/lib/python3.11/site-packages", "PATH");
    expect_site(got, 3, "other/lib/python3.12/dist-packages", "PATH");
    expect_site(got, 4, "home/.local/lib/python3.11/site-packages", "HOME");
    /* Bounded, and an environment found twice keeps its first name: the
     * active venv's python3 on PATH is still the venv. */
    assert_int_equal(xgpu__python_sites(got, 1), 1);
    set_env(at(a, "venv/bin"), "venv", NULL, NULL);
    assert_int_equal(xgpu__python_sites(got, XGPU_PYFOLDERS_MAX), 2);
    expect_site(got, 0, "venv/lib/python3.11/site-packages", "VIRTUAL_ENV");
    expect_site(got, 1, "base/lib/python3.11/site-packages", "PATH");
    /* Nothing named, nothing found. */
    set_env("", NULL, NULL, NULL);
    assert_int_equal(xgpu__python_sites(got, XGPU_PYFOLDERS_MAX), 0);
    free(got);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(documented_order_without_duplicates),
        cmocka_unit_test(base_interpreter_found_through_its_own_folder),
        cmocka_unit_test(venv_named_with_glob_characters),
        cmocka_unit_test(nothing_without_python_or_environment),
        cmocka_unit_test(sites_of_every_environment_in_order),
    };
    return cmocka_run_group_tests_name("pyfolders", tests, make_tree, remove_tree);
}
