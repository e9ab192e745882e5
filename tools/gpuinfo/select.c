/* The physical devices a gpuinfo mode shows: every one xgpu reaches, or
 * those any of whose paths a -d selector matches. */
#include "gpuinfo.h"

#include <stdlib.h>

int gi_devices(const char *selector, pd_device **all, uint32_t *n) {
    if (pd_collect(all, n) != 0) {
        fprintf(stderr, "gpuinfo: %s\n", xgpu_last_error()->message);
        return 2;
    }
    if (!selector) {
        return 0;
    }
    uint32_t want = 0, got = 0;
    xgpu_status st = xgpu_device_match(selector, NULL, 0, &want); /* how many */
    xgpu_device **chosen = NULL;
    if (st == XGPU_SUCCESS) {
        chosen = calloc(want ? want : 1, sizeof *chosen);
        if (!chosen) {
            fprintf(stderr, "gpuinfo: out of memory\n");
            return 2;
        }
        st = xgpu_device_match(selector, chosen, want, &got);
    }
    if (st != XGPU_SUCCESS) {
        fprintf(stderr, "gpuinfo: -d %s: %s\n", selector, xgpu_last_error()->message);
        free(chosen);
        *n = 0;
        return st == XGPU_ERROR_INVALID_ARGUMENT ? 2 : 1;
    }
    *n = pd_select(*all, *n, chosen, got);
    free(chosen);
    return 0;
}
