/* The lookup's fallback rules without a device: made-up device identities
 * against a database file the test writes. An entry of this device wins;
 * one of another device of the same driver family is used; entries of
 * another driver family (another OpenCL implementation on the same CPU)
 * or of another vendor are warm starts only, and the built-in default
 * runs; a damaged record is passed over. And the built-in defaults per
 * device class. */
#define _GNU_SOURCE
#include "core_int.h"
#include "tunedb_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define POCL "Portable Computing Language; OpenCL 3.0 PoCL 3.1; OpenCL 3.0; driver 3.1"
#define INTEL "Intel(R) OpenCL; OpenCL 3.0 LINUX; OpenCL 3.0 (Build 0); driver 2026.22"
#define SOURCE "0123456789abcdef"

static char dir[256];

typedef struct ident {
    const char *vendor, *type, *device, *arch, *compiler;
} ident;

/* This machine's CPU under pocl's pthread driver. */
static const ident me = {"AuthenticAMD", "cpu", "pthread-znver3", "znver3", POCL};

static xgpu__tune_key key_of(const ident *d) {
    xgpu__tune_key k = {0};
    snprintf(k.backend, sizeof k.backend, "opencl");
    snprintf(k.vendor, sizeof k.vendor, "%s", d->vendor);
    snprintf(k.type, sizeof k.type, "%s", d->type);
    snprintf(k.device, sizeof k.device, "%s", d->device);
    snprintf(k.arch, sizeof k.arch, "%s", d->arch);
    k.compute_units = 8;
    snprintf(k.driver, sizeof k.driver, "3.1");
    snprintf(k.compiler, sizeof k.compiler, "%s", d->compiler);
    snprintf(k.source, sizeof k.source, SOURCE);
    snprintf(k.xgpu, sizeof k.xgpu, "0.6.0");
    return k;
}

/* One record of the sum's f32 large class as the database spells it,
 * made with kernel source `source`. */
static void record_text(char *out, size_t size, const ident *d, const char *best, double rate,
                        const char *source) {
    snprintf(out, size,
             "{\"kernel\": \"sum\", \"dtype\": \"f32\", \"class\": \"large\", \"size\": 1048576, "
             "\"backend\": \"opencl\", \"vendor\": \"%s\", \"type\": \"%s\", \"device\": \"%s\", "
             "\"arch\": \"%s\", \"compute_units\": 8, \"driver\": \"3.1\", \"compiler\": \"%s\", "
             "\"source\": \"%s\", \"xgpu\": \"0.6.0\", \"complete\": true, \"best\": \"%s\", "
             "\"rate\": %g, \"unit\": \"GB/s\", \"tried\": []}",
             d->vendor, d->type, d->device, d->arch, d->compiler, source, best, rate);
}

static void put_record(FILE *f, const ident *d, const char *best, double rate, bool last) {
    char text[1500];
    record_text(text, sizeof text, d, best, rate, SOURCE);
    fprintf(f, "    %s%s\n", text, last ? "" : ",");
}

typedef struct entry {
    ident who;
    const char *best;
    double rate;
} entry;

/* Writes the entries (and `extra`, a raw record, when not NULL) to a
 * database file and reads it back as a lookup does. */
static void db_of(const entry *e, size_t n, const char *extra, xgpu__tune_db *db) {
    char path[300];
    snprintf(path, sizeof path, "%s/tune.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"schema\": \"%s\", \"records\": [\n", XGPU__TUNE_SCHEMA);
    if (extra) {
        fprintf(f, "    %s%s\n", extra, n ? "," : "");
    }
    for (size_t i = 0; i < n; i++) {
        put_record(f, &e[i].who, e[i].best, e[i].rate, i + 1 == n);
    }
    fputs("]}\n", f);
    fclose(f);
    char why[400] = "";
    assert_int_equal(xgpu__tune_db_load(path, false, db, why, sizeof why), XGPU__DB_OK);
}

static xgpu_device_info cpu_info(void) {
    xgpu_device_info info = {0};
    info.type = XGPU_DEVICE_TYPE_CPU;
    info.compute_units = 8;
    info.max_group_size = 4096;
    info.local_mem_bytes = 256 << 10;
    info.max_alloc_bytes = 1ull << 30;
    info.fp64 = true;
    return info;
}

static const char *P_EXACT = "group=4,gpcu=1,unroll=1,vec=64,chunked=1";
static const char *P_SIBLING = "group=8,gpcu=2,unroll=1,vec=32,chunked=1";
static const char *P_VENDOR = "group=16,gpcu=4,unroll=1,vec=16,chunked=1";
static const char *P_OTHER = "group=64,gpcu=8,unroll=1,vec=8,chunked=1";

