/* Result files read whole for gpubench check and the report's verdicts,
 * and the files of one run put together. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GC_FILE_LIMIT ((size_t)64 << 20)

/* The whole file, NUL-terminated, malloc'ed; NULL with why. */
char *gc_read_file(const char *path, size_t *len, char *why, size_t why_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "cannot open: %s", strerror(errno));
        return NULL;
    }
    char *buf = malloc(GC_FILE_LIMIT + 1);
    size_t n = buf ? fread(buf, 1, GC_FILE_LIMIT + 1, f) : 0;
    bool bad = !buf || ferror(f) || n > GC_FILE_LIMIT;
    if (bad) {
        snprintf(why, why_size, "%s",
                 !buf                ? "out of memory"
                 : n > GC_FILE_LIMIT ? "over the 64 MiB limit for a result file"
                                     : "cannot read");
        free(buf);
        buf = NULL;
    } else {
        buf[n] = '\0';
        *len = n;
    }
    fclose(f);
    return buf;
}

/* Facts of every device of `path` appended to *all. 0, or -1 with why. */
int gc_facts_add_file(const char *path, gc_facts **all, size_t *n, char *why, size_t why_size) {
    size_t len = 0, k = 0;
    char *text = gc_read_file(path, &len, why, why_size);
    gc_facts *f = NULL;
    if (!text || gc_facts_read(text, len, path, &f, &k, why, why_size) != 0) {
        free(text);
        return -1;
    }
    free(text);
    gc_facts *grown = realloc(*all, (*n + k) * sizeof **all);
    if (!grown) {
        snprintf(why, why_size, "out of memory");
        free(f);
        return -1;
    }
    memcpy(grown + *n, f, k * sizeof *f);
    free(f);
    *all = grown;
    *n += k;
    return 0;
}

size_t gc_facts_merge_runs(gc_facts *facts, size_t n) {
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < kept && !gc_facts_same_device(&facts[k], &facts[i])) {
            k++;
        }
        if (k < kept) {
            gc_facts_merge(&facts[k], &facts[i]);
        } else {
            facts[kept++] = facts[i];
        }
    }
    return kept;
}
