/* ptxas -v on PTX without a GPU: what the compile-matrix tests of the
 * GEMM kernels share. */
#ifndef XGPU_TEST_PTXAS_RUN_H
#define XGPU_TEST_PTXAS_RUN_H

#include <stdbool.h>
#include <stddef.h>

/* What ptxas -v reports for a kernel; -1 where it says nothing. */
typedef struct usage {
    long regs, smem, spill_stores, spill_loads, stack;
} usage;

/* PTXAS when set (NULL if it is not executable), else ptxas on the PATH,
 * else /usr/local/cuda/bin/ptxas; NULL when none. */
const char *ptxas_path(void);
/* Assembles `ptx` for sm_<sm> with ptxas -v; false when ptxas fails.
 * *log (malloc'ed, may be NULL) holds its output. */
bool ptxas_assemble(const char *ptxas, const char *ptx, size_t size, int sm, usage *u, char **log);

#endif
