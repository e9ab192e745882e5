/* An LD_PRELOAD allocator shim that fails one chosen allocation made by
 * xgpu's own code (libxgpu.so and the libxgpu-*.so plugins) and counts the
 * blocks of xgpu's that are still live. Allocations made by anything else
 * (libc, the ICD loader, pocl, LLVM) pass through untouched and uncounted.
 *
 *   XGPU_FAULT_AT=N   fail the N-th allocation made by xgpu (1-based), once;
 *                     0 or unset: fail nothing, only count.
 *
 * The test program reads the counters through xgpu_fault_stats(), found
 * with dlsym. Glibc's __libc_* entry points do the real work. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);

/* ---- is a return address inside xgpu's code? (cached per call site) ---- */
#define SITE_CACHE 8192
typedef struct site {
    uintptr_t addr;
    int ours; /* 1 yes, 2 no */
} site;
static site sites[SITE_CACHE];
static atomic_flag sites_lock = ATOMIC_FLAG_INIT;
static _Thread_local int in_shim;

static bool named_xgpu(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libxgpu", 7) == 0;
}

static bool from_xgpu(void *ret) {
    uintptr_t a = (uintptr_t)ret;
    size_t i = (a >> 2) % SITE_CACHE;
    while (atomic_flag_test_and_set_explicit(&sites_lock, memory_order_acquire)) {
    }
    int known = sites[i].addr == a ? sites[i].ours : 0;
    atomic_flag_clear_explicit(&sites_lock, memory_order_release);
    if (known) {
        return known == 1;
    }
    Dl_info info;
    bool ours = dladdr(ret, &info) && info.dli_fname && named_xgpu(info.dli_fname);
    while (atomic_flag_test_and_set_explicit(&sites_lock, memory_order_acquire)) {
    }
    sites[i].addr = a;
    sites[i].ours = ours ? 1 : 2;
    atomic_flag_clear_explicit(&sites_lock, memory_order_release);
    return ours;
}

/* ---- live blocks of xgpu's: an open-addressing set in mmap'ed memory ---- */
#define LIVE_CAP (1u << 20)
static uintptr_t *live; /* 0 empty, 1 removed */
static atomic_flag live_lock = ATOMIC_FLAG_INIT;
static long live_count;

static void live_lock_take(void) {
    while (atomic_flag_test_and_set_explicit(&live_lock, memory_order_acquire)) {
    }
}
static void live_lock_give(void) {
    atomic_flag_clear_explicit(&live_lock, memory_order_release);
}

static size_t slot_of(uintptr_t p) {
    uint64_t x = p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)(x & (LIVE_CAP - 1));
}

static void live_add(void *ptr) {
    if (!ptr) {
        return;
    }
    live_lock_take();
    if (!live) {
        void *m = mmap(NULL, LIVE_CAP * sizeof *live, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        live = m == MAP_FAILED ? NULL : m;
    }
    if (live) {
        size_t i = slot_of((uintptr_t)ptr);
        while (live[i] > 1) {
            i = (i + 1) & (LIVE_CAP - 1);
        }
        live[i] = (uintptr_t)ptr;
        live_count++;
    }
    live_lock_give();
}

static void live_remove(void *ptr) {
    if (!ptr) {
        return;
    }
    live_lock_take();
    if (live) {
        size_t i = slot_of((uintptr_t)ptr);
        for (size_t n = 0; live[i] != 0 && n < LIVE_CAP; n++) {
            if (live[i] == (uintptr_t)ptr) {
                live[i] = 1;
                live_count--;
                break;
            }
            i = (i + 1) & (LIVE_CAP - 1);
        }
    }
    live_lock_give();
}

/* ---- the failure countdown ---- */
static atomic_long counted;
static atomic_long failed_at;
static long fail_at = -1; /* -1: not read yet */

static long target(void) {
    if (fail_at < 0) {
        const char *v = getenv("XGPU_FAULT_AT");
        fail_at = v ? strtol(v, NULL, 10) : 0;
    }
    return fail_at;
}

/* Counts an allocation by xgpu; true when this one must fail. */
static bool must_fail(void *ret) {
    if (in_shim) {
        return false;
    }
    in_shim = 1;
    bool ours = from_xgpu(ret);
    bool fail = false;
    if (ours) {
        long n = atomic_fetch_add(&counted, 1) + 1;
        fail = n == target();
        if (fail) {
            atomic_store(&failed_at, n);
        }
    }
    in_shim = 0;
    return fail;
}

static bool ours_quiet(void *ret) {
    if (in_shim) {
        return false;
    }
    in_shim = 1;
    bool ours = from_xgpu(ret);
    in_shim = 0;
    return ours;
}

__attribute__((visibility("default"))) void *malloc(size_t size) {
    void *ret = __builtin_return_address(0);
    if (must_fail(ret)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = __libc_malloc(size);
    if (ours_quiet(ret)) {
        live_add(p);
    }
    return p;
}

__attribute__((visibility("default"))) void *calloc(size_t n, size_t size) {
    void *ret = __builtin_return_address(0);
    if (must_fail(ret)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = __libc_calloc(n, size);
    if (ours_quiet(ret)) {
        live_add(p);
    }
    return p;
}

__attribute__((visibility("default"))) void *realloc(void *ptr, size_t size) {
    void *ret = __builtin_return_address(0);
    if (must_fail(ret)) {
        errno = ENOMEM;
        return NULL;
    }
    bool ours = ours_quiet(ret);
    void *p = __libc_realloc(ptr, size);
    if (p) {
        live_remove(ptr);
        if (ours) {
            live_add(p);
        }
    }
    return p;
}

__attribute__((visibility("default"))) char *strdup(const char *s) {
    void *ret = __builtin_return_address(0);
    if (must_fail(ret)) {
        errno = ENOMEM;
        return NULL;
    }
    size_t n = strlen(s) + 1;
    char *p = __libc_malloc(n);
    if (p) {
        memcpy(p, s, n);
        if (ours_quiet(ret)) {
            live_add(p);
        }
    }
    return p;
}

__attribute__((visibility("default"))) void free(void *ptr) {
    if (ptr) {
        live_remove(ptr);
    }
    __libc_free(ptr);
}

/* Allocations xgpu made so far, live blocks of xgpu's, and which one
 * failed (0: none). */
__attribute__((visibility("default"))) void xgpu_fault_stats(long *allocations, long *live_blocks,
                                                             long *failed);
void xgpu_fault_stats(long *allocations, long *live_blocks, long *failed) {
    live_lock_take();
    *live_blocks = live_count;
    live_lock_give();
    *allocations = atomic_load(&counted);
    *failed = atomic_load(&failed_at);
}
