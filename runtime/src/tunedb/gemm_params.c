/* GEMM's launch parameters: the built-in defaults per device class, the
 * check that a set suits the kernel and the device, XGPU_GEMM_PARAMS, and
 * xgpu_gemm_default_params. */
#include "tunedb_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CPU devices load GEMM operands one element at a time: the CPU defaults
 * below were measured that way on pocl. */
#define CPU_VW 1

/* Defaults per device class, measured rather than guessed. CPUs: 128x256x16
 * tiles of 16x64 adjacent elements per work-item (a row of 64 columns
 * becomes vectors), the tuner's winner for small problems on pocl on an
 * AMD EPYC host and within 2% of the large one's; on pocl on an Intel
 * Xeon host it ran 1.5-1.7x faster at SGEMM 2048 and 1.7-2.3x at DGEMM
 * 1024 than the earlier 128x128x16 with 32x8 strided (fp32) and 64x64x16
 * with 16x8 (fp64), which stay as the fallback for a device with less
 * local memory (fp64's tiles take 49 KiB). GPUs get the GPU family with
 * 256 work-items of 8x8 (fp32, fp16 storage) or 4x4 (fp64) each: 32 KiB
 * of local memory for the two K steps, under the 48 KiB a kernel's
 * fixed-size local arrays may take on CUDA. */
static const xgpu_gemm_params cpu_params = {128, 256, 16, 16, 64, CPU_VW, 1};
static const xgpu_gemm_params cpu_params_f64 = {128, 256, 16, 16, 64, 1, 1};
static const xgpu_gemm_params cpu_fallback = {128, 128, 16, 32, 8, CPU_VW, 0};
static const xgpu_gemm_params cpu_fallback_f64 = {64, 64, 16, 16, 8, 1, 0};
static const xgpu_gemm_params gpu_params = {128, 128, 16, 8, 8, 4, XGPU_GEMM_GPU};
static const xgpu_gemm_params gpu_params_f64 = {64, 64, 16, 4, 4, 2, XGPU_GEMM_GPU};
/* CPU runtimes that vectorise across work-items (xgpu__tune_cpu_simt)
 * and cannot be told to run one work-item per thread run the GPU family
 * as they run a GPU's lanes (on Intel's CPU runtime, 2 cores of an
 * AVX-512 Xeon, SGEMM 1024 at 43.8 GFLOP/s against CLBlast's 36.8 and the
 * CPU family's 10.5; DGEMM with 128x128x8 at 26.5 against CLBlast's 26.2,
 * docs/results/2026-12-02-cpu-opencl-vectors; on an AMD EPYC host 20-29
 * against 42-47). Those that can (items_unvectorised_hint: Intel's) take
 * the register family below: on the AMD EPYC host SGEMM 1024 at 182-194
 * GFLOP/s, 2048 at 179, DGEMM 1024 at 89-94
 * (docs/results/2026-12-04-intel-cpu-runtime). */
static const xgpu_gemm_params simt_cpu_params = {128, 256, 16, 8, 16, 4, XGPU_GEMM_GPU};
static const xgpu_gemm_params simt_cpu_params_f64 = {128, 128, 8, 8, 8, 2, XGPU_GEMM_GPU};
/* pocl's CPU devices (one work-item at a time on a core's vectors), and
 * CPU runtimes that run a kernel so when it asks (Intel's), get the
 * register family: blocks of 6 rows by 4 vectors of 16 floats (24 of
 * AVX-512's 32 registers) or 4 of 8 doubles, 16 blocks per work-item
 * sharing a block of B 512 (f32) or 256 (f64) deep. With 8-float vectors
 * (AVX2) a block is 6 rows by one 16-float vector (12 of 16 registers;
 * not measured). On pocl, 2 cores of an AVX-512 Xeon, these ran SGEMM
 * 1024 and 2048 at 175 and 213 GFLOP/s and DGEMM 1024 at 83-112, against
 * 31 and 14 for the CPU family's former default in the same run, and
 * ahead of 8 blocks (48 rows) and K blocks of 256
 * (docs/results/2026-12-03-cpu-gemm-registers). */
