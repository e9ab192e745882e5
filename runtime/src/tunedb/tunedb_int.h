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

#endif /* XGPU_TUNEDB_INT_H */
