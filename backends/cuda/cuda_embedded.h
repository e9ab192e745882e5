/* The library kernels built into the CUDA plugin as PTX, for machines with
 * a driver but no NVRTC. The table is generated at build time by
 * xgpu_ptx_embed (ptx_embed.c) with the build machine's NVRTC; without
 * one it is empty and says why. */
#ifndef XGPU_CUDA_EMBEDDED_H
#define XGPU_CUDA_EMBEDDED_H

#include <stddef.h>

typedef struct cu_embedded {
    const char *key;          /* hex SHA-256 of the composed source, a NUL, the options */
    const char *name;         /* "gemm", "reduce", "stream" */
    const char *options;      /* the build options the library passes */
    const unsigned char *ptx; /* NUL-terminated */
    size_t size;              /* without the NUL */
} cu_embedded;

extern const cu_embedded cu__embedded[];
extern const size_t cu__embedded_count;
/* "PTX for compute_75 from NVRTC 13.0", or why the table is empty. */
extern const char cu__embedded_about[];

/* The key of a composed source and its options (65 bytes with the NUL). */
void cu__embedded_key(const char *source, const char *options, char key[65]);
/* The built-in PTX for exactly this composed source and these options, or
 * NULL. */
const cu_embedded *cu__embedded_find(const char *source, const char *options);

#endif
