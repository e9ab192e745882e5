/* xgpu_gemm and xgpu_gemm_choose: the checks (gemm_check.c), the plan
 * (gemm_route.c), and the launch of kernels/gemm.xgpu (the SIMT
 * families) or kernels/gemm_mma.xgpu (the fragment family). Column-major
 * calls become row-major ones: C^T = op(B)^T op(A)^T reads the same
 * memory with A and B swapped. A batch is group id 2 of one launch, or of
 * several where the device caps the groups in that dimension. */
#include "gemm_int.h"

#include <stdio.h>
#include <string.h>

/* What both kernels take, in their order, for batches [b0, b0 + count). */
typedef struct launch_args {
    uint32_t M, N, K;
    uint32_t offA, ldA, strideA, offB, ldB, strideB, offC, ldC, strideC;
    xgpu_buffer *A, *B;
    uint32_t transA, transB;
    bool vecA, vecB;
} launch_args;

/* Vector loads need the operand's rows (in the load direction) to start
 * on vector boundaries: offset, leading dimension, stride and length. */
static bool aligned(const xgpu_matrix *m, size_t stride, size_t row, uint32_t vw) {
    return vw > 1 && m->offset % vw == 0 && m->ld % vw == 0 && stride % vw == 0 && row % vw == 0;
}

static launch_args args_of(const xgpu_gemm_desc *d, const xgpu__gemm_problem *g, uint32_t vw) {
    launch_args a;
    /* alpha == 0: C = beta * C, and A and B are not read (as reference
     * BLAS), so a NaN in them cannot reach C. The kernel runs with k = 0,
     * and then any buffer will do for A and B. */
    bool read = d->alpha != 0.0 && g->K > 0;
    a.M = (uint32_t)g->M;
    a.N = (uint32_t)g->N;
    a.K = read ? (uint32_t)g->K : 0;
    a.A = read ? g->A->buffer : g->C->buffer;
    a.B = read ? g->B->buffer : g->C->buffer;
    a.offA = read ? (uint32_t)g->A->offset : 0;
    a.ldA = read ? (uint32_t)g->A->ld : 1;
    a.strideA = read ? (uint32_t)g->sa : 0;
    a.offB = read ? (uint32_t)g->B->offset : 0;
    a.ldB = read ? (uint32_t)g->B->ld : 1;
    a.strideB = read ? (uint32_t)g->sb : 0;
    a.offC = (uint32_t)g->C->offset;
    a.ldC = (uint32_t)g->C->ld;
    a.strideC = (uint32_t)g->sc;
    a.transA = g->ta;
    a.transB = g->tb;
    a.vecA = read && aligned(g->A, g->sa, g->ta ? g->M : g->K, vw);
    a.vecB = read && aligned(g->B, g->sb, g->tb ? g->K : g->N, vw);
    return a;
}

/* Enqueues `kernel` over every batch: groups (x, y, batches) of `group`
 * work-items, as many launches as the device's limit on groups in
 * dimension 2 needs (each later one's offsets moved on by its first
 * batch, which the checks keep within 32 bits). */
static xgpu_status launch_batches(xgpu_queue *queue, xgpu_kernel *kernel, const launch_args *la,
                                  size_t batch, xgpu_arg alpha, xgpu_arg beta, xgpu_buffer *C,
                                  const size_t groups[2], const size_t group[2],
                                  xgpu_event **event) {
    const xgpu_device_info *info = xgpu__context_info(xgpu__queue_context(queue));
    size_t cap = info->max_groups[2] ? (size_t)info->max_groups[2] : batch;
    xgpu_status st = XGPU_SUCCESS;
    for (size_t b0 = 0; b0 < batch && st == XGPU_SUCCESS; b0 += cap) {
        size_t count = batch - b0 < cap ? batch - b0 : cap;
        uint32_t oa = la->offA + (uint32_t)(b0 * la->strideA);
        uint32_t ob = la->offB + (uint32_t)(b0 * la->strideB);
        uint32_t oc = la->offC + (uint32_t)(b0 * la->strideC);
        xgpu_arg args[] = {xgpu_arg_u32(la->M),
                           xgpu_arg_u32(la->N),
                           xgpu_arg_u32(la->K),
                           alpha,
                           xgpu_arg_buffer(la->A),
                           xgpu_arg_u32(oa),
                           xgpu_arg_u32(la->ldA),
                           xgpu_arg_u32(la->strideA),
                           xgpu_arg_buffer(la->B),
                           xgpu_arg_u32(ob),
                           xgpu_arg_u32(la->ldB),
                           xgpu_arg_u32(la->strideB),
                           beta,
                           xgpu_arg_buffer(C),
                           xgpu_arg_u32(oc),
                           xgpu_arg_u32(la->ldC),
                           xgpu_arg_u32(la->strideC),
                           xgpu_arg_u32(la->transA),
                           xgpu_arg_u32(la->transB),
                           xgpu_arg_u32(la->vecA),
                           xgpu_arg_u32(la->vecB)};
        xgpu_range range = {3, {groups[0], groups[1], count}, {group[0], group[1], 1}};
        bool last = b0 + count >= batch;
        st = xgpu_launch(queue, kernel, &range, sizeof args / sizeof args[0], args,
                         last ? event : NULL);
    }
    return st;
}

