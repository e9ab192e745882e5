/* xgpu kernel dialect prelude. The runtime prepends this file, after one of
 * XGPU_DIALECT_OPENCL / XGPU_DIALECT_CUDA / XGPU_DIALECT_HIP, to every
 * program. See kernels/README.md for the dialect. */
#ifndef XGPU_PRELUDE
#define XGPU_PRELUDE 1

/* ======================================================================= */
#if defined(XGPU_DIALECT_OPENCL)

#define XGPU_KERNEL __kernel
#define XGPU_GLOBAL __global
#define XGPU_LOCAL __local
#define XGPU_CONSTANT __constant
#define XGPU_DEVICE_FN static inline
#define XGPU_RESTRICT restrict
#define XGPU_LOCAL_PTR __local
#define XGPU_LAUNCH_BOUNDS(threads)
/* Between XGPU_KERNEL and void: each work-item of this kernel streams a
 * contiguous chunk of its own, in vector types where it wants vectors, so
 * a runtime that would vectorise across work-items (Intel's CPU runtime,
 * which offers cl_intel_vec_len_hint) should run one work-item per thread
 * as written: across work-items, every load becomes a gather. */
#if defined(cl_intel_vec_len_hint)
#define XGPU_ITEMS_UNVECTORISED __attribute__((intel_vec_len_hint(1)))
#else
#define XGPU_ITEMS_UNVECTORISED
#endif
#define XGPU_LOCAL_ARG(type, name) __local type *name
#define XGPU_LOCAL_BIND(type, name)
/* A hint to bring the cache line at p in ahead of its load: clang's
 * builtin, a prefetch instruction on x86, where the backend says the
 * device is a CPU (XGPU__CL_PREFETCH) and the compiler has the builtin;
 * elsewhere nothing (oclgrind, for one, cannot run it). OpenCL's own
 * prefetch() compiled to nothing on pocl and on Intel's CPU runtime.
 * Pass only addresses inside the buffer. */
#if defined(XGPU__CL_PREFETCH) && XGPU__CL_PREFETCH && defined(__has_builtin)
#if __has_builtin(__builtin_prefetch)
#define XGPU_PREFETCH(p) __builtin_prefetch(p)
#endif
#endif
#if !defined(XGPU_PREFETCH)
#define XGPU_PREFETCH(p) ((void)0)
#endif

typedef char xgpu_i8;
typedef uchar xgpu_u8;
typedef short xgpu_i16;
typedef ushort xgpu_u16;
typedef int xgpu_i32;
typedef uint xgpu_u32;
typedef long xgpu_i64;
typedef ulong xgpu_u64;
typedef float xgpu_f32;

#define xgpu_global_id(d) ((xgpu_u32)get_global_id(d))
#define xgpu_local_id(d) ((xgpu_u32)get_local_id(d))
#define xgpu_group_id(d) ((xgpu_u32)get_group_id(d))
#define xgpu_local_size(d) ((xgpu_u32)get_local_size(d))
#define xgpu_num_groups(d) ((xgpu_u32)get_num_groups(d))
#define xgpu_global_size(d) ((xgpu_u32)get_global_size(d))
/* The ids as 64-bit values, never narrowed: in an index, a compiler that
 * vectorises across work-items then sees consecutive work-items at
 * consecutive addresses (one vector load); through the 32-bit ids above
 * (a truncation, then a widening) Intel's CPU runtime gathered. */
#define xgpu_local_id64(d) ((xgpu_u64)get_local_id(d))
#define xgpu_global_id64(d) ((xgpu_u64)get_global_id(d))

#define xgpu_barrier() barrier(CLK_LOCAL_MEM_FENCE)
#define xgpu_mem_fence_global() mem_fence(CLK_GLOBAL_MEM_FENCE)
#define xgpu_barrier_global() barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)

