/* xgpu_hip_embed OUT.c HIPCC|--none: compiles every library kernel variant
 * the routines build on a GPU offline with hipcc, for each architecture
 * below (those a variant builds for: MFMA ones on gfx908/gfx90a only),
 * into one code object bundle per variant (the HIP runtime picks the
 * device's code object out of it), and writes the table the HIP
 * plugin carries (hip__embedded_table, embedded.h). With --none the table
 * is empty and says why. A variant that does not compile fails the build. */
#define _GNU_SOURCE
#include "embedded.h"
#include "core_int.h"
#include "lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const archs[] = {"gfx906", "gfx908", "gfx90a", "gfx1030"};
#define ARCHS "gfx906, gfx908, gfx90a and gfx1030"

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    struct stat st;
    unsigned char *data = NULL;
    if (f && stat(path, &st) == 0 && st.st_size > 0 && (data = malloc((size_t)st.st_size))) {
        *size = fread(data, 1, (size_t)st.st_size, f);
    }
    if (f) {
        fclose(f);
    }
    return data;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: xgpu_hip_embed OUT.c HIPCC|--none\n");
        return 2;
    }
    if (!strcmp(argv[2], "--none")) {
        const char *about = "none built in: the build had no hipcc (Debian: hipcc), or "
                            "XGPU_HIP_EMBED_CODE=OFF";
        printf("xgpu_hip_embed: %s\n", about);
        return xgpu__embedded_write(argv[1], "hip__embedded_table", NULL, 0, about) ? 1 : 0;
    }
    char dir[] = "/tmp/xgpu-hip-embed-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("xgpu_hip_embed: mkdtemp");
        return 1;
    }
    static xgpu__lib_variant v[XGPU__LIB_VARIANTS_MAX];
    size_t n = xgpu__lib_variants(false, v, XGPU__LIB_VARIANTS_MAX);
    static xgpu_embedded entries[XGPU__LIB_VARIANTS_MAX];
    static char keys[XGPU__LIB_VARIANTS_MAX][65];
    size_t bytes = 0;
    int rc = n > XGPU__LIB_VARIANTS_MAX;
    if (rc) {
        fprintf(stderr,
                "xgpu_hip_embed: %zu GPU library variants, room for %d "
                "(raise XGPU__LIB_VARIANTS_MAX in runtime/src/lib/lib.h)\n",
                n, XGPU__LIB_VARIANTS_MAX);
    }
    size_t m = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        /* The architectures this variant builds for (MFMA: gfx908/gfx90a). */
        char arch_opts[256] = "";
        int len = 0;
        for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
            if (xgpu__lib_variant_builds_for(&v[i], "hip", archs[a])) {
                len += snprintf(arch_opts + len, sizeof arch_opts - (size_t)len,
                                " --offload-arch=%s", archs[a]);
            }
        }
        if (!len) {
            continue; /* another backend's variant */
        }
        char src[128], obj[128], cmd[1024];
        snprintf(src, sizeof src, "%s/k%zu.hip", dir, i);
        snprintf(obj, sizeof obj, "%s/k%zu.co", dir, i);
        char *full = xgpu__compose_source(XGPU_DIALECT_HIP, v[i].source);
        FILE *f = full ? fopen(src, "w") : NULL;
        if (!f || fputs(full, f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "xgpu_hip_embed: cannot write %s\n", src);
            free(full);
            rc = 1;
            break;
        }
        /* The options are the library's own -D flags: no quoting needed. */
        snprintf(cmd, sizeof cmd,
                 "'%s' -x hip --cuda-device-only -c -O3 -include hip/hip_runtime.h %s "
                 "'%s' -o '%s'%s",
                 argv[2], v[i].options, src, obj, arch_opts);
        size_t size = 0;
        unsigned char *code = system(cmd) == 0 ? read_file(obj, &size) : NULL;
        if (!code) {
            fprintf(stderr, "xgpu_hip_embed: %s %s: hipcc failed: %s\n", v[i].name, v[i].options,
                    cmd);
            rc = 1;
        } else {
            xgpu__embedded_key(full, v[i].options, keys[m]);
            entries[m] = (xgpu_embedded){keys[m], v[i].name, v[i].options, code, size};
            m++;
            bytes += size;
        }
        free(full);
        remove(src);
        remove(obj);
    }
    rmdir(dir);
    if (rc) {
        return 1;
    }
    char about[160];
    snprintf(about, sizeof about, "code object bundles for " ARCHS " from hipcc");
    printf("xgpu_hip_embed: %zu library kernels, %zu bytes of %s\n", m, bytes, about);
    return xgpu__embedded_write(argv[1], "hip__embedded_table", entries, m, about) ? 1 : 0;
}
