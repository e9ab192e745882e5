/* What test_gemm_mma_kernel's files share. */
#ifndef XGPU_TEST_GEMM_MMA_CHECK_H
#define XGPU_TEST_GEMM_MMA_CHECK_H

#include "harness.h"

#include <stddef.h>

/* fp32 rounded to tf32 as cvt.rna.tf32.f32 does (the reference's). */
float tf32_round(float v);
/* A buffer of the test's context holding `bytes` of `raw` (4 bytes when 0). */
xgpu_buffer *upload(const void *raw, size_t bytes);
/* The dialect's f16/bf16/tf32 conversions bit for bit against the host's. */
void conversions(void **state);
/* The one-fragment emulation (xgpu_mma_emu_*) in a user kernel. */
void one_fragment(void **state);

#endif
