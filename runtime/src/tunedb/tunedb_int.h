/* runtime/src/tunedb's private declarations: what its files share and the
 * layers above never call. */
#ifndef XGPU_TUNEDB_INT_H
#define XGPU_TUNEDB_INT_H

#include "core.h"
#include "support.h"
#include "tunedb.h"

/* The entries built into the library (runtime/tune/shipped.json, embedded
 * at build time). */
extern const char xgpu__tune_shipped[];

/* The fragment GEMM's tuning (gemm_frag_tune.c): whether a GEMM dtype
 * is tuned in the fragment family (f16, bf16), its built-in values on the
 * device's own path, their validity, and the search's candidates after
 * the first n of out. */
bool xgpu__gemm_frag_dtype(xgpu_dtype dtype);
void xgpu__gemm_frag_builtin(const xgpu_device_info *info, xgpu_dtype dtype, xgpu__tune_values *v);
bool xgpu__gemm_frag_valid(xgpu_dtype dtype, const xgpu_device_info *info,
                           const xgpu__tune_values *v, char *why, size_t why_size);
size_t xgpu__gemm_frag_candidates(xgpu_dtype dtype, const xgpu_device_info *info,
                                  xgpu__tune_values *out, size_t n, size_t max);

#endif /* XGPU_TUNEDB_INT_H */
