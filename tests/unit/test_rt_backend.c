/* The shared layer of the CUDA and HIP backends (backends/common/
 * rt_backend.c), over a fake vendor whose device is host memory: what it
 * asks of the vendor for each hook, and what it hands back. */
#include "rt_backend.h"

#include "core_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ---- the fake vendor ---- */
static int current_calls, allocs_live, events_live, streams_live;
static xgpu_status fail_alloc; /* returned by mem_alloc when set */
static unsigned last_grid[3], last_block[3], last_shared;
static size_t prepared_shared;
static int api_tag; /* the "loaded API" the layer passes back */

static xgpu_status f_current(const void *api, void *device_ctx) {
    assert_ptr_equal(api, &api_tag);
    assert_ptr_equal(device_ctx, (void *)(intptr_t)7);
    current_calls++;
    return XGPU_SUCCESS;
}
static xgpu_status f_stream_create(const void *api, void **s) {
    (void)api;
    *s = malloc(1);
    streams_live++;
    return XGPU_SUCCESS;
}
static void f_stream_destroy(const void *api, void *s) {
    (void)api;
    free(s);
    streams_live--;
}
static xgpu_status f_ok(const void *api, void *x) {
    (void)api, (void)x;
    return XGPU_SUCCESS;
}
static xgpu_status f_event_create(const void *api, void **e) {
    (void)api;
    *e = malloc(1);
    events_live++;
    return XGPU_SUCCESS;
}
static xgpu_status f_event_record(const void *api, void *e, void *s) {
    (void)api, (void)e, (void)s;
    return XGPU_SUCCESS;
}
static int waited;
static xgpu_status f_stream_wait(const void *api, void *s, void *e) {
    (void)api;
    assert_non_null(s);
    assert_non_null(e);
    waited++;
    return XGPU_SUCCESS;
}
static xgpu_status f_event_elapsed(const void *api, void *a, void *b, float *ms) {
    (void)api, (void)a, (void)b;
    *ms = 2.5f;
    return XGPU_SUCCESS;
}
static void f_event_destroy(const void *api, void *e) {
    (void)api;
    free(e);
    events_live--;
}
static xgpu_status f_mem_alloc(const void *api, size_t size, uint64_t *ptr) {
    (void)api;
    if (fail_alloc) {
        return xgpu__error("fake", fail_alloc, 2, "FAKE_OUT_OF_MEMORY", "fake mem_alloc failed");
    }
    *ptr = (uint64_t)(uintptr_t)malloc(size);
    allocs_live++;
    return XGPU_SUCCESS;
}
static void f_mem_free(const void *api, uint64_t ptr) {
    (void)api;
    free((void *)(uintptr_t)ptr);
    allocs_live--;
}
static xgpu_status f_host_alloc(const void *api, size_t size, void **p) {
    (void)api;
    *p = malloc(size);
    return XGPU_SUCCESS;
}
static void f_host_free(const void *api, void *p) {
    (void)api;
    free(p);
}
static xgpu_status f_htod(const void *api, uint64_t dst, const void *src, size_t n, void *s) {
    (void)api, (void)s;
    memcpy((void *)(uintptr_t)dst, src, n);
    return XGPU_SUCCESS;
}
static xgpu_status f_dtoh(const void *api, void *dst, uint64_t src, size_t n, void *s) {
    (void)api, (void)s;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return XGPU_SUCCESS;
}
static xgpu_status f_dtod(const void *api, uint64_t dst, uint64_t src, size_t n, void *s) {
    (void)api, (void)s;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return XGPU_SUCCESS;
}
static xgpu_status f_memset(const void *api, uint64_t dst, uint32_t v, unsigned width, size_t n,
                            void *s) {
    (void)api, (void)s;
    unsigned char *p = (unsigned char *)(uintptr_t)dst;
    for (size_t i = 0; i < n; i++) {
        memcpy(p + i * width, &v, width);
    }
    return XGPU_SUCCESS;
}
static xgpu_status f_module_load(const void *api, const void *image, void **m) {
    (void)api;
    *m = (void *)image;
    return XGPU_SUCCESS;
}
static void f_module_unload(const void *api, void *m) {
    (void)api, (void)m;
}
/* The one "kernel": out[i] = a * in[i] + local_offset_of_second_local. */
typedef void (*fake_fn)(void **params);
static void saxpy_like(void **params) {
    float *out = (float *)(uintptr_t) * (uint64_t *)params[0];
    const float *in = (const float *)(uintptr_t) * (uint64_t *)params[1];
    float a = *(const float *)params[2];
    unsigned n = *(const unsigned *)params[3];
    unsigned second_local = *(const unsigned *)params[5];
    for (unsigned i = 0; i < n; i++) {
        out[i] = a * in[i] + (float)second_local;
    }
}
static xgpu_status f_get_function(const void *api, void *m, const char *name, void **fn) {
    (void)api, (void)m;
    if (strcmp(name, "saxpy_like")) {
        return xgpu__error("fake", XGPU_ERROR_KERNEL_NOT_FOUND, 0, NULL, "no kernel '%s'", name);
    }
    fake_fn f = saxpy_like;
    memcpy(fn, &f, sizeof f);
    return XGPU_SUCCESS;
}
static void f_props(const void *api, void *fn, xgpu_kernel_props *props) {
    (void)api, (void)fn;
    props->max_group_size = 1024;
    props->arg_count = 6;
}
static xgpu_status f_launch(const void *api, void *fn, const unsigned grid[3],
                            const unsigned block[3], unsigned shared, void *s, void **params) {
    (void)api, (void)s;
    memcpy(last_grid, grid, sizeof last_grid);
    memcpy(last_block, block, sizeof last_block);
    last_shared = shared;
    fake_fn f;
    memcpy(&f, &fn, sizeof f);
    f(params);
    return XGPU_SUCCESS;
}

