/* Reads a kernel's parameter list from its dialect source, so that launch
 * arguments are checked (count, kind, scalar size) before any backend sees
 * them, identically on every backend. */
#include "core_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sizes of the scalar types a kernel parameter may have, as the dialect
 * defines them on every target. */
#define F XGPU__CLASS_FLOAT
#define I XGPU__CLASS_INTEGER
#define O XGPU__CLASS_OTHER
static const struct {
    const char *type;
    size_t size;
    xgpu__scalar_class cls;
} scalar_types[] = {
    {"char", 1, I},           {"uchar", 1, I},      {"signed char", 1, I}, {"unsigned char", 1, I},
    {"xgpu_i8", 1, I},        {"xgpu_u8", 1, I},    {"short", 2, I},       {"ushort", 2, I},
    {"unsigned short", 2, I}, {"half", 2, F},       {"xgpu_i16", 2, I},    {"xgpu_u16", 2, I},
    {"xgpu_f16", 2, F},       {"int", 4, I},        {"uint", 4, I},        {"unsigned", 4, I},
    {"unsigned int", 4, I},   {"signed int", 4, I}, {"float", 4, F},       {"xgpu_i32", 4, I},
    {"xgpu_u32", 4, I},       {"xgpu_f32", 4, F},   {"long", 8, I},        {"ulong", 8, I},
    {"unsigned long", 8, I},  {"double", 8, F},     {"xgpu_i64", 8, I},    {"xgpu_u64", 8, I},
    {"xgpu_f64", 8, F},       {"float2", 8, O},     {"int2", 8, O},        {"uint2", 8, O},
    {"float4", 16, O},        {"int4", 16, O},      {"uint4", 16, O},      {"double2", 16, O},
};
#undef F
#undef I
#undef O

static const char *const qualifiers[] = {"const",        "volatile",  "restrict", "XGPU_RESTRICT",
                                         "__restrict__", "__private", "private"};

/* Replaces comments with spaces, keeping the length. */
static void strip_comments(char *s) {
    for (char *p = s; *p; p++) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') {
                *p++ = ' ';
            }
            if (!*p) {
                return;
            }
        } else if (p[0] == '/' && p[1] == '*') {
            while (*p && !(p[0] == '*' && p[1] == '/')) {
                if (*p != '\n') {
                    *p = ' ';
                }
                p++;
            }
            if (!*p) {
                return;
            }
            p[0] = p[1] = ' ';
            p++;
        }
    }
}

static bool is_ident(char c) {
    return isalnum((unsigned char)c) || c == '_';
}

static const char *skip_space(const char *p) {
    while (isspace((unsigned char)*p)) {
        p++;
    }
    return p;
}

/* Matches identifier `word` at p; returns the position after it or NULL. */
static const char *match_word(const char *p, const char *word) {
    size_t n = strlen(word);
    if (strncmp(p, word, n) || is_ident(p[n])) {
        return NULL;
    }
    return p + n;
}

/* Past the attributes between XGPU_KERNEL and void, as the source spells
 * them before the preprocessor: words, each with an optional balanced
 * argument list (XGPU_LAUNCH_BOUNDS(GROUP), XGPU_ITEMS_UNVECTORISED, a
 * kernel's own macro for either). NULL when a list does not close. */
static const char *skip_attributes(const char *p) {
    for (int words = 0; words < 8 && is_ident(*p) && !match_word(p, "void"); words++) {
        while (is_ident(*p)) {
            p++;
        }
        p = skip_space(p);
        if (*p == '(') {
            int depth = 0;
            do {
                depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
                p++;
            } while (*p && depth > 0);
            if (depth > 0) {
                return NULL;
            }
            p = skip_space(p);
        }
    }
    return p;
}

static bool is_qualifier(const char *tok) {
    for (size_t i = 0; i < sizeof qualifiers / sizeof qualifiers[0]; i++) {
        if (!strcmp(tok, qualifiers[i])) {
            return true;
        }
    }
    return false;
}

/* Qualifiers and address spaces are not part of a parameter's type. */
static bool skip_token(const char *tok, size_t len) {
    char word[64];
    if (len >= sizeof word) {
        return false;
    }
    memcpy(word, tok, len);
    word[len] = '\0';
    return is_qualifier(word) || !strcmp(word, "XGPU_GLOBAL") || !strcmp(word, "XGPU_CONSTANT");
}

/* Appends " word" (or "word" when dst is empty), truncating at cap. */
static void append_word(char *dst, size_t cap, const char *word, size_t len) {
    size_t used = strlen(dst);
    if (used && used + 1 < cap) {
        dst[used++] = ' ';
    }
    size_t room = cap - 1 - used;
    len = len < room ? len : room;
    memcpy(dst + used, word, len);
    dst[used + len] = '\0';
}

static void scalar_type(const char *type, xgpu__kernel_param *out) {
    for (size_t i = 0; i < sizeof scalar_types / sizeof scalar_types[0]; i++) {
        if (!strcmp(type, scalar_types[i].type)) {
            out->scalar_size = scalar_types[i].size;
            out->scalar_class = scalar_types[i].cls;
            return;
        }
    }
}