#define xgpu_atomic_add_i32(p, v) atomic_add((volatile __global int *)(p), (v))
#define xgpu_atomic_add_u32(p, v) atomic_add((volatile __global uint *)(p), (v))
#define xgpu_atomic_min_i32(p, v) atomic_min((volatile __global int *)(p), (v))
#define xgpu_atomic_max_i32(p, v) atomic_max((volatile __global int *)(p), (v))
#define xgpu_atomic_xchg_i32(p, v) atomic_xchg((volatile __global int *)(p), (v))
#define xgpu_atomic_cas_i32(p, cmp, v) atomic_cmpxchg((volatile __global int *)(p), (cmp), (v))
#define xgpu_atomic_min_u32(p, v) atomic_min((volatile __global uint *)(p), (uint)(v))
#define xgpu_atomic_max_u32(p, v) atomic_max((volatile __global uint *)(p), (uint)(v))
#define xgpu_atomic_add_i32_local(p, v) atomic_add((volatile __local int *)(p), (v))
#define xgpu_atomic_add_u32_local(p, v) atomic_add((volatile __local uint *)(p), (uint)(v))
#define xgpu_atomic_min_i32_local(p, v) atomic_min((volatile __local int *)(p), (int)(v))
#define xgpu_atomic_max_i32_local(p, v) atomic_max((volatile __local int *)(p), (int)(v))
#define xgpu_atomic_min_u32_local(p, v) atomic_min((volatile __local uint *)(p), (uint)(v))
#define xgpu_atomic_max_u32_local(p, v) atomic_max((volatile __local uint *)(p), (uint)(v))

/* OpenCL 1.2 has no float atomics: compare-and-swap on the bits, once per
 * address space (1.2 has no generic one). */
#define XGPU__DEFINE_ATOMIC_ADD_F32(name, space)                                                   \
    static inline float name(volatile space float *p, float v) {                                   \
        union {                                                                                    \
            uint u;                                                                                \
            float f;                                                                               \
        } old, upd;                                                                                \
        do {                                                                                       \
            old.f = *p;                                                                            \
            upd.f = old.f + v;                                                                     \
        } while (atomic_cmpxchg((volatile space uint *)p, old.u, upd.u) != old.u);                 \
        return old.f;                                                                              \
    }
XGPU__DEFINE_ATOMIC_ADD_F32(xgpu__atomic_add_f32_global, __global)
XGPU__DEFINE_ATOMIC_ADD_F32(xgpu__atomic_add_f32_local, __local)
#define xgpu_atomic_add_f32(p, v) xgpu__atomic_add_f32_global((p), (v))
#define xgpu_atomic_add_f32_local(p, v) xgpu__atomic_add_f32_local((p), (v))

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define XGPU_HAS_FP64 1
typedef double xgpu_f64;
#else
#define XGPU_HAS_FP64 0
#endif
#if defined(cl_khr_fp16)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define XGPU_HAS_FP16 1
typedef half xgpu_f16;
#else
#define XGPU_HAS_FP16 0
#endif

/* Vector loads of N contiguous elements at p + i into dst[0..N-1]; p + i
 * must be aligned to the vector (the caller checks). */
#define xgpu_vload_f32x2(dst, p, i)                                                                \
    do {                                                                                           \
        float2 t_ = vload2(0, (p) + (i));                                                          \
        (dst)[0] = t_.s0;                                                                          \
        (dst)[1] = t_.s1;                                                                          \
    } while (0)
#define xgpu_vload_f32x4(dst, p, i)                                                                \
    do {                                                                                           \
        float4 t_ = vload4(0, (p) + (i));                                                          \
        (dst)[0] = t_.s0;                                                                          \
        (dst)[1] = t_.s1;                                                                          \
        (dst)[2] = t_.s2;                                                                          \
        (dst)[3] = t_.s3;                                                                          \
    } while (0)
#define xgpu_vload_f64x2(dst, p, i)                                                                \
    do {                                                                                           \
        double2 t_ = vload2(0, (p) + (i));                                                         \
        (dst)[0] = t_.s0;                                                                          \
        (dst)[1] = t_.s1;                                                                          \
    } while (0)

/* 16-byte loads and stores: p + i must be 16-byte aligned (the caller
 * checks with xgpu_address). One vector load or store each. */
#define XGPU__VLOAD16_2(dst, p, i, vt)                                                             \
    do {                                                                                           \
        const vt t_ = *(const __global vt *)((p) + (i));                                           \
        (dst)[0] = t_.s0;                                                                          \
        (dst)[1] = t_.s1;                                                                          \
    } while (0)
#define XGPU__VLOAD16_4(dst, p, i, vt)                                                             \
    do {                                                                                           \
        const vt t_ = *(const __global vt *)((p) + (i));                                           \
        (dst)[0] = t_.s0;                                                                          \
        (dst)[1] = t_.s1;                                                                          \
        (dst)[2] = t_.s2;                                                                          \
        (dst)[3] = t_.s3;                                                                          \
    } while (0)
