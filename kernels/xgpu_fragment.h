/* xgpu kernel dialect: 16-bit floating-point storage, tf32 rounding and
 * matrix fragments. The runtime composes this file after xgpu_prelude.h
 * for every program. See kernels/README.md ("Matrix fragments").
 *
 * A fragment is a warp's share of one matrix-unit multiply, spread over
 * its lanes as the PTX ISA's "Matrix Fragments for mma.m16n8k16" and
 * "mma.m16n8k8" sections lay it out (g = lane / 4, t = lane % 4):
 *
 *   m16n8k16 (f16, bf16; two 16-bit values a register, the lower index low)
 *     A 16x16 row: a[i] at row g + 8 * ((i / 2) % 2), col 2t + i % 2 + 8 * (i / 4)
 *     B 16x8 col:  b[i] at k 2t + i % 2 + 8 * (i / 2), col g
 *   m16n8k8 (tf32; one value a register)
 *     A 16x8 row:  a[i] at row g + 8 * (i % 2), col t + 4 * (i / 2)
 *     B 8x8 col:   b[i] at k t + 4 * i, col g
 *   C 16x8 f32, both shapes: c[i] at row g + 8 * (i / 2), col 2t + i % 2
 *
 * Loads read a fragment from a local-memory tile whose rows run along K:
 * A's element (row r, k) at tile[r * ld + k], B's (k, col n) at
 * tile[n * ld + k]. The multiply is mma.sync on CUDA sm_80 and newer
 * (xgpu_mma_*, XGPU_HAS_MMA_SYNC) and an emulation on any device
 * (xgpu_frag_emu_*, xgpu_mma_emu_*) with the same per-lane layout: each lane writes its
 * registers where the layout says into the warp's local scratch, the group
 * synchronises, and the products are computed from it. Every
 * work-item of the group must call the emulation, the same number of
 * times (it holds work-group barriers). AMD's MFMA 32x32x8 on 64 lanes has
 * its own layout, functions and emulation at the end of the file. */
#ifndef XGPU_FRAGMENT
#define XGPU_FRAGMENT 1

/* Inline functions that draw no unused-function warning from NVRTC in
 * programs that use none of them. */
#if defined(XGPU_DIALECT_OPENCL)
#define XGPU__FRAG_FN static inline
#define xgpu__f32_bits(f) as_uint(f)
#define xgpu__bits_f32(u) as_float(u)
#else
#define XGPU__FRAG_FN __device__ __forceinline__
#define xgpu__f32_bits(f) __float_as_uint(f)
#define xgpu__bits_f32(u) __uint_as_float(u)
#endif

/* ---- 16-bit floating-point storage: bit-identical to the host's
 * xgpu_f32_to_bf16 and friends (round to nearest even; a NaN stays a NaN,
 * quieted; subnormals kept) ---- */
typedef xgpu_u16 xgpu_bf16;

XGPU__FRAG_FN float xgpu_bf16_to_f32(xgpu_u16 bits) {
    return xgpu__bits_f32((xgpu_u32)bits << 16);
}

XGPU__FRAG_FN xgpu_u16 xgpu_f32_to_bf16(float value) {
    xgpu_u32 x = xgpu__f32_bits(value);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        return (xgpu_u16)((x >> 16) | 0x0040u);
    }
    x += 0x7fffu + ((x >> 16) & 1u);
    return (xgpu_u16)(x >> 16);
}

/* IEEE binary16 as bits, for code that stores f16 as xgpu_u16. */
XGPU__FRAG_FN float xgpu_f16_to_f32(xgpu_u16 bits) {
    const xgpu_u32 h = bits, sign = (h & 0x8000u) << 16, em = h & 0x7fffu;
    if (em >= 0x7c00u) { /* infinity, NaN (payload kept) */
        return xgpu__bits_f32(sign | 0x7f800000u | ((em & 0x3ffu) << 13));
    }
    if (em >= 0x0400u) { /* normal: the exponent rebiased 15 -> 127 */
        return xgpu__bits_f32(sign | ((em + 0x1c000u) << 13));
    }
    /* Zero or subnormal: em * 2^-24, exact in fp32 and itself normal. */
    const float v = (float)em * 5.9604644775390625e-8f;
    return sign ? -v : v;
}

