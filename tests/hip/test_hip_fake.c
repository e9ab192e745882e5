/* The HIP backend through the public API, on the fake HIP runtime
 * (fake_hip.c) that XGPU_HIP_RUNTIME names: discovery and device
 * information, buffers, copies, fills, events, pinned memory and peer
 * copies between its two devices, xgpu's library kernels from the code
 * objects built into the plugin with hiprtc hidden (XGPU_HIPRTC=none), and
 * the errors of a running backend: out of memory, a failing module load,
 * no code object for the architecture, a kernel not found, a failing
 * launch. CTest runs it once per kind of runtime:
 *   test_hip_fake info    ROCm 6 or 5 runtime, or one without the optional
 *                         functions (FAKE_HIP_MINIMAL=1 tells the test)
 *   test_hip_fake nobinary  a device whose architecture the built-in
 *                         bundles lack
 *   test_hip_fake hiprtc  user kernels through the fake hiprtc
 * The fake's switches (FAKE_HIP_*) set what the devices report; the test
 * reads the same variables for what to expect. */
#define _GNU_SOURCE
#include "embedded.h"
#include "xt_file.h"
#include "core_int.h"
#include "tunedb.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The HIP plugin's table, compiled into this test too. */
extern const xgpu_embedded_table hip__embedded_table;

static bool minimal;
static xgpu_device *devs[2];
static uint32_t ndevs;
static xgpu_context *ctx;
static xgpu_queue *queue;

static int env_int(const char *name, int fallback) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

/* The architecture the fake gives device `i` (FAKE_HIP_ARCH's list). */
static void fake_arch(int i, char *out, size_t size) {
    const char *list = getenv("FAKE_HIP_ARCH");
    list = list && *list ? list : "gfx90a:sramecc+:xnack-";
    for (int k = 0; k < i && strchr(list, ','); k++) {
        list = strchr(list, ',') + 1;
    }
    snprintf(out, size, "%.*s", (int)strcspn(list, ","), list);
}

/* ---- what the fake recorded ---- */

static char *recorded(size_t *size) {
    return xt_read_file(getenv("FAKE_HIP_RECORD"), size); /* NULL (size 0) before any record */
}

static void forget_records(void) {
    FILE *f = fopen(getenv("FAKE_HIP_RECORD"), "wb");
    if (f) {
        fclose(f);
    }
}

static bool recorded_line(const char *prefix) {
    size_t size = 0;
    char *rec = recorded(&size);
    bool found = false;
    for (char *p = rec; p && p < rec + size && !found; p++) {
        found = (p == rec || p[-1] == '\n') && !strncmp(p, prefix, strlen(prefix));
    }
    free(rec);
    return found;
}

/* What the fake still holds (its allocations, streams, events, modules). */
static int fake_live_objects(void) {
    void *lib = dlopen(getenv("XGPU_HIP_RUNTIME"), RTLD_NOW | RTLD_NOLOAD);
    int (*live)(void) = NULL;
    void *sym = lib ? dlsym(lib, "fakeHipLiveObjects") : NULL;
    memcpy(&live, &sym, sizeof live);
    return live ? live() : -1;
}

