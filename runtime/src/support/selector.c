/* Device selectors ("2", "opencl", "cuda:1", "0000:01:00.0", "GPU-...",
 * and comma-separated lists of them): the text only. Resolving a parsed
 * selector against the registry is device.c's job; keeping the two apart
 * lets the parser be tested and fuzzed without loading plugins. A term's
 * kind is told by its shape, never by what the machine has, so one
 * selector means the same thing on every machine. */
#include "support.h"

#include <stdio.h>
#include <string.h>

static const char grammar[] =
    "an index, a backend, backend:index, a PCI bus id or a UUID, comma-separated";

static bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

static int hex_value(char c) {
    if (is_digit(c)) {
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

static bool is_blank(char c) {
    return c == ' ' || c == '\t';
}

static bool all_digits(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(s[i])) {
            return false;
        }
    }
    return n > 0;
}

/* Decimal digits only (no sign, no space), at most UINT32_MAX. */
static bool parse_index(const char *s, size_t n, uint32_t *out) {
    if (!all_digits(s, n)) {
        return false;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (v > UINT32_MAX) {
            return false;
        }
    }
    *out = (uint32_t)v;
    return true;
}

/* Exactly `n` hex digits (n >= 1) at most `max`. */
static bool parse_hex(const char *s, size_t n, uint32_t max, uint32_t *out) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int h = hex_value(s[i]);
        if (h < 0) {
            return false;
        }
        v = v * 16 + (uint64_t)h;
    }
    if (n == 0 || v > max) {
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

bool xgpu__pci_address_parse(const char *s, size_t n, xgpu__pci_address *out) {
    memset(out, 0, sizeof *out);
    /* From the end: ".f", then "dd", ":", "bb", and ":dddd" if more is left. */
    if (n < 7 || s[n - 2] != '.' || s[n - 5] != ':') {
        return false;
    }
    xgpu__pci_address a = {0, 0, 0, 0};
    if (!parse_hex(s + n - 1, 1, 7, &a.function) || !parse_hex(s + n - 4, 2, 0x1f, &a.device) ||
        !parse_hex(s + n - 7, 2, 0xff, &a.bus)) {
        return false;
    }
    size_t rest = n - 7; /* "dddd:" or "dddddddd:" (nvidia-smi) before the bus */
    if (rest != 0 && !((rest == 5 || rest == 9) && s[rest - 1] == ':' &&
                       parse_hex(s, rest - 1, 0xffff, &a.domain))) {
        return false;
    }
    *out = a;
    return true;
}

/* 32 hex digits, or 8-4-4-4-12 with dashes, as gpuinfo prints them. */
static bool parse_uuid(const char *s, size_t n, uint8_t out[16]) {
    bool dashed = n == 36;
    if (n != 32 && !dashed) {
        return false;
    }
    uint8_t u[16];
    size_t digits = 0;
    for (size_t i = 0; i < n; i++) {
        if (dashed && (i == 8 || i == 13 || i == 18 || i == 23)) {
            if (s[i] != '-') {
                return false;
            }
            continue;
        }
        int h = hex_value(s[i]);
        if (h < 0) {
            return false;
        }
        if (digits % 2 == 0) {
            u[digits / 2] = (uint8_t)(h << 4);
        } else {
            u[digits / 2] |= (uint8_t)h;
        }
        digits++;
    }
    memcpy(out, u, sizeof u);
    return true;
}

/* A backend name: a letter, then letters, digits or '_', 31 bytes at most. */
static bool is_backend_name(const char *s, size_t n) {
    if (n == 0 || n >= sizeof((xgpu__selector_term *)0)->backend ||
        !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) {
        return false;
    }
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_')) {
            return false;
        }
    }
    return true;
}

static bool has_uuid_prefix(const char *s, size_t n) {
    return n >= 4 && (s[0] == 'G' || s[0] == 'g') && (s[1] == 'P' || s[1] == 'p') &&
           (s[2] == 'U' || s[2] == 'u') && s[3] == '-';
}

/* One term, `n` bytes at `s` (no blanks at either end, n >= 1). The
 * shapes do not overlap: a UUID is 32 hex digits (or has the "GPU-"
 * prefix), a PCI bus id has a '.', backend:index has a ':' and neither,
 * an index is digits only, a backend starts with a letter. */
