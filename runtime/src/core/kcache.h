/* The persistent compiled-kernel cache (kcache.c), private to core/; the
 * cache folder's name and creation are in core.h for the tuning database. */
#ifndef XGPU_KCACHE_H
#define XGPU_KCACHE_H

#include "core.h"
#include "support.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct xgpu__kcache_key {
    unsigned char hash[XGPU__SHA256_SIZE];
    char hex[2 * XGPU__SHA256_SIZE + 1];
} xgpu__kcache_key;

/* Opens the cache folder, made if missing: XGPU_CACHE_DIR, else
 * $XDG_CACHE_HOME/xgpu, else ~/.cache/xgpu, its path written in `dir`.
 * Returns a descriptor of it, checked to be this user's folder that no one
 * else may write to, for the calls below (the caller closes it); -1 when
 * XGPU_CACHE=off (or 0), in a setuid program, when the folder cannot be
 * made or opened, or when it fails the check, `why` (may be NULL) then
 * saying which. */
int xgpu__kcache_open(char *dir, size_t size, char *why, size_t why_size);
/* XGPU_CACHE_SIZE_MB (1..1048576, default 256) in bytes. */
uint64_t xgpu__kcache_limit_bytes(void);
/* The key over `parts`, each counted with its length. */
void xgpu__kcache_key_make(xgpu__kcache_key *key, const char *const *parts, size_t count);
/* The entry's payload (malloc'ed, *size bytes), or NULL: absent, or not
 * whole and its own (then removed). A hit marks the entry recently used. */
void *xgpu__kcache_read(int dir, const xgpu__kcache_key *key, size_t *size);
/* Stores the payload atomically, then evicts the least recently used
 * entries over the limit. Failures are said at debug level, nothing more. */
void xgpu__kcache_write(int dir, const xgpu__kcache_key *key, const void *data, size_t size);
void xgpu__kcache_evict(int dir, uint64_t limit);

#endif