static int setup(void **state) {
    (void)state;
    minimal = env_int("FAKE_HIP_MINIMAL", 0) != 0;
    if (xgpu_device_match("hip", devs, 2, &ndevs) != XGPU_SUCCESS ||
        xgpu_context_create(devs[0], &ctx) != XGPU_SUCCESS ||
        xgpu_queue_create(ctx, &queue) != XGPU_SUCCESS) {
        fprintf(stderr, "no fake HIP device: %s\n", xgpu_last_error()->message);
        return -1;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    xgpu_queue_release(queue);
    if (xgpu_context_release(ctx) != XGPU_SUCCESS) {
        return -1;
    }
    int live = fake_live_objects();
    if (live != 0) {
        fprintf(stderr, "the fake HIP runtime still holds %d objects\n", live);
        return -1;
    }
    return 0;
}

/* ---- discovery and information ---- */

static void devices_and_their_information(void **state) {
    (void)state;
    assert_int_equal(ndevs, env_int("FAKE_HIP_DEVICES", 1));
    for (uint32_t i = 0; i < ndevs; i++) {
        xgpu_device_info info;
        assert_int_equal(xgpu_device_get_info(devs[i], &info, sizeof info), XGPU_SUCCESS);
        assert_string_equal(info.backend, "hip");
        assert_int_equal(info.backend_index, i);
        assert_string_equal(info.vendor, "Advanced Micro Devices, Inc.");
        assert_string_equal(info.name, "AMD Instinct MI210 (fake)");
        char arch[64];
        fake_arch((int)i, arch, sizeof arch);
        /* From the property struct; a runtime without one gives none. */
        assert_string_equal(info.arch, minimal ? "" : arch);
        /* Through the attribute numbers of the runtime's HIP version. */
        assert_int_equal(info.compute_units, 104);
        assert_int_equal(info.max_clock_mhz, 1700);
        assert_int_equal(info.global_mem_bytes, (uint64_t)env_int("FAKE_HIP_MEM_MIB", 1024) << 20);
        assert_int_equal(info.max_group_size, 1024);
        assert_int_equal(info.max_group_dims[2], 1024);
        assert_int_equal(info.max_groups[0], 2147483647);
        assert_int_equal(info.local_mem_bytes, 65536);
        assert_int_equal(info.local_mem_per_cu_bytes, 65536);
        assert_int_equal(info.constant_mem_bytes, 65536);
        assert_int_equal(info.subgroup_size, 64);
        assert_int_equal(info.l2_cache_bytes, 8388608);
        assert_int_equal(info.memory_clock_mhz, 1600);
        assert_int_equal(info.memory_bus_width_bits, 4096);
        assert_int_equal(info.ecc_enabled, 1);
        assert_int_equal(info.has_pci_bus_id, !minimal);
        assert_int_equal(info.has_uuid, !minimal);
        if (!minimal) {
            char bus[16];
            snprintf(bus, sizeof bus, "0000:%02x:00.0", 0xc3 + i);
            assert_string_equal(info.pci_bus_id, bus); /* lower case */
            char uuid[32];
            snprintf(uuid, sizeof uuid, "fake-hip-uuid-%02u", i);
            assert_memory_equal(info.uuid, uuid, 16);
        }
        char lang[64];
        int v = env_int("FAKE_HIP_VERSION", 0);
        if (v) {
            snprintf(lang, sizeof lang, "HIP %d.%d.%d (", v / 10000000, (v / 100000) % 100,
                     v % 100000);
            assert_non_null(strstr(info.language_version, lang));
        }
    }
}

/* hipMemGetInfo after hipSetDevice to the asked device: memory taken on
 * device 1 is missing from device 1 only. */
static void free_memory_is_per_device(void **state) {
    (void)state;
    if (ndevs < 2) {
        skip();
    }
    xgpu_context *c1;
    xgpu_buffer *b;
    uint64_t free0 = 0, free1 = 0, after0 = 0, after1 = 0;
    assert_int_equal(xgpu_device_free_memory(devs[0], &free0), XGPU_SUCCESS);
    assert_int_equal(xgpu_device_free_memory(devs[1], &free1), XGPU_SUCCESS);
    assert_int_equal(xgpu_context_create(devs[1], &c1), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(c1, 1 << 20, &b), XGPU_SUCCESS);
    assert_int_equal(xgpu_device_free_memory(devs[0], &after0), XGPU_SUCCESS);
    assert_int_equal(xgpu_device_free_memory(devs[1], &after1), XGPU_SUCCESS);
    assert_int_equal(after0, free0);
    assert_int_equal(after1, free1 - (1 << 20));
    assert_int_equal(xgpu_buffer_release(b), XGPU_SUCCESS);
    assert_int_equal(xgpu_context_release(c1), XGPU_SUCCESS);
}

/* ---- buffers, copies, fills, events ---- */

static void buffers_copies_fills_and_events(void **state) {
    (void)state;
    enum { N = 4096 };
    unsigned char src[N], dst[N];
    for (int i = 0; i < N; i++) {
        src[i] = (unsigned char)(i * 13 + 7);
    }
    xgpu_buffer *a, *b;
    assert_int_equal(xgpu_buffer_create(ctx, N, &a), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(ctx, N, &b), XGPU_SUCCESS);
    xgpu_event *e0, *e1;
    assert_int_equal(xgpu_queue_record_event(queue, &e0), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_write(queue, a, 0, src, N, true, NULL), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_copy(queue, a, 100, b, 200, 1000, NULL), XGPU_SUCCESS);
    memset(dst, 0, sizeof dst);
    assert_int_equal(xgpu_buffer_read(queue, b, 200, dst, 1000, true, NULL), XGPU_SUCCESS);
    assert_memory_equal(dst, src + 100, 1000);
    assert_int_equal(xgpu_queue_record_event(queue, &e1), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_wait_event(queue, e0), XGPU_SUCCESS); /* host wait without */
    assert_int_equal(xgpu_event_wait(e1), XGPU_SUCCESS);
    double ms = 0;
    assert_int_equal(xgpu_event_elapsed_ms(e0, e1, &ms), XGPU_SUCCESS);
    assert_true(ms > 0);
    assert_int_equal(xgpu_event_release(e0), XGPU_SUCCESS);
    assert_int_equal(xgpu_event_release(e1), XGPU_SUCCESS);

    /* Fills: hipMemsetD8, D16 and D32, and a 16-byte pattern the core
     * fills through copies. */
    const uint8_t p1 = 0xab;
    const uint16_t p2 = 0x1234;
    const uint32_t p4 = 0xdeadbeef;
    const uint8_t p16[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    assert_int_equal(xgpu_buffer_fill(queue, a, 0, 64, &p1, 1, NULL), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_fill(queue, a, 64, 64, &p2, 2, NULL), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_fill(queue, a, 128, 64, &p4, 4, NULL), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_fill(queue, a, 192, 64, p16, 16, NULL), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_read(queue, a, 0, dst, 256, true, NULL), XGPU_SUCCESS);
    for (int i = 0; i < 64; i++) {
        assert_int_equal(dst[i], p1);
        assert_int_equal(dst[64 + i], ((const uint8_t *)&p2)[i % 2]);
        assert_int_equal(dst[128 + i], ((const uint8_t *)&p4)[i % 4]);
        assert_int_equal(dst[192 + i], p16[i % 16]);
    }
    assert_int_equal(dst[256 - 1], p16[15]);
    /* The native handle is the fake's device pointer. */
    void *native = NULL;
    assert_int_equal(xgpu_buffer_native(a, &native), XGPU_SUCCESS);
    assert_non_null(native);
    assert_int_equal(xgpu_buffer_release(a), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(b), XGPU_SUCCESS);

    /* Pinned host memory: hipHostMalloc. */
    void *pinned = NULL;
    assert_int_equal(xgpu_host_alloc(ctx, 1 << 16, &pinned), XGPU_SUCCESS);
    memset(pinned, 0x5a, 1 << 16);
    assert_int_equal(xgpu_host_free(ctx, pinned), XGPU_SUCCESS);
}

/* Between the two devices: hipDeviceEnablePeerAccess from the destination
 * to the source, then hipMemcpyPeerAsync (the fake refuses the copy
 * without that); staged through the host by a runtime without peer
 * copies. */
static void peer_copies_between_devices(void **state) {
    (void)state;
    if (ndevs < 2) {
        skip();
    }
    xgpu_peer_path path = XGPU_PEER_STAGED;
    assert_int_equal(xgpu_device_peer_path(devs[0], devs[1], &path), XGPU_SUCCESS);
    assert_int_equal(path, minimal ? XGPU_PEER_STAGED : XGPU_PEER_DIRECT);
    xgpu_context *c1;
    xgpu_queue *q1;
    xgpu_buffer *a, *b;
    assert_int_equal(xgpu_context_create(devs[1], &c1), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_create(c1, &q1), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(ctx, 8192, &a), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(c1, 8192, &b), XGPU_SUCCESS);
    unsigned char src[8192], dst[8192];
    for (int i = 0; i < 8192; i++) {
        src[i] = (unsigned char)(i ^ (i >> 7));
    }
    assert_int_equal(xgpu_buffer_write(queue, a, 0, src, sizeof src, true, NULL), XGPU_SUCCESS);
    forget_records();
    assert_int_equal(xgpu_buffer_copy_peer(queue, a, 1024, q1, b, 0, 4096, &path), XGPU_SUCCESS);
    assert_int_equal(path, minimal ? XGPU_PEER_STAGED : XGPU_PEER_DIRECT);
    assert_int_equal(recorded_line("PEER 0 -> 1 4096"), !minimal);
    /* Again: access is already enabled (hipErrorPeerAccessAlreadyEnabled is
     * no failure). */
    assert_int_equal(xgpu_buffer_copy_peer(queue, a, 1024, q1, b, 0, 4096, &path), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_read(q1, b, 0, dst, 4096, true, NULL), XGPU_SUCCESS);
    assert_memory_equal(dst, src + 1024, 4096);
    assert_int_equal(xgpu_buffer_release(a), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(b), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_release(q1), XGPU_SUCCESS);
    assert_int_equal(xgpu_context_release(c1), XGPU_SUCCESS);
}

/* hipMalloc past the device's memory: the xgpu status and HIP's own name
 * (a runtime without hipGetErrorName gives the number). */
static void out_of_device_memory(void **state) {
    (void)state;
    size_t half = ((size_t)env_int("FAKE_HIP_MEM_MIB", 1024) << 20) / 4 * 3;
    xgpu_buffer *a = NULL, *b = NULL;
    assert_int_equal(xgpu_buffer_create(ctx, half, &a), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(ctx, half, &b), XGPU_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_null(b);
    const xgpu_error_info *err = xgpu_last_error();
    assert_string_equal(err->native_name, minimal ? "hipError_t 2" : "hipErrorOutOfMemory");
    assert_int_equal(err->native_code, 2);
    assert_non_null(strstr(err->message, "hipMalloc failed"));
    char asking[64];
    snprintf(asking, sizeof asking, "asking %zu bytes", half);
    assert_non_null(strstr(err->message, asking));
    assert_int_equal(xgpu_buffer_release(a), XGPU_SUCCESS);
}

/* ---- kernels ---- */

static const xgpu_embedded *expected(const char *source, const char *options) {
    char *full = xgpu__compose_source(XGPU_DIALECT_HIP, source);
    const xgpu_embedded *e = xgpu__embedded_find(&hip__embedded_table, full, options);
    free(full);
    return e;
}

/* The fake recorded exactly this built-in bundle, and a launch of it. */
static void expect_loaded(const xgpu_embedded *e) {
    assert_non_null(e);
    size_t size = 0;
    char *rec = recorded(&size);
    char head[64];
    snprintf(head, sizeof head, "IMAGE bundle %zu\n", e->size);
    if (size < strlen(head) + e->size + 1 || memcmp(rec, head, strlen(head)) != 0) {
        fail_msg("recorded %zu bytes, want \"%s\" and %zu bytes of %s %s first", size, head,
                 e->size, e->name, e->options);
    }
    assert_memory_equal(rec + strlen(head), e->data, e->size);
    assert_non_null(strstr(rec + strlen(head) + e->size, "\nLAUNCH "));
    free(rec);
}

static void skip_without_table(void) {
    if (!hip__embedded_table.count) {
        print_message("skipped: %s\n", hip__embedded_table.about);
        skip();
    }
}

/* xgpu_reduce, xgpu_stream and xgpu_gemm load exactly the built-in code
 * object bundles when hiprtc is hidden. */
static void library_routines_load_the_built_in_code(void **state) {
    (void)state;
    skip_without_table();
    enum { N = 4096 };
    xgpu_buffer *x, *y, *out;
    assert_int_equal(xgpu_buffer_create(ctx, N * 4, &x), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(ctx, N * 4, &y), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(ctx, 64, &out), XGPU_SUCCESS);
    const xgpu_device_info gpu = {.type = XGPU_DEVICE_TYPE_GPU};
    xgpu__tune_values v;
    char opt[256];

    forget_records();
    assert_int_equal(xgpu_reduce(queue, XGPU_REDUCE_SUM, XGPU_F32, x, 0, N, out, 0, NULL),
                     XGPU_SUCCESS);
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F32, XGPU__TC_SMALL, &gpu, &v);
    xgpu__reduce_options(XGPU_REDUCE_SUM, XGPU_F32, &v, opt, sizeof opt);
    expect_loaded(expected(xgpu__kernel_reduce, opt));

    forget_records();
    assert_int_equal(xgpu_stream(queue, XGPU_STREAM_TRIAD, XGPU_F32, x, x, y, 2.0, 16, NULL, NULL),
                     XGPU_SUCCESS);
    xgpu__tune_builtin(XGPU__TK_STREAM, XGPU_F32, XGPU__TC_SMALL, &gpu, &v);
    xgpu__stream_options(XGPU_F32, &v, opt, sizeof opt);
    expect_loaded(expected(xgpu__kernel_stream, opt));

    forget_records();
    xgpu_gemm_desc g = {.dtype = XGPU_F32,
                        .layout = XGPU_ROW_MAJOR,
                        .trans_a = XGPU_NO_TRANS,
                        .trans_b = XGPU_NO_TRANS,
                        .m = 32,
                        .n = 32,
                        .k = 32,
                        .alpha = 1.0,
                        .beta = 0.0,
                        .a = {x, 0, 32},
                        .b = {x, 1024, 32},
                        .c = {x, 2048, 32},
                        .params = NULL};
    assert_int_equal(xgpu_gemm(queue, &g, NULL), XGPU_SUCCESS);
    xgpu_gemm_params p;
    assert_int_equal(xgpu_gemm_default_params(devs[0], XGPU_F32, &p), XGPU_SUCCESS);
    xgpu__gemm_options(XGPU_F32, &p, opt, sizeof opt);
    expect_loaded(expected(xgpu__kernel_gemm, opt));

    assert_int_equal(xgpu_buffer_release(x), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(y), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(out), XGPU_SUCCESS);
}

static const char user_kernel[] = "XGPU_KERNEL void scale(XGPU_GLOBAL float *y, float a) {\n"
                                  "    y[xgpu_global_id(0)] *= a;\n"
                                  "}\n";

static void user_kernels_need_hiprtc(void **state) {
    (void)state;
    xgpu_program *p = NULL;
    assert_int_equal(xgpu_program_build(ctx, user_kernel, NULL, &p),
                     XGPU_ERROR_BACKEND_UNAVAILABLE);
    assert_null(p);
    const char *msg = xgpu_last_error()->message;
    assert_non_null(strstr(msg, "XGPU_HIPRTC=none turns hiprtc off"));
    assert_non_null(strstr(msg, "only xgpu's library kernels run"));
}

/* hipModuleLoadData fails (hipErrorInvalidImage): the build fails with
 * HIP's name kept, on a fresh context (the library caches its programs
 * per context). */
static void failing_module_load(void **state) {
    (void)state;
    skip_without_table();
    xgpu_context *c;
    xgpu_queue *q;
    xgpu_buffer *x, *out;
    assert_int_equal(xgpu_context_create(devs[0], &c), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_create(c, &q), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(c, 4096, &x), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(c, 64, &out), XGPU_SUCCESS);
    setenv("FAKE_HIP_MODULE_FAIL", "200", 1);
    assert_int_equal(xgpu_reduce(q, XGPU_REDUCE_SUM, XGPU_F32, x, 0, 1024, out, 0, NULL),
                     XGPU_ERROR_BUILD_FAILED);
    unsetenv("FAKE_HIP_MODULE_FAIL");
    const xgpu_error_info *err = xgpu_last_error();
    assert_int_equal(err->native_code, 200);
    assert_string_equal(err->native_name, minimal ? "hipError_t 200" : "hipErrorInvalidImage");
    assert_non_null(strstr(err->message, "does not load"));
    assert_int_equal(xgpu_buffer_release(x), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(out), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_release(q), XGPU_SUCCESS);
    assert_int_equal(xgpu_context_release(c), XGPU_SUCCESS);
}

/* A device whose architecture the bundles lack (they hold gfx906, gfx908,
 * gfx90a, gfx1030): hipErrorNoBinaryForGpu, and the message says hiprtc
 * is needed for it. */
static void no_built_in_code_for_the_arch(void **state) {
    (void)state;
    skip_without_table();
    xgpu_buffer *x, *out;
    assert_int_equal(xgpu_buffer_create(ctx, 4096, &x), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(ctx, 64, &out), XGPU_SUCCESS);
    assert_int_equal(xgpu_reduce(queue, XGPU_REDUCE_SUM, XGPU_F32, x, 0, 1024, out, 0, NULL),
                     XGPU_ERROR_BUILD_FAILED);
    const xgpu_error_info *err = xgpu_last_error();
    assert_string_equal(err->native_name, "hipErrorNoBinaryForGpu");
    char arch[64], want[192];
    fake_arch(0, arch, sizeof arch);
    snprintf(want, sizeof want, "does not load on %s (hipModuleLoadData: hipErrorNoBinaryForGpu)",
             arch);
    if (!strstr(err->message, want) || !strstr(err->message, "hiprtc is needed")) {
        fail_msg("%s", err->message);
    }
    assert_int_equal(xgpu_buffer_release(x), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(out), XGPU_SUCCESS);
}

/* User kernels through the fake hiprtc: compiled for the device's exact
 * gcnArchName, loaded, found by name, launched; a missing kernel, a
 * failing launch, a compile error and a failing load each give their
 * status and HIP's name. */
static void user_kernels_through_hiprtc(void **state) {
    (void)state;
    char arch[64], want[192];
    fake_arch(0, arch, sizeof arch);
    forget_records();
    xgpu_program *p = NULL;
    xgpu_status built = xgpu_program_build(ctx, user_kernel, "-DXGPU_TEST=1", &p);
    if (built != XGPU_SUCCESS) {
        fail_msg("%s", xgpu_last_error()->message);
    }
    snprintf(want, sizeof want, "COMPILE arch=%s -DXGPU_TEST=1", arch);
    assert_true(recorded_line(want));
    assert_true(recorded_line("IMAGE fake "));

    xgpu_kernel *k = NULL;
    assert_int_equal(xgpu_kernel_create(p, "missing", &k), XGPU_ERROR_KERNEL_NOT_FOUND);
    assert_string_equal(xgpu_last_error()->native_name, "hipErrorNotFound");
    assert_non_null(strstr(xgpu_last_error()->message, "no kernel named 'missing'"));
    assert_int_equal(xgpu_kernel_create(p, "scale", &k), XGPU_SUCCESS);
    size_t max = 0;
    assert_int_equal(xgpu_kernel_max_group_size(k, &max), XGPU_SUCCESS);
    assert_int_equal(max, 1024); /* hipFuncGetAttribute */

    xgpu_buffer *y;
    assert_int_equal(xgpu_buffer_create(ctx, 256 * 4, &y), XGPU_SUCCESS);
    xgpu_arg args[] = {xgpu_arg_buffer(y), xgpu_arg_f32(2.0f)};
    xgpu_range r = xgpu_range_1d(4, 64);
    assert_int_equal(xgpu_launch(queue, k, &r, 2, args, NULL), XGPU_SUCCESS);
    assert_true(recorded_line("LAUNCH scale device 0 grid 4,1,1 block 64,1,1 shared 0"));
    setenv("FAKE_HIP_LAUNCH_FAIL", "719", 1);
    assert_int_equal(xgpu_launch(queue, k, &r, 2, args, NULL), XGPU_ERROR_DEVICE_LOST);
    unsetenv("FAKE_HIP_LAUNCH_FAIL");
    assert_string_equal(xgpu_last_error()->native_name, "hipErrorLaunchFailure");
    assert_non_null(strstr(xgpu_last_error()->message, "hipModuleLaunchKernel failed"));
    assert_int_equal(xgpu_buffer_release(y), XGPU_SUCCESS);
    assert_int_equal(xgpu_kernel_release(k), XGPU_SUCCESS);
    assert_int_equal(xgpu_program_release(p), XGPU_SUCCESS);

    /* A compile error: the log comes back. */
    assert_int_equal(xgpu_program_build(ctx,
                                        "XGPU_KERNEL void broken(XGPU_GLOBAL float *y) {\n"
                                        "    fake_compile_error;\n}\n",
                                        NULL, &p),
                     XGPU_ERROR_BUILD_FAILED);
    assert_non_null(strstr(xgpu_last_build_log(), "undeclared identifier 'fake_compile_error'"));
    /* The code does not load. */
    setenv("FAKE_HIP_MODULE_FAIL", "200", 1);
    assert_int_equal(xgpu_program_build(ctx, user_kernel, "-DAGAIN=1", &p),
                     XGPU_ERROR_BUILD_FAILED);
    unsetenv("FAKE_HIP_MODULE_FAIL");
    assert_string_equal(xgpu_last_error()->native_name, "hipErrorInvalidImage");
    assert_non_null(strstr(xgpu_last_error()->message, "hipModuleLoadData failed"));
}

/* The allow-list keeps hiprtc from an architecture the ROCm release lacks
 * (gfx940 on 5.2, which aborts the process there: the fake hiprtc does
 * too), with a message; the build identity names hiprtc and the arch. */
static void allow_list_refuses_before_hiprtc(void **state) {
    (void)state;
    if (ndevs < 2) {
        skip();
    }
    char arch[64];
    fake_arch(1, arch, sizeof arch);
    xgpu_context *c1;
    assert_int_equal(xgpu_context_create(devs[1], &c1), XGPU_SUCCESS);
    forget_records();
    xgpu_program *p = NULL;
    assert_int_equal(xgpu_program_build(c1, user_kernel, NULL, &p), XGPU_ERROR_UNSUPPORTED);
    char want[192];
    snprintf(want, sizeof want, "%s is not an architecture the hiprtc of ROCm", arch);
    assert_non_null(strstr(xgpu_last_error()->message, want));
    assert_false(recorded_line("COMPILE"));
    assert_int_equal(xgpu_context_release(c1), XGPU_SUCCESS);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "info";
    printf("mode %s; built-in kernels: %zu, %s\n", mode, hip__embedded_table.count,
           hip__embedded_table.about);
    const struct CMUnitTest info[] = {
        cmocka_unit_test(devices_and_their_information),
        cmocka_unit_test(free_memory_is_per_device),
        cmocka_unit_test(buffers_copies_fills_and_events),
        cmocka_unit_test(peer_copies_between_devices),
        cmocka_unit_test(out_of_device_memory),
        cmocka_unit_test(library_routines_load_the_built_in_code),
        cmocka_unit_test(user_kernels_need_hiprtc),
        cmocka_unit_test(failing_module_load),
    };
    const struct CMUnitTest nobinary[] = {
        cmocka_unit_test(no_built_in_code_for_the_arch),
    };
    const struct CMUnitTest hiprtc[] = {
        cmocka_unit_test(user_kernels_through_hiprtc),
        cmocka_unit_test(allow_list_refuses_before_hiprtc),
    };
    if (!strcmp(mode, "nobinary")) {
        return cmocka_run_group_tests_name("hip_fake_nobinary", nobinary, setup, teardown);
    }
    if (!strcmp(mode, "hiprtc")) {
        return cmocka_run_group_tests_name("hip_fake_hiprtc", hiprtc, setup, teardown);
    }
    return cmocka_run_group_tests_name("hip_fake", info, setup, teardown);
}
