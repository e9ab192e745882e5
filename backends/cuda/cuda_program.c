/* CUDA programs (NVRTC + cuModuleLoadData), kernels and launches. */
#include "cuda_internal.h"
#include "backend_util.h"
#include "embedded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRV(ctx) (&(ctx)->state->driver)

/* Loads NVRTC for the state (the first build on any thread) and records
 * how its version relates to the driver's. */
static xgpu_status nvrtc_load(void *state, char *reason, size_t reason_size) {
    cu_state *st = state;
    xgpu_status status = cu__nvrtc_load(&st->nvrtc, st->driver_version, reason, reason_size);
    if (status != XGPU_SUCCESS) {
        return status;
    }
    /* PTX from an NVRTC newer than the driver does not load; CUBIN for the
     * exact device usually does (minor-version compatibility), but not
     * across major versions. */
    const cu_nvrtc *n = &st->nvrtc;
    int nv = n->major * 1000 + n->minor * 10, drv = st->driver_version;
    char detail[512];
    snprintf(detail, sizeof detail, "NVRTC %d.%d, sm_%d..sm_%d; %s (driver supports CUDA %d.%d)",
             n->major, n->minor, n->arch_count ? n->archs[0] : 0,
             n->arch_count ? n->archs[n->arch_count - 1] : 0,
             nv <= drv                ? "compatible with the driver"
             : n->major == drv / 1000 ? "newer than the driver: CUBIN loads, PTX may not"
                                      : "newer than the driver's major version: install a "
                                        "newer driver or an older NVRTC",
             drv / 1000, (drv % 1000) / 10);
    cu__services->library(CU_BACKEND_NAME, "libnvrtc", n->path, true, detail);
    return XGPU_SUCCESS;
}

static xgpu_status nvrtc_get(cu_state *st, const cu_nvrtc **out) {
    xgpu_status status =
        xgpu__util_lazy_get(&st->nvrtc_lazy, cu__services, CU_BACKEND_NAME, nvrtc_load, st);
    if (status == XGPU_SUCCESS) {
        *out = &st->nvrtc;
    }
    return status;
}

/* The driver refused the image: say which versions disagree. */
static xgpu_status load_failed(const cu_ctx *c, const cu_nvrtc *n, const cu_binary *bin, CUresult r,
                               const char *jit_log) {
    const cu_driver *d = DRV(c);
    char buf[32];
    const char *name = cu__result_name(d, r, buf, sizeof buf);
    int drv = c->state->driver_version;
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_INVALID_PTX ||
        r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE) {
        return cu__services->error(
            CU_BACKEND_NAME, XGPU_ERROR_BUILD_FAILED, r, name,
            "cuModuleLoadData: %s: the driver supports CUDA %d.%d, the code is %s for %s_%d "
            "from NVRTC %d.%d (%s); install a driver for CUDA %d.%d or newer, or an NVRTC no "
            "newer than %d.%d (libnvrtc.so.%d)%s%.1500s",
            name, drv / 1000, (drv % 1000) / 10, bin->ptx ? "PTX" : "CUBIN",
            bin->ptx ? "compute" : "sm", bin->target, n->major, n->minor, n->path, n->major,
            n->minor, drv / 1000, (drv % 1000) / 10, drv / 1000,
            jit_log[0] ? "; the driver's JIT says: " : "", jit_log);
    }
    char detail[1600];
    snprintf(detail, sizeof detail, "%s%.1500s", jit_log[0] ? "; the driver's JIT says: " : "",
             jit_log);
    return cu__fail(d, r, "cuModuleLoadData", detail);
}

/* Loads `bin` into a new program that keeps it (bin->data is the
 * program's from here on, or freed on failure). `n` (NULL for a binary
 * from the cache) names NVRTC in a version-mismatch message. */
static xgpu_status load_program(cu_ctx *c, const cu_nvrtc *n, cu_binary *bin, void **program) {
    xgpu_rt_program *p = calloc(1, sizeof *p);
    if (!p) {
        free(bin->data);
        return xgpu__rt_oom(&c->rt, "program");
    }
    p->ctx = &c->rt;
    xgpu_status st = xgpu__rt_make_current(&c->rt);
    if (st == XGPU_SUCCESS) {
        /* Not the shared layer's module_load: with the Ex form, a PTX JIT
         * failure comes with the driver's log, and a version mismatch is
         * explained with NVRTC's and the driver's versions. */
        char jit_log[4096] = "";
        CUmodule module = NULL;
        CUresult r;
        if (DRV(c)->cuModuleLoadDataEx) {
            int jit_opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
            void *values[] = {jit_log, (void *)(uintptr_t)(sizeof jit_log - 1)};
            r = DRV(c)->cuModuleLoadDataEx(&module, bin->data, 2, jit_opts, values);
            jit_log[sizeof jit_log - 1] = '\0';
        } else {
            r = DRV(c)->cuModuleLoadData(&module, bin->data);
        }
        p->module = module;
        st = r == CUDA_SUCCESS ? XGPU_SUCCESS
             : n               ? load_failed(c, n, bin, r, jit_log)
                               : cu__fail(DRV(c), r, "cuModuleLoadData", " (a cached binary)");
    }
    if (st != XGPU_SUCCESS) {
        free(bin->data);
        free(p);
        return st;
    }
    p->image = bin->data;
    p->image_size = bin->size;
    *program = p;
    return XGPU_SUCCESS;
}

