/* Launches: geometry in 1, 2 and 3 dimensions with non-power-of-two sizes,
 * local memory with barriers, atomics, scalar argument passing, fp64. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
    "XGPU_KERNEL void ids(XGPU_GLOBAL xgpu_u32 *out, xgpu_u32 nx, xgpu_u32 ny) {\n"
    "    xgpu_u32 x = xgpu_global_id(0), y = xgpu_global_id(1), z = xgpu_global_id(2);\n"
    "    xgpu_u32 i = (z * ny + y) * nx + x;\n"
    "    out[4 * i + 0] = x + 1000u * y + 1000000u * z;\n"
    "    out[4 * i + 1] = xgpu_group_id(0) + 100u * xgpu_group_id(1) + 10000u * "
    "xgpu_group_id(2);\n"
    "    out[4 * i + 2] = xgpu_local_id(0) + 100u * xgpu_local_id(1) + 10000u * "
    "xgpu_local_id(2);\n"
    "    out[4 * i + 3] = xgpu_local_size(0) + 100u * xgpu_local_size(1)\n"
    "                   + 10000u * xgpu_local_size(2) + 1000000u * xgpu_num_groups(0);\n"
    "}\n"
    "\n"
    "/* Tree sum in local memory; correct for any group size. */\n"
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
    "\n"
    "XGPU_KERNEL void group_max_static(XGPU_GLOBAL const xgpu_i32 *in, XGPU_GLOBAL xgpu_i32 "
    "*out) {\n"
    "    XGPU_LOCAL xgpu_i32 tile[64];\n"
    "    xgpu_u32 lid = xgpu_local_id(0);\n"
    "    tile[lid] = in[xgpu_global_id(0)];\n"
    "    xgpu_barrier();\n"
    "    for (xgpu_u32 s = 32; s > 0; s /= 2) {\n"
    "        if (lid < s && tile[lid + s] > tile[lid]) tile[lid] = tile[lid + s];\n"
    "        xgpu_barrier();\n"
    "    }\n"
    "    if (lid == 0) out[xgpu_group_id(0)] = tile[0];\n"
    "}\n"
    "\n"
    "XGPU_KERNEL void atomics(XGPU_GLOBAL const xgpu_i32 *in, XGPU_GLOBAL const float *f,\n"
    "                         XGPU_GLOBAL xgpu_i32 *bins, XGPU_GLOBAL xgpu_i32 *mm,\n"
    "                         XGPU_GLOBAL float *fsum, XGPU_GLOBAL xgpu_i32 *per_group,\n"
    "                         xgpu_u32 n, xgpu_u32 nbins) {\n"
    "    XGPU_LOCAL xgpu_i32 count;\n"
    "    XGPU_LOCAL float fcount;\n"
    "    xgpu_u32 i = xgpu_global_id(0);\n"
    "    if (xgpu_local_id(0) == 0) { count = 0; fcount = 0.0f; }\n"
    "    xgpu_barrier();\n"
    "    if (i < n) {\n"
    "        xgpu_atomic_add_i32(&bins[(xgpu_u32)in[i] % nbins], 1);\n"
    "        xgpu_atomic_min_i32(&mm[0], in[i]);\n"
    "        xgpu_atomic_max_i32(&mm[1], in[i]);\n"
    "        xgpu_atomic_add_f32(fsum, f[i]);\n"
    "        xgpu_atomic_add_i32_local(&count, 1);\n"
    "        xgpu_atomic_add_f32_local(&fcount, 1.0f);\n"
    "    }\n"
    "    xgpu_barrier();\n"
    "    if (xgpu_local_id(0) == 0)\n"
    "        per_group[xgpu_group_id(0)] = count + 100000 * (xgpu_i32)fcount;\n"
    "}\n"
    "\n"
    "XGPU_KERNEL void scalars(XGPU_GLOBAL xgpu_u64 *out, xgpu_i32 a, xgpu_u32 b, xgpu_i64 c,\n"
    "                         xgpu_u64 d, float e) {\n"
    "    out[0] = (xgpu_u64)(xgpu_i64)a;\n"
    "    out[1] = b;\n"
    "    out[2] = (xgpu_u64)c;\n"
    "    out[3] = d;\n"
    "    out[4] = (xgpu_u64)(e * 1024.0f);\n"
    "}\n";

