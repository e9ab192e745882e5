/* Hygon DCUs through the public API, as far as a fake can dress as them:
 * the fake HIP runtime (fake_hip.c) and hiprtc (fake_hiprtc.c) copied
 * into a made-up DTK tree, reached the way DCU users set DTK up:
 *   test_hip_dcu hyhal      DTK 26.04: ROCM_PATH=/opt/dtk/.hyhal, its own
 *                           libamdhip64.so.5 and hiprtc in .hyhal/lib
 *   test_hip_dcu galaxyhip  DTK 24.04 by DTK_PATH: libgalaxyhip (legacy
 *                           ABI) in lib, hiprtc in hip/lib
 *   test_hip_dcu builtin    DTK 24.04 without hiprtc: the plugin's code
 *                           objects load on a gfx906 Z100, not on a gfx928
 * The tree is made before the first xgpu call (discovery reads the
 * environment then) and removed at the end. */
#define _GNU_SOURCE
#include "xt_tree.h"

#include <xgpu.h>

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static char tree[PATH_MAX];
static const char *layout;
static xgpu_device *devs[2];
static uint32_t ndevs;

static int copy_fake(const char *fake, const char *rel) {
    char from[PATH_MAX], to[PATH_MAX];
    snprintf(from, sizeof from, "%s/%s", FAKE_HIP_DIR, fake);
    if (xt_tree_file(tree, rel, 0755) || xt_tree_path(tree, rel, to)) {
        return -1;
    }
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    int rc = in && out ? 0 : -1;
    while (!rc && (n = fread(buf, 1, sizeof buf, in)) > 0) {
        rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
    }
    if (in) {
        fclose(in);
    }
    if (out && fclose(out)) {
        rc = -1;
    }
    return rc;
}

/* The DTK tree of the layout, and the environment that leads to it. */
static int make_dtk(void) {
    char path[PATH_MAX];
    if (xt_tree_make("xgpu-dcu", tree)) {
        return -1;
    }
    setenv("XGPU_HIP_SYSROOT", tree, 1);
    unsetenv("XGPU_HIP_RUNTIME");
    unsetenv("ROCM_PATH");
    unsetenv("DTK_PATH");
    if (!strcmp(layout, "hyhal")) {
        if (copy_fake("v5/libfakehip5.so", "opt/dtk-26.04/.hyhal/lib/libamdhip64.so.5") ||
            copy_fake("rtc/libhiprtc.so.5", "opt/dtk-26.04/.hyhal/lib/libhiprtc.so.5") ||
            xt_tree_link(tree, "opt/dtk", "dtk-26.04") ||
            xt_tree_path(tree, "opt/dtk/.hyhal", path)) {
            return -1;
        }
        setenv("ROCM_PATH", path, 1);
        setenv("FAKE_HIP_ARCH", "gfx936,gfx906", 1);
        return 0;
    }
    if (copy_fake("legacy/libgalaxyhip.so", "opt/dtk-24.04/lib/libgalaxyhip.so") ||
        copy_fake("rtc/libhiprtc.so.5", "opt/dtk-24.04/hip/lib/libhiprtc.so.5") ||
        xt_tree_path(tree, "opt/dtk-24.04", path)) {
        return -1;
    }
    setenv("DTK_PATH", path, 1);
    if (!strcmp(layout, "builtin")) {
        setenv("XGPU_HIPRTC", "none", 1);
        setenv("FAKE_HIP_ARCH", "gfx906,gfx928", 1);
    } else {
        /* The fake hiprtc aborts on gfx936, as a hiprtc without its
         * device library may: the allow-list must refuse it first. */
        setenv("FAKE_HIP_ARCH", "gfx928,gfx936", 1);
        setenv("FAKE_HIPRTC_ARCHS", "gfx928", 1);
    }
    return 0;
}

static int setup(void **state) {
    (void)state;
    if (xgpu_device_match("hip", devs, 2, &ndevs) != XGPU_SUCCESS || ndevs != 2) {
        fprintf(stderr, "no fake DCU: %s\n", xgpu_last_error()->message);
        return -1;
    }
    return 0;
}

static bool recorded_line(const char *prefix) {
    FILE *f = fopen(getenv("FAKE_HIP_RECORD"), "rb");
    char line[4096];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f)) {
        found = !strncmp(line, prefix, strlen(prefix));
    }
    if (f) {
        fclose(f);
    }
    return found;
}

