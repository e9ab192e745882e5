#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

xt_env xt;

static int group_setup(void **state) {
    (void)state;
    if (xgpu_context_create(xt.device, &xt.ctx) != XGPU_SUCCESS ||
        xgpu_queue_create(xt.ctx, &xt.queue) != XGPU_SUCCESS) {
        fprintf(stderr, "setup on %s:%u failed: %s\n", xt.info.backend, xt.info.backend_index,
                xgpu_last_error()->message);
        return -1;
    }
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    int rc = 0;
    if (xgpu_queue_release(xt.queue) != XGPU_SUCCESS) {
        rc = -1;
    }
    if (xgpu_context_release(xt.ctx) != XGPU_SUCCESS) {
        /* Busy: a test leaked a buffer, program, kernel or event. */
        fprintf(stderr, "teardown: %s\n", xgpu_last_error()->message);
        rc = -1;
    }
    xt.queue = NULL;
    xt.ctx = NULL;
    return rc;
}

int xt_run(const char *suite, const struct CMUnitTest *tests, size_t count) {
    uint32_t n = 0;
    if (xgpu_device_count(&n) != XGPU_SUCCESS || n == 0) {
        fprintf(stderr, "%s: no device to test on\n", suite);
        uint32_t nb = 0;
        xgpu_backend_count(&nb);
        for (uint32_t i = 0; i < nb; i++) {
            xgpu_backend_info bi;
            if (xgpu_backend_get_info(i, &bi, sizeof bi) == XGPU_SUCCESS) {
                fprintf(stderr, "  %s: %s\n", bi.name, bi.available ? "available" : bi.reason);
            }
        }
        return 1;
    }
    /* XGPU_TEST_DEVICES: every device its selector list matches (the
     * grammar of xgpu_device_match); unset, every device. */
    const char *only = getenv("XGPU_TEST_DEVICES");
    enum { MAX_SELECTED = 64 };
    xgpu_device *selected[MAX_SELECTED];
    uint32_t nsel = 0;
    if (only && *only && xgpu_device_match(only, selected, MAX_SELECTED, &nsel) != XGPU_SUCCESS) {
        fprintf(stderr, "%s: XGPU_TEST_DEVICES=%s: %s\n", suite, only, xgpu_last_error()->message);
        return 1;
    }
    int failures = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (xgpu_device_get(i, &xt.device) != XGPU_SUCCESS ||
            xgpu_device_get_info(xt.device, &xt.info, sizeof xt.info) != XGPU_SUCCESS) {
            return 1;
        }
        bool wanted = !(only && *only);
        for (uint32_t s = 0; s < nsel && s < MAX_SELECTED; s++) {
            wanted = wanted || selected[s] == xt.device;
        }
        if (!wanted) {
            continue;
        }
        char name[400];
        snprintf(name, sizeof name, "%s on %s:%u (%s)", suite, xt.info.backend,
                 xt.info.backend_index, xt.info.name);
        failures += _cmocka_run_group_tests(name, tests, count, group_setup, group_teardown);
    }
    return failures ? 1 : 0;
}

void xt_expect_failure(xgpu_status got, xgpu_status want, const char *fragment, const char *call,
                       const char *file, int line) {
    const char *msg = xgpu_last_error()->message;
    if (got != want) {
        fail_msg("%s:%d: %s: expected %s, got %s (%s)", file, line, call, xgpu_status_name(want),
                 xgpu_status_name(got), got ? msg : "");
    }
    if (xgpu_last_error()->status != want || !msg[0]) {
        fail_msg("%s:%d: %s: last error not set (status %s)", file, line, call,
                 xgpu_status_name(xgpu_last_error()->status));
    }
    if (fragment && !strstr(msg, fragment)) {
        fail_msg("%s:%d: %s: message '%s' lacks '%s'", file, line, call, msg, fragment);
    }
}

xgpu_program *xt_build(const char *source, const char *options) {
    xgpu_program *p = NULL;
    if (xgpu_program_build(xt.ctx, source, options, &p) != XGPU_SUCCESS) {
        fail_msg("build failed: %s\n%s", xgpu_last_error()->message, xgpu_last_build_log());
    }
    return p;
}

xgpu_kernel *xt_kernel(xgpu_program *program, const char *name) {
    xgpu_kernel *k = NULL;
    XT_OK(xgpu_kernel_create(program, name, &k));
    return k;
}

uint32_t xt_rand_u32(uint32_t *s) {
    uint32_t x = *s ? *s : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

void xt_random_bytes(void *dst, size_t size, uint32_t seed) {
    unsigned char *p = dst;
    uint32_t s = seed | 1;
    for (size_t i = 0; i < size; i++) {
        p[i] = (unsigned char)(xt_rand_u32(&s) >> 24);
    }
}

void xt_random_f32(float *dst, size_t n, uint32_t seed, float lo, float hi) {
    uint32_t s = seed | 1;
    for (size_t i = 0; i < n; i++) {
        dst[i] = lo + (hi - lo) * (float)(xt_rand_u32(&s) >> 8) / (float)(1u << 24);
    }
}