static const char *histogram_source =
    "/* Per-group histogram, minimum and maximum in local memory, merged into\n"
    " * global memory by global atomics: the same bits compared signed and\n"
    " * unsigned. */\n"
    "XGPU_KERNEL void local_histogram(XGPU_GLOBAL const xgpu_u32 *in, xgpu_u32 n,\n"
    "                                 XGPU_GLOBAL xgpu_u32 *hist, XGPU_GLOBAL xgpu_u32 *umm,\n"
    "                                 XGPU_GLOBAL xgpu_i32 *imm) {\n"
    "    XGPU_LOCAL xgpu_u32 bins[HIST_BINS];\n"
    "    XGPU_LOCAL xgpu_u32 umin, umax;\n"
    "    XGPU_LOCAL xgpu_i32 imin, imax;\n"
    "    xgpu_u32 lid = xgpu_local_id(0), ls = xgpu_local_size(0);\n"
    "    for (xgpu_u32 b = lid; b < HIST_BINS; b += ls) bins[b] = 0u;\n"
    "    if (lid == 0) {\n"
    "        umin = 0xffffffffu; umax = 0u; imin = 0x7fffffff; imax = -0x7fffffff - 1;\n"
    "    }\n"
    "    xgpu_barrier();\n"
    "    for (xgpu_u32 i = xgpu_global_id(0); i < n; i += xgpu_global_size(0)) {\n"
    "        xgpu_u32 v = in[i];\n"
    "        xgpu_atomic_add_u32_local(&bins[v % HIST_BINS], 1u);\n"
    "        xgpu_atomic_min_u32_local(&umin, v);\n"
    "        xgpu_atomic_max_u32_local(&umax, v);\n"
    "        xgpu_atomic_min_i32_local(&imin, (xgpu_i32)v);\n"
    "        xgpu_atomic_max_i32_local(&imax, (xgpu_i32)v);\n"
    "    }\n"
    "    xgpu_barrier();\n"
    "    for (xgpu_u32 b = lid; b < HIST_BINS; b += ls) xgpu_atomic_add_u32(&hist[b], bins[b]);\n"
    "    if (lid == 0) {\n"
    "        xgpu_atomic_min_u32(&umm[0], umin);\n"
    "        xgpu_atomic_max_u32(&umm[1], umax);\n"
    "        xgpu_atomic_min_i32(&imm[0], imin);\n"
    "        xgpu_atomic_max_i32(&imm[1], imax);\n"
    "    }\n"
    "}\n";

static const char *fp64_source =
    "#if XGPU_HAS_FP64\n"
    "XGPU_KERNEL void daxpy(xgpu_u32 n, double a, XGPU_GLOBAL const double *x,\n"
    "                       XGPU_GLOBAL double *y) {\n"
    "    xgpu_u32 i = xgpu_global_id(0);\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "#endif\n";

static xgpu_program *program;

static int build_program(void **state) {
    (void)state;
    return xgpu_program_build(xt.ctx, source, NULL, &program) == XGPU_SUCCESS ? 0 : -1;
}

static int release_program(void **state) {
    (void)state;
    return xgpu_program_release(program) == XGPU_SUCCESS ? 0 : -1;
}

