/* The tests' one whole-file reader. */
#define _POSIX_C_SOURCE 200809L
#include "xt_file.h"

#include <stdlib.h>
#include <sys/wait.h>

char *xt_read_stream(FILE *f, size_t *size) {
    size_t cap = 1 << 16, len = 0, got;
    char *buf = malloc(cap);
    if (!buf) {
        return NULL;
    }
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                return NULL;
            }
            buf = grown;
            cap *= 2;
        }
    }
    if (ferror(f)) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    if (size) {
        *size = len;
    }
    return buf;
}

char *xt_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    char *text = xt_read_stream(f, size);
    fclose(f);
    return text;
}

char *xt_run_command(const char *cmdline, int *status) {
    *status = -1;
    FILE *p = popen(cmdline, "r");
    if (!p) {
        return NULL;
    }
    char *out = xt_read_stream(p, NULL);
    int st = pclose(p);
    *status = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}