static const xgpu_gemm_params reg_params = {96, 64, 512, 6, 64, 1, XGPU_GEMM_REGISTERS};
static const xgpu_gemm_params reg_params_f64 = {96, 32, 256, 6, 32, 1, XGPU_GEMM_REGISTERS};
static const xgpu_gemm_params reg_params_avx2 = {96, 16, 256, 6, 16, 1, XGPU_GEMM_REGISTERS};
static const xgpu_gemm_params reg_params_avx2_f64 = {96, 8, 256, 6, 8, 1, XGPU_GEMM_REGISTERS};
/* For devices whose groups or local memory are too small for the above. */
static const xgpu_gemm_params small_params = {32, 32, 8, 4, 4, 1, 0};

/* The vector width the kernel is built with: f16 loads stay scalar, f64
 * vectors hold two. */
uint32_t xgpu__gemm_vector_width(xgpu_dtype dtype, const xgpu_gemm_params *p) {
    uint32_t vw = p->vector_width ? p->vector_width : 1;
    if (dtype == XGPU_F16) {
        return 1;
    }
    if (dtype == XGPU_F64 && vw > 2) {
        return 2;
    }
    return vw;
}

size_t xgpu__gemm_param_sets(bool cpu, xgpu_dtype dtype, xgpu_gemm_params *out, size_t max) {
    bool f64 = dtype == XGPU_F64, reg = cpu && (dtype == XGPU_F32 || f64);
    const xgpu_gemm_params *sets[4] = {
        cpu ? (f64 ? &cpu_params_f64 : &cpu_params) : (f64 ? &gpu_params_f64 : &gpu_params),
        &small_params, cpu ? (f64 ? &simt_cpu_params_f64 : &simt_cpu_params) : NULL,
        reg ? (f64 ? &reg_params_f64 : &reg_params) : NULL};
    size_t n = 0;
    for (size_t i = 0; i < 4 && n < max; i++) {
        if (sets[i]) {
            out[n++] = *sets[i];
        }
    }
    return n;
}

/* The GPU family's own rules (see kernels/gemm.xgpu): register blocks of
 * whole local vectors (4 elements, 2 for f64), warp tiles of 4 x 8
 * work-items or the whole group when it is smaller, and registers within
 * what one thread and one group may hold (255 and 65536 32-bit registers
 * on NVIDIA and AMD GPUs). The estimate counts the accumulators, the two
 * fragment buffers, the next K step's elements and 40 for addresses and
 * indices; ptxas's counts stay below it (tests/compile_matrix). */
static xgpu_status check_gpu_family(const xgpu_gemm_params *p, size_t elem, uint64_t threads,
                                    const char *who) {
    uint32_t lv = elem == 8 ? 2 : 4;
    uint32_t rm = p->tile_m / p->work_m, rn = p->tile_n / p->work_n;
    if (p->work_m % lv || p->work_n % lv || (rm > 4 && rm % 4) || (rn > 8 && rn % 8)) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: params %u,%u,%u,%u,%u: the GPU family needs work_m and work_n "
                          "multiples of %u and a group of (tile_m/work_m) x (tile_n/work_n) = "
                          "%u x %u work-items whose sides are multiples of 4 and 8 or smaller",
                          who, p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n, lv, rm, rn);
    }
    uint64_t words = elem / 4;
    uint64_t regs = words * ((uint64_t)p->work_m * p->work_n + 2 * (p->work_m + p->work_n) +
                             (uint64_t)p->tile_k * (p->tile_m + p->tile_n) / threads) +
                    XGPU__GEMM_GPU_REG_OVERHEAD;
    if (regs > XGPU__GEMM_GPU_REGS_PER_ITEM || regs * threads > XGPU__GEMM_GPU_REGS_PER_GROUP) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: params %u,%u,%u,%u,%u: the GPU family needs about %llu registers "
                          "per work-item, %llu for the group; GPUs have %d and %d",
                          who, p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n,
                          (unsigned long long)regs, (unsigned long long)(regs * threads),
                          XGPU__GEMM_GPU_REGS_PER_ITEM, XGPU__GEMM_GPU_REGS_PER_GROUP);
    }
    return XGPU_SUCCESS;
}

