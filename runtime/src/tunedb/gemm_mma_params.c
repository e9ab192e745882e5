/* The fragment GEMM's (kernels/gemm_mma.xgpu) host side: which path a
 * device runs, the built-in parameters per path and device class, the
 * check that a set suits the kernel and the device, and the build
 * options. */
#include "tunedb_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fragment shape of a path: FM x FN x FK per multiply, LANES per warp,
 * and 32-bit registers per lane of one A and one B fragment. */
typedef struct frag_shape {
    uint32_t fm, fn, fk, lanes, a_regs, b_regs;
} frag_shape;

/* "fragments-mfma": MFMA's layout emulated on any device (tests). */
static bool is_mfma_emulated(const char *path) {
    return path && !strcmp(path, "fragments-mfma");
}

static bool is_mfma(const char *path) {
    return path && (!strcmp(path, "mfma") || is_mfma_emulated(path));
}

static bool is_emulated(const char *path) {
    return path && (!strcmp(path, "fragments") || is_mfma_emulated(path));
}

static bool known_path(const char *path) {
    return path && (!strcmp(path, "mma.sync") || is_mfma(path) || is_emulated(path));
}

/* mma.sync's m16n8k16 (f16, bf16) and m16n8k8 (tf32), which the portable
 * fragments share; MFMA's 32x32x8 on 64 lanes (emulated or not). */
static frag_shape shape_of(xgpu_dtype in, const char *path) {
    if (is_mfma(path)) {
        return (frag_shape){32, 32, 8, 64, 2, 2};
    }
    return in == XGPU_F32 ? (frag_shape){16, 8, 8, 32, 4, 2} : (frag_shape){16, 8, 16, 32, 4, 2};
}

/* Each K-step row of a local tile is padded by 16 bytes: rows stay 16-byte
 * aligned and strided fragment reads spread over the banks. */
static uint32_t pad_k(xgpu_dtype in) {
    return in == XGPU_F32 ? 4 : 8;
}

static size_t elem_size(xgpu_dtype in) {
    return in == XGPU_F32 ? 4 : 2;
}

uint32_t xgpu__gemm_mma_lanes(const char *path) {
    return is_mfma(path) ? 64 : 32;
}

static uint32_t group_size(const xgpu_gemm_params *p, frag_shape s) {
    return (p->tile_m / p->work_m) * (p->tile_n / p->work_n) * s.lanes;
}

/* Bytes of fixed-size local memory: two K steps of both tiles, plus the
 * fragments path's scratch for its emulated multiply (per warp, as fp32,
 * the larger of one fragment K of its A and B fragments and its tile of
 * C). */
static uint64_t local_bytes(const xgpu_gemm_params *p, xgpu_dtype in, const char *path,
                            frag_shape s) {
    uint64_t tiles = 2ull * (p->tile_m + p->tile_n) * (p->tile_k + pad_k(in)) * elem_size(in);
    uint64_t warps = (uint64_t)(p->tile_m / p->work_m) * (p->tile_n / p->work_n);
    uint64_t ab = s.fk * ((uint64_t)p->work_m + p->work_n), c = (uint64_t)p->work_m * p->work_n;
    uint64_t scratch = is_emulated(path) ? warps * (ab > c ? ab : c) * 4 : 0;
    return tiles + scratch;
}

static bool arch_at_least_sm80(const char *arch) {
    return !strncmp(arch, "sm_", 3) && atoi(arch + 3) >= 80;
}

const char *xgpu__gemm_mma_path(const xgpu_device_info *info, xgpu_dtype in, bool tf32) {
    if (in != XGPU_F16 && in != XGPU_BF16 && !(in == XGPU_F32 && tf32)) {
        return NULL;
    }
    if (!strcmp(info->backend, "cuda") && arch_at_least_sm80(info->arch)) {
        return "mma.sync";
    }
    if (in == XGPU_F32) {
        return NULL; /* tf32 only where mma.sync multiplies it */
    }
    if (!strcmp(info->backend, "hip")) {
        /* bf16 MFMA with 4-element fragments (the _1k forms) starts with
         * gfx90a; gfx908 multiplies f16 only. */
        if (!strncmp(info->arch, "gfx90a", 6) || !strncmp(info->arch, "gfx94", 5) ||
            (!strncmp(info->arch, "gfx908", 6) && in == XGPU_F16)) {
            return "mfma";
        }
    }
    return "fragments";
}

