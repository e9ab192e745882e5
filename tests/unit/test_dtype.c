/* The host's 16-bit conversions (runtime/src/core/dtype.c) against a
 * reference of their own built on doubles: every one of the 65536 inputs
 * of f16 and bf16 widened, and floats rounded to nearest even, checked on
 * every midpoint between neighbouring 16-bit values and its neighbours,
 * the edges (NaN, infinities, subnormals, overflow, -0) and many random
 * bit patterns. */
#include "xgpu.h"

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* A 16-bit format: exponent and stored significand bits, and the
 * conversions under test. */
typedef struct format {
    const char *name;
    int ebits, mbits;
    uint16_t (*narrow)(float);
    float (*widen)(uint16_t);
} format;

static const format f16 = {"f16", 5, 10, xgpu_f32_to_f16, xgpu_f16_to_f32};
static const format bf16 = {"bf16", 8, 7, xgpu_f32_to_bf16, xgpu_bf16_to_f32};

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

static uint16_t exp_mask(const format *f) {
    return (uint16_t)(((1u << f->ebits) - 1u) << f->mbits);
}

static bool is_nan16(const format *f, uint16_t b) {
    return (b & exp_mask(f)) == exp_mask(f) && (b & ((1u << f->mbits) - 1u));
}

/* The magnitude of a non-negative pattern, NaN aside. The all-ones
 * exponent with a zero significand decodes by the same formula to
 * 2^(emax + 1), which is where rounding to nearest even meets infinity:
 * that makes overflow one more neighbour. */
static double magnitude(const format *f, uint16_t b) {
    int bias = (1 << (f->ebits - 1)) - 1;
    unsigned e = (b & exp_mask(f)) >> f->mbits, m = b & ((1u << f->mbits) - 1u);
    double sig = e ? (double)((1u << f->mbits) + m) : (double)m;
    return ldexp(sig, (e ? (int)e : 1) - bias - f->mbits);
}

/* The reference narrowing of a (non-NaN) float: the largest positive
 * pattern not above |x|, then its neighbour when that is nearer or as
 * near and even. */
static uint16_t ref_narrow(const format *f, float x) {
    uint16_t sign = signbit(x) ? 0x8000u : 0;
    double a = fabs((double)x);
    uint16_t inf = exp_mask(f);
    if (a >= magnitude(f, inf)) {
        return sign | inf;
    }
    unsigned lo = 0, hi = inf; /* magnitude(lo) <= a < magnitude(hi) */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (magnitude(f, (uint16_t)mid) <= a) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    double below = a - magnitude(f, (uint16_t)lo), above = magnitude(f, (uint16_t)hi) - a;
    unsigned r = below < above || (below == above && !(lo & 1u)) ? lo : hi;
    return (uint16_t)(sign | r);
}

static void expect_narrow(const format *f, float x) {
    uint16_t got = f->narrow(x);
    if (isnan(x)) {
        if (!is_nan16(f, got) || (got >> 15) != (bits_of(x) >> 31)) {
            fail_msg("%s(0x%08x NaN) = 0x%04x: not a NaN of the same sign", f->name, bits_of(x),
                     got);
        }
        return;
    }
    uint16_t want = ref_narrow(f, x);
    if (got != want) {
        fail_msg("%s(0x%08x = %a) = 0x%04x, want 0x%04x", f->name, bits_of(x), (double)x, got,
                 want);
    }
}

/* Every pattern widens to its value exactly (a NaN to a NaN of the same
 * sign, f16's payload kept), and narrows back to itself (a NaN to a quiet
 * NaN). */
static void widen_all(const format *f) {
    for (uint32_t i = 0; i < 65536; i++) {
        uint16_t b = (uint16_t)i;
        float w = f->widen(b);
        bool neg = (b >> 15) != 0;
        if (is_nan16(f, b)) {
            if (!isnan(w) || (signbit(w) != 0) != neg) {
                fail_msg("%s 0x%04x widens to %a, not a NaN of its sign", f->name, b, (double)w);
            }
            uint16_t back = f->narrow(w);
            uint16_t quiet = (uint16_t)(1u << (f->mbits - 1));
            if (!is_nan16(f, back) || (back >> 15) != (b >> 15) || !(back & quiet)) {
                fail_msg("%s NaN 0x%04x comes back as 0x%04x", f->name, b, back);
            }
            continue;
        }
        double want = magnitude(f, b & 0x7fffu);
        if ((b & 0x7fffu) == exp_mask(f)) {
            want = INFINITY;
        }
        want = neg ? -want : want;
        if ((double)w != want || (signbit(w) != 0) != neg) {
            fail_msg("%s 0x%04x widens to %a, want %a", f->name, b, (double)w, want);
        }
        if (f->narrow(w) != b) {
            fail_msg("%s 0x%04x: %a narrows to 0x%04x", f->name, b, (double)w, f->narrow(w));
        }
    }
}