/* The choice for `me` from a user database of the entries (the built-in
 * one empty). */
static xgpu__tune_choice pick(const entry *e, size_t n, const char *extra) {
    xgpu__tune_db user, shipped = {0};
    db_of(e, n, extra, &user);
    xgpu__tune_key key = key_of(&me);
    xgpu_device_info info = cpu_info();
    xgpu__tune_choice c;
    xgpu__tune_pick(&key, &info, XGPU__TK_SUM, XGPU_F32, XGPU__TC_LARGE, &user, &shipped, &c);
    xgpu__tune_db_free(&user);
    return c;
}

static void assert_values(const xgpu__tune_choice *c, const char *want) {
    char got[XGPU__TUNE_PARAMS_MAX];
    xgpu__tune_format(XGPU__TK_SUM, &c->values, got, sizeof got);
    assert_string_equal(got, want);
}

static void assert_builtin(const xgpu__tune_choice *c) {
    xgpu_device_info info = cpu_info();
    xgpu__tune_values v;
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F32, XGPU__TC_LARGE, &info, &v);
    assert_int_equal(c->level, XGPU__TL_NONE);
    assert_memory_equal(&c->values, &v, sizeof v);
}

/* Another OpenCL implementation on this same CPU. */
static const ident intel = {"Intel(R) Corporation", "cpu", "AMD EPYC 9654", "", INTEL};
/* pocl's other driver on the same CPU: same platform, same arch. */
static const ident basic = {"AuthenticAMD", "cpu", "basic-znver3", "znver3", POCL};
/* pocl on another CPU of the same vendor. */
static const ident zen2 = {"AuthenticAMD", "cpu", "pthread-znver2", "znver2", POCL};
/* pocl on another vendor's CPU. */
static const ident xeon = {"GenuineIntel", "cpu", "pthread-skylake", "skylake", POCL};

static void same_device_wins(void **state) {
    (void)state;
    entry e[] = {{intel, P_OTHER, 900}, {basic, P_SIBLING, 80}, {me, P_EXACT, 10}};
    xgpu__tune_choice c = pick(e, 3, NULL);
    assert_int_equal(c.level, XGPU__TL_EXACT);
    assert_false(c.stale);
    assert_false(c.shipped);
    assert_values(&c, P_EXACT);
}

static void same_platform_other_device_is_used(void **state) {
    (void)state;
    /* The sibling driver with the same arch, before another arch of the
     * vendor, whatever their rates. */
    entry e[] = {{zen2, P_VENDOR, 500}, {basic, P_SIBLING, 50}};
    xgpu__tune_choice c = pick(e, 2, NULL);
    assert_int_equal(c.level, XGPU__TL_ARCH);
    assert_false(c.stale);
    assert_values(&c, P_SIBLING);
    entry v[] = {{zen2, P_VENDOR, 500}};
    c = pick(v, 1, NULL);
    assert_int_equal(c.level, XGPU__TL_VENDOR);
    assert_values(&c, P_VENDOR);
}

static void other_platform_same_cpu_is_a_warm_start(void **state) {
    (void)state;
    /* However fast it ran there, and even with this device's arch. */
    ident twin = intel;
    twin.vendor = me.vendor;
    twin.arch = me.arch;
    entry e[] = {{intel, P_OTHER, 900}, {twin, P_OTHER, 900}};
    xgpu__tune_choice c = pick(e, 2, NULL);
    assert_builtin(&c);
    assert_true(c.warm_only);
    /* The same device name under another platform is not this device. */
    ident same_name = intel;
    same_name.device = me.device;
    entry s[] = {{same_name, P_OTHER, 900}};
    c = pick(s, 1, NULL);
    assert_builtin(&c);
    assert_false(c.stale);
    /* A sibling of the family still comes before the defaults. */
    entry both[] = {{intel, P_OTHER, 900}, {basic, P_SIBLING, 50}};
    c = pick(both, 2, NULL);
    assert_int_equal(c.level, XGPU__TL_ARCH);
    assert_values(&c, P_SIBLING);
}

/* This device's entry made with other kernel sources (another xgpu's
 * tune) is never used, and the choice says so; another device's says
 * nothing; a current entry of a sibling is still used before it. */
