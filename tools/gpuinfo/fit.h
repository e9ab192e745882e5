/* gpuinfo --fit: will a model fit in a device's memory? The estimator
 * (fit_model.c, fit_config.c, fit_estimate.c) knows no device: it turns a
 * model and a workload into bytes and judges them against memory figures
 * it is given, so that the tests drive it with made-up devices. fit.c is
 * the command (options, devices, the table and --json). The formulas and
 * where their conventions come from are in docs/fit.md.
 *
 * Every function that can fail returns 0, or -1 with one line saying what
 * is wrong in the caller's buffer `err` (`errsize` bytes, no trailing
 * newline). None allocates memory that outlives it. */
#ifndef XGPU_GPUINFO_FIT_H
#define XGPU_GPUINFO_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds of what --fit takes; outside them is a usage error. */
#define FIT_MAX_PARAMS 1e15             /* a quadrillion parameters */
#define FIT_MAX_CONTEXT (1u << 24)      /* 16,777,216 tokens */
#define FIT_MAX_BATCH 65536u            /* sequences */
#define FIT_MAX_CONFIG_BYTES (4u << 20) /* a config.json larger is refused unread */
#define FIT_DEFAULT_CONTEXT 4096u
#define FIT_LORA_RANK 16u /* on the q, k, v and o projections of every layer */
/* The CUDA context, library workspaces (cuBLAS) and the caching
 * allocator's slack, per device: a constant, and an estimate. */
#define FIT_OVERHEAD_BYTES (768.0 * 1024 * 1024)
/* NF4 with double quantization (QLoRA): 4 bits, plus an 8-bit absmax per
 * 64 weights, plus a 32-bit constant per 256 of those: 4.127 bits. */
#define FIT_NF4_BITS (4.0 + 8.0 / 64 + 32.0 / (64 * 256))

typedef enum fit_dtype { FIT_FP32, FIT_FP16, FIT_BF16, FIT_INT8, FIT_INT4 } fit_dtype;
typedef enum fit_mode { FIT_INFER, FIT_TRAIN, FIT_LORA, FIT_QLORA } fit_mode;

/* The MLP's form: gate, up and down projections (SwiGLU, as in Llama,
 * Mistral, Qwen, Gemma) or up and down (GPT-2, OPT, Falcon, GPT-NeoX). */
typedef enum fit_mlp { FIT_MLP_GATED, FIT_MLP_PLAIN } fit_mlp;

#define FIT_MAX_NOTES 6

/* A decoder-only transformer: its parameter count and the shape the KV
 * cache and the activations are computed from. From a config.json every
 * field is the config's; from a bare count the shape is interpolated from
 * Llama-family models (fit_model_from_count) and only `params` is given. */
typedef struct fit_model {
    double params;       /* every parameter */
    double embed_params; /* token embeddings, plus lm_head when untied */
    uint32_t layers, hidden, heads, kv_heads, head_dim, vocab, intermediate;
    uint32_t experts; /* MLPs per layer (Mixtral's num_local_experts); 1 when dense */
    bool tied;        /* lm_head shares the embeddings */
    fit_mlp mlp;
    bool from_config;
    bool interpolated;     /* a bare count between two anchors' shapes */
    char shape_source[96]; /* "Llama 2 7B", "config.json", "between Llama 2 13B and ..." */
    char mlp_reason[96];   /* why this MLP form: "hidden_act silu" */
    uint32_t note_count;
    char notes[FIT_MAX_NOTES][200]; /* assumptions the reader should see */
} fit_model;

/* fit_model.c ------------------------------------------------------------ */

/* The fit files' two idioms: the message into err (returns -1), and an
 * assumption appended to m->notes (the first FIT_MAX_NOTES are kept). */