/* Each midpoint between neighbours (exact in a float for both formats),
 * the floats on either side of it and of each value, both signs: ties to
 * even, and rounding on each side of every tie. */
static void narrow_midpoints(const format *f) {
    for (uint32_t p = 0; p < exp_mask(f); p++) {
        double lo = magnitude(f, (uint16_t)p), hi = magnitude(f, (uint16_t)(p + 1));
        float mid = (float)((lo + hi) / 2);
        assert_true((double)mid == (lo + hi) / 2);
        float v = (float)lo;
        const float xs[] = {mid, nextafterf(mid, 0.0f), nextafterf(mid, INFINITY),
                            v,   nextafterf(v, 0.0f),   nextafterf(v, INFINITY)};
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
            expect_narrow(f, xs[i]);
            expect_narrow(f, -xs[i]);
        }
    }
}

static void narrow_edges(const format *f) {
    const uint32_t edges[] = {
        0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u,
        0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
        0x7f800001u, 0xff800001u, 0x7fbfffffu, 0x7fffffffu, 0x7f7f8000u, 0x7f7f7fffu,
        0x477ff000u, 0x477fefffu, 0x477fe000u, 0x47800000u, 0x33000000u, 0x33000001u,
        0x32ffffffu, 0x387fc000u, 0x387fe000u, 0x38800000u, 0x3f800000u, 0x3f808000u,
        0x3f818000u, 0x3f801000u, 0x3f803000u, 0x3f802000u, 0xb3000001u, 0x00400000u};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        expect_narrow(f, float_of(edges[i]));
    }
    assert_int_equal(f->narrow(-0.0f), 0x8000u);
    assert_int_equal(f->narrow(INFINITY), exp_mask(f));
    assert_int_equal(f->narrow(-INFINITY), 0x8000u | exp_mask(f));
    assert_int_equal(f->narrow(FLT_MAX), exp_mask(f));
}

/* xorshift64*: the same inputs every run. */
static uint32_t next_random(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (uint32_t)((*s * 2685821657736338717ull) >> 32);
}

static void narrow_random(const format *f) {
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 1 << 21; i++) {
        uint32_t x = next_random(&s);
        expect_narrow(f, float_of(x));
        /* Near the format's range too, where random patterns rarely land:
         * exponents within 30 of 1. */
        uint32_t e = 97u + (next_random(&s) % 60u);
        expect_narrow(f, float_of((x & 0x807fffffu) | (e << 23)));
    }
}

static void test_f16_widen(void **state) {
    (void)state;
    widen_all(&f16);
}
static void test_bf16_widen(void **state) {
    (void)state;
    widen_all(&bf16);
}
static void test_f16_midpoints(void **state) {
    (void)state;
    narrow_midpoints(&f16);
}
static void test_bf16_midpoints(void **state) {
    (void)state;
    narrow_midpoints(&bf16);
}
static void test_f16_edges(void **state) {
    (void)state;
    narrow_edges(&f16);
}
static void test_bf16_edges(void **state) {
    (void)state;
    narrow_edges(&bf16);
}
static void test_f16_random(void **state) {
    (void)state;
    narrow_random(&f16);
}
static void test_bf16_random(void **state) {
    (void)state;
    narrow_random(&bf16);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16_widen),     cmocka_unit_test(test_bf16_widen),
        cmocka_unit_test(test_f16_midpoints), cmocka_unit_test(test_bf16_midpoints),
        cmocka_unit_test(test_f16_edges),     cmocka_unit_test(test_bf16_edges),
        cmocka_unit_test(test_f16_random),    cmocka_unit_test(test_bf16_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