#define xgpu_vload16_f32(dst, p, i) XGPU__VLOAD16_4(dst, p, i, float4)
#define xgpu_vload16_i32(dst, p, i) XGPU__VLOAD16_4(dst, p, i, int4)
#define xgpu_vload16_f64(dst, p, i) XGPU__VLOAD16_2(dst, p, i, double2)
#define xgpu_vload16_i64(dst, p, i) XGPU__VLOAD16_2(dst, p, i, long2)
#define xgpu_vstore16_f32(p, i, src)                                                               \
    vstore4((float4)((src)[0], (src)[1], (src)[2], (src)[3]), 0, (p) + (i))
#define xgpu_vstore16_f64(p, i, src) vstore2((double2)((src)[0], (src)[1]), 0, (p) + (i))
/* A pointer's address as a number (for alignment checks). */
#define xgpu_address(p) ((xgpu_u64)(size_t)(p))

/* Release/acquire atomics at device scope: OpenCL C 2.x, or 3.0 with the
 * acquire/release and device-scope features (the host builds with
 * -cl-std=CL2.0/CL3.0 where the device reports them). Without them, a
 * fence orders only the work-item's own accesses and publishes nothing to
 * other groups: code must not combine groups' results in one launch. */
#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 200 &&                                \
    (__OPENCL_C_VERSION__ < 300 ||                                                                 \
     (defined(__opencl_c_atomic_order_acq_rel) && defined(__opencl_c_atomic_scope_device)))
#define XGPU_HAS_SCOPED_ATOMICS 1
#define xgpu_atomic_add_acq_rel_u32(p, v)                                                          \
    atomic_fetch_add_explicit((volatile __global atomic_uint *)(p), (uint)(v),                     \
                              memory_order_acq_rel, memory_scope_device)
#define xgpu_atomic_store_u32(p, v)                                                                \
    atomic_store_explicit((volatile __global atomic_uint *)(p), (uint)(v), memory_order_relaxed,   \
                          memory_scope_device)
#else
#define XGPU_HAS_SCOPED_ATOMICS 0
#endif

/* fp16 storage, usable without fp16 arithmetic (vload_half is core). */
typedef half xgpu_half;
#define xgpu_half_load(p, i) vload_half((i), (p))
#define xgpu_half_store(p, i, v) vstore_half((v), (i), (p))

/* The OpenCL backend defines XGPU__CL_SUBGROUPS where the device offers
 * the subgroup built-ins to the OpenCL C it builds (cl_khr_subgroups or
 * cl_intel_subgroups): the rule xgpu_device_info.subgroups follows. */
#if defined(XGPU__CL_SUBGROUPS) && XGPU__CL_SUBGROUPS
#define XGPU_HAS_SUBGROUPS 1
#define xgpu_subgroup_size() ((xgpu_u32)get_sub_group_size())
#define xgpu_subgroup_local_id() ((xgpu_u32)get_sub_group_local_id())
#define xgpu_num_subgroups() ((xgpu_u32)get_num_sub_groups())
#define xgpu_subgroup_id() ((xgpu_u32)get_sub_group_id())
#define xgpu_subgroup_reduce_add_f32(v) sub_group_reduce_add((float)(v))
#define xgpu_subgroup_reduce_add_i32(v) sub_group_reduce_add((int)(v))
#define xgpu_subgroup_reduce_min_f32(v) sub_group_reduce_min((float)(v))
#define xgpu_subgroup_reduce_max_f32(v) sub_group_reduce_max((float)(v))
#else
#define XGPU_HAS_SUBGROUPS 0
#endif
#define XGPU_HAS_SUBGROUP_SHUFFLE 0

/* ======================================================================= */
#elif defined(XGPU_DIALECT_CUDA) || defined(XGPU_DIALECT_HIP)

#if defined(XGPU_DIALECT_HIP)
/* hiprtc provides the HIP built-ins without an include. */
#define XGPU__WARP_SIZE warpSize
#else
#define XGPU__WARP_SIZE 32
#endif

#define XGPU_KERNEL extern "C" __global__
#define XGPU_GLOBAL
#define XGPU_LOCAL __shared__
#define XGPU_CONSTANT __constant__
#define XGPU_DEVICE_FN static __device__ __forceinline__
#define XGPU_RESTRICT __restrict__
#define XGPU_LOCAL_PTR /* shared-memory pointers are generic pointers */
/* The most work-items a kernel is launched with: lets the compiler give
 * each one more registers (without it, AMD's compiler assumes 1024 and
 * caps a work-item at 128 VGPRs). */
