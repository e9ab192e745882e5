/* gpuinfo --fit: the estimator (tools/gpuinfo/fit.h) on made-up models
 * and made-up device memory, each rule of docs/fit.md checked on its own;
 * then, with the argument "binary", the gpuinfo binary on this machine's
 * devices (pocl in CI): its table, --json and exit statuses. */
#define _GNU_SOURCE
#include "fit.h"
#include "xt_file.h"
#include "xt_tree.h"

#ifdef GI_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define GIB (1024.0 * 1024 * 1024)

static char tmp_root[PATH_MAX];

/* A file tmp_root/name holding `text`; its path in a static buffer. */
static const char *write_file(const char *name, const char *text) {
    static char path[PATH_MAX];
    assert_int_equal(xt_tree_path(tmp_root, name, path), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    return path;
}

static void assert_near(double got, double want, double rel) {
    if (!(fabs(got - want) <= rel * fabs(want))) {
        fail_msg("%.6g is not within %g%% of %.6g", got, rel * 100, want);
    }
}

static void assert_contains(const char *text, const char *part) {
    if (!strstr(text, part)) {
        fail_msg("'%s' does not say '%s'", text, part);
    }
}

/* Whether one of m's notes says `part`. */
static void assert_noted(const fit_model *m, const char *part) {
    for (uint32_t i = 0; i < m->note_count; i++) {
        if (strstr(m->notes[i], part)) {
            return;
        }
    }
    fail_msg("no note says '%s' (%u notes)", part, m->note_count);
}

/* A Llama-like config: 7B's sizes with `kv` KV heads and `extra` keys. */
static const char *llama_json(int kv, const char *extra) {
    static char text[1024];
    snprintf(text, sizeof text,
             "{\"model_type\": \"llama\", \"hidden_act\": \"silu\", \"num_hidden_layers\": 32, "
             "\"hidden_size\": 4096, \"num_attention_heads\": 32, \"num_key_value_heads\": %d, "
             "\"vocab_size\": 32000, \"intermediate_size\": 11008, "
             "\"tie_word_embeddings\": false, \"rope_scaling\": null%s}",
             kv, extra);
    return text;
}

static fit_estimate estimate(const fit_model *m, fit_mode mode, fit_dtype dtype, uint64_t context,
                             uint64_t batch) {
    fit_workload w = {dtype, mode, context, batch};
    char err[256];
    if (fit_check_workload(&w, err, sizeof err) != 0) {
        fail_msg("workload refused: %s", err);
    }
    fit_estimate e;
    fit_estimate_memory(m, &w, &e);
    return e;
}

/* The parser ------------------------------------------------------------- */

static void counts_take_every_suffix_and_decimals(void **state) {
    (void)state;
    static const struct {
        const char *text;
        double want;
    } good[] = {{"7b", 7e9},     {"7B", 7e9},      {"13b", 13e9},   {"70b", 70e9},
                {"1.5b", 1.5e9}, {"1.5B", 1.5e9},  {"500m", 500e6}, {"500M", 500e6},
                {"2k", 2e3},     {"2K", 2e3},      {"1t", 1e12},    {"1.5T", 1.5e12},
                {"0.5b", 0.5e9}, {"07b", 7e9},     {"1", 1},        {"7000000000", 7e9},
                {"1000t", 1e15}, {"3.25m", 3.25e6}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double p = 0;
        char err[256] = "";
        if (fit_parse_count(good[i].text, &p, err, sizeof err) != 0) {
            fail_msg("'%s' refused: %s", good[i].text, err);
        }
        assert_near(p, good[i].want, 1e-12);
    }
}

static void bad_counts_say_what_is_wrong(void **state) {
    (void)state;
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"-3b", "negative"},
        {"1e99b", "exponent"},
        {"1e9", "exponent"},
        {"0b", "zero"},
        {"0", "zero"},
        {"0.0000000001b", "less than one"},
        {"1001t", "more than"},
        {"99999999999999999999", "more than"},
        {"", "empty"},
        {"7x", "not a parameter count"},
        {"7bb", "not a parameter count"},
        {"b", "not a parameter count"},
        {"1.b", "digit must follow"},
        {".5b", "not a parameter count"},
        {"1.5", "whole number"},
        {"+7b", "not a parameter count"},
        {"7 b", "not a parameter count"},
        {"0x10b", "not a parameter count"},
        {"1,5b", "not a parameter count"},
        {"inf", "not a parameter count"},
        {"nan", "not a parameter count"},
        {"111111111111111111111111111111111b", "too long"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double p = -1;
        char err[256] = "";
        if (fit_parse_count(bad[i].text, &p, err, sizeof err) == 0) {
            fail_msg("'%s' was taken as %g parameters", bad[i].text, p);
        }
        assert_true(p == -1);
        assert_contains(err, bad[i].says);
    }
}

static void option_words_and_numbers(void **state) {
    (void)state;
    char err[256];
    fit_dtype d;
    fit_mode m;
    const char *dtypes[] = {"fp32", "fp16", "bf16", "int8", "int4"};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(fit_parse_dtype(dtypes[i], &d, err, sizeof err), 0);
        assert_int_equal(d, (fit_dtype)i);
        assert_string_equal(fit_dtype_name(d), dtypes[i]);
    }
    assert_int_equal(fit_parse_dtype("BF16", &d, err, sizeof err), 0);
    assert_int_equal(d, FIT_BF16);
    const char *modes[] = {"infer", "train", "lora", "qlora"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(fit_parse_mode(modes[i], &m, err, sizeof err), 0);
        assert_int_equal(m, (fit_mode)i);
    }
    const char *bad_dtypes[] = {"fp8", "int3", "", "fp16 ", "float16"};
    for (size_t i = 0; i < sizeof bad_dtypes / sizeof bad_dtypes[0]; i++) {
        assert_int_equal(fit_parse_dtype(bad_dtypes[i], &d, err, sizeof err), -1);
        assert_contains(err, "--dtype");
    }
    assert_int_equal(fit_parse_mode("pretrain", &m, err, sizeof err), -1);
    assert_contains(err, "--mode 'pretrain'");

    uint64_t v = 0;
    assert_int_equal(fit_parse_uint("--context", "4096", 1, FIT_MAX_CONTEXT, &v, err, sizeof err),
                     0);
    assert_int_equal(v, 4096);
    assert_int_equal(
        fit_parse_uint("--context", "16777216", 1, FIT_MAX_CONTEXT, &v, err, sizeof err), 0);
    const char *bad[] = {"0", "16777217", "99999999999999999999999", "-1", "4k", "", " 1", "1.0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (fit_parse_uint("--context", bad[i], 1, FIT_MAX_CONTEXT, &v, err, sizeof err) == 0) {
            fail_msg("--context '%s' was taken", bad[i]);
        }
        assert_contains(err, "--context");
    }
}

