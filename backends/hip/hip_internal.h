/* HIP backend internals, shared by its source files. */
#ifndef XGPU_HIP_INTERNAL_H
#define XGPU_HIP_INTERNAL_H

#include "hip_api.h"
#include "xgpu_backend.h"

#include <pthread.h>

#define HIP_BACKEND_NAME "hip"

typedef struct hip_state {
    hip_runtime rt;
    int device_count;
    char (*arch)[64]; /* gcnArchName of each device, "gfx90a:sramecc+:xnack-" */
    pthread_once_t rtc_once;
    hip_rtc rtc;
    xgpu_status rtc_status;
    char rtc_reason[1024];
} hip_state;

typedef struct hip_ctx {
    hip_state *state;
    int device;
} hip_ctx;

typedef struct hip_queue {
    hip_ctx *ctx;
    hipStream_t stream;
} hip_queue;

typedef struct hip_buffer {
    hip_ctx *ctx;
    hipDeviceptr_t ptr;
} hip_buffer;

typedef struct hip_event {
    hip_ctx *ctx;
    hipEvent_t event;
} hip_event;

typedef struct hip_program {
    hip_ctx *ctx;
    hipModule_t module;
} hip_program;

typedef struct hip_kernel {
    hip_ctx *ctx;
    hipFunction_t fn;
} hip_kernel;

extern const xgpu_core_services *hip__services;

/* hip_loader.c */
/* Finds the HIP runtime (ROCm 6, 5, unversioned, then Hygon DTK), binds
 * it, and counts devices. On failure writes the reason. */
xgpu_status hip__runtime_load(hip_runtime *rt, int *device_count, char *reason, size_t reason_size);
/* hiprtc: libhiprtc.so.6/.5, or inside the runtime itself (ROCm 5). */
/* A HIP runtime library to try, and whose it is. */
typedef struct hip_candidate {
    char file[600];
    hip_flavor flavor;
} hip_candidate;
/* The runtime files tried, in order (environment included); returns the
 * count written. */
size_t hip__runtime_candidates(hip_candidate *out, size_t max);
xgpu_status hip__rtc_load(const hip_runtime *rt, hip_rtc *rtc, char *reason, size_t reason_size);
const char *hip__error_name(const hip_runtime *rt, hipError_t e, char *buf, size_t size);
xgpu_status hip__fail(const hip_runtime *rt, hipError_t e, const char *call, const char *detail);
xgpu_status hip__make_current(const hip_ctx *ctx);

/* hip_compile.c */
/* Is `arch` ("gfx90a:xnack-" or "gfx90a") one that hiprtc of this ROCm
 * release compiles? Some releases kill the process on an unknown arch
 * (ROCm 5.2 on gfx940) instead of failing. */
bool hip__arch_supported(int rocm_version, hip_flavor flavor, const char *arch);
/* Compiles prelude-composed source for `arch`; *code is a malloc'ed code
 * object (ELF). */
xgpu_status hip__compile(const hip_rtc *rtc, const char *source, const char *options,
                         const char *arch, char **code, size_t *code_size, char **log);

/* hip_memory.c */
xgpu_status hip__context_create(void *state, uint32_t index, void **context);
void hip__context_release(void *context);
xgpu_status hip__queue_create(void *context, void **queue);
void hip__queue_release(void *queue);
xgpu_status hip__queue_finish(void *queue);
xgpu_status hip__buffer_create(void *context, size_t size, void **buffer);
void hip__buffer_release(void *buffer);
xgpu_status hip__buffer_native(void *buffer, void **native);
xgpu_status hip__queue_native(void *queue, void **native);
xgpu_status hip__buffer_write(void *queue, void *buffer, size_t offset, const void *src,
                              size_t size, bool blocking, void **event);
xgpu_status hip__buffer_read(void *queue, void *buffer, size_t offset, void *dst, size_t size,
                             bool blocking, void **event);
xgpu_status hip__buffer_copy(void *queue, void *src, size_t src_offset, void *dst,
                             size_t dst_offset, size_t size, void **event);
xgpu_status hip__buffer_fill(void *queue, void *buffer, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size, void **event);
xgpu_status hip__host_alloc(void *context, size_t size, void **handle, void **ptr);
void hip__host_free(void *context, void *handle);
xgpu_status hip__queue_record_event(void *queue, void **event);
xgpu_status hip__event_wait(void *event);
xgpu_status hip__event_elapsed_ms(void *start, void *end, double *ms);
void hip__event_release(void *event);
xgpu_status hip__finish_op(hip_queue *q, bool blocking, void **event);

/* hip_program.c */
xgpu_status hip__program_build(void *context, const char *source, const char *options,
                               void **program, char **log);
void hip__program_release(void *program);
xgpu_status hip__kernel_create(void *program, const char *name, void **kernel,
                               xgpu_kernel_props *props);
void hip__kernel_release(void *kernel);
xgpu_status hip__launch(void *queue, void *kernel, const xgpu_range *range, size_t arg_count,
                        const xgpu_backend_arg *args, void **event);

#endif
