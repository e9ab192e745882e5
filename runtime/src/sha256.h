/* SHA-256, incremental and one-shot. */
#ifndef XGPU_SHA256_H
#define XGPU_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define XGPU__SHA256_SIZE 32

typedef struct xgpu__sha256_state {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char buf[64];
    size_t used;
} xgpu__sha256_state;

void xgpu__sha256_init(xgpu__sha256_state *s);
void xgpu__sha256_update(xgpu__sha256_state *s, const void *data, size_t size);
void xgpu__sha256_final(xgpu__sha256_state *s, unsigned char out[XGPU__SHA256_SIZE]);
void xgpu__sha256(const void *data, size_t size, unsigned char out[XGPU__SHA256_SIZE]);

#endif
