/* Strict parsers for the XGPU_* variables whose values carry structure.
 * Pure functions (no environment, no allocation), so that the fuzzers and
 * the unit tests reach them directly. A value is accepted whole or refused
 * with a reason; nothing is half-parsed. */
#include "support.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool fail(char *err, size_t err_size, const char *fmt, const char *detail) {
    if (err && err_size) {
        snprintf(err, err_size, fmt, detail);
    }
    return false;
}

bool xgpu__backend_list_parse(const char *list, xgpu__backend_list *out, char *err,
                              size_t err_size) {
    memset(out, 0, sizeof *out);
    if (!list) {
        return fail(err, err_size, "%s", "no list");
    }
    const char *p = list;
    while (*p) {
        while (*p == ',' || *p == ' ') {
            p++;
        }
        if (!*p) {
            break;
        }
        const char *b = p;
        while (*p && *p != ',' && *p != ' ') {
            unsigned char c = (unsigned char)*p;
            if (!(islower(c) || isdigit(c) || c == '_' || c == '-')) {
                char what[64];
                snprintf(what, sizeof what, isprint(c) ? "'%c'" : "byte 0x%02x", c);
                return fail(err, err_size,
                            "%s is not allowed in a backend name (names are lowercase letters, "
                            "digits, '_' and '-', separated by commas or spaces)",
                            what);
            }
            p++;
        }
        size_t n = (size_t)(p - b);
        if (n >= sizeof out->names[0]) {
            return fail(err, err_size, "%s", "a backend name is longer than 31 characters");
        }
        if (out->count == XGPU__MAX_LISTED_BACKENDS) {
            return fail(err, err_size, "%s", "more than 16 backend names");
        }
        memcpy(out->names[out->count], b, n);
        out->names[out->count][n] = '\0';
        out->count++;
    }
    if (out->count == 0) {
        return fail(err, err_size, "%s", "it names no backend");
    }
    return true;
}

bool xgpu__backend_list_has(const xgpu__backend_list *list, const char *name) {
    if (!list) {
        return true;
    }
    for (size_t i = 0; i < list->count; i++) {
        if (!strcmp(list->names[i], name)) {
            return true;
        }
    }
    return false;
}

/* One decimal field in 1..XGPU__GEMM_PARAM_MAX, ending at ',' or NUL. */
static bool gemm_field(const char **p, uint32_t *out) {
    const char *s = *p;
    if (!isdigit((unsigned char)*s)) {
        return false;
    }
    unsigned long v = 0;
    while (isdigit((unsigned char)*s)) {
        v = v * 10 + (unsigned long)(*s - '0');
        if (v > XGPU__GEMM_PARAM_MAX) {
            return false;
        }
        s++;
    }
    if (v == 0 || (*s && *s != ',')) {
        return false;
    }
    *out = (uint32_t)v;
    *p = *s ? s + 1 : s;
    return true;
}

bool xgpu__gemm_params_parse(const char *text, xgpu_gemm_params *out, char *err, size_t err_size) {
    if (!text) {
        return fail(err, err_size, "%s", "no value");
    }
    uint32_t v[7] = {0, 0, 0, 0, 0, 1, 0};
    const char *p = text;
    size_t n = 0;
    while (*p && n < 7) {
        /* The seventh field, contiguous, is 0 to 4 (XGPU_GEMM_GPU,
         * XGPU_GEMM_FRAGMENTS, XGPU_GEMM_REGISTERS). */
        bool ok;
        if (n < 6) {
            ok = gemm_field(&p, &v[n]);
        } else {
            ok = p[0] >= '0' && p[0] <= '4' && p[1] == '\0';
            v[n] = ok ? (uint32_t)(p[0] - '0') : 0;
            p += ok;
        }
        if (!ok) {
            char max[32];
            snprintf(max, sizeof max, "%d", XGPU__GEMM_PARAM_MAX);
            return fail(err, err_size,
                        "expected 5 to 7 comma-separated whole numbers, from 1 to %s, the "
                        "seventh 0 to 4 "
                        "(tile_m,tile_n,tile_k,work_m,work_n[,vector_width[,contiguous]])",
                        max);
        }
        n++;
        if (*p == '\0' && p[-1] == ',') {
            return fail(err, err_size, "%s", "it ends with a comma");
        }
    }
    if (*p) {
        return fail(err, err_size, "%s", "more than 7 fields");
    }
    if (n < 5) {
        return fail(err, err_size, "%s",
                    "fewer than 5 fields "
                    "(tile_m,tile_n,tile_k,work_m,work_n[,vector_width[,contiguous]])");
    }
    *out = (xgpu_gemm_params){v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
    return true;
}

bool xgpu__uint_parse(const char *text, uint32_t lo, uint32_t hi, uint32_t *out, char *err,
                      size_t err_size) {
    if (!text) {
        return fail(err, err_size, "%s", "no value");
    }
    unsigned long long v = 0;
    const char *s = text;
    while (isdigit((unsigned char)*s) && v <= hi) {
        v = v * 10 + (unsigned long long)(*s - '0');
        s++;
    }
    if (s == text || *s || v < lo || v > hi) {
        char range[64];
        snprintf(range, sizeof range, "expected a whole number from %u to %u", (unsigned)lo,
                 (unsigned)hi);
        return fail(err, err_size, "%s", range);
    }
    *out = (uint32_t)v;
    return true;
}