static bool parse_term(const char *s, size_t n, xgpu__selector_term *t, char *err,
                       size_t err_size) {
    const int len = n > 4096 ? 4096 : (int)n; /* for "%.*s" */
    bool prefixed = has_uuid_prefix(s, n);
    if (prefixed || parse_uuid(s, n, t->uuid)) {
        if (prefixed && !parse_uuid(s + 4, n - 4, t->uuid)) {
            snprintf(err, err_size, "'%.*s' is not a UUID (32 hex digits, dashes optional)", len,
                     s);
            return false;
        }
        t->kind = XGPU__TERM_UUID;
        return true;
    }
    if (all_digits(s, n)) {
        if (!parse_index(s, n, &t->index)) {
            snprintf(err, err_size, "device index %.*s is out of range", len, s);
            return false;
        }
        t->kind = XGPU__TERM_INDEX;
        return true;
    }
    if (memchr(s, '.', n)) {
        if (!xgpu__pci_address_parse(s, n, &t->pci)) {
            snprintf(err, err_size, "'%.*s' is not a PCI bus id (dddd:bb:dd.f or bb:dd.f, hex)",
                     len, s);
            return false;
        }
        t->kind = XGPU__TERM_PCI;
        return true;
    }
    const char *colon = memchr(s, ':', n);
    size_t name_len = colon ? (size_t)(colon - s) : n;
    if (!is_backend_name(s, name_len)) {
        snprintf(err, err_size, "'%.*s' is not a selector (%s)", len, s, grammar);
        return false;
    }
    if (colon && !parse_index(colon + 1, n - name_len - 1, &t->index)) {
        snprintf(err, err_size, "'%.*s': '%.*s' is not a device index", len, s,
                 len - (int)name_len - 1, colon + 1);
        t->index = 0;
        return false;
    }
    memcpy(t->backend, s, name_len);
    t->kind = colon ? XGPU__TERM_PATH : XGPU__TERM_BACKEND;
    return true;
}

bool xgpu__selector_parse(const char *s, xgpu__selector *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    size_t blank = s ? strspn(s, " \t") : 0;
    if (!s || !s[blank]) {
        snprintf(err, err_size, "selector is empty; use %s", grammar);
        return false;
    }
    const int len = strlen(s) > 4096 ? 4096 : (int)strlen(s);
    for (const char *p = s;;) {
        const char *end = strchr(p, ',');
        if (!end) {
            end = p + strlen(p);
        }
        const char *b = p, *e = end;
        while (b < e && is_blank(*b)) {
            b++;
        }
        while (e > b && is_blank(e[-1])) {
            e--;
        }
        if (b == e) {
            snprintf(err, err_size, "'%.*s': term %u is empty", len, s, out->count + 1);
            goto fail;
        }
        if (out->count == XGPU__SELECTOR_MAX_TERMS) {
            snprintf(err, err_size, "'%.*s': more than %d terms", len, s, XGPU__SELECTOR_MAX_TERMS);
            goto fail;
        }
        if (!parse_term(b, (size_t)(e - b), &out->terms[out->count], err, err_size)) {
            goto fail;
        }
        out->count++;
        if (!*end) {
            return true;
        }
        p = end + 1;
    }
fail:
    memset(out, 0, sizeof *out);
    return false;
}

void xgpu__selector_term_format(const xgpu__selector_term *t, char *out, size_t size) {
    const uint8_t *u = t->uuid;
    switch (t->kind) {
    case XGPU__TERM_INDEX:
        snprintf(out, size, "%u", t->index);
        break;
    case XGPU__TERM_BACKEND:
        snprintf(out, size, "%s", t->backend);
        break;
    case XGPU__TERM_PATH:
        snprintf(out, size, "%s:%u", t->backend, t->index);
        break;
    case XGPU__TERM_PCI:
        snprintf(out, size, "%04x:%02x:%02x.%x", t->pci.domain, t->pci.bus, t->pci.device,
                 t->pci.function);
        break;
    case XGPU__TERM_UUID:
        snprintf(out, size,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                 u[14], u[15]);
        break;
    default:
        snprintf(out, size, "?");
        break;
    }
}