/* A group of `threads` work-items with `local` bytes of fixed-size local
 * arrays (the static limit applies) on this device. */
static xgpu_status check_group_fits(const xgpu_gemm_params *p, const xgpu_device_info *info,
                                    uint64_t threads, uint64_t local, const char *who) {
    uint64_t local_max =
        info->local_mem_static_bytes ? info->local_mem_static_bytes : info->local_mem_bytes;
    if ((info->max_group_size && threads > info->max_group_size) ||
        (local_max && local > local_max)) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: params %u,%u,%u,%u,%u need %llu work-items and %llu bytes of "
                          "local memory; the device allows %llu and %llu",
                          who, p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n,
                          (unsigned long long)threads, (unsigned long long)local,
                          (unsigned long long)info->max_group_size, (unsigned long long)local_max);
    }
    return XGPU_SUCCESS;
}

/* The register family's rules (kernels/gemm_regs.xgpu): OpenCL C, whole
 * vectors of work_n (16 floats, 8 doubles), scalar loads (vector_width 1),
 * a register block of at most XGPU__GEMM_REG_MAX_ACC accumulators, and a
 * group of tile_n / work_n work-items sharing op(B)'s tile_k x tile_n
 * block in local memory. */
static xgpu_status check_reg_family(const xgpu_gemm_params *p, const xgpu_device_info *info,
                                    size_t elem, const char *who) {
    if (strcmp(info->backend, "opencl") != 0) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: the register family (contiguous %u) is OpenCL C; this device's "
                          "backend is %s",
                          who, XGPU_GEMM_REGISTERS, info->backend[0] ? info->backend : "unknown");
    }
    uint32_t lanes = elem == 8 ? 8 : 16;
    uint32_t vw = p->vector_width ? p->vector_width : 1;
    char why[96] = "";
    if (p->work_n % lanes) {
        snprintf(why, sizeof why, "work_n %u is not a multiple of %u (its vectors)", p->work_n,
                 lanes);
    } else if (vw != 1) {
        snprintf(why, sizeof why, "vector_width %u is not 1 (its loads are whole vectors)", vw);
    } else if ((uint64_t)p->work_m * p->work_n > XGPU__GEMM_REG_MAX_ACC) {
        snprintf(why, sizeof why, "work_m x work_n = %llu is over %d",
                 (unsigned long long)p->work_m * p->work_n, XGPU__GEMM_REG_MAX_ACC);
    }
    if (why[0]) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: params %u,%u,%u,%u,%u,%u: the register family's %s", who, p->tile_m,
                          p->tile_n, p->tile_k, p->work_m, p->work_n, vw, why);
    }
    uint64_t threads = p->tile_n / p->work_n, local = (uint64_t)p->tile_k * p->tile_n * elem;
    return check_group_fits(p, info, threads, local, who);
}

/* `who` starts each message: the API function, and the variable when the
 * parameters came from it. */
