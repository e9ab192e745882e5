/* Which GEMM kernel runs and with what: the path (the SIMT kernels of
 * kernels/gemm.xgpu, or the fragment kernel of kernels/gemm_mma.xgpu on
 * matrix units or SIMT lanes), XGPU_GEMM_PATH, and the parameters from
 * desc->params, XGPU_GEMM_PARAMS, the tuning database or the built-in
 * values of the path's family. */
#include "gemm_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum path_mode { PATH_AUTO, PATH_FRAGMENTS, PATH_FRAGMENTS_MFMA, PATH_SIMT } path_mode;

/* XGPU_GEMM_PATH: unset, "" or "auto"; "fragments"; "fragments-mfma"
 * (MFMA's layout emulated: f16 and bf16); "simt". */
static xgpu_status path_mode_get(const char *func, path_mode *mode) {
    const char *v = getenv("XGPU_GEMM_PATH");
    *mode = PATH_AUTO;
    if (!v || !*v || !strcmp(v, "auto")) {
        return XGPU_SUCCESS;
    }
    if (!strcmp(v, "fragments")) {
        *mode = PATH_FRAGMENTS;
    } else if (!strcmp(v, "fragments-mfma")) {
        *mode = PATH_FRAGMENTS_MFMA;
    } else if (!strcmp(v, "simt")) {
        *mode = PATH_SIMT;
    } else {
        return xgpu__fail(
            XGPU_ERROR_INVALID_ARGUMENT,
            "%s: XGPU_GEMM_PATH='%.32s' is not auto, fragments, fragments-mfma or simt", func, v);
    }
    return XGPU_SUCCESS;
}

/* m * n * k, saturating: what picks the shape class. */
static size_t gemm_work(const xgpu_gemm_desc *d) {
    size_t mn = d->n && d->m > SIZE_MAX / d->n ? SIZE_MAX : d->m * d->n;
    return d->k && mn > SIZE_MAX / d->k ? SIZE_MAX : mn * d->k;
}

/* The caller's parameters: desc->params, else XGPU_GEMM_PARAMS; *found
 * false for neither. `who` names where they came from. */
static xgpu_status explicit_params(const char *func, const xgpu_gemm_desc *d, xgpu_gemm_params *p,
                                   bool *found, const char **who) {
    if (d->params) {
        *p = *d->params;
        *found = true;
        *who = func;
        return XGPU_SUCCESS;
    }
    *who = "xgpu_gemm: XGPU_GEMM_PARAMS";
    return xgpu__gemm_env_params(p, found, func);
}

/* The kernel family and path. The fragment kernel runs f16, bf16 and
 * tf32; f16 -> f16 also has a SIMT kernel (0.6.0's), which SIMT-family
 * parameters or XGPU_GEMM_PATH=simt choose. */
static xgpu_status choose_path(const char *func, const xgpu_device_info *info,
                               const xgpu_gemm_desc *d, path_mode mode, const xgpu_gemm_params *p,
                               const char *who, xgpu__gemm_plan *plan) {
    bool tf32_flag = (d->flags & XGPU_GEMM_ALLOW_TF32) != 0;
    bool half = plan->in == XGPU_F16 || plan->in == XGPU_BF16;
    bool has_fragments = half || tf32_flag;
    const char *unit = xgpu__gemm_mma_path(info, plan->in, tf32_flag);
    if (mode == PATH_FRAGMENTS_MFMA && !half) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: XGPU_GEMM_PATH=fragments-mfma multiplies f16 and bf16, not %s", func,
                          tf32_flag ? "tf32" : xgpu_dtype_name(plan->in));
    }
    if (mode == PATH_FRAGMENTS || mode == PATH_FRAGMENTS_MFMA) {
        plan->fragments = has_fragments;
    } else if (mode == PATH_SIMT) {
        plan->fragments = false;
    } else if (p) {
        plan->fragments = p->contiguous == XGPU_GEMM_FRAGMENTS && has_fragments;
    } else {
        plan->fragments = half || unit != NULL;
    }
    if (p && (p->contiguous == XGPU_GEMM_FRAGMENTS) != plan->fragments) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: params of the %s family, but this %s GEMM runs the %s kernels%s",
                          who, p->contiguous == XGPU_GEMM_FRAGMENTS ? "fragment" : "SIMT",
                          tf32_flag ? "f32 (XGPU_GEMM_ALLOW_TF32)" : xgpu_dtype_name(plan->in),
                          plan->fragments ? "fragment" : "SIMT",
                          mode == PATH_AUTO   ? ""
                          : mode == PATH_SIMT ? " (XGPU_GEMM_PATH=simt)"
                                              : " (XGPU_GEMM_PATH asks for fragments)");
    }
    if (!plan->fragments && half && !(plan->in == XGPU_F16 && plan->out == XGPU_F16)) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: %s -> %s runs on the fragment kernel only, not the SIMT kernels%s",
                          func, xgpu_dtype_name(plan->in), xgpu_dtype_name(plan->out),
                          mode == PATH_SIMT ? " that XGPU_GEMM_PATH=simt asks for"
                                            : " (use contiguous = XGPU_GEMM_FRAGMENTS)");
    }
    plan->tf32 = plan->fragments && plan->in == XGPU_F32;
    if (!plan->fragments) {
        plan->path = "simt";
    } else if (mode == PATH_FRAGMENTS_MFMA) {
        plan->path = "fragments-mfma";
    } else if (mode == PATH_FRAGMENTS || !unit) {
        plan->path = "fragments";
    } else {
        plan->path = unit;
    }
    plan->compute = plan->tf32 ? "tf32" : xgpu_dtype_name(plan->in);
    return XGPU_SUCCESS;
}

