/* Hygon DTK as the HIP plugin finds and reads it, on made-up /opt trees
 * (XGPU_HIP_SYSROOT) holding copies of the fake HIP runtime (fake_hip.c)
 * where DTK keeps its own: /opt/dtk-<version> folders newest first when
 * /opt/dtk is absent, DTK_PATH and ROCM_PATH=/opt/dtk/.hyhal first, the
 * ABI of libgalaxyhip (old attribute numbers, 792-byte properties) and of
 * a libamdhip64.so.5 that is a link to it, hiprtc from the DTK's folders,
 * and the doctor's reasons: a vanilla ROCm runtime on a machine with DTK,
 * a DTK folder with no runtime. Linked with -Wl,--wrap=dlopen: a bare
 * soname (the library path) opens only what a test maps it to, so the
 * machine's own ROCm stays out of the way. */
#define _GNU_SOURCE
#include "hip_internal.h"
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
#include <unistd.h>

#include <cmocka.h>

void *__real_dlopen(const char *file, int flags);

/* ---- dlopen: bare sonames hidden or mapped; every file recorded ---- */
static char opened[512][640];
static int nopened;
static const char *bare_name, *bare_target;

void *__wrap_dlopen(const char *file, int flags) {
    if (file && nopened < 512) {
        snprintf(opened[nopened++], sizeof opened[0], "%s", file);
    }
    if (file && !strchr(file, '/')) {
        bool mapped = bare_name && !strcmp(file, bare_name);
        return __real_dlopen(mapped ? bare_target : "/nonexistent/xgpu-hidden.so", flags);
    }
    return __real_dlopen(file, flags);
}

static bool was_opened(const char *part) {
    for (int i = 0; i < nopened; i++) {
        if (strstr(opened[i], part)) {
            return true;
        }
    }
    return false;
}

/* ---- services that keep the log and the library records ---- */
static char log_text[16384], libraries[4096];

static void record_log(const char *backend, int level, const char *fmt, ...) {
    (void)backend, (void)level;
    size_t n = strlen(log_text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(log_text + n, sizeof log_text - n, fmt, ap);
    va_end(ap);
    n = strlen(log_text);
    snprintf(log_text + n, sizeof log_text - n, "\n");
}

static void record_library(const char *backend, const char *name, const char *path, bool loaded,
                           const char *detail) {
    (void)backend;
    size_t n = strlen(libraries);
    snprintf(libraries + n, sizeof libraries - n, "%s -> %s (%s): %s\n", name, path ? path : "-",
             loaded ? "loaded" : "not loaded", detail);
}

static xgpu_core_services services;

/* ---- trees ---- */
static char tree[PATH_MAX];

static void path_in(const char *rel, char *out) {
    assert_int_equal(xt_tree_path(tree, rel, out), 0);
}

/* A copy of a fake library at tree/rel (a copy, not a link: the dynamic
 * loader would hand back a file already loaded under another name). */
static void copy_fake(const char *fake, const char *rel) {
    char from[PATH_MAX], to[PATH_MAX];
    snprintf(from, sizeof from, "%s/%s", FAKE_HIP_DIR, fake);
    assert_int_equal(xt_tree_file(tree, rel, 0755), 0);
    path_in(rel, to);
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        assert_int_equal(fwrite(buf, 1, n, out), n);
    }
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

static int setup(void **state) {
    (void)state;
    if (xt_tree_make("xgpu-dcu", tree) != 0) {
        return -1;
    }
    setenv("XGPU_HIP_SYSROOT", tree, 1);
    unsetenv("DTK_PATH");
    unsetenv("ROCM_PATH");
    unsetenv("XGPU_HIP_RUNTIME");
    unsetenv("XGPU_HIPRTC");
    unsetenv("FAKE_HIP_DEVICES");
    setenv("FAKE_HIP_ARCH", "gfx928", 1);
    setenv("FAKE_HIP_CUS", "120", 1);
    bare_name = bare_target = NULL;
    nopened = 0;
    log_text[0] = libraries[0] = '\0';
    return 0;
}

static int teardown(void **state) {
    (void)state;
    return xt_tree_remove(tree);
}

static size_t index_of(const hip_candidate *c, size_t n, const char *file) {
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(c[i].file, file)) {
            return i;
        }
    }
    return n;
}