static void each_mode_takes_its_dtypes(void **state) {
    (void)state;
    char err[256];
    static const struct {
        fit_mode mode;
        fit_dtype dtype;
        int ok;
    } cases[] = {
        {FIT_INFER, FIT_INT4, 1}, {FIT_INFER, FIT_INT8, 1}, {FIT_TRAIN, FIT_BF16, 1},
        {FIT_TRAIN, FIT_FP32, 1}, {FIT_TRAIN, FIT_INT8, 0}, {FIT_TRAIN, FIT_INT4, 0},
        {FIT_LORA, FIT_INT8, 1},  {FIT_LORA, FIT_INT4, 0},  {FIT_QLORA, FIT_BF16, 1},
        {FIT_QLORA, FIT_INT4, 0}, {FIT_QLORA, FIT_INT8, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fit_workload w = {cases[i].dtype, cases[i].mode, 4096, 1};
        int rc = fit_check_workload(&w, err, sizeof err);
        if ((rc == 0) != cases[i].ok) {
            fail_msg("--mode %s --dtype %s: %s", fit_mode_name(cases[i].mode),
                     fit_dtype_name(cases[i].dtype), rc ? err : "taken");
        }
    }
}

/* The shape of a bare count ---------------------------------------------- */

static void a_count_near_an_anchor_takes_its_shape(void **state) {
    (void)state;
    fit_model m;
    fit_model_from_count(7e9, &m);
    assert_string_equal(m.shape_source, "Llama 2 7B");
    assert_int_equal(m.layers, 32);
    assert_int_equal(m.kv_heads, 32);
    assert_int_equal(m.head_dim, 128);
    assert_false(m.interpolated);
    assert_int_equal(m.note_count, 1); /* says the shape is assumed */
    assert_noted(&m, "bare count");
    assert_true(m.params == 7e9);
    fit_model_from_count(6.8e9, &m);
    assert_string_equal(m.shape_source, "Llama 2 7B");
    fit_model_from_count(70e9, &m);
    assert_int_equal(m.layers, 80);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.hidden, 8192);
}

static void a_count_between_anchors_is_interpolated(void **state) {
    (void)state;
    fit_model m;
    fit_model_from_count(20e9, &m);
    assert_true(m.interpolated);
    assert_contains(m.shape_source, "between Llama 2 13B and Code Llama 34B");
    assert_in_range(m.layers, 41, 47);
    assert_in_range(m.hidden, 5121, 8191);
    assert_int_equal(m.hidden % m.head_dim, 0);
    assert_in_range(m.kv_heads, 9, 39);
    /* Between two anchors every size lies between theirs, and the width
     * grows with the count, never back. */
    static const struct {
        double params;
        uint32_t layers[2], hidden[2], kv_width[2];
    } spans[] = {
        {0.5e9, {16, 30}, {576, 2048}, {192, 512}},
        {2e9, {16, 28}, {2048, 3072}, {512, 1024}},
        {10e9, {32, 40}, {4096, 5120}, {4096, 5120}},
        {50e9, {48, 80}, {8192, 8192}, {1024, 1024}},
        {200e9, {80, 126}, {8192, 16384}, {1024, 1024}},
    };
    for (size_t k = 0; k < sizeof spans / sizeof spans[0]; k++) {
        fit_model_from_count(spans[k].params, &m);
        assert_true(m.interpolated);
        assert_in_range(m.layers, spans[k].layers[0], spans[k].layers[1]);
        assert_in_range(m.hidden, spans[k].hidden[0], spans[k].hidden[1]);
        assert_in_range(m.kv_heads * m.head_dim, spans[k].kv_width[0], spans[k].kv_width[1]);
    }
    uint32_t hidden = 0;
    for (double p = 1e8; p <= 1e13; p *= 1.1) {
        fit_model_from_count(p, &m);
        assert_true(m.hidden >= hidden);
        assert_true(m.kv_heads >= 1 && m.kv_heads <= m.heads);
        assert_true(m.embed_params <= m.params);
        hidden = m.hidden;
    }
    /* Beyond the anchors: the nearest one's shape, said. */
    fit_model_from_count(10e12, &m);
    assert_int_equal(m.layers, 126);
    assert_contains(m.shape_source, "largest");
    fit_model_from_count(1e6, &m);
    assert_int_equal(m.layers, 30);
    assert_contains(m.shape_source, "smallest");
    assert_true(m.embed_params == 1e6); /* no more embeddings than parameters */
}

/* config.json ------------------------------------------------------------ */

#ifdef GI_HAVE_CJSON

static fit_model from_json(const char *text) {
    fit_model m;
    char err[512];
    if (fit_model_from_json(text, strlen(text), &m, err, sizeof err) != 0) {
        fail_msg("refused: %s\n%s", err, text);
    }
    return m;
}

static void llama_7b_config_counts_its_parameters(void **state) {
    (void)state;
    fit_model m = from_json(llama_json(32, ""));
    /* 6,738,415,616: Llama 2 7B's published count; within 1% and exact. */
    assert_near(m.params, 6.74e9, 0.01);
    assert_true(m.params == 6738415616.0);
    assert_true(m.from_config);
    assert_int_equal(m.mlp, FIT_MLP_GATED);
    assert_contains(m.mlp_reason, "model_type llama");
    assert_true(m.embed_params == 2.0 * 32000 * 4096);
    assert_int_equal(m.note_count, 0);

    /* GQA: k and v shrink to 8 heads, and the KV cache by 8/32. */
    fit_model g = from_json(llama_json(8, ""));
    assert_true(g.params == 6738415616.0 - 32.0 * 2 * 4096 * (4096 - 1024));
    fit_estimate em = estimate(&m, FIT_INFER, FIT_FP16, 4096, 1);
    fit_estimate eg = estimate(&g, FIT_INFER, FIT_FP16, 4096, 1);
    assert_true(eg.kv_cache == em.kv_cache * 8 / 32);

    /* Tied: one embedding matrix. */
    const char *tied = "{\"model_type\": \"llama\", \"num_hidden_layers\": 32, \"hidden_size\": "
                       "4096, \"num_attention_heads\": 32, \"vocab_size\": 32000, "
                       "\"intermediate_size\": 11008, \"tie_word_embeddings\": true}";
    fit_model t = from_json(tied);
    assert_true(t.params == 6738415616.0 - 32000.0 * 4096);
    assert_true(t.tied);
    assert_int_equal(t.kv_heads, 32); /* num_key_value_heads absent: MHA, said */
    assert_noted(&t, "num_key_value_heads absent");
}

