/* The fragment layer's one-fragment emulation (xgpu_mma_emu_m16n8k16,
 * xgpu_mma_emu_m16n8k8_tf32) as a user kernel calls it: one warp loads A
 * and B fragments from local tiles, multiplies them onto C fragments
 * loaded from C, and stores them back, for test_gemm_mma_kernel
 * (gemm_mma_check.h). */
#define _POSIX_C_SOURCE 200809L
#include "gemm_mma_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A (row r, k) at A[r * K + k]; B (k, col n) at B[n * K + k]; C 16 x 8
 * row-major, read and written by the lane that holds each element. */
static const char onefrag_source[] =
    "#define C_AT(lane, i) (xgpu_frag_c_row((lane), (i)) * 8u + xgpu_frag_c_col((lane), (i)))\n"
    "XGPU_KERNEL void one16(XGPU_GLOBAL const xgpu_u16 *A, XGPU_GLOBAL const xgpu_u16 *B,\n"
    "                       XGPU_GLOBAL float *C, xgpu_u32 bf16) {\n"
    "    XGPU_LOCAL xgpu_u16 as[16 * 16];\n"
    "    XGPU_LOCAL xgpu_u16 bs[8 * 16];\n"
    "    XGPU_LOCAL float scratch[XGPU_FRAG_EMU_A + XGPU_FRAG_EMU_B];\n"
    "    const xgpu_u32 lane = xgpu_local_id(0);\n"
    "    for (xgpu_u32 i = lane; i < 256u; i += 32u) as[i] = A[i];\n"
    "    for (xgpu_u32 i = lane; i < 128u; i += 32u) bs[i] = B[i];\n"
    "    xgpu_barrier();\n"
    "    xgpu_frag_a a;\n"
    "    xgpu_frag_b b;\n"
    "    xgpu_frag_c c;\n"
    "    xgpu_frag_load_a16(&a, as, 16u, lane);\n"
    "    xgpu_frag_load_b16(&b, bs, 16u, lane);\n"
    "    for (xgpu_u32 i = 0; i < 4u; i++) c.x[i] = C[C_AT(lane, i)];\n"
    "    xgpu_mma_emu_m16n8k16(&c, &a, &b, (int)bf16, scratch, lane);\n"
    "    for (xgpu_u32 i = 0; i < 4u; i++) C[C_AT(lane, i)] = c.x[i];\n"
    "}\n"
    "XGPU_KERNEL void one_tf32(XGPU_GLOBAL const float *A, XGPU_GLOBAL const float *B,\n"
    "                          XGPU_GLOBAL float *C) {\n"
    "    XGPU_LOCAL float as[16 * 8];\n"
    "    XGPU_LOCAL float bs[8 * 8];\n"
    "    XGPU_LOCAL float scratch[XGPU_FRAG_EMU_A + XGPU_FRAG_EMU_B];\n"
    "    const xgpu_u32 lane = xgpu_local_id(0);\n"
    "    for (xgpu_u32 i = lane; i < 128u; i += 32u) as[i] = A[i];\n"
    "    for (xgpu_u32 i = lane; i < 64u; i += 32u) bs[i] = B[i];\n"
    "    xgpu_barrier();\n"
    "    xgpu_frag_a a;\n"
    "    xgpu_frag_b b;\n"
    "    xgpu_frag_c c;\n"
    "    xgpu_frag_load_a_tf32(&a, as, 8u, lane);\n"
    "    xgpu_frag_load_b_tf32(&b, bs, 8u, lane);\n"
    "    for (xgpu_u32 i = 0; i < 4u; i++) c.x[i] = C[C_AT(lane, i)];\n"
    "    xgpu_mma_emu_m16n8k8_tf32(&c, &a, &b, scratch, lane);\n"
    "    for (xgpu_u32 i = 0; i < 4u; i++) C[C_AT(lane, i)] = c.x[i];\n"
    "}\n";

/* -1 .. 1, not zero, stored as `type` (XGPU_F32: fp32) and read back as
 * the kernel multiplies it (tf32-rounded when `tf32`). */
static void fill(void *raw, double *val, xgpu_dtype type, size_t n, uint32_t seed, bool tf32) {
    for (size_t i = 0; i < n; i++) {
        float v = (float)((double)(xt_rand_u32(&seed) >> 8) / (1 << 24) * 2.0 - 1.0);
        if (type == XGPU_F32) {
            ((float *)raw)[i] = v;
            val[i] = tf32 ? tf32_round(v) : v;
        } else {
            uint16_t b = type == XGPU_F16 ? xgpu_f32_to_f16(v) : xgpu_f32_to_bf16(v);
            ((uint16_t *)raw)[i] = b;
            val[i] = type == XGPU_F16 ? xgpu_f16_to_f32(b) : xgpu_bf16_to_f32(b);
        }
    }
}

/* One 16 x 8 x K multiply onto a random C, checked against a double
 * reference: C + sum over k of A(r, k) B(k, n). */
static void one(xgpu_program *prog, xgpu_dtype type, bool tf32) {
    const size_t K = tf32 ? 8 : 16, es = type == XGPU_F32 ? 4 : 2;
    unsigned char a[16 * 16 * 4], b[8 * 16 * 4];
    double av[16 * 16], bv[8 * 16], cv[16 * 8];
    float c[16 * 8], got[16 * 8];
    fill(a, av, type, 16 * K, 5 + (uint32_t)type, tf32);
    fill(b, bv, type, 8 * K, 9 + (uint32_t)type, tf32);
    fill(c, cv, XGPU_F32, 16 * 8, 13, false);
    xgpu_buffer *A = upload(a, 16 * K * es), *B = upload(b, 8 * K * es), *C = upload(c, sizeof c);
    xgpu_kernel *k = xt_kernel(prog, tf32 ? "one_tf32" : "one16");
    xgpu_arg args[] = {xgpu_arg_buffer(A), xgpu_arg_buffer(B), xgpu_arg_buffer(C),
                       xgpu_arg_u32(type == XGPU_BF16)};
    xgpu_range r = xgpu_range_1d(1, 32);
    XT_OK(xgpu_launch(xt.queue, k, &r, tf32 ? 3 : 4, args, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, C, 0, got, sizeof got, true, NULL));
    int bad = 0;
    for (size_t i = 0; i < 16; i++) {
        for (size_t j = 0; j < 8; j++) {
            double ref = cv[i * 8 + j], mag = fabs(ref);
            for (size_t l = 0; l < K; l++) {
                ref += av[i * K + l] * bv[j * K + l];
                mag += fabs(av[i * K + l] * bv[j * K + l]);
            }
            if (!(fabs(got[i * 8 + j] - ref) <= mag * (double)(K + 2) * 0x1p-23) && bad++ < 5) {
                print_error("  %s C(%zu,%zu) = %.9g, want %.9g\n",
                            tf32 ? "tf32" : xgpu_dtype_name(type), i, j, (double)got[i * 8 + j],
                            ref);
            }
        }
    }
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_buffer_release(A));
    XT_OK(xgpu_buffer_release(B));
    XT_OK(xgpu_buffer_release(C));
    if (bad) {
        fail_msg("the one-fragment emulation of %s is wrong (%d elements)",
                 tf32 ? "tf32" : xgpu_dtype_name(type), bad);
    }
}

void one_fragment(void **state) {
    (void)state;
    xgpu_program *prog = xt_build(onefrag_source, NULL);
    one(prog, XGPU_F16, false);
    one(prog, XGPU_BF16, false);
    one(prog, XGPU_F32, true);
    XT_OK(xgpu_program_release(prog));
}