static void other_kernel_source_is_outdated(void **state) {
    (void)state;
    char old[1500];
    record_text(old, sizeof old, &me, P_EXACT, 900, "fedcba9876543210");
    xgpu__tune_choice c = pick(NULL, 0, old);
    assert_builtin(&c);
    assert_true(c.outdated);
    assert_false(c.warm_only);
    entry e[] = {{basic, P_SIBLING, 50}};
    c = pick(e, 1, old);
    assert_int_equal(c.level, XGPU__TL_ARCH);
    assert_false(c.outdated);
    assert_values(&c, P_SIBLING);
    record_text(old, sizeof old, &zen2, P_EXACT, 900, "fedcba9876543210");
    c = pick(NULL, 0, old);
    assert_builtin(&c);
    assert_false(c.outdated);
    /* The current source of this device: used, not outdated. */
    record_text(old, sizeof old, &me, P_EXACT, 900, SOURCE);
    c = pick(NULL, 0, old);
    assert_int_equal(c.level, XGPU__TL_EXACT);
    assert_false(c.outdated);
}

static void other_vendor_is_a_warm_start(void **state) {
    (void)state;
    entry e[] = {{xeon, P_OTHER, 900}};
    xgpu__tune_choice c = pick(e, 1, NULL);
    assert_builtin(&c);
    assert_true(c.warm_only);
    /* Another device type says nothing at all. */
    ident gpu = {"AuthenticAMD", "gpu", "gfx1100", "gfx1100", POCL};
    entry g[] = {{gpu, P_OTHER, 900}};
    c = pick(g, 1, NULL);
    assert_builtin(&c);
    assert_false(c.warm_only);
}

static void damaged_record_is_passed_over(void **state) {
    (void)state;
    /* A record missing its key, and one whose winner does not parse: the
     * file is read, they are skipped, the sibling is used. */
    const char *damaged = "{\"kernel\": \"sum\", \"dtype\": \"f32\", \"class\": \"large\", "
                          "\"best\": \"group=4\"}";
    entry e[] = {{basic, P_SIBLING, 50}, {me, "group=banana", 900}};
    xgpu__tune_choice c = pick(e, 2, damaged);
    assert_int_equal(c.level, XGPU__TL_ARCH);
    assert_values(&c, P_SIBLING);
    /* A record this device cannot run (a group past its limit) gives way. */
    entry big[] = {{basic, P_SIBLING, 50},
                   {me, "group=8192,gpcu=1,unroll=1,vec=64,chunked=1", 900}};
    c = pick(big, 2, NULL);
    assert_int_equal(c.level, XGPU__TL_ARCH);
    /* Nothing usable: the default, with no warm start to mention. */
    c = pick(NULL, 0, damaged);
    assert_builtin(&c);
    assert_false(c.warm_only);
}

static void user_database_and_shipped(void **state) {
    (void)state;
    /* The built-in database's exact entry beats the user's sibling one;
     * on a tie of levels the user's wins. */
    xgpu__tune_db user, shipped;
    entry u[] = {{basic, P_SIBLING, 50}};
    entry s[] = {{me, P_EXACT, 10}, {zen2, P_VENDOR, 500}};
    db_of(s, 2, NULL, &shipped);
    db_of(u, 1, NULL, &user);
    xgpu__tune_key key = key_of(&me);
    xgpu_device_info info = cpu_info();
    xgpu__tune_choice c;
    xgpu__tune_pick(&key, &info, XGPU__TK_SUM, XGPU_F32, XGPU__TC_LARGE, &user, &shipped, &c);
    assert_int_equal(c.level, XGPU__TL_EXACT);
    assert_true(c.shipped);
    assert_values(&c, P_EXACT);
    xgpu__tune_db_free(&shipped);
    entry s2[] = {{basic, P_VENDOR, 500}};
    db_of(s2, 1, NULL, &shipped);
    xgpu__tune_pick(&key, &info, XGPU__TK_SUM, XGPU_F32, XGPU__TC_LARGE, &user, &shipped, &c);
    assert_int_equal(c.level, XGPU__TL_ARCH);
    assert_false(c.shipped);
    assert_values(&c, P_SIBLING);
    xgpu__tune_db_free(&user);
    xgpu__tune_db_free(&shipped);
}