xgpu_status xgpu__gemm_check_params(const xgpu_gemm_params *p, const xgpu_device_info *info,
                                    size_t elem, const char *who) {
    const uint32_t fields[] = {p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (fields[i] > XGPU__GEMM_PARAM_MAX) {
            return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                              "%s: params %u,%u,%u,%u,%u: each must be 1..%d", who, p->tile_m,
                              p->tile_n, p->tile_k, p->work_m, p->work_n, XGPU__GEMM_PARAM_MAX);
        }
    }
    if (!p->tile_m || !p->tile_n || !p->tile_k || !p->work_m || !p->work_n ||
        p->tile_m % p->work_m || p->tile_n % p->work_n) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: params %u,%u,%u,%u,%u: tiles must be multiples of the work per "
                          "item, none zero",
                          who, p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n);
    }
    if (p->contiguous == XGPU_GEMM_REGISTERS) {
        return check_reg_family(p, info, elem, who);
    }
    if (p->contiguous > XGPU_GEMM_GPU) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: contiguous %u is not 0 or 1 (the CPU family), 2 (the GPU family) "
                          "or 4 (the register family)",
                          who, p->contiguous);
    }
    uint32_t vw = p->vector_width ? p->vector_width : 1;
    if (vw != 1 && vw != 2 && vw != 4) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: vector_width %u is not 1, 2 or 4", who,
                          vw);
    }
    uint64_t threads = (uint64_t)(p->tile_m / p->work_m) * (p->tile_n / p->work_n);
    if ((uint64_t)p->tile_m * p->tile_k % (threads * vw) ||
        (uint64_t)p->tile_k * p->tile_n % (threads * vw) || p->tile_m % vw || p->tile_n % vw ||
        p->tile_k % vw) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: params %u,%u,%u,%u,%u,%u: the group of %llu work-items times "
                          "the vector width must divide both tiles (%u and %u elements), and "
                          "the tiles' sides the vector width",
                          who, p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n, vw,
                          (unsigned long long)threads, (unsigned)(p->tile_m * p->tile_k),
                          (unsigned)(p->tile_k * p->tile_n));
    }
    bool gpu = p->contiguous == XGPU_GEMM_GPU;
    if (gpu) {
        xgpu_status st = check_gpu_family(p, elem, threads, who);
        if (st != XGPU_SUCCESS) {
            return st;
        }
    }
    /* The tiles are fixed-size local arrays: the static limit applies. The
     * CPU family pads each row by one; the GPU family holds two K steps. */
    uint64_t local = gpu ? 2 * (uint64_t)p->tile_k * ((uint64_t)p->tile_m + p->tile_n) * elem
                         : (uint64_t)p->tile_k * ((uint64_t)p->tile_m + 1 + p->tile_n + 1) * elem;
    return check_group_fits(p, info, threads, local, who);
}

/* XGPU_GEMM_PARAMS="tile_m,tile_n,tile_k,work_m,work_n[,vector_width[,contiguous]]",
 * or as the tuning database and xgpu_tune_lookup spell them
 * ("tm=128,tn=128,tk=16,wm=32,wn=8,vw=1,contig=1", every field). *found
 * is false when it is unset or empty (as XGPU_REDUCE_PARAMS); a malformed
 * value is an error naming the variable, never half-read. */
xgpu_status xgpu__gemm_env_params(xgpu_gemm_params *p, bool *found, const char *who) {
    const char *v = getenv("XGPU_GEMM_PARAMS");
    if (v && !*v) {
        v = NULL;
    }
    *found = v != NULL;
    char why[160];
    if (v && strchr(v, '=')) {
        xgpu__tune_values values;
        if (xgpu__tune_parse(XGPU__TK_GEMM, v, &values, why, sizeof why)) {
            *p = xgpu__tune_to_gemm(&values);
            return XGPU_SUCCESS;
        }
        *found = false;
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: XGPU_GEMM_PARAMS='%.64s' is malformed: %s", who, v, why);
    }
    if (v && !xgpu__gemm_params_parse(v, p, why, sizeof why)) {
        *found = false;
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: XGPU_GEMM_PARAMS='%.64s' is malformed: %s", who, v, why);
    }
    return XGPU_SUCCESS;
}

size_t xgpu__gemm_local_elem(xgpu_dtype dtype) {
    return dtype == XGPU_F64 ? 8 : 4; /* local memory holds fp32 for f16 */
}