static void arch_of(int i, char *out, size_t size) {
    const char *list = getenv("FAKE_HIP_ARCH");
    for (int k = 0; k < i && strchr(list, ','); k++) {
        list = strchr(list, ',') + 1;
    }
    snprintf(out, size, "%.*s", (int)strcspn(list, ","), list);
}

/* Hygon's, with the architecture from the property struct of this ABI,
 * the compute units through its attribute numbers, the DTK release and
 * ABI in the runtime's library record. */
static void dcu_information(void **state) {
    (void)state;
    for (uint32_t i = 0; i < ndevs; i++) {
        xgpu_device_info info;
        assert_int_equal(xgpu_device_get_info(devs[i], &info, sizeof info), XGPU_SUCCESS);
        char arch[32];
        arch_of((int)i, arch, sizeof arch);
        assert_string_equal(info.vendor, "Hygon");
        assert_string_equal(info.arch, arch);
        assert_int_equal(info.compute_units, 104);
        assert_int_equal(info.subgroup_size, 64);
        assert_int_equal(info.max_group_size, 1024);
    }
    uint32_t nb = 0;
    assert_int_equal(xgpu_backend_count(&nb), XGPU_SUCCESS);
    for (uint32_t b = 0; b < nb; b++) {
        xgpu_backend_info bi;
        xgpu_library_info lib;
        assert_int_equal(xgpu_backend_get_info(b, &bi, sizeof bi), XGPU_SUCCESS);
        if (strcmp(bi.name, "hip")) {
            continue;
        }
        assert_int_equal(xgpu_backend_get_library(b, 0, &lib, sizeof lib), XGPU_SUCCESS);
        print_message("%s -> %s: %s\n", lib.name, lib.path, lib.detail);
        bool hyhal = !strcmp(layout, "hyhal");
        assert_string_equal(lib.name, hyhal ? "libamdhip64.so.5" : "libgalaxyhip.so");
        assert_non_null(strstr(lib.path, hyhal ? "/opt/dtk/.hyhal/lib/libamdhip64.so.5"
                                               : "/opt/dtk-24.04/lib/libgalaxyhip.so"));
        assert_non_null(strstr(lib.detail, hyhal
                                               ? "Hygon DTK 26.04 HIP runtime 5.2.0 (ROCm 5 ABI"
                                               : "Hygon DTK 24.04 HIP runtime 5.4.0 (legacy ABI"));
        return;
    }
    fail_msg("no hip backend listed");
}

static const char kernel[] = "XGPU_KERNEL void scale(XGPU_GLOBAL float *y, float a) {\n"
                             "    y[xgpu_global_id(0)] *= a;\n"
                             "}\n";

/* A user kernel on each device through DTK's hiprtc, for the device's
 * architecture, where the DTK release is known to compile it: gfx936
 * from DTK 25.04 on, gfx928 from 24.04. */
static void dcu_kernels_by_release(void **state) {
    (void)state;
    for (uint32_t i = 0; i < ndevs; i++) {
        char arch[32], want[160], compile[64];
        arch_of((int)i, arch, sizeof arch);
        bool allowed = strcmp(layout, "galaxyhip") || strcmp(arch, "gfx936");
        xgpu_context *ctx;
        xgpu_queue *q;
        assert_int_equal(xgpu_context_create(devs[i], &ctx), XGPU_SUCCESS);
        assert_int_equal(xgpu_queue_create(ctx, &q), XGPU_SUCCESS);
        xgpu_program *p = NULL;
        xgpu_status st = xgpu_program_build(ctx, kernel, NULL, &p);
        snprintf(compile, sizeof compile, "COMPILE arch=%s", arch);
        if (allowed) {
            if (st != XGPU_SUCCESS) {
                fail_msg("%s: %s", arch, xgpu_last_error()->message);
            }
            assert_true(recorded_line(compile));
            xgpu_kernel *k;
            xgpu_buffer *y;
            assert_int_equal(xgpu_kernel_create(p, "scale", &k), XGPU_SUCCESS);
            assert_int_equal(xgpu_buffer_create(ctx, 1024, &y), XGPU_SUCCESS);
            xgpu_arg args[] = {xgpu_arg_buffer(y), xgpu_arg_f32(3.0f)};
            xgpu_range r = xgpu_range_1d(4, 64);
            assert_int_equal(xgpu_launch(q, k, &r, 2, args, NULL), XGPU_SUCCESS);
            snprintf(want, sizeof want, "LAUNCH scale device %u grid 4,1,1", i);
            assert_true(recorded_line(want));
            assert_int_equal(xgpu_buffer_release(y), XGPU_SUCCESS);
            assert_int_equal(xgpu_kernel_release(k), XGPU_SUCCESS);
            assert_int_equal(xgpu_program_release(p), XGPU_SUCCESS);
        } else {
            assert_int_equal(st, XGPU_ERROR_UNSUPPORTED);
            const char *msg = xgpu_last_error()->message;
            print_message("%s\n", msg);
            snprintf(want, sizeof want,
                     "%s is not an architecture xgpu knows the hiprtc of Hygon "
                     "DTK 24.04 to compile for",
                     arch);
            assert_non_null(strstr(msg, want));
            assert_false(recorded_line(compile));
        }
        assert_int_equal(xgpu_queue_release(q), XGPU_SUCCESS);
        assert_int_equal(xgpu_context_release(ctx), XGPU_SUCCESS);
    }
}

