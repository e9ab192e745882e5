/* A fake hiprtc (libhiprtc.so.5) for the HIP backend's tests, as DTK and
 * ROCm 6 ship it beside the runtime. hiprtcCompileProgram takes the
 * --offload-arch=X option the plugin passes and makes a "code object" the
 * fake runtime (fake_hip.c) loads on a device of that architecture:
 * "XGPUFAKECO\narch X size N\n" and the N bytes of the source. A source
 * holding "fake_compile_error" fails to compile with a log. Each compile is recorded
 * in FAKE_HIP_RECORD as "COMPILE arch=X <options>\n".
 *
 * Like the hiprtc of ROCm 5.2 on gfx940, it aborts the process when asked
 * for an architecture outside FAKE_HIPRTC_ARCHS (a comma list; default
 * gfx906,gfx908,gfx90a,gfx1030,gfx928,gfx936): the plugin's allow-list
 * must keep it from being asked. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int hiprtcResult;
enum { SUCCESS = 0, ERROR_INVALID_INPUT = 3, ERROR_INVALID_PROGRAM = 4, ERROR_COMPILATION = 6 };

#define EXPORT __attribute__((visibility("default")))

typedef struct program {
    char *source;
    char *code;
    size_t code_size;
    char log[256];
} program;

EXPORT const char *hiprtcGetErrorString(hiprtcResult r) {
    switch (r) {
    case SUCCESS:
        return "HIPRTC_SUCCESS";
    case ERROR_INVALID_INPUT:
        return "HIPRTC_ERROR_INVALID_INPUT";
    case ERROR_INVALID_PROGRAM:
        return "HIPRTC_ERROR_INVALID_PROGRAM";
    case ERROR_COMPILATION:
        return "HIPRTC_ERROR_COMPILATION";
    default:
        return "HIPRTC_ERROR_INTERNAL_ERROR";
    }
}

EXPORT hiprtcResult hiprtcCreateProgram(program **out, const char *src, const char *name,
                                        int nheaders, const char *const *headers,
                                        const char *const *include_names) {
    (void)name, (void)nheaders, (void)headers, (void)include_names;
    if (!out || !src) {
        return ERROR_INVALID_INPUT;
    }
    program *p = calloc(1, sizeof *p);
    if (!p || !(p->source = strdup(src))) {
        free(p);
        return ERROR_INVALID_INPUT;
    }
    *out = p;
    return SUCCESS;
}

EXPORT hiprtcResult hiprtcDestroyProgram(program **p) {
    if (!p || !*p) {
        return ERROR_INVALID_PROGRAM;
    }
    free((*p)->source);
    free((*p)->code);
    free(*p);
    *p = NULL;
    return SUCCESS;
}

static int known_arch(const char *arch) {
    const char *list = getenv("FAKE_HIPRTC_ARCHS");
    if (!list || !*list) {
        list = "gfx906,gfx908,gfx90a,gfx1030,gfx928,gfx936";
    }
    size_t n = strcspn(arch, ":");
    for (const char *p = list; *p;) {
        size_t m = strcspn(p, ",");
        if (m == n && !strncmp(p, arch, n)) {
            return 1;
        }
        p += m + (p[m] == ',');
    }
    return 0;
}

EXPORT hiprtcResult hiprtcCompileProgram(program *p, int nopts, const char *const *opts) {
    if (!p) {
        return ERROR_INVALID_PROGRAM;
    }
    const char *arch = NULL;
    char line[1024] = "";
    size_t len = 0;
    for (int i = 0; i < nopts; i++) {
        if (!strncmp(opts[i], "--offload-arch=", 15)) {
            arch = opts[i] + 15;
        } else if (len + strlen(opts[i]) + 2 < sizeof line) {
            len += (size_t)snprintf(line + len, sizeof line - len, " %s", opts[i]);
        }
    }
    if (!arch) {
        snprintf(p->log, sizeof p->log, "error: no --offload-arch given\n");
        return ERROR_COMPILATION;
    }
    if (!known_arch(arch)) {
        fprintf(stderr, "fake hiprtc: no device library for %s: aborting, as ROCm 5.2 does\n",
                arch);
        abort();
    }
    const char *path = getenv("FAKE_HIP_RECORD");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "COMPILE arch=%s%s\n", arch, line);
        fclose(f);
    }
    if (strstr(p->source, "fake_compile_error")) {
        snprintf(p->log, sizeof p->log,
                 "xgpu_program.hip:2:5: error: use of undeclared identifier "
                 "'fake_compile_error'\n");
        return ERROR_COMPILATION;
    }
    size_t n = strlen(p->source);
    free(p->code);
    p->code = malloc(n + 128);
    if (!p->code) {
        return ERROR_COMPILATION;
    }
    int head = snprintf(p->code, 128, "XGPUFAKECO\narch %s size %zu\n", arch, n);
    memcpy(p->code + head, p->source, n);
    p->code_size = (size_t)head + n;
    return SUCCESS;
}

EXPORT hiprtcResult hiprtcGetProgramLogSize(program *p, size_t *size) {
    if (!p) {
        return ERROR_INVALID_PROGRAM;
    }
    *size = strlen(p->log) + 1;
    return SUCCESS;
}

EXPORT hiprtcResult hiprtcGetProgramLog(program *p, char *log) {
    if (!p) {
        return ERROR_INVALID_PROGRAM;
    }
    memcpy(log, p->log, strlen(p->log) + 1);
    return SUCCESS;
}

EXPORT hiprtcResult hiprtcGetCodeSize(program *p, size_t *size) {
    if (!p || !p->code) {
        return ERROR_INVALID_PROGRAM;
    }
    *size = p->code_size;
    return SUCCESS;
}

EXPORT hiprtcResult hiprtcGetCode(program *p, char *code) {
    if (!p || !p->code) {
        return ERROR_INVALID_PROGRAM;
    }
    memcpy(code, p->code, p->code_size);
    return SUCCESS;
}
