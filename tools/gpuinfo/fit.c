/* gpuinfo --fit MODEL: whether a model fits in each selected device's
 * memory, as a table a person reads or (with --json) the document
 * "xgpu.gpuinfo.fit/1". The estimate is fit_estimate.c's; this file reads
 * the options and the devices' memory, and prints. */
#define _GNU_SOURCE
#include "gpuinfo.h"
#include "device_id.h"
#include "fit.h"
#include "json_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fit_opts {
    const char *model_arg, *selector;
    fit_workload w;
    bool dtype_given, json;
} fit_opts;

/* One selected device: its memory as the verdict sees it. */
typedef struct fit_device {
    const pd_device *pd;
    fit_memory mem;
} fit_device;

/* The options of --fit; -1 to go on, else the exit status (2), said. */
static int parse(int argc, char **argv, fit_opts *o) {
    char err[256];
    o->w = (fit_workload){FIT_FP16, FIT_INFER, FIT_DEFAULT_CONTEXT, 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            o->json = true;
            continue;
        }
        bool takes_value = !strcmp(a, "--fit") || !strcmp(a, "--dtype") || !strcmp(a, "--mode") ||
                           !strcmp(a, "--context") || !strcmp(a, "--batch") || !strcmp(a, "-d") ||
                           !strcmp(a, "--device");
        if (!takes_value) {
            fprintf(stderr,
                    "gpuinfo: --fit: unknown option '%s' (it takes --dtype, --mode, --context, "
                    "--batch, -d and --json; gpuinfo --help)\n",
                    a);
            return 2;
        }
        if (!v) {
            fprintf(stderr, "gpuinfo: %s needs a value\n", a);
            return 2;
        }
        int rc = 0;
        uint64_t n = 0;
        if (!strcmp(a, "--fit")) {
            o->model_arg = v;
        } else if (!strcmp(a, "--dtype")) {
            rc = fit_parse_dtype(v, &o->w.dtype, err, sizeof err);
            o->dtype_given = true;
        } else if (!strcmp(a, "--mode")) {
            rc = fit_parse_mode(v, &o->w.mode, err, sizeof err);
        } else if (!strcmp(a, "--context")) {
            rc = fit_parse_uint("--context", v, 1, FIT_MAX_CONTEXT, &n, err, sizeof err);
            o->w.context = n;
        } else if (!strcmp(a, "--batch")) {
            rc = fit_parse_uint("--batch", v, 1, FIT_MAX_BATCH, &n, err, sizeof err);
            o->w.batch = n;
        } else {
            o->selector = v;
        }
        if (rc != 0) {
            fprintf(stderr, "gpuinfo: %s\n", err);
            return 2;
        }
        i++;
    }
    if (!o->dtype_given && o->w.mode == FIT_QLORA) {
        o->w.dtype = FIT_BF16; /* QLoRA's adapters and compute, as its paper trains */
    }
    if (fit_check_workload(&o->w, err, sizeof err) != 0) {
        fprintf(stderr, "gpuinfo: %s\n", err);
        return 2;
    }
    return -1;
}

/* The memory of each device; free memory from the first path that can
 * tell (CUDA and HIP can, OpenCL cannot). */
static void read_memory(const pd_device *devs, uint32_t n, fit_device *out) {
    for (uint32_t i = 0; i < n; i++) {
        out[i].pd = &devs[i];
        out[i].mem = (fit_memory){devs[i].infos[0].global_mem_bytes, 0, false};
        for (uint32_t p = 0; p < devs[i].path_count && !out[i].mem.free_known; p++) {
            uint64_t free_bytes = 0;
            if (xgpu_device_free_memory(devs[i].devices[p], &free_bytes) == XGPU_SUCCESS) {
                out[i].mem.free_bytes = free_bytes;
                out[i].mem.free_known = true;
            }
        }
    }
}

/* Text ------------------------------------------------------------------- */

#define GIB (1024.0 * 1024 * 1024)

