/* The registry of live handles. Every object the API hands out is entered
 * here when it is created and taken out when it is released, so that a
 * handle is checked by looking its address up, never by reading memory it
 * points to: a released, foreign or made-up pointer is refused without
 * being dereferenced.
 *
 * Released objects are not freed at once but retired into a ring of the
 * last RETIRED_MAX: their addresses stay out of malloc's hands for a while,
 * so a stale handle is recognised as released instead of aliasing a new
 * object of the same type at the same address. (Handles are plain
 * pointers, so this narrows the window rather than closing it; the ring is
 * large enough for the use-after-release patterns of real programs.)
 *
 * Cost: one mutex and one probe of an open-addressing table per handle per
 * call. */
#include "core_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RETIRED_MAX 256

typedef struct slot {
    uintptr_t key; /* 0: empty; 1: removed */
    uint32_t magic;
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot *table;
static size_t table_cap;  /* a power of two, or 0 */
static size_t table_used; /* live and removed slots */
static size_t table_live;
static void *retired[RETIRED_MAX]; /* freed when pushed out */
static size_t retired_next;
static uintptr_t released_addrs[RETIRED_MAX]; /* addresses, for "already released" */
static size_t released_next;

#define KEY_EMPTY ((uintptr_t)0)
#define KEY_REMOVED ((uintptr_t)1)

static size_t hash(uintptr_t key) {
    uint64_t x = (uint64_t)key;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

/* The slot holding key, or NULL. Lock held. */
static slot *find(uintptr_t key) {
    if (!table_cap) {
        return NULL;
    }
    size_t mask = table_cap - 1;
    for (size_t i = hash(key) & mask, n = 0; n < table_cap; i = (i + 1) & mask, n++) {
        if (table[i].key == key) {
            return &table[i];
        }
        if (table[i].key == KEY_EMPTY) {
            return NULL;
        }
    }
    return NULL;
}

static void insert_unlocked(uintptr_t key, uint32_t magic) {
    size_t mask = table_cap - 1;
    size_t i = hash(key) & mask;
    while (table[i].key != KEY_EMPTY && table[i].key != KEY_REMOVED) {
        i = (i + 1) & mask;
    }
    if (table[i].key == KEY_EMPTY) {
        table_used++;
    }
    table[i].key = key;
    table[i].magic = magic;
    table_live++;
}

/* Makes room for one more entry: rehashes into a table twice the live
 * count (at least 64), dropping removed slots. Lock held. */
static bool reserve(void) {
    if (table_cap && (table_used + 1) * 2 <= table_cap) {
        return true;
    }
    size_t cap = 64;
    while (cap < (table_live + 1) * 4) {
        cap *= 2;
    }
    slot *fresh = calloc(cap, sizeof *fresh);
    if (!fresh) {
        return false;
    }
    slot *old = table;
    size_t old_cap = table_cap;
    table = fresh;
    table_cap = cap;
    table_used = table_live = 0;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].key != KEY_EMPTY && old[i].key != KEY_REMOVED) {
            insert_unlocked(old[i].key, old[i].magic);
        }
    }
    free(old);
    return true;
}

xgpu_status xgpu__handle_add(void *object, uint32_t magic, const char *func) {
    pthread_mutex_lock(&lock);
    bool ok = reserve();
    if (ok) {
        insert_unlocked((uintptr_t)object, magic);
    }
    pthread_mutex_unlock(&lock);
    if (!ok) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: malloc failed (handle registry)",
                          func);
    }
    return XGPU_SUCCESS;
}

/* Lock held. */
static bool was_released(const void *object) {
    for (size_t i = 0; i < RETIRED_MAX; i++) {
        if (released_addrs[i] == (uintptr_t)object) {
            return true;
        }
    }
    return false;
}