/* Configs whose published counts are known: Mixtral's experts, Qwen2's
 * q, k, v biases, Gemma's head_dim. */
static void real_shapes_count_as_published(void **state) {
    (void)state;
    fit_model mix = from_json(
        "{\"model_type\": \"mixtral\", \"num_hidden_layers\": 32, \"hidden_size\": 4096, "
        "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"vocab_size\": 32000, "
        "\"intermediate_size\": 14336, \"num_local_experts\": 8, \"tie_word_embeddings\": false}");
    assert_true(mix.params == 46702792704.0);
    assert_int_equal(mix.experts, 8);
    fit_model qwen = from_json(
        "{\"model_type\": \"qwen2\", \"num_hidden_layers\": 28, \"hidden_size\": 3584, "
        "\"num_attention_heads\": 28, \"num_key_value_heads\": 4, \"vocab_size\": 152064, "
        "\"intermediate_size\": 18944, \"tie_word_embeddings\": false}");
    assert_true(qwen.params == 7615616512.0);
    /* Gemma 7B: 16 heads of 256 = 4096 wide on a 3072 hidden size. */
    fit_model gemma =
        from_json("{\"model_type\": \"gemma\", \"hidden_act\": \"gelu_pytorch_tanh\", "
                  "\"num_hidden_layers\": 28, \"hidden_size\": 3072, \"num_attention_heads\": 16, "
                  "\"num_key_value_heads\": 16, \"head_dim\": 256, \"vocab_size\": 256000, "
                  "\"intermediate_size\": 24576, \"tie_word_embeddings\": true}");
    assert_int_equal(gemma.head_dim, 256);
    assert_int_equal(gemma.mlp, FIT_MLP_GATED); /* GeGLU: model_type before hidden_act */
    assert_true(gemma.params == 8537680896.0);
}

static void the_mlp_form_follows_the_config(void **state) {
    (void)state;
    const char *base = "{\"num_hidden_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": "
                       "4, \"vocab_size\": 100, \"intermediate_size\": 256, "
                       "\"tie_word_embeddings\": true%s}";
    char text[512];
    snprintf(text, sizeof text, base, ", \"hidden_act\": \"silu\"");
    fit_model m = from_json(text);
    assert_int_equal(m.mlp, FIT_MLP_GATED);
    assert_string_equal(m.mlp_reason, "hidden_act silu");
    /* h = 64, i = 256, 2 layers: attention 4 h^2, MLP 3 h i, 2 RMSNorms,
     * a final one, tied embeddings. */
    assert_true(m.params == 2.0 * (4 * 64 * 64 + 3 * 64 * 256 + 2 * 64) + 64 + 100 * 64);

    snprintf(text, sizeof text, base, ", \"hidden_act\": \"gelu\"");
    m = from_json(text);
    assert_int_equal(m.mlp, FIT_MLP_PLAIN);
    /* Biased projections, two matrices in the MLP, LayerNorms with biases. */
    assert_true(m.params == 2.0 * (4 * 64 * 64 + 4 * 64 + 2 * 64 * 256 + 256 + 64 + 4 * 64) +
                                2 * 64 + 100 * 64);

    snprintf(text, sizeof text, base, ", \"model_type\": \"gpt_neox\", \"hidden_act\": \"silu\"");
    assert_int_equal(from_json(text).mlp, FIT_MLP_PLAIN); /* model_type first */

    snprintf(text, sizeof text, base, "");
    m = from_json(text);
    assert_int_equal(m.mlp, FIT_MLP_GATED);
    assert_contains(m.mlp_reason, "assumed");

    /* Gemma 2's key for the activation, where model_type is absent. */
    snprintf(text, sizeof text, base, ", \"hidden_activation\": \"gelu_pytorch_tanh\"");
    assert_string_equal(from_json(text).mlp_reason, "hidden_act gelu_pytorch_tanh");

    /* attention_bias: biases on q, k, v and o (64 + 64 + 64 + 64 each layer). */
    snprintf(text, sizeof text, base, ", \"hidden_act\": \"silu\", \"attention_bias\": true");
    assert_true(from_json(text).params ==
                2.0 * (4 * 64 * 64 + 4 * 64 + 3 * 64 * 256 + 2 * 64) + 64 + 100 * 64);

    /* What --fit does not read is said, not guessed at. */
    snprintf(text, sizeof text, base, ", \"hidden_act\": \"silu\", \"num_experts\": 60");
    m = from_json(text);
    assert_int_equal(m.experts, 1);
    assert_noted(&m, "num_experts");
    snprintf(text, sizeof text, base,
             ", \"hidden_act\": \"silu\", \"quantization_config\": {\"bits\": 4}");
    m = from_json(text);
    assert_noted(&m, "quantization_config");

    /* A multimodal config: the text model's sizes. */
    char multimodal[1200];
    snprintf(multimodal, sizeof multimodal, "{\"model_type\": \"llava\", \"text_config\": %s}",
             llama_json(8, ""));
    m = from_json(multimodal);
    assert_int_equal(m.kv_heads, 8);
    assert_noted(&m, "text_config");
}

/* llama_json(32, "") with `key` set to `value` (added when it is not one
 * of its keys), or left out when value is NULL. */
