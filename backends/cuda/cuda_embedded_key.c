/* The key of a built-in library kernel: the same at build time (the table)
 * and at run time (the lookup). */
#include "cuda_embedded.h"
#include "sha256.h"

#include <string.h>

void cu__embedded_key(const char *source, const char *options, char key[65]) {
    xgpu__sha256_state s;
    unsigned char h[XGPU__SHA256_SIZE];
    xgpu__sha256_init(&s);
    xgpu__sha256_update(&s, source, strlen(source) + 1); /* with its NUL */
    xgpu__sha256_update(&s, options, strlen(options));
    xgpu__sha256_final(&s, h);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < XGPU__SHA256_SIZE; i++) {
        key[2 * i] = hex[h[i] >> 4];
        key[2 * i + 1] = hex[h[i] & 15];
    }
    key[64] = '\0';
}
