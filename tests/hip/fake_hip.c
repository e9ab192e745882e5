/* A fake HIP runtime (libamdhip64 or Hygon's libgalaxyhip) for the HIP
 * backend's tests: it exports the functions the plugin binds
 * (backends/hip/hip_api.h), with devices whose memory is host memory,
 * modules that check and record what hipModuleLoadData receives, and
 * launches that only record. Its constants come from ROCm's headers (5.2
 * and 4.5.2 for the attribute numbers, 5.2 and 6.x for the property
 * structs), not from the plugin's own declarations.
 *
 * Builds (compile definitions):
 *   FAKE_HIP_R0600         exports hipGetDevicePropertiesR0600 (ROCm 6)
 *   FAKE_HIP_GALAXY        Hygon's libgalaxyhip: the old attribute numbers
 *                          whatever version it reports
 *   FAKE_HIP_MINIMAL       none of the functions the plugin may do without
 *   FAKE_HIP_OLD           lacks hipMemsetD16Async (too old for xgpu)
 *   FAKE_HIP_VERSION_DEFAULT  hipRuntimeGetVersion's answer
 * Switches (environment, read at each call):
 *   FAKE_HIP_VERSION=N     hipRuntimeGetVersion; below 50000000 the old
 *                          attribute numbers, as HIP before ROCm 5.0
 *   FAKE_HIP_DEVICES=N     devices (default 1, at most 8); 0: hipInit
 *                          answers hipErrorInvalidDevice and
 *                          hipGetDeviceCount hipErrorNoDevice, as ROCm 5.2
 *                          does without a GPU
 *   FAKE_HIP_INIT=E        hipInit (and then hipGetDeviceCount) fail with E
 *   FAKE_HIP_NAME, FAKE_HIP_ARCH (a comma list: one per device),
 *   FAKE_HIP_CUS, FAKE_HIP_MEM_MIB   what the devices report
 *   FAKE_HIP_OOM=1         hipMalloc fails with hipErrorOutOfMemory
 *   FAKE_HIP_MODULE_FAIL=E hipModuleLoadData fails with E
 *   FAKE_HIP_LAUNCH_FAIL=E hipModuleLaunchKernel fails with E
 *   FAKE_HIP_PEER=0        no device can access another's memory
 *   FAKE_HIP_RECORD=FILE   appends "IMAGE <kind> <bytes>\n<bytes>\n" for
 *                          each module loaded, "LAUNCH <kernel> ...\n" and
 *                          "PEER <src> -> <dst> <bytes>\n"
 * Device pointers are checked against the allocations (a copy out of
 * bounds fails with hipErrorInvalidValue), and fakeHipLiveObjects() counts
 * what is still allocated, for the tests' leak checks. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int hipError_t;

#define EXPORT __attribute__((visibility("default")))

enum {
    OK = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    INVALID_DEVICE = 101,
    NO_DEVICE = 100,
    INVALID_IMAGE = 200,
    NO_BINARY_FOR_GPU = 209,
    INVALID_HANDLE = 400,
    NOT_FOUND = 500,
    NOT_READY = 600,
    PEER_ALREADY_ENABLED = 704,
    PEER_UNSUPPORTED = 217,
};

#ifndef FAKE_HIP_VERSION_DEFAULT
#define FAKE_HIP_VERSION_DEFAULT 50200000
#endif

static int env_int(const char *name, int fallback) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

static int device_count(void) {
    int n = env_int("FAKE_HIP_DEVICES", 1);
    return n < 0 ? 0 : n > 8 ? 8 : n;
}

static int version(void) {
    return env_int("FAKE_HIP_VERSION", FAKE_HIP_VERSION_DEFAULT);
}

/* The device's gcnArchName: its entry in the comma list FAKE_HIP_ARCH. */
static void device_arch(int dev, char *out, size_t size) {
    const char *list = getenv("FAKE_HIP_ARCH");
    if (!list || !*list) {
        list = "gfx90a:sramecc+:xnack-";
    }
    for (int i = 0; i < dev && strchr(list, ','); i++) {
        list = strchr(list, ',') + 1;
    }
    snprintf(out, size, "%.*s", (int)strcspn(list, ","), list);
}

static size_t device_memory(void) {
    return (size_t)env_int("FAKE_HIP_MEM_MIB", 1024) << 20;
}