/* ---- the search ---- */

static void path_helpers(void **state) {
    (void)state;
    assert_true(hip__path_is_dtk("/opt/dtk-26.04/.hyhal/lib/libamdhip64.so.5"));
    assert_true(hip__path_is_dtk("/opt/dtk"));
    assert_true(hip__path_is_dtk("/public/software/compiler/dtk/24.04/lib/libgalaxyhip.so"));
    assert_true(hip__path_is_dtk("/usr/lib/libgalaxyhip.so.5"));
    assert_false(hip__path_is_dtk("/opt/rocm-6.2.0/lib/libamdhip64.so.6"));
    assert_false(hip__path_is_dtk("/home/dtkuser/lib/libamdhip64.so.6"));
    char root[512];
    assert_true(hip__dtk_root_of("/opt/dtk-26.04/.hyhal/lib/libamdhip64.so.5", root, sizeof root));
    assert_string_equal(root, "/opt/dtk-26.04");
    assert_true(hip__dtk_root_of("/opt/dtk/.hyhal", root, sizeof root));
    assert_string_equal(root, "/opt/dtk");
    assert_true(hip__dtk_root_of("/sw/dtk/24.04/hip/lib/libgalaxyhip.so", root, sizeof root));
    assert_string_equal(root, "/sw/dtk/24.04");
    assert_false(hip__dtk_root_of("/usr/lib/libgalaxyhip.so", root, sizeof root));
    assert_int_equal(hip__dtk_release("/nonexistent/dtk-24.04.3"), 2404);
    assert_int_equal(hip__dtk_release("/nonexistent/dtk/23.10"), 2310);
    assert_int_equal(hip__dtk_release("/nonexistent/dtk"), 0);
}

/* Without /opt/dtk: every /opt/dtk-<version> folder, newest first by
 * number (9.1 before 23.10 would be wrong), unversioned ones last, files
 * ignored; after ROCm's own folders, as nothing names them. */
static void dtk_folders_newest_first(void **state) {
    (void)state;
    const char *dirs[] = {"opt/dtk-23.10", "opt/dtk-24.04.1", "opt/dtk-26.04", "opt/dtk-9.1",
                          "opt/dtk-latest"};
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(xt_tree_dir(tree, dirs[i]), 0);
    }
    assert_int_equal(xt_tree_file(tree, "opt/dtk-27.04", 0644), 0);
    hip_dtk d[HIP_DTK_MAX];
    assert_int_equal(hip__dtk_find(d, HIP_DTK_MAX), 5);
    const char *order[] = {"opt/dtk-26.04", "opt/dtk-24.04.1", "opt/dtk-23.10", "opt/dtk-9.1",
                           "opt/dtk-latest"};
    const int releases[] = {2604, 2404, 2310, 901, 0};
    for (size_t i = 0; i < 5; i++) {
        char want[PATH_MAX];
        path_in(order[i], want);
        assert_string_equal(d[i].root, want);
        assert_int_equal(d[i].release, releases[i]);
        assert_false(d[i].named);
    }
    hip_candidate *c = calloc(256, sizeof *c);
    assert_non_null(c);
    size_t n = hip__runtime_candidates(c, 256);
    char first_dtk[PATH_MAX], rocm[PATH_MAX], older[PATH_MAX];
    path_in("opt/dtk-26.04/.hyhal/lib/libamdhip64.so.5", first_dtk);
    path_in("opt/rocm/lib/libamdhip64.so.7", rocm);
    path_in("opt/dtk-24.04.1/lib/libgalaxyhip.so", older);
    assert_true(index_of(c, n, rocm) < n); /* /opt/rocm under the sysroot too */
    assert_true(index_of(c, n, "libgalaxyhip.so") < index_of(c, n, first_dtk));
    assert_true(index_of(c, n, first_dtk) < index_of(c, n, older));
    assert_int_equal(c[index_of(c, n, first_dtk)].flavor, HIP_FLAVOR_DTK);
    free(c);
}