XGPU__FRAG_FN xgpu_u16 xgpu_f32_to_f16(float value) {
    xgpu_u32 x = xgpu__f32_bits(value);
    xgpu_u32 sign = (x >> 16) & 0x8000u, abs = x & 0x7fffffffu;
    if (abs > 0x7f800000u) {
        return (xgpu_u16)(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
    }
    if (abs >= 0x477ff000u) {
        return (xgpu_u16)(sign | 0x7c00u);
    }
    if (abs < 0x38800000u) {
        if (abs < 0x33000000u) {
            return (xgpu_u16)sign;
        }
        xgpu_u32 mant = (abs & 0x7fffffu) | 0x800000u;
        xgpu_u32 shift = 126u - (abs >> 23); /* 14..24 */
        xgpu_u32 h = mant >> shift;
        xgpu_u32 rest = mant & ((1u << shift) - 1u), mid = 1u << (shift - 1u);
        h += (rest > mid || (rest == mid && (h & 1u))) ? 1u : 0u;
        return (xgpu_u16)(sign | h);
    }
    xgpu_u32 h = (abs - 0x38000000u) >> 13, rest = abs & 0x1fffu;
    h += (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ? 1u : 0u;
    return (xgpu_u16)(sign | h);
}

/* fp32 rounded to tf32 (10 stored significand bits) as cvt.rna.tf32.f32
 * does: to nearest, ties away from zero; NaN and infinities kept. */
XGPU__FRAG_FN float xgpu_f32_to_tf32(float value) {
    xgpu_u32 x = xgpu__f32_bits(value);
    if ((x & 0x7f800000u) == 0x7f800000u) {
        return value;
    }
    return xgpu__bits_f32((x + 0x1000u) & 0xffffe000u);
}

/* ---- mma.sync fragments (the layout above) ---- */
typedef struct xgpu_frag_a {
    xgpu_u32 x[4]; /* m16n8k16: 8 halves, two a register; m16n8k8: 4 tf32 */
} xgpu_frag_a;
typedef struct xgpu_frag_b {
    xgpu_u32 x[2]; /* m16n8k16: 4 halves; m16n8k8: 2 tf32 */
} xgpu_frag_b;
typedef struct xgpu_frag_c {
    float x[4];
} xgpu_frag_c;

/* Where c[i] lies in the 16 x 8 tile. */
XGPU__FRAG_FN xgpu_u32 xgpu_frag_c_row(xgpu_u32 lane, xgpu_u32 i) {
    return (lane >> 2) + 8u * (i >> 1);
}
XGPU__FRAG_FN xgpu_u32 xgpu_frag_c_col(xgpu_u32 lane, xgpu_u32 i) {
    return 2u * (lane & 3u) + (i & 1u);
}

XGPU__FRAG_FN void xgpu_frag_c_zero(xgpu_frag_c *c) {
#pragma unroll
    for (int i = 0; i < 4; i++) {
        c->x[i] = 0.0f;
    }
}

/* 16-bit A (16 x 16) and B (16 x 8) by per-lane loads. */
XGPU__FRAG_FN void xgpu_frag_load_a16(xgpu_frag_a *a, XGPU_LOCAL_PTR const xgpu_u16 *tile,
                                      xgpu_u32 ld, xgpu_u32 lane) {
    const xgpu_u32 g = lane >> 2, t = lane & 3u;
#pragma unroll
    for (xgpu_u32 r = 0; r < 4; r++) { /* register r holds a[2r], a[2r + 1] */
        const xgpu_u32 row = g + 8u * (r & 1u), k = 2u * t + 8u * (r >> 1);
        a->x[r] = (xgpu_u32)tile[row * ld + k] | ((xgpu_u32)tile[row * ld + k + 1u] << 16);
    }
}
XGPU__FRAG_FN void xgpu_frag_load_b16(xgpu_frag_b *b, XGPU_LOCAL_PTR const xgpu_u16 *tile,
                                      xgpu_u32 ld, xgpu_u32 lane) {
    const xgpu_u32 g = lane >> 2, t = lane & 3u;
#pragma unroll
    for (xgpu_u32 r = 0; r < 2; r++) {
        const xgpu_u32 k = 2u * t + 8u * r;
        b->x[r] = (xgpu_u32)tile[g * ld + k] | ((xgpu_u32)tile[g * ld + k + 1u] << 16);
    }
}
/* tf32 A (16 x 8) and B (8 x 8) from fp32 tiles, rounded as they load. */
XGPU__FRAG_FN xgpu_u32 xgpu__tf32_bits(float v) {
#if defined(XGPU_DIALECT_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    xgpu_u32 r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
    return r;
#else
    return xgpu__f32_bits(xgpu_f32_to_tf32(v));
#endif
}
XGPU__FRAG_FN void xgpu_frag_load_a_tf32(xgpu_frag_a *a, XGPU_LOCAL_PTR const float *tile,
                                         xgpu_u32 ld, xgpu_u32 lane) {
    const xgpu_u32 g = lane >> 2, t = lane & 3u;
#pragma unroll
    for (xgpu_u32 i = 0; i < 4; i++) {
        a->x[i] = xgpu__tf32_bits(tile[(g + 8u * (i & 1u)) * ld + t + 4u * (i >> 1)]);
    }
}
XGPU__FRAG_FN void xgpu_frag_load_b_tf32(xgpu_frag_b *b, XGPU_LOCAL_PTR const float *tile,
                                         xgpu_u32 ld, xgpu_u32 lane) {
    const xgpu_u32 g = lane >> 2, t = lane & 3u;
#pragma unroll
    for (xgpu_u32 i = 0; i < 2; i++) {
        b->x[i] = xgpu__tf32_bits(tile[g * ld + t + 4u * i]);
    }
}

/* ---- the emulated multiply, in three steps so that a warp tile of
 * fragments costs two barriers per K step, not two per multiply:
 *   xgpu_frag_emu_put_a/_b   each lane writes its registers where the
 *                            layout says into the warp's local scratch,
 *                            converted to fp32, K along the slot's rows:
 *                            A's (row r, k) at slot[k * ld + r], B's
 *                            (k, col n) at slot[k * ld + n];
 *   xgpu_barrier()           (the whole group, uniformly);
 *   the products             from the scratch (xgpu_frag_emu_mma: one
 *                            fragment, each lane its own C elements; a
 *                            kernel may compute a warp tile of them in any
 *                            ownership and then hand each lane its C
 *                            elements through the scratch, as
 *                            kernels/gemm_mma.xgpu does);
 *   xgpu_barrier()           before the slots are written again.
 * ld is the slot's row length: 16 for one A fragment, 8 for one B (or the
 * warp tile's side when the fragments of a warp tile share one slot).
 * kk is the fragment's K: 16 (f16, bf16) or 8 (tf32). xgpu_mma_emu_* do
 * all four steps for one fragment. ---- */
#define XGPU_FRAG_EMU_A (16 * 16)
#define XGPU_FRAG_EMU_B (8 * 16)

XGPU__FRAG_FN float xgpu__half_bits_f32(xgpu_u32 bits, int bf16) {
    return bf16 ? xgpu_bf16_to_f32((xgpu_u16)bits) : xgpu_f16_to_f32((xgpu_u16)bits);
}

/* 16-bit values: f16 (bf16 = 0) or bf16 (bf16 = 1). */
XGPU__FRAG_FN void xgpu_frag_emu_put_a16(XGPU_LOCAL_PTR float *slot, xgpu_u32 ld,
                                         const xgpu_frag_a *a, int bf16, xgpu_u32 lane) {
    const xgpu_u32 g = lane >> 2, t = lane & 3u;
#pragma unroll
    for (xgpu_u32 i = 0; i < 8; i++) {
        const xgpu_u32 row = g + 8u * ((i >> 1) & 1u), k = 2u * t + (i & 1u) + 8u * (i >> 2);
        slot[k * ld + row] = xgpu__half_bits_f32((a->x[i >> 1] >> (16u * (i & 1u))), bf16);
    }
}
XGPU__FRAG_FN void xgpu_frag_emu_put_b16(XGPU_LOCAL_PTR float *slot, xgpu_u32 ld,
                                         const xgpu_frag_b *b, int bf16, xgpu_u32 lane) {
    const xgpu_u32 g = lane >> 2, t = lane & 3u;
#pragma unroll
    for (xgpu_u32 i = 0; i < 4; i++) {
        const xgpu_u32 k = 2u * t + (i & 1u) + 8u * (i >> 1);
        slot[k * ld + g] = xgpu__half_bits_f32((b->x[i >> 1] >> (16u * (i & 1u))), bf16);
    }
}
XGPU__FRAG_FN void xgpu_frag_emu_put_a_tf32(XGPU_LOCAL_PTR float *slot, xgpu_u32 ld,
                                            const xgpu_frag_a *a, xgpu_u32 lane) {
    const xgpu_u32 g = lane >> 2, t = lane & 3u;
#pragma unroll
    for (xgpu_u32 i = 0; i < 4; i++) {
        slot[(t + 4u * (i >> 1)) * ld + g + 8u * (i & 1u)] = xgpu__bits_f32(a->x[i]);
    }
}
XGPU__FRAG_FN void xgpu_frag_emu_put_b_tf32(XGPU_LOCAL_PTR float *slot, xgpu_u32 ld,
                                            const xgpu_frag_b *b, xgpu_u32 lane) {
    const xgpu_u32 g = lane >> 2, t = lane & 3u;
#pragma unroll
    for (xgpu_u32 i = 0; i < 2; i++) {
        slot[(t + 4u * i) * ld + g] = xgpu__bits_f32(b->x[i]);
    }
}

/* c += a * b for one fragment from its slots (A 16 wide, B 8 wide). */
XGPU__FRAG_FN void xgpu_frag_emu_mma(xgpu_frag_c *c, XGPU_LOCAL_PTR const float *sa,
                                     XGPU_LOCAL_PTR const float *sb, xgpu_u32 kk, xgpu_u32 lane) {
#pragma unroll
    for (xgpu_u32 i = 0; i < 4; i++) {
        const xgpu_u32 row = xgpu_frag_c_row(lane, i), col = xgpu_frag_c_col(lane, i);
        float sum = c->x[i];
        /* Partly unrolled: AMD's compiler hoists every local read of a
         * whole unrolled loop ahead of the arithmetic and runs out of
         * registers. */
#pragma unroll 4
        for (xgpu_u32 k = 0; k < kk; k++) {
            sum = fma(sa[k * 16u + row], sb[k * 8u + col], sum);
        }
        c->x[i] = sum;
    }
}

/* One fragment: scratch holds XGPU_FRAG_EMU_A + XGPU_FRAG_EMU_B floats. */
XGPU__FRAG_FN void xgpu_mma_emu_m16n8k16(xgpu_frag_c *c, const xgpu_frag_a *a, const xgpu_frag_b *b,
                                         int bf16, XGPU_LOCAL_PTR float *scratch, xgpu_u32 lane) {
    xgpu_frag_emu_put_a16(scratch, 16u, a, bf16, lane);
    xgpu_frag_emu_put_b16(scratch + XGPU_FRAG_EMU_A, 8u, b, bf16, lane);
    xgpu_barrier();
    xgpu_frag_emu_mma(c, scratch, scratch + XGPU_FRAG_EMU_A, 16u, lane);
    xgpu_barrier();
}
XGPU__FRAG_FN void xgpu_mma_emu_m16n8k8_tf32(xgpu_frag_c *c, const xgpu_frag_a *a,
                                             const xgpu_frag_b *b, XGPU_LOCAL_PTR float *scratch,
                                             xgpu_u32 lane) {
    xgpu_frag_emu_put_a_tf32(scratch, 16u, a, lane);
    xgpu_frag_emu_put_b_tf32(scratch + XGPU_FRAG_EMU_A, 8u, b, lane);
    xgpu_barrier();
    xgpu_frag_emu_mma(c, scratch, scratch + XGPU_FRAG_EMU_A, 8u, lane);
    xgpu_barrier();
}

/* ---- CUDA sm_80 and newer: the tensor cores ---- */
#if defined(XGPU_DIALECT_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define XGPU_HAS_MMA_SYNC 1
#define XGPU__MMA_ASM(shape_types, c, a, b)                                                        \
    asm volatile("mma.sync.aligned." shape_types " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "        \
                 "{%0,%1,%2,%3};"                                                                  \
                 : "+f"((c)->x[0]), "+f"((c)->x[1]), "+f"((c)->x[2]), "+f"((c)->x[3])              \
                 : "r"((a)->x[0]), "r"((a)->x[1]), "r"((a)->x[2]), "r"((a)->x[3]), "r"((b)->x[0]), \
                   "r"((b)->x[1]))
XGPU__FRAG_FN void xgpu_mma_m16n8k16_f16(xgpu_frag_c *c, const xgpu_frag_a *a,
                                         const xgpu_frag_b *b) {
    XGPU__MMA_ASM("m16n8k16.row.col.f32.f16.f16.f32", c, a, b);
}
XGPU__FRAG_FN void xgpu_mma_m16n8k16_bf16(xgpu_frag_c *c, const xgpu_frag_a *a,
                                          const xgpu_frag_b *b) {
    XGPU__MMA_ASM("m16n8k16.row.col.f32.bf16.bf16.f32", c, a, b);
}
XGPU__FRAG_FN void xgpu_mma_m16n8k8_tf32(xgpu_frag_c *c, const xgpu_frag_a *a,
                                         const xgpu_frag_b *b) {
    XGPU__MMA_ASM("m16n8k8.row.col.f32.tf32.tf32.f32", c, a, b);
}
/* ldmatrix: the same fragments as xgpu_frag_load_a16/_b16, one
 * instruction; rows 16-byte aligned (ld and the tile's start multiples of
 * 8 halves). */
XGPU__FRAG_FN void xgpu_frag_ldmatrix_a16(xgpu_frag_a *a, const xgpu_u16 *tile, xgpu_u32 ld,
                                          xgpu_u32 lane) {
    const xgpu_u16 *p = tile + (lane & 15u) * ld + 8u * (lane >> 4);
    const unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a->x[0]), "=r"(a->x[1]), "=r"(a->x[2]), "=r"(a->x[3])
                 : "r"(s));
}
XGPU__FRAG_FN void xgpu_frag_ldmatrix_b16(xgpu_frag_b *b, const xgpu_u16 *tile, xgpu_u32 ld,
                                          xgpu_u32 lane) {
    const xgpu_u16 *p = tile + (lane & 7u) * ld + 8u * ((lane >> 3) & 1u);
    const unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                 : "=r"(b->x[0]), "=r"(b->x[1])
                 : "r"(s));
}
#else
#define XGPU_HAS_MMA_SYNC 0
#endif

