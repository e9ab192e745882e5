/* Conformance harness: runs a CMocka group once per device, with a fresh
 * context and queue, and checks at the end that the tests released every
 * object they made (the context release would fail otherwise). */
#ifndef XGPU_TEST_HARNESS_H
#define XGPU_TEST_HARNESS_H

#include <xgpu.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

typedef struct xt_env {
    xgpu_device *device;
    xgpu_device_info info;
    xgpu_context *ctx;
    xgpu_queue *queue;
} xt_env;

/* The device under test, valid inside tests. */
extern xt_env xt;

/* Runs `tests` on every device (or those XGPU_TEST_DEVICES selects).
 * Fails when there is no device at all: a conformance run that tests
 * nothing must not pass. */
int xt_run(const char *suite, const struct CMUnitTest *tests, size_t count);
#define XT_RUN(suite, tests) xt_run((suite), (tests), sizeof(tests) / sizeof((tests)[0]))

/* Asserts an xgpu call succeeded, printing xgpu_last_error() otherwise. */
#define XT_OK(call)                                                                                \
    do {                                                                                           \
        xgpu_status xt_st_ = (call);                                                               \
        if (xt_st_ != XGPU_SUCCESS) {                                                              \
            fail_msg("%s -> %s: %s", #call, xgpu_status_name(xt_st_), xgpu_last_error()->message); \
        }                                                                                          \
    } while (0)

/* Asserts an xgpu call failed with `status` and a message containing
 * `fragment` (NULL: any message, but not empty). */
#define XT_FAILS(call, status, fragment)                                                           \
    xt_expect_failure((call), (status), (fragment), #call, __FILE__, __LINE__)
void xt_expect_failure(xgpu_status got, xgpu_status want, const char *fragment, const char *call,
                       const char *file, int line);

/* Builds `source` on the current context, failing the test with the log. */
xgpu_program *xt_build(const char *source, const char *options);
xgpu_kernel *xt_kernel(xgpu_program *program, const char *name);

/* Deterministic pseudo-random data (xorshift), never all zeros. */
uint32_t xt_rand_u32(uint32_t *state);
void xt_random_bytes(void *dst, size_t size, uint32_t seed);
void xt_random_f32(float *dst, size_t n, uint32_t seed, float lo, float hi);

#endif