static const xgpu_rt_vendor fake = {
    .backend = "fake",
    .make_current = f_current,
    .stream_create = f_stream_create,
    .stream_destroy = f_stream_destroy,
    .stream_sync = f_ok,
    .event_create = f_event_create,
    .event_record = f_event_record,
    .event_sync = f_ok,
    .stream_wait_event = f_stream_wait,
    .event_elapsed = f_event_elapsed,
    .event_destroy = f_event_destroy,
    .mem_alloc = f_mem_alloc,
    .mem_free = f_mem_free,
    .host_alloc = f_host_alloc,
    .host_free = f_host_free,
    .copy_htod = f_htod,
    .copy_dtoh = f_dtoh,
    .copy_dtod = f_dtod,
    .memset = f_memset,
    .module_load = f_module_load,
    .module_unload = f_module_unload,
    .get_function = f_get_function,
    .function_props = f_props,
    .launch = f_launch,
};

static xgpu_rt_ctx ctx = {&fake, &api_tag, (void *)(intptr_t)7};

static int setup(void **state) {
    (void)state;
    char reason[512];
    return xgpu__rt_init(&xgpu__services, &fake, reason, sizeof reason) == XGPU_SUCCESS ? 0 : -1;
}

static void copies_fills_and_events(void **state) {
    (void)state;
    void *q = NULL, *a = NULL, *b = NULL;
    current_calls = 0;
    assert_int_equal(xgpu__rt_queue_create(&ctx, &q), XGPU_SUCCESS);
    assert_int_equal(xgpu__rt_buffer_create(&ctx, 256, &a), XGPU_SUCCESS);
    assert_int_equal(xgpu__rt_buffer_create(&ctx, 256, &b), XGPU_SUCCESS);
    unsigned char src[256], dst[256];
    for (int i = 0; i < 256; i++) {
        src[i] = (unsigned char)(i * 7 + 1);
    }
    void *e1 = NULL, *e2 = NULL;
    assert_int_equal(xgpu__rt_buffer_write(q, a, 0, src, 256, true, &e1), XGPU_SUCCESS);
    assert_int_equal(xgpu__rt_buffer_copy(q, a, 16, b, 32, 100, NULL), XGPU_SUCCESS);
    memset(dst, 0xee, sizeof dst);
    assert_int_equal(xgpu__rt_buffer_read(q, b, 32, dst, 100, true, &e2), XGPU_SUCCESS);
    assert_memory_equal(dst, src + 16, 100);
    double ms = 0;
    assert_int_equal(xgpu__rt_queue_wait_event(q, e1), XGPU_SUCCESS);
    assert_int_equal(waited, 1);
    assert_int_equal(xgpu__rt_event_elapsed_ms(e1, e2, &ms), XGPU_SUCCESS);
    assert_true(ms == 2.5);
    assert_int_equal(xgpu__rt_event_wait(e2), XGPU_SUCCESS);
    assert_int_equal(events_live, 2);
    xgpu__rt_event_release(e1);
    xgpu__rt_event_release(e2);
    assert_int_equal(events_live, 0);
    /* Fills: 1, 2 and 4-byte memsets; a repeated word is a 4-byte one; a
     * wider pattern goes to the core. */
    const unsigned char p1 = 0x5a, p2[2] = {1, 2}, p8[8] = {9, 8, 7, 6, 9, 8, 7, 6};
    const unsigned char p16[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    assert_int_equal(xgpu__rt_buffer_fill(q, a, 0, 8, &p1, 1, NULL), XGPU_SUCCESS);
    assert_int_equal(xgpu__rt_buffer_fill(q, a, 8, 8, p2, 2, NULL), XGPU_SUCCESS);
    assert_int_equal(xgpu__rt_buffer_fill(q, a, 16, 16, p8, 8, NULL), XGPU_SUCCESS);
    assert_int_equal(xgpu__rt_buffer_fill(q, a, 32, 32, p16, 16, NULL), XGPU_ERROR_UNSUPPORTED);
    assert_int_equal(xgpu__rt_buffer_read(q, a, 0, dst, 32, true, NULL), XGPU_SUCCESS);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(dst[i], 0x5a);
        assert_int_equal(dst[8 + i], p2[i % 2]);
    }
    for (int i = 0; i < 16; i++) {
        assert_int_equal(dst[16 + i], p8[i % 8]);
    }
    void *native = NULL;
    assert_int_equal(xgpu__rt_buffer_native(a, &native), XGPU_SUCCESS);
    assert_non_null(native);
    xgpu__rt_buffer_release(a);
    xgpu__rt_buffer_release(b);
    xgpu__rt_queue_release(q);
    assert_int_equal(allocs_live, 0);
    assert_int_equal(streams_live, 0);
    assert_true(current_calls >= 12); /* every hook made the context current */
}