/* /opt/dtk, where it exists, is the one DTK looked at; its release is the
 * folder it links to. */
static void opt_dtk_link_wins(void **state) {
    (void)state;
    assert_int_equal(xt_tree_dir(tree, "opt/dtk-26.04"), 0);
    assert_int_equal(xt_tree_dir(tree, "opt/dtk-24.04"), 0);
    assert_int_equal(xt_tree_link(tree, "opt/dtk", "dtk-24.04"), 0);
    hip_dtk d[HIP_DTK_MAX];
    assert_int_equal(hip__dtk_find(d, HIP_DTK_MAX), 1);
    char want[PATH_MAX];
    path_in("opt/dtk", want);
    assert_string_equal(d[0].root, want);
    assert_int_equal(d[0].release, 2404);
}

/* A DTK the environment names comes before ROCm's runtimes: DTK_PATH,
 * then the DTK ROCM_PATH=/opt/dtk/.hyhal lies in (DTK 26.04), and
 * ROCM_PATH is not searched again as a ROCm. */
static void named_dtk_comes_first(void **state) {
    (void)state;
    assert_int_equal(xt_tree_dir(tree, "opt/dtk-26.04/.hyhal/lib"), 0);
    assert_int_equal(xt_tree_link(tree, "opt/dtk", "dtk-26.04"), 0);
    assert_int_equal(xt_tree_dir(tree, "sw/dtk-25.04"), 0);
    char hyhal[PATH_MAX], other[PATH_MAX], dtk[PATH_MAX];
    path_in("opt/dtk/.hyhal", hyhal);
    path_in("sw/dtk-25.04", other);
    path_in("opt/dtk", dtk);
    setenv("ROCM_PATH", hyhal, 1);
    setenv("DTK_PATH", other, 1);
    hip_dtk d[HIP_DTK_MAX];
    /* DTK_PATH, ROCM_PATH's DTK; /opt/dtk is that same folder. */
    assert_int_equal(hip__dtk_find(d, HIP_DTK_MAX), 2);
    assert_string_equal(d[0].root, other);
    assert_int_equal(d[0].release, 2504);
    assert_string_equal(d[1].root, dtk);
    assert_int_equal(d[1].release, 2604);
    assert_true(d[0].named && d[1].named);
    hip_candidate *c = calloc(256, sizeof *c);
    assert_non_null(c);
    size_t n = hip__runtime_candidates(c, 256);
    char first[PATH_MAX], second[PATH_MAX], as_rocm[PATH_MAX];
    path_in("sw/dtk-25.04/.hyhal/lib/libamdhip64.so.5", first);
    path_in("opt/dtk/.hyhal/lib/libamdhip64.so.5", second);
    path_in("opt/dtk/.hyhal/lib/libamdhip64.so.7", as_rocm);
    assert_int_equal(index_of(c, n, first), 0);
    assert_true(index_of(c, n, second) < index_of(c, n, "libamdhip64.so.7"));
    /* $ROCM_PATH/lib is DTK's, searched once, as DTK's. */
    assert_true(index_of(c, n, as_rocm) < n);
    assert_int_equal(c[index_of(c, n, as_rocm)].flavor, HIP_FLAVOR_DTK);
    for (size_t i = 0; i < n; i++) {
        assert_true(c[i].flavor == HIP_FLAVOR_DTK || !strstr(c[i].file, hyhal));
    }
    free(c);
}

/* ---- loading a DTK's runtime ---- */

