/* runtime/src/lib's private declarations: what the routines share. */
#ifndef XGPU_LIB_INT_H
#define XGPU_LIB_INT_H

#include "core.h"
#include "lib.h"
#include "support.h"
#include "tunedb.h"

/* The kernel `name` of library source `source` built with `options` on
 * the context, built on first use and cached with the context, which
 * releases it. */
xgpu_status xgpu__lib_kernel(xgpu_context *ctx, const char *source, const char *options,
                             const char *name, xgpu_kernel **kernel);
/* Checks a library call's buffer: handle, context, and that `bytes` from
 * `offset` fit. */
xgpu_status xgpu__lib_check_buffer(const char *func, const char *what, const xgpu_queue *queue,
                                   const xgpu_buffer *buffer, size_t offset, size_t bytes);

#endif /* XGPU_LIB_INT_H */