static xgpu_status refuse(const void *handle, uint32_t magic, uint32_t found, bool released,
                          const char *func, const char *what) {
    (void)magic;
    if (!handle) {
        return xgpu__fail(XGPU_ERROR_INVALID_HANDLE, "%s: %s is NULL", func, what);
    }
    if (released) {
        return xgpu__fail(XGPU_ERROR_INVALID_HANDLE, "%s: %s was already released", func, what);
    }
    if (found) {
        return xgpu__fail(XGPU_ERROR_INVALID_HANDLE, "%s: %s is a handle of another type", func,
                          what);
    }
    return xgpu__fail(XGPU_ERROR_INVALID_HANDLE,
                      "%s: %s is not a live xgpu handle (never created, or released)", func, what);
}

/* The slot of a live handle, and what a miss means for the message. Lock
 * held. NULL is never in the table. */
static slot *lookup(const void *handle, uint32_t *found, bool *released) {
    slot *s = handle ? find((uintptr_t)handle) : NULL;
    *found = s ? s->magic : 0;
    *released = handle && !s && was_released(handle);
    return s;
}

/* Takes a slot's handle out of the table, remembering it as released.
 * Lock held. */
static void take_slot(slot *s, const void *handle) {
    s->key = KEY_REMOVED;
    table_live--;
    released_addrs[released_next] = (uintptr_t)handle;
    released_next = (released_next + 1) % RETIRED_MAX;
}

xgpu_status xgpu__handle_check(const void *handle, uint32_t magic, const char *func,
                               const char *what) {
    uint32_t found;
    bool released;
    pthread_mutex_lock(&lock);
    lookup(handle, &found, &released);
    pthread_mutex_unlock(&lock);
    return found == magic ? XGPU_SUCCESS : refuse(handle, magic, found, released, func, what);
}

xgpu_status xgpu__handle_take(void *handle, uint32_t magic, const char *func, const char *what) {
    uint32_t found;
    bool released;
    pthread_mutex_lock(&lock);
    slot *s = lookup(handle, &found, &released);
    if (found == magic) {
        take_slot(s, handle);
    }
    pthread_mutex_unlock(&lock);
    return found == magic ? XGPU_SUCCESS : refuse(handle, magic, found, released, func, what);
}

xgpu_status xgpu__context_pin(xgpu_context *context, const char *func) {
    uint32_t found;
    bool released;
    pthread_mutex_lock(&lock);
    lookup(context, &found, &released);
    if (found == XGPU__MAGIC_CONTEXT) {
        atomic_fetch_add(&context->live, 1);
    }
    pthread_mutex_unlock(&lock);
    return found == XGPU__MAGIC_CONTEXT
               ? XGPU_SUCCESS
               : refuse(context, XGPU__MAGIC_CONTEXT, found, released, func, "context");
}

void xgpu__context_unpin(xgpu_context *context) {
    atomic_fetch_sub(&context->live, 1);
}

xgpu_status xgpu__context_take_if_idle(xgpu_context *context, const char *func, long *live) {
    uint32_t found;
    bool released;
    *live = 0;
    pthread_mutex_lock(&lock);
    slot *s = lookup(context, &found, &released);
    if (found == XGPU__MAGIC_CONTEXT) {
        *live = atomic_load(&context->live) - atomic_load(&context->ext_objects);
        if (*live == 0) {
            take_slot(s, context);
        }
    }
    pthread_mutex_unlock(&lock);
    if (found != XGPU__MAGIC_CONTEXT) {
        return refuse(context, XGPU__MAGIC_CONTEXT, found, released, func, "context");
    }
    return *live == 0 ? XGPU_SUCCESS : XGPU_ERROR_BUSY;
}

void xgpu__handle_remove(void *handle) {
    pthread_mutex_lock(&lock);
    slot *s = find((uintptr_t)handle);
    if (s) {
        s->key = KEY_REMOVED;
        table_live--;
    }
    pthread_mutex_unlock(&lock);
}

void xgpu__handle_retire(void *object) {
    if (!object) {
        return;
    }
    pthread_mutex_lock(&lock);
    void *oldest = retired[retired_next];
    retired[retired_next] = object;
    retired_next = (retired_next + 1) % RETIRED_MAX;
    pthread_mutex_unlock(&lock);
    free(oldest);
}
