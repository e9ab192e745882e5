/* gpubench's vendor rows against stand-ins that record each GEMM call:
 * cuBLAS (fake_cublas.c) on a fake CUDA device (tests/cuda/fake_device.c)
 * and rocBLAS (fake_rocblas.c) on a fake HIP device (tests/hip/fake_hip.c).
 * The types, compute type, algorithm, transposes, sizes, leading
 * dimensions, strides and batch count of the bf16, f16, tf32, int8 and
 * batched rows, each after the stream was set; a device too old for a
 * precision, or a library without it, gets a row that says so and no
 * call. The fakes compute nothing, so the rows fail verification: only
 * the calls are checked. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>

#include "xt_file.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define RECORD "gb-vendor.record"
#define JSON "gb-vendor.json"

/* gpubench with `args` on the fake device and library of `device`
 * (FAKE_CUDA_CUBLAS or FAKE_HIP_ROCBLAS, after `env`); the recorded calls
 * (to free). */
static char *run_on(const char *device, const char *env, const char *args) {
    char cmd[4096];
    int status = 0;
    unlink(RECORD);
    unlink(JSON);
    snprintf(cmd, sizeof cmd,
             "%s %s FAKE_CUBLAS_RECORD=" RECORD " FAKE_ROCBLAS_RECORD=" RECORD
             " %s -b gemm %s --reps 2 --json " JSON " 2>&1",
             env, device, GPUBENCH, args);
    char *out = xt_run_command(cmd, &status);
    assert_non_null(out);
    char *rec = xt_read_file(RECORD, NULL);
    if (!rec) {
        fail_msg("no call recorded (status %d):\n%s", status, out);
    }
    free(out);
    return rec;
}

static char *run(const char *env, const char *args) {
    return run_on(FAKE_CUDA_CUBLAS, env, args);
}

/* Every recorded GEMM ran after a stream was set on its handle. */
static void streams_set(const char *rec) {
    if (strstr(rec, "stream=none")) {
        fail_msg("a GEMM before cublasSetStream_v2:\n%s", rec);
    }
}

static void has(const char *rec, const char *call) {
    if (!strstr(rec, call)) {
        fail_msg("no call\n  %s\nin\n%s", call, rec);
    }
}

/* The `impl` row of `dtype` in the JSON file, with its members checked. */
static void vendor_row(const char *impl, const char *dtype, const char *path, const char *c_dtype,
                       const char *note_has) {
    char *text = xt_read_file(JSON, NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    const cJSON *r, *found = NULL;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results")) {
        if (!strcmp(cJSON_GetObjectItem(r, "impl")->valuestring, impl) &&
            !strcmp(cJSON_GetObjectItem(r, "dtype")->valuestring, dtype)) {
            found = r;
        }
    }
    if (!found) {
        fail_msg("no %s %s row in\n%s", impl, dtype, text);
    }
    assert_string_equal(cJSON_GetObjectItem(found, "path")->valuestring, path);
    assert_string_equal(cJSON_GetObjectItem(found, "c_dtype")->valuestring, c_dtype);
    const char *note = cJSON_GetObjectItem(found, "note")->valuestring;
    if (!strstr(note, note_has)) {
        fail_msg("%s %s note \"%s\" lacks \"%s\"", impl, dtype, note, note_has);
    }
    cJSON_Delete(root);
    free(text);
}

/* cudaDataType_t: CUDA_R_32F 0, CUDA_R_16F 2, CUDA_R_8I 3, CUDA_R_32I 10,
 * CUDA_R_16BF 14; cublasComputeType_t: 32F 68, 32I 72, 32F_FAST_TF32 77;
 * CUBLAS_GEMM_DEFAULT -1. Row-major 64^3 as column-major: A and B
 * swapped, each leading dimension 64. */
static void mixed_precisions(void **state) {
    (void)state;
    char *rec = run("", "--dtype bf16,f16,tf32,int8 --size 64");
    streams_set(rec);
    has(rec, "GemmEx ta=0 tb=0 m=64 n=64 k=64 atype=14 lda=64 btype=14 ldb=64 ctype=0 ldc=64 "
             "compute=68 algo=-1 alpha=1 beta=0");
    has(rec, "GemmEx ta=0 tb=0 m=64 n=64 k=64 atype=2 lda=64 btype=2 ldb=64 ctype=0 ldc=64 "
             "compute=68 algo=-1 alpha=1 beta=0");
    has(rec, "GemmEx ta=0 tb=0 m=64 n=64 k=64 atype=0 lda=64 btype=0 ldb=64 ctype=0 ldc=64 "
             "compute=77 algo=-1 alpha=1 beta=0");
    has(rec, "GemmEx ta=0 tb=0 m=64 n=64 k=64 atype=3 lda=64 btype=3 ldb=64 ctype=10 ldc=64 "
             "compute=72 algo=-1 alpha=1 beta=0");
    assert_null(strstr(rec, "Sgemm"));
    free(rec);
    vendor_row("cublas", "bf16", "cublasGemmEx", "f32", "");
    vendor_row("cublas", "int8", "cublasGemmEx", "i32", "");
}

/* --batch: cublasGemmStridedBatchedEx for every precision (f32 too),
 * the strides of dense 32 x 32 matrices. */
