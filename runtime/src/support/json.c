/* The JSON reader: recursive descent over a bounded buffer, every failure
 * a reason with its offset, never a read past `size`. */
#define _GNU_SOURCE /* newlocale, uselocale, strtod_l */
#include "support.h"

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64
#define MAX_VALUES ((size_t)1 << 20) /* 64 MiB of tree at most */
#define CHUNK_BYTES ((size_t)64 << 10)

/* The tree lives in a few large chunks, not one block per value: a
 * database of thousands of values costs a handful of allocations. */
typedef struct xgpu__json_chunk {
    struct xgpu__json_chunk *next;
    size_t used, cap;
    max_align_t data[];
} chunk;

typedef struct parser {
    const char *s;
    size_t size, pos;
    char *why;
    size_t why_size;
    bool failed;
    chunk *chunks;
    size_t values;
} parser;

/* JSON numbers have a '.', whatever the process's locale: read and written
 * through the C locale (per call, so other threads are not affected). */
static pthread_once_t c_once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void make_c_locale(void) {
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
fail(parser *p, const char *fmt, ...) {
    if (p->failed) {
        return;
    }
    p->failed = true;
    if (!p->why || !p->why_size) {
        return;
    }
    char text[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(p->why, p->why_size, "%s at byte %zu", text, p->pos);
}

static void *arena_alloc(parser *p, size_t size) {
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    chunk *c = p->chunks;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > CHUNK_BYTES ? size : CHUNK_BYTES;
        c = malloc(sizeof *c + cap);
        if (!c) {
            fail(p, "out of memory");
            return NULL;
        }
        c->next = p->chunks;
        c->used = 0;
        c->cap = cap;
        p->chunks = c;
    }
    void *at = (char *)c->data + c->used;
    c->used += size;
    return at;
}

static void free_chunks(chunk *c) {
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
}

static void skip_space(parser *p) {
    while (p->pos < p->size && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                                p->s[p->pos] == '\n' || p->s[p->pos] == '\r')) {
        p->pos++;
    }
}

static bool literal(parser *p, const char *word) {
    size_t n = strlen(word);
    if (p->size - p->pos < n || memcmp(p->s + p->pos, word, n) != 0) {
        return false;
    }
    p->pos += n;
    return true;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* Four hex digits after "\u"; -1 when malformed. */
static long hex4(parser *p) {
    if (p->size - p->pos < 4) {
        return -1;
    }
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(p->s[p->pos + (size_t)i]);
        if (d < 0) {
            return -1;
        }
        v = v * 16 + d;
    }
    p->pos += 4;
    return v;
}

static size_t put_utf8(char *out, unsigned long cp) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A string whose opening quote is at p->pos; a malloc'd copy, unescaped.
 * The copy is never longer than the source text. */
static char *parse_string(parser *p) {
    size_t start = ++p->pos, end = start;
    while (end < p->size && p->s[end] != '"') {
        end += p->s[end] == '\\' ? 2 : 1;
    }
    if (end >= p->size) {
        fail(p, "unterminated string");
        return NULL;
    }
    char *out = arena_alloc(p, end - start + 1);
    if (!out) {
        return NULL;
    }
    size_t n = 0;
    while (p->pos < end) {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c < 0x20) {
            fail(p, "control character in a string");
            return NULL;
        }
        if (c != '\\') {
            out[n++] = (char)c;
            p->pos++;
            continue;
        }
        char e = p->s[p->pos + 1];
        p->pos += 2;
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *hit = e ? strchr(from, e) : NULL;
        if (hit) {
            out[n++] = to[hit - from];
            continue;
        }
        long cp = e == 'u' ? hex4(p) : -1;
        if (cp >= 0xd800 && cp <= 0xdbff && p->pos + 6 <= end && p->s[p->pos] == '\\' &&
            p->s[p->pos + 1] == 'u') {
            p->pos += 2;
            long lo = hex4(p);
            cp =
                lo >= 0xdc00 && lo <= 0xdfff ? 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00) : -1;
        } else if (cp >= 0xd800 && cp <= 0xdfff) {
            cp = -1; /* a lone surrogate */
        }
        if (cp < 0 || p->pos > end) {
            fail(p, "bad escape in a string");
            return NULL;
        }
        n += put_utf8(out + n, (unsigned long)cp); /* at most the escape's 6 or 12 bytes */
    }
    out[n] = '\0';
    p->pos = end + 1;
    return out;
}

static bool parse_number(parser *p, double *out) {
    size_t i = p->pos;
    if (i < p->size && p->s[i] == '-') {
        i++;
    }
    size_t digits = i;
    while (i < p->size && p->s[i] >= '0' && p->s[i] <= '9') {
        i++;
    }
    if (i == digits || (p->s[digits] == '0' && i - digits > 1)) {
        fail(p, "malformed number");
        return false;
    }
    if (i < p->size && p->s[i] == '.') {
        size_t f = ++i;
        while (i < p->size && p->s[i] >= '0' && p->s[i] <= '9') {
            i++;
        }
        if (i == f) {
            fail(p, "malformed number");
            return false;
        }
    }
    if (i < p->size && (p->s[i] == 'e' || p->s[i] == 'E')) {
        i++;
        if (i < p->size && (p->s[i] == '+' || p->s[i] == '-')) {
            i++;
        }
        size_t e = i;
        while (i < p->size && p->s[i] >= '0' && p->s[i] <= '9') {
            i++;
        }
        if (i == e) {
            fail(p, "malformed number");
            return false;
        }
    }
    char buf[64];
    if (i - p->pos >= sizeof buf) {
        fail(p, "number too long");
        return false;
    }
    memcpy(buf, p->s + p->pos, i - p->pos);
    buf[i - p->pos] = '\0';
    pthread_once(&c_once, make_c_locale);
    if (!c_locale) {
        fail(p, "no C locale to read numbers with");
        return false;
    }
    char *end = NULL;
    *out = strtod_l(buf, &end, c_locale);
    if (end != buf + (i - p->pos) || !isfinite(*out)) {
        fail(p, "number out of range");
        return false;
    }
    p->pos = i;
    return true;
}

