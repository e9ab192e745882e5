/* Helpers shared by the CUDA and HIP backends, compiled into each plugin
 * (a plugin exports nothing but its entry point). */
#ifndef XGPU_BACKEND_UTIL_H
#define XGPU_BACKEND_UTIL_H

#include "xgpu_backend.h"

/* Splits `options` in place at white space into at most `max` argv
 * entries (no quoting: defines and flags hold no spaces). Returns the
 * count, or -1 when there are more than `max`. */
int xgpu_util_split_options(char *options, const char **argv, int max);

/* Local-memory arguments share a launch's dynamic shared memory: assigns
 * each XGPU_ARG_LOCAL argument a 16-byte aligned byte offset in offsets[i]
 * (XGPU_LOCAL_BIND turns it back into a pointer) and returns the total. */
size_t xgpu_util_local_layout(const xgpu_backend_arg *args, size_t count, unsigned int *offsets);

#endif
