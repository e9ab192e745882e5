/* --fit's config.json reader: the sizes of a Hugging Face transformers
 * config, and the parameter count they add up to (docs/fit.md, "Parameters from a config.json").
 * The file is checked (a regular file, at most FIT_MAX_CONFIG_BYTES, at
 * most MAX_DEPTH levels deep) before cJSON parses it. */
#define _POSIX_C_SOURCE 200809L
#include "fit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifndef GI_HAVE_CJSON

bool fit_have_config_reader(void) {
    return false;
}

static int no_reader(char *err, size_t errsize, const char *what) {
    snprintf(err, errsize,
             "%s: this gpuinfo was built without cJSON (Debian: libcjson-dev), so --fit takes "
             "only a parameter count (7b, 1.5b, 500m)",
             what);
    return -1;
}

int fit_model_from_config(const char *path, fit_model *m, char *err, size_t errsize) {
    (void)m;
    return no_reader(err, errsize, path);
}

int fit_model_from_json(const char *text, size_t len, fit_model *m, char *err, size_t errsize) {
    (void)text, (void)len, (void)m;
    return no_reader(err, errsize, "config.json");
}

#else

#include <cjson/cJSON.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Deeper than any config (rope_scaling, text_config: 3 or 4 levels), and
 * far below where cJSON's recursion would matter. */
#define MAX_DEPTH 64

bool fit_have_config_reader(void) {
    return true;
}

/* The deepest nesting of arrays and objects in text[len], strings skipped;
 * stops counting past MAX_DEPTH. */
static int json_depth(const char *text, size_t len) {
    int depth = 0, deepest = 0;
    bool in_string = false;
    for (size_t i = 0; i < len && deepest <= MAX_DEPTH; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            deepest = ++depth > deepest ? depth : deepest;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return deepest;
}

static const char *type_name(const cJSON *v) {
    if (cJSON_IsString(v)) {
        return "a string";
    }
    if (cJSON_IsBool(v)) {
        return "a boolean";
    }
    if (cJSON_IsNull(v)) {
        return "null";
    }
    if (cJSON_IsArray(v)) {
        return "an array";
    }
    if (cJSON_IsObject(v)) {
        return "an object";
    }
    return "a number";
}

/* A size: a whole number in [1, max]. `required` false: *out unchanged
 * when the key is absent (1 returned, 0 when it was read). */
static int get_size(const cJSON *cfg, const char *key, uint32_t max, bool required, uint32_t *out,
                    char *err, size_t errsize) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
    if (!v) {
        if (required) {
            return fit_error(err, errsize,
                             "%s is missing (--fit needs num_hidden_layers, hidden_size, "
                             "num_attention_heads, vocab_size and intermediate_size)",
                             key);
        }
        return 1;
    }
    if (!cJSON_IsNumber(v)) {
        return fit_error(err, errsize, "%s is %s, not a number", key, type_name(v));
    }
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d)) {
        return fit_error(err, errsize, "%s is %g, not a whole number", key, d);
    }
    if (d < 1) {
        return fit_error(err, errsize, "%s is %.0f: a size must be at least 1", key, d);
    }
    if (d > max) {
        return fit_error(err, errsize, "%s is %.0f, more than %u: not a model --fit can size", key,
                         d, max);
    }
    *out = (uint32_t)d;
    return 0;
}