/* Splits one parameter text [b, e) into kind, type and name. */
static bool parse_param(const char *b, const char *e, xgpu__kernel_param *out) {
    memset(out, 0, sizeof *out);
    char text[512];
    size_t n = (size_t)(e - b);
    if (n >= sizeof text) {
        return false;
    }
    memcpy(text, b, n);
    text[n] = '\0';

    const char *local = strstr(text, "XGPU_LOCAL_ARG");
    if (local && !is_ident(local[strlen("XGPU_LOCAL_ARG")])) {
        /* XGPU_LOCAL_ARG(type, name) */
        const char *open = strchr(local, '(');
        const char *comma = open ? strrchr(open, ',') : NULL;
        const char *close = comma ? strchr(comma, ')') : NULL;
        if (!close) {
            return false;
        }
        out->kind = XGPU_ARG_LOCAL;
        const char *nb = skip_space(comma + 1);
        const char *ne = nb;
        while (is_ident(*ne)) {
            ne++;
        }
        snprintf(out->name, sizeof out->name, "%.*s", (int)(ne - nb), nb);
        snprintf(out->type, sizeof out->type, "%.*s", (int)(comma - open - 1), open + 1);
        return out->name[0] != '\0';
    }

    out->kind = strchr(text, '*') ? XGPU_ARG_BUFFER : XGPU_ARG_SCALAR;
    /* Tokens: identifiers only; the last is the name, the rest (without
     * qualifiers and address spaces) the type. */
    char type[sizeof out->type] = "";
    const char *p = text;
    const char *last = NULL;
    size_t last_len = 0;
    while (*p) {
        if (!is_ident(*p)) {
            p++;
            continue;
        }
        const char *tb = p;
        while (is_ident(*p)) {
            p++;
        }
        if (last && !skip_token(last, last_len)) {
            append_word(type, sizeof type, last, last_len);
        }
        last = tb;
        last_len = (size_t)(p - tb);
    }
    if (!last) {
        return false;
    }
    snprintf(out->name, sizeof out->name, "%.*s", (int)last_len, last);
    snprintf(out->type, sizeof out->type, "%s", type);
    if (out->kind == XGPU_ARG_SCALAR) {
        scalar_type(type, out);
    }
    return true;
}

/* Room for one more parameter; false when memory runs out. */
static bool grow(xgpu__kernel_sig *sig, uint32_t *cap, bool *oom) {
    if (sig->count < *cap) {
        return true;
    }
    uint32_t n = *cap ? *cap * 2 : 8;
    xgpu__kernel_param *p = n > *cap ? realloc(sig->params, (size_t)n * sizeof *p) : NULL;
    if (!p) {
        *oom = true;
        return false;
    }
    sig->params = p;
    *cap = n;
    return true;
}

static bool parse_params(const char *open, xgpu__kernel_sig *sig, bool *oom) {
    const char *p = open + 1;
    const char *start = p;
    int depth = 0;
    uint32_t cap = 0;
    sig->count = 0;
    for (;; p++) {
        if (!*p) {
            return false;
        }
        if (*p == '(') {
            depth++;
            continue;
        }
        if (*p == ')' && depth > 0) {
            depth--;
            continue;
        }
        if ((*p == ',' && depth == 0) || *p == ')') {
            const char *b = skip_space(start);
            const char *e = p;
            while (e > b && isspace((unsigned char)e[-1])) {
                e--;
            }
            bool empty = e == b || ((size_t)(e - b) == 4 && !strncmp(b, "void", 4));
            if (*p == ')' && sig->count == 0 && empty) {
                return true;
            }
            if (empty || sig->count == UINT32_MAX || !grow(sig, &cap, oom) ||
                !parse_param(b, e, &sig->params[sig->count])) {
                return false;
            }
            sig->count++;
            if (*p == ')') {
                return true;
            }
            start = p + 1;
        }
    }
}

void xgpu__kernel_sig_free(xgpu__kernel_sig *sig) {
    free(sig->params);
    memset(sig, 0, sizeof *sig);
}

bool xgpu__kernel_sig_parse(const char *source, const char *name, xgpu__kernel_sig *sig,
                            bool *oom) {
    bool no_memory = false;
    memset(sig, 0, sizeof *sig);
    if (oom) {
        *oom = false;
    }
    size_t len = strlen(source);
    char *text = malloc(len + 1);
    if (!text) {
        if (oom) {
            *oom = true;
        }
        return false;
    }
    memcpy(text, source, len + 1);
    strip_comments(text);
    bool found = false;
    for (const char *p = strstr(text, "XGPU_KERNEL"); p && !found;
         p = strstr(p + 1, "XGPU_KERNEL")) {
        if ((p > text && is_ident(p[-1])) || is_ident(p[strlen("XGPU_KERNEL")])) {
            continue;
        }
        const char *q = skip_attributes(skip_space(p + strlen("XGPU_KERNEL")));
        q = q ? match_word(q, "void") : NULL;
        if (!q) {
            continue;
        }
        q = skip_space(q);
        q = match_word(q, name);
        if (!q) {
            continue;
        }
        q = skip_space(q);
        if (*q != '(') {
            continue;
        }
        found = parse_params(q, sig, &no_memory);
        if (!found) {
            xgpu__kernel_sig_free(sig);
        }
        if (no_memory) {
            break;
        }
    }
    free(text);
    if (oom) {
        *oom = no_memory;
    }
    sig->known = found;
    return found;
}
