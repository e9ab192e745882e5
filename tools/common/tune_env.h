/* What the library will make of the tuning variables, for the tools to say
 * before they run: a typo in XGPU_TUNE or XGPU_TUNE_BUDGET_S is otherwise
 * a warning seen only with XGPU_LOG=warn. The values accepted are those of
 * runtime/src/tunedb/lookup.c (xgpu__tune_mode_get) and
 * runtime/src/tune/auto.c (budget_s); the three must agree. */
#ifndef XGPU_TOOLS_TUNE_ENV_H
#define XGPU_TOOLS_TUNE_ENV_H

#include <stddef.h>

/* NULL when `val` is a value the library reads for `name` (XGPU_TUNE or
 * XGPU_TUNE_BUDGET_S; any other name is NULL), else a phrase saying what
 * is wrong and what the library does instead: "not one of ...; the tuning
 * database is used". An empty value means unset. */
const char *tune_env_problem(const char *name, const char *val);

/* The first of the two variables whose value tune_env_problem refuses, as
 * "XGPU_TUNE='autoo' is not one of ..." into `why`; 0 when both are fine
 * (or unset), else -1. */
int tune_env_check(char *why, size_t size);

#endif
