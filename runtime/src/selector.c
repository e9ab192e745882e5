/* Device selectors ("2", "opencl", "cuda:1"): the text only. Resolving a
 * parsed selector against the registry is device.c's job; keeping the two
 * apart lets the parser be tested and fuzzed without loading plugins. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decimal digits only (no sign, no space), at most UINT32_MAX. */
static bool parse_index(const char *s, uint32_t *out) {
    if (!*s) {
        return false;
    }
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') {
            return false;
        }
    }
    errno = 0;
    unsigned long v = strtoul(s, NULL, 10);
    if (errno || v > UINT32_MAX) {
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

bool xgpu__selector_parse(const char *s, xgpu__selector *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    if (!s || !*s) {
        snprintf(err, err_size, "selector is empty; use an index, a backend name or backend:index");
        return false;
    }
    if (parse_index(s, &out->index)) {
        return true;
    }
    if (strspn(s, "0123456789") == strlen(s)) {
        snprintf(err, err_size, "device index %s is out of range", s);
        return false;
    }
    /* Not an index: a backend name, maybe with ":index". */
    const char *colon = strchr(s, ':');
    size_t nlen = colon ? (size_t)(colon - s) : strlen(s);
    if (nlen == 0 || nlen >= sizeof out->backend) {
        snprintf(err, err_size, "'%s' is not a selector (index, backend or backend:index)", s);
        return false;
    }
    memcpy(out->backend, s, nlen);
    out->backend[nlen] = '\0';
    out->by_backend = true;
    if (colon && !parse_index(colon + 1, &out->index)) {
        snprintf(err, err_size, "'%s': '%s' is not a device index", s, colon + 1);
        memset(out, 0, sizeof *out);
        return false;
    }
    return true;
}