/* The family's own check of a parameter set. */
static xgpu_status check_params(const xgpu__gemm_plan *plan, const xgpu_device_info *info,
                                const char *who) {
    if (plan->fragments) {
        return xgpu__gemm_mma_check_params(&plan->params, info, plan->in, plan->path, who);
    }
    if (plan->params.contiguous == XGPU_GEMM_REGISTERS && plan->in == XGPU_F16) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: the register family (contiguous %u) multiplies f32 and f64, not "
                          "f16 -> f16 (use contiguous 0, 1 or 2)",
                          who, XGPU_GEMM_REGISTERS);
    }
    return xgpu__gemm_check_params(&plan->params, info, xgpu__gemm_local_elem(plan->in), who);
}

/* The tuning database's choice, else the built-in values. The fragment
 * family's f16 and bf16 entries are stored under their dtype; tf32 and
 * the SIMT f16 kernel run their built-in values. */
static xgpu_status default_params(const char *func, xgpu_queue *queue, const xgpu_gemm_desc *d,
                                  xgpu__gemm_plan *plan) {
    xgpu_context *ctx = xgpu__queue_context(queue);
    const xgpu_device_info *info = xgpu__context_info(ctx);
    /* The tuner measures f16 and bf16 on the device's own path: its
     * entries suit that path only (not one XGPU_GEMM_PATH forces). */
    bool tuned = plan->in != XGPU_F16;
    if (plan->fragments) {
        const char *own = xgpu__gemm_mma_path(info, plan->in, false);
        tuned = !plan->tf32 && own && !strcmp(own, plan->path);
    }
    if (tuned) {
        xgpu__tune_choice c;
        xgpu_status st = xgpu__lib_choose(ctx, XGPU__TK_GEMM, plan->in,
                                          xgpu__tune_class_of(XGPU__TK_GEMM, gemm_work(d)), &c);
        if (st != XGPU_SUCCESS) {
            return st;
        }
        plan->params = xgpu__tune_to_gemm(&c.values);
        xgpu__lib_choice_source(&c, plan->source, sizeof plan->source);
    } else if (plan->fragments) {
        xgpu__gemm_mma_builtin(info, plan->in, plan->path, &plan->params);
        snprintf(plan->source, sizeof plan->source, "built-in default");
    } else {
        xgpu__gemm_builtin(info, plan->in, &plan->params);
        snprintf(plan->source, sizeof plan->source, "built-in default");
    }
    /* The fallback for small devices may not fit either. */
    return check_params(plan, info, func);
}

xgpu_status xgpu__gemm_plan_make(const char *func, xgpu_queue *queue, const xgpu_gemm_desc *d,
                                 xgpu__gemm_plan *plan) {
    const xgpu_device_info *info = xgpu__context_info(xgpu__queue_context(queue));
    memset(plan, 0, sizeof *plan);
    plan->in = d->dtype;
    plan->out = d->c_dtype ? d->c_dtype : d->dtype;
    path_mode mode = PATH_AUTO;
    xgpu_gemm_params p;
    bool found = false;
    const char *who = func;
    xgpu_status st = path_mode_get(func, &mode);
    if (st == XGPU_SUCCESS) {
        st = explicit_params(func, d, &p, &found, &who);
    }
    if (st == XGPU_SUCCESS) {
        st = choose_path(func, info, d, mode, found ? &p : NULL, who, plan);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (!found) {
        return default_params(func, queue, d, plan);
    }
    plan->params = p;
    snprintf(plan->source, sizeof plan->source, "%s",
             d->params ? "desc->params" : "XGPU_GEMM_PARAMS");
    return check_params(plan, info, who);
}
