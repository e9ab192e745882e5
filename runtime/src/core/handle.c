/* The registry of live handles. A handle is not the object's address but
 * a slot of this table and the generation the slot was at when the object
 * was entered: (generation << INDEX_BITS) | index. Releasing an object
 * moves its slot to the next generation, so a stale handle names a slot
 * whose generation has moved on and is refused as released, for as long
 * as the process lives, however many objects come and go at the same
 * slot or the same address after it. A slot whose generation would wrap
 * is retired, never reused: no slot and generation is ever handed out
 * twice. Objects are freed as soon as they are released; the handle never
 * pointed at them, so nothing can reach freed memory through it.
 *
 * A handle is checked by looking its slot up, never by reading memory it
 * points to: NULL, made-up pointers (their index lies outside the table or
 * their generation was never issued), handles of another type and released
 * ones are refused by name.
 *
 * The table never moves: segments of doubling size, each allocated once,
 * so a check reads it without the lock (two loads of the slot's tag around
 * the load of its object, which a release and a reuse of the slot between
 * them would change). Adding, taking and the context's pin and idle check
 * hold one mutex. */
#include "core_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if UINTPTR_MAX > 0xffffffffu
#define INDEX_BITS 32
#define GEN_MAX UINT32_MAX
#else /* 32-bit pointers: a million live objects, 4095 generations a slot */
#define INDEX_BITS 20
#define GEN_MAX 4095u
#endif
#define INDEX_MASK (((uintptr_t)1 << (INDEX_BITS - 1) << 1) - 1)
/* Segment k holds SEG0 << k slots, from index SEG0 * (2^k - 1). */
#define SEG0 256u
#define SEG_COUNT 24
/* The tag of a slot: generation in the high half, the object's type in the
 * low half while it is live, FREE or RETIRED while it is not. */
#define FREE 0u
#define RETIRED 1u

typedef struct slot {
    _Atomic uint64_t tag;
    _Atomic(void *) object;
    uint32_t next_free; /* lock held; index + 1, 0 ends the list */
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(slot *) segments[SEG_COUNT];
static uint32_t fresh;     /* slots ever used: the next never-used index */
static uint32_t free_head; /* index + 1 of the first free slot, 0 when none */

static uint64_t tag_of(uint32_t gen, uint32_t magic) {
    return (uint64_t)gen << 32 | magic;
}

static uint32_t tag_gen(uint64_t tag) {
    return (uint32_t)(tag >> 32);
}

static uint32_t tag_magic(uint64_t tag) {
    return (uint32_t)tag;
}

static unsigned segment_of(uint32_t index, uint32_t *offset) {
    uint32_t j = index / SEG0 + 1; /* in [2^k, 2^(k+1)) for segment k */
    unsigned k = 0;
#if defined(__GNUC__)
    k = 31u - (unsigned)__builtin_clz(j);
#else
    while (j >> (k + 1)) {
        k++;
    }
#endif
    *offset = index - SEG0 * ((1u << k) - 1u);
    return k;
}

/* The slot at `index`, or NULL when its segment was never allocated. */
static slot *slot_at(uint32_t index) {
    uint32_t offset;
    unsigned k = segment_of(index, &offset);
    if (k >= SEG_COUNT) {
        return NULL;
    }
    slot *seg = atomic_load_explicit(&segments[k], memory_order_acquire);
    return seg ? &seg[offset] : NULL;
}

static void *handle_of(uint32_t index, uint32_t gen) {
    return (void *)((uintptr_t)gen << (INDEX_BITS - 1) << 1 | index);
}

/* A handle's index and generation; false when it cannot be one. */
static bool split(const void *handle, uint32_t *index, uint32_t *gen) {
    uintptr_t h = (uintptr_t)handle;
    *index = (uint32_t)(h & INDEX_MASK);
    uintptr_t g = h >> (INDEX_BITS - 1) >> 1;
    *gen = (uint32_t)g;
    return g != 0 && g <= GEN_MAX;
}

/* A slot for a new object: a free one, else the next never used (its
 * segment allocated on first use). Lock held. */
static slot *claim(uint32_t *index) {
    if (free_head) {
        *index = free_head - 1;
        slot *s = slot_at(*index);
        free_head = s->next_free;
        return s;
    }
    if (fresh == (uint32_t)INDEX_MASK) {
        return NULL;
    }
    uint32_t offset;
    unsigned k = segment_of(fresh, &offset);
    if (k >= SEG_COUNT) {
        return NULL;
    }
    if (!atomic_load_explicit(&segments[k], memory_order_relaxed)) {
        slot *seg = calloc((size_t)SEG0 << k, sizeof *seg);
        if (!seg) {
            return NULL;
        }
        atomic_store_explicit(&segments[k], seg, memory_order_release);
    }
    *index = fresh++;
    slot *s = slot_at(*index);
    atomic_store(&s->tag, tag_of(1, FREE));
    return s;
}

/* Ends a slot's generation: every handle of it is stale from here on.
 * Lock held. */
static void vacate(slot *s, uint32_t index) {
    uint32_t gen = tag_gen(atomic_load(&s->tag));
    if (gen == GEN_MAX) {
        atomic_store(&s->tag, tag_of(gen, RETIRED));
    } else {
        atomic_store(&s->tag, tag_of(gen + 1, FREE));
        s->next_free = free_head;
        free_head = index + 1;
    }
    atomic_store(&s->object, NULL);
}

xgpu_status xgpu__handle_add(void *object, uint32_t magic, const char *func, void **handle) {
    uint32_t index = 0;
    pthread_mutex_lock(&lock);
    slot *s = claim(&index);
    if (s) {
        uint32_t gen = tag_gen(atomic_load(&s->tag));
        atomic_store(&s->object, object);
        atomic_store(&s->tag, tag_of(gen, magic));
        *handle = handle_of(index, gen);
    }
    pthread_mutex_unlock(&lock);
    if (!s) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: malloc failed (handle registry)",
                          func);
    }
    return XGPU_SUCCESS;
}