int fit_error(char *err, size_t errsize, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void fit_note(fit_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A parameter count: digits with an optional decimal part and an optional
 * suffix k, m, b or t (thousand, million, billion, trillion; any case):
 * "7b", "1.5B", "500m", "7000000000". More than zero and at most
 * FIT_MAX_PARAMS; no sign, exponent, spaces or hexadecimal. */
int fit_parse_count(const char *text, double *params, char *err, size_t errsize);

/* The model `params` parameters with the shape of the Llama-family model
 * of that size (an anchor: Llama 2 7B at 7b), or one interpolated
 * geometrically between the two anchors around it, or the smallest or
 * largest anchor's beyond them. Always succeeds for 0 < params. */
void fit_model_from_count(double params, fit_model *m);

/* MODEL as --fit takes it: a parameter count, else a config.json path
 * (fit_config.c). A string that parses as a count is a count (write ./7b
 * for a file named 7b). */
int fit_parse_model(const char *arg, fit_model *m, char *err, size_t errsize);

int fit_parse_dtype(const char *text, fit_dtype *d, char *err, size_t errsize);
int fit_parse_mode(const char *text, fit_mode *mode, char *err, size_t errsize);
/* A whole decimal number in [min, max] for option `name`. */
int fit_parse_uint(const char *name, const char *text, uint64_t min, uint64_t max, uint64_t *out,
                   char *err, size_t errsize);

const char *fit_dtype_name(fit_dtype d);
const char *fit_mode_name(fit_mode mode);

/* fit_config.c ----------------------------------------------------------- */

/* The model a Hugging Face config.json describes. The file must be a
 * regular file of at most FIT_MAX_CONFIG_BYTES (checked before reading).
 * Without cJSON in the build it fails, saying so. */
int fit_model_from_config(const char *path, fit_model *m, char *err, size_t errsize);
/* The same from the text of one (`len` bytes, no NUL needed). */
int fit_model_from_json(const char *text, size_t len, fit_model *m, char *err, size_t errsize);
/* Whether this build reads config.json (it has cJSON). */
bool fit_have_config_reader(void);

/* fit_estimate.c --------------------------------------------------------- */

typedef struct fit_workload {
    fit_dtype dtype;
    fit_mode mode;
    uint64_t context; /* tokens per sequence */
    uint64_t batch;   /* sequences */
} fit_workload;

/* The dtypes each mode takes: train needs fp32, fp16 or bf16 (there is no
 * full training of int8 or int4 weights), lora takes those and int8,
 * qlora's base is NF4 and --dtype is its adapters' (not int8 or int4). */
int fit_check_workload(const fit_workload *w, char *err, size_t errsize);

/* The memory one model copy needs, in bytes, by part. */
typedef struct fit_estimate {
    double weights;     /* the model's weights (the base's, for lora and qlora) */
    double adapters;    /* the LoRA adapters' weights; 0 unless lora or qlora */
    double kv_cache;    /* inference only; 0 when training */
    double activations; /* inference: the working set; training: with checkpointing */
    double gradients;   /* of what is trained; 0 for inference */
    double optimizer;   /* Adam's states (and the fp32 master weights); 0 for inference */
    double overhead;    /* FIT_OVERHEAD_BYTES */
    double total;
    double trainable_params;       /* every param (train), the adapters' (lora, qlora), 0 */
    double weight_bytes_per_param; /* averaged over the whole model */
    double state_bytes_per_param;  /* (gradients + optimizer) per trainable parameter */
    double kv_bytes_per_token;     /* per token of one sequence, over every layer */
} fit_estimate;

void fit_estimate_memory(const fit_model *m, const fit_workload *w, fit_estimate *e);

/* What one device needs when the model is split evenly over n of them:
 * weights, adapters, KV cache, gradients and optimizer states divided by
 * n (tensor or pipeline parallel, or ZeRO-3/FSDP sharding), activations
 * and the overhead whole on each. */
double fit_need_per_device(const fit_estimate *e, uint32_t n);

/* A device's memory as the verdict sees it. */
typedef struct fit_memory {
    uint64_t total_bytes;
    uint64_t free_bytes;
    bool free_known; /* false: free memory is unknown and total is used */
} fit_memory;

/* The memory the verdict counts on: free when known, else total. */
uint64_t fit_available(const fit_memory *mem);
bool fit_fits_on(const fit_estimate *e, const fit_memory *mem);
/* The fewest of devs[n] the model fits on: 1 when one device holds it
 * alone; k > 1 when k of them each hold fit_need_per_device(e, k); 0 when
 * not even all n do. */
uint32_t fit_devices_needed(const fit_estimate *e, const fit_memory *devs, uint32_t n);

#endif