static xgpu_status load(hip_runtime *rt, int *count, char *reason, size_t size) {
    memset(rt, 0, sizeof *rt);
    reason[0] = '\0';
    return hip__runtime_load(rt, count, reason, size);
}

/* The newest DTK's libgalaxyhip, found with nothing set but the DTK under
 * /opt: Hygon's, legacy ABI although it reports HIP 5.4, DTK 26.04; the
 * architecture read at gcnArchName's offset in the 792-byte struct, the
 * compute units with the old attribute numbers. */
static void galaxyhip_from_the_newest_dtk(void **state) {
    (void)state;
    copy_fake("legacy/libgalaxyhip.so", "opt/dtk-26.04/lib/libgalaxyhip.so");
    copy_fake("v5/libfakehip5.so", "opt/dtk-24.04/.hyhal/lib/libamdhip64.so.5");
    hip_runtime rt;
    int count = 0;
    char reason[1024];
    assert_int_equal(load(&rt, &count, reason, sizeof reason), XGPU_SUCCESS);
    char want[PATH_MAX], root[PATH_MAX];
    path_in("opt/dtk-26.04/lib/libgalaxyhip.so", want);
    path_in("opt/dtk-26.04", root);
    assert_string_equal(rt.path, want);
    assert_int_equal(count, 1);
    assert_int_equal(rt.flavor, HIP_FLAVOR_DTK);
    assert_true(rt.legacy_abi);
    assert_int_equal(rt.props, HIP_PROPS_R0000);
    assert_int_equal(rt.version, 50400000);
    assert_string_equal(rt.dtk_root, root);
    assert_int_equal(rt.dtk_release, 2604);
    char arch[64];
    hip__device_arch(&rt, 0, arch, sizeof arch);
    assert_string_equal(arch, "gfx928");
    assert_null(strstr(log_text, "searching it")); /* at the known offset */
    int cus = 0;
    assert_int_equal(rt.hipDeviceGetAttribute(&cus, rt.attributes->cu_count, 0), 0);
    assert_int_equal(cus, 120);
    if (!strstr(libraries, "Hygon DTK 26.04 HIP runtime 5.4.0 (legacy ABI")) {
        fail_msg("%s", libraries);
    }
}

/* A DTK's libamdhip64.so.5 that is a link to its libgalaxyhip speaks the
 * legacy ABI however it was asked for. */
static void amdhip64_linked_to_galaxyhip(void **state) {
    (void)state;
    copy_fake("legacy/libgalaxyhip.so", "opt/dtk-25.04/lib/libgalaxyhip.so");
    assert_int_equal(xt_tree_link(tree, "opt/dtk-25.04/lib/libamdhip64.so.5", "libgalaxyhip.so"),
                     0);
    hip_runtime rt;
    int count = 0;
    char reason[1024];
    assert_int_equal(load(&rt, &count, reason, sizeof reason), XGPU_SUCCESS);
    assert_string_equal(rt.name, "libamdhip64.so.5");
    assert_true(rt.legacy_abi);
    assert_int_equal(rt.dtk_release, 2504);
    int cus = 0;
    assert_int_equal(rt.hipDeviceGetAttribute(&cus, rt.attributes->cu_count, 0), 0);
    assert_int_equal(cus, 120);
}

/* DTK 26.04's layout, through ROCM_PATH=/opt/dtk/.hyhal: its own
 * libamdhip64.so.5 (the ROCm 5 ABI), and its hiprtc beside it. */