static void record_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void record_text(const char *fmt, ...) {
    const char *path = getenv("FAKE_HIP_RECORD");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (f) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        fclose(f);
    }
}

/* ---- state: the current device, allocations, objects ---- */

static _Thread_local int current;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct allocation {
    char *ptr;
    size_t size;
    int device; /* -1: pinned host memory */
    struct allocation *next;
} allocation;
static allocation *allocations;
static int live_objects; /* streams, events, modules */

static size_t used_on(int device) {
    size_t used = 0;
    for (allocation *a = allocations; a; a = a->next) {
        used += a->device == device ? a->size : 0;
    }
    return used;
}

static hipError_t add_allocation(void **ptr, size_t size, int device) {
    allocation *a = calloc(1, sizeof *a);
    char *p = calloc(1, size ? size : 1);
    if (!a || !p) {
        free(a);
        free(p);
        return OUT_OF_MEMORY;
    }
    a->ptr = p;
    a->size = size;
    a->device = device;
    pthread_mutex_lock(&lock);
    a->next = allocations;
    allocations = a;
    pthread_mutex_unlock(&lock);
    *ptr = p;
    return OK;
}

static hipError_t remove_allocation(void *ptr, int device_or_host) {
    if (!ptr) {
        return OK;
    }
    pthread_mutex_lock(&lock);
    for (allocation **pa = &allocations; *pa; pa = &(*pa)->next) {
        allocation *a = *pa;
        if (a->ptr == ptr && (a->device < 0) == (device_or_host < 0)) {
            *pa = a->next;
            pthread_mutex_unlock(&lock);
            free(a->ptr);
            free(a);
            return OK;
        }
    }
    pthread_mutex_unlock(&lock);
    return INVALID_VALUE;
}

