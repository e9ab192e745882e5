/* --fit's model: a parameter count and the shape it is given (the
 * Llama-family anchors below), MODEL's two forms, and the option words.
 * The anchors' shapes are those their public config.json files give. */
#define _POSIX_C_SOURCE 200809L
#include "fit.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

int fit_error(char *err, size_t errsize, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsize, fmt, ap);
    va_end(ap);
    return -1;
}

void fit_note(fit_model *m, const char *fmt, ...) {
    if (m->note_count >= FIT_MAX_NOTES) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->notes[m->note_count++], sizeof m->notes[0], fmt, ap);
    va_end(ap);
}

/* A parameter count ------------------------------------------------------- */

static const char count_grammar[] =
    "digits with an optional decimal part and a suffix k, m, b or t (7b, 1.5b, 500m, 70B)";

int fit_parse_count(const char *text, double *params, char *err, size_t errsize) {
    size_t len = strlen(text);
    if (len == 0) {
        return fit_error(err, errsize, "MODEL is empty: a parameter count is %s", count_grammar);
    }
    if (text[0] == '-' && isdigit((unsigned char)text[1])) {
        return fit_error(err, errsize, "'%s': a parameter count cannot be negative", text);
    }
    if (len > 32) {
        return fit_error(err, errsize, "'%.32s...' is too long for a parameter count", text);
    }
    size_t i = 0, int_digits = 0, frac_digits = 0;
    while (isdigit((unsigned char)text[i])) {
        i++, int_digits++;
    }
    if (text[i] == '.') {
        i++;
        while (isdigit((unsigned char)text[i])) {
            i++, frac_digits++;
        }
        if (frac_digits == 0) {
            return fit_error(err, errsize, "'%s': a digit must follow the decimal point", text);
        }
    }
    size_t number_end = i;
    double scale = 1;
    switch (tolower((unsigned char)text[i])) {
    case 'k':
        scale = 1e3, i++;
        break;
    case 'm':
        scale = 1e6, i++;
        break;
    case 'b':
        scale = 1e9, i++;
        break;
    case 't':
        scale = 1e12, i++;
        break;
    default:
        break;
    }
    if (int_digits == 0 || text[i] != '\0') {
        return fit_error(err, errsize,
                         "'%s' is not a parameter count, which is %s, without sign or exponent",
                         text, count_grammar);
    }
    if (scale == 1 && frac_digits > 0) {
        return fit_error(err, errsize,
                         "'%s': without a suffix a count is a whole number of parameters "
                         "(or write 1.5b)",
                         text);
    }
    char number[40];
    memcpy(number, text, number_end);
    number[number_end] = '\0';
    double v = strtod(number, NULL) * scale; /* the grammar checked above: plain digits */
    if (v == 0) {
        return fit_error(err, errsize, "'%s' is zero parameters", text);
    }
    if (v < 1) {
        return fit_error(err, errsize, "'%s' is less than one parameter", text);
    }
    if (!(v <= FIT_MAX_PARAMS)) {
        return fit_error(err, errsize, "'%s' is more than %.0e parameters: no model --fit can size",
                         text, FIT_MAX_PARAMS);
    }
    *params = v;
    return 0;
}

/* The shape of a bare count ---------------------------------------------- */

/* Llama-architecture models (SwiGLU, RMSNorm, rotary) at their nominal
 * sizes, smallest first. Llama 2 7B and 13B use full multi-head attention
 * (as many KV heads as heads); the others grouped-query attention. */
static const struct anchor {
    const char *name;
    double params;
    uint32_t layers, hidden, heads, kv_heads, head_dim, vocab, intermediate;
    bool tied;
} anchors[] = {
    {"SmolLM2 135M", 0.135e9, 30, 576, 9, 3, 64, 49152, 1536, true},
    {"Llama 3.2 1B", 1e9, 16, 2048, 32, 8, 64, 128256, 8192, true},
    {"Llama 3.2 3B", 3e9, 28, 3072, 24, 8, 128, 128256, 8192, true},
    {"Llama 2 7B", 7e9, 32, 4096, 32, 32, 128, 32000, 11008, false},
    {"Llama 2 13B", 13e9, 40, 5120, 40, 40, 128, 32000, 13824, false},
    {"Code Llama 34B", 34e9, 48, 8192, 64, 8, 128, 32000, 22016, false},
    {"Llama 2 70B", 70e9, 80, 8192, 64, 8, 128, 32000, 28672, false},
    {"Llama 3.1 405B", 405e9, 126, 16384, 128, 8, 128, 128256, 53248, false},
};
enum { NANCHORS = sizeof anchors / sizeof anchors[0] };

/* A count within this fraction of an anchor's nominal size takes its shape
 * unchanged: 6.7b and 7b are Llama 2 7B. */
#define ANCHOR_SNAP 0.05

static void take_anchor(fit_model *m, const struct anchor *a) {
    m->layers = a->layers;
    m->hidden = a->hidden;
    m->heads = a->heads;
    m->kv_heads = a->kv_heads;
    m->head_dim = a->head_dim;
    m->vocab = a->vocab;
    m->intermediate = a->intermediate;
    m->tied = a->tied;
}

/* x_a^(1-t) x_b^t, rounded to a multiple of `step`, at least `step`. */
static uint32_t between(uint32_t xa, uint32_t xb, double t, uint32_t step) {
    double x = exp((1 - t) * log((double)xa) + t * log((double)xb));
    double r = round(x / step) * step;
    return r < step ? step : (uint32_t)r;
}

/* Between anchors a and b (a smaller): layers, hidden and intermediate
 * sizes and the KV width (kv_heads x head_dim) geometric in the count;
 * head_dim, vocabulary and tying from the nearer of the two. */
