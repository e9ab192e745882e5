/* OpenCL backend internals, shared by its source files. */
#ifndef XGPU_CL_INTERNAL_H
#define XGPU_CL_INTERNAL_H

#include "cl_extensions.h"
#include "xgpu_backend.h"

#include <CL/cl.h>
#include <pthread.h>

#define OCL_BACKEND_NAME "opencl"

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

typedef struct ocl_state {
    cl_device_id *devices;
    cl_platform_id *platforms; /* platform of each device */
    uint32_t count;
} ocl_state;

typedef struct ocl_ctx {
    cl_context context;
    cl_device_id device;
    cl_command_queue internal; /* maps pinned host memory */
} ocl_ctx;

typedef struct ocl_kern {
    cl_kernel kernel;
    xgpu_arg_kind *arg_kinds; /* from the compiler's argument info; NULL when unknown */
    /* clSetKernelArg + enqueue must not interleave between threads. */
    pthread_mutex_t lock;
} ocl_kern;

extern const xgpu_core_services *ocl__services;

/* "CL_OUT_OF_RESOURCES"; "CL_UNKNOWN_ERROR" when not in the table. */
const char *ocl__error_name(cl_int err);
/* Records a failed OpenCL call and returns the matching xgpu status. */
xgpu_status ocl__fail(cl_int err, const char *call, const char *detail);

xgpu_status ocl__device_info(cl_device_id dev, cl_platform_id platform, xgpu_device_info *info);
/* Whether kernels built for the device get subgroups (cl_extensions.c). */
bool ocl__device_subgroups(cl_device_id dev);
/* Whether the device's type is CPU and nothing else (the DEFAULT bit
 * aside): the prefetch hint's rule (cl_extensions.h). */
bool ocl__device_cpu_only(cl_device_id dev);

/* cl_memory.c */
xgpu_status ocl__context_create(void *state, uint32_t index, void **context);
void ocl__context_release(void *context);
xgpu_status ocl__queue_create(void *context, void **queue);
void ocl__queue_release(void *queue);
xgpu_status ocl__queue_finish(void *queue);
xgpu_status ocl__buffer_create(void *context, size_t size, void **buffer);
void ocl__buffer_release(void *buffer);
xgpu_status ocl__buffer_native(void *buffer, void **native);
xgpu_status ocl__queue_native(void *queue, void **native);
xgpu_status ocl__buffer_write(void *queue, void *buffer, size_t offset, const void *src,
                              size_t size, bool blocking, void **event);
xgpu_status ocl__buffer_read(void *queue, void *buffer, size_t offset, void *dst, size_t size,
                             bool blocking, void **event);
xgpu_status ocl__buffer_copy(void *queue, void *src, size_t src_offset, void *dst,
                             size_t dst_offset, size_t size, void **event);
xgpu_status ocl__buffer_fill(void *queue, void *buffer, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size, void **event);
xgpu_status ocl__host_alloc(void *context, size_t size, void **handle, void **ptr);
void ocl__host_free(void *context, void *handle);
xgpu_status ocl__queue_record_event(void *queue, void **event);
xgpu_status ocl__queue_wait_event(void *queue, void *event);
xgpu_status ocl__event_wait(void *event);
xgpu_status ocl__event_elapsed_ms(void *start, void *end, double *ms);
void ocl__event_release(void *event);

/* cl_program.c */
xgpu_status ocl__program_build(void *context, const char *source, const char *options,
                               void **program, char **log);
void ocl__program_release(void *program);
xgpu_status ocl__kernel_create(void *program, const char *name, void **kernel,
                               xgpu_kernel_props *props);
void ocl__kernel_release(void *kernel);
xgpu_status ocl__kernel_native(void *kernel, void **native);
xgpu_status ocl__program_load_binary(void *context, const void *data, size_t size,
                                     const char *options, void **program, char **log);
xgpu_status ocl__program_binary(void *program, void **data, size_t *size);
xgpu_status ocl__build_identity(void *context, char *out, size_t size);
xgpu_status ocl__launch(void *queue, void *kernel, const xgpu_range *range, size_t arg_count,
                        const xgpu_backend_arg *args, void **event);

#endif