static void check_geometry(uint32_t dims, const size_t groups[3], const size_t gsize[3]) {
    size_t g[3] = {1, 1, 1}, s[3] = {1, 1, 1};
    for (uint32_t d = 0; d < dims; d++) {
        g[d] = groups[d];
        s[d] = gsize[d];
    }
    size_t nx = g[0] * s[0], ny = g[1] * s[1], nz = g[2] * s[2];
    size_t items = nx * ny * nz;
    xgpu_kernel *k = xt_kernel(program, "ids");
    xgpu_buffer *out = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, items * 16, &out));
    uint32_t poison = 0xffffffffu;
    XT_OK(xgpu_buffer_fill(xt.queue, out, 0, items * 16, &poison, 4, NULL));
    xgpu_range r = dims == 1   ? xgpu_range_1d(g[0], s[0])
                   : dims == 2 ? xgpu_range_2d(g[0], g[1], s[0], s[1])
                               : xgpu_range_3d(g[0], g[1], g[2], s[0], s[1], s[2]);
    xgpu_arg args[] = {xgpu_arg_buffer(out), xgpu_arg_u32((uint32_t)nx),
                       xgpu_arg_u32((uint32_t)ny)};
    XT_OK(xgpu_launch(xt.queue, k, &r, 3, args, NULL));
    uint32_t *host = malloc(items * 16);
    assert_non_null(host);
    XT_OK(xgpu_buffer_read(xt.queue, out, 0, host, items * 16, true, NULL));
    for (size_t z = 0; z < nz; z++) {
        for (size_t y = 0; y < ny; y++) {
            for (size_t x = 0; x < nx; x++) {
                const uint32_t *o = &host[4 * ((z * ny + y) * nx + x)];
                assert_int_equal(o[0], x + 1000 * y + 1000000 * z);
                assert_int_equal(o[1], x / s[0] + 100 * (y / s[1]) + 10000 * (z / s[2]));
                assert_int_equal(o[2], x % s[0] + 100 * (y % s[1]) + 10000 * (z % s[2]));
                assert_int_equal(o[3], s[0] + 100 * s[1] + 10000 * s[2] + 1000000 * g[0]);
            }
        }
    }
    free(host);
    XT_OK(xgpu_buffer_release(out));
    XT_OK(xgpu_kernel_release(k));
}

static void geometry_1d(void **state) {
    (void)state;
    const size_t g[3] = {13}, s[3] = {7};
    check_geometry(1, g, s);
}

static void geometry_2d(void **state) {
    (void)state;
    const size_t g[3] = {4, 6}, s[3] = {5, 3};
    check_geometry(2, g, s);
}

static void geometry_3d(void **state) {
    (void)state;
    const size_t g[3] = {2, 3, 2}, s[3] = {3, 2, 5};
    check_geometry(3, g, s);
}

static void local_memory_reduction(void **state) {
    (void)state;
    const uint32_t n = 10007, group = 96; /* neither a power of two */
    const uint32_t groups = (n + group - 1) / group, mgroups = n / 64;
    int32_t *in = malloc(n * sizeof *in), *sums = malloc(mgroups * sizeof *sums);
    assert_non_null(in);
    assert_non_null(sums);
    uint32_t seed = 3;
    for (uint32_t i = 0; i < n; i++) {
        in[i] = (int32_t)(xt_rand_u32(&seed) % 2001) - 1000;
    }
    xgpu_buffer *din = NULL, *dout = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, n * sizeof *in, &din));
    XT_OK(xgpu_buffer_create(xt.ctx, mgroups * sizeof *sums, &dout));
    XT_OK(xgpu_buffer_write(xt.queue, din, 0, in, n * sizeof *in, true, NULL));
    int32_t poison = INT32_MIN;
    XT_OK(xgpu_buffer_fill(xt.queue, dout, 0, mgroups * sizeof *sums, &poison, 4, NULL));
    xgpu_kernel *k = xt_kernel(program, "group_sum");
    uint32_t argc = 0;
    XT_OK(xgpu_kernel_arg_count(k, &argc));
    assert_int_equal(argc, 4);
    xgpu_range r = xgpu_range_1d(groups, group);
    xgpu_arg args[] = {xgpu_arg_buffer(din), xgpu_arg_buffer(dout),
                       xgpu_arg_local(group * sizeof(int32_t)), xgpu_arg_u32(n)};
    XT_OK(xgpu_launch(xt.queue, k, &r, 4, args, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, dout, 0, sums, groups * sizeof *sums, true, NULL));
    for (uint32_t g = 0; g < groups; g++) {
        int64_t want = 0;
        for (uint32_t i = g * group; i < (g + 1) * group && i < n; i++) {
            want += in[i];
        }
        assert_int_equal(sums[g], want);
    }

    /* The same with a statically sized local array. */
    xgpu_kernel *km = xt_kernel(program, "group_max_static");
    XT_OK(xgpu_buffer_fill(xt.queue, dout, 0, mgroups * sizeof *sums, &poison, 4, NULL));
    xgpu_range rm = xgpu_range_1d(mgroups, 64);
    xgpu_arg margs[] = {xgpu_arg_buffer(din), xgpu_arg_buffer(dout)};
    XT_OK(xgpu_launch(xt.queue, km, &rm, 2, margs, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, dout, 0, sums, mgroups * sizeof *sums, true, NULL));
    for (uint32_t g = 0; g < mgroups; g++) {
        int32_t want = INT32_MIN;
        for (uint32_t i = g * 64; i < (g + 1) * 64; i++) {
            want = in[i] > want ? in[i] : want;
        }
        assert_int_equal(sums[g], want);
    }
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_kernel_release(km));
    XT_OK(xgpu_buffer_release(din));
    XT_OK(xgpu_buffer_release(dout));
    free(in);
    free(sums);
}