static const char *llama_with(const char *key, const char *value) {
    static const char *const keys[][2] = {
        {"model_type", "\"llama\""},    {"num_hidden_layers", "32"},      {"hidden_size", "4096"},
        {"num_attention_heads", "32"},  {"num_key_value_heads", "32"},    {"vocab_size", "32000"},
        {"intermediate_size", "11008"}, {"tie_word_embeddings", "false"},
    };
    static char text[1024];
    size_t used = 0;
    bool found = false;
    text[used++] = '{';
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = keys[i][1];
        if (!strcmp(keys[i][0], key)) {
            found = true;
            if (!value) {
                continue;
            }
            v = value;
        }
        used += snprintf(text + used, sizeof text - used, "%s\"%s\": %s", used > 1 ? ", " : "",
                         keys[i][0], v);
    }
    if (!found && value) {
        used += snprintf(text + used, sizeof text - used, ", \"%s\": %s", key, value);
    }
    snprintf(text + used, sizeof text - used, "}");
    return text;
}

static void hostile_configs_are_refused_with_reasons(void **state) {
    (void)state;
    assert_true(from_json(llama_with("rope_theta", "10000")).params == 6738415616.0);
    static const struct {
        const char *key, *value, *says;
    } bad_values[] = {
        {"hidden_size", "\"4096\"", "hidden_size is a string"},
        {"hidden_size", "true", "hidden_size is a boolean"},
        {"hidden_size", "null", "hidden_size is null"},
        {"hidden_size", "[4096]", "hidden_size is an array"},
        {"hidden_size", "{\"a\": 1}", "hidden_size is an object"},
        {"hidden_size", "4096.5", "not a whole number"},
        {"hidden_size", "-4096", "at least 1"},
        {"num_hidden_layers", "0", "at least 1"},
        {"vocab_size", "1e30", "more than"},
        {"intermediate_size", "1e400", "not a whole number"}, /* cJSON reads inf */
        {"num_key_value_heads", "5", "does not divide"},
        {"num_key_value_heads", "64", "does not divide"},
        {"num_attention_heads", "96", "not a multiple"},
        {"head_dim", "-1", "at least 1"},
        {"tie_word_embeddings", "\"yes\"", "not true or false"},
        {"num_local_experts", "1e9", "more than"},
    };
    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
        const char *text = llama_with(bad_values[i].key, bad_values[i].value);
        fit_model m;
        char err[512] = "";
        if (fit_model_from_json(text, strlen(text), &m, err, sizeof err) == 0) {
            fail_msg("taken: %s", text);
        }
        assert_contains(err, bad_values[i].says);
    }
    const char *fields[] = {"num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size",
                            "intermediate_size"};
    for (size_t i = 0; i < 5; i++) {
        const char *text = llama_with(fields[i], NULL);
        fit_model m;
        char err[512] = "", want[96];
        assert_int_equal(fit_model_from_json(text, strlen(text), &m, err, sizeof err), -1);
        snprintf(want, sizeof want, "%s is missing", fields[i]);
        assert_contains(err, want);
    }
    static const struct {
        const char *text, *says;
    } not_configs[] = {
        {"", "not JSON"},        {"{", "not JSON"},
        {"garbage", "not JSON"}, {"[1, 2]", "an array"},
        {"null", "null"},        {"\"config\"", "a string"},
        {"{}", "is missing"},    {"{\"a\": 1} x", "not JSON"},
    };
    for (size_t i = 0; i < sizeof not_configs / sizeof not_configs[0]; i++) {
        fit_model m;
        char err[512] = "";
        const char *t = not_configs[i].text;
        assert_int_equal(fit_model_from_json(t, strlen(t), &m, err, sizeof err), -1);
        assert_contains(err, not_configs[i].says);
    }
}

