/* The CUDA backend is unavailable, and says why. CTest points
 * XGPU_CUDA_DRIVER at a missing file, the toolkit's stub or a fake driver,
 * and passes the expected status and reason fragments:
 *   test_cuda_unavailable STATUS FRAGMENT... */
#include <xgpu.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s STATUS FRAGMENT...\n", argv[0]);
        return 2;
    }
    uint32_t n = 0;
    if (xgpu_backend_count(&n) != XGPU_SUCCESS) {
        return 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        xgpu_backend_info bi;
        if (xgpu_backend_get_info(i, &bi, sizeof bi) != XGPU_SUCCESS || strcmp(bi.name, "cuda")) {
            continue;
        }
        printf("cuda: available=%d status=%s\nreason: %s\n", bi.available,
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
        const char *driver = getenv("XGPU_CUDA_DRIVER");
        if (bi.library_count < 1 || xgpu_backend_get_library(i, 0, &lib, sizeof lib) ||
            !driver || strcmp(lib.name, driver) != 0 || !lib.detail[0]) {
            printf("the driver library is not listed first (%u libraries)\n", bi.library_count);
            bad = 1;
        } else {
            printf("library: %s -> %s (%s): %s\n", lib.name, lib.path[0] ? lib.path : "-",
                   lib.loaded ? "loaded" : "not loaded", lib.detail);
        }
        /* Asking for the backend by name fails with the same reason. */
        xgpu_device *dev = NULL;
        if (xgpu_device_select("cuda", &dev) != XGPU_ERROR_BACKEND_UNAVAILABLE ||
            !strstr(xgpu_last_error()->message, bi.reason)) {
            printf("xgpu_device_select(\"cuda\") did not fail with the reason: %s\n",
                   xgpu_last_error()->message);
            bad = 1;
        }
        return bad;
    }
    printf("no cuda backend listed\n");
    return 1;
}