/* ---- AMD MFMA 32x32x8 (f16; bf16 with the _1k forms), 64 lanes:
 *   A 32x8:  a[j] at row lane % 32, k 4 * (lane / 32) + j
 *   B 8x32:  b[j] at k 4 * (lane / 32) + j, col lane % 32
 *   C 32x32: c[r] at row 8 * (r / 4) + 4 * (lane / 32) + r % 4, col lane % 32
 * gfx908 multiplies f16, gfx90a and gfx94x f16 and bf16. The layout
 * functions and the emulation (xgpu_frag_mfma16, xgpu_frag_emu_put_mfma16)
 * exist on every device; the multiply where XGPU_HAS_MFMA. ---- */
XGPU__FRAG_FN xgpu_u32 xgpu_frag_mfma_c_row(xgpu_u32 lane, xgpu_u32 r) {
    return 8u * (r >> 2) + 4u * (lane >> 5) + (r & 3u);
}
XGPU__FRAG_FN xgpu_u32 xgpu_frag_mfma_c_col(xgpu_u32 lane, xgpu_u32 r) {
    (void)r;
    return lane & 31u;
}
/* Where a lane's four A (row lane % 32) or B (col lane % 32) values start
 * in a tile whose rows run along K: k-consecutive, as both layouts say. */