xgpu_status xgpu__gemm_env_checked(const xgpu_device_info *info, xgpu_dtype dtype, const char *func,
                                   xgpu_gemm_params *p, bool *found) {
    xgpu_status st = xgpu__gemm_env_params(p, found, func);
    if (st != XGPU_SUCCESS || !*found) {
        return st;
    }
    char who[96];
    snprintf(who, sizeof who, "%s: XGPU_GEMM_PARAMS", func);
    /* f16 and bf16 run the fragment family on the device's own path. */
    const char *path =
        xgpu__gemm_frag_dtype(dtype) ? xgpu__gemm_mma_path(info, dtype, false) : NULL;
    st = path && p->contiguous == XGPU_GEMM_FRAGMENTS
             ? xgpu__gemm_mma_check_params(p, info, dtype, path, who)
             : xgpu__gemm_check_params(p, info, xgpu__gemm_local_elem(dtype), who);
    if (st != XGPU_SUCCESS) {
        *found = false;
    }
    return st;
}

xgpu_status xgpu_gemm_default_params(const xgpu_device *device, xgpu_dtype dtype,
                                     xgpu_gemm_params *params) {
    XGPU__CHECK_OR_RETURN(device, XGPU__MAGIC_DEVICE, __func__, "device");
    if (!params) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: params is NULL", __func__);
    }
    const xgpu_device_info *info = xgpu__device_info(device);
    bool from_env = false;
    xgpu_status st = xgpu__gemm_env_checked(info, dtype, __func__, params, &from_env);
    if (st != XGPU_SUCCESS || from_env) {
        return st;
    }
    const char *path =
        xgpu__gemm_frag_dtype(dtype) ? xgpu__gemm_mma_path(info, dtype, false) : NULL;
    if (path) {
        xgpu__gemm_mma_builtin(info, dtype, path, params);
    } else {
        xgpu__gemm_builtin(info, dtype, params);
    }
    return XGPU_SUCCESS;
}

/* The register family's built-in values for `info`, or NULL where it
 * does not apply (see xgpu__gemm_builtin). */
static const xgpu_gemm_params *reg_builtin(const xgpu_device_info *info, xgpu_dtype dtype) {
    bool f64 = dtype == XGPU_F64;
    if (info->type != XGPU_DEVICE_TYPE_CPU ||
        (xgpu__tune_cpu_simt(info) && !info->items_unvectorised_hint) ||
        strcmp(info->backend, "opencl") != 0 || (dtype != XGPU_F32 && !f64) ||
        info->native_vector_width_f32 < 8) {
        return NULL;
    }
    bool wide = info->native_vector_width_f32 >= 16;
    return wide ? (f64 ? &reg_params_f64 : &reg_params)
                : (f64 ? &reg_params_avx2_f64 : &reg_params_avx2);
}

void xgpu__gemm_builtin(const xgpu_device_info *info, xgpu_dtype dtype, xgpu_gemm_params *params) {
    bool cpu = info->type == XGPU_DEVICE_TYPE_CPU, gpu = info->type == XGPU_DEVICE_TYPE_GPU;
    bool f64 = dtype == XGPU_F64;
    /* Neither (an accelerator, an emulator): the small set every device
     * runs. */
    bool simt = xgpu__tune_cpu_simt(info);
    const xgpu_gemm_params *reg = reg_builtin(info, dtype);
    *params = reg    ? *reg
              : simt ? (f64 ? simt_cpu_params_f64 : simt_cpu_params)
              : cpu  ? (f64 ? cpu_params_f64 : cpu_params)
              : gpu  ? (f64 ? gpu_params_f64 : gpu_params)
                     : small_params;
    if (reg && xgpu__gemm_check_params(params, info, xgpu__gemm_local_elem(dtype), "xgpu_gemm") !=
                   XGPU_SUCCESS) {
        xgpu__clear_error();
        *params = f64 ? cpu_params_f64 : cpu_params;
    }
    if (cpu && xgpu__gemm_check_params(params, info, xgpu__gemm_local_elem(dtype), "xgpu_gemm") !=
                   XGPU_SUCCESS) {
        xgpu__clear_error();
        *params = f64 ? cpu_fallback_f64 : cpu_fallback;
    }
    if (xgpu__gemm_check_params(params, info, xgpu__gemm_local_elem(dtype), "xgpu_gemm") !=
        XGPU_SUCCESS) {
        xgpu__clear_error();
        *params = small_params;
    }
}