static xgpu_status record_prepare(xgpu_rt_kernel *k, size_t shared) {
    (void)k;
    prepared_shared = shared;
    return XGPU_SUCCESS;
}

/* Buffers become device pointers, scalars their bytes, local memory
 * offsets into one dynamic block (16-byte aligned), the range the grid. */
static void launch_marshals_arguments(void **state) {
    (void)state;
    void *q = NULL, *in = NULL, *out = NULL, *prog = NULL, *kern = NULL;
    assert_int_equal(xgpu__rt_queue_create(&ctx, &q), XGPU_SUCCESS);
    assert_int_equal(xgpu__rt_buffer_create(&ctx, 64 * sizeof(float), &in), XGPU_SUCCESS);
    assert_int_equal(xgpu__rt_buffer_create(&ctx, 64 * sizeof(float), &out), XGPU_SUCCESS);
    float x[64], y[64];
    for (int i = 0; i < 64; i++) {
        x[i] = (float)i * 0.25f - 3.0f;
    }
    assert_int_equal(xgpu__rt_buffer_write(q, in, 0, x, sizeof x, true, NULL), XGPU_SUCCESS);
    static const char image[] = "code object";
    assert_int_equal(xgpu__rt_program_load(&ctx, image, sizeof(xgpu_rt_program), &prog),
                     XGPU_SUCCESS);
    xgpu_kernel_props props = {0};
    props.arg_count = XGPU_ARG_COUNT_UNKNOWN;
    assert_int_equal(xgpu__rt_kernel_create(prog, "nope", sizeof(xgpu_rt_kernel), &kern, &props),
                     XGPU_ERROR_KERNEL_NOT_FOUND);
    assert_int_equal(
        xgpu__rt_kernel_create(prog, "saxpy_like", sizeof(xgpu_rt_kernel), &kern, &props),
        XGPU_SUCCESS);
    assert_int_equal(props.arg_count, 6);
    assert_int_equal(props.max_group_size, 1024);
    ((xgpu_rt_kernel *)kern)->prepare_launch = record_prepare;
    float a = 2.0f;
    unsigned n = 64;
    xgpu_backend_arg args[] = {
        {XGPU_ARG_BUFFER, 0, out, NULL},  {XGPU_ARG_BUFFER, 0, in, NULL},
        {XGPU_ARG_SCALAR, 4, NULL, &a},   {XGPU_ARG_SCALAR, 4, NULL, &n},
        {XGPU_ARG_LOCAL, 20, NULL, NULL}, {XGPU_ARG_LOCAL, 8, NULL, NULL},
    };
    xgpu_range r = {2, {3, 5, 9}, {4, 6, 9}};
    void *ev = NULL;
    assert_int_equal(xgpu__rt_launch(q, kern, &r, 6, args, &ev), XGPU_SUCCESS);
    /* dims 2: the third dimension is 1 whatever range holds. */
    assert_int_equal(last_grid[0], 3);
    assert_int_equal(last_grid[1], 5);
    assert_int_equal(last_grid[2], 1);
    assert_int_equal(last_block[1], 6);
    assert_int_equal(last_block[2], 1);
    assert_int_equal(last_shared, 32 + 8); /* 20 rounded up to 16s, then 8 */
    assert_int_equal(prepared_shared, last_shared);
    assert_int_equal(xgpu__rt_buffer_read(q, out, 0, y, sizeof y, true, NULL), XGPU_SUCCESS);
    for (int i = 0; i < 64; i++) {
        assert_true(y[i] == 2.0f * x[i] + 32.0f); /* the second local block starts at 32 */
    }
    xgpu__rt_event_release(ev);
    free(kern);
    xgpu__rt_program_release(prog);
    xgpu__rt_buffer_release(in);
    xgpu__rt_buffer_release(out);
    xgpu__rt_queue_release(q);
    assert_int_equal(allocs_live, 0);
}

