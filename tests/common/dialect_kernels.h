/* Kernels in the xgpu dialect that exercise most of it (global and local
 * memory, local-memory arguments, barriers, integer and float atomics in
 * both memories, subgroups, fp64), compiled by the CUDA and HIP
 * compile-path tests. */
#ifndef XGPU_TEST_DIALECT_KERNELS_H
#define XGPU_TEST_DIALECT_KERNELS_H

static const char *const dialect_test_kernels =
    "XGPU_KERNEL void vector_add(XGPU_GLOBAL const float *a, XGPU_GLOBAL const float *b,\n"
    "                            XGPU_GLOBAL float *c, xgpu_u32 n) {\n"
    "    xgpu_u32 i = xgpu_global_id(0);\n"
    "    if (i < n) c[i] = a[i] + b[i] * SCALE;\n"
    "}\n"
    "XGPU_KERNEL void group_sum(XGPU_GLOBAL const xgpu_i32 *in, XGPU_GLOBAL xgpu_i32 *out,\n"
    "                           XGPU_LOCAL_ARG(xgpu_i32, scratch), xgpu_u32 n) {\n"
    "    XGPU_LOCAL_BIND(xgpu_i32, scratch);\n"
    "    xgpu_u32 lid = xgpu_local_id(0), gid = xgpu_global_id(0), ls = xgpu_local_size(0);\n"
    "    scratch[lid] = gid < n ? in[gid] : 0;\n"
    "    xgpu_barrier();\n"
    "    for (xgpu_u32 s = 1; s < ls; s *= 2) {\n"
    "        if (lid % (2 * s) == 0 && lid + s < ls) scratch[lid] += scratch[lid + s];\n"
    "        xgpu_barrier();\n"
    "    }\n"
    "    if (lid == 0) out[xgpu_group_id(0)] = scratch[0];\n"
    "}\n"
    "XGPU_KERNEL void atomics(XGPU_GLOBAL xgpu_i32 *bins, XGPU_GLOBAL float *sum,\n"
    "                         XGPU_GLOBAL const float *x) {\n"
    "    XGPU_LOCAL float local_sum;\n"
    "    if (xgpu_local_id(0) == 0) local_sum = 0.0f;\n"
    "    xgpu_barrier();\n"
    "    xgpu_atomic_add_i32(&bins[xgpu_global_id(0) % 7], 1);\n"
    "    xgpu_atomic_max_i32(&bins[7], (xgpu_i32)xgpu_global_id(0));\n"
    "    xgpu_atomic_add_f32_local(&local_sum, x[xgpu_global_id(0)]);\n"
    "    xgpu_barrier();\n"
    "    if (xgpu_local_id(0) == 0) xgpu_atomic_add_f32(sum, local_sum);\n"
    "}\n"
    "XGPU_KERNEL void local_atomics(XGPU_GLOBAL const xgpu_u32 *in, XGPU_GLOBAL xgpu_u32 *hist,\n"
    "                               XGPU_GLOBAL xgpu_u32 *umm, XGPU_GLOBAL xgpu_i32 *imm) {\n"
    "    XGPU_LOCAL xgpu_u32 bins[16];\n"
    "    XGPU_LOCAL xgpu_u32 umin, umax;\n"
    "    XGPU_LOCAL xgpu_i32 imin, imax;\n"
    "    xgpu_u32 v = in[xgpu_global_id(0)], lid = xgpu_local_id(0);\n"
    "    if (lid < 16) bins[lid] = 0u;\n"
    "    if (lid == 0) { umin = 0xffffffffu; umax = 0u; imin = 0x7fffffff; imax = -1; }\n"
    "    xgpu_barrier();\n"
    "    xgpu_atomic_add_u32_local(&bins[v % 16u], 1u);\n"
    "    xgpu_atomic_min_u32_local(&umin, v);\n"
    "    xgpu_atomic_max_u32_local(&umax, v);\n"
    "    xgpu_atomic_min_i32_local(&imin, (xgpu_i32)v);\n"
    "    xgpu_atomic_max_i32_local(&imax, (xgpu_i32)v);\n"
    "    xgpu_barrier();\n"
    "    if (lid < 16) xgpu_atomic_add_u32(&hist[lid], bins[lid]);\n"
    "    if (lid == 0) {\n"
    "        xgpu_atomic_min_u32(&umm[0], umin);\n"
    "        xgpu_atomic_max_u32(&umm[1], umax);\n"
    "        xgpu_atomic_min_i32(&imm[0], imin);\n"
    "        xgpu_atomic_max_i32(&imm[1], imax);\n"
    "    }\n"
    "}\n"
    "#if XGPU_HAS_SUBGROUPS && XGPU_HAS_FP64\n"
    "XGPU_KERNEL void warp_sum(XGPU_GLOBAL const float *x, XGPU_GLOBAL double *out) {\n"
    "    float v = xgpu_subgroup_reduce_add_f32(x[xgpu_global_id(0)]);\n"
    "    if (xgpu_subgroup_local_id() == 0) out[xgpu_global_id(0) / xgpu_subgroup_size()] = v;\n"
    "}\n"
    "#endif\n";

/* The dynamic local-memory block must be aligned for double and vector
 * types whatever fixed-size shared data the kernel declares (CUDA, HIP). */
static const char *const dialect_aligned_local_kernel =
    "static_assert(__alignof__(xgpu__dynamic_local) >= 16, \"dynamic local block alignment\");\n"
    "XGPU_KERNEL void k(XGPU_GLOBAL double *out, XGPU_LOCAL_ARG(double, d)) {\n"
    "    XGPU_LOCAL_BIND(double, d);\n"
    "    XGPU_LOCAL float fixed[1];\n"
    "    fixed[0] = 1.0f;\n"
    "    d[xgpu_local_id(0)] = fixed[0];\n"
    "    out[xgpu_global_id(0)] = d[0];\n"
    "}\n";

#endif
