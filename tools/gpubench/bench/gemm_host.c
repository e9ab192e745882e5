/* The GEMM benchmark's operands and its check against a reference in
 * double precision from the stored (rounded) operands. */
#include "gemm_host.h"
#include "measure.h"

#include <xgpu.h>

#include <math.h>
#include <string.h>

size_t gm_size(gm_elem e) {
    static const size_t sizes[] = {
        [GM_F32] = 4, [GM_F64] = 8, [GM_F16] = 2, [GM_BF16] = 2, [GM_I8] = 1, [GM_I32] = 4};
    return sizes[e];
}

double gm_get(const void *p, gm_elem e, size_t i) {
    switch (e) {
    case GM_F64:
        return ((const double *)p)[i];
    case GM_F16:
        return xgpu_f16_to_f32(((const uint16_t *)p)[i]);
    case GM_BF16:
        return xgpu_bf16_to_f32(((const uint16_t *)p)[i]);
    case GM_I8:
        return ((const int8_t *)p)[i];
    case GM_I32:
        return ((const int32_t *)p)[i];
    default:
        return ((const float *)p)[i];
    }
}

void gm_fill(void *p, gm_elem e, size_t n, uint32_t seed) {
    uint32_t s = seed;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = gb_rand(&s);
        float v = (float)(r >> 8) / (float)(1 << 24) - 0.5f;
        switch (e) {
        case GM_F64:
            ((double *)p)[i] = v;
            break;
        case GM_F16:
            ((uint16_t *)p)[i] = xgpu_f32_to_f16(v);
            break;
        case GM_BF16:
            ((uint16_t *)p)[i] = xgpu_f32_to_bf16(v);
            break;
        case GM_I8:
            ((int8_t *)p)[i] = (int8_t)((int)(r >> 25) - 64);
            break;
        case GM_I32:
            ((int32_t *)p)[i] = (int32_t)(r >> 20);
            break;
        default:
            ((float *)p)[i] = v;
        }
    }
}

double gm_tolerance(double u_in, double u_acc, gm_elem out, size_t k) {
    double u_out = out == GM_F16 ? 0x1p-11 : out == GM_BF16 ? 0x1p-8 : 0;
    return 2.0 * u_in + 2.0 * (double)(k + 2) * u_acc + u_out;
}

double gm_acc_unit(const char *acc) {
    return !strcmp(acc, "f64")   ? 0x1p-52
           : !strcmp(acc, "f16") ? 0x1p-10
           : !strcmp(acc, "i32") ? 0
                                 : 0x1p-23;
}

bool gm_verify(const void *a, const void *b, const void *c, const gm_check *g, double *max_rel) {
    uint32_t s = 77;
    bool ok = true;
    *max_rel = 0;
    size_t batches = g->batch > 1 ? g->batch : 1;
    for (int t = 0; t < 256; t++) {
        size_t bi = t % 4 == 0 ? 0 : t % 4 == 1 ? batches - 1 : gb_rand(&s) % batches;
        size_t i = t < 64 ? g->m - 1 : gb_rand(&s) % g->m;
        size_t j = t >= 64 && t < 128 ? g->n - 1 : gb_rand(&s) % g->n;
        size_t oa = bi * g->m * g->k, ob = bi * g->k * g->n, oc = bi * g->m * g->n;
        double ref = 0, scale = 0;
        for (size_t k = 0; k < g->k; k++) {
            double p = gm_get(a, g->in, oa + i * g->k + k) * gm_get(b, g->in, ob + k * g->n + j);
            ref += p;
            scale += fabs(p);
        }
        double got = gm_get(c, g->out, oc + i * g->n + j);
        double rel = fabs(got - ref) / (scale > 0 ? scale : 1);
        if (!(rel <= g->tolerance)) {
            ok = false;
            rel = isnan(rel) ? INFINITY : rel;
        }
        *max_rel = rel > *max_rel ? rel : *max_rel;
    }
    return ok;
}
