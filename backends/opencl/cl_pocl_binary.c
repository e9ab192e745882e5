/* pocl program binaries (format versions 9 to 11: pocl 3.1 to 6.x), read
 * only as far as telling a whole one from one that lacks files:
 *
 *   "poclbin\0", u64 device id, u32 version, u32 kernels, u64 flags,
 *   u32 root entries, a 41-byte build hash, a u64 when flags & 2
 *   (program-scope variables, set from version 11 on); then per root entry a u64
 *   size and that many bytes of files, each a u32 name length, the name,
 *   a u32 content length and the content; then the kernels.
 *
 * Numbers are little-endian. */
#include "cl_pocl_binary.h"

#include <stdint.h>
#include <string.h>

#define ID "poclbin"
#define ID_SIZE 8
#define HASH_SIZE 41
#define FIRST_VERSION 9
#define LAST_VERSION 11
#define HAS_PROGRAM_SCOPE_VARS ((uint64_t)1 << 1)

typedef struct reader {
    const unsigned char *p;
    size_t left;
    bool short_read;
} reader;

static uint64_t take(reader *r, size_t bytes) {
    uint64_t v = 0;
    if (r->left < bytes) {
        r->short_read = true;
        r->left = 0;
        return 0;
    }
    for (size_t i = 0; i < bytes; i++) {
        v |= (uint64_t)r->p[i] << (8 * i);
    }
    r->p += bytes;
    r->left -= bytes;
    return v;
}

static void skip(reader *r, uint64_t bytes) {
    if (r->left < bytes) {
        r->short_read = true;
        r->left = 0;
        return;
    }
    r->p += bytes;
    r->left -= (size_t)bytes;
}

/* A root entry's files: partial when one has no content, or when they
 * do not fill the entry exactly. */
static bool entry_partial(const unsigned char *p, size_t size) {
    reader r = {p, size, false};
    while (r.left && !r.short_read) {
        skip(&r, take(&r, 4)); /* the name */
        uint64_t content = take(&r, 4);
        if (!r.short_read && content == 0) {
            return true;
        }
        skip(&r, content);
    }
    return r.short_read;
}

bool ocl__pocl_binary_partial(const void *data, size_t size) {
    reader r = {data, size, false};
    if (size < ID_SIZE || memcmp(data, ID, ID_SIZE) != 0) {
        return false;
    }
    skip(&r, ID_SIZE);
    take(&r, 8); /* device id */
    uint64_t version = take(&r, 4);
    if (r.short_read) {
        return true;
    }
    if (version < FIRST_VERSION || version > LAST_VERSION) {
        return false;
    }
    take(&r, 4); /* kernels */
    uint64_t flags = take(&r, 8);
    uint64_t roots = take(&r, 4);
    skip(&r, HASH_SIZE);
    if (flags & HAS_PROGRAM_SCOPE_VARS) {
        take(&r, 8);
    }
    if (r.short_read || roots == 0) {
        return true;
    }
    for (uint64_t i = 0; i < roots; i++) {
        uint64_t bytes = take(&r, 8);
        if (r.short_read || bytes == 0 || bytes > r.left || entry_partial(r.p, (size_t)bytes)) {
            return true;
        }
        skip(&r, bytes);
    }
    return false;
}