static void atomics_count_min_max_and_float_add(void **state) {
    (void)state;
    const uint32_t n = 20011, nbins = 17, group = 64, groups = (n + group - 1) / group;
    int32_t *in = malloc(n * sizeof *in);
    float *f = malloc(n * sizeof *f);
    assert_non_null(in);
    assert_non_null(f);
    uint32_t seed = 8;
    for (uint32_t i = 0; i < n; i++) {
        in[i] = (int32_t)(xt_rand_u32(&seed) % 1000000) - 500000;
    }
    xt_random_f32(f, n, 9, 0.0f, 1.0f);
    xgpu_buffer *din, *df, *dbins, *dmm, *dsum, *dper;
    XT_OK(xgpu_buffer_create(xt.ctx, n * 4, &din));
    XT_OK(xgpu_buffer_create(xt.ctx, n * 4, &df));
    XT_OK(xgpu_buffer_create(xt.ctx, nbins * 4, &dbins));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &dmm));
    XT_OK(xgpu_buffer_create(xt.ctx, 4, &dsum));
    XT_OK(xgpu_buffer_create(xt.ctx, groups * 4, &dper));
    XT_OK(xgpu_buffer_write(xt.queue, din, 0, in, n * 4, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, df, 0, f, n * 4, true, NULL));
    int32_t zero = 0, mm[2] = {INT32_MAX, INT32_MIN}, poison = -1;
    float fzero = 0.0f;
    XT_OK(xgpu_buffer_fill(xt.queue, dbins, 0, nbins * 4, &zero, 4, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, dmm, 0, mm, 8, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, dsum, 0, &fzero, 4, true, NULL));
    XT_OK(xgpu_buffer_fill(xt.queue, dper, 0, groups * 4, &poison, 4, NULL));
    xgpu_kernel *k = xt_kernel(program, "atomics");
    xgpu_range r = xgpu_range_1d(groups, group);
    xgpu_arg args[] = {xgpu_arg_buffer(din), xgpu_arg_buffer(df),   xgpu_arg_buffer(dbins),
                       xgpu_arg_buffer(dmm), xgpu_arg_buffer(dsum), xgpu_arg_buffer(dper),
                       xgpu_arg_u32(n),      xgpu_arg_u32(nbins)};
    XT_OK(xgpu_launch(xt.queue, k, &r, 8, args, NULL));
    int32_t bins[17], per[400];
    float sum = 0;
    assert_true(groups <= 400);
    XT_OK(xgpu_buffer_read(xt.queue, dbins, 0, bins, sizeof bins, true, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, dmm, 0, mm, sizeof mm, true, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, dsum, 0, &sum, 4, true, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, dper, 0, per, groups * 4, true, NULL));
    int32_t want_bins[17] = {0}, want_min = INT32_MAX, want_max = INT32_MIN;
    double want_sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        want_bins[(uint32_t)in[i] % nbins]++;
        want_min = in[i] < want_min ? in[i] : want_min;
        want_max = in[i] > want_max ? in[i] : want_max;
        want_sum += f[i];
    }
    assert_memory_equal(bins, want_bins, sizeof bins);
    assert_int_equal(mm[0], want_min);
    assert_int_equal(mm[1], want_max);
    /* n additions in any order: relative error below n * 2^-24. */
    double rel = fabs(sum - want_sum) / want_sum;
    if (rel > n * 6e-8) {
        fail_msg("float atomic sum %.7g, reference %.7g (rel err %.2e)", sum, want_sum, rel);
    }
    for (uint32_t g = 0; g < groups; g++) {
        /* Both local counters (int and float atomics) saw every item. */
        int32_t items = g + 1 < groups ? (int32_t)group : (int32_t)(n - g * group);
        assert_int_equal(per[g], items * 100001);
    }
    XT_OK(xgpu_kernel_release(k));
    xgpu_buffer *all[] = {din, df, dbins, dmm, dsum, dper};
    for (size_t i = 0; i < 6; i++) {
        XT_OK(xgpu_buffer_release(all[i]));
    }
    free(in);
    free(f);
}