#define XGPU_LAUNCH_BOUNDS(threads) __launch_bounds__(threads)
#define XGPU_ITEMS_UNVECTORISED
#define XGPU_PREFETCH(p) ((void)0)
#if !defined(INFINITY)
#if defined(XGPU_DIALECT_HIP)
#define INFINITY __builtin_huge_valf()
#else
#define INFINITY __int_as_float(0x7f800000)
#endif
#endif
/* Local-memory parameters: the backend packs every XGPU_LOCAL_ARG into the
 * launch's dynamic shared memory and passes each one's byte offset;
 * XGPU_LOCAL_BIND, first in the kernel body, turns the offset back into a
 * pointer. */
/* Aligned for any element type: local-memory arguments start right after
 * the kernel's fixed-size shared data, and hiprtc aligns an unsigned char
 * block to 1 (NVRTC to 16) unless told. */
extern __shared__ __attribute__((aligned(16))) unsigned char xgpu__dynamic_local[];
#define XGPU_LOCAL_ARG(type, name) unsigned int name##__xgpu_offset
#define XGPU_LOCAL_BIND(type, name)                                                                \
    type *name = reinterpret_cast<type *>(xgpu__dynamic_local + name##__xgpu_offset)

typedef signed char xgpu_i8;
typedef unsigned char xgpu_u8;
typedef short xgpu_i16;
typedef unsigned short xgpu_u16;
typedef int xgpu_i32;
typedef unsigned int xgpu_u32;
typedef long long xgpu_i64;
typedef unsigned long long xgpu_u64;
typedef float xgpu_f32;
typedef double xgpu_f64;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong; /* as glibc declares it: 64-bit on LP64 */

/* threadIdx and friends are uint3/dim3 in CUDA and coordinate objects in
 * HIP: select the member, which both have. */
#define XGPU__XYZ(v, d) ((xgpu_u32)((d) == 0 ? (v).x : ((d) == 1 ? (v).y : (v).z)))
#define xgpu_local_id(d) XGPU__XYZ(threadIdx, d)
#define xgpu_group_id(d) XGPU__XYZ(blockIdx, d)
#define xgpu_local_size(d) XGPU__XYZ(blockDim, d)
#define xgpu_num_groups(d) XGPU__XYZ(gridDim, d)
#define xgpu_global_id(d) (xgpu_group_id(d) * xgpu_local_size(d) + xgpu_local_id(d))
#define xgpu_global_size(d) (xgpu_num_groups(d) * xgpu_local_size(d))
#define xgpu_local_id64(d) ((xgpu_u64)xgpu_local_id(d))
#define xgpu_global_id64(d) ((xgpu_u64)xgpu_group_id(d) * xgpu_local_size(d) + xgpu_local_id(d))

#define xgpu_barrier() __syncthreads()
#define xgpu_mem_fence_global() __threadfence()
#define xgpu_barrier_global()                                                                      \
    do {                                                                                           \
        __threadfence();                                                                           \
        __syncthreads();                                                                           \
    } while (0)

#define xgpu_atomic_add_i32(p, v) atomicAdd((int *)(p), (int)(v))
#define xgpu_atomic_add_u32(p, v) atomicAdd((unsigned int *)(p), (unsigned int)(v))
#define xgpu_atomic_min_i32(p, v) atomicMin((int *)(p), (int)(v))
#define xgpu_atomic_max_i32(p, v) atomicMax((int *)(p), (int)(v))
#define xgpu_atomic_xchg_i32(p, v) atomicExch((int *)(p), (int)(v))
#define xgpu_atomic_cas_i32(p, cmp, v) atomicCAS((int *)(p), (int)(cmp), (int)(v))
#define xgpu_atomic_min_u32(p, v) atomicMin((unsigned int *)(p), (unsigned int)(v))
#define xgpu_atomic_max_u32(p, v) atomicMax((unsigned int *)(p), (unsigned int)(v))
/* Shared-memory pointers are generic: the same functions serve local memory. */
#define xgpu_atomic_add_i32_local(p, v) atomicAdd((int *)(p), (int)(v))
#define xgpu_atomic_add_u32_local(p, v) atomicAdd((unsigned int *)(p), (unsigned int)(v))
#define xgpu_atomic_min_i32_local(p, v) atomicMin((int *)(p), (int)(v))
#define xgpu_atomic_max_i32_local(p, v) atomicMax((int *)(p), (int)(v))
#define xgpu_atomic_min_u32_local(p, v) atomicMin((unsigned int *)(p), (unsigned int)(v))
#define xgpu_atomic_max_u32_local(p, v) atomicMax((unsigned int *)(p), (unsigned int)(v))
#define xgpu_atomic_add_f32(p, v) atomicAdd((float *)(p), (float)(v))
#define xgpu_atomic_add_f32_local(p, v) atomicAdd((float *)(p), (float)(v))

/* Vector loads: see the OpenCL branch. */
#define xgpu_vload_f32x2(dst, p, i)                                                                \
    do {                                                                                           \
        const float2 t_ = *reinterpret_cast<const float2 *>((p) + (i));                            \
        (dst)[0] = t_.x;                                                                           \
        (dst)[1] = t_.y;                                                                           \
    } while (0)
#define xgpu_vload_f32x4(dst, p, i)                                                                \
    do {                                                                                           \
        const float4 t_ = *reinterpret_cast<const float4 *>((p) + (i));                            \
        (dst)[0] = t_.x;                                                                           \
        (dst)[1] = t_.y;                                                                           \
        (dst)[2] = t_.z;                                                                           \
        (dst)[3] = t_.w;                                                                           \
    } while (0)
#define xgpu_vload_f64x2(dst, p, i)                                                                \
    do {                                                                                           \
        const double2 t_ = *reinterpret_cast<const double2 *>((p) + (i));                          \
        (dst)[0] = t_.x;                                                                           \
        (dst)[1] = t_.y;                                                                           \
    } while (0)

/* 16-byte loads and stores: see the OpenCL branch. CUDA reads through the
 * read-only data path (ld.global.nc). */
#if defined(XGPU_DIALECT_HIP)
#define XGPU__LDG16(vt, q) (*(q))
#else
#define XGPU__LDG16(vt, q) __ldg(q)
#endif
#define XGPU__VLOAD16_2(dst, p, i, vt)                                                             \
    do {                                                                                           \
        const vt t_ = XGPU__LDG16(vt, reinterpret_cast<const vt *>((p) + (i)));                    \
        (dst)[0] = t_.x;                                                                           \
        (dst)[1] = t_.y;                                                                           \
    } while (0)
#define XGPU__VLOAD16_4(dst, p, i, vt)                                                             \
    do {                                                                                           \
        const vt t_ = XGPU__LDG16(vt, reinterpret_cast<const vt *>((p) + (i)));                    \
        (dst)[0] = t_.x;                                                                           \
        (dst)[1] = t_.y;                                                                           \
        (dst)[2] = t_.z;                                                                           \
        (dst)[3] = t_.w;                                                                           \
    } while (0)
#define xgpu_vload16_f32(dst, p, i) XGPU__VLOAD16_4(dst, p, i, float4)
#define xgpu_vload16_i32(dst, p, i) XGPU__VLOAD16_4(dst, p, i, int4)
#define xgpu_vload16_f64(dst, p, i) XGPU__VLOAD16_2(dst, p, i, double2)
#define xgpu_vload16_i64(dst, p, i) XGPU__VLOAD16_2(dst, p, i, longlong2)
#define xgpu_vstore16_f32(p, i, src)                                                               \
    (*reinterpret_cast<float4 *>((p) + (i)) = make_float4((src)[0], (src)[1], (src)[2], (src)[3]))
#define xgpu_vstore16_f64(p, i, src)                                                               \
    (*reinterpret_cast<double2 *>((p) + (i)) = make_double2((src)[0], (src)[1]))
#define xgpu_address(p) ((xgpu_u64)(size_t)(p))

/* Release/acquire at device scope: __threadfence() (fence.sc.gpu) before
 * the atomic orders this thread's earlier writes before it (release);
 * after it, the later reads after it (acquire). */
#define XGPU_HAS_SCOPED_ATOMICS 1
__device__ __forceinline__ unsigned int xgpu__atomic_add_acq_rel_u32(unsigned int *p,
                                                                     unsigned int v) {
    __threadfence();
    unsigned int old = atomicAdd(p, v);
    __threadfence();
    return old;
}
#define xgpu_atomic_add_acq_rel_u32(p, v)                                                          \
    xgpu__atomic_add_acq_rel_u32((unsigned int *)(p), (unsigned int)(v))
#define xgpu_atomic_store_u32(p, v) ((void)atomicExch((unsigned int *)(p), (unsigned int)(v)))

/* fp16 storage without headers: PTX conversions on CUDA, clang's
 * _Float16 on HIP. */
#if defined(XGPU_DIALECT_HIP)
typedef _Float16 xgpu_half;
#define xgpu_half_load(p, i) ((float)(p)[i])
#define xgpu_half_store(p, i, v) ((p)[i] = (_Float16)(v))
#else
typedef unsigned short xgpu_half;
__device__ __forceinline__ float xgpu__half_to_float(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ unsigned short xgpu__float_to_half(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#define xgpu_half_load(p, i) xgpu__half_to_float((p)[i])
#define xgpu_half_store(p, i, v) ((p)[i] = xgpu__float_to_half(v))
#endif

#define XGPU_HAS_FP64 1
/* fp16 needs cuda_fp16.h / hip_fp16.h; the backends turn it on with
 * -DXGPU_ENABLE_FP16 once they pass the header to the compiler. */
#if defined(XGPU_ENABLE_FP16)
#define XGPU_HAS_FP16 1
typedef __half xgpu_f16;
#else
#define XGPU_HAS_FP16 0
#endif

#define XGPU_HAS_SUBGROUPS 1
#define xgpu_subgroup_size() ((xgpu_u32)XGPU__WARP_SIZE)
#define xgpu_subgroup_local_id() ((xgpu_u32)(threadIdx.x % XGPU__WARP_SIZE))
/* 1-D groups: the last warp may be partial. */
#define xgpu_num_subgroups() ((xgpu_u32)((blockDim.x + XGPU__WARP_SIZE - 1) / XGPU__WARP_SIZE))
#define xgpu_subgroup_id() ((xgpu_u32)(threadIdx.x / XGPU__WARP_SIZE))
#if defined(XGPU_DIALECT_HIP)
#define XGPU__SHFL_DOWN(v, o) __shfl_down((v), (o))
#else
#define XGPU__SHFL_DOWN(v, o) __shfl_down_sync(0xffffffffu, (v), (o))
#endif
/* Subgroup reductions assume a 1-D group whose size is a multiple of the
 * subgroup size; every lane receives the result of lane 0 through a final
 * broadcast. */
#define XGPU__DEFINE_SG_REDUCE(name, T, OP)                                                        \
    __device__ __forceinline__ T name(T v) {                                                       \
        for (int o = XGPU__WARP_SIZE / 2; o > 0; o /= 2) {                                         \
            T w = XGPU__SHFL_DOWN(v, o);                                                           \
            v = OP(v, w);                                                                          \
        }                                                                                          \
        return v;                                                                                  \
    }
#define XGPU__OP_ADD(a, b) ((a) + (b))
#define XGPU__OP_MIN(a, b) ((b) < (a) ? (b) : (a))
#define XGPU__OP_MAX(a, b) ((b) > (a) ? (b) : (a))
XGPU__DEFINE_SG_REDUCE(xgpu__sg_add_f32, float, XGPU__OP_ADD)
XGPU__DEFINE_SG_REDUCE(xgpu__sg_add_i32, int, XGPU__OP_ADD)
XGPU__DEFINE_SG_REDUCE(xgpu__sg_min_f32, float, XGPU__OP_MIN)
XGPU__DEFINE_SG_REDUCE(xgpu__sg_max_f32, float, XGPU__OP_MAX)
#if defined(XGPU_DIALECT_HIP)
#define XGPU__SHFL0(v) __shfl((v), 0)
#else
#define XGPU__SHFL0(v) __shfl_sync(0xffffffffu, (v), 0)
#endif
#define xgpu_subgroup_reduce_add_f32(v) XGPU__SHFL0(xgpu__sg_add_f32((float)(v)))
#define xgpu_subgroup_reduce_add_i32(v) XGPU__SHFL0(xgpu__sg_add_i32((int)(v)))
#define xgpu_subgroup_reduce_min_f32(v) XGPU__SHFL0(xgpu__sg_min_f32((float)(v)))
#define xgpu_subgroup_reduce_max_f32(v) XGPU__SHFL0(xgpu__sg_max_f32((float)(v)))
/* Lane (id + o)'s v, any 32- or 64-bit arithmetic type; lanes past the
 * subgroup's end get their own v back. */
#define XGPU_HAS_SUBGROUP_SHUFFLE 1
#define xgpu_subgroup_shuffle_down(v, o) XGPU__SHFL_DOWN((v), (o))

#else
#error "xgpu prelude: no XGPU_DIALECT_* defined; the runtime sets one"
#endif

#endif /* XGPU_PRELUDE */