/* 6.74 billion, 500 million */
static void count_words(char *out, size_t size, double v) {
    static const struct {
        double scale;
        const char *word;
    } units[] = {{1e12, "trillion"}, {1e9, "billion"}, {1e6, "million"}, {1e3, "thousand"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (v >= units[i].scale) {
            double x = v / units[i].scale;
            snprintf(out, size, x < 1000 ? "%.3g %s" : "%.0f %s", x, units[i].word);
            return;
        }
    }
    snprintf(out, size, "%.0f", v);
}

static void row(FILE *out, const char *part, double bytes, const char *how) {
    fprintf(out, "  %-20s %9.2f %9.2f  %s\n", part, bytes / GIB, bytes / 1e9, how);
}

static void print_model(FILE *out, const fit_opts *o, const fit_model *m) {
    char params[48];
    count_words(params, sizeof params, m->params);
    static const char *const doing[] = {"inference", "full training", "LoRA fine-tuning",
                                        "QLoRA fine-tuning"};
    char dtype[96];
    const char *dflt = o->dtype_given ? "" : " (the default)";
    if (o->w.mode == FIT_QLORA) {
        snprintf(dtype, sizeof dtype, "with base weights in NF4 and adapters in %s%s",
                 fit_dtype_name(o->w.dtype), dflt);
    } else if (o->w.mode == FIT_LORA) {
        snprintf(dtype, sizeof dtype, "with base weights in %s and adapters in %s%s",
                 fit_dtype_name(o->w.dtype),
                 o->w.dtype == FIT_INT8 ? "fp16" : fit_dtype_name(o->w.dtype), dflt);
    } else {
        snprintf(dtype, sizeof dtype, "in %s%s", fit_dtype_name(o->w.dtype), dflt);
    }
    fprintf(out, "gpuinfo --fit %s: %s parameters%s; %s %s, context %llu tokens, batch %llu\n",
            o->model_arg, params, m->from_config ? " (from its sizes)" : "", doing[o->w.mode],
            dtype, (unsigned long long)o->w.context, (unsigned long long)o->w.batch);
    fprintf(out,
            "  shape: %s: %u layers, hidden %u, %u heads, %u KV heads x %u, vocab %u, %s MLP "
            "%u%s%s (%s)\n",
            m->shape_source, m->layers, m->hidden, m->heads, m->kv_heads, m->head_dim, m->vocab,
            m->mlp == FIT_MLP_GATED ? "gated (SwiGLU)" : "plain", m->intermediate,
            m->experts > 1 ? " x experts" : "", m->tied ? ", tied embeddings" : "", m->mlp_reason);
    for (uint32_t i = 0; i < m->note_count; i++) {
        fprintf(out, "  note: %s\n", m->notes[i]);
    }
}

static void print_estimate(FILE *out, const fit_opts *o, const fit_model *m,
                           const fit_estimate *e) {
    char how[256], n1[48], n2[48];
    const char *dt = fit_dtype_name(o->w.dtype);
    fprintf(out, "\n  %-20s %9s %9s  %s\n", "part", "GiB", "GB", "how (docs/fit.md)");
    count_words(n1, sizeof n1, m->params);
    if (o->w.mode == FIT_QLORA || o->w.dtype == FIT_INT8 || o->w.dtype == FIT_INT4) {
        bool nf4 = o->w.mode == FIT_QLORA || o->w.dtype == FIT_INT4;
        count_words(n1, sizeof n1, m->params - m->embed_params);
        count_words(n2, sizeof n2, m->embed_params);
        snprintf(how, sizeof how, "%s params x %s; %s of embeddings and lm_head x 2 bytes", n1,
                 nf4 ? "4.127 bits (NF4 with double quantization)" : "1 byte (int8)", n2);
    } else {
        snprintf(how, sizeof how, "%s params x %g bytes (%s)", n1, e->weight_bytes_per_param, dt);
    }
    row(out, "weights", e->weights, how);
    if (o->w.mode == FIT_LORA || o->w.mode == FIT_QLORA) {
        count_words(n2, sizeof n2, e->trainable_params);
        snprintf(how, sizeof how, "LoRA r=%u on q, k, v, o: %s params x %g bytes", FIT_LORA_RANK,
                 n2, e->adapters / e->trainable_params);
        row(out, "adapters", e->adapters, how);
    }
    if (o->w.mode == FIT_INFER) {
        snprintf(how, sizeof how,
                 "2 x %u layers x %u KV heads x %u x %llu tokens x %llu x %g bytes", m->layers,
                 m->kv_heads, m->head_dim, (unsigned long long)o->w.context,
                 (unsigned long long)o->w.batch, o->w.dtype == FIT_FP32 ? 4.0 : 2.0);
        row(out, "KV cache", e->kv_cache, how);
        row(out, "activations", e->activations,
            "one layer's working set while the context is prefilled, and the last logits");
    } else {
        count_words(n2, sizeof n2, e->trainable_params);
        snprintf(how, sizeof how, "%s trained params x %g bytes", n2,
                 e->gradients / e->trainable_params);
        row(out, "gradients", e->gradients, how);
        snprintf(how, sizeof how, "Adam: two fp32 moments%s",
                 e->optimizer / e->trainable_params > 8 ? " and an fp32 master copy" : "");
        row(out, "optimizer states", e->optimizer, how);
        row(out, "activations", e->activations,
            "checkpointing every layer: layer inputs, one layer, fp32 logits and gradient");
    }
    row(out, "framework overhead", e->overhead,
        "CUDA context, workspaces and allocator slack: a constant");
    row(out, "total", e->total, "an estimate: docs/fit.md says which parts are exact");
    if (o->w.mode != FIT_INFER) {
        fprintf(out,
                "  = %g bytes per trained parameter for its weight, gradient and Adam states "
                "(mixed-precision Adam, as ZeRO counts it; pure fp16 would be 8: docs/fit.md)\n",
                (o->w.mode == FIT_TRAIN ? e->weight_bytes_per_param
                                        : e->adapters / e->trainable_params) +
                    e->state_bytes_per_param);
    }
}

static void print_devices(FILE *out, const fit_estimate *e, const fit_device *devs, uint32_t n) {
    double need = fit_need_per_device(e, 1);
    fputc('\n', out);
    for (uint32_t i = 0; i < n; i++) {
        const fit_memory *mem = &devs[i].mem;
        const pd_device *d = devs[i].pd;
        char path[64];
        devid_path(&d->infos[0], path, sizeof path);
        fprintf(out, "  device %u  %s (%s%s)\n", d->index,
                d->infos[0].name[0] ? d->infos[0].name : "-", path,
                d->path_count > 1 ? ", ..." : "");
        if (mem->total_bytes == 0 && !mem->free_known) {
            fprintf(out, "    memory unknown: does not fit, as far as --fit can tell\n");
            continue;
        }
        if (mem->free_known) {
            fprintf(out, "    memory %.2f GiB total, %.2f GiB free", mem->total_bytes / GIB,
                    mem->free_bytes / GIB);
        } else {
            fprintf(out, "    memory %.2f GiB total, free unknown: the verdict uses the total",
                    mem->total_bytes / GIB);
        }
        double have = (double)fit_available(mem);
        if (fit_fits_on(e, mem)) {
            fprintf(out, "\n    fits: %.2f GiB needed, %.2f GiB to spare\n", need / GIB,
                    (have - need) / GIB);
        } else {
            fprintf(out, "\n    does not fit: %.2f GiB needed, %.2f GiB short\n", need / GIB,
                    (need - have) / GIB);
        }
    }
}

static const char split_assumption[] =
    "an even split over identical devices (tensor or pipeline parallel, or ZeRO-3/FSDP) of "
    "weights, adapters, KV cache, gradients and optimizer states; activations and overhead "
    "whole on each";

static void print_verdict(FILE *out, const fit_estimate *e, const fit_device *devs, uint32_t n,
                          uint32_t needed) {
    if (n == 0) {
        fprintf(out, "\nverdict: no device to fit it on\n");
    } else if (needed == 1) {
        fprintf(out, "\nverdict: fits on device");
        const char *sep = " ";
        for (uint32_t i = 0; i < n; i++) {
            if (fit_fits_on(e, &devs[i].mem)) {
                fprintf(out, "%s%u", sep, devs[i].pd->index);
                sep = ", ";
            }
        }
        fprintf(out, " alone\n");
    } else if (needed > 1) {
        fprintf(out,
                "\nverdict: fits on %u of these %u devices, %.2f GiB on each: %s (an "
                "estimate)\n",
                needed, n, fit_need_per_device(e, needed) / GIB, split_assumption);
    } else if (n == 1) {
        fprintf(out, "\nverdict: does not fit on this device\n");
    } else {
        fprintf(out,
                "\nverdict: does not fit: on no device alone, nor split over all %u (%.2f GiB "
                "each)\n",
                n, fit_need_per_device(e, n) / GIB);
    }
}

/* JSON ------------------------------------------------------------------- */

static void json_bytes(FILE *out, const char *key, double v, bool more) {
    fprintf(out, "      \"%s\": ", key);
    if (isfinite(v)) {
        fprintf(out, "%.0f", round(v));
    } else {
        fputs("null", out);
    }
    fputs(more ? ",\n" : "\n", out);
}

static void json_model(FILE *out, const fit_opts *o, const fit_model *m) {
    fputs("    \"model\": {\n      \"input\": ", out);
    jw_string(out, o->model_arg);
    fprintf(out, ",\n      \"from_config\": %s,\n", m->from_config ? "true" : "false");
    json_bytes(out, "parameters", m->params, true);
    json_bytes(out, "embedding_parameters", m->embed_params, true);
    fputs("      \"shape_source\": ", out);
    jw_string(out, m->shape_source);
    fprintf(out,
            ",\n      \"interpolated\": %s,\n      \"layers\": %u,\n      \"hidden_size\": %u,\n"
            "      \"attention_heads\": %u,\n      \"kv_heads\": %u,\n      \"head_dim\": %u,\n"
            "      \"vocab_size\": %u,\n      \"intermediate_size\": %u,\n      \"experts\": %u,\n"
            "      \"tied_embeddings\": %s,\n      \"mlp\": \"%s\",\n      \"mlp_reason\": ",
            m->interpolated ? "true" : "false", m->layers, m->hidden, m->heads, m->kv_heads,
            m->head_dim, m->vocab, m->intermediate, m->experts, m->tied ? "true" : "false",
            m->mlp == FIT_MLP_GATED ? "gated" : "plain");
    jw_string(out, m->mlp_reason);
    fputs(",\n      \"notes\": [", out);
    for (uint32_t i = 0; i < m->note_count; i++) {
        fputs(i ? ", " : "", out);
        jw_string(out, m->notes[i]);
    }
    fputs("]\n    },\n", out);
}

static void json_estimate(FILE *out, const fit_opts *o, const fit_estimate *e) {
    bool training = o->w.mode != FIT_INFER, lora = o->w.mode >= FIT_LORA;
    fprintf(out,
            "    \"workload\": {\n      \"mode\": \"%s\",\n      \"dtype\": \"%s\",\n"
            "      \"dtype_is_default\": %s,\n      \"context_tokens\": %llu,\n"
            "      \"batch\": %llu,\n      \"lora_rank\": ",
            fit_mode_name(o->w.mode), fit_dtype_name(o->w.dtype), o->dtype_given ? "false" : "true",
            (unsigned long long)o->w.context, (unsigned long long)o->w.batch);
    if (lora) {
        fprintf(out, "%u", FIT_LORA_RANK);
    } else {
        fputs("null", out);
    }
    fprintf(out, ",\n      \"activation_checkpointing\": %s\n    },\n    \"estimate\": {\n",
            training ? "true" : "null");
    json_bytes(out, "weights_bytes", e->weights, true);
    json_bytes(out, "adapters_bytes", e->adapters, true);
    json_bytes(out, "kv_cache_bytes", e->kv_cache, true);
    json_bytes(out, "activations_bytes", e->activations, true);
    json_bytes(out, "gradients_bytes", e->gradients, true);
    json_bytes(out, "optimizer_bytes", e->optimizer, true);
    json_bytes(out, "overhead_bytes", e->overhead, true);
    json_bytes(out, "total_bytes", e->total, true);
    json_bytes(out, "kv_cache_bytes_per_token", e->kv_bytes_per_token, true);
    json_bytes(out, "trainable_parameters", e->trainable_params, true);
    fputs("      \"weight_bytes_per_parameter\": ", out);
    jw_number(out, e->weight_bytes_per_param);
    fputs(",\n      \"state_bytes_per_trained_parameter\": ", out);
    jw_number(out, training ? e->state_bytes_per_param : NAN);
    fputs("\n    },\n", out);
}

static void json_u64_or_null(FILE *out, const char *key, uint64_t v, bool known) {
    fprintf(out, "\"%s\": ", key);
    if (known) {
        fprintf(out, "%llu", (unsigned long long)v);
    } else {
        fputs("null", out);
    }
}

static void json_devices(FILE *out, const fit_estimate *e, const fit_device *devs, uint32_t n,
                         uint32_t needed) {
    fputs("    \"devices\": [", out);
    for (uint32_t i = 0; i < n; i++) {
        const fit_memory *mem = &devs[i].mem;
        char path[64];
        devid_path(&devs[i].pd->infos[0], path, sizeof path);
        fprintf(out, "%s\n      {\"index\": %u, \"path\": ", i ? "," : "", devs[i].pd->index);
        jw_string(out, path);
        fputs(", \"name\": ", out);
        jw_string(out, devs[i].pd->infos[0].name);
        fputs(", ", out);
        json_u64_or_null(out, "total_memory_bytes", mem->total_bytes, mem->total_bytes > 0);
        fputs(", ", out);
        json_u64_or_null(out, "free_memory_bytes", mem->free_bytes, mem->free_known);
        fputs(", ", out);
        bool known = mem->free_known || mem->total_bytes > 0;
        json_u64_or_null(out, "available_bytes", fit_available(mem), known);
        fprintf(out, ", \"available_from\": %s, \"fits\": %s}",
                !known            ? "null"
                : mem->free_known ? "\"free\""
                                  : "\"total\"",
                fit_fits_on(e, mem) ? "true" : "false");
    }
    fprintf(out, "%s],\n    \"verdict\": {\n      \"fits\": %s,\n      \"devices_needed\": ",
            n ? "\n    " : "", needed ? "true" : "false");
    if (needed) {
        fprintf(out, "%u", needed);
    } else {
        fputs("null", out);
    }
    fprintf(out, ",\n      \"split\": %s,\n", needed > 1 ? "true" : "false");
    json_bytes(out, "per_device_bytes", fit_need_per_device(e, needed ? needed : (n ? n : 1)),
               true);
    fputs("      \"split_assumption\": ", out);
    jw_string(out, split_assumption);
    fputs("\n    }\n", out);
}

int gi_fit(int argc, char **argv) {
    fit_opts o = {0};
    int rc = parse(argc, argv, &o);
    if (rc >= 0) {
        return rc;
    }
    fit_model m;
    char err[512];
    if (!o.model_arg || fit_parse_model(o.model_arg, &m, err, sizeof err) != 0) {
        fprintf(stderr, "gpuinfo: --fit: %s\n", o.model_arg ? err : "needs MODEL");
        return 2;
    }
    fit_estimate e;
    fit_estimate_memory(&m, &o.w, &e);
    if (!o.json) {
        /* The estimate needs no device: shown before their discovery,
         * which can take longer than all the rest (docs/fit.md, "Speed"). */
        print_model(stdout, &o, &m);
        print_estimate(stdout, &o, &m, &e);
        fflush(stdout);
    }
    pd_device *all = NULL;
    uint32_t n = 0;
    if (gi_devices(o.selector, &all, &n) == 2) {
        free(all);
        return 2;
    }
    fit_device *devs = calloc(n ? n : 1, sizeof *devs);
    fit_memory *mems = calloc(n ? n : 1, sizeof *mems);
    if (!devs || !mems) {
        fprintf(stderr, "gpuinfo: out of memory\n");
        rc = 2;
        goto done;
    }
    read_memory(all, n, devs);
    for (uint32_t i = 0; i < n; i++) {
        mems[i] = devs[i].mem;
    }
    uint32_t needed = fit_devices_needed(&e, mems, n);
    if (o.json) {
        fputs("{\n  \"schema\": \"xgpu.gpuinfo.fit/1\",\n  \"fit\": {\n", stdout);
        json_model(stdout, &o, &m);
        json_estimate(stdout, &o, &e);
        json_devices(stdout, &e, devs, n, needed);
        fputs("  }\n}\n", stdout);
    } else {
        print_devices(stdout, &e, devs, n);
        print_verdict(stdout, &e, devs, n, needed);
    }
    rc = needed ? 0 : 1;
    if (fflush(stdout) != 0) {
        rc = 2;
    }
done:
    free(mems);
    free(devs);
    free(all);
    return rc;
}