/* One histogram pass per input: uniform 32-bit values (the signed and the
 * unsigned extremes differ), then values in a narrow band so that many
 * work-items hit the same bins and the same minimum at once. */
#define HIST_BINS 37 /* not a power of two: v % HIST_BINS mixes all the bits */

static void local_atomics_histogram_min_max(void **state) {
    (void)state;
    char options[32];
    snprintf(options, sizeof options, "-DHIST_BINS=%du", HIST_BINS);
    xgpu_program *hp = xt_build(histogram_source, options);
    const uint32_t n = 30011, group = 64, groups = 7; /* a grid stride: several items each */
    uint32_t *in = malloc(n * sizeof *in);
    assert_non_null(in);
    xgpu_buffer *din, *dhist, *dumm, *dimm;
    XT_OK(xgpu_buffer_create(xt.ctx, n * 4, &din));
    XT_OK(xgpu_buffer_create(xt.ctx, HIST_BINS * 4, &dhist));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &dumm));
    XT_OK(xgpu_buffer_create(xt.ctx, 8, &dimm));
    xgpu_kernel *k = xt_kernel(hp, "local_histogram");
    xgpu_range r = xgpu_range_1d(groups, group);
    for (uint32_t pass = 0; pass < 2; pass++) {
        uint32_t seed = 21 + pass;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = xt_rand_u32(&seed);
            in[i] = pass == 0 ? v : 0x7ffffff0u + v % 40; /* straddles INT32_MAX */
        }
        XT_OK(xgpu_buffer_write(xt.queue, din, 0, in, n * 4, true, NULL));
        uint32_t zero = 0, umm[2] = {UINT32_MAX, 0};
        int32_t imm[2] = {INT32_MAX, INT32_MIN};
        XT_OK(xgpu_buffer_fill(xt.queue, dhist, 0, HIST_BINS * 4, &zero, 4, NULL));
        XT_OK(xgpu_buffer_write(xt.queue, dumm, 0, umm, 8, true, NULL));
        XT_OK(xgpu_buffer_write(xt.queue, dimm, 0, imm, 8, true, NULL));
        xgpu_arg args[] = {xgpu_arg_buffer(din), xgpu_arg_u32(n), xgpu_arg_buffer(dhist),
                           xgpu_arg_buffer(dumm), xgpu_arg_buffer(dimm)};
        XT_OK(xgpu_launch(xt.queue, k, &r, 5, args, NULL));
        uint32_t hist[HIST_BINS];
        XT_OK(xgpu_buffer_read(xt.queue, dhist, 0, hist, sizeof hist, true, NULL));
        XT_OK(xgpu_buffer_read(xt.queue, dumm, 0, umm, sizeof umm, true, NULL));
        XT_OK(xgpu_buffer_read(xt.queue, dimm, 0, imm, sizeof imm, true, NULL));
        uint32_t want_hist[HIST_BINS] = {0}, want_umin = UINT32_MAX, want_umax = 0;
        int32_t want_imin = INT32_MAX, want_imax = INT32_MIN;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = in[i];
            int32_t sv;
            memcpy(&sv, &v, sizeof sv);
            want_hist[v % HIST_BINS]++;
            want_umin = v < want_umin ? v : want_umin;
            want_umax = v > want_umax ? v : want_umax;
            want_imin = sv < want_imin ? sv : want_imin;
            want_imax = sv > want_imax ? sv : want_imax;
        }
        assert_memory_equal(hist, want_hist, sizeof hist);
        assert_int_equal(umm[0], want_umin);
        assert_int_equal(umm[1], want_umax);
        assert_int_equal(imm[0], want_imin);
        assert_int_equal(imm[1], want_imax);
        /* The inputs make the signed and unsigned answers differ. */
        assert_true((uint32_t)want_imin != want_umin || (uint32_t)want_imax != want_umax);
    }
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_program_release(hp));
    xgpu_buffer *all[] = {din, dhist, dumm, dimm};
    for (size_t i = 0; i < 4; i++) {
        XT_OK(xgpu_buffer_release(all[i]));
    }
    free(in);
}