/* A vendor failure comes back as its status, with nothing left behind. */
static void vendor_failures_propagate(void **state) {
    (void)state;
    void *b = (void *)0x1;
    fail_alloc = XGPU_ERROR_OUT_OF_DEVICE_MEMORY;
    assert_int_equal(xgpu__rt_buffer_create(&ctx, 64, &b), XGPU_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_string_equal(xgpu_last_error()->native_name, "FAKE_OUT_OF_MEMORY");
    fail_alloc = XGPU_SUCCESS;
    assert_int_equal(allocs_live, 0);
}

/* Without peer entries (both optional) a peer copy is the core's to
 * stage and no pair of devices is direct. */
static void peer_entries_are_optional(void **state) {
    (void)state;
    void *q = NULL, *a = NULL, *b = NULL;
    assert_int_equal(xgpu__rt_queue_create(&ctx, &q), XGPU_SUCCESS);
    assert_int_equal(xgpu__rt_buffer_create(&ctx, 64, &a), XGPU_SUCCESS);
    assert_int_equal(xgpu__rt_buffer_create(&ctx, 64, &b), XGPU_SUCCESS);
    assert_int_equal(xgpu__rt_buffer_copy_peer(q, a, 0, q, b, 0, 64), XGPU_ERROR_UNSUPPORTED);
    bool direct = true;
    assert_int_equal(xgpu__rt_device_peer(&fake, &api_tag, 0, 1, &direct), XGPU_SUCCESS);
    assert_false(direct);
    xgpu__rt_buffer_release(a);
    xgpu__rt_buffer_release(b);
    xgpu__rt_queue_release(q);
    assert_int_equal(allocs_live, 0);
}

/* The table as the probe checks it: the fake's passes; each required
 * entry set to NULL in turn makes the backend unavailable with a reason
 * naming that entry, as the loader does for a plugin's hooks. */
static void probe_checks_every_required_entry(void **state) {
    (void)state;
    char reason[512] = "";
    assert_int_equal(xgpu__rt_init(&xgpu__services, &fake, reason, sizeof reason), XGPU_SUCCESS);
    assert_ptr_equal(xgpu__rt_services, &xgpu__services);
    static const struct {
        const char *name;
        size_t offset;
    } entries[] = {
#define ENTRY(e) {#e, offsetof(xgpu_rt_vendor, e)},
        XGPU_RT_VENDOR_REQUIRED(ENTRY)
#undef ENTRY
    };
    assert_int_equal(sizeof entries / sizeof entries[0], 23);
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        xgpu_rt_vendor broken = fake;
        memset((char *)&broken + entries[i].offset, 0, sizeof(void (*)(void)));
        reason[0] = '\0';
        assert_int_equal(xgpu__rt_init(&xgpu__services, &broken, reason, sizeof reason),
                         XGPU_ERROR_BACKEND_UNAVAILABLE);
        char want[96];
        snprintf(want, sizeof want, "lacks the required entry %s:", entries[i].name);
        if (!strstr(reason, want) || !strstr(reason, "the fake plugin's vendor table")) {
            fail_msg("without %s: \"%s\"", entries[i].name, reason);
        }
    }
    /* The optional ones may be NULL (the fake has neither). */
    assert_null(fake.copy_peer);
    assert_null(fake.can_access_peer);
    xgpu_rt_vendor nameless = fake;
    nameless.backend = NULL;
    assert_int_equal(xgpu__rt_init(&xgpu__services, &nameless, reason, sizeof reason),
                     XGPU_ERROR_BACKEND_UNAVAILABLE);
    assert_non_null(strstr(reason, "no backend name"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(probe_checks_every_required_entry),
        cmocka_unit_test(copies_fills_and_events),
        cmocka_unit_test(launch_marshals_arguments),
        cmocka_unit_test(vendor_failures_propagate),
        cmocka_unit_test(peer_entries_are_optional),
    };
    return cmocka_run_group_tests_name("rt_backend", tests, setup, NULL);
}