XGPU__FRAG_FN xgpu_u32 xgpu_frag_mfma_ab_at(xgpu_u32 ld, xgpu_u32 lane) {
    return (lane & 31u) * ld + 4u * (lane >> 5);
}

/* The emulation's A or B fragment: four 16-bit values, two a register,
 * the lower index low; loaded and put as the layout says. */
typedef struct xgpu_frag_mfma16 {
    xgpu_u32 x[2];
} xgpu_frag_mfma16;
typedef struct xgpu_frag_mfma_emu_c {
    float x[16];
} xgpu_frag_mfma_emu_c;
XGPU__FRAG_FN void xgpu_frag_mfma_emu_c_zero(xgpu_frag_mfma_emu_c *c) {
#pragma unroll
    for (int r = 0; r < 16; r++) {
        c->x[r] = 0.0f;
    }
}
XGPU__FRAG_FN void xgpu_frag_load_mfma16(xgpu_frag_mfma16 *f, XGPU_LOCAL_PTR const xgpu_u16 *tile,
                                         xgpu_u32 ld, xgpu_u32 lane) {
    XGPU_LOCAL_PTR const xgpu_u16 *p = tile + xgpu_frag_mfma_ab_at(ld, lane);
    f->x[0] = (xgpu_u32)p[0] | ((xgpu_u32)p[1] << 16);
    f->x[1] = (xgpu_u32)p[2] | ((xgpu_u32)p[3] << 16);
}
/* A's (row r, k) or B's (k, col n) to slot[k * ld + r] or slot[k * ld + n]:
 * the two layouts are each other's transpose, so one function puts both. */
