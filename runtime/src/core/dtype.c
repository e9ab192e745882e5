/* Element types: their sizes and names, and the host's conversions to and
 * from the 16-bit floating-point types (the same rounding as the kernels'). */
#include "core_int.h"

#include <string.h>

size_t xgpu_dtype_size(xgpu_dtype dtype) {
    switch (dtype) {
    case XGPU_F32:
    case XGPU_I32:
        return 4;
    case XGPU_F64:
    case XGPU_I64:
    case XGPU_U64:
        return 8;
    case XGPU_F16:
    case XGPU_BF16:
        return 2;
    }
    return 0;
}

const char *xgpu_dtype_name(xgpu_dtype dtype) {
    switch (dtype) {
    case XGPU_F32:
        return "f32";
    case XGPU_F64:
        return "f64";
    case XGPU_F16:
        return "f16";
    case XGPU_I32:
        return "i32";
    case XGPU_I64:
        return "i64";
    case XGPU_U64:
        return "u64";
    case XGPU_BF16:
        return "bf16";
    }
    return "unknown";
}

static uint32_t bits_of(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

static float float_of(uint32_t x) {
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

uint16_t xgpu_f32_to_bf16(float value) {
    uint32_t x = bits_of(value);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t)((x >> 16) | 0x0040u); /* NaN: quieted, sign kept */
    }
    /* Round to nearest, ties to even; a carry into the exponent is right
     * (the largest finite values round up to infinity). */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

float xgpu_bf16_to_f32(uint16_t bits) {
    return float_of((uint32_t)bits << 16);
}

uint16_t xgpu_f32_to_f16(float value) {
    uint32_t x = bits_of(value);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t abs = x & 0x7fffffffu;
    if (abs > 0x7f800000u) {
        return (uint16_t)(sign | 0x7e00u | ((abs >> 13) & 0x3ffu)); /* NaN: quiet, payload kept */
    }
    if (abs >= 0x477ff000u) { /* 65520 and above round to infinity */
        return (uint16_t)(sign | 0x7c00u);
    }
    if (abs < 0x38800000u) { /* below 2^-14: a subnormal half, or zero */
        if (abs < 0x33000000u) {
            return (uint16_t)sign; /* below half the smallest subnormal: +-0 */
        }
        uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
        int shift = 126 - (int)(abs >> 23); /* 14..24 */
        uint32_t h = mant >> shift;
        uint32_t rest = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
        h += rest > half || (rest == half && (h & 1u));
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((abs - 0x38000000u) >> 13); /* rebias 127 -> 15 */
    uint32_t rest = abs & 0x1fffu;
    h += rest > 0x1000u || (rest == 0x1000u && (h & 1u));
    return (uint16_t)(sign | h);
}

float xgpu_f16_to_f32(uint16_t bits) {
    uint32_t sign = (uint32_t)(bits & 0x8000u) << 16;
    uint32_t exp = (bits >> 10) & 0x1fu, mant = bits & 0x3ffu;
    if (exp == 0x1fu) {
        return float_of(sign | 0x7f800000u | (mant << 13));
    }
    if (exp == 0) {
        float v = (float)mant * 0x1p-24f; /* exact: a subnormal half is mant * 2^-24 */
        return sign ? -v : v;
    }
    return float_of(sign | ((exp + 112u) << 23) | (mant << 13));
}
