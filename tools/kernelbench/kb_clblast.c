/* kernelbench: CLBlast's SGEMM on the same OpenCL device, through OpenCL
 * directly (CLBlast takes cl_mem buffers). Built only with CLBlast. */
#include "kb.h"

#include <stdio.h>
#include <string.h>

#if defined(KB_HAVE_CLBLAST)
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>

/* The OpenCL device whose name matches xgpu's device. */
static cl_device_id find_device(const char *name, cl_platform_id *platform) {
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) {
        return NULL;
    }
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS) {
            continue;
        }
        for (cl_uint d = 0; d < nd; d++) {
            char dn[256] = "";
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dn, dn, NULL);
            if (!strcmp(dn, name)) {
                *platform = plats[p];
                return devs[d];
            }
        }
    }
    return NULL;
}

int kb_clblast_sgemm(const kb_env *env, size_t n, const float *a, const float *b, float *c,
                     int reps, double *times, char *reason, size_t reason_size) {
    if (strcmp(env->info.backend, "opencl") != 0) {
        snprintf(reason, reason_size, "not run: CLBlast needs an OpenCL device");
        return -1;
    }
    cl_platform_id plat;
    cl_device_id dev = find_device(env->info.name, &plat);
    if (!dev) {
        snprintf(reason, reason_size, "not run: OpenCL device not found");
        return -1;
    }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    size_t bytes = n * n * sizeof(float);
    cl_mem da =
        clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)a, &err);
    cl_mem db =
        clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)b, &err);
    cl_mem dc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    int rc = -1;
    for (int r = -1; r < reps; r++) { /* r == -1: warm-up, CLBlast compiles its kernels */
        /* CLBlast may run several kernels (padding, transposes): time from a
         * marker before to a marker after, as xgpu's side is timed. */
        cl_event before = NULL, after = NULL;
        clEnqueueMarkerWithWaitList(q, 0, NULL, &before);
        CLBlastStatusCode st =
            CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n,
                         1.0f, da, 0, n, db, 0, n, 0.0f, dc, 0, n, &q, NULL);
        clEnqueueMarkerWithWaitList(q, 0, NULL, &after);
        clWaitForEvents(1, &after);
        cl_ulong t0 = 0, t1 = 0;
        clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL);
        clGetEventProfilingInfo(after, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        clReleaseEvent(before);
        clReleaseEvent(after);
        if (st != CLBlastSuccess) {
            snprintf(reason, reason_size, "failed: CLBlastSgemm status %d", (int)st);
            goto done;
        }
        if (r >= 0) {
            times[r] = (double)(t1 - t0) * 1e-9;
        }
    }
    memset(c, 0xff, bytes);
    clEnqueueReadBuffer(q, dc, CL_TRUE, 0, bytes, c, 0, NULL, NULL);
    rc = 0;
done:
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return rc;
}
#else
int kb_clblast_sgemm(const kb_env *env, size_t n, const float *a, const float *b, float *c,
                     int reps, double *times, char *reason, size_t reason_size) {
    (void)env, (void)n, (void)a, (void)b, (void)c, (void)reps, (void)times;
    snprintf(reason, reason_size, "not run: xgpu was built without CLBlast (libclblast-dev)");
    return -1;
}
#endif