static void hyhal_layout_and_its_hiprtc(void **state) {
    (void)state;
    copy_fake("v5/libfakehip5.so", "opt/dtk-26.04/.hyhal/lib/libamdhip64.so.5");
    copy_fake("rtc/libhiprtc.so.5", "opt/dtk-26.04/.hyhal/lib/libhiprtc.so.5");
    assert_int_equal(xt_tree_link(tree, "opt/dtk", "dtk-26.04"), 0);
    char hyhal[PATH_MAX];
    path_in("opt/dtk/.hyhal", hyhal);
    setenv("ROCM_PATH", hyhal, 1);
    setenv("FAKE_HIP_ARCH", "gfx936", 1);
    hip_runtime rt;
    int count = 0;
    char reason[1024];
    assert_int_equal(load(&rt, &count, reason, sizeof reason), XGPU_SUCCESS);
    assert_int_equal(rt.flavor, HIP_FLAVOR_DTK);
    assert_false(rt.legacy_abi);
    assert_int_equal(rt.dtk_release, 2604);
    char arch[64];
    hip__device_arch(&rt, 0, arch, sizeof arch);
    assert_string_equal(arch, "gfx936");
    hip_rtc rtc;
    assert_int_equal(hip__rtc_load(&rt, &rtc, reason, sizeof reason), XGPU_SUCCESS);
    assert_non_null(strstr(rtc.path, "/opt/dtk/.hyhal/lib/libhiprtc.so.5"));
    assert_int_equal(rtc.flavor, HIP_FLAVOR_DTK);
    assert_int_equal(rtc.dtk_release, 2604);
    assert_true(hip__arch_supported(rtc.rocm_version, rtc.flavor, rtc.dtk_release, arch));
    /* The switch hides it, or names another file. */
    setenv("XGPU_HIPRTC", "none", 1);
    assert_int_not_equal(hip__rtc_load(&rt, &rtc, reason, sizeof reason), XGPU_SUCCESS);
    assert_non_null(strstr(reason, "XGPU_HIPRTC=none turns hiprtc off"));
    setenv("XGPU_HIPRTC", "/nonexistent/libhiprtc.so.6", 1);
    assert_int_not_equal(hip__rtc_load(&rt, &rtc, reason, sizeof reason), XGPU_SUCCESS);
    assert_non_null(strstr(reason, "cannot be loaded"));
}

/* An older DTK keeps hiprtc in hip/lib beside nothing: found through the
 * runtime's DTK folder, not the library path. */
static void hiprtc_in_the_dtk_hip_lib(void **state) {
    (void)state;
    copy_fake("legacy/libgalaxyhip.so", "opt/dtk-24.04/lib/libgalaxyhip.so");
    copy_fake("rtc/libhiprtc.so.5", "opt/dtk-24.04/hip/lib/libhiprtc.so.5");
    hip_runtime rt;
    int count = 0;
    char reason[1024];
    assert_int_equal(load(&rt, &count, reason, sizeof reason), XGPU_SUCCESS);
    hip_rtc rtc;
    assert_int_equal(hip__rtc_load(&rt, &rtc, reason, sizeof reason), XGPU_SUCCESS);
    char want[PATH_MAX];
    path_in("opt/dtk-24.04/hip/lib/libhiprtc.so.5", want);
    assert_string_equal(rtc.path, want);
    assert_int_equal(rtc.dtk_release, 2404);
    assert_true(hip__arch_supported(rtc.rocm_version, rtc.flavor, rtc.dtk_release, "gfx928"));
    assert_false(hip__arch_supported(rtc.rocm_version, rtc.flavor, rtc.dtk_release, "gfx936"));
}

/* ROCm 6's runtime: the R0600 struct, gcnArchName at its own offset. */
static void rocm6_properties(void **state) {
    (void)state;
    char file[PATH_MAX];
    snprintf(file, sizeof file, "%s/v6/libfakehip6.so", FAKE_HIP_DIR);
    setenv("XGPU_HIP_RUNTIME", file, 1);
    setenv("FAKE_HIP_ARCH", "gfx942:sramecc+:xnack-", 1);
    hip_runtime rt;
    int count = 0;
    char reason[1024];
    assert_int_equal(load(&rt, &count, reason, sizeof reason), XGPU_SUCCESS);
    assert_int_equal(rt.flavor, HIP_FLAVOR_ROCM);
    assert_int_equal(rt.props, HIP_PROPS_R0600);
    assert_false(rt.legacy_abi);
    char arch[64];
    hip__device_arch(&rt, 0, arch, sizeof arch);
    assert_string_equal(arch, "gfx942:sramecc+:xnack-");
    assert_null(strstr(log_text, "searching it"));
    assert_non_null(strstr(libraries, "ROCm HIP runtime 6.2.0 (ROCm 6 ABI"));
}

