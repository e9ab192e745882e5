/* Fuzzes the device-selector parser behind xgpu_device_match and
 * xgpu_device_select. Input: the selector's bytes (a NUL ends it early, as
 * it would in C). Beyond memory errors it checks the parser's contract: a
 * message on failure and a zeroed result; on success one term per comma
 * plus one, and a list that reads back the same when written out, term by
 * term and whole. */
#include "support.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what, const char *input) {
    if (!ok) {
        fprintf(stderr, "fuzz_selector: %s for input '%s'\n", what, input);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) {
        return 0;
    }
    memcpy(s, data, size);
    s[size] = '\0';

    xgpu__selector sel;
    /* A small buffer: long selectors must be cut, never overrun it. */
    char err[40];
    memset(err, 'x', sizeof err);
    if (!xgpu__selector_parse(s, &sel, err, sizeof err)) {
        check(memchr(err, '\0', sizeof err) && err[0], "no message", s);
        xgpu__selector zero;
        memset(&zero, 0, sizeof zero);
        check(!memcmp(&sel, &zero, sizeof sel), "failed, but the result is not zeroed", s);
        free(s);
        return 0;
    }
    check(sel.count >= 1 && sel.count <= XGPU__SELECTOR_MAX_TERMS, "term count out of range", s);
    uint32_t commas = 0;
    for (const char *p = s; *p; p++) {
        commas += *p == ',';
    }
    check(sel.count == commas + 1, "not one term per comma plus one", s);
    /* Each term written out alone and in the list. */
    char again[XGPU__SELECTOR_MAX_TERMS * 48];
    size_t used = 0;
    for (uint32_t t = 0; t < sel.count; t++) {
        const xgpu__selector_term *term = &sel.terms[t];
        check(term->kind <= XGPU__TERM_UUID, "unknown term kind", s);
        if (term->kind == XGPU__TERM_BACKEND || term->kind == XGPU__TERM_PATH) {
            const char *end = memchr(term->backend, '\0', sizeof term->backend);
            check(end && end > term->backend, "backend name empty or unterminated", s);
            check(!strpbrk(term->backend, ":,. \t"), "backend name holds a separator", s);
        }
        char one[48];
        xgpu__selector_term_format(term, one, sizeof one);
        xgpu__selector back;
        check(xgpu__selector_parse(one, &back, err, sizeof err),
              "a term written out does not parse", s);
        check(back.count == 1 && !memcmp(&back.terms[0], term, sizeof *term),
              "a term written out reads back different", s);
        used += (size_t)snprintf(again + used, sizeof again - used, "%s%s", t ? "," : "", one);
        check(used < sizeof again, "the list written out is too long", s);
    }
    xgpu__selector back;
    check(xgpu__selector_parse(again, &back, err, sizeof err), "written out, does not parse", s);
    check(!memcmp(&back, &sel, sizeof sel), "written out, reads back different", s);
    free(s);
    return 0;
}