/* Is [p, p + n) inside one device allocation? */
static bool device_range(const void *p, size_t n) {
    bool ok = false;
    pthread_mutex_lock(&lock);
    for (allocation *a = allocations; a && !ok; a = a->next) {
        ok = a->device >= 0 && (const char *)p >= a->ptr && n <= a->size &&
             (const char *)p - a->ptr <= (ptrdiff_t)(a->size - n);
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

static void live(int delta) {
    pthread_mutex_lock(&lock);
    live_objects += delta;
    pthread_mutex_unlock(&lock);
}

/* For the tests (dlsym through dlopen(..., RTLD_NOLOAD)): what is still
 * allocated, streams, events and modules included. */
EXPORT int fakeHipLiveObjects(void);
int fakeHipLiveObjects(void) {
    pthread_mutex_lock(&lock);
    int n = live_objects;
    for (allocation *a = allocations; a; a = a->next) {
        n++;
    }
    pthread_mutex_unlock(&lock);
    return n;
}

/* Handles: one struct per object, with a tag checked at each use. */
enum { TAG_STREAM = 0x5354, TAG_EVENT = 0x4556, TAG_MODULE = 0x4d4f };
typedef struct stream {
    int tag, device;
} stream;
typedef struct event {
    int tag, device;
    long recorded; /* 0: never; else a tick */
} event;
typedef struct function {
    char name[128];
    struct module *module;
} function;
typedef struct module {
    int tag, device;
    unsigned char *image;
    size_t size;
    function functions[16];
    int nfunctions;
} module;
static long ticks;

static bool stream_ok(const void *s) {
    return !s || ((const stream *)s)->tag == TAG_STREAM;
}

/* ---- initialisation, devices ---- */

EXPORT hipError_t hipGetDeviceCount(int *count) {
    int init = env_int("FAKE_HIP_INIT", 0);
    *count = init ? 0 : device_count();
    return init ? init : *count ? OK : NO_DEVICE;
}
EXPORT hipError_t hipRuntimeGetVersion(int *v) {
    *v = version();
    return OK;
}
EXPORT hipError_t hipSetDevice(int device) {
    if (device < 0 || device >= device_count()) {
        return INVALID_DEVICE;
    }
    current = device;
    return OK;
}

/* The attribute numbers: ROCm 5.0 and later, or (libgalaxyhip, HIP
 * before 5.0) the old ones. */
static bool old_numbers(void) {
#ifdef FAKE_HIP_GALAXY
    return true;
#else
    return version() < 50000000;
#endif
}

typedef enum {
    A_THREADS,
    A_BLOCK_X,
    A_BLOCK_Y,
    A_BLOCK_Z,
    A_GRID_X,
    A_GRID_Y,
    A_GRID_Z,
    A_SHARED_BLOCK,
    A_CONSTANT,
    A_WARP,
    A_CLOCK,
    A_MEM_CLOCK,
    A_BUS,
    A_CUS,
    A_L2,
    A_SHARED_CU,
    A_ECC,
    A_COUNT
} attribute;
/* From ROCm 5.2's hip_runtime_api.h. */
static const int modern_numbers[A_COUNT] = {56, 26, 27, 28, 29, 30, 31,    74, 83,
                                            87, 5,  60, 59, 63, 19, 10002, 0};
/* From ROCm 4.5.2's. */
static const int old_numbers_table[A_COUNT] = {0, 1,  2,  3,  4,  5,  6,  7, 8,
                                               9, 11, 12, 13, 14, 16, 23, 41};
static const int values[A_COUNT] = {1024,  1024,  1024,    1024,  2147483647, 65536,
                                    65536, 65536, 65536,   64,    1700000,    1600000,
                                    4096,  -1,    8388608, 65536, 1};

EXPORT hipError_t hipDeviceGetAttribute(int *value, int attr, int device) {
    if (device < 0 || device >= device_count()) {
        return INVALID_DEVICE;
    }
    const int *numbers = old_numbers() ? old_numbers_table : modern_numbers;
    for (int a = 0; a < A_COUNT; a++) {
        if (numbers[a] == attr) {
            *value = a == A_CUS ? env_int("FAKE_HIP_CUS", 104) : values[a];
            return OK;
        }
    }
    return INVALID_VALUE; /* an attribute this numbering does not have */
}
EXPORT hipError_t hipDeviceGetName(char *name, int len, int device) {
    if (device < 0 || device >= device_count()) {
        return INVALID_DEVICE;
    }
    const char *n = getenv("FAKE_HIP_NAME");
    snprintf(name, (size_t)len, "%s", n && *n ? n : "AMD Instinct MI210 (fake)");
    return OK;
}
EXPORT hipError_t hipDeviceTotalMem(size_t *bytes, int device) {
    if (device < 0 || device >= device_count()) {
        return INVALID_DEVICE;
    }
    *bytes = device_memory();
    return OK;
}
EXPORT hipError_t hipMemGetInfo(size_t *free_bytes, size_t *total) {
    pthread_mutex_lock(&lock);
    size_t used = used_on(current);
    pthread_mutex_unlock(&lock);
    *total = device_memory();
    *free_bytes = used < *total ? *total - used : 0;
    return OK;
}

#ifndef FAKE_HIP_MINIMAL
/* hipDeviceProp_t: the 792-byte struct of HIP 4.3 to 5.x (and ROCm 6's
 * unversioned symbol), and ROCm 6's 1472-byte R0600; the fields xgpu may
 * read, at their offsets in those headers. */
static hipError_t fill_props(unsigned char *p, int device, size_t size, size_t total_off,
                             size_t cus_off, size_t arch_off) {
    if (device < 0 || device >= device_count()) {
        return INVALID_DEVICE;
    }
    memset(p, 0, size);
    hipDeviceGetName((char *)p, 256, device);
    size_t total = device_memory();
    int cus = env_int("FAKE_HIP_CUS", 104);
    memcpy(p + total_off, &total, sizeof total);
    memcpy(p + cus_off, &cus, sizeof cus);
    device_arch(device, (char *)p + arch_off, 256);
    return OK;
}

EXPORT hipError_t hipInit(unsigned flags) {
    (void)flags;
    int init = env_int("FAKE_HIP_INIT", 0);
    return init ? init : device_count() ? OK : INVALID_DEVICE;
}
EXPORT hipError_t hipDriverGetVersion(int *v) {
    *v = version();
    return OK;
}

static const struct {
    hipError_t code;
    const char *name, *text;
} errors[] = {
    {OK, "hipSuccess", "no error"},
    {INVALID_VALUE, "hipErrorInvalidValue", "invalid argument"},
    {OUT_OF_MEMORY, "hipErrorOutOfMemory", "out of memory"},
    {3, "hipErrorNotInitialized", "initialization error"},
    {35, "hipErrorInsufficientDriver", "driver version is insufficient for runtime version"},
    {NO_DEVICE, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {INVALID_DEVICE, "hipErrorInvalidDevice", "invalid device ordinal"},
    {INVALID_IMAGE, "hipErrorInvalidImage", "device kernel image is invalid"},
    {NO_BINARY_FOR_GPU, "hipErrorNoBinaryForGpu", "no kernel image is available for the GPU"},
    {PEER_UNSUPPORTED, "hipErrorPeerAccessUnsupported", "peer access is not supported"},
    {INVALID_HANDLE, "hipErrorInvalidHandle", "invalid resource handle"},
    {NOT_FOUND, "hipErrorNotFound", "named symbol not found"},
    {NOT_READY, "hipErrorNotReady", "device not ready"},
    {700, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {701, "hipErrorLaunchOutOfResources", "too many resources requested for launch"},
    {PEER_ALREADY_ENABLED, "hipErrorPeerAccessAlreadyEnabled", "peer access already enabled"},
    {719, "hipErrorLaunchFailure", "unspecified launch failure"},
};
EXPORT const char *hipGetErrorName(hipError_t e) {
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        if (errors[i].code == e) {
            return errors[i].name;
        }
    }
    return "hipErrorUnknown";
}
EXPORT const char *hipGetErrorString(hipError_t e) {
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        if (errors[i].code == e) {
            return errors[i].text;
        }
    }
    return "unknown error";
}
EXPORT hipError_t hipDeviceGetPCIBusId(char *bus, int len, int device) {
    if (device < 0 || device >= device_count()) {
        return INVALID_DEVICE;
    }
    snprintf(bus, (size_t)len, "0000:%02X:00.0", 0xC3 + device); /* upper case, as ROCm */
    return OK;
}
EXPORT hipError_t hipDeviceGetUuid(void *uuid, int device) {
    if (device < 0 || device >= device_count()) {
        return INVALID_DEVICE;
    }
    char bytes[32];
    snprintf(bytes, sizeof bytes, "fake-hip-uuid-%02d", device);
    memcpy(uuid, bytes, 16);
    return OK;
}
EXPORT hipError_t hipGetDeviceProperties(void *props, int device) {
    return fill_props(props, device, 792, 256, 336, 396);
}
#ifdef FAKE_HIP_R0600
EXPORT hipError_t hipGetDevicePropertiesR0600(void *props, int device) {
    return fill_props(props, device, 1472, 288, 388, 1160);
}
#endif
EXPORT hipError_t hipDeviceSynchronize(void) {
    return OK;
}
#endif /* !FAKE_HIP_MINIMAL */

/* ---- memory ---- */

EXPORT hipError_t hipMalloc(void **ptr, size_t size) {
    pthread_mutex_lock(&lock);
    size_t used = used_on(current);
    pthread_mutex_unlock(&lock);
    if (env_int("FAKE_HIP_OOM", 0) || size > device_memory() - used) {
        return OUT_OF_MEMORY;
    }
    return add_allocation(ptr, size, current);
}
EXPORT hipError_t hipFree(void *ptr) {
    return remove_allocation(ptr, 0);
}
EXPORT hipError_t hipHostMalloc(void **ptr, size_t size, unsigned flags) {
    (void)flags;
    return add_allocation(ptr, size, -1);
}
EXPORT hipError_t hipHostFree(void *ptr) {
    return remove_allocation(ptr, -1);
}
EXPORT hipError_t hipMemcpyHtoDAsync(void *dst, void *src, size_t n, void *s) {
    if (!device_range(dst, n) || !stream_ok(s)) {
        return INVALID_VALUE;
    }
    memcpy(dst, src, n);
    return OK;
}
EXPORT hipError_t hipMemcpyDtoHAsync(void *dst, void *src, size_t n, void *s) {
    if (!device_range(src, n) || !stream_ok(s)) {
        return INVALID_VALUE;
    }
    memcpy(dst, src, n);
    return OK;
}
EXPORT hipError_t hipMemcpyDtoDAsync(void *dst, void *src, size_t n, void *s) {
    if (!device_range(dst, n) || !device_range(src, n) || !stream_ok(s)) {
        return INVALID_VALUE;
    }
    memmove(dst, src, n);
    return OK;
}
EXPORT hipError_t hipMemsetD8Async(void *dst, unsigned char v, size_t n, void *s) {
    if (!device_range(dst, n) || !stream_ok(s)) {
        return INVALID_VALUE;
    }
    memset(dst, v, n);
    return OK;
}
#ifndef FAKE_HIP_OLD
EXPORT hipError_t hipMemsetD16Async(void *dst, unsigned short v, size_t n, void *s) {
    if (!device_range(dst, 2 * n) || !stream_ok(s)) {
        return INVALID_VALUE;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy((char *)dst + 2 * i, &v, 2);
    }
    return OK;
}
#endif
EXPORT hipError_t hipMemsetD32Async(void *dst, int v, size_t n, void *s) {
    if (!device_range(dst, 4 * n) || !stream_ok(s)) {
        return INVALID_VALUE;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy((char *)dst + 4 * i, &v, 4);
    }
    return OK;
}

#ifndef FAKE_HIP_MINIMAL
static int peer_enabled[8][8]; /* [device][peer]: device may read peer's memory */

/* Peers: every pair of two devices, unless FAKE_HIP_PEER=0. Access is
 * enabled from the current device to `peer`, as hipDeviceEnablePeerAccess
 * does; the copy checks that the destination's device may read the
 * source's. */
EXPORT hipError_t hipDeviceCanAccessPeer(int *can, int device, int peer) {
    if (device < 0 || device >= device_count() || peer < 0 || peer >= device_count()) {
        return INVALID_DEVICE;
    }
    *can = env_int("FAKE_HIP_PEER", 1) && device != peer;
    return OK;
}
EXPORT hipError_t hipDeviceEnablePeerAccess(int peer, unsigned flags) {
    (void)flags;
    if (peer < 0 || peer >= device_count() || peer == current) {
        return INVALID_DEVICE;
    }
    if (!env_int("FAKE_HIP_PEER", 1)) {
        return PEER_UNSUPPORTED;
    }
    if (peer_enabled[current][peer]) {
        return PEER_ALREADY_ENABLED;
    }
    peer_enabled[current][peer] = 1;
    return OK;
}
EXPORT hipError_t hipMemcpyPeerAsync(void *dst, int dst_device, const void *src, int src_device,
                                     size_t n, void *s) {
    if (dst_device < 0 || dst_device >= device_count() || src_device < 0 ||
        src_device >= device_count()) {
        return INVALID_DEVICE;
    }
    if (!device_range(dst, n) || !device_range(src, n) || !stream_ok(s) ||
        (dst_device != src_device && !peer_enabled[dst_device][src_device])) {
        return INVALID_VALUE; /* the backend enables access before it copies */
    }
    memcpy(dst, src, n);
    record_text("PEER %d -> %d %zu\n", src_device, dst_device, n);
    return OK;
}
#endif

/* ---- streams and events ---- */

EXPORT hipError_t hipStreamCreateWithFlags(void **s, unsigned flags) {
    (void)flags;
    stream *st = calloc(1, sizeof *st);
    if (!st) {
        return OUT_OF_MEMORY;
    }
    st->tag = TAG_STREAM;
    st->device = current;
    live(1);
    *s = st;
    return OK;
}
EXPORT hipError_t hipStreamDestroy(void *s) {
    if (!s || !stream_ok(s)) {
        return INVALID_HANDLE;
    }
    ((stream *)s)->tag = 0;
    free(s);
    live(-1);
    return OK;
}
EXPORT hipError_t hipStreamSynchronize(void *s) {
    return stream_ok(s) ? OK : INVALID_HANDLE;
}
EXPORT hipError_t hipEventCreateWithFlags(void **e, unsigned flags) {
    (void)flags;
    event *ev = calloc(1, sizeof *ev);
    if (!ev) {
        return OUT_OF_MEMORY;
    }
    ev->tag = TAG_EVENT;
    ev->device = current;
    live(1);
    *e = ev;
    return OK;
}
static event *as_event(void *e) {
    return e && ((event *)e)->tag == TAG_EVENT ? e : NULL;
}
EXPORT hipError_t hipEventRecord(void *e, void *s) {
    event *ev = as_event(e);
    if (!ev || !stream_ok(s)) {
        return INVALID_HANDLE;
    }
    pthread_mutex_lock(&lock);
    ev->recorded = ++ticks;
    pthread_mutex_unlock(&lock);
    return OK;
}
EXPORT hipError_t hipEventSynchronize(void *e) {
    event *ev = as_event(e);
    return !ev ? INVALID_HANDLE : ev->recorded ? OK : INVALID_HANDLE;
}
EXPORT hipError_t hipEventElapsedTime(float *ms, void *a, void *b) {
    event *x = as_event(a), *y = as_event(b);
    if (!x || !y || !x->recorded || !y->recorded) {
        return INVALID_HANDLE;
    }
    *ms = 0.25f * (float)(y->recorded - x->recorded);
    return OK;
}
EXPORT hipError_t hipEventDestroy(void *e) {
    event *ev = as_event(e);
    if (!ev) {
        return INVALID_HANDLE;
    }
    ev->tag = 0;
    free(ev);
    live(-1);
    return OK;
}
#ifndef FAKE_HIP_MINIMAL
EXPORT hipError_t hipStreamWaitEvent(void *s, void *e, unsigned flags) {
    (void)flags;
    return stream_ok(s) && as_event(e) ? OK : INVALID_HANDLE;
}
#endif

/* ---- modules, functions, launches ---- */

/* Code objects: a clang offload bundle (what hipcc writes: a header, then
 * for each entry its offset, size and target triple), an ELF file, or the
 * fake hiprtc's "XGPUFAKECO" text. The size comes from the image itself,
 * as the runtime must find it. */
static const char BUNDLE_MAGIC[] = "__CLANG_OFFLOAD_BUNDLE__";
static const char FAKE_CO_MAGIC[] = "XGPUFAKECO\n";

static uint64_t u64_at(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Does `target` ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", or
 * "gfx90a") name the architecture of `arch` ("gfx90a:sramecc+:xnack-")? */
static bool same_arch(const char *target, size_t n, const char *arch) {
    const char *dash = NULL;
    for (size_t i = 0; i + 1 < n; i++) {
        if (target[i] == '-' && target[i + 1] == '-') {
            dash = target + i + 2;
        }
    }
    const char *t = dash ? dash : target;
    size_t tn = (size_t)(target + n - t);
    size_t tb = strcspn(t, ":"), ab = strcspn(arch, ":");
    tb = tb < tn ? tb : tn;
    return tb == ab && !strncmp(t, arch, ab);
}

static hipError_t classify(const unsigned char *img, const char *arch, const char **kind,
                           size_t *size) {
    if (!memcmp(img, BUNDLE_MAGIC, 24)) {
        *kind = "bundle";
        uint64_t count = u64_at(img + 24), end = 0;
        const unsigned char *p = img + 32;
        bool found = false;
        for (uint64_t i = 0; i < count && i < 64; i++) {
            uint64_t off = u64_at(p), sz = u64_at(p + 8), tlen = u64_at(p + 16);
            found = found || same_arch((const char *)p + 24, (size_t)tlen, arch);
            end = off + sz > end ? off + sz : end;
            p += 24 + tlen;
        }
        *size = (size_t)end;
        return found ? OK : NO_BINARY_FOR_GPU;
    }
    if (!memcmp(img,
                "\x7f"
                "ELF",
                4) &&
        img[4] == 2) { /* ELF64 */
        *kind = "elf";
        uint64_t shoff = u64_at(img + 0x28);
        uint16_t shentsize, shnum;
        memcpy(&shentsize, img + 0x3a, 2);
        memcpy(&shnum, img + 0x3c, 2);
        *size = (size_t)(shoff + (uint64_t)shentsize * shnum);
        return OK;
    }
    if (!memcmp(img, FAKE_CO_MAGIC, sizeof FAKE_CO_MAGIC - 1)) {
        *kind = "fake";
        const char *text = (const char *)img + sizeof FAKE_CO_MAGIC - 1;
        char co_arch[64] = "";
        size_t co_size = 0;
        if (sscanf(text, "arch %63s size %zu", co_arch, &co_size) != 2) {
            return INVALID_IMAGE;
        }
        *size = (size_t)(strchr(text, '\n') - (const char *)img) + 1 + co_size;
        return same_arch(co_arch, strlen(co_arch), arch) ? OK : NO_BINARY_FOR_GPU;
    }
    *kind = "unknown";
    *size = 0;
    return INVALID_IMAGE;
}

static void record_image(const char *kind, const unsigned char *img, size_t size) {
    const char *path = getenv("FAKE_HIP_RECORD");
    FILE *f = path && *path ? fopen(path, "ab") : NULL;
    if (f) {
        fprintf(f, "IMAGE %s %zu\n", kind, size);
        fwrite(img, 1, size, f);
        fputc('\n', f);
        fclose(f);
    }
}

EXPORT hipError_t hipModuleLoadData(void **out, const void *image) {
    int fail = env_int("FAKE_HIP_MODULE_FAIL", 0);
    if (fail) {
        return fail;
    }
    char arch[64];
    device_arch(current, arch, sizeof arch);
    const char *kind = NULL;
    size_t size = 0;
    hipError_t e = classify(image, arch, &kind, &size);
    if (e != OK) {
        return e;
    }
    record_image(kind, image, size);
    module *m = calloc(1, sizeof *m);
    unsigned char *copy = malloc(size + 1);
    if (!m || !copy) {
        free(m);
        free(copy);
        return OUT_OF_MEMORY;
    }
    memcpy(copy, image, size);
    copy[size] = 0;
    m->tag = TAG_MODULE;
    m->device = current;
    m->image = copy;
    m->size = size;
    live(1);
    *out = m;
    return OK;
}
EXPORT hipError_t hipModuleUnload(void *mod) {
    module *m = mod;
    if (!m || m->tag != TAG_MODULE) {
        return INVALID_HANDLE;
    }
    m->tag = 0;
    free(m->image);
    free(m);
    live(-1);
    return OK;
}
/* A kernel is in the image when its name is: a symbol ("\0name\0") in a
 * code object, "void name(" in the fake hiprtc's. */
static bool has_kernel(const module *m, const char *name) {
    size_t n = strlen(name);
    char pattern[160];
    if (n + 8 > sizeof pattern) {
        return false;
    }
    pattern[0] = '\0';
    memcpy(pattern + 1, name, n + 1);
    if (memmem(m->image, m->size, pattern, n + 2)) {
        return true;
    }
    snprintf(pattern, sizeof pattern, "void %s(", name);
    return memmem(m->image, m->size, pattern, strlen(pattern)) != NULL;
}
EXPORT hipError_t hipModuleGetFunction(void **fn, void *mod, const char *name) {
    module *m = mod;
    if (!m || m->tag != TAG_MODULE) {
        return INVALID_HANDLE;
    }
    if (!has_kernel(m, name)) {
        return NOT_FOUND;
    }
    for (int i = 0; i < m->nfunctions; i++) {
        if (!strcmp(m->functions[i].name, name)) {
            *fn = &m->functions[i];
            return OK;
        }
    }
    if (m->nfunctions == 16) {
        return OUT_OF_MEMORY;
    }
    function *f = &m->functions[m->nfunctions++];
    snprintf(f->name, sizeof f->name, "%s", name);
    f->module = m;
    *fn = f;
    return OK;
}
#ifndef FAKE_HIP_MINIMAL
EXPORT hipError_t hipFuncGetAttribute(int *value, int attrib, void *fn) {
    if (!fn) {
        return INVALID_HANDLE;
    }
    *value = attrib == 0 ? 1024 : 0; /* max threads per block; static shared memory */
    return OK;
}
#endif
EXPORT hipError_t hipModuleLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                        void *s, void **params, void **extra) {
    (void)extra;
    function *f = fn;
    if (!f || !f->module || f->module->tag != TAG_MODULE || !stream_ok(s)) {
        return INVALID_HANDLE;
    }
    if (!gx || !gy || !gz || !bx || !by || !bz || (uint64_t)bx * by * bz > 1024 || !params) {
        return INVALID_VALUE;
    }
    if (f->module->device != current) {
        return INVALID_HANDLE; /* a module of another device */
    }
    int fail = env_int("FAKE_HIP_LAUNCH_FAIL", 0);
    if (fail) {
        return fail;
    }
    record_text("LAUNCH %s device %d grid %u,%u,%u block %u,%u,%u shared %u\n", f->name, current,
                gx, gy, gz, bx, by, bz, shared);
    return OK;
}
