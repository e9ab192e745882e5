/* OpenCL programs, kernels and launches. */
#include "cl_internal.h"
#include "cl_pocl_binary.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The build log, or NULL when it is empty or blank. */
static char *build_log(cl_program prog, cl_device_id dev) {
    size_t size = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS ||
        size < 2) {
        return NULL;
    }
    char *log = calloc(size + 1, 1);
    if (!log ||
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS) {
        free(log);
        return NULL;
    }
    bool blank = true;
    for (const char *p = log; *p && blank; p++) {
        blank = isspace((unsigned char)*p) != 0;
    }
    if (blank) {
        free(log);
        return NULL;
    }
    return log;
}

/* Builds `prog` (from source or from a binary) with the options and
 * argument info, which lets kernel_create tell buffers, scalars and local
 * memory apart for kernels whose signature the core cannot read. Releases
 * the program on failure. */
static xgpu_status build(const ocl_ctx *c, cl_program prog, const char *options, void **program,
                         char **log) {
    /* The prelude's XGPU_HAS_SUBGROUPS follows the device info's rule. */
    const char *subgroups = ocl__subgroups_option(ocl__device_subgroups(c->device));
    const char *prefetch = ocl__prefetch_option(ocl__device_cpu_only(c->device));
    size_t n =
        strlen(options) + sizeof " -cl-kernel-arg-info" + strlen(subgroups) + strlen(prefetch);
    char *opts = malloc(n);
    if (!opts) {
        clReleaseProgram(prog);
        return ocl__services->error(OCL_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                    "program: malloc failed");
    }
    snprintf(opts, n, "%s -cl-kernel-arg-info%s%s", options, subgroups, prefetch);
    cl_int err = clBuildProgram(prog, 1, &c->device, opts, NULL, NULL);
    free(opts);
    *log = build_log(prog, c->device);
    if (err != CL_SUCCESS) {
        clReleaseProgram(prog);
        return ocl__fail(err, "clBuildProgram", err == CL_INVALID_BUILD_OPTIONS ? options : NULL);
    }
    *program = prog;
    return XGPU_SUCCESS;
}

xgpu_status ocl__program_build(void *context, const char *source, const char *options,
                               void **program, char **log) {
    ocl_ctx *c = context;
    cl_int err;
    cl_program prog = clCreateProgramWithSource(c->context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS) {
        return ocl__fail(err, "clCreateProgramWithSource", NULL);
    }
    return build(c, prog, options, program, log);
}

xgpu_status ocl__program_load_binary(void *context, const void *data, size_t size,
                                     const char *options, void **program, char **log) {
    ocl_ctx *c = context;
    const unsigned char *binaries[1] = {data};
    cl_int status = CL_SUCCESS, err;
    cl_program prog =
        clCreateProgramWithBinary(c->context, 1, &c->device, &size, binaries, &status, &err);
    if (err != CL_SUCCESS || status != CL_SUCCESS) {
        if (err == CL_SUCCESS) {
            clReleaseProgram(prog);
        }
        err = err != CL_SUCCESS ? err : status;
        return ocl__services->error(OCL_BACKEND_NAME, XGPU_ERROR_BUILD_FAILED, err,
                                    ocl__error_name(err), "clCreateProgramWithBinary: %s",
                                    ocl__error_name(err));
    }
    return build(c, prog, options, program, log);
}

xgpu_status ocl__program_binary(void *program, void **data, size_t *size) {
    size_t n = 0;
    cl_int err = clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL);
    if (err != CL_SUCCESS || n == 0) {
        return err != CL_SUCCESS ? ocl__fail(err, "clGetProgramInfo", "CL_PROGRAM_BINARY_SIZES")
                                 : ocl__services->error(OCL_BACKEND_NAME, XGPU_ERROR_UNSUPPORTED, 0,
                                                        NULL, "the driver gives no binary");
    }
    unsigned char *buf = malloc(n);
    unsigned char *binaries[1] = {buf};
    if (!buf) {
        return ocl__services->error(OCL_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                    "program binary: malloc failed");
    }
    err = clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binaries, binaries, NULL);
    if (err != CL_SUCCESS) {
        free(buf);
        return ocl__fail(err, "clGetProgramInfo", "CL_PROGRAM_BINARIES");
    }
    /* Kept in the kernel cache, it would abort every process that loads
     * it; the build itself is whole. */
    if (ocl__pocl_binary_partial(buf, n)) {
        free(buf);
        return ocl__services->error(OCL_BACKEND_NAME, XGPU_ERROR_UNSUPPORTED, 0, NULL,
                                    "pocl's binary lacks files of its own kernel cache (another "
                                    "process was compiling the same program; pocl before 6.0)");
    }
    *data = buf;
    *size = n;
    return XGPU_SUCCESS;
}

/* Platform name and version, device version and driver version. */
xgpu_status ocl__build_identity(void *context, char *out, size_t size) {
    const ocl_ctx *c = context;
    cl_platform_id platform = NULL;
    char pname[256] = "", pversion[256] = "", dversion[256] = "", driver[256] = "";
    cl_int err = clGetDeviceInfo(c->device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    if (err == CL_SUCCESS) {
        err = clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    }
    if (err == CL_SUCCESS) {
        err = clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof pversion - 1, pversion, NULL);
    }
    if (err == CL_SUCCESS) {
        err = clGetDeviceInfo(c->device, CL_DEVICE_VERSION, sizeof dversion - 1, dversion, NULL);
    }
    if (err == CL_SUCCESS) {
        err = clGetDeviceInfo(c->device, CL_DRIVER_VERSION, sizeof driver - 1, driver, NULL);
    }
    if (err != CL_SUCCESS) {
        return ocl__fail(err, "clGetPlatformInfo", "the build identity");
    }
    snprintf(out, size, "%s; %s; %s; driver %s", pname, pversion, dversion, driver);
    return XGPU_SUCCESS;
}