/* ---- the doctor's reasons ---- */

/* Vanilla ROCm's runtime (on the library path) sees no GPU where Hygon's
 * DTK is installed: the reason says DTK's must be loaded, and how. */
static void vanilla_rocm_on_a_dtk_machine(void **state) {
    (void)state;
    copy_fake("v5/libfakehip5.so", "usr/lib/libamdhip64.so.5");
    copy_fake("v5/libfakehip5.so", "opt/dtk-26.04/.hyhal/lib/libamdhip64.so.5");
    char vanilla[PATH_MAX], root[PATH_MAX], dtk_runtime[PATH_MAX], want[2 * PATH_MAX + 64];
    path_in("usr/lib/libamdhip64.so.5", vanilla);
    path_in("opt/dtk-26.04", root);
    path_in("opt/dtk-26.04/.hyhal/lib/libamdhip64.so.5", dtk_runtime);
    bare_name = "libamdhip64.so.5";
    bare_target = vanilla;
    setenv("FAKE_HIP_DEVICES", "0", 1);
    hip_runtime rt;
    int count = 0;
    char reason[512]; /* the size of the core's */
    assert_int_equal(load(&rt, &count, reason, sizeof reason), XGPU_ERROR_NO_DEVICE);
    print_message("reason: %s\n", reason);
    assert_string_equal(rt.path, vanilla);
    assert_int_equal(rt.flavor, HIP_FLAVOR_ROCM);
    assert_false(was_opened(dtk_runtime)); /* two runtimes in one process: never */
    snprintf(want, sizeof want, "Hygon DTK is installed in %s,", root);
    assert_non_null(strstr(reason, want));
    assert_non_null(strstr(reason, "vanilla ROCm's runtime cannot talk to Hygon's KFD"));
    snprintf(want, sizeof want, "ROCM_PATH=%s/.hyhal", root);
    assert_non_null(strstr(reason, want));
    snprintf(want, sizeof want, "XGPU_HIP_RUNTIME=%s", dtk_runtime);
    if (!strstr(reason, want)) {
        fail_msg("%s", reason);
    }
}

/* The same with an older DTK that keeps libgalaxyhip: DTK_PATH. */
static void vanilla_rocm_with_an_older_dtk(void **state) {
    (void)state;
    copy_fake("v5/libfakehip5.so", "usr/lib/libamdhip64.so.5");
    copy_fake("legacy/libgalaxyhip.so", "opt/dtk-23.10/lib/libgalaxyhip.so");
    char vanilla[PATH_MAX], root[PATH_MAX], want[2 * PATH_MAX + 64];
    path_in("usr/lib/libamdhip64.so.5", vanilla);
    path_in("opt/dtk-23.10", root);
    bare_name = "libamdhip64.so.5";
    bare_target = vanilla;
    setenv("FAKE_HIP_DEVICES", "0", 1);
    hip_runtime rt;
    int count = 0;
    char reason[512];
    assert_int_equal(load(&rt, &count, reason, sizeof reason), XGPU_ERROR_NO_DEVICE);
    print_message("reason: %s\n", reason);
    snprintf(want, sizeof want, "DTK_PATH=%s or XGPU_HIP_RUNTIME=%s/lib/libgalaxyhip.so", root,
             root);
    if (!strstr(reason, want)) {
        fail_msg("%s", reason);
    }
}

/* A DTK folder with no runtime in it: said when ROCm's sees nothing, and
 * when nothing loads at all. */
