/* What the library will make of the tuning variables, for the tools to say
 * before they run: a typo in XGPU_TUNE or XGPU_TUNE_BUDGET_S is otherwise
 * a warning seen only with XGPU_LOG=warn. The library judges the values
 * (xgpu_tune_setting_check); this file names the variables it reads. */
#ifndef XGPU_TOOLS_TUNE_ENV_H
#define XGPU_TOOLS_TUNE_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* Whether `name` is a tuning variable whose value `val` the library
 * refuses; then what it says of it ("XGPU_TUNE='autoo' is not one of on,
 * off, auto (or 1, 0); the tuning database is used") into `why`. False for
 * any other variable, and for a value it takes (an empty one is unset). */
bool tune_env_refused(const char *name, const char *val, char *why, size_t size);

/* The first tuning variable of the environment whose value the library
 * refuses, said into `why`; 0 when all are fine (or unset), else -1. */
int tune_env_check(char *why, size_t size);

#endif