void ocl__program_release(void *program) {
    clReleaseProgram(program);
}

xgpu_status ocl__kernel_create(void *program, const char *name, void **kernel,
                               xgpu_kernel_props *props) {
    ocl_kern *k = calloc(1, sizeof *k);
    if (!k) {
        return ocl__services->error(OCL_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                    "kernel: malloc failed");
    }
    cl_int err;
    k->kernel = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) {
        free(k);
        if (err == CL_INVALID_KERNEL_NAME) {
            return ocl__services->error(OCL_BACKEND_NAME, XGPU_ERROR_KERNEL_NOT_FOUND, err,
                                        ocl__error_name(err),
                                        "no kernel named '%s' in the program (clCreateKernel: %s)",
                                        name, ocl__error_name(err));
        }
        return ocl__fail(err, "clCreateKernel", name);
    }
    cl_device_id dev = NULL;
    cl_context ctx = NULL;
    clGetKernelInfo(k->kernel, CL_KERNEL_CONTEXT, sizeof ctx, &ctx, NULL);
    clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof dev, &dev, NULL);
    size_t wg = 0, multiple = 0;
    cl_ulong local = 0;
    clGetKernelWorkGroupInfo(k->kernel, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    clGetKernelWorkGroupInfo(k->kernel, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    clGetKernelWorkGroupInfo(k->kernel, dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                             sizeof multiple, &multiple, NULL);
    props->max_group_size = wg;
    props->preferred_group_multiple = multiple;
    props->static_local_bytes = local;
    cl_uint nargs = 0;
    if (clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL) == CL_SUCCESS) {
        props->arg_count = nargs;
        k->arg_kinds = nargs ? calloc(nargs, sizeof *k->arg_kinds) : NULL;
        for (cl_uint i = 0; k->arg_kinds && i < nargs; i++) {
            cl_kernel_arg_address_qualifier q = 0;
            if (clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof q, &q,
                                   NULL) != CL_SUCCESS) {
                free(k->arg_kinds); /* no argument info: kinds unknown */
                k->arg_kinds = NULL;
                break;
            }
            k->arg_kinds[i] = q == CL_KERNEL_ARG_ADDRESS_LOCAL     ? XGPU_ARG_LOCAL
                              : q == CL_KERNEL_ARG_ADDRESS_PRIVATE ? XGPU_ARG_SCALAR
                                                                   : XGPU_ARG_BUFFER;
        }
        props->arg_kinds = k->arg_kinds;
    }
    pthread_mutex_init(&k->lock, NULL);
    *kernel = k;
    return XGPU_SUCCESS;
}

void ocl__kernel_release(void *kernel) {
    ocl_kern *k = kernel;
    clReleaseKernel(k->kernel);
    free(k->arg_kinds);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

xgpu_status ocl__kernel_native(void *kernel, void **native) {
    *native = ((ocl_kern *)kernel)->kernel;
    return XGPU_SUCCESS;
}

static cl_int set_args(cl_kernel kernel, size_t count, const xgpu_backend_arg *args,
                       size_t *failed) {
    for (size_t i = 0; i < count; i++) {
        cl_int err = CL_SUCCESS;
        switch (args[i].kind) {
        case XGPU_ARG_BUFFER: {
            cl_mem m = args[i].buffer;
            err = clSetKernelArg(kernel, (cl_uint)i, sizeof m, &m);
            break;
        }
        case XGPU_ARG_SCALAR:
            err = clSetKernelArg(kernel, (cl_uint)i, args[i].size, args[i].value);
            break;
        case XGPU_ARG_LOCAL:
            err = clSetKernelArg(kernel, (cl_uint)i, args[i].size, NULL);
            break;
        default:
            err = CL_INVALID_ARG_VALUE;
            break;
        }
        if (err != CL_SUCCESS) {
            *failed = i;
            return err;
        }
    }
    return CL_SUCCESS;
}

xgpu_status ocl__launch(void *queue, void *kernel, const xgpu_range *range, size_t arg_count,
                        const xgpu_backend_arg *args, void **event) {
    ocl_kern *k = kernel;
    size_t global[3], local[3];
    for (uint32_t d = 0; d < range->dims; d++) {
        global[d] = range->groups[d] * range->group_size[d];
        local[d] = range->group_size[d];
    }
    pthread_mutex_lock(&k->lock);
    size_t failed = 0;
    cl_int err = set_args(k->kernel, arg_count, args, &failed);
    if (err != CL_SUCCESS) {
        pthread_mutex_unlock(&k->lock);
        char detail[48];
        snprintf(detail, sizeof detail, "argument %zu", failed);
        return ocl__fail(err, "clSetKernelArg", detail);
    }
    err = clEnqueueNDRangeKernel(queue, k->kernel, range->dims, NULL, global, local, 0, NULL,
                                 event ? (cl_event *)event : NULL);
    pthread_mutex_unlock(&k->lock);
    return err == CL_SUCCESS ? XGPU_SUCCESS : ocl__fail(err, "clEnqueueNDRangeKernel", NULL);
}
