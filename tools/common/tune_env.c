#include "tune_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* auto.c's limit for XGPU_TUNE_BUDGET_S. */
#define BUDGET_MAX_S 600.0

const char *tune_env_problem(const char *name, const char *val) {
    if (!name || !val || !*val) {
        return NULL;
    }
    if (!strcmp(name, "XGPU_TUNE")) {
        static const char *const ok[] = {"on", "1", "off", "0", "auto"};
        for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
            if (!strcmp(val, ok[i])) {
                return NULL;
            }
        }
        return "is not one of on, off, auto (or 1, 0); the library would use the tuning "
               "database";
    }
    if (!strcmp(name, "XGPU_TUNE_BUDGET_S")) {
        char *end = NULL;
        double s = strtod(val, &end);
        if (end != val && !*end && s > 0 && s <= BUDGET_MAX_S) {
            return NULL;
        }
        return "is not a number of seconds in (0, 600]; the library would take 3";
    }
    return NULL;
}

int tune_env_check(char *why, size_t size) {
    static const char *const names[] = {"XGPU_TUNE", "XGPU_TUNE_BUDGET_S"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *val = getenv(names[i]);
        const char *problem = tune_env_problem(names[i], val);
        if (problem) {
            snprintf(why, size, "%s='%.40s' %s", names[i], val, problem);
            return -1;
        }
    }
    return 0;
}
