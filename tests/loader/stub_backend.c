/* A stub backend for the loader tests. STUB_MODE_<X> picks what it does
 * wrong; STUB_MODE_OK is a well-formed backend with one fake device whose
 * operations all report XGPU_ERROR_UNSUPPORTED. */
#define _GNU_SOURCE
#include "xgpu_backend.h"

#include <stdio.h>
#include <string.h>

#if defined(STUB_MODE_SIGSTACK)
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

/* Like LLVM inside pocl: the probe installs a malloc'd alternate signal
 * stack on the thread that runs it. A thread-exit destructor records which
 * stack the thread ends with, for the loader test to read. */
__attribute__((visibility("default"))) void *stub_sigstack_installed;
__attribute__((visibility("default"))) void *stub_sigstack_at_exit;
__attribute__((visibility("default"))) int stub_sigstack_exits;
static pthread_key_t exit_key;

static void at_thread_exit(void *unused) {
    (void)unused;
    stack_t now;
    if (sigaltstack(NULL, &now) == 0) {
        stub_sigstack_at_exit = (now.ss_flags & SS_DISABLE) ? NULL : now.ss_sp;
    }
    stub_sigstack_exits++;
}

static void install_sigstack(void) {
    static char *stack; /* kept, as LLVM keeps its own */
    if (!stack) {
        stack = malloc(1 << 16);
        pthread_key_create(&exit_key, at_thread_exit);
    }
    stack_t s = {.ss_sp = stack, .ss_size = 1 << 16, .ss_flags = 0};
    if (stack && sigaltstack(&s, NULL) == 0) {
        stub_sigstack_installed = stack;
        pthread_setspecific(exit_key, stack);
    }
}
#endif

static const xgpu_core_services *svc;

static xgpu_status unsupported(void) {
    return svc->error(STUB_NAME, XGPU_ERROR_UNSUPPORTED, 0, NULL, "stub backend");
}

static xgpu_status stub_probe(const xgpu_core_services *services, void **state, char *reason,
                              size_t reason_size) {
    svc = services;
    *state = NULL;
#if defined(STUB_MODE_PROBE)
    snprintf(reason, reason_size, "stub driver library libstub.so.1 not found");
    return XGPU_ERROR_BACKEND_UNAVAILABLE;
#else
    (void)reason;
    (void)reason_size;
#if defined(STUB_MODE_SIGSTACK)
    install_sigstack();
#endif
    return XGPU_SUCCESS;
#endif
}

static uint32_t stub_device_count(void *state) {
    (void)state;
#if defined(STUB_MODE_ZERO)
    return 0;
#elif defined(STUB_MODE_HUGE)
    return 0x80000000u; /* two of these would wrap a uint32 total */
#else
    return 1;
#endif
}

static xgpu_status stub_device_info(void *state, uint32_t index, xgpu_device_info *info) {
    (void)state;
    snprintf(info->name, sizeof info->name, "stub device %u", index);
    snprintf(info->vendor, sizeof info->vendor, "xgpu tests");
    info->global_mem_bytes = 1 << 20;
    return XGPU_SUCCESS;
}