static void families(void **state) {
    (void)state;
    xgpu__tune_key a = key_of(&me), b = key_of(&basic), i = key_of(&intel);
    assert_true(xgpu__tune_same_family(&a, &b));
    assert_false(xgpu__tune_same_family(&a, &i));
    assert_false(xgpu__tune_same_device(&a, &b));
    /* Another pocl version is the same platform. */
    snprintf(b.compiler, sizeof b.compiler, "Portable Computing Language; OpenCL 3.0 PoCL 6.0");
    assert_true(xgpu__tune_same_family(&a, &b));
    /* CUDA and HIP: the backend is the family. */
    snprintf(a.backend, sizeof a.backend, "cuda");
    snprintf(b.backend, sizeof b.backend, "cuda");
    snprintf(a.compiler, sizeof a.compiler, "NVRTC 12.4");
    snprintf(b.compiler, sizeof b.compiler, "NVRTC 13.0");
    assert_true(xgpu__tune_same_family(&a, &b));
    snprintf(b.backend, sizeof b.backend, "hip");
    assert_false(xgpu__tune_same_family(&a, &b));
}

/* Devices neither CPU nor GPU get the small, grid-stride shapes, valid
 * for them; CPUs and GPUs keep their own. */
static void defaults_per_device_class(void **state) {
    (void)state;
    xgpu_device_info info = cpu_info();
    xgpu__tune_values cpu, gpu, other;
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F32, XGPU__TC_SMALL, &info, &cpu);
    info.type = XGPU_DEVICE_TYPE_GPU;
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F32, XGPU__TC_SMALL, &info, &gpu);
    info.type = XGPU_DEVICE_TYPE_ACCELERATOR;
    info.max_group_size = 32;
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F32, XGPU__TC_SMALL, &info, &other);
    assert_int_equal(cpu.v[4], 1); /* chunked */
    assert_int_equal(gpu.v[0], 256);
    assert_int_equal(other.v[0], 32); /* 64, halved to the device's limit */
    assert_int_equal(other.v[4], 0);  /* a grid stride */
    assert_true(xgpu__tune_valid(XGPU__TK_SUM, XGPU_F32, &info, &other, NULL, 0));
    xgpu__tune_builtin(XGPU__TK_STREAM, XGPU_F32, XGPU__TC_SMALL, &info, &other);
    assert_true(xgpu__tune_valid(XGPU__TK_STREAM, XGPU_F32, &info, &other, NULL, 0));
    info.max_group_size = 1024;
    xgpu__tune_values g;
    xgpu__tune_builtin(XGPU__TK_GEMM, XGPU_F32, XGPU__TC_SMALL, &info, &g);
    xgpu_gemm_params p = xgpu__tune_to_gemm(&g);
    assert_int_equal(p.tile_m, 32);
    assert_int_equal(p.work_m, 4);
    assert_true(xgpu__tune_valid(XGPU__TK_GEMM, XGPU_F32, &info, &g, NULL, 0));
}

/* pocl (and a CPU runtime that does not name its platform) streams a
 * chunk per work-item; a runtime that vectorises across work-items
 * (Intel's) streams a contiguous range per group of one vector and runs
 * the GPU family's GEMM, or the register family where it can be told to
 * run one work-item per thread; both reduce chunks per work-item, pocl in groups
 * of 4, one a core, the other in groups of one vector, two a core. Every
 * default is valid on its device. */