/* Without hiprtc, the plugin's code object bundles (gfx906, gfx908,
 * gfx90a, gfx1030) run on a Z100 (gfx906); a gfx928 needs DTK's hiprtc,
 * and the error says so with HIP's name. */
static void builtin_code_on_dcus(void **state) {
    (void)state;
    for (uint32_t i = 0; i < ndevs; i++) {
        char arch[32];
        arch_of((int)i, arch, sizeof arch);
        xgpu_context *ctx;
        xgpu_queue *q;
        xgpu_buffer *x, *out;
        assert_int_equal(xgpu_context_create(devs[i], &ctx), XGPU_SUCCESS);
        assert_int_equal(xgpu_queue_create(ctx, &q), XGPU_SUCCESS);
        assert_int_equal(xgpu_buffer_create(ctx, 4096, &x), XGPU_SUCCESS);
        assert_int_equal(xgpu_buffer_create(ctx, 64, &out), XGPU_SUCCESS);
        xgpu_status st = xgpu_reduce(q, XGPU_REDUCE_SUM, XGPU_F32, x, 0, 1024, out, 0, NULL);
        if (!strcmp(arch, "gfx906")) {
            if (st != XGPU_SUCCESS) {
                fail_msg("gfx906: %s", xgpu_last_error()->message);
            }
        } else {
            assert_int_equal(st, XGPU_ERROR_BUILD_FAILED);
            const xgpu_error_info *err = xgpu_last_error();
            print_message("%s\n", err->message);
            assert_string_equal(err->native_name, "hipErrorNoBinaryForGpu");
            assert_non_null(strstr(err->message, "does not load on gfx928"));
            assert_non_null(strstr(err->message, "XGPU_HIPRTC=none turns hiprtc off"));
        }
        assert_int_equal(xgpu_buffer_release(x), XGPU_SUCCESS);
        assert_int_equal(xgpu_buffer_release(out), XGPU_SUCCESS);
        assert_int_equal(xgpu_queue_release(q), XGPU_SUCCESS);
        assert_int_equal(xgpu_context_release(ctx), XGPU_SUCCESS);
    }
}

int main(int argc, char **argv) {
    layout = argc > 1 ? argv[1] : "hyhal";
    if (make_dtk()) {
        perror("test_hip_dcu: making the DTK tree");
        return 1;
    }
    const struct CMUnitTest with_hiprtc[] = {
        cmocka_unit_test(dcu_information),
        cmocka_unit_test(dcu_kernels_by_release),
    };
    const struct CMUnitTest builtin[] = {
        cmocka_unit_test(dcu_information),
        cmocka_unit_test(builtin_code_on_dcus),
    };
    int rc = 0;
    if (!strcmp(layout, "builtin")) {
        rc = cmocka_run_group_tests_name("hip_dcu_builtin", builtin, setup, NULL);
    } else {
        rc = cmocka_run_group_tests_name("hip_dcu", with_hiprtc, setup, NULL);
    }
    xt_tree_remove(tree);
    return rc;
}