static const char *get_string(const cJSON *cfg, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The MLP's form, by model_type first (the families whose form is known),
 * then hidden_act (silu and swish are SwiGLU's), else gated, said. */
static void choose_mlp(const cJSON *cfg, fit_model *m) {
    static const char *const gated[] = {"llama",       "mistral",   "mixtral", "qwen2",
                                        "qwen3",       "qwen3_moe", "gemma",   "gemma2",
                                        "gemma3_text", "phi3",      "olmo",    "olmo2",
                                        "internlm2",   "cohere",    "granite", "stablelm"};
    static const char *const plain[] = {"gpt2", "gpt_neox", "opt",         "bloom",     "falcon",
                                        "phi",  "gptj",     "gpt_bigcode", "starcoder2"};
    const char *type = get_string(cfg, "model_type");
    const char *act = get_string(cfg, "hidden_act");
    if (!act) {
        act = get_string(cfg, "hidden_activation"); /* Gemma 2 */
    }
    for (size_t i = 0; type && i < sizeof gated / sizeof gated[0]; i++) {
        if (!strcmp(type, gated[i])) {
            m->mlp = FIT_MLP_GATED;
            snprintf(m->mlp_reason, sizeof m->mlp_reason, "model_type %.40s", type);
            return;
        }
    }
    for (size_t i = 0; type && i < sizeof plain / sizeof plain[0]; i++) {
        if (!strcmp(type, plain[i])) {
            m->mlp = FIT_MLP_PLAIN;
            snprintf(m->mlp_reason, sizeof m->mlp_reason, "model_type %.40s", type);
            return;
        }
    }
    if (act && (!strcmp(act, "silu") || !strcmp(act, "swish"))) {
        m->mlp = FIT_MLP_GATED;
        snprintf(m->mlp_reason, sizeof m->mlp_reason, "hidden_act %.40s", act);
    } else if (act) {
        m->mlp = FIT_MLP_PLAIN;
        snprintf(m->mlp_reason, sizeof m->mlp_reason, "hidden_act %.40s", act);
    } else {
        m->mlp = FIT_MLP_GATED;
        snprintf(m->mlp_reason, sizeof m->mlp_reason, "assumed: no model_type or hidden_act");
    }
}

/* The sizes of cfg into m, checked against each other. */
static int read_sizes(const cJSON *cfg, fit_model *m, char *err, size_t errsize) {
    if (get_size(cfg, "num_hidden_layers", 100000, true, &m->layers, err, errsize) ||
        get_size(cfg, "hidden_size", 1u << 20, true, &m->hidden, err, errsize) ||
        get_size(cfg, "num_attention_heads", 1u << 16, true, &m->heads, err, errsize) ||
        get_size(cfg, "vocab_size", 1u << 24, true, &m->vocab, err, errsize) ||
        get_size(cfg, "intermediate_size", 1u << 22, true, &m->intermediate, err, errsize)) {
        return -1;
    }
    m->kv_heads = m->heads;
    int absent = get_size(cfg, "num_key_value_heads", 1u << 16, false, &m->kv_heads, err, errsize);
    if (absent < 0) {
        return -1;
    }
    if (absent) {
        fit_note(m, "num_key_value_heads absent: as many KV heads as heads (multi-head attention)");
    }
    if (m->kv_heads > m->heads || m->heads % m->kv_heads) {
        return fit_error(
            err, errsize,
            "num_key_value_heads %u does not divide num_attention_heads %u (grouped-query "
            "attention shares each KV head among a whole number of heads)",
            m->kv_heads, m->heads);
    }
    absent = get_size(cfg, "head_dim", 1u << 16, false, &m->head_dim, err, errsize);
    if (absent < 0) {
        return -1;
    }
    if (absent) {
        if (m->hidden % m->heads) {
            return fit_error(
                err, errsize,
                "hidden_size %u is not a multiple of num_attention_heads %u, and there "
                "is no head_dim",
                m->hidden, m->heads);
        }
        m->head_dim = m->hidden / m->heads;
    }
    m->experts = 1;
    if (get_size(cfg, "num_local_experts", 4096, false, &m->experts, err, errsize) < 0) {
        return -1;
    }
    static const char *const other_experts[] = {"num_experts", "n_routed_experts",
                                                "moe_num_experts"};
    for (size_t i = 0; m->experts == 1 && i < sizeof other_experts / sizeof other_experts[0]; i++) {
        if (cJSON_GetObjectItemCaseSensitive(cfg, other_experts[i])) {
            fit_note(m,
                     "%s: an expert layout --fit does not read; counted as a dense model (an "
                     "underestimate)",
                     other_experts[i]);
        }
    }
    const cJSON *tie = cJSON_GetObjectItemCaseSensitive(cfg, "tie_word_embeddings");
    if (tie && !cJSON_IsBool(tie)) {
        return fit_error(err, errsize, "tie_word_embeddings is %s, not true or false",
                         type_name(tie));
    }
    m->tied = cJSON_IsTrue(tie);
    if (!tie) {
        fit_note(m, "tie_word_embeddings absent: a separate lm_head assumed");
    }
    return 0;
}

/* The parameters the sizes add up to (docs/fit.md, "Parameters from a config.json"). */
static void count_params(const cJSON *cfg, fit_model *m) {
    double h = m->hidden, q = (double)m->heads * m->head_dim;
    double kv = (double)m->kv_heads * m->head_dim, inter = m->intermediate;
    bool plain = m->mlp == FIT_MLP_PLAIN;
    const char *type = get_string(cfg, "model_type");
    double attn = h * q + 2 * h * kv + q * h;
    if (plain || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cfg, "attention_bias"))) {
        attn += q + 2 * kv + h; /* biases of q, k, v and o */
    } else if (type && !strcmp(type, "qwen2")) {
        attn += q + 2 * kv; /* Qwen2 has biases on q, k and v only */
    }
    double mlp = plain ? 2 * h * inter + inter + h : 3 * h * inter;
    if (m->experts > 1) {
        mlp = mlp * m->experts + h * m->experts; /* and the router */
    }
    double norms = plain ? 4 * h : 2 * h; /* LayerNorm has a bias, RMSNorm not */
    double embed = (double)m->vocab * h;
    m->embed_params = m->tied ? embed : 2 * embed;
    m->params = m->layers * (attn + mlp + norms) + (plain ? 2 * h : h) + m->embed_params;
}

