/* The fragment layer's conversions on the device against the host's, for
 * test_gemm_mma_kernel (gemm_mma_check.h). */
#define _POSIX_C_SOURCE 200809L
#include "gemm_mma_check.h"

#include <stdlib.h>
#include <string.h>

/* The dialect's conversions bit for bit against the host's: every f16
 * and bf16 pattern to f32, and f32 patterns (every 2^13th, plus rounding
 * ties, NaNs, infinities, subnormals) to f16, bf16 and tf32. */
static const char conv_source[] =
    "XGPU_KERNEL void conv(XGPU_GLOBAL const xgpu_u32 *in, XGPU_GLOBAL xgpu_u32 *out, xgpu_u32 n) "
    "{\n"
    "    xgpu_u32 i = xgpu_global_id(0);\n"
    "    if (i < n) {\n"
    "        xgpu_u32 x = in[i];\n"
    "        float f = xgpu__bits_f32(x);\n"
    "        out[4 * i] = xgpu__f32_bits(xgpu_f16_to_f32((xgpu_u16)x));\n"
    "        out[4 * i + 1] = xgpu__f32_bits(xgpu_bf16_to_f32((xgpu_u16)x));\n"
    "        out[4 * i + 2] = (xgpu_u32)xgpu_f32_to_f16(f) | ((xgpu_u32)xgpu_f32_to_bf16(f) << "
    "16);\n"
    "        out[4 * i + 3] = xgpu__f32_bits(xgpu_f32_to_tf32(f));\n"
    "    }\n"
    "}\n";

static uint32_t bits(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    return x;
}

void conversions(void **state) {
    (void)state;
    enum { N = 65536 + 524288 + 64 };
    uint32_t *in = malloc(N * 4), *out = malloc(N * 16);
    assert_non_null(in);
    assert_non_null(out);
    size_t n = 0;
    for (uint32_t i = 0; i < 65536; i++) {
        in[n++] = i; /* every 16-bit pattern, and as f32 a subnormal */
    }
    for (uint32_t i = 0; i < 524288; i++) {
        in[n++] = i << 13 | (i & 0x1fffu) * 7u; /* every exponent, low bits stirred */
    }
    const uint32_t edges[] = {0x00001000u, 0x3f801000u, 0x3f803000u, 0x3f808000u, 0x3f818000u,
                              0x477fefffu, 0x477ff000u, 0x7f7fffffu, 0x7f800000u, 0xff800001u,
                              0x7fc00000u, 0x33000000u, 0x33000001u, 0x38800000u, 0x387fe000u};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        in[n++] = edges[i];
    }
    xgpu_buffer *bin = upload(in, n * 4), *bout = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, n * 16, &bout));
    xgpu_program *prog = xt_build(conv_source, NULL);
    xgpu_kernel *k = xt_kernel(prog, "conv");
    xgpu_arg args[] = {xgpu_arg_buffer(bin), xgpu_arg_buffer(bout), xgpu_arg_u32((uint32_t)n)};
    xgpu_range r = xgpu_range_1d((n + 63) / 64, 64);
    XT_OK(xgpu_launch(xt.queue, k, &r, 3, args, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, bout, 0, out, n * 16, true, NULL));
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        float f;
        memcpy(&f, &in[i], 4);
        const uint32_t want[4] = {
            bits(xgpu_f16_to_f32((uint16_t)in[i])), bits(xgpu_bf16_to_f32((uint16_t)in[i])),
            (uint32_t)xgpu_f32_to_f16(f) | (uint32_t)xgpu_f32_to_bf16(f) << 16,
            bits(tf32_round(f))};
        for (int c = 0; c < 4; c++) {
            if (out[4 * i + c] != want[c] && bad++ < 8) {
                print_error("  %08x: conversion %d gave %08x, want %08x\n", in[i], c,
                            out[4 * i + c], want[c]);
            }
        }
    }
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_program_release(prog));
    XT_OK(xgpu_buffer_release(bin));
    XT_OK(xgpu_buffer_release(bout));
    free(in);
    free(out);
    if (bad) {
        fail_msg("%d conversions differ from the host's", bad);
    }
}