static void defaults_per_cpu_runtime(void **state) {
    (void)state;
    xgpu_device_info pocl = cpu_info(), simt = cpu_info(), avx2 = cpu_info();
    snprintf(pocl.platform, sizeof pocl.platform, "Portable Computing Language");
    pocl.native_vector_width_f32 = 16;
    snprintf(simt.platform, sizeof simt.platform, "Intel(R) OpenCL");
    simt.native_vector_width_f32 = 16;
    avx2 = simt;
    avx2.native_vector_width_f32 = 8;
    assert_false(xgpu__tune_cpu_simt(&pocl));
    assert_true(xgpu__tune_cpu_simt(&simt));
    xgpu_device_info unnamed = cpu_info();
    assert_false(xgpu__tune_cpu_simt(&unnamed));
    xgpu_device_info gpu = simt;
    gpu.type = XGPU_DEVICE_TYPE_GPU;
    assert_false(xgpu__tune_cpu_simt(&gpu));

    const xgpu_device_info *all[] = {&pocl, &simt, &avx2, &unnamed};
    const xgpu__tune_kernel_id ids[] = {XGPU__TK_SUM, XGPU__TK_MINMAX, XGPU__TK_ARGMAX,
                                        XGPU__TK_STREAM, XGPU__TK_GEMM};
    const xgpu_dtype types[] = {XGPU_F32, XGPU_F64};
    for (size_t d = 0; d < 4; d++) {
        for (size_t k = 0; k < 5; k++) {
            for (size_t t = 0; t < 2; t++) {
                for (int c = 0; c < XGPU__TC_COUNT; c++) {
                    xgpu__tune_values v;
                    char why[200] = "";
                    xgpu__tune_builtin(ids[k], types[t], (xgpu__tune_class)c, all[d], &v);
                    if (!xgpu__tune_valid(ids[k], types[t], all[d], &v, why, sizeof why)) {
                        fail_msg("device %zu kernel %zu dtype %zu class %d: %s", d, k, t, c, why);
                    }
                }
            }
        }
    }

    xgpu__tune_values v;
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F32, XGPU__TC_SMALL, &pocl, &v);
    assert_int_equal(v.v[4], 1); /* a chunk per work-item */
    assert_int_equal(v.v[0], 4); /* 4 work-items, one group a core */
    assert_int_equal(v.v[1], 1);
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F32, XGPU__TC_SMALL, &unnamed, &v);
    assert_int_equal(v.v[4], 1);
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F32, XGPU__TC_SMALL, &simt, &v);
    assert_int_equal(v.v[4], 1);  /* the chunks' lanes are OpenCL vectors on both */
    assert_int_equal(v.v[0], 16); /* one vector of work-items, 2 groups a core */
    assert_int_equal(v.v[1], 2);
    xgpu__tune_builtin(XGPU__TK_ARGMAX, XGPU_F64, XGPU__TC_SMALL, &avx2, &v);
    assert_int_equal(v.v[0], 8);
    xgpu__tune_builtin(XGPU__TK_STREAM, XGPU_F32, XGPU__TC_SMALL, &simt, &v);
    assert_int_equal(v.v[0], 16); /* one AVX-512 vector of work-items */
    assert_int_equal(v.v[2], 2);  /* a range per group */
    xgpu__tune_builtin(XGPU__TK_STREAM, XGPU_F32, XGPU__TC_SMALL, &avx2, &v);
    assert_int_equal(v.v[0], 8);
    xgpu__tune_builtin(XGPU__TK_STREAM, XGPU_F32, XGPU__TC_SMALL, &pocl, &v);
    assert_int_equal(v.v[2], 1);

    xgpu_gemm_params p;
    xgpu__gemm_builtin(&simt, XGPU_F32, &p);
    assert_int_equal(p.contiguous, XGPU_GEMM_GPU);
    xgpu__gemm_builtin(&simt, XGPU_F64, &p);
    assert_int_equal(p.contiguous, XGPU_GEMM_GPU);
    /* One that runs a kernel one work-item per thread when asked (Intel's
     * OpenCL) takes the register family, as pocl does; not on another
     * backend, and not for f16. */
    xgpu_device_info hinted = simt;
    hinted.items_unvectorised_hint = true;
    snprintf(hinted.backend, sizeof hinted.backend, "opencl");
    xgpu__gemm_builtin(&hinted, XGPU_F32, &p);
    assert_int_equal(p.contiguous, XGPU_GEMM_REGISTERS);
    assert_int_equal(p.work_n, 64);
    xgpu__gemm_builtin(&hinted, XGPU_F64, &p);
    assert_int_equal(p.contiguous, XGPU_GEMM_REGISTERS);
    xgpu__gemm_builtin(&hinted, XGPU_F16, &p);
    assert_int_not_equal(p.contiguous, XGPU_GEMM_REGISTERS);
    hinted.native_vector_width_f32 = 8;
    xgpu__gemm_builtin(&hinted, XGPU_F32, &p);
    assert_int_equal(p.contiguous, XGPU_GEMM_REGISTERS);
    assert_int_equal(p.work_n, 16);
    snprintf(hinted.backend, sizeof hinted.backend, "hip");
    xgpu__gemm_builtin(&hinted, XGPU_F32, &p);
    assert_int_not_equal(p.contiguous, XGPU_GEMM_REGISTERS);
    snprintf(simt.backend, sizeof simt.backend, "opencl");
    xgpu__gemm_builtin(&simt, XGPU_F32, &p);
    assert_int_equal(p.contiguous, XGPU_GEMM_GPU);
    xgpu__gemm_builtin(&pocl, XGPU_F32, &p);
    assert_int_equal(p.contiguous, 1);

    /* The tuner reaches the third layout from the others. */
    xgpu__tune_values out[64];
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F32, XGPU__TC_SMALL, &pocl, &v);
    size_t n = xgpu__tune_neighbours(XGPU__TK_SUM, XGPU_F32, &pocl, &v, out, 64);
    bool reached = false;
    for (size_t i = 0; i < n; i++) {
        reached |= out[i].v[4] == 2;
    }
    assert_true(reached);
    v = (xgpu__tune_values){{16, 4, 2, 1, 3}};
    assert_false(xgpu__tune_valid(XGPU__TK_SUM, XGPU_F32, &simt, &v, NULL, 0));
    v = (xgpu__tune_values){{16, 4, 2, 1, 1}};
    assert_false(xgpu__tune_valid(XGPU__TK_SUM, XGPU_F32, &simt, &v, NULL, 0));
}

