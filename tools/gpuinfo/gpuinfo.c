/* gpuinfo: list every compute device xgpu reaches, and say why a backend
 * is unavailable. */
#include <xgpu.h>

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: gpuinfo [-h]\n"
    "\n"
    "Lists every compute device xgpu reaches, one line each:\n"
    "  index  backend:index  type  name  arch  compute units  memory\n"
    "then one line per backend that is unavailable, with the reason.\n"
    "\n"
    "Environment: XGPU_BACKENDS=opencl,cuda restricts the backends loaded;\n"
    "XGPU_PLUGIN_PATH adds plugin directories; XGPU_LOG=debug traces loading.\n"
    "\n"
    "Exit status: 0 when at least one device was found, 1 when none, 2 on a\n"
    "usage or internal error.\n";

static const char *type_name(xgpu_device_type t) {
    switch (t) {
    case XGPU_DEVICE_TYPE_CPU:
        return "CPU";
    case XGPU_DEVICE_TYPE_GPU:
        return "GPU";
    case XGPU_DEVICE_TYPE_ACCELERATOR:
        return "ACC";
    case XGPU_DEVICE_TYPE_OTHER:
        break;
    }
    return "?";
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        fprintf(stderr, "gpuinfo: unknown option '%s'\n%s", argv[i], usage);
        return 2;
    }
    uint32_t ndev = 0, nback = 0;
    if (xgpu_device_count(&ndev) || xgpu_backend_count(&nback)) {
        fprintf(stderr, "gpuinfo: %s\n", xgpu_last_error()->message);
        return 2;
    }
    for (uint32_t i = 0; i < ndev; i++) {
        xgpu_device *dev;
        xgpu_device_info info;
        if (xgpu_device_get(i, &dev) || xgpu_device_get_info(dev, &info, sizeof info)) {
            fprintf(stderr, "gpuinfo: device %u: %s\n", i, xgpu_last_error()->message);
            continue;
        }
        char where[48];
        snprintf(where, sizeof where, "%s:%u", info.backend, info.backend_index);
        printf("%-3u %-10s %-4s %s | %s | %u CU | %.1f GiB\n", i, where, type_name(info.type),
               info.name, info.arch[0] ? info.arch : "-", info.compute_units,
               (double)info.global_mem_bytes / (1024.0 * 1024.0 * 1024.0));
    }
    if (ndev == 0) {
        printf("no compute device found\n");
    }
    for (uint32_t b = 0; b < nback; b++) {
        xgpu_backend_info bi;
        if (xgpu_backend_get_info(b, &bi, sizeof bi) == XGPU_SUCCESS && !bi.available) {
            printf("%s: unavailable: %s\n", bi.name, bi.reason);
        }
    }
    return ndev ? 0 : 1;
}
