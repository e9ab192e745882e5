/* Prototype: a register-blocked CPU GEMM micro-kernel, no local memory,
 * no barriers. C (row-major) = A B, A M x K row-major, B K x N row-major.
 * Work-item (gid0 = row panel, gid1 = column block of NR). */
#ifndef MR
#define MR 6
#endif
#ifndef NV
#define NV 4
#endif
#ifndef KC
#define KC 256
#endif
#ifndef RB
#define RB 1
#endif
#define NR (16 * NV)
__kernel void mk(uint M, uint N, uint K, __global const float *A, uint lda, __global const float *B,
                 uint ldb, __global float *C, uint ldc) {
    const uint i00 = get_global_id(0) * (MR * RB), j0 = get_global_id(1) * NR;
    for (uint kc = 0; kc < K; kc += KC) {
        const uint kend = kc + KC < K ? kc + KC : K;
        for (uint rb = 0; rb < RB; rb++) {
            const uint i0 = i00 + rb * MR;
            float16 acc[MR][NV];
#pragma unroll
            for (int r = 0; r < MR; r++)
#pragma unroll
                for (int v = 0; v < NV; v++)
                    acc[r][v] = kc ? vload16(v, C + (i0 + r) * ldc + j0) : (float16)(0);
            for (uint k = kc; k < kend; k++) {
                const __global float *b = B + k * ldb + j0;
                float16 bv[NV];
#pragma unroll
                for (int v = 0; v < NV; v++)
                    bv[v] = vload16(v, b);
#pragma unroll
                for (int r = 0; r < MR; r++) {
                    const float16 a = (float16)(A[(i0 + r) * lda + k]);
#pragma unroll
                    for (int v = 0; v < NV; v++)
                        acc[r][v] = fma(a, bv[v], acc[r][v]);
                }
            }
#pragma unroll
            for (int r = 0; r < MR; r++)
#pragma unroll
                for (int v = 0; v < NV; v++)
                    vstore16(acc[r][v], v, C + (i0 + r) * ldc + j0);
        }
    }
}
