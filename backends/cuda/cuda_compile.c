/* NVRTC compilation: CUBIN for the device's exact sm_XY when this NVRTC
 * supports it, PTX for the newest arch it supports below the device
 * otherwise (the driver JIT-compiles PTX for newer GPUs). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "cuda_internal.h"
#include "backend_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cu__choose_target(int sm, const int *archs, int arch_count, int *target, bool *ptx) {
    if (arch_count == 0) {
        /* NVRTC older than 11.2 cannot list its archs: ask for the device's. */
        *target = sm;
        *ptx = false;
        return true;
    }
    int best = 0;
    for (int i = 0; i < arch_count; i++) {
        if (archs[i] == sm) {
            *target = sm;
            *ptx = false;
            return true;
        }
        if (archs[i] < sm && archs[i] > best) {
            best = archs[i];
        }
    }
    if (!best) {
        return false;
    }
    *target = best;
    *ptx = true;
    return true;
}

static char *program_log(const cu_nvrtc *n, nvrtcProgram prog) {
    size_t size = 0;
    if (n->nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size < 2) {
        return NULL;
    }
    char *log = calloc(size + 1, 1);
    if (log && n->nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) {
        free(log);
        log = NULL;
    }
    return log;
}

static xgpu_status nvrtc_fail(const cu_nvrtc *n, nvrtcResult r, const char *call, int target,
                              bool ptx) {
    const char *name = n->nvrtcGetErrorString(r);
    xgpu_status st = r == NVRTC_ERROR_COMPILATION || r == NVRTC_ERROR_INVALID_OPTION
                         ? XGPU_ERROR_BUILD_FAILED
                         : XGPU_ERROR_BACKEND;
    return cu__services->error(CU_BACKEND_NAME, st, r, name, "%s failed: %s (NVRTC %d.%d, %s_%d)",
                               call, name, n->major, n->minor, ptx ? "compute" : "sm", target);
}

xgpu_status cu__compile(const cu_nvrtc *n, const char *source, const char *options, int sm,
                        cu_binary *out, char **log) {
    memset(out, 0, sizeof *out);
    int target = 0;
    bool ptx = false;
    if (!cu__choose_target(sm, n->archs, n->arch_count, &target, &ptx)) {
        return cu__services->error(
            CU_BACKEND_NAME, XGPU_ERROR_UNSUPPORTED, 0, NULL,
            "NVRTC %d.%d (%s) compiles for sm_%d..sm_%d; it cannot target this sm_%d device: "
            "install an older NVRTC (libnvrtc.so.12 or .11) beside the driver",
            n->major, n->minor, n->path, n->archs[0], n->archs[n->arch_count - 1], sm);
    }
    if (!ptx && !n->nvrtcGetCUBIN) {
        ptx = true; /* NVRTC before 11.1 cannot emit CUBIN */
    }
    return cu__compile_for(n, source, options, target, ptx, out, log);
}

xgpu_status cu__compile_for(const cu_nvrtc *n, const char *source, const char *options, int target,
                            bool ptx, cu_binary *out, char **log) {
    memset(out, 0, sizeof *out);
    char arch[48];
    snprintf(arch, sizeof arch, "--gpu-architecture=%s_%d", ptx ? "compute" : "sm", target);
    char *opts = strdup(options ? options : "");
    const char *argv[130];
    argv[0] = arch;
    int argc = opts ? xgpu__util_split_options(opts, argv + 1, 128) : -1;
    if (argc < 0) {
        free(opts);
        return cu__services->error(CU_BACKEND_NAME, XGPU_ERROR_INVALID_ARGUMENT, 0, NULL,
                                   "too many build options (at most 128)");
    }
    nvrtcProgram prog = NULL;
    nvrtcResult r = n->nvrtcCreateProgram(&prog, source, "xgpu_program.cu", 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        free(opts);
        return nvrtc_fail(n, r, "nvrtcCreateProgram", target, ptx);
    }
    r = n->nvrtcCompileProgram(prog, argc + 1, argv);
    free(opts);
    *log = program_log(n, prog);
    if (r != NVRTC_SUCCESS) {
        n->nvrtcDestroyProgram(&prog);
        return nvrtc_fail(n, r, "nvrtcCompileProgram", target, ptx);
    }
    size_t size = 0;
    r = ptx ? n->nvrtcGetPTXSize(prog, &size) : n->nvrtcGetCUBINSize(prog, &size);
    char *data = r == NVRTC_SUCCESS ? malloc(size + 1) : NULL;
    if (data) {
        r = ptx ? n->nvrtcGetPTX(prog, data) : n->nvrtcGetCUBIN(prog, data);
        data[size] = '\0';
    }
    n->nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS || !data) {
        free(data);
        return r != NVRTC_SUCCESS
                   ? nvrtc_fail(n, r, ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN", target, ptx)
                   : cu__services->error(CU_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                         "malloc of %zu bytes failed", size);
    }
    out->data = data;
    out->size = size;
    out->ptx = ptx;
    out->target = target;
    return XGPU_SUCCESS;
}
