/* Library kernels built into a plugin (PTX in the CUDA plugin, code
 * object bundles in the HIP plugin), for machines with the vendor's driver
 * and no run-time compiler. A table is generated at build time by the
 * plugin's embed tool with the build machine's compiler; without one it is
 * empty and says why. Entries are found by a key over the composed source
 * (dialect prelude included) and the build options: exactly what the core
 * hands program_build. */
#ifndef XGPU_EMBEDDED_H
#define XGPU_EMBEDDED_H

#include <stdio.h>
#include <stddef.h>

typedef struct xgpu_embedded {
    const char *key;           /* hex SHA-256 of the composed source, a NUL, the options */
    const char *name;          /* "gemm", "reduce", "stream" */
    const char *options;       /* the build options the library passes */
    const unsigned char *data; /* the code, with a NUL after it */
    size_t size;               /* without that NUL */
} xgpu_embedded;

typedef struct xgpu_embedded_table {
    const xgpu_embedded *entries;
    size_t count;
    const char *about; /* "PTX for compute_75 from NVRTC 13.0", or why it is empty */
} xgpu_embedded_table;

/* The key of a composed source and its options (65 bytes with the NUL). */
void xgpu__embedded_key(const char *source, const char *options, char key[65]);
/* The built-in code for exactly this composed source and these options,
 * or NULL. */
const xgpu_embedded *xgpu__embedded_find(const xgpu_embedded_table *table, const char *source,
                                         const char *options);

/* Records the table as one of the backend's libraries for gpuinfo
 * --doctor ("built-in kernels -> the CUDA plugin: 24 library kernels as
 * ..."), when it holds any. `compiler` names what they spare ("NVRTC"). */
struct xgpu_core_services;
void xgpu__embedded_report(const struct xgpu_core_services *services, const char *backend,
                           const char *plugin, const char *compiler,
                           const xgpu_embedded_table *table);

/* For the embed tools: writes a C file defining `table_name` with these
 * entries (their data copied out), through a temporary file renamed into
 * place. 0, or -1 with a message on stderr. */
int xgpu__embedded_write(const char *path, const char *table_name, const xgpu_embedded *entries,
                         size_t count, const char *about);

#endif
