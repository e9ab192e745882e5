/* Command-line values checked before anything runs: the benchmark list and
 * --size, with overflow-checked arithmetic for the buffers a size asks for.
 * A bad value is a usage error (exit status 2), never a wrapped malloc. */
#include "bench.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const known[] = {"gemm", "reduce", "stream", "transfer", "launch", "p2p"};
#define NKNOWN (sizeof known / sizeof known[0])

bool gb_selected(const char *list, const char *bench) {
    if (!list) {
        return true;
    }
    size_t n = strlen(bench);
    for (const char *p = list; (p = strstr(p, bench)) != NULL; p += n) {
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ',')) {
            return true;
        }
    }
    return false;
}

/* Every comma-separated name of `list` is one of `words` (which `names`
 * spells for the message); else -1 with a message naming `option`. */
static int check_list(const char *option, const char *noun, const char *list,
                      const char *const *words, size_t nwords, const char *names, char *why,
                      size_t why_size) {
    if (!list) {
        return 0;
    }
    if (!*list) {
        snprintf(why, why_size, "%s \"\": no %s named (%s)", option, noun, names);
        return -1;
    }
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        bool ok = false;
        for (size_t k = 0; k < nwords; k++) {
            ok |= strlen(words[k]) == n && !strncmp(p, words[k], n);
        }
        if (!ok) {
            snprintf(why, why_size, "%s \"%s\": unknown %s '%.*s' (%s)", option, list, noun, (int)n,
                     p, names);
            return -1;
        }
        if (!p[n]) {
            return 0;
        }
        p += n + 1; /* a trailing comma names an empty entry: refused above */
    }
}

int gb_check_benches(const char *list, char *why, size_t why_size) {
    return check_list("-b", "benchmark", list, known, NKNOWN,
                      "gemm, reduce, stream, transfer, launch, p2p", why, why_size);
}

int gb_check_dtypes(const char *list, char *why, size_t why_size) {
    static const char *const dtypes[] = {"f32", "f64", "f16", "bf16", "tf32", "int8", "i32"};
    return check_list("--dtype", "element type", list, dtypes, sizeof dtypes / sizeof dtypes[0],
                      "f32, f64, f16, bf16, tf32, int8, i32", why, why_size);
}

int gb_check_dtype_use(const char *benches, const char *dtypes, char *why, size_t why_size) {
    /* What each benchmark runs; the others (transfer, launch, p2p) take
     * no element type. */
    static const struct {
        const char *bench, *types[6];
    } uses[] = {{"gemm", {"f32", "f64", "f16", "bf16", "tf32", "int8"}},
                {"reduce", {"f32", "f64", "i32"}},
                {"stream", {"f32"}}};
    if (!dtypes || gb_selected(benches, "transfer") || gb_selected(benches, "launch") ||
        (benches && gb_selected(benches, "p2p"))) {
        return 0;
    }
    for (size_t b = 0; b < sizeof uses / sizeof uses[0]; b++) {
        for (size_t t = 0; gb_selected(benches, uses[b].bench) && t < 6 && uses[b].types[t]; t++) {
            if (gb_selected(dtypes, uses[b].types[t])) {
                return 0;
            }
        }
    }
    snprintf(why, why_size,
             "--dtype %s: none of these element types is run by the chosen benchmarks (gemm "
             "runs f32, f64, f16, bf16, tf32, int8; reduce f32, f64, i32; stream f32)",
             dtypes);
    return -1;
}

/* A positive whole number of `option`, at most `max`. */
static int parse_count(const char *option, const char *text, size_t max, size_t *out, char *why,
                       size_t why_size) {
    /* strtoull alone takes "-1" as ULLONG_MAX and skips leading blanks. */
    bool digits = *text != '\0';
    for (const char *p = text; *p; p++) {
        digits &= *p >= '0' && *p <= '9';
    }
    if (!digits) {
        snprintf(why, why_size, "%s %s: not a positive whole number", option, text);
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || v > max) {
        snprintf(why, why_size, "%s %s: too large (at most %zu)", option, text, max);
        return -1;
    }
    if (v == 0) {
        snprintf(why, why_size, "%s %s: must be at least 1", option, text);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

int gb_parse_size(const char *text, size_t *size, char *why, size_t why_size) {
    return parse_count("--size", text, SIZE_MAX, size, why, why_size);
}

int gb_parse_batch(const char *text, size_t *batch, char *why, size_t why_size) {
    return parse_count("--batch", text, GB_BATCH_MAX, batch, why, why_size);
}

/* a * b into *out; false when it does not fit a size_t. */
static bool mul(size_t a, size_t b, size_t *out) {
    if (a && b > SIZE_MAX / a) {
        return false;
    }
    *out = a * b;
    return true;
}

int gb_check_size(const char *benches, size_t size, char *why, size_t why_size) {
    const size_t limit = GB_SIZE_LIMIT_BYTES;
    size_t bytes = 0;
    /* GEMM: n x n, three matrices of the widest type it runs (f64). */
    if (gb_selected(benches, "gemm")) {
        size_t elems;
        if (!mul(size, size, &elems) || !mul(elems, 3 * 8, &bytes) || bytes > limit) {
            snprintf(why, why_size,
                     "--size %zu: GEMM's three %zu x %zu f64 matrices need more than the %zu "
                     "GiB limit",
                     size, size, size, limit >> 30);
            return -1;
        }
    }
    /* reduce and stream: MiB per buffer, stream keeps four on the host;
     * p2p two on the host and two on each device. */
    if (gb_selected(benches, "reduce") || gb_selected(benches, "stream") ||
        gb_selected(benches, "p2p")) {
        if (!mul(size, (size_t)4 << 20, &bytes) || bytes > limit) {
            snprintf(why, why_size,
                     "--size %zu: %zu MiB buffers (four for stream, two for p2p) need more than "
                     "the %zu GiB "
                     "limit",
                     size, size, limit >> 30);
            return -1;
        }
    }
    return 0;
}

int gb_check_batch(const char *benches, size_t size, size_t batch, char *why, size_t why_size) {
    if (!gb_selected(benches, "gemm")) {
        snprintf(why, why_size, "--batch %zu: only the gemm benchmark runs batched (-b %s)", batch,
                 benches);
        return -1;
    }
    /* Three n x n matrices per GEMM, of the widest type (f64). */
    size_t n = size ? size : GB_BATCH_DEFAULT_N, elems, bytes;
    if (!mul(n, n, &elems) || !mul(elems, 3 * 8, &bytes) || !mul(bytes, batch, &bytes) ||
        bytes > GB_SIZE_LIMIT_BYTES) {
        snprintf(why, why_size, "--batch %zu: %zu GEMMs of n=%zu need more than the %zu GiB limit",
                 batch, batch, n, GB_SIZE_LIMIT_BYTES >> 30);
        return -1;
    }
    return 0;
}
