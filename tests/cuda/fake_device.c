/* A fake libcuda.so.1 with one "device" (FAKE_CUDA_DEVICES of them, up to
 * 8, each with its own primary context and peer access to the others
 * unless FAKE_CUDA_PEER=0; FAKE_CUDA_PEER_REFUSE=1 makes enabling it fail) whose memory is host
 * memory and whose kernels do nothing: enough for the CUDA backend to create a context, buffers and
 * queues, load modules, launch and copy between devices ("PEER s -> d n"
 * recorded for each peer copy). Each image
 * cuModuleLoadData(Ex) receives is appended to the file FAKE_CUDA_RECORD
 * (when set) as "IMAGE <bytes>\n" followed by the image, so that a test can
 * see what the backend loaded. Driver version: FAKE_CUDA_VERSION (default
 * 13000); compute capability: FAKE_CUDA_SM (default 90, sm_90); each
 * device's PCI bus: FAKE_CUDA_PCI_BUS (see pci_bus). The
 * NVIDIA driver's own version is in a real libcuda's file name
 * (libcuda.so.580.65.06): a test copies this file to such a name. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

#define EXPORT __attribute__((visibility("default")))
#define OK 0

static int env_int(const char *name, int fallback) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

static int token; /* the address of one object stands for every handle */

EXPORT CUresult cuInit(unsigned flags) {
    (void)flags;
    return OK;
}
EXPORT CUresult cuDriverGetVersion(int *v) {
    *v = env_int("FAKE_CUDA_VERSION", 13000);
    return OK;
}
EXPORT CUresult cuDeviceGetCount(int *count) {
    *count = env_int("FAKE_CUDA_DEVICES", 1);
    return OK;
}
EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
    *dev = ordinal;
    return OK;
}
EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
    (void)dev;
    snprintf(name, (size_t)len, "fake sm_90 device");
    return OK;
}
/* Device dev's PCI bus: item dev of FAKE_CUDA_PCI_BUS ("0x41,0x01": CUDA's
 * fastest-first order need not be the bus order), else 0x10 + dev. */
static int pci_bus(CUdevice dev) {
    const char *p = getenv("FAKE_CUDA_PCI_BUS");
    for (int i = 0; p && *p && i < dev; i++) {
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return p && *p ? (int)strtol(p, NULL, 0) : 0x10 + dev;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, int attribute, CUdevice dev) {
    (void)dev;
    switch (attribute) {
    case 1: /* max threads per block */
    case 2:
    case 3:
        *v = 1024;
        break;
    case 4:
        *v = 64;
        break;
    case 5:
        *v = 2147483647;
        break;
    case 6:
    case 7:
        *v = 65535;
        break;
    case 8: /* shared memory per block */
        *v = 49152;
        break;
    case 10: /* warp size */
        *v = 32;
        break;
    case 16: /* multiprocessors */
        *v = 4;
        break;
    case 75: /* compute capability */
        *v = env_int("FAKE_CUDA_SM", 90) / 10;
        break;
    case 76:
        *v = env_int("FAKE_CUDA_SM", 90) % 10;
        break;
    case 81:
        *v = 233472;
        break;
    case 97:
        *v = 232448;
        break;
    case 33: /* PCI bus: one per device, as on a real node */
        *v = pci_bus(dev);
        break;
    case 34: /* PCI device */
    case 50: /* PCI domain */
        *v = 0;
        break;
    default:
        *v = 1;
        break;
    }
    return OK;
}
EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
    (void)dev;
    *bytes = (size_t)1 << 30;
    return OK;
}
/* Each device's primary context; the one made current last. */
static int contexts[8];
static _Thread_local void *current = &contexts[0]; /* per thread, as the driver's */
static int peer_enabled[8][8];

EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice dev) {
    if (dev < 0 || dev >= 8) {
        return 101; /* CUDA_ERROR_INVALID_DEVICE */
    }
    *ctx = &contexts[dev];
    return OK;
}
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    (void)dev;
    return OK;
}
EXPORT CUresult cuCtxSetCurrent(void *ctx) {
    current = ctx;
    return OK;
}
EXPORT CUresult cuCtxGetCurrent(void **ctx) {
    *ctx = current;
    return OK;
}
/* Peers: every pair of two devices, unless FAKE_CUDA_PEER=0. */
EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer) {
    *can = env_int("FAKE_CUDA_PEER", 1) && dev != peer;
    return OK;
}
EXPORT CUresult cuCtxEnablePeerAccess(void *peer, unsigned flags) {
    (void)flags;
    int *from = current, *to = peer;
    if (from == to) {
        return 1; /* CUDA_ERROR_INVALID_VALUE, as for a context and itself */
    }
    if (env_int("FAKE_CUDA_PEER_REFUSE", 0)) {
        return 711; /* CUDA_ERROR_TOO_MANY_PEERS */
    }
    int *seen = &peer_enabled[from - contexts][to - contexts];
    if (*seen) {
        return 704; /* CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED */
    }
    *seen = 1;
    return OK;
}
static void record_text(const char *line);
EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, void *dst_ctx, CUdeviceptr src, void *src_ctx,
                                  size_t n, void *stream) {
    (void)stream;
    int *d = dst_ctx, *s = src_ctx;
    if (d != s && !peer_enabled[d - contexts][s - contexts]) {
        return 1; /* the backend enables access before it copies */
    }
    memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    char line[96];
    snprintf(line, sizeof line, "PEER %ld -> %ld %zu\n", (long)(s - contexts), (long)(d - contexts),
             n);
    record_text(line);
    return OK;
}
EXPORT CUresult cuCtxSynchronize(void) {
    return OK;
}
EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
    *free_bytes = *total = (size_t)1 << 30;
    return OK;
}
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t size) {
    /* FAKE_CUDA_OOM_DEVICE=N: device N has no memory to give. */
    const char *oom = getenv("FAKE_CUDA_OOM_DEVICE");
    if (oom && *oom && (int *)current - contexts == atoi(oom)) {
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    }
    void *p = calloc(1, size);
    *ptr = (CUdeviceptr)(uintptr_t)p;
    return p ? OK : 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}
EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) {
    free((void *)(uintptr_t)ptr);
    return OK;
}
EXPORT CUresult cuMemAllocHost_v2(void **ptr, size_t size) {
    *ptr = malloc(size);
    return *ptr ? OK : 2;
}
EXPORT CUresult cuMemFreeHost(void *ptr) {
    free(ptr);
    return OK;
}
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *stream) {
    (void)stream;
    memcpy((void *)(uintptr_t)dst, src, n);
    return OK;
}
EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *stream) {
    (void)stream;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return OK;
}
EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void *stream) {
    (void)stream;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return OK;
}
EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, void *stream) {
    (void)stream;
    memset((void *)(uintptr_t)dst, v, n);
    return OK;
}
EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, void *stream) {
    (void)stream;
    for (size_t i = 0; i < n; i++) {
        memcpy((char *)(uintptr_t)dst + 2 * i, &v, 2);
    }
    return OK;
}
EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, void *stream) {
    (void)stream;
    for (size_t i = 0; i < n; i++) {
        memcpy((char *)(uintptr_t)dst + 4 * i, &v, 4);
    }
    return OK;
}
EXPORT CUresult cuStreamCreate(void **stream, unsigned flags) {
    (void)flags;
    *stream = &token;
    return OK;
}
EXPORT CUresult cuStreamDestroy_v2(void *stream) {
    (void)stream;
    return OK;
}
EXPORT CUresult cuStreamSynchronize(void *stream) {
    (void)stream;
    return OK;
}
EXPORT CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
    (void)stream, (void)event, (void)flags;
    return OK;
}
EXPORT CUresult cuEventCreate(void **event, unsigned flags) {
    (void)flags;
    *event = &token;
    return OK;
}
EXPORT CUresult cuEventRecord(void *event, void *stream) {
    (void)event, (void)stream;
    return OK;
}
EXPORT CUresult cuEventSynchronize(void *event) {
    (void)event;
    return OK;
}
EXPORT CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
    (void)a, (void)b;
    *ms = 0.001f;
    return OK;
}
EXPORT CUresult cuEventDestroy_v2(void *event) {
    (void)event;
    return OK;
}

static void record(const void *image) {
    const char *path = getenv("FAKE_CUDA_RECORD");
    if (!path) {
        return;
    }
    /* PTX is text up to its NUL; CUBIN is an ELF file whose size the
     * header gives: the fake only records text. */
    const char *text = image;
    size_t n = text[0] == 0x7f ? 4 : strlen(text);
    FILE *f = fopen(path, "ab");
    if (f) {
        fprintf(f, "IMAGE %zu\n", n);
        fwrite(image, 1, n, f);
        fputc('\n', f);
        fclose(f);
    }
}

static void record_text(const char *line) {
    const char *path = getenv("FAKE_CUDA_RECORD");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (f) {
        fputs(line, f);
        fclose(f);
    }
}

EXPORT CUresult cuModuleLoadData(void **module, const void *image) {
    record(image);
    *module = &token;
    return OK;
}
EXPORT CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *options,
                                   void **values) {
    (void)n, (void)options, (void)values;
    return cuModuleLoadData(module, image);
}
EXPORT CUresult cuModuleUnload(void *module) {
    (void)module;
    return OK;
}
EXPORT CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
    (void)module, (void)name;
    *function = &token;
    return OK;
}
EXPORT CUresult cuFuncGetAttribute(int *v, int attribute, void *function) {
    (void)function;
    *v = attribute == 0 ? 1024 : 0;
    return OK;
}
EXPORT CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
    (void)function, (void)attribute, (void)value;
    return OK;
}
EXPORT CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shared, void *stream,
                               void **params, void **extra) {
    (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared;
    (void)stream, (void)params, (void)extra;
    return OK;
}
/* NVRTC looks this up in whatever libcuda.so.1 the process holds, and does
 * not expect it to be missing: the fake has none to give. */
EXPORT CUresult cuGetExportTable(const void **table, const void *id) {
    (void)id;
    *table = NULL;
    return 801; /* CUDA_ERROR_NOT_SUPPORTED */
}