XGPU__FRAG_FN void xgpu_frag_emu_put_mfma16(XGPU_LOCAL_PTR float *slot, xgpu_u32 ld,
                                            const xgpu_frag_mfma16 *f, int bf16, xgpu_u32 lane) {
#pragma unroll
    for (xgpu_u32 j = 0; j < 4; j++) {
        slot[(4u * (lane >> 5) + j) * ld + (lane & 31u)] =
            xgpu__half_bits_f32(f->x[j >> 1] >> (16u * (j & 1u)), bf16);
    }
}

#if defined(XGPU_DIALECT_HIP) &&                                                                   \
    (defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) ||   \
     defined(__gfx942__))
#define XGPU_HAS_MFMA 1
#if defined(__gfx908__)
#define XGPU_HAS_MFMA_BF16 0
#else
#define XGPU_HAS_MFMA_BF16 1
#endif
typedef short xgpu__i16x4 __attribute__((ext_vector_type(4)));
typedef _Float16 xgpu__f16x4 __attribute__((ext_vector_type(4)));
typedef float xgpu__f32x16 __attribute__((ext_vector_type(16)));
typedef struct xgpu_frag_mfma_ab {
    xgpu__i16x4 x; /* four 16-bit values */
} xgpu_frag_mfma_ab;
typedef struct xgpu_frag_mfma_c {
    xgpu__f32x16 x;
} xgpu_frag_mfma_c;
XGPU__FRAG_FN void xgpu_frag_mfma_c_zero(xgpu_frag_mfma_c *c) {
    c->x = (xgpu__f32x16)(0.0f);
}
/* A and B alike, from xgpu_frag_mfma_ab_at. */
XGPU__FRAG_FN void xgpu_frag_mfma_load(xgpu_frag_mfma_ab *f, const xgpu_u16 *tile, xgpu_u32 ld,
                                       xgpu_u32 lane) {
    const xgpu_u16 *p = tile + xgpu_frag_mfma_ab_at(ld, lane);
    xgpu__i16x4 v;
    v.x = (short)p[0];
    v.y = (short)p[1];
    v.z = (short)p[2];
    v.w = (short)p[3];
    f->x = v;
}
XGPU__FRAG_FN void xgpu_mfma_32x32x8_f16(xgpu_frag_mfma_c *c, const xgpu_frag_mfma_ab *a,
                                         const xgpu_frag_mfma_ab *b) {
    c->x =
        __builtin_amdgcn_mfma_f32_32x32x8f16((xgpu__f16x4)a->x, (xgpu__f16x4)b->x, c->x, 0, 0, 0);
}
#if XGPU_HAS_MFMA_BF16
XGPU__FRAG_FN void xgpu_mfma_32x32x8_bf16(xgpu_frag_mfma_c *c, const xgpu_frag_mfma_ab *a,
                                          const xgpu_frag_mfma_ab *b) {
    c->x = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a->x, b->x, c->x, 0, 0, 0);
}
#endif
#else
#define XGPU_HAS_MFMA 0
#define XGPU_HAS_MFMA_BF16 0
#endif

#endif /* XGPU_FRAGMENT */
