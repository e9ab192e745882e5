/* Fuzzes the reader of kernel signatures in dialect source (kernel_sig.c),
 * which sees every program a user builds. Input: the source's bytes (a NUL
 * ends it early). Each input is read for two kernel names: the identifier
 * after the first "XGPU_KERNEL ... void" (so that mutations keep finding
 * a kernel) and the fixed name "k". Beyond memory errors and leaks it
 * checks what launch relies on: every parameter read has a name, a kind,
 * and a size and class that fit its kind; nothing is left to free when
 * no kernel is found. */
#include "core_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what, const char *name) {
    if (!ok) {
        fprintf(stderr, "fuzz_kernel_sig: kernel '%s': %s\n", name, what);
        abort();
    }
}

static bool terminated(const char *s, size_t cap) {
    return memchr(s, '\0', cap) != NULL;
}

/* The identifier after the first "void" that follows "XGPU_KERNEL", into
 * name[cap]; "" when there is none. */
static void kernel_name(const char *src, char *name, size_t cap) {
    name[0] = '\0';
    const char *p = strstr(src, "XGPU_KERNEL");
    p = p ? strstr(p, "void") : NULL;
    if (!p) {
        return;
    }
    p += 4;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
        p++;
    }
    size_t n = 0;
    while (n + 1 < cap && (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') ||
                           (p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9'))) {
        n++;
    }
    memcpy(name, p, n);
    name[n] = '\0';
}

static void read_sig(const char *src, const char *name) {
    xgpu__kernel_sig sig;
    bool oom = true;
    bool found = xgpu__kernel_sig_parse(src, name, &sig, &oom);
    check(found == sig.known, "result and sig.known differ", name);
    check(!oom, "out of memory reported, none ran out", name);
    check(found || (sig.count == 0 && !sig.params), "not found, but something to free", name);
    check((sig.count == 0) == (sig.params == NULL), "params NULL iff count is 0", name);
    for (uint32_t i = 0; i < sig.count; i++) {
        const xgpu__kernel_param *p = &sig.params[i];
        check(terminated(p->name, sizeof p->name) && p->name[0], "a parameter has no name", name);
        check(terminated(p->type, sizeof p->type), "a parameter's type is unterminated", name);
        check(p->kind == XGPU_ARG_BUFFER || p->kind == XGPU_ARG_SCALAR || p->kind == XGPU_ARG_LOCAL,
              "a parameter has no kind", name);
        check(p->kind == XGPU_ARG_SCALAR || (p->scalar_size == 0 && p->scalar_class == 0),
              "a size or class on a parameter that is no scalar", name);
        check(p->scalar_size <= 16, "a scalar larger than any type", name);
        check(p->scalar_class == XGPU__CLASS_OTHER || p->scalar_class == XGPU__CLASS_FLOAT ||
                  p->scalar_class == XGPU__CLASS_INTEGER,
              "a scalar of no class", name);
        check(p->scalar_class == XGPU__CLASS_OTHER || p->scalar_size != 0, "a class without a size",
              name);
    }
    xgpu__kernel_sig_free(&sig);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *src = malloc(size + 1);
    if (!src) {
        return 0;
    }
    memcpy(src, data, size);
    src[size] = '\0';
    char name[128];
    kernel_name(src, name, sizeof name);
    read_sig(src, name);
    read_sig(src, "k");
    free(src);
    return 0;
}