static xgpu__json *parse_value(parser *p, int depth);

/* The elements of an array or the members of an object, after its opener. */
static bool parse_items(parser *p, xgpu__json *v, int depth) {
    bool object = v->type == XGPU__JSON_OBJECT;
    char close = object ? '}' : ']';
    xgpu__json **tail = &v->child;
    p->pos++;
    skip_space(p);
    if (p->pos < p->size && p->s[p->pos] == close) {
        p->pos++;
        return true;
    }
    for (;;) {
        char *key = NULL;
        skip_space(p);
        if (object) {
            if (p->pos >= p->size || p->s[p->pos] != '"') {
                fail(p, "expected a member name");
                return false;
            }
            key = parse_string(p);
            skip_space(p);
            if (!key || p->pos >= p->size || p->s[p->pos] != ':') {
                fail(p, "expected ':'");
                return false;
            }
            p->pos++;
        }
        xgpu__json *item = parse_value(p, depth + 1);
        if (!item) {
            return false;
        }
        item->key = key;
        *tail = item;
        tail = &item->next;
        skip_space(p);
        if (p->pos < p->size && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->size && p->s[p->pos] == close) {
            p->pos++;
            return true;
        }
        fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
        return false;
    }
}

static xgpu__json *parse_value(parser *p, int depth) {
    if (depth > MAX_DEPTH) {
        fail(p, "nested deeper than %d", MAX_DEPTH);
        return NULL;
    }
    skip_space(p);
    if (p->pos >= p->size) {
        fail(p, "unexpected end");
        return NULL;
    }
    if (++p->values > MAX_VALUES) {
        fail(p, "more than %zu values", MAX_VALUES);
        return NULL;
    }
    xgpu__json *v = arena_alloc(p, sizeof *v);
    if (!v) {
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->start = p->pos;
    char c = p->s[p->pos];
    bool ok = true;
    if (c == '{' || c == '[') {
        v->type = c == '{' ? XGPU__JSON_OBJECT : XGPU__JSON_ARRAY;
        ok = parse_items(p, v, depth);
    } else if (c == '"') {
        v->type = XGPU__JSON_STRING;
        v->string = parse_string(p);
        ok = v->string != NULL;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        v->type = XGPU__JSON_NUMBER;
        ok = parse_number(p, &v->number);
    } else if (literal(p, "true") || literal(p, "false")) {
        v->type = XGPU__JSON_BOOL;
        v->boolean = c == 't';
    } else if (literal(p, "null")) {
        v->type = XGPU__JSON_NULL;
    } else {
        fail(p, "unexpected character '%c'", c >= 0x20 && c < 0x7f ? c : '?');
        ok = false;
    }
    v->end = p->pos;
    return ok ? v : NULL; /* the chunks are freed with the whole parse */
}

xgpu__json *xgpu__json_parse(const char *text, size_t size, char *why, size_t why_size) {
    parser p = {text, size, 0, why, why_size, false, NULL, 0};
    if (!text) {
        fail(&p, "no text");
        return NULL;
    }
    xgpu__json *v = parse_value(&p, 0);
    skip_space(&p);
    if (v && p.pos != size) {
        fail(&p, "text after the value");
        v = NULL;
    }
    if (!v) {
        free_chunks(p.chunks);
        return NULL;
    }
    v->chunks = p.chunks;
    return v;
}

void xgpu__json_free(xgpu__json *value) {
    if (value) {
        free_chunks(value->chunks);
    }
}

const xgpu__json *xgpu__json_get(const xgpu__json *obj, const char *key) {
    if (!obj || obj->type != XGPU__JSON_OBJECT) {
        return NULL;
    }
    for (const xgpu__json *m = obj->child; m; m = m->next) {
        if (m->key && !strcmp(m->key, key)) {
            return m;
        }
    }
    return NULL;
}

const char *xgpu__json_string(const xgpu__json *obj, const char *key) {
    const xgpu__json *m = xgpu__json_get(obj, key);
    return m && m->type == XGPU__JSON_STRING ? m->string : NULL;
}

bool xgpu__json_number(const xgpu__json *obj, const char *key, double *out) {
    const xgpu__json *m = xgpu__json_get(obj, key);
    if (!m || m->type != XGPU__JSON_NUMBER) {
        return false;
    }
    *out = m->number;
    return true;
}

void xgpu__json_write_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\') {
            fprintf(f, "\\%c", *c);
        } else if (*c < 0x20) {
            fprintf(f, "\\u%04x", *c);
        } else {
            fputc(*c, f);
        }
    }
    fputc('"', f);
}

void xgpu__json_write_number(FILE *f, double v) {
    if (!isfinite(v)) {
        v = 0; /* JSON has no inf or nan */
    }
    pthread_once(&c_once, make_c_locale);
    locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
    fprintf(f, "%.6g", v);
    if (old) {
        uselocale(old);
    }
}

double xgpu__json_round(double v) {
    pthread_once(&c_once, make_c_locale);
    if (!c_locale || !isfinite(v)) {
        return isfinite(v) ? v : 0;
    }
    char text[40];
    locale_t old = uselocale(c_locale);
    snprintf(text, sizeof text, "%.6g", v);
    uselocale(old);
    return strtod_l(text, NULL, c_locale);
}
