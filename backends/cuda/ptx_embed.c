/* xgpu_ptx_embed OUT.c [--none]: compiles every library kernel variant the
 * routines build on a GPU to PTX for the oldest arch the build machine's
 * NVRTC targets (a variant's own oldest arch where it needs a newer one), and writes the table the
 * CUDA plugin carries (cu__embedded_table, embedded.h). Without NVRTC, or with --none, the table is
 * empty and says why. A variant that does not compile fails the build. */
#include "cuda_internal.h"
#include "embedded.h"
#include "core_int.h"
#include "lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--none"))) {
        fprintf(stderr, "usage: xgpu_ptx_embed OUT.c [--none]\n");
        return 2;
    }
    cu__services = &xgpu__services;
    cu_nvrtc nvrtc;
    char reason[1024] = "", about[1200];
    if (argc == 3) {
        snprintf(about, sizeof about, "none built in (XGPU_CUDA_EMBED_PTX=OFF)");
    } else if (cu__nvrtc_load(&nvrtc, 0, reason, sizeof reason) != XGPU_SUCCESS) {
        snprintf(about, sizeof about, "none built in: the build machine had no NVRTC (%s)", reason);
    } else {
        static xgpu__lib_variant v[XGPU__LIB_VARIANTS_MAX];
        size_t n = xgpu__lib_variants(false, v, XGPU__LIB_VARIANTS_MAX);
        int target = nvrtc.arch_count ? nvrtc.archs[0] : 75;
        static xgpu_embedded entries[XGPU__LIB_VARIANTS_MAX];
        static char keys[XGPU__LIB_VARIANTS_MAX][65];
        size_t bytes = 0;
        int rc = n > XGPU__LIB_VARIANTS_MAX;
        if (rc) {
            fprintf(stderr,
                    "xgpu_ptx_embed: %zu GPU library variants, room for %d "
                    "(raise XGPU__LIB_VARIANTS_MAX in runtime/src/lib/lib.h)\n",
                    n, XGPU__LIB_VARIANTS_MAX);
        }
        size_t m = 0;
        for (size_t i = 0; i < n && !rc; i++) {
            /* A variant for newer GPUs only (mma.sync) is PTX for its own
             * oldest arch, which the driver loads on those GPUs alone. */
            int arch = v[i].cuda_arch > target ? v[i].cuda_arch : target;
            char sm[16];
            snprintf(sm, sizeof sm, "sm_%d", arch);
            if (!xgpu__lib_variant_builds_for(&v[i], "cuda", sm)) {
                continue;
            }
            char *full = xgpu__compose_source(XGPU_DIALECT_CUDA, v[i].source);
            char *log = NULL;
            cu_binary bin;
            if (!full || cu__compile_for(&nvrtc, full, v[i].options, arch, true, &bin, &log)) {
                fprintf(stderr, "xgpu_ptx_embed: %s %s: %s\n%s\n", v[i].name, v[i].options,
                        full ? xgpu_last_error()->message : "out of memory", log ? log : "");
                rc = 1;
            } else {
                xgpu__embedded_key(full, v[i].options, keys[m]);
                size_t size = bin.size; /* NVRTC counts PTX's NUL: the table does not */
                while (size && bin.data[size - 1] == '\0') {
                    size--;
                }
                entries[m] = (xgpu_embedded){keys[m], v[i].name, v[i].options,
                                             (const unsigned char *)bin.data, size};
                m++;
                bytes += size;
            }
            free(log);
            free(full);
        }
        if (rc) {
            return 1;
        }
        snprintf(about, sizeof about,
                 "PTX for compute_%d (compute_80 for mma.sync) from NVRTC %d.%d", target,
                 nvrtc.major, nvrtc.minor);
        printf("xgpu_ptx_embed: %zu library kernels, %zu bytes of %s\n", m, bytes, about);
        return xgpu__embedded_write(argv[1], "cu__embedded_table", entries, m, about) ? 1 : 0;
    }
    printf("xgpu_ptx_embed: %s\n", about);
    return xgpu__embedded_write(argv[1], "cu__embedded_table", NULL, 0, about) ? 1 : 0;
}
