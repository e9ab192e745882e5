#include "tune_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xgpu.h>

static const char *const names[] = {"XGPU_TUNE", "XGPU_TUNE_BUDGET_S"};

bool tune_env_refused(const char *name, const char *val, char *why, size_t size) {
    if (!name || !val || !*val) {
        return false;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!strcmp(name, names[i])) {
            if (xgpu_tune_setting_check(name, val) == XGPU_SUCCESS) {
                return false;
            }
            snprintf(why, size, "%s", xgpu_last_error()->message);
            return true;
        }
    }
    return false;
}

int tune_env_check(char *why, size_t size) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (tune_env_refused(names[i], getenv(names[i]), why, size)) {
            return -1;
        }
    }
    return 0;
}
