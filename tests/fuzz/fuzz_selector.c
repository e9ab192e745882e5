/* Fuzzes the device-selector parser behind xgpu_device_select. Input: the
 * selector's bytes (a NUL ends it early, as it would in C). Beyond memory
 * errors it checks the parser's contract: a message on failure, a zeroed
 * result, and a result that reads back the same when written out. */
#include "internal.h"

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
    char again[64];
    if (sel.by_backend) {
        const char *end = memchr(sel.backend, '\0', sizeof sel.backend);
        check(end && end > sel.backend, "backend name empty or unterminated", s);
        size_t n = (size_t)(end - sel.backend);
        check(!strchr(sel.backend, ':'), "backend name holds ':'", s);
        check(!strncmp(s, sel.backend, n), "backend name is not the selector's start", s);
        snprintf(again, sizeof again, "%s:%u", sel.backend, sel.index);
    } else {
        snprintf(again, sizeof again, "%u", sel.index);
    }
    xgpu__selector back;
    check(xgpu__selector_parse(again, &back, err, sizeof err), "written out, does not parse", s);
    check(back.by_backend == sel.by_backend && back.index == sel.index &&
              !strcmp(back.backend, sel.backend),
          "written out, reads back different", s);
    free(s);
    return 0;
}