static xgpu_status launch_gemm(xgpu_queue *queue, const xgpu_gemm_desc *d,
                               const xgpu__gemm_problem *g, const xgpu__gemm_plan *plan,
                               xgpu_event **event) {
    const xgpu_gemm_params *p = &plan->params;
    char options[256];
    const char *source = NULL, *name = NULL;
    uint32_t vw = 1;
    size_t group[2];
    if (plan->fragments) {
        xgpu__gemm_mma_options(plan->in, plan->out, plan->path, p, options, sizeof options);
        source = xgpu__kernel_gemm_mma;
        name = "xgpu_gemm_mma";
        vw = p->vector_width ? p->vector_width : 1;
        group[0] = (size_t)(p->tile_m / p->work_m) * (p->tile_n / p->work_n) *
                   xgpu__gemm_mma_lanes(plan->path);
        group[1] = 1;
    } else {
        xgpu__gemm_options(plan->in, p, options, sizeof options);
        source = xgpu__kernel_gemm;
        name = "xgpu_gemm";
        vw = xgpu__gemm_vector_width(plan->in, p);
        group[0] = p->tile_n / p->work_n;
        /* The register family: each work-item takes all tile_m rows. */
        group[1] = p->contiguous == XGPU_GEMM_REGISTERS ? 1 : p->tile_m / p->work_m;
    }
    xgpu_kernel *kernel = NULL;
    xgpu_status st = xgpu__lib_kernel(xgpu__queue_context(queue), source, options, name, &kernel);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    launch_args la = args_of(d, g, vw);
    /* Only the SIMT fp64 kernel scales in fp64; the others accumulate in
     * fp32. */
    bool f64 = plan->in == XGPU_F64;
    xgpu_arg alpha = f64 ? xgpu_arg_f64(d->alpha) : xgpu_arg_f32((float)d->alpha);
    xgpu_arg beta = f64 ? xgpu_arg_f64(d->beta) : xgpu_arg_f32((float)d->beta);
    size_t groups[2] = {(g->N + p->tile_n - 1) / p->tile_n, (g->M + p->tile_m - 1) / p->tile_m};
    return launch_batches(queue, kernel, &la, g->batch, alpha, beta, g->C->buffer, groups, group,
                          event);
}

/* The checks and the plan both calls share; *skip for m or n == 0, which
 * computes nothing (as in BLAS) and makes a plan only for `choose`. */
static xgpu_status prepare(const char *func, xgpu_queue *queue, const xgpu_gemm_desc *d,
                           bool choose, xgpu__gemm_problem *g, xgpu__gemm_plan *plan, bool *skip) {
    *skip = false;
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, func, "queue");
    if (!d) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: desc is NULL", func);
    }
    xgpu_status st = xgpu__gemm_check_desc(func, xgpu__context_info(xgpu__queue_context(queue)), d);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    *g = xgpu__gemm_canonical(d);
    if (d->m == 0 || d->n == 0) {
        *skip = true;
        if (!choose) {
            return XGPU_SUCCESS;
        }
    } else {
        st = xgpu__gemm_check_operands(func, queue, d, g);
    }
    return st == XGPU_SUCCESS ? xgpu__gemm_plan_make(func, queue, d, plan) : st;
}

xgpu_status xgpu_gemm(xgpu_queue *queue, const xgpu_gemm_desc *d, xgpu_event **event) {
    if (event) {
        *event = NULL;
    }
    xgpu__gemm_problem g;
    xgpu__gemm_plan plan;
    bool skip = false;
    xgpu_status st = prepare(__func__, queue, d, false, &g, &plan, &skip);
    if (st != XGPU_SUCCESS || skip) {
        return st;
    }
    return launch_gemm(queue, d, &g, &plan, event);
}

xgpu_status xgpu_gemm_choose(xgpu_queue *queue, const xgpu_gemm_desc *d, xgpu_gemm_choice *choice) {
    if (!choice) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: choice is NULL", __func__);
    }
    memset(choice, 0, sizeof *choice);
    xgpu__gemm_problem g;
    xgpu__gemm_plan plan;
    bool skip = false;
    xgpu_status st = prepare(__func__, queue, d, true, &g, &plan, &skip);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    choice->path = plan.path;
    choice->compute = plan.compute;
    choice->params = plan.params;
    snprintf(choice->source, sizeof choice->source, "%s", plan.source);
    return XGPU_SUCCESS;
}
