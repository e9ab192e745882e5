/* Fuzzes the parsers of XGPU_* values: XGPU_BACKENDS
 * (xgpu__backend_list_parse), XGPU_GEMM_PARAMS (xgpu__gemm_params_parse)
 * and XGPU_LOG (xgpu__log_level_parse), all pure functions. Each input,
 * cut at its first NUL as an environment value would be, goes to all
 * three. Beyond memory errors, each answer is checked against a plain
 * reading of the documented grammar, and what is accepted must read back
 * the same when written out. */
#include "core_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *parser, const char *what, const char *input) {
    if (!ok) {
        fprintf(stderr, "fuzz_env: %s: %s for input '%s'\n", parser, what, input);
        abort();
    }
}

/* The caller's reason must be a terminated, non-empty string. */
static bool has_reason(const char *err, size_t size) {
    return memchr(err, '\0', size) && err[0];
}

/* XGPU_BACKENDS, as documented: names of [a-z0-9_-], 1..31 characters,
 * separated by commas or spaces; 1..16 of them. */
static bool backends_valid(const char *s) {
    size_t names = 0;
    while (*s) {
        while (*s == ',' || *s == ' ') {
            s++;
        }
        size_t n = 0;
        for (; *s && *s != ',' && *s != ' '; s++, n++) {
            if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-')) {
                return false;
            }
        }
        if (n > 31) {
            return false;
        }
        names += n > 0;
    }
    return names >= 1 && names <= XGPU__MAX_LISTED_BACKENDS;
}

static void backends(const char *s, char *err, size_t err_size) {
    static const char *const who = "XGPU_BACKENDS";
    xgpu__backend_list list;
    bool ok = xgpu__backend_list_parse(s, &list, err, err_size);
    check(ok == backends_valid(s), who, ok ? "accepted, not valid" : "refused, valid", s);
    if (!ok) {
        check(!err_size || has_reason(err, err_size), who, "refused without a reason", s);
        return;
    }
    char joined[XGPU__MAX_LISTED_BACKENDS * 32 + 1] = "";
    for (size_t i = 0; i < list.count; i++) {
        const char *end = memchr(list.names[i], '\0', sizeof list.names[i]);
        check(end && end > list.names[i], who, "a name is empty or unterminated", s);
        check(strstr(s, list.names[i]) != NULL, who, "a name is not in the value", s);
        check(xgpu__backend_list_has(&list, list.names[i]), who, "a name is not in the list", s);
        strcat(joined, i ? "," : "");
        strcat(joined, list.names[i]);
    }
    xgpu__backend_list again;
    check(xgpu__backend_list_parse(joined, &again, NULL, 0), who, "written out, refused", s);
    check(again.count == list.count && !memcmp(again.names, list.names, sizeof list.names), who,
          "written out, reads back different", s);
}

/* XGPU_GEMM_PARAMS, as documented: 5 to 7 comma-separated decimal numbers,
 * the first six each 1..XGPU__GEMM_PARAM_MAX, the seventh 0 to 4 (one
 * digit), nothing else. Fills v when valid. */
static bool gemm_valid(const char *s, uint32_t v[7]) {
    size_t n = 0;
    v[5] = 1;
    v[6] = 0;
    for (;;) {
        if (n == 7 || !(*s >= '0' && *s <= '9')) {
            return false;
        }
        if (n == 6) { /* contiguous */
            if (s[0] < '0' || s[0] > '4' || s[1]) {
                return false;
            }
            v[6] = (uint32_t)(s[0] - '0');
            return true;
        }
        unsigned long x = 0;
        for (; *s >= '0' && *s <= '9'; s++) {
            x = x * 10 + (unsigned long)(*s - '0');
            x = x > XGPU__GEMM_PARAM_MAX ? XGPU__GEMM_PARAM_MAX + 1 : x; /* saturate */
        }
        if (x < 1 || x > XGPU__GEMM_PARAM_MAX) {
            return false;
        }
        v[n++] = (uint32_t)x;
        if (!*s) {
            return n >= 5;
        }
        if (*s++ != ',') {
            return false;
        }
    }
}

static void gemm(const char *s, char *err, size_t err_size) {
    static const char *const who = "XGPU_GEMM_PARAMS";
    xgpu_gemm_params p;
    memset(&p, 0xa5, sizeof p);
    const xgpu_gemm_params untouched = p;
    uint32_t v[7];
    bool valid = gemm_valid(s, v);
    bool ok = xgpu__gemm_params_parse(s, &p, err, err_size);
    check(ok == valid, who, ok ? "accepted, not valid" : "refused, valid", s);
    if (!ok) {
        check(!err_size || has_reason(err, err_size), who, "refused without a reason", s);
        check(!memcmp(&p, &untouched, sizeof p), who, "refused, but the result changed", s);
        return;
    }
    xgpu_gemm_params want = {v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
    check(!memcmp(&p, &want, sizeof p), who, "accepted, other numbers than written", s);
}

static void log_level(const char *s) {
    int level = xgpu__log_level_parse(s);
    check(level >= -1 && level <= XGPU_LOG_DEBUG, "XGPU_LOG", "a level out of range", s);
    check((level == -1) == (strcmp(s, "error") && strcmp(s, "warn") && strcmp(s, "info") &&
                            strcmp(s, "debug") && strcmp(s, "1")),
          "XGPU_LOG", "on for other than the documented words", s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) {
        return 0;
    }
    memcpy(s, data, size);
    s[size] = '\0';
    /* Reasons into a small buffer (cut, never overrun), or no buffer. */
    char err[24];
    size_t err_size = size % 2 ? sizeof err : 0;
    char *e = err_size ? err : NULL;
    backends(s, e, err_size);
    gemm(s, e, err_size);
    log_level(s);
    free(s);
    return 0;
}
