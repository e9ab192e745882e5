#include "backend_util.h"

#include <ctype.h>

int xgpu_util_split_options(char *options, const char **argv, int max) {
    int n = 0;
    char *p = options;
    while (*p) {
        while (isspace((unsigned char)*p)) {
            *p++ = '\0';
        }
        if (!*p) {
            break;
        }
        if (n == max) {
            return -1;
        }
        argv[n++] = p;
        while (*p && !isspace((unsigned char)*p)) {
            p++;
        }
    }
    return n;
}

size_t xgpu_util_local_layout(const xgpu_backend_arg *args, size_t count, unsigned int *offsets) {
    size_t shared = 0;
    for (size_t i = 0; i < count; i++) {
        if (args[i].kind == XGPU_ARG_LOCAL) {
            shared = (shared + 15) & ~(size_t)15;
            offsets[i] = (unsigned int)shared;
            shared += args[i].size;
        }
    }
    return shared;
}