static xgpu_status stub_context_create(void *state, uint32_t index, void **context) {
    (void)state, (void)index, (void)context;
    return unsupported();
}
static void stub_release(void *object) {
    (void)object;
}
static xgpu_status stub_queue_create(void *context, void **queue) {
    (void)context, (void)queue;
    return unsupported();
}
static xgpu_status stub_one(void *object) {
    (void)object;
    return unsupported();
}
static xgpu_status stub_buffer_create(void *context, size_t size, void **buffer) {
    (void)context, (void)size, (void)buffer;
    return unsupported();
}
static xgpu_status stub_write(void *q, void *b, size_t o, const void *s, size_t n, bool bl,
                              void **e) {
    (void)q, (void)b, (void)o, (void)s, (void)n, (void)bl, (void)e;
    return unsupported();
}
static xgpu_status stub_read(void *q, void *b, size_t o, void *d, size_t n, bool bl, void **e) {
    (void)q, (void)b, (void)o, (void)d, (void)n, (void)bl, (void)e;
    return unsupported();
}
static xgpu_status stub_copy(void *q, void *s, size_t so, void *d, size_t dof, size_t n, void **e) {
    (void)q, (void)s, (void)so, (void)d, (void)dof, (void)n, (void)e;
    return unsupported();
}
static xgpu_status stub_build(void *c, const char *s, const char *o, void **p, char **l) {
    (void)c, (void)s, (void)o, (void)p, (void)l;
    return unsupported();
}
static xgpu_status stub_kernel(void *p, const char *n, void **k, xgpu_kernel_props *props) {
    (void)p, (void)n, (void)k, (void)props;
    return unsupported();
}
__attribute__((unused)) static xgpu_status
stub_launch(void *q, void *k, const xgpu_range *r, size_t n, const xgpu_backend_arg *a, void **e) {
    (void)q, (void)k, (void)r, (void)n, (void)a, (void)e;
    return unsupported();
}
static xgpu_status stub_record(void *q, void **e) {
    (void)q, (void)e;
    return unsupported();
}
static xgpu_status stub_wait_event(void *q, void *e) {
    (void)q, (void)e;
    return unsupported();
}
static xgpu_status stub_elapsed(void *a, void *b, double *ms) {
    (void)a, (void)b, (void)ms;
    return unsupported();
}

static const xgpu_backend_ops stub_ops = {
#if defined(STUB_MODE_OLD)
    /* Built before queue_wait_event was appended: its table ends at the
     * version-1 hooks. The pointer past the end must not be read. */
    .size = offsetof(xgpu_backend_ops, queue_wait_event),
#else
    .size = sizeof(xgpu_backend_ops),
#endif
    .abi_version = 1,
#if defined(STUB_MODE_NAME)
    .name = "somethingelse",
#else
    .name = STUB_NAME,
#endif
    .dialect = XGPU_DIALECT_OPENCL,
    .probe = stub_probe,
    .device_count = stub_device_count,
    .device_info = stub_device_info,
    .context_create = stub_context_create,
    .context_release = stub_release,
    .queue_create = stub_queue_create,
    .queue_release = stub_release,
    .queue_finish = stub_one,
    .buffer_create = stub_buffer_create,
    .buffer_release = stub_release,
    .buffer_write = stub_write,
    .buffer_read = stub_read,
    .buffer_copy = stub_copy,
    .program_build = stub_build,
    .program_release = stub_release,
    .kernel_create = stub_kernel,
    .kernel_release = stub_release,
#if !defined(STUB_MODE_HOOK)
    .launch = stub_launch,
#endif
    .queue_record_event = stub_record,
    .event_wait = stub_one,
    .event_elapsed_ms = stub_elapsed,
    .event_release = stub_release,
    .queue_wait_event = stub_wait_event,
};

#if !defined(STUB_MODE_NOENTRY)
__attribute__((visibility("default"))) xgpu_status xgpu_backend_entry(const xgpu_negotiate_in *in,
                                                                      xgpu_negotiate_out *out);

xgpu_status xgpu_backend_entry(const xgpu_negotiate_in *in, xgpu_negotiate_out *out) {
#if defined(STUB_MODE_REFUSE)
    /* A backend that needs a newer core than this one. */
    if (in->core_abi_version < 1000) {
        return in->services->error(STUB_NAME, XGPU_ERROR_ABI_MISMATCH, 0, NULL,
                                   "stubrefuse needs ABI version 1000, the core speaks %u",
                                   in->core_abi_version);
    }
#endif
#if defined(STUB_MODE_ABI)
    out->abi_version = 99; /* answers a version the core never offered */
#else
    out->abi_version = 1;
#endif
    (void)in;
    out->ops = &stub_ops;
    return XGPU_SUCCESS;
}
#else
/* Exports something, but not the entry point. */
__attribute__((visibility("default"))) const void *xgpu_backend_entry_misspelt(void);
const void *xgpu_backend_entry_misspelt(void) {
    return &stub_ops;
}
#endif