xgpu_status cu__program_build(void *context, const char *source, const char *options,
                              void **program, char **log) {
    cu_ctx *c = context;
    const cu_nvrtc *n = NULL;
    xgpu_status st = nvrtc_get(c->state, &n);
    if (st != XGPU_SUCCESS) {
        /* No NVRTC: xgpu's own library kernels are built in as PTX, which
         * the driver compiles; any other source needs NVRTC. */
        const xgpu_embedded *e = xgpu__embedded_find(&cu__embedded_table, source, options);
        if (!e) {
            return cu__services->error(
                CU_BACKEND_NAME, st, 0, NULL,
                "%s; without it only xgpu's library kernels run (%zu built in: %s)",
                c->state->nvrtc_lazy.reason, cu__embedded_table.count, cu__embedded_table.about);
        }
        cu__services->log(CU_BACKEND_NAME, XGPU_LOG_DEBUG,
                          "no NVRTC: %s kernel from the built-in %s", e->name,
                          cu__embedded_table.about);
        cu_binary bin = {malloc(e->size + 1), e->size, true, 0};
        if (!bin.data) {
            return xgpu__rt_oom(&c->rt, "program");
        }
        memcpy(bin.data, e->data, e->size + 1);
        st = load_program(c, NULL, &bin, program);
        if (st != XGPU_SUCCESS) {
            int drv = c->state->driver_version;
            return cu__services->error(
                CU_BACKEND_NAME, st, 0, NULL,
                "the built-in %s kernel (%s) does not load on this driver (CUDA %d.%d): a "
                "driver at least as new as that NVRTC, or NVRTC itself, is needed (%s)",
                e->name, cu__embedded_table.about, drv / 1000, (drv % 1000) / 10,
                c->state->nvrtc_lazy.reason);
        }
        return XGPU_SUCCESS;
    }
    cu_binary bin;
    st = cu__compile(n, source, options, c->sm, &bin, log);
    return st != XGPU_SUCCESS ? st : load_program(c, n, &bin, program);
}

xgpu_status cu__program_load_binary(void *context, const void *data, size_t size,
                                    const char *options, void **program, char **log) {
    (void)options, (void)log;
    cu_ctx *c = context;
    /* The driver reads PTX up to its NUL and CUBIN by its ELF header: the
     * copy gets a NUL after it either way. */
    cu_binary bin = {malloc(size + 1), size, size > 0 && ((const char *)data)[0] != 0x7f, 0};
    if (!bin.data) {
        return xgpu__rt_oom(&c->rt, "program");
    }
    memcpy(bin.data, data, size);
    bin.data[size] = '\0';
    return load_program(c, NULL, &bin, program);
}

xgpu_status cu__build_identity(void *context, char *out, size_t size) {
    cu_ctx *c = context;
    const cu_nvrtc *n = NULL;
    if (nvrtc_get(c->state, &n) != XGPU_SUCCESS) { /* the core clears the error */
        snprintf(out, size, "no NVRTC; driver %d; sm_%d", c->state->driver_version, c->sm);
        return XGPU_SUCCESS;
    }
    snprintf(out, size, "NVRTC %d.%d; driver %d; sm_%d", n->major, n->minor,
             c->state->driver_version, c->sm);
    return XGPU_SUCCESS;
}

/* Raises the kernel's dynamic shared memory limit when a launch needs more
 * than it is configured for: above 48 KiB minus the kernel's fixed-size
 * shared memory, the driver wants an opt-in (up to the device's opt-in
 * limit, which the core has checked). */
static xgpu_status ensure_dynamic_limit(xgpu_rt_kernel *rk, size_t bytes) {
    cu_kernel *k = (cu_kernel *)rk;
    xgpu_status st = XGPU_SUCCESS;
    pthread_mutex_lock(&k->lock);
    if ((long long)bytes > k->dynamic_limit) {
        const cu_driver *d = rk->ctx->api;
        CUresult r =
            d->cuFuncSetAttribute
                ? d->cuFuncSetAttribute(rk->function,
                                        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes)
                : CUDA_ERROR_INVALID_VALUE;
        if (r == CUDA_SUCCESS) {
            k->dynamic_limit = (int)bytes;
        } else {
            char detail[80];
            snprintf(detail, sizeof detail, " raising dynamic shared memory to %zu bytes", bytes);
            st = cu__fail(d, r, "cuFuncSetAttribute", detail);
        }
    }
    pthread_mutex_unlock(&k->lock);
    return st;
}

xgpu_status cu__kernel_create(void *program, const char *name, void **kernel,
                              xgpu_kernel_props *props) {
    void *k = NULL;
    xgpu_status st = xgpu__rt_kernel_create(program, name, sizeof(cu_kernel), &k, props);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    cu_kernel *ck = k;
    ck->rt.prepare_launch = ensure_dynamic_limit;
    ck->dynamic_limit = cu__default_dynamic_limit((int)props->static_local_bytes);
    pthread_mutex_init(&ck->lock, NULL);
    *kernel = ck;
    return XGPU_SUCCESS;
}

void cu__kernel_release(void *kernel) {
    cu_kernel *k = kernel;
    pthread_mutex_destroy(&k->lock);
    free(k);
}