/* Built-in parameters: tile_m, tile_n, tile_k, work_m, work_n, vw. GPUs
 * with matrix units: 128 x 128 group tiles of 64 x 32 warp tiles (64 x 64
 * on MFMA's 64 lanes), 16-byte loads. GPUs without: 64 x 64 of 32 x 32.
 * MFMA and the fragments path take K 16 at a time (tf32 8): with more,
 * hipcc spills on AMD (tests/compile_matrix).
 * CPUs (pocl): 64 x 64 tiles of two 64 x 32 warps: few barriers for the
 * emulated multiply, and its columns (32 per warp, one a lane) become
 * vectors. */
static const xgpu_gemm_params mma16_gpu = {128, 128, 32, 64, 32, 8, XGPU_GEMM_FRAGMENTS};
static const xgpu_gemm_params mma_tf32_gpu = {128, 128, 16, 64, 32, 4, XGPU_GEMM_FRAGMENTS};
static const xgpu_gemm_params mfma_gpu = {128, 128, 16, 64, 64, 8, XGPU_GEMM_FRAGMENTS};
static const xgpu_gemm_params frag16_gpu = {64, 64, 16, 32, 32, 8, XGPU_GEMM_FRAGMENTS};
static const xgpu_gemm_params frag_tf32_gpu = {64, 64, 8, 32, 32, 4, XGPU_GEMM_FRAGMENTS};
static const xgpu_gemm_params frag16_cpu = {64, 64, 16, 64, 32, 8, XGPU_GEMM_FRAGMENTS};
static const xgpu_gemm_params frag_tf32_cpu = {64, 64, 8, 64, 32, 4, XGPU_GEMM_FRAGMENTS};
/* One warp, one fragment: for devices too small for the above. */
static const xgpu_gemm_params small16 = {16, 8, 16, 16, 8, 1, XGPU_GEMM_FRAGMENTS};
static const xgpu_gemm_params small_tf32 = {16, 8, 8, 16, 8, 1, XGPU_GEMM_FRAGMENTS};
static const xgpu_gemm_params small_mfma = {32, 32, 8, 32, 32, 1, XGPU_GEMM_FRAGMENTS};

void xgpu__gemm_mma_builtin(const xgpu_device_info *info, xgpu_dtype in, const char *path,
                            xgpu_gemm_params *p) {
    bool tf32 = in == XGPU_F32, cpu = info->type == XGPU_DEVICE_TYPE_CPU;
    const xgpu_gemm_params *small = tf32 ? &small_tf32 : &small16;
    if (is_mfma(path)) {
        *p = mfma_gpu;
        small = &small_mfma;
    } else if (path && !strcmp(path, "mma.sync")) {
        *p = tf32 ? mma_tf32_gpu : mma16_gpu;
    } else if (cpu) {
        *p = tf32 ? frag_tf32_cpu : frag16_cpu;
    } else {
        *p = tf32 ? frag_tf32_gpu : frag16_gpu;
    }
    if (xgpu__gemm_mma_check_params(p, info, in, path, "xgpu_gemm") != XGPU_SUCCESS) {
        xgpu__clear_error();
        *p = *small;
    }
}

/* The registers a lane needs, estimated as the GPU family's check does:
 * accumulators, one warp tile's A and B fragments, the next K step's
 * elements in flight, and XGPU__GEMM_GPU_REG_OVERHEAD. */
static uint64_t lane_registers(const xgpu_gemm_params *p, xgpu_dtype in, frag_shape s) {
    uint64_t threads = group_size(p, s);
    uint64_t acc = (uint64_t)p->work_m * p->work_n / s.lanes;
    uint64_t frags =
        (uint64_t)(p->work_m / s.fm) * s.a_regs + (uint64_t)(p->work_n / s.fn) * s.b_regs;
    uint64_t loads = (uint64_t)(p->tile_m + p->tile_n) * p->tile_k * elem_size(in) / 4 / threads;
    return acc + frags + loads + XGPU__GEMM_GPU_REG_OVERHEAD;
}