static void deep_nesting_is_refused_before_parsing(void **state) {
    (void)state;
    size_t n = 200000;
    char *deep = malloc(2 * n + 1);
    assert_non_null(deep);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    fit_model m;
    char err[512] = "";
    assert_int_equal(fit_model_from_json(deep, 2 * n, &m, err, sizeof err), -1);
    assert_contains(err, "nests more than");
    /* 65 levels inside a good config: refused; 10 are fine; brackets in
     * strings are no nesting. */
    char extra[512] = ", \"x\": ", text[1024];
    for (int d = 0; d < 65; d++) {
        strcat(extra, "[");
    }
    for (int d = 0; d < 65; d++) {
        strcat(extra, "]");
    }
    snprintf(text, sizeof text, "%s", llama_json(32, extra));
    assert_int_equal(fit_model_from_json(text, strlen(text), &m, err, sizeof err), -1);
    assert_contains(err, "nests");
    from_json(llama_json(32, ", \"x\": [[[[[[[[[[1]]]]]]]]]]"));
    from_json(llama_json(32, ", \"x\": \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                             "[[[[[[[[[[[[[[[[[[[\\\"[[[[[\""));
    free(deep);
}

static void config_files_are_checked_before_reading(void **state) {
    (void)state;
    fit_model m;
    char err[512] = "", path[PATH_MAX];
    const char *p = write_file("config.json", llama_json(8, ""));
    assert_int_equal(fit_parse_model(p, &m, err, sizeof err), 0);
    assert_int_equal(m.kv_heads, 8);

    assert_int_equal(fit_parse_model(tmp_root, &m, err, sizeof err), -1);
    assert_contains(err, "is a folder");

    assert_int_equal(xt_tree_path(tmp_root, "none.json", path), 0);
    assert_int_equal(fit_parse_model(path, &m, err, sizeof err), -1);
    assert_contains(err, "No such file");

    assert_int_equal(fit_parse_model("/dev/null", &m, err, sizeof err), -1);
    assert_contains(err, "not a regular file");

    assert_int_equal(xt_tree_path(tmp_root, "fifo", path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(fit_parse_model(path, &m, err, sizeof err), -1); /* and does not block */
    assert_contains(err, "not a regular file");

    p = write_file("notjson.json", "model_type: llama\n");
    assert_int_equal(fit_parse_model(p, &m, err, sizeof err), -1);
    assert_contains(err, "is not JSON");
    assert_contains(err, "notjson.json");

    /* A 1 GB file (sparse) is refused by its size, unread. */
    assert_int_equal(xt_tree_path(tmp_root, "huge.json", path), 0);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 1000000000), 0);
    close(fd);
    assert_int_equal(fit_parse_model(path, &m, err, sizeof err), -1);
    assert_contains(err, "1000000000 bytes, more than the 4194304");
    /* Exactly the limit is read (and is not JSON), one byte more is not. */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, FIT_MAX_CONFIG_BYTES), 0);
    close(fd);
    assert_int_equal(fit_parse_model(path, &m, err, sizeof err), -1);
    assert_contains(err, "is not JSON");
    fd = open(path, O_WRONLY);
    assert_int_equal(ftruncate(fd, FIT_MAX_CONFIG_BYTES + 1), 0);
    close(fd);
    assert_int_equal(fit_parse_model(path, &m, err, sizeof err), -1);
    assert_contains(err, "more than the");

    if (geteuid() != 0) { /* root reads it anyway */
        p = write_file("secret.json", llama_json(8, ""));
        assert_int_equal(chmod(p, 0), 0);
        assert_int_equal(fit_parse_model(p, &m, err, sizeof err), -1);
        assert_contains(err, "cannot be read");
    }
    /* A count is a count even where a file has its name. */
    assert_int_equal(chdir(tmp_root), 0);
    write_file("7b", "not json");
    assert_int_equal(fit_parse_model("7b", &m, err, sizeof err), 0);
    assert_false(m.from_config);
    assert_int_equal(fit_parse_model("./7b", &m, err, sizeof err), -1);
    assert_contains(err, "is not JSON");
}

#else /* without cJSON */

static void without_cjson_a_config_is_refused_saying_why(void **state) {
    (void)state;
    fit_model m;
    char err[512] = "";
    const char *p = write_file("config.json", llama_json(8, ""));
    assert_false(fit_have_config_reader());
    assert_int_equal(fit_parse_model(p, &m, err, sizeof err), -1);
    assert_contains(err, "without cJSON");
    assert_int_equal(fit_parse_model("7b", &m, err, sizeof err), 0);
}

#endif

/* The estimate ----------------------------------------------------------- */

/* The seed table: 7B fp16 inference holds 14 GB (13.04 GiB) of weights;
 * mixed-precision Adam costs 16 bytes per parameter; QLoRA of a 7B model
 * about 5 GB (the QLoRA paper's figure, at 512 tokens). */
static void the_seed_table(void **state) {
    (void)state;
    fit_model m;
    fit_model_from_count(7e9, &m);
    fit_estimate e = estimate(&m, FIT_INFER, FIT_FP16, 4096, 1);
    assert_near(e.weights, 14e9, 1e-9);
    assert_near(e.weights / GIB, 13.04, 0.001);
    for (fit_dtype d = FIT_FP32; d <= FIT_BF16; d++) {
        e = estimate(&m, FIT_TRAIN, d, 4096, 1);
        assert_near((e.weights + e.gradients + e.optimizer) / m.params, 16, 1e-12);
        assert_near(e.weight_bytes_per_param + e.state_bytes_per_param, 16, 1e-12);
    }
    e = estimate(&m, FIT_QLORA, FIT_BF16, 512, 1);
    if (e.total < 4.5e9 || e.total > 6e9) {
        fail_msg("QLoRA 7B at 512 tokens: %.2f GB, not about 5", e.total / 1e9);
    }
    assert_in_range((uint64_t)(e.weights / 1e6), 3500, 4200); /* MB */
}

static void weights_by_dtype(void **state) {
    (void)state;
    fit_model m;
    fit_model_from_count(7e9, &m);
    double embed = 2.0 * 32000 * 4096, rest = 7e9 - embed;
    assert_true(estimate(&m, FIT_INFER, FIT_FP32, 1, 1).weights == 28e9);
    assert_true(estimate(&m, FIT_INFER, FIT_BF16, 1, 1).weights == 14e9);
    /* Quantized: the blocks' weights, embeddings and lm_head stay 16-bit. */
    assert_near(estimate(&m, FIT_INFER, FIT_INT8, 1, 1).weights, rest + 2 * embed, 1e-12);
    assert_near(estimate(&m, FIT_INFER, FIT_INT4, 1, 1).weights, rest * 4.127 / 8 + 2 * embed,
                1e-4);
    assert_near(estimate(&m, FIT_QLORA, FIT_BF16, 1, 1).weights,
                estimate(&m, FIT_INFER, FIT_INT4, 1, 1).weights, 1e-12);
    /* LoRA keeps its base in --dtype. */
    assert_true(estimate(&m, FIT_LORA, FIT_BF16, 1, 1).weights == 14e9);
}

static void kv_cache_is_the_formula_and_only_for_inference(void **state) {
    (void)state;
    fit_model m;
    fit_model_from_count(7e9, &m);
    fit_estimate e = estimate(&m, FIT_INFER, FIT_FP16, 4096, 1);
    assert_true(e.kv_cache == 2.0 * 32 * 32 * 128 * 4096 * 1 * 2); /* 2 GiB */
    assert_true(e.kv_cache == 2 * GIB);
    assert_true(estimate(&m, FIT_INFER, FIT_FP16, 8192, 1).kv_cache == 2 * e.kv_cache);
    assert_true(estimate(&m, FIT_INFER, FIT_FP16, 4096, 3).kv_cache == 3 * e.kv_cache);
    assert_true(estimate(&m, FIT_INFER, FIT_FP32, 4096, 1).kv_cache == 2 * e.kv_cache);
    assert_true(estimate(&m, FIT_INFER, FIT_INT4, 4096, 1).kv_cache == e.kv_cache);
    assert_true(e.kv_bytes_per_token * 4096 == e.kv_cache);
    assert_true(estimate(&m, FIT_TRAIN, FIT_FP16, 4096, 1).kv_cache == 0);
    fit_model_from_count(70e9, &m); /* GQA: 8 KV heads */
    assert_true(estimate(&m, FIT_INFER, FIT_FP16, 4096, 1).kv_cache ==
                2.0 * 80 * 8 * 128 * 4096 * 2);
}

static void activations_follow_their_approximations(void **state) {
    (void)state;
    fit_model m;
    fit_model_from_count(7e9, &m);
    double s = 4096, h = 4096, i = 11008, v = 32000;
    /* Inference: one layer's prefill working set, the last token's logits. */
    assert_true(estimate(&m, FIT_INFER, FIT_FP16, 4096, 1).activations ==
                s * (4 * h + 2 * i) * 2 + v * 4);
    assert_true(estimate(&m, FIT_INFER, FIT_FP16, 4096, 2).activations ==
                2 * (s * (4 * h + 2 * i) * 2 + v * 4));
    /* Training, checkpointing every layer: 32 layer inputs, one layer
     * recomputed, fp32 logits and their gradient. */
    double train = 32 * s * h * 2 + s * (8 * h + 4 * i) * 2 + s * v * 8;
    assert_true(estimate(&m, FIT_TRAIN, FIT_FP16, 4096, 1).activations == train);
    assert_true(estimate(&m, FIT_LORA, FIT_FP16, 4096, 1).activations == train);
    assert_true(estimate(&m, FIT_QLORA, FIT_BF16, 4096, 1).activations == train);
    assert_true(estimate(&m, FIT_TRAIN, FIT_FP32, 4096, 1).activations ==
                32 * s * h * 4 + s * (8 * h + 4 * i) * 4 + s * v * 8);
    /* A plain MLP has no gate. */
    m.mlp = FIT_MLP_PLAIN;
    assert_true(estimate(&m, FIT_INFER, FIT_FP16, 4096, 1).activations ==
                s * (4 * h + i) * 2 + v * 4);
    assert_true(estimate(&m, FIT_TRAIN, FIT_FP16, 4096, 1).activations ==
                32 * s * h * 2 + s * (8 * h + 2 * i) * 2 + s * v * 8);
}

static void training_states_and_adapters(void **state) {
    (void)state;
    fit_model m;
    fit_model_from_count(7e9, &m);
    fit_estimate e = estimate(&m, FIT_TRAIN, FIT_BF16, 4096, 1);
    assert_true(e.trainable_params == 7e9);
    assert_true(e.gradients == 7e9 * 2);
    assert_true(e.optimizer == 7e9 * 12); /* fp32 master copy, two fp32 moments */
    assert_true(e.adapters == 0);
    e = estimate(&m, FIT_TRAIN, FIT_FP32, 4096, 1);
    assert_true(e.gradients == 7e9 * 4);
    assert_true(e.optimizer == 7e9 * 8); /* no master copy: the weights are fp32 */

    /* LoRA r=16 on q, k, v, o: 32 layers x 16 x 4 x (4096 + 4096). */
    double adapters = 32.0 * 16 * 4 * (4096 + 4096);
    e = estimate(&m, FIT_LORA, FIT_FP16, 4096, 1);
    assert_true(e.trainable_params == adapters);
    assert_true(e.adapters == adapters * 2);
    assert_true(e.gradients == adapters * 2);
    assert_true(e.optimizer == adapters * 12);
    assert_true(estimate(&m, FIT_LORA, FIT_INT8, 4096, 1).adapters == adapters * 2);
    assert_true(estimate(&m, FIT_QLORA, FIT_FP32, 4096, 1).adapters == adapters * 4);
    assert_true(estimate(&m, FIT_QLORA, FIT_FP32, 4096, 1).optimizer == adapters * 8);
    /* GQA narrows k's and v's adapters. */
    m.kv_heads = 8;
    assert_true(estimate(&m, FIT_LORA, FIT_FP16, 4096, 1).trainable_params ==
                32.0 * 16 * (2 * (4096 + 4096) + 2 * (4096 + 1024)));
    /* Inference trains nothing. */
    e = estimate(&m, FIT_INFER, FIT_FP16, 4096, 1);
    assert_true(e.gradients == 0 && e.optimizer == 0 && e.trainable_params == 0);
}

static void the_total_is_the_sum_with_the_overhead(void **state) {
    (void)state;
    fit_model m;
    fit_model_from_count(13e9, &m);
    for (fit_mode mode = FIT_INFER; mode <= FIT_QLORA; mode++) {
        fit_estimate e = estimate(&m, mode, FIT_BF16, 2048, 2);
        assert_true(e.overhead == 768.0 * 1024 * 1024);
        assert_true(e.total == e.weights + e.adapters + e.kv_cache + e.activations + e.gradients +
                                   e.optimizer + e.overhead);
    }
}

/* The verdict ------------------------------------------------------------ */

static fit_memory gib(double total, double free_gib, bool known) {
    return (fit_memory){(uint64_t)(total * GIB), (uint64_t)(free_gib * GIB), known};
}

static void the_verdict_on_made_up_devices(void **state) {
    (void)state;
    fit_model m;
    fit_model_from_count(7e9, &m);
    fit_estimate e = estimate(&m, FIT_INFER, FIT_FP16, 4096, 1); /* 16.08 GiB */
    assert_near(fit_need_per_device(&e, 1) / GIB, 16.08, 0.001);

    fit_memory fits = gib(24, 23, true), small = gib(8, 7.5, true);
    assert_true(fit_fits_on(&e, &fits));
    assert_false(fit_fits_on(&e, &small));
    assert_int_equal(fit_devices_needed(&e, &fits, 1), 1);
    assert_int_equal(fit_devices_needed(&e, &small, 1), 0);
    assert_int_equal(fit_devices_needed(&e, NULL, 0), 0);

    /* Free memory, when known, is what counts; unknown, the total does. */
    fit_memory busy = gib(24, 4, true), unknown = gib(24, 0, false);
    assert_false(fit_fits_on(&e, &busy));
    assert_true(fit_available(&unknown) == (uint64_t)(24 * GIB));
    assert_true(fit_fits_on(&e, &unknown));
    fit_memory nothing = gib(0, 0, false);
    assert_false(fit_fits_on(&e, &nothing));

    /* Split over N: weights and KV cache shared out, activations and
     * overhead whole on each. */
    fit_model_from_count(70e9, &m);
    e = estimate(&m, FIT_INFER, FIT_FP16, 4096, 1);
    double split = e.weights + e.kv_cache;
    assert_true(fit_need_per_device(&e, 2) == split / 2 + e.activations + e.overhead);
    fit_memory four[] = {gib(80, 79, true), gib(80, 79, true), gib(80, 79, true),
                         gib(80, 79, true)};
    assert_int_equal(fit_devices_needed(&e, four, 4), 2);
    fit_memory mixed[] = {gib(80, 79, true), gib(16, 15, true), gib(80, 0, false)};
    assert_int_equal(fit_devices_needed(&e, mixed, 3), 2);
    fit_memory one_big[] = {gib(80, 79, true), gib(16, 15, true), gib(16, 15, true)};
    assert_int_equal(fit_devices_needed(&e, one_big, 3), 0);
    fit_memory small4[] = {gib(48, 47, true), gib(48, 47, true), gib(48, 47, true),
                           gib(48, 47, true)};
    assert_int_equal(fit_devices_needed(&e, small4, 4), 3);
    /* Training splits its gradients and optimizer states too. */
    e = estimate(&m, FIT_TRAIN, FIT_BF16, 4096, 1);
    assert_true(fit_need_per_device(&e, 8) ==
                (e.weights + e.gradients + e.optimizer) / 8 + e.activations + e.overhead);
}

/* --fit answers at once: the estimate of a config read from its file, in
 * this process (the binary's time is mostly the devices' discovery). */
static double median_ms(const char *model) {
    double times[101];
    for (int r = 0; r < 101; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        fit_model m;
        char err[512];
        if (fit_parse_model(model, &m, err, sizeof err) != 0) {
            fail_msg("%s", err);
        }
        fit_estimate e;
        fit_workload w = {FIT_FP16, FIT_TRAIN, 4096, 1};
        fit_estimate_memory(&m, &w, &e);
        clock_gettime(CLOCK_MONOTONIC, &b);
        times[r] = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
    }
    for (int i = 1; i < 101; i++) { /* insertion sort, for the median */
        for (int j = i; j > 0 && times[j] < times[j - 1]; j--) {
            double t = times[j];
            times[j] = times[j - 1];
            times[j - 1] = t;
        }
    }
    return times[50];
}

/* --fit answers at once: the estimate of a count, and of a config read
 * from its file, in this process (the binary's own time is mostly the
 * discovery of the devices: docs/fit.md, "Speed"). */
static void the_estimate_takes_well_under_10_ms(void **state) {
    (void)state;
    double count = median_ms("70b");
    print_message("estimate of 70b: median %.4f ms of 101\n", count);
    assert_true(count < 10);
    if (fit_have_config_reader()) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s", write_file("timed.json", llama_json(8, "")));
        double config = median_ms(path);
        print_message("estimate of a config.json: median %.4f ms of 101\n", config);
        assert_true(config < 10);
    }
}

/* The binary on this machine's devices ------------------------------------ */

#ifdef GPUINFO

/* gpuinfo with `args` (stderr too when `with_stderr`); its output and
 * exit status. */
static char *run(const char *args, int *status, bool with_stderr) {
    char cmd[2 * PATH_MAX + 256];
    int n =
        snprintf(cmd, sizeof cmd, "%s %s %s", GPUINFO, args, with_stderr ? "2>&1" : "2>/dev/null");
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    char *out = xt_run_command(cmd, status);
    assert_non_null(out);
    return out;
}

static void binary_fits_and_does_not(void **state) {
    (void)state;
    int status = 0;
    char *out = run("--fit 0.1b --context 512", &status, false);
    assert_int_equal(status, 0);
    assert_contains(out, "verdict: fits on device");
    assert_contains(out, "weights");
    assert_contains(out, "KV cache");
    assert_contains(out, "framework overhead");
    assert_contains(out, "free unknown: the verdict uses the total"); /* OpenCL cannot tell */
    free(out);
    out = run("--fit 405b", &status, false);
    assert_int_equal(status, 1);
    assert_contains(out, "does not fit");
    free(out);
    out = run("--fit 7b --mode train", &status, false);
    assert_contains(out, "optimizer states");
    assert_contains(out, "16 bytes per trained parameter");
    free(out);
    out = run("--fit 70b --mode qlora", &status, false);
    assert_contains(out, "NF4");
    assert_contains(out, "adapters");
    free(out);
    /* -d: the devices it selects; one that matches nothing is status 1. */
    out = run("--fit 0.1b --context 512 -d opencl:0", &status, false);
    assert_int_equal(status, 0);
    free(out);
    out = run("--fit 0.1b -d cuda:7", &status, false);
    assert_int_equal(status, 1);
    free(out);
    out = run("--fit 0.1b -d 'not a selector!'", &status, false);
    assert_int_equal(status, 2);
    free(out);
    /* No backend, no device: nothing fits, and that is no usage error. */
    out = xt_run_command("XGPU_BACKENDS=nonsense " GPUINFO " --fit 0.1b 2>/dev/null", &status);
    assert_non_null(out);
    assert_int_equal(status, 1);
    assert_contains(out, "no device to fit it on");
    free(out);
}

static void binary_usage_errors_exit_2_saying_why(void **state) {
    (void)state;
    char dir_arg[PATH_MAX + 16], args[PATH_MAX + 64];
    snprintf(dir_arg, sizeof dir_arg, "'%s'", tmp_root);
    const char *notjson = write_file("bin-notjson.json", "{\"hidden_size\": ");
    char notjson_arg[PATH_MAX];
    snprintf(notjson_arg, sizeof notjson_arg, "%s", notjson);
    const char *missing = write_file("bin-missing.json", "{\"hidden_size\": 4096}");
    char missing_arg[PATH_MAX];
    snprintf(missing_arg, sizeof missing_arg, "%s", missing);
    char huge[PATH_MAX];
    assert_int_equal(xt_tree_path(tmp_root, "bin-huge.json", huge), 0);
    int fd = open(huge, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 1000000000), 0);
    close(fd);
    const struct {
        const char *args, *says;
    } cases[] = {
        {"--fit -3b", "negative"},
        {"--fit 1e99b", "exponent"},
        {"--fit 0b", "zero"},
        {"--fit 7b --dtype fp8", "--dtype 'fp8'"},
        {"--fit 7b --mode pretrain", "--mode 'pretrain'"},
        {"--fit 7b --context 0", "--context 0 is out of range"},
        {"--fit 7b --context 100000000", "out of range"},
        {"--fit 7b --batch 0", "--batch 0 is out of range"},
        {"--fit 7b --mode train --dtype int4", "--mode qlora"},
        {"--fit", "needs a value"},
        {"--fit 7b -v", "unknown option '-v'"},
        {"--fit /nonexistent/config.json", "No such file"},
        {dir_arg, "is a folder"},
#ifdef GI_HAVE_CJSON
        {notjson_arg, "is not JSON"},
        {missing_arg, "num_hidden_layers is missing"},
        {huge, "more than the 4194304"},
#else
        {notjson_arg, "without cJSON"},
#endif
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *a = cases[i].args;
        if (a == dir_arg || a == notjson_arg || a == missing_arg || a == huge) {
            snprintf(args, sizeof args, "--fit %s", a);
            a = args;
        }
        int status = 0;
        char *out = run(a, &status, true);
        if (status != 2 || !strstr(out, cases[i].says)) {
            fail_msg("gpuinfo %s: status %d, not 2 saying '%s':\n%s", a, status, cases[i].says,
                     out);
        }
        free(out);
    }
}

static void binary_reads_a_config(void **state) {
    (void)state;
#ifdef GI_HAVE_CJSON
    char args[PATH_MAX + 64];
    snprintf(args, sizeof args, "--fit %s --mode train",
             write_file("bin.json", llama_json(32, "")));
    int status = 0;
    char *out = run(args, &status, false);
    assert_true(status == 0 || status == 1);
    assert_contains(out, "6.74 billion parameters (from its sizes)");
    assert_contains(out, "32 KV heads x 128");
    free(out);
#else
    skip();
#endif
}

#ifdef GI_HAVE_CJSON
static const cJSON *get(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        fail_msg("JSON key '%s' is missing", key);
    }
    return v;
}
#endif

static void binary_json_has_numbers_and_nulls(void **state) {
    (void)state;
#ifdef GI_HAVE_CJSON
    int status = 0;
    char *out = run("--fit 7b --json", &status, false);
    cJSON *root = cJSON_Parse(out);
    if (!root) {
        fail_msg("not JSON:\n%s", out);
    }
    assert_string_equal(get(root, "schema")->valuestring, "xgpu.gpuinfo.fit/1");
    const cJSON *fit = get(root, "fit");
    const cJSON *est = get(fit, "estimate");
    assert_true(get(est, "weights_bytes")->valuedouble == 14e9);
    assert_true(get(est, "kv_cache_bytes")->valuedouble == 2 * GIB);
    assert_true(cJSON_IsNull(get(est, "state_bytes_per_trained_parameter")));
    assert_true(get(get(fit, "model"), "parameters")->valuedouble == 7e9);
    assert_string_equal(get(get(fit, "workload"), "dtype")->valuestring, "fp16");
    assert_true(cJSON_IsTrue(get(get(fit, "workload"), "dtype_is_default")));
    const cJSON *dev = cJSON_GetArrayItem(get(fit, "devices"), 0);
    assert_non_null(dev);
    assert_true(cJSON_IsNull(get(dev, "free_memory_bytes"))); /* OpenCL cannot tell */
    assert_string_equal(get(dev, "available_from")->valuestring, "total");
    assert_true(cJSON_IsNumber(get(dev, "total_memory_bytes")));
    const cJSON *verdict = get(fit, "verdict");
    assert_int_equal(cJSON_IsTrue(get(verdict, "fits")), status == 0);
    assert_true(cJSON_IsNumber(get(verdict, "per_device_bytes")));
    cJSON_Delete(root);
    free(out);

    /* QLoRA's adapters default to bf16; training has states per parameter. */
    out = run("--fit 7b --mode qlora --json", &status, false);
    root = cJSON_Parse(out);
    assert_non_null(root);
    fit = get(root, "fit");
    assert_string_equal(get(get(fit, "workload"), "dtype")->valuestring, "bf16");
    assert_true(cJSON_IsTrue(get(get(fit, "workload"), "dtype_is_default")));
    assert_true(cJSON_IsTrue(get(get(fit, "workload"), "activation_checkpointing")));
    assert_int_equal(get(get(fit, "workload"), "lora_rank")->valueint, 16);
    assert_true(get(get(fit, "estimate"), "state_bytes_per_trained_parameter")->valuedouble == 14);
    cJSON_Delete(root);
    free(out);
#else
    skip();
#endif
}

#endif /* GPUINFO */

static int make_tmp(void **state) {
    (void)state;
    return xt_tree_make("fit-test", tmp_root);
}

static int remove_tmp(void **state) {
    (void)state;
    char path[PATH_MAX];
    if (xt_tree_path(tmp_root, "secret.json", path) == 0) {
        chmod(path, 0600);
    }
    return xt_tree_remove(tmp_root);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "binary")) {
#ifdef GPUINFO
        const struct CMUnitTest binary[] = {
            cmocka_unit_test(binary_fits_and_does_not),
            cmocka_unit_test(binary_usage_errors_exit_2_saying_why),
            cmocka_unit_test(binary_reads_a_config),
            cmocka_unit_test(binary_json_has_numbers_and_nulls),
        };
        return cmocka_run_group_tests(binary, make_tmp, remove_tmp);
#else
        return 77;
#endif
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_take_every_suffix_and_decimals),
        cmocka_unit_test(bad_counts_say_what_is_wrong),
        cmocka_unit_test(option_words_and_numbers),
        cmocka_unit_test(each_mode_takes_its_dtypes),
        cmocka_unit_test(a_count_near_an_anchor_takes_its_shape),
        cmocka_unit_test(a_count_between_anchors_is_interpolated),
#ifdef GI_HAVE_CJSON
        cmocka_unit_test(llama_7b_config_counts_its_parameters),
        cmocka_unit_test(real_shapes_count_as_published),
        cmocka_unit_test(the_mlp_form_follows_the_config),
        cmocka_unit_test(hostile_configs_are_refused_with_reasons),
        cmocka_unit_test(deep_nesting_is_refused_before_parsing),
        cmocka_unit_test(config_files_are_checked_before_reading),
#else
        cmocka_unit_test(without_cjson_a_config_is_refused_saying_why),
#endif
        cmocka_unit_test(the_seed_table),
        cmocka_unit_test(weights_by_dtype),
        cmocka_unit_test(kv_cache_is_the_formula_and_only_for_inference),
        cmocka_unit_test(activations_follow_their_approximations),
        cmocka_unit_test(training_states_and_adapters),
        cmocka_unit_test(the_total_is_the_sum_with_the_overhead),
        cmocka_unit_test(the_verdict_on_made_up_devices),
        cmocka_unit_test(the_estimate_takes_well_under_10_ms),
    };
    (void)argv;
    return cmocka_run_group_tests(tests, make_tmp, remove_tmp);
}
