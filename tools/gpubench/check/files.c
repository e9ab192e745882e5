/* Result files read whole for gpubench check and the report's verdicts,
 * and the files of one run put together. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GC_FILE_LIMIT ((size_t)64 << 20)

/* The whole file ("-": standard input), NUL-terminated, malloc'ed; NULL
 * with why: not a regular file or a pipe, over the limit, unreadable. */
char *gc_read_file(const char *path, size_t *len, char *why, size_t why_size) {
    bool in = !strcmp(path, "-");
    FILE *f = in ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (fstat(fileno(f), &st) != 0) {
        snprintf(why, why_size, "cannot read: %s", strerror(errno));
        goto done;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "a directory, not a result file");
        goto done;
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > GC_FILE_LIMIT) {
        snprintf(why, why_size, "over the 64 MiB limit for a result file");
        goto done;
    }
    /* A regular file's size at once; a pipe's in growing steps. */
    cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 1 << 16;
    for (;;) {
        char *grown = realloc(buf, cap + 1);
        if (!grown) {
            snprintf(why, why_size, "out of memory");
            goto fail;
        }
        buf = grown;
        n += fread(buf + n, 1, cap - n, f);
        if (ferror(f)) {
            snprintf(why, why_size, "cannot read: %s", strerror(errno));
            goto fail;
        }
        if (n < cap || feof(f)) {
            break;
        }
        if (cap > GC_FILE_LIMIT) {
            snprintf(why, why_size, "over the 64 MiB limit for a result file");
            goto fail;
        }
        cap *= 2;
    }
    if (n > GC_FILE_LIMIT) {
        snprintf(why, why_size, "over the 64 MiB limit for a result file");
        goto fail;
    }
    buf[n] = '\0';
    *len = n;
    goto done;
fail:
    free(buf);
    buf = NULL;
done:
    if (!in) {
        fclose(f);
    }
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
