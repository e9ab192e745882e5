/* The tuner's view of the fragment GEMM (kernels/gemm_mma.xgpu): f16 and
 * bf16 GEMMs are tuned, stored and looked up under kernel "gemm" and
 * their dtype, with parameters of the fragment family on the device's
 * own path (xgpu__gemm_mma_path). tf32 is not tuned: it runs the
 * built-in values. */
#include "tunedb_int.h"

#include <stdio.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define F XGPU_GEMM_FRAGMENTS

bool xgpu__gemm_frag_dtype(xgpu_dtype dtype) {
    return dtype == XGPU_F16 || dtype == XGPU_BF16;
}

static const char *own_path(const xgpu_device_info *info, xgpu_dtype dtype) {
    const char *path = xgpu__gemm_mma_path(info, dtype, false);
    return path ? path : "fragments";
}

void xgpu__gemm_frag_builtin(const xgpu_device_info *info, xgpu_dtype dtype, xgpu__tune_values *v) {
    xgpu_gemm_params p;
    xgpu__gemm_mma_builtin(info, dtype, own_path(info, dtype), &p);
    *v = xgpu__tune_from_gemm(&p);
}

bool xgpu__gemm_frag_valid(xgpu_dtype dtype, const xgpu_device_info *info,
                           const xgpu__tune_values *v, char *why, size_t why_size) {
    xgpu_gemm_params p = xgpu__tune_to_gemm(v);
    struct xgpu__error_state *saved = xgpu__error_save();
    xgpu_status st = xgpu__gemm_mma_check_params(&p, info, dtype, own_path(info, dtype), "gemm");
    if (st != XGPU_SUCCESS && why) {
        snprintf(why, why_size, "%s", xgpu_last_error()->message);
    }
    xgpu__error_restore(saved);
    return st == XGPU_SUCCESS;
}

/* Group tiles of 1 to 8 warps, K steps of 16 and 32, 16-byte loads
 * (vector_width 8) and narrower ones; MFMA's 32 x 32 fragments need warp
 * tiles of 32 x 32 and up. Warp tiles 32 or 64 wide suit the emulated
 * multiply on CPUs (a column a lane). The validity check drops what a
 * path or device cannot run. */
static const xgpu_gemm_params candidates[] = {
    {64, 64, 16, 64, 32, 8, F},   {64, 64, 32, 64, 32, 8, F},   {128, 64, 16, 64, 32, 8, F},
    {32, 64, 16, 32, 64, 8, F},   {64, 64, 16, 64, 64, 8, F},   {32, 32, 16, 32, 32, 8, F},
    {32, 32, 16, 32, 16, 8, F},   {32, 32, 32, 32, 16, 8, F},   {64, 64, 32, 32, 32, 8, F},
    {64, 64, 16, 32, 32, 8, F},   {128, 128, 32, 64, 32, 8, F}, {128, 128, 32, 64, 64, 8, F},
    {128, 64, 32, 64, 32, 8, F},  {64, 128, 32, 32, 64, 8, F},  {128, 256, 32, 64, 64, 8, F},
    {256, 128, 32, 64, 64, 8, F}, {64, 64, 32, 32, 16, 8, F},   {32, 32, 16, 16, 16, 8, F},
    {32, 16, 16, 16, 8, 4, F},    {128, 128, 16, 64, 32, 8, F}, {64, 32, 32, 32, 16, 8, F},
    {32, 64, 32, 16, 32, 8, F},   {64, 64, 32, 32, 32, 4, F},   {32, 32, 16, 32, 16, 2, F},
    {64, 64, 64, 32, 32, 8, F},   {16, 8, 16, 16, 8, 1, F},
};

size_t xgpu__gemm_frag_candidates(xgpu_dtype dtype, const xgpu_device_info *info,
                                  xgpu__tune_values *out, size_t n, size_t max) {
    for (size_t i = 0; i < COUNT(candidates) && n < max; i++) {
        xgpu__tune_values v = xgpu__tune_from_gemm(&candidates[i]);
        bool dup = false;
        for (size_t j = 0; j < n && !dup; j++) {
            dup = !memcmp(&out[j], &v, sizeof v);
        }
        if (!dup && xgpu__gemm_frag_valid(dtype, info, &v, NULL, 0)) {
            out[n++] = v;
        }
    }
    return n;
}
