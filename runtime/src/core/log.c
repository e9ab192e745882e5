/* The xgpu log: silent unless XGPU_LOG=error|warn|info|debug asks. */
#include "core_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int log_level = -2; /* -2: not read yet; -1: off */
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

int xgpu__log_level_parse(const char *value) {
    static const struct {
        const char *name;
        int level;
    } levels[] = {{"error", XGPU_LOG_ERROR},
                  {"warn", XGPU_LOG_WARN},
                  {"info", XGPU_LOG_INFO},
                  {"debug", XGPU_LOG_DEBUG},
                  {"1", XGPU_LOG_DEBUG}};
    for (size_t i = 0; value && i < sizeof levels / sizeof levels[0]; i++) {
        if (!strcmp(value, levels[i].name)) {
            return levels[i].level;
        }
    }
    return -1;
}

static void log_init(void) {
    log_level = xgpu__log_level_parse(getenv("XGPU_LOG"));
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