xgpu_status xgpu__gemm_mma_check_params(const xgpu_gemm_params *p, const xgpu_device_info *info,
                                        xgpu_dtype in, const char *path, const char *func) {
    if (in != XGPU_F16 && in != XGPU_BF16 && in != XGPU_F32) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: the fragment GEMM multiplies f16, bf16 or tf32 (f32), not %s", func,
                          xgpu_dtype_name(in));
    }
    if (!known_path(path) || (is_mfma(path) && in == XGPU_F32)) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: the fragment GEMM has no path '%s' for %s (mma.sync: f16, bf16, "
                          "tf32; mfma and fragments-mfma: f16, bf16; fragments: all three)",
                          func, path ? path : "(null)",
                          in == XGPU_F32 ? "tf32" : xgpu_dtype_name(in));
    }
    if (p->contiguous != XGPU_GEMM_FRAGMENTS) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: contiguous %u: the fragment GEMM's parameters have contiguous = %u "
                          "(XGPU_GEMM_FRAGMENTS)",
                          func, p->contiguous, XGPU_GEMM_FRAGMENTS);
    }
    const uint32_t fields[] = {p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (!fields[i] || fields[i] > XGPU__GEMM_PARAM_MAX) {
            return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                              "%s: params %u,%u,%u,%u,%u: each must be 1..%d", func, p->tile_m,
                              p->tile_n, p->tile_k, p->work_m, p->work_n, XGPU__GEMM_PARAM_MAX);
        }
    }
    frag_shape s = shape_of(in, path);
    if (p->work_m % s.fm || p->work_n % s.fn || p->tile_m % p->work_m || p->tile_n % p->work_n ||
        p->tile_k % s.fk) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: params %u,%u,%u,%u,%u: on %s the warp tile (work_m x work_n) must "
                          "be made of %u x %u fragments, the group tile of warp tiles, and tile_k "
                          "a multiple of %u",
                          func, p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n, path, s.fm,
                          s.fn, s.fk);
    }
    uint32_t vw = p->vector_width ? p->vector_width : 1;
    if ((vw != 1 && vw != 2 && vw != 4 && vw != 8) || vw * elem_size(in) > 16) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: vector_width %u is not 1, 2, 4 or 8 elements of at most 16 bytes",
                          func, vw);
    }
    uint64_t threads = group_size(p, s);
    if ((uint64_t)p->tile_m * p->tile_k % (threads * vw) ||
        (uint64_t)p->tile_n * p->tile_k % (threads * vw) || p->tile_m % vw || p->tile_n % vw ||
        p->tile_k % vw) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: params %u,%u,%u,%u,%u,%u: the group of %llu work-items times the "
                          "vector width must divide both tiles (%u and %u elements), and the "
                          "tiles' sides the vector width",
                          func, p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n, vw,
                          (unsigned long long)threads, p->tile_m * p->tile_k,
                          p->tile_n * p->tile_k);
    }
    uint64_t regs = lane_registers(p, in, s);
    if (regs > XGPU__GEMM_GPU_REGS_PER_ITEM || regs * threads > XGPU__GEMM_GPU_REGS_PER_GROUP) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: params %u,%u,%u,%u,%u: the fragment GEMM needs about %llu "
                          "registers per work-item, %llu for the group; GPUs have %d and %d",
                          func, p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n,
                          (unsigned long long)regs, (unsigned long long)(regs * threads),
                          XGPU__GEMM_GPU_REGS_PER_ITEM, XGPU__GEMM_GPU_REGS_PER_GROUP);
    }
    uint64_t local = local_bytes(p, in, path, s);
    uint64_t local_max =
        info->local_mem_static_bytes ? info->local_mem_static_bytes : info->local_mem_bytes;
    if ((info->max_group_size && threads > info->max_group_size) ||
        (local_max && local > local_max)) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: params %u,%u,%u,%u,%u on %s need %llu work-items and %llu bytes "
                          "of local memory; the device allows %llu and %llu",
                          func, p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n, path,
                          (unsigned long long)threads, (unsigned long long)local,
                          (unsigned long long)info->max_group_size, (unsigned long long)local_max);
    }
    return XGPU_SUCCESS;
}

static const char *in_define(xgpu_dtype in) {
    return in == XGPU_F16 ? "MMA_IN_F16" : (in == XGPU_BF16 ? "MMA_IN_BF16" : "MMA_IN_TF32");
}

static const char *path_define(const char *path) {
    if (is_mfma_emulated(path)) {
        return "MMA_PATH_MFMA_FRAGMENTS";
    }
    return is_mfma(path)
               ? "MMA_PATH_MFMA"
               : (path && !strcmp(path, "mma.sync") ? "MMA_PATH_MMASYNC" : "MMA_PATH_FRAGMENTS");
}

void xgpu__gemm_mma_options(xgpu_dtype in, xgpu_dtype out, const char *path,
                            const xgpu_gemm_params *p, char *buf, size_t size) {
    snprintf(buf, size, "-D%s -D%s -D%s -DTSM=%u -DTSN=%u -DTSK=%u -DWTM=%u -DWTN=%u -DVW=%u",
             in_define(in), out == in && in != XGPU_F32 ? "MMA_OUT_IN" : "MMA_OUT_F32",
             path_define(path), p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n,
             p->vector_width ? p->vector_width : 1);
}
