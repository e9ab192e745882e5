/* Reads a kernel's parameter list from its dialect source, so that launch
 * arguments are checked (count, kind, scalar size) before any backend sees
 * them, identically on every backend. */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sizes of the scalar types a kernel parameter may have, as the dialect
 * defines them on every target. */
static const struct {
    const char *type;
    size_t size;
} scalar_types[] = {
    {"char", 1},           {"uchar", 1},      {"signed char", 1}, {"unsigned char", 1},
    {"xgpu_i8", 1},        {"xgpu_u8", 1},    {"short", 2},       {"ushort", 2},
    {"unsigned short", 2}, {"half", 2},       {"xgpu_i16", 2},    {"xgpu_u16", 2},
    {"xgpu_f16", 2},       {"int", 4},        {"uint", 4},        {"unsigned", 4},
    {"unsigned int", 4},   {"signed int", 4}, {"float", 4},       {"xgpu_i32", 4},
    {"xgpu_u32", 4},       {"xgpu_f32", 4},   {"long", 8},        {"ulong", 8},
    {"unsigned long", 8},  {"double", 8},     {"xgpu_i64", 8},    {"xgpu_u64", 8},
    {"xgpu_f64", 8},       {"float2", 8},     {"int2", 8},        {"uint2", 8},
    {"float4", 16},        {"int4", 16},      {"uint4", 16},      {"double2", 16},
};

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

static size_t scalar_size(const char *type) {
    for (size_t i = 0; i < sizeof scalar_types / sizeof scalar_types[0]; i++) {
        if (!strcmp(type, scalar_types[i].type)) {
            return scalar_types[i].size;
        }
    }
    return 0;
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
        out->scalar_size = scalar_size(type);
    }
    return true;
}

static bool parse_params(const char *open, xgpu__kernel_sig *sig) {
    const char *p = open + 1;
    const char *start = p;
    int depth = 0;
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
            if (empty || sig->count == XGPU__MAX_KERNEL_PARAMS ||
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

bool xgpu__kernel_sig_parse(const char *source, const char *name, xgpu__kernel_sig *sig) {
    memset(sig, 0, sizeof *sig);
    size_t len = strlen(source);
    char *text = malloc(len + 1);
    if (!text) {
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
        const char *q = skip_space(p + strlen("XGPU_KERNEL"));
        const char *bounds = match_word(q, "XGPU_LAUNCH_BOUNDS");
        if (bounds) {
            const char *close = strchr(bounds, ')');
            if (!close) {
                continue;
            }
            q = skip_space(close + 1);
        }
        q = match_word(q, "void");
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
        found = parse_params(q, sig);
    }
    free(text);
    sig->known = found;
    return found;
}
