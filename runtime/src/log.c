/* The xgpu log: silent unless XGPU_LOG=error|warn|info|debug asks. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int log_level = -2; /* -2: not read yet; -1: off */
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void log_init(void) {
    const char *v = getenv("XGPU_LOG");
    int level = -1;
    if (v) {
        if (!strcmp(v, "error")) {
            level = XGPU_LOG_ERROR;
        } else if (!strcmp(v, "warn")) {
            level = XGPU_LOG_WARN;
        } else if (!strcmp(v, "info")) {
            level = XGPU_LOG_INFO;
        } else if (!strcmp(v, "debug") || !strcmp(v, "1")) {
            level = XGPU_LOG_DEBUG;
        }
    }
    log_level = level;
}

bool xgpu__log_enabled(int level) {
    pthread_once(&log_once, log_init);
    return level <= log_level;
}

void xgpu__vlog(const char *who, int level, const char *fmt, va_list ap) {
    static const char *const names[] = {"error", "warn", "info", "debug"};
    if (!xgpu__log_enabled(level)) {
        return;
    }
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "xgpu[%s] %s: %s\n", who ? who : "core",
            names[level < 0 ? 0 : (level > 3 ? 3 : level)], line);
}

void xgpu__log(const char *who, int level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    xgpu__vlog(who, level, fmt, ap);
    va_end(ap);
}