/* The object of a live handle of type `magic`, or NULL. Without the lock:
 * the object is read between two reads of the tag, and a tag never comes
 * back once it changed, so the object read is that generation's. */
static void *find(const void *handle, uint32_t magic) {
    uint32_t index, gen;
    slot *s = split(handle, &index, &gen) ? slot_at(index) : NULL;
    if (!s) {
        return NULL;
    }
    uint64_t want = tag_of(gen, magic);
    if (atomic_load(&s->tag) != want) {
        return NULL;
    }
    void *object = atomic_load(&s->object);
    return atomic_load(&s->tag) == want ? object : NULL;
}

/* Why `handle` is not a live handle of type `magic`, as the error. */
static xgpu_status refuse(const void *handle, uint32_t magic, const char *func, const char *what) {
    if (!handle) {
        return xgpu__fail(XGPU_ERROR_INVALID_HANDLE, "%s: %s is NULL", func, what);
    }
    uint32_t index, gen;
    slot *s = split(handle, &index, &gen) ? slot_at(index) : NULL;
    uint64_t tag = s ? atomic_load(&s->tag) : 0;
    uint32_t now = tag_gen(tag), type = tag_magic(tag);
    if (s && (gen < now || (gen == now && type == RETIRED))) {
        return xgpu__fail(XGPU_ERROR_INVALID_HANDLE, "%s: %s was already released", func, what);
    }
    if (s && gen == now && type != FREE && type != magic) {
        return xgpu__fail(XGPU_ERROR_INVALID_HANDLE, "%s: %s is a handle of another type", func,
                          what);
    }
    return xgpu__fail(XGPU_ERROR_INVALID_HANDLE,
                      "%s: %s is not a live xgpu handle (never created, or released)", func, what);
}

xgpu_status xgpu__handle_get(const void *handle, uint32_t magic, const char *func, const char *what,
                             void **object) {
    *object = find(handle, magic);
    return *object ? XGPU_SUCCESS : refuse(handle, magic, func, what);
}

xgpu_status xgpu__handle_check(const void *handle, uint32_t magic, const char *func,
                               const char *what) {
    return find(handle, magic) ? XGPU_SUCCESS : refuse(handle, magic, func, what);
}

void *xgpu__handle_object(const void *handle, uint32_t magic) {
    return find(handle, magic);
}

/* The slot of a live handle of type `magic` and its object, or NULL. Lock
 * held: nothing changes the slot meanwhile. */
static slot *live_slot(const void *handle, uint32_t magic, uint32_t *index, void **object) {
    uint32_t gen;
    *object = NULL;
    slot *s = split(handle, index, &gen) ? slot_at(*index) : NULL;
    if (!s || atomic_load(&s->tag) != tag_of(gen, magic)) {
        return NULL;
    }
    *object = atomic_load(&s->object);
    return s;
}

xgpu_status xgpu__handle_take(const void *handle, uint32_t magic, const char *func,
                              const char *what, void **object) {
    uint32_t index;
    pthread_mutex_lock(&lock);
    slot *s = live_slot(handle, magic, &index, object);
    if (s) {
        vacate(s, index);
    }
    pthread_mutex_unlock(&lock);
    return s ? XGPU_SUCCESS : refuse(handle, magic, func, what);
}

void xgpu__handle_remove(const void *handle, uint32_t magic) {
    uint32_t index;
    void *object;
    pthread_mutex_lock(&lock);
    slot *s = live_slot(handle, magic, &index, &object);
    if (s) {
        vacate(s, index);
    }
    pthread_mutex_unlock(&lock);
}

xgpu_status xgpu__context_pin(const xgpu_context *context, const char *func,
                              xgpu__context **object) {
    uint32_t index;
    void *found = NULL;
    pthread_mutex_lock(&lock);
    slot *s = live_slot(context, XGPU__MAGIC_CONTEXT, &index, &found);
    if (s) {
        atomic_fetch_add(&((xgpu__context *)found)->live, 1);
    }
    pthread_mutex_unlock(&lock);
    *object = found;
    return s ? XGPU_SUCCESS : refuse(context, XGPU__MAGIC_CONTEXT, func, "context");
}

void xgpu__context_unpin(xgpu__context *context) {
    atomic_fetch_sub(&context->live, 1);
}

xgpu_status xgpu__context_take_if_idle(const xgpu_context *context, const char *func, long *live,
                                       xgpu__context **object) {
    uint32_t index;
    void *found = NULL;
    *live = 0;
    pthread_mutex_lock(&lock);
    slot *s = live_slot(context, XGPU__MAGIC_CONTEXT, &index, &found);
    if (s) {
        xgpu__context *c = found;
        *live = atomic_load(&c->live) - atomic_load(&c->ext_objects);
        if (*live == 0) {
            vacate(s, index);
        }
    }
    pthread_mutex_unlock(&lock);
    *object = found;
    if (!s) {
        return refuse(context, XGPU__MAGIC_CONTEXT, func, "context");
    }
    return *live == 0 ? XGPU_SUCCESS : XGPU_ERROR_BUSY;
}
