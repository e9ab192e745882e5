/* --fit's estimate: the bytes a model needs for a workload, by part, and
 * the verdict against devices' memory. Each formula, and the paper or
 * post its convention comes from, is in docs/fit.md. */
#include "fit.h"

static bool is_16bit(fit_dtype d) {
    return d == FIT_FP16 || d == FIT_BF16;
}

/* Bytes per weight. int4 is NF4 with double quantization (QLoRA); int8
 * keeps one scale per row, too few to count. */
static double weight_bytes(fit_dtype d) {
    switch (d) {
    case FIT_FP32:
        return 4;
    case FIT_FP16:
    case FIT_BF16:
        return 2;
    case FIT_INT8:
        return 1;
    case FIT_INT4:
        break;
    }
    return FIT_NF4_BITS / 8;
}

/* Activations and the KV cache: fp32 for fp32 models, else 16-bit (int8
 * and int4 quantize the weights only). */
static double act_bytes(fit_dtype d) {
    return d == FIT_FP32 ? 4 : 2;
}

int fit_check_workload(const fit_workload *w, char *err, size_t errsize) {
    bool quantized = w->dtype == FIT_INT8 || w->dtype == FIT_INT4;
    if (w->mode == FIT_TRAIN && quantized) {
        return fit_error(err, errsize,
                         "--mode train trains every weight, in fp32, fp16 or bf16; for %s base "
                         "weights use --mode %s",
                         fit_dtype_name(w->dtype), w->dtype == FIT_INT8 ? "lora" : "qlora");
    }
    if (w->mode == FIT_LORA && w->dtype == FIT_INT4) {
        return fit_error(err, errsize, "LoRA on int4 base weights is QLoRA: use --mode qlora");
    }
    if (w->mode == FIT_QLORA && quantized) {
        return fit_error(err, errsize,
                         "--mode qlora's base is always 4-bit NF4; --dtype sets its adapters: "
                         "fp32, fp16 or bf16");
    }
    return 0;
}

/* LoRA's trainable parameters: rank r on q, k, v and o of every layer,
 * A (in x r) and B (r x out) each. */
static double adapter_params(const fit_model *m) {
    double h = m->hidden, q = (double)m->heads * m->head_dim;
    double kv = (double)m->kv_heads * m->head_dim;
    double per_layer = FIT_LORA_RANK * ((h + q) + 2 * (h + kv) + (q + h));
    return m->layers * per_layer;
}

/* The base weights: quantized ones keep the embeddings and lm_head in 16
 * bits, as bitsandbytes and QLoRA do. */
static double base_weights(const fit_model *m, const fit_workload *w) {
    fit_dtype d = w->mode == FIT_QLORA ? FIT_INT4 : w->dtype;
    if (d == FIT_INT8 || d == FIT_INT4) {
        return m->embed_params * 2 + (m->params - m->embed_params) * weight_bytes(d);
    }
    return m->params * weight_bytes(d);
}

/* Inference: one layer's working set while a whole context is prefilled
 * (residual, normed input, query, attention output, and the MLP's gate and
 * up projections per token; attention as flash attention, without the
 * context x context scores), plus the last token's logits in fp32. */
static double infer_activations(const fit_model *m, const fit_workload *w) {
    double tokens = (double)w->context * w->batch;
    double mlp = (m->mlp == FIT_MLP_GATED ? 2.0 : 1.0) * m->intermediate;
    return tokens * (4.0 * m->hidden + mlp) * act_bytes(w->dtype) + (double)w->batch * m->vocab * 4;
}

/* Training with activation checkpointing at every layer: each layer's
 * input kept, one layer's activations recomputed at a time during the
 * backward pass (Korthikanti et al.'s count with flash attention and no
 * dropout: 8 h + 4 i values per token for SwiGLU, 8 h + 2 i for a plain
 * MLP), and the logits with their gradient in fp32. */
static double train_activations(const fit_model *m, const fit_workload *w) {
    double tokens = (double)w->context * w->batch, a = act_bytes(w->dtype);
    double h = m->hidden, i = m->intermediate;
    double checkpoints = m->layers * tokens * h * a;
    double one_layer = tokens * (8 * h + (m->mlp == FIT_MLP_GATED ? 4 : 2) * i) * a;
    double logits = tokens * m->vocab * 4 * 2;
    return checkpoints + one_layer + logits;
}

/* The dtype of what is trained: every weight (train), or the adapters,
 * in --dtype, fp16 on an int8 base (fit_check_workload has refused
 * the rest). */
static fit_dtype trained_dtype(const fit_workload *w) {
    return w->dtype == FIT_INT8 || w->dtype == FIT_INT4 ? FIT_FP16 : w->dtype;
}

void fit_estimate_memory(const fit_model *m, const fit_workload *w, fit_estimate *e) {
    *e = (fit_estimate){0};
    e->weights = base_weights(m, w);
    e->overhead = FIT_OVERHEAD_BYTES;
    e->kv_bytes_per_token = 2.0 * m->layers * m->kv_heads * m->head_dim * act_bytes(w->dtype);
    if (w->mode == FIT_INFER) {
        e->kv_cache = e->kv_bytes_per_token * (double)w->context * w->batch;
        e->activations = infer_activations(m, w);
    } else {
        fit_dtype td = trained_dtype(w);
        if (w->mode == FIT_TRAIN) {
            e->trainable_params = m->params;
        } else {
            e->trainable_params = adapter_params(m);
            e->adapters = e->trainable_params * weight_bytes(td);
        }
        /* Adam: gradients in the trained dtype; two fp32 moments; and, for
         * 16-bit weights, an fp32 master copy (ZeRO's K = 12). */
        e->gradients = e->trainable_params * weight_bytes(td);
        e->optimizer = e->trainable_params * (8.0 + (is_16bit(td) ? 4.0 : 0.0));
        e->state_bytes_per_param = weight_bytes(td) + 8.0 + (is_16bit(td) ? 4.0 : 0.0);
        e->activations = train_activations(m, w);
    }
    e->weight_bytes_per_param = m->params > 0 ? e->weights / m->params : 0;
    e->total = e->weights + e->adapters + e->kv_cache + e->activations + e->gradients +
               e->optimizer + e->overhead;
}

double fit_need_per_device(const fit_estimate *e, uint32_t n) {
    double split = e->weights + e->adapters + e->kv_cache + e->gradients + e->optimizer;
    return split / (n ? n : 1) + e->activations + e->overhead;
}

uint64_t fit_available(const fit_memory *mem) {
    return mem->free_known ? mem->free_bytes : mem->total_bytes;
}

bool fit_fits_on(const fit_estimate *e, const fit_memory *mem) {
    return fit_need_per_device(e, 1) <= (double)fit_available(mem);
}

uint32_t fit_devices_needed(const fit_estimate *e, const fit_memory *devs, uint32_t n) {
    for (uint32_t k = 1; k <= n; k++) {
        double need = fit_need_per_device(e, k);
        uint32_t room = 0;
        for (uint32_t d = 0; d < n; d++) {
            room += need <= (double)fit_available(&devs[d]);
        }
        if (room >= k) {
            return k;
        }
    }
    return 0;
}
