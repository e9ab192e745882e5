/* Status names and messages (from the one table in xgpu.h) and the
 * thread-local last error. */
#include "core_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct xgpu__error_state {
    xgpu_error_info info;
    char message[4096];
    char backend[32];
    char native_name[96];
} xgpu__error_state;

static _Thread_local xgpu__error_state tl_error = {{XGPU_SUCCESS, "", NULL, NULL, 0}, "", "", ""};

/* Build logs can be long: heap memory owned through a pthread key so that a
 * thread's log is freed when the thread exits. */
static pthread_key_t build_log_key;
static pthread_once_t build_log_once = PTHREAD_ONCE_INIT;

static void build_log_key_init(void) {
    (void)pthread_key_create(&build_log_key, free);
}

const char *xgpu_status_name(xgpu_status status) {
    switch (status) {
#define XGPU__STATUS_NAME(name, value, text)                                                       \
    case XGPU_##name:                                                                              \
        return "XGPU_" #name;
        XGPU_STATUS_MAP(XGPU__STATUS_NAME)
#undef XGPU__STATUS_NAME
    }
    return "XGPU_UNKNOWN_STATUS";
}

const char *xgpu_status_message(xgpu_status status) {
    switch (status) {
#define XGPU__STATUS_TEXT(name, value, text)                                                       \
    case XGPU_##name:                                                                              \
        return text;
        XGPU_STATUS_MAP(XGPU__STATUS_TEXT)
#undef XGPU__STATUS_TEXT
    }
    return "unknown status";
}

const xgpu_error_info *xgpu_last_error(void) {
    tl_error.info.message = tl_error.message;
    return &tl_error.info;
}

xgpu_status xgpu__verror(const char *backend, xgpu_status status, long long native_code,
                         const char *native_name, const char *fmt, va_list ap) {
    xgpu__error_state *e = &tl_error;
    e->info.status = status;
    e->info.native_code = native_code;
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    if (backend) {
        snprintf(e->backend, sizeof e->backend, "%s", backend);
        e->info.backend = e->backend;
    } else {
        e->info.backend = NULL;
    }
    if (native_name) {
        snprintf(e->native_name, sizeof e->native_name, "%s", native_name);
        e->info.native_name = e->native_name;
    } else {
        e->info.native_name = NULL;
    }
    e->info.message = e->message;
    xgpu__log(backend ? backend : "core", XGPU_LOG_DEBUG, "error %s: %s", xgpu_status_name(status),
              e->message);
    return status;
}

xgpu_status xgpu__error(const char *backend, xgpu_status status, long long native_code,
                        const char *native_name, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    xgpu__verror(backend, status, native_code, native_name, fmt, ap);
    va_end(ap);
    return status;
}

xgpu_status xgpu__fail(xgpu_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    xgpu__verror(NULL, status, 0, NULL, fmt, ap);
    va_end(ap);
    return status;
}

xgpu_status xgpu__check_fp64(const char *func, xgpu_dtype dtype, const xgpu_device_info *info) {
    if (dtype != XGPU_F64 || info->fp64) {
        return XGPU_SUCCESS;
    }
    return xgpu__fail(XGPU_ERROR_UNSUPPORTED, "%s: f64 on %s:%u (%s), which has no fp64", func,
                      info->backend, info->backend_index, info->name);
}

void xgpu__clear_error(void) {
    tl_error.info.status = XGPU_SUCCESS;
    tl_error.info.backend = NULL;
    tl_error.info.native_name = NULL;
    tl_error.info.native_code = 0;
    tl_error.message[0] = '\0';
}

xgpu__error_state *xgpu__error_save(void) {
    xgpu__error_state *saved = malloc(sizeof *saved);
    if (saved) {
        /* The copy's pointers still point into tl_error: right again once
         * it is copied back. */
        memcpy(saved, &tl_error, sizeof *saved);
    }
    return saved;
}

void xgpu__error_restore(xgpu__error_state *saved) {
    if (!saved) {
        xgpu__clear_error();
        return;
    }
    memcpy(&tl_error, saved, sizeof tl_error);
    free(saved);
}

void xgpu__error_discard(xgpu__error_state *saved) {
    free(saved);
}

void xgpu__set_build_log(const char *log) {
    pthread_once(&build_log_once, build_log_key_init);
    free(pthread_getspecific(build_log_key));
    char *copy = NULL;
    if (log && *log) { /* an empty log is kept as none: nothing to allocate */
        size_t n = strlen(log) + 1;
        copy = malloc(n);
        if (copy) {
            memcpy(copy, log, n);
        }
    }
    pthread_setspecific(build_log_key, copy);
}

const char *xgpu_last_build_log(void) {
    pthread_once(&build_log_once, build_log_key_init);
    const char *log = pthread_getspecific(build_log_key);
    return log ? log : "";
}

void xgpu__format_bytes(char *out, size_t out_size, unsigned long long bytes) {
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    unsigned u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    if (u == 0) {
        snprintf(out, out_size, "%llu bytes", bytes);
    } else {
        snprintf(out, out_size, "%.2f %s (%llu bytes)", v, units[u], bytes);
    }
}