static void dtk_folder_without_a_runtime(void **state) {
    (void)state;
    assert_int_equal(xt_tree_dir(tree, "opt/dtk-26.04/lib"), 0);
    char root[PATH_MAX], want[2 * PATH_MAX + 64];
    path_in("opt/dtk-26.04", root);
    hip_runtime rt;
    int count = 0;
    char reason[512];
    assert_int_equal(load(&rt, &count, reason, sizeof reason), XGPU_ERROR_BACKEND_UNAVAILABLE);
    print_message("reason: %s\n", reason);
    assert_non_null(strstr(reason, "no HIP runtime found"));
    snprintf(want, sizeof want, "Hygon DTK in %s holds no libamdhip64.so.5", root);
    assert_non_null(strstr(reason, want));

    copy_fake("v5/libfakehip5.so", "usr/lib/libamdhip64.so.5");
    char vanilla[PATH_MAX];
    path_in("usr/lib/libamdhip64.so.5", vanilla);
    bare_name = "libamdhip64.so.5";
    bare_target = vanilla;
    setenv("FAKE_HIP_DEVICES", "0", 1);
    assert_int_equal(load(&rt, &count, reason, sizeof reason), XGPU_ERROR_NO_DEVICE);
    print_message("reason: %s\n", reason);
    snprintf(want, sizeof want, "Hygon DTK is installed in %s but holds no HIP runtime", root);
    assert_non_null(strstr(reason, want));
}

/* DTK's runtime itself sees no DCU: the kernel driver's reason, in DCU
 * words. */
static void dtk_runtime_without_a_dcu(void **state) {
    (void)state;
    if (access("/dev/kfd", F_OK) == 0) {
        skip(); /* the reason then depends on this machine's /dev/kfd */
    }
    copy_fake("legacy/libgalaxyhip.so", "opt/dtk-26.04/lib/libgalaxyhip.so");
    setenv("FAKE_HIP_DEVICES", "0", 1);
    hip_runtime rt;
    int count = 0;
    char reason[512];
    assert_int_equal(load(&rt, &count, reason, sizeof reason), XGPU_ERROR_NO_DEVICE);
    print_message("reason: %s\n", reason);
    assert_non_null(strstr(reason, "(DTK HIP 5.4, "));
    assert_non_null(strstr(reason, "finds no DCU (hipErrorNoDevice): /dev/kfd does not exist"));
    assert_null(strstr(reason, "vanilla"));
}

int main(void) {
    services = xgpu__services;
    services.log = record_log;
    services.library = record_library;
    hip__services = &services;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(path_helpers, setup, teardown),
        cmocka_unit_test_setup_teardown(dtk_folders_newest_first, setup, teardown),
        cmocka_unit_test_setup_teardown(opt_dtk_link_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(named_dtk_comes_first, setup, teardown),
        cmocka_unit_test_setup_teardown(galaxyhip_from_the_newest_dtk, setup, teardown),
        cmocka_unit_test_setup_teardown(amdhip64_linked_to_galaxyhip, setup, teardown),
        cmocka_unit_test_setup_teardown(hyhal_layout_and_its_hiprtc, setup, teardown),
        cmocka_unit_test_setup_teardown(hiprtc_in_the_dtk_hip_lib, setup, teardown),
        cmocka_unit_test_setup_teardown(rocm6_properties, setup, teardown),
        cmocka_unit_test_setup_teardown(vanilla_rocm_on_a_dtk_machine, setup, teardown),
        cmocka_unit_test_setup_teardown(vanilla_rocm_with_an_older_dtk, setup, teardown),
        cmocka_unit_test_setup_teardown(dtk_folder_without_a_runtime, setup, teardown),
        cmocka_unit_test_setup_teardown(dtk_runtime_without_a_dcu, setup, teardown),
    };
    return cmocka_run_group_tests_name("hip_dtk", tests, NULL, NULL);
}