/* Past 16 MiB (the large class) a CPU reduction reads one 64-byte vector
 * a block, one accumulator (float16, int16; double8, long8); below it four
 * vectors hide the add chain's latency. Only `vec` changes, on both CPU
 * runtimes; GPUs and other devices keep one shape for both classes. The
 * tuner tries both classes' built-ins first, in either class. */
static void cpu_reductions_one_vector_past_the_cache(void **state) {
    (void)state;
    xgpu_device_info pocl = cpu_info(), simt = cpu_info(), gpu = cpu_info(), other = cpu_info();
    snprintf(pocl.platform, sizeof pocl.platform, "Portable Computing Language");
    snprintf(simt.platform, sizeof simt.platform, "Intel(R) OpenCL");
    simt.native_vector_width_f32 = 16;
    gpu.type = XGPU_DEVICE_TYPE_GPU;
    other.type = XGPU_DEVICE_TYPE_ACCELERATOR;
    const xgpu_dtype types[] = {XGPU_F32, XGPU_F64, XGPU_I32, XGPU_I64};
    const uint32_t one_vector[] = {16, 8, 16, 8};
    const xgpu__tune_kernel_id ids[] = {XGPU__TK_SUM, XGPU__TK_MINMAX, XGPU__TK_ARGMAX};
    for (size_t k = 0; k < 3; k++) {
        for (size_t t = 0; t < 4; t++) {
            const xgpu_device_info *cpus[] = {&pocl, &simt};
            for (size_t d = 0; d < 2; d++) {
                xgpu__tune_values small, large;
                xgpu__tune_builtin(ids[k], types[t], XGPU__TC_SMALL, cpus[d], &small);
                xgpu__tune_builtin(ids[k], types[t], XGPU__TC_LARGE, cpus[d], &large);
                assert_int_equal(small.v[3], 64);
                assert_int_equal(large.v[3], one_vector[t]);
                large.v[3] = small.v[3];
                assert_memory_equal(&small, &large, sizeof small);
                assert_true(xgpu__tune_valid(ids[k], types[t], cpus[d], &small, NULL, 0));
            }
            const xgpu_device_info *rest[] = {&gpu, &other};
            for (size_t d = 0; d < 2; d++) {
                xgpu__tune_values small, large;
                xgpu__tune_builtin(ids[k], types[t], XGPU__TC_SMALL, rest[d], &small);
                xgpu__tune_builtin(ids[k], types[t], XGPU__TC_LARGE, rest[d], &large);
                assert_memory_equal(&small, &large, sizeof small);
            }
        }
    }
    xgpu__tune_values list[64], small, large;
    size_t n = xgpu__tune_candidates(XGPU__TK_SUM, XGPU_F64, &pocl, list, 64);
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F64, XGPU__TC_SMALL, &pocl, &small);
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F64, XGPU__TC_LARGE, &pocl, &large);
    assert_true(n >= 2);
    assert_memory_equal(&list[0], &small, sizeof small);
    assert_memory_equal(&list[1], &large, sizeof large);
}

static int make_dir(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/xgpu-tune-fallback-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state) {
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/tune.json", dir);
    unlink(path);
    return rmdir(dir);
}

int main(void) {
    setenv("XGPU_LOG", "error", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_device_wins),
        cmocka_unit_test(same_platform_other_device_is_used),
        cmocka_unit_test(other_platform_same_cpu_is_a_warm_start),
        cmocka_unit_test(other_vendor_is_a_warm_start),
        cmocka_unit_test(other_kernel_source_is_outdated),
        cmocka_unit_test(damaged_record_is_passed_over),
        cmocka_unit_test(user_database_and_shipped),
        cmocka_unit_test(families),
        cmocka_unit_test(defaults_per_device_class),
        cmocka_unit_test(defaults_per_cpu_runtime),
        cmocka_unit_test(cpu_reductions_one_vector_past_the_cache),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
