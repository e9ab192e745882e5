/* A backend is unavailable, and says why. CTest sets up the case (for CUDA:
 * XGPU_CUDA_DRIVER pointing at a missing file, the toolkit's stub or a fake
 * driver; for HIP: the real runtime without a GPU) and passes the expected
 * status and reason fragments:
 *   test_backend_unavailable BACKEND STATUS FRAGMENT...
 * When XGPU_EXPECT_LIBRARY is set, the backend's first library must be it. */
#include <xgpu.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s BACKEND STATUS FRAGMENT...\n", argv[0]);
        return 2;
    }
    const char *backend = argv[1];
    argv++;
    argc--;
    uint32_t n = 0;
    if (xgpu_backend_count(&n) != XGPU_SUCCESS) {
        return 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        xgpu_backend_info bi;
        if (xgpu_backend_get_info(i, &bi, sizeof bi) != XGPU_SUCCESS || strcmp(bi.name, backend)) {
            continue;
        }
        printf("%s: available=%d status=%s\nreason: %s\n", backend, bi.available,
               xgpu_status_name(bi.status), bi.reason);
        int bad = bi.available || strcmp(xgpu_status_name(bi.status), argv[1]) != 0;
        for (int a = 2; a < argc; a++) {
            if (!strstr(bi.reason, argv[a])) {
                printf("missing from the reason: '%s'\n", argv[a]);
                bad = 1;
            }
        }
        /* The driver file tried is listed with what happened. */
        xgpu_library_info lib;
        const char *expect = getenv("XGPU_EXPECT_LIBRARY");
        if (bi.library_count < 1 || xgpu_backend_get_library(i, 0, &lib, sizeof lib) ||
            (expect && strcmp(lib.name, expect) != 0) || !lib.detail[0]) {
            printf("the driver library is not listed first (%u libraries)\n", bi.library_count);
            bad = 1;
        } else {
            printf("library: %s -> %s (%s): %s\n", lib.name, lib.path[0] ? lib.path : "-",
                   lib.loaded ? "loaded" : "not loaded", lib.detail);
        }
        /* Asking for the backend by name fails with the same reason. */
        xgpu_device *dev = NULL;
        if (xgpu_device_select(backend, &dev) != XGPU_ERROR_BACKEND_UNAVAILABLE ||
            !strstr(xgpu_last_error()->message, bi.reason)) {
            printf("xgpu_device_select(\"%s\") did not fail with the reason: %s\n", backend,
                   xgpu_last_error()->message);
            bad = 1;
        }
        return bad;
    }
    printf("no %s backend listed\n", backend);
    return 1;
}