static void scalar_arguments_arrive_intact(void **state) {
    (void)state;
    xgpu_kernel *k = xt_kernel(program, "scalars");
    xgpu_buffer *out = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, 5 * 8, &out));
    const uint64_t d = 0xfedcba9876543210ull;
    const int64_t c = -1234567890123ll;
    xgpu_arg args[] = {xgpu_arg_buffer(out), xgpu_arg_i32(-7), xgpu_arg_u32(0xfffffff0u),
                       xgpu_arg_i64(c),      xgpu_arg_u64(d),  xgpu_arg_f32(3.25f)};
    xgpu_range r = xgpu_range_1d(1, 1);
    XT_OK(xgpu_launch(xt.queue, k, &r, 6, args, NULL));
    uint64_t host[5];
    memset(host, 0xA5, sizeof host);
    XT_OK(xgpu_buffer_read(xt.queue, out, 0, host, sizeof host, true, NULL));
    assert_int_equal(host[0], (uint64_t)(int64_t)-7);
    assert_int_equal(host[1], 0xfffffff0u);
    assert_int_equal(host[2], (uint64_t)c);
    assert_int_equal(host[3], d);
    assert_int_equal(host[4], 3328);
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_buffer_release(out));
}

static void fp64_where_the_device_has_it(void **state) {
    (void)state;
    if (!xt.info.fp64) {
        skip();
    }
    xgpu_program *p = xt_build(fp64_source, NULL);
    xgpu_kernel *k = xt_kernel(p, "daxpy");
    const uint32_t n = 4099;
    double *x = malloc(n * 8), *y = malloc(n * 8), *want = malloc(n * 8), *scale = malloc(n * 8);
    assert_true(x && y && want && scale);
    uint32_t seed = 21;
    for (uint32_t i = 0; i < n; i++) {
        x[i] = (double)xt_rand_u32(&seed) / 4294967296.0 + 1e-9 * i;
        y[i] = (double)xt_rand_u32(&seed) / 4294967296.0 - 0.5;
        want[i] = 1.0000000001 * x[i] + y[i];
        scale[i] = fabs(1.0000000001 * x[i]) + fabs(y[i]);
    }
    xgpu_buffer *dx, *dy;
    XT_OK(xgpu_buffer_create(xt.ctx, n * 8, &dx));
    XT_OK(xgpu_buffer_create(xt.ctx, n * 8, &dy));
    XT_OK(xgpu_buffer_write(xt.queue, dx, 0, x, n * 8, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, dy, 0, y, n * 8, true, NULL));
    xgpu_arg args[] = {xgpu_arg_u32(n), xgpu_arg_f64(1.0000000001), xgpu_arg_buffer(dx),
                       xgpu_arg_buffer(dy)};
    xgpu_range r = xgpu_range_1d((n + 63) / 64, 64);
    XT_OK(xgpu_launch(xt.queue, k, &r, 4, args, NULL));
    memset(y, 0xff, n * 8); /* NaN poison */
    XT_OK(xgpu_buffer_read(xt.queue, dy, 0, y, n * 8, true, NULL));
    for (uint32_t i = 0; i < n; i++) {
        /* Error relative to the terms (fma or not); a float-precision
         * result would be off by ~1e-8, far above this. */
        if (!(fabs(y[i] - want[i]) <= 4e-16 * scale[i])) {
            fail_msg("daxpy[%u] = %.17g, want %.17g", i, y[i], want[i]);
        }
    }
    free(x);
    free(y);
    free(want);
    free(scale);
    XT_OK(xgpu_buffer_release(dx));
    XT_OK(xgpu_buffer_release(dy));
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_program_release(p));
}

