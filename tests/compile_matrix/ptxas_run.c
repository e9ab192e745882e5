/* ptxas -v on PTX, for the compile-matrix tests (ptxas_run.h). */
#define _GNU_SOURCE
#include "ptxas_run.h"
#include "xt_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *ptxas_path(void) {
    const char *env = getenv("PTXAS");
    if (env && *env) {
        return access(env, X_OK) == 0 ? env : NULL;
    }
    if (system("command -v ptxas >/dev/null 2>&1") == 0) {
        return "ptxas";
    }
    return access("/usr/local/cuda/bin/ptxas", X_OK) == 0 ? "/usr/local/cuda/bin/ptxas" : NULL;
}

/* The number after `key` in ptxas's report ("Used 128 registers"), or the
 * one before it ("0 bytes spill stores"); -1 when absent. */
static long after(const char *log, const char *key) {
    const char *p = strstr(log, key);
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static long before(const char *log, const char *key) {
    const char *p = strstr(log, key);
    if (!p) {
        return -1;
    }
    while (p > log && p[-1] == ' ') {
        p--;
    }
    while (p > log && p[-1] >= '0' && p[-1] <= '9') {
        p--;
    }
    return strtol(p, NULL, 10);
}

/* Assembles `ptx` for sm_<sm> with ptxas -v; false when ptxas fails. */
bool ptxas_assemble(const char *ptxas, const char *ptx, size_t size, int sm, usage *u, char **log) {
    char dir[] = "/tmp/xgpu-ptxas-XXXXXX";
    if (!mkdtemp(dir)) {
        return false;
    }
    char src[64], logf[64], cmd[512];
    snprintf(src, sizeof src, "%s/k.ptx", dir);
    snprintf(logf, sizeof logf, "%s/k.log", dir);
    FILE *f = fopen(src, "w");
    bool ok = f && fwrite(ptx, 1, size, f) == size;
    if (f) {
        ok = fclose(f) == 0 && ok;
    }
    snprintf(cmd, sizeof cmd, "'%s' -v -arch=sm_%d '%s' -o /dev/null >'%s' 2>&1", ptxas, sm, src,
             logf);
    ok = ok && system(cmd) == 0;
    *log = xt_read_file(logf, NULL);
    const char *l = *log ? *log : "";
    *u = (usage){after(l, "Used "), before(l, "bytes smem"), before(l, "bytes spill stores"),
                 before(l, "bytes spill loads"), before(l, "bytes stack frame")};
    unlink(src);
    unlink(logf);
    rmdir(dir);
    return ok && u->regs >= 0;
}
