/* Helpers shared by the CUDA and HIP backends, compiled into each plugin
 * (a plugin exports nothing but its entry point). */
#ifndef XGPU_BACKEND_UTIL_H
#define XGPU_BACKEND_UTIL_H

#include "xgpu_backend.h"

#include <pthread.h>

/* Splits `options` in place at white space into at most `max` argv
 * entries (no quoting: defines and flags hold no spaces). Returns the
 * count, or -1 when there are more than `max`. */
int xgpu__util_split_options(char *options, const char **argv, int max);

/* Local-memory arguments share a launch's dynamic shared memory: assigns
 * each XGPU_ARG_LOCAL argument a 16-byte aligned byte offset in offsets[i]
 * (XGPU_LOCAL_BIND turns it back into a pointer) and returns the total. */
size_t xgpu__util_local_layout(const xgpu_backend_arg *args, size_t count, unsigned int *offsets);

/* Something loaded on first use (a compiler library), once per backend
 * state, whatever thread asks first. */
typedef struct xgpu__util_lazy {
    pthread_mutex_t lock; /* initialised with the state (pthread_mutex_init) */
    bool tried;
    xgpu_status status;
    char reason[1024];
} xgpu__util_lazy;

/* Runs load(arg, reason, size) the first time; every call returns its
 * status, recording the reason through the core's error service on
 * failure. */
xgpu_status xgpu__util_lazy_get(xgpu__util_lazy *lazy, const xgpu_core_services *services,
                                const char *backend,
                                xgpu_status (*load)(void *arg, char *reason, size_t size),
                                void *arg);

/* Stores dlsym(lib, symbol) in a function-pointer slot (ISO C forbids
 * converting void * to a function pointer; the bytes are copied). */
void xgpu__util_bind_symbol(void *lib, const char *symbol, void *fn_slot, size_t slot_size);
/* The file the library holding `symbol` was loaded from, into out
 * (unchanged when unknown). */
void xgpu__util_loaded_path(void *lib, const char *symbol, char *out, size_t size);
/* Records a failed vendor call through the core's error service as
 * "call failed: NAME (text)detail" and returns `status`. */
xgpu_status xgpu__util_vendor_fail(const xgpu_core_services *services, const char *backend,
                                   xgpu_status status, long long code, const char *name,
                                   const char *text, const char *call, const char *detail);

#endif