/* What xgpu_device_info promises is what a kernel gets: fp16 reported means
 * XGPU_HAS_FP16 is 1 (it used to be reported on CUDA and HIP while the
 * prelude left it 0), and the same for fp64 and subgroups. */
/* What the flags test made, released by its teardown even when a check
 * fails: nothing is left for the suite's leak check to report. */
static struct {
    xgpu_program *p;
    xgpu_kernel *k;
    xgpu_buffer *b;
} flags_made;

static int release_flags(void **state) {
    (void)state;
    int bad = 0;
    if (flags_made.b) {
        bad |= xgpu_buffer_release(flags_made.b) != XGPU_SUCCESS;
    }
    if (flags_made.k) {
        bad |= xgpu_kernel_release(flags_made.k) != XGPU_SUCCESS;
    }
    if (flags_made.p) {
        bad |= xgpu_program_release(flags_made.p) != XGPU_SUCCESS;
    }
    flags_made.p = NULL;
    flags_made.k = NULL;
    flags_made.b = NULL;
    return bad;
}

static void feature_flags_match_device_info(void **state) {
    (void)state;
    static const char *flags = "XGPU_KERNEL void flags(XGPU_GLOBAL xgpu_u32 *out) {\n"
                               "    out[0] = XGPU_HAS_FP16;\n"
                               "    out[1] = XGPU_HAS_FP64;\n"
                               "    out[2] = XGPU_HAS_SUBGROUPS;\n"
                               "}\n";
    flags_made.p = xt_build(flags, NULL);
    flags_made.k = xt_kernel(flags_made.p, "flags");
    XT_OK(xgpu_buffer_create(xt.ctx, 3 * sizeof(uint32_t), &flags_made.b));
    uint32_t got[3] = {7, 7, 7};
    XT_OK(xgpu_buffer_write(xt.queue, flags_made.b, 0, got, sizeof got, true, NULL));
    xgpu_range r = xgpu_range_1d(1, 1);
    xgpu_arg args[] = {xgpu_arg_buffer(flags_made.b)};
    XT_OK(xgpu_launch(xt.queue, flags_made.k, &r, 1, args, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, flags_made.b, 0, got, sizeof got, true, NULL));
    assert_int_equal(got[0], xt.info.fp16 ? 1 : 0);
    assert_int_equal(got[1], xt.info.fp64 ? 1 : 0);
    assert_int_equal(got[2], xt.info.subgroups ? 1 : 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(geometry_1d, build_program, release_program),
        cmocka_unit_test_setup_teardown(geometry_2d, build_program, release_program),
        cmocka_unit_test_setup_teardown(geometry_3d, build_program, release_program),
        cmocka_unit_test_setup_teardown(local_memory_reduction, build_program, release_program),
        cmocka_unit_test_setup_teardown(atomics_count_min_max_and_float_add, build_program,
                                        release_program),
        cmocka_unit_test(local_atomics_histogram_min_max),
        cmocka_unit_test_setup_teardown(scalar_arguments_arrive_intact, build_program,
                                        release_program),
        cmocka_unit_test(fp64_where_the_device_has_it),
        cmocka_unit_test_teardown(feature_flags_match_device_info, release_flags),
    };
    return XT_RUN("launch", tests);
}