static void interpolate(fit_model *m, const struct anchor *a, const struct anchor *b, double p) {
    double t = log(p / a->params) / log(b->params / a->params);
    const struct anchor *near = t < 0.5 ? a : b;
    take_anchor(m, near);
    m->layers = between(a->layers, b->layers, t, 1);
    m->hidden = between(a->hidden, b->hidden, t, near->head_dim);
    m->intermediate = between(a->intermediate, b->intermediate, t, 64);
    m->heads = m->hidden / m->head_dim;
    uint32_t kv_width =
        between(a->kv_heads * a->head_dim, b->kv_heads * b->head_dim, t, near->head_dim);
    m->kv_heads = kv_width / m->head_dim;
    if (m->kv_heads > m->heads) {
        m->kv_heads = m->heads;
    }
    m->interpolated = true;
    snprintf(m->shape_source, sizeof m->shape_source, "between %s and %s", a->name, b->name);
}

void fit_model_from_count(double params, fit_model *m) {
    memset(m, 0, sizeof *m);
    m->params = params;
    m->experts = 1;
    m->mlp = FIT_MLP_GATED;
    snprintf(m->mlp_reason, sizeof m->mlp_reason, "a Llama-like shape");
    const struct anchor *snap = NULL;
    for (int i = 0; i < NANCHORS; i++) {
        if (fabs(params / anchors[i].params - 1) <= ANCHOR_SNAP) {
            snap = &anchors[i];
        }
    }
    if (snap) {
        take_anchor(m, snap);
        snprintf(m->shape_source, sizeof m->shape_source, "%s", snap->name);
    } else if (params < anchors[0].params) {
        take_anchor(m, &anchors[0]);
        snprintf(m->shape_source, sizeof m->shape_source, "%s (the smallest anchor)",
                 anchors[0].name);
    } else if (params > anchors[NANCHORS - 1].params) {
        take_anchor(m, &anchors[NANCHORS - 1]);
        snprintf(m->shape_source, sizeof m->shape_source, "%s (the largest anchor)",
                 anchors[NANCHORS - 1].name);
    } else {
        int i = 0;
        while (anchors[i + 1].params < params) {
            i++;
        }
        interpolate(m, &anchors[i], &anchors[i + 1], params);
    }
    m->embed_params = (double)m->vocab * m->hidden * (m->tied ? 1 : 2);
    if (m->embed_params > params) {
        m->embed_params = params; /* a count below its shape's embeddings alone */
    }
    fit_note(m,
             "a bare count: its layers and KV heads are a Llama-like shape's (%s), not "
             "your model's; give its config.json for its own",
             m->shape_source);
}

/* MODEL ------------------------------------------------------------------- */

int fit_parse_model(const char *arg, fit_model *m, char *err, size_t errsize) {
    double params = 0;
    char count_err[256];
    if (fit_parse_count(arg, &params, count_err, sizeof count_err) == 0) {
        fit_model_from_count(params, m);
        return 0;
    }
    struct stat st;
    if (arg[0] && stat(arg, &st) == 0) {
        return fit_model_from_config(arg, m, err, errsize);
    }
    int stat_errno = errno;
    if (!arg[0] || isdigit((unsigned char)arg[0]) || strchr("+-.", arg[0])) {
        return fit_error(err, errsize, "%s", count_err);
    }
    if (!fit_have_config_reader()) {
        return fit_error(err, errsize,
                         "'%s' is not a parameter count, and this gpuinfo was built without cJSON "
                         "(Debian: libcjson-dev), so it reads no config.json: a count is %s",
                         arg, count_grammar);
    }
    return fit_error(err, errsize,
                     "'%s' is neither a parameter count (7b, 1.5b, 500m) nor a config.json: %s",
                     arg, strerror(stat_errno));
}

/* The option words --------------------------------------------------------- */

static const char *const dtype_names[] = {"fp32", "fp16", "bf16", "int8", "int4"};
static const char *const mode_names[] = {"infer", "train", "lora", "qlora"};

const char *fit_dtype_name(fit_dtype d) {
    return dtype_names[d];
}

const char *fit_mode_name(fit_mode mode) {
    return mode_names[mode];
}

int fit_parse_dtype(const char *text, fit_dtype *d, char *err, size_t errsize) {
    for (int i = 0; i < (int)(sizeof dtype_names / sizeof dtype_names[0]); i++) {
        if (!strcasecmp(text, dtype_names[i])) {
            *d = (fit_dtype)i;
            return 0;
        }
    }
    return fit_error(err, errsize, "--dtype '%s' is not one of fp32, fp16, bf16, int8, int4", text);
}

int fit_parse_mode(const char *text, fit_mode *mode, char *err, size_t errsize) {
    for (int i = 0; i < (int)(sizeof mode_names / sizeof mode_names[0]); i++) {
        if (!strcasecmp(text, mode_names[i])) {
            *mode = (fit_mode)i;
            return 0;
        }
    }
    return fit_error(err, errsize, "--mode '%s' is not one of infer, train, lora, qlora", text);
}

int fit_parse_uint(const char *name, const char *text, uint64_t min, uint64_t max, uint64_t *out,
                   char *err, size_t errsize) {
    size_t digits = strspn(text, "0123456789");
    if (digits == 0 || text[digits] != '\0') {
        return fit_error(err, errsize, "%s '%s' is not a whole number", name, text);
    }
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || v < min || v > max) {
        return fit_error(err, errsize, "%s %s is out of range: %llu to %llu", name, text,
                         (unsigned long long)min, (unsigned long long)max);
    }
    *out = v;
    return 0;
}