static void batched(void **state) {
    (void)state;
    char *rec = run("", "--dtype f32,bf16 --size 32 --batch 3");
    streams_set(rec);
    has(rec, "GemmStridedBatchedEx ta=0 tb=0 m=32 n=32 k=32 atype=14 lda=32 sa=1024 btype=14 "
             "ldb=32 sb=1024 ctype=0 ldc=32 sc=1024 batch=3 compute=68 algo=-1");
    has(rec, "GemmStridedBatchedEx ta=0 tb=0 m=32 n=32 k=32 atype=0 lda=32 sa=1024 btype=0 "
             "ldb=32 sb=1024 ctype=0 ldc=32 sc=1024 batch=3 compute=68 algo=-1");
    assert_null(strstr(rec, "GemmEx ta"));
    free(rec);
    vendor_row("cublas", "bf16", "cublasGemmStridedBatchedEx", "f32", "");
}

/* One GEMM of f32 stays SGEMM, as before. */
static void f32_stays_sgemm(void **state) {
    (void)state;
    char *rec = run("", "--dtype f32 --size 32");
    streams_set(rec);
    has(rec, "Sgemm ta=0 tb=0 m=32 n=32 k=32 lda=32 ldb=32 ldc=32 alpha=1 beta=0");
    free(rec);
}

/* sm_70 has no bf16 or tf32 tensor cores (sm_80) and no int8 ones
 * (sm_75): those rows say so and call nothing; f16 still runs. */
static void old_device_says_why(void **state) {
    (void)state;
    char *rec = run("FAKE_CUDA_SM=70", "--dtype bf16,tf32,int8,f16 --size 32");
    has(rec, "atype=2 ");
    assert_null(strstr(rec, "atype=14"));
    assert_null(strstr(rec, "atype=3 "));
    assert_null(strstr(rec, "compute=77"));
    free(rec);
    vendor_row("cublas", "bf16", "cublasGemmEx", "f32",
               "not run: cuBLAS bf16 needs sm_80 or newer (sm_70)");
    vendor_row("cublas", "int8", "cublasGemmEx", "i32",
               "not run: cuBLAS int8 needs sm_75 or newer (sm_70)");
    vendor_row("cublas", "tf32", "cublasGemmEx", "f32",
               "not run: cuBLAS tf32 needs sm_80 or newer");
}

#if defined(FAKE_HIP_ROCBLAS)
/* rocblas_datatype: f16_r 150, f32_r 151, i8_r 160, i32_r 162, bf16_r 168;
 * rocblas_operation_none 111; rocblas_gemm_algo_standard 0; D is C. */
static void rocblas_precisions(void **state) {
    (void)state;
    char *rec = run_on(FAKE_HIP_ROCBLAS, "", "--dtype f32,bf16,f16,int8,tf32 --size 64");
    streams_set(rec);
    has(rec, "sgemm ta=111 tb=111 m=64 n=64 k=64 lda=64 ldb=64 ldc=64 alpha=1 beta=0");
    has(rec, "gemm_ex ta=111 tb=111 m=64 n=64 k=64 at=168 lda=64 bt=168 ldb=64 ct=151 ldc=64 "
             "dt=151 ldd=64 d_is_c=1 compute=151 algo=0 solution=0 flags=0 alpha=1 beta=0");
    has(rec, "gemm_ex ta=111 tb=111 m=64 n=64 k=64 at=150 lda=64 bt=150 ldb=64 ct=151 ldc=64 "
             "dt=151 ldd=64 d_is_c=1 compute=151 algo=0");
    has(rec, "gemm_ex ta=111 tb=111 m=64 n=64 k=64 at=160 lda=64 bt=160 ldb=64 ct=162 ldc=64 "
             "dt=162 ldd=64 d_is_c=1 compute=162 algo=0 solution=0 flags=0 alpha=1 beta=0");
    free(rec);
    vendor_row("rocblas", "bf16", "rocblas_gemm_ex", "f32", "");
    vendor_row("rocblas", "tf32", "rocblas_gemm_ex", "f32", "not run: rocBLAS has no tf32 GEMM");
}

static void rocblas_batched(void **state) {
    (void)state;
    char *rec = run_on(FAKE_HIP_ROCBLAS, "", "--dtype bf16 --size 16 --batch 5");
    streams_set(rec);
    has(rec, "gemm_strided_batched_ex ta=111 tb=111 m=16 n=16 k=16 at=168 lda=16 sa=256 bt=168 "
             "ldb=16 sb=256 ct=151 ldc=16 sc=256 dt=151 ldd=16 sd=256 d_is_c=1 batch=5 "
             "compute=151 algo=0");
    free(rec);
}
#endif

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mixed_precisions),
        cmocka_unit_test(batched),
        cmocka_unit_test(f32_stays_sgemm),
        cmocka_unit_test(old_device_says_why),
#if defined(FAKE_HIP_ROCBLAS)
        cmocka_unit_test(rocblas_precisions),
        cmocka_unit_test(rocblas_batched),
#endif
    };
    return cmocka_run_group_tests_name("gpubench_vendor", tests, NULL, NULL);
}