int fit_model_from_json(const char *text, size_t len, fit_model *m, char *err, size_t errsize) {
    memset(m, 0, sizeof *m);
    int depth = json_depth(text, len);
    if (depth > MAX_DEPTH) {
        return fit_error(err, errsize, "nests more than %d levels deep: not a config.json",
                         MAX_DEPTH);
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t off = at && at >= text && at <= text + len ? (size_t)(at - text) : 0;
        return fit_error(err, errsize, "is not JSON (it stops parsing at byte %zu)", off);
    }
    int rc = -1;
    const cJSON *cfg = root;
    while (end < text + len && strchr(" \t\r\n", *end) && *end) {
        end++;
    }
    if (end < text + len) {
        fit_error(err, errsize, "is not JSON: something follows its value at byte %zu",
                  (size_t)(end - text));
        goto done;
    }
    if (!cJSON_IsObject(root)) {
        fit_error(err, errsize, "is JSON, but %s, not an object", type_name(root));
        goto done;
    }
    const cJSON *text_cfg = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    if (!cJSON_GetObjectItemCaseSensitive(root, "num_hidden_layers") && cJSON_IsObject(text_cfg)) {
        cfg = text_cfg;
        fit_note(m, "the sizes of its text_config (the language model of a multimodal config)");
    }
    if (read_sizes(cfg, m, err, errsize) != 0) {
        goto done;
    }
    choose_mlp(cfg, m);
    count_params(cfg, m);
    if (cJSON_GetObjectItemCaseSensitive(root, "quantization_config")) {
        fit_note(m,
                 "the config has a quantization_config: --dtype, not it, sets the weights' bytes");
    }
    m->from_config = true;
    snprintf(m->shape_source, sizeof m->shape_source, "config.json");
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

/* The whole file, when it is a regular file of at most the limit. */
static char *read_config(const char *path, size_t *len, char *err, size_t errsize) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO must not block */
    if (fd < 0) {
        fit_error(err, errsize, "%s cannot be read: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        fit_error(err, errsize, "%s: %s", path, strerror(errno));
        goto done;
    }
    if (S_ISDIR(st.st_mode)) {
        fit_error(err, errsize, "%s is a folder; give the config.json inside it", path);
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        fit_error(err, errsize, "%s is not a regular file", path);
        goto done;
    }
    if (st.st_size > (off_t)FIT_MAX_CONFIG_BYTES) {
        fit_error(err, errsize, "%s is %lld bytes, more than the %u a config.json may be: not read",
                  path, (long long)st.st_size, FIT_MAX_CONFIG_BYTES);
        goto done;
    }
    text = malloc(FIT_MAX_CONFIG_BYTES + 1);
    if (!text) {
        fit_error(err, errsize, "%s: out of memory", path);
        goto done;
    }
    size_t got = 0;
    for (;;) {
        ssize_t n = read(fd, text + got, FIT_MAX_CONFIG_BYTES + 1 - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            fit_error(err, errsize, "%s cannot be read: %s", path, strerror(errno));
            free(text);
            text = NULL;
            goto done;
        }
        if (n == 0 || (got += (size_t)n) > FIT_MAX_CONFIG_BYTES) {
            break;
        }
    }
    if (got > FIT_MAX_CONFIG_BYTES) { /* it grew after fstat */
        fit_error(err, errsize, "%s is more than the %u bytes a config.json may be: not read", path,
                  FIT_MAX_CONFIG_BYTES);
        free(text);
        text = NULL;
        goto done;
    }
    *len = got;
done:
    close(fd);
    return text;
}

int fit_model_from_config(const char *path, fit_model *m, char *err, size_t errsize) {
    size_t len = 0;
    char *text = read_config(path, &len, err, errsize);
    if (!text) {
        return -1;
    }
    char why[320];
    int rc = fit_model_from_json(text, len, m, why, sizeof why);
    free(text);
    if (rc != 0) {
        return fit_error(err, errsize, "%s: %s", path, why);
    }
    return 0;
}

#endif
