/* Which parameters a library call uses: the closest entry of the user's
 * tuning database or of the one built into the library, else the built-in
 * default. Each context remembers its choices; the databases are read for
 * a context's first call of a kind (again after a tune stores results),
 * and nothing of them stays allocated. */
#define _GNU_SOURCE
#include "tunedb_int.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bumped by every tune that stores a result: contexts choose again. */
static atomic_uint generation = 1;

static pthread_once_t source_once = PTHREAD_ONCE_INIT;
static char source_hash[XGPU__TK_COUNT][20];

static void hash_sources(void) {
    for (int id = 0; id < XGPU__TK_COUNT; id++) {
        const char *src = id == XGPU__TK_GEMM     ? xgpu__kernel_gemm
                          : id == XGPU__TK_STREAM ? xgpu__kernel_stream
                                                  : xgpu__kernel_reduce;
        xgpu__sha256_state s;
        unsigned char h[XGPU__SHA256_SIZE];
        xgpu__sha256_init(&s);
        xgpu__sha256_update(&s, xgpu__prelude, strlen(xgpu__prelude));
        xgpu__sha256_update(&s, xgpu__fragment, strlen(xgpu__fragment));
        xgpu__sha256_update(&s, src, strlen(src));
        xgpu__sha256_final(&s, h);
        for (int i = 0; i < 8; i++) {
            snprintf(source_hash[id] + 2 * i, 3, "%02x", h[i]);
        }
    }
}

const char *xgpu__tune_source_hash(xgpu__tune_kernel_id id) {
    pthread_once(&source_once, hash_sources);
    return (int)id >= 0 && id < XGPU__TK_COUNT ? source_hash[id] : "";
}

static const char *type_name(xgpu_device_type t) {
    switch (t) {
    case XGPU_DEVICE_TYPE_CPU:
        return "cpu";
    case XGPU_DEVICE_TYPE_GPU:
        return "gpu";
    case XGPU_DEVICE_TYPE_ACCELERATOR:
        return "accel";
    default:
        return "other";
    }
}

void xgpu__tune_key_of(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu__tune_key *key) {
    const xgpu_device_info *info = xgpu__context_info(ctx);
    *key = (xgpu__tune_key){0};
    snprintf(key->backend, sizeof key->backend, "%s", info->backend);
    snprintf(key->vendor, sizeof key->vendor, "%s", info->vendor);
    snprintf(key->type, sizeof key->type, "%s", type_name(info->type));
    snprintf(key->device, sizeof key->device, "%s", info->name);
    snprintf(key->arch, sizeof key->arch, "%s", info->arch);
    key->compute_units = info->compute_units;
    snprintf(key->driver, sizeof key->driver, "%s", info->driver_version);
    /* The compiler: what the kernel cache keys on (NVRTC, hiprtc or the
     * OpenCL platform's versions), else the language version. */
    char identity[512] = "";
    xgpu__context_build_identity(ctx, identity, sizeof identity);
    snprintf(key->compiler, sizeof key->compiler, "%s",
             identity[0] ? identity : info->language_version);
    snprintf(key->source, sizeof key->source, "%s", xgpu__tune_source_hash(id));
    snprintf(key->xgpu, sizeof key->xgpu, "%s", xgpu_version_string());
}

/* Both databases, read afresh: a context asks once per kernel, dtype and
 * class, and nothing stays allocated between lookups. */
static void load(xgpu__tune_db *user, xgpu__tune_db *shipped) {
    char path[XGPU__KCACHE_PATH_MAX], why[400] = "";
    *user = (xgpu__tune_db){0};
    if (xgpu__tune_db_path(path, sizeof path, why, sizeof why) &&
        xgpu__tune_db_load(path, false, user, why, sizeof why) != XGPU__DB_OK) {
        xgpu__log("tune", XGPU_LOG_WARN, "tuning database not used: %s", why);
    }
    if (!xgpu__tune_db_parse(xgpu__tune_shipped, strlen(xgpu__tune_shipped), false, shipped, why,
                             sizeof why)) {
        xgpu__log("tune", XGPU_LOG_WARN, "the built-in tuning entries are not used: %s", why);
    }
}

void xgpu__tune_forget(void) {
    atomic_fetch_add(&generation, 1);
}

/* XGPU_TUNE: unset, empty, on or 1 (the database), off or 0 (built-in
 * parameters), auto (a quick tune at first use). Anything else keeps the
 * database, with a warning once per process: XGPU_TUNE=Off or =false
 * tunes, it does not silently mean off. */
xgpu__tune_mode xgpu__tune_mode_get(void) {
    static atomic_flag warned = ATOMIC_FLAG_INIT;
    const char *v = getenv("XGPU_TUNE");
    xgpu__tune_mode mode;
    if (!xgpu__tune_mode_parse(v, &mode) && !atomic_flag_test_and_set(&warned)) {
        xgpu__log("tune", XGPU_LOG_WARN, "XGPU_TUNE='%.40s' %s", v,
                  xgpu__tune_setting_refusal("XGPU_TUNE"));
    }
    return mode;
}

/* Set once, by a constructor of the tuner, before any context exists. */
static xgpu__tune_auto_fn auto_fn;

void xgpu__tune_set_auto(xgpu__tune_auto_fn fn) {
    auto_fn = fn;
}

/* What the lookup's accept callback needs, and where it leaves the
 * accepted record's values. */
typedef struct suits {
    xgpu__tune_kernel_id id;
    xgpu_dtype dtype;
    const xgpu_device_info *info;
    xgpu__tune_values values;
} suits;

static bool suits_device(const xgpu__tune_record *r, void *user) {
    suits *u = user;
    char why[200];
    xgpu__tune_values v;
    if (!xgpu__tune_parse(u->id, r->best, &v, why, sizeof why) ||
        !xgpu__tune_valid(u->id, u->dtype, u->info, &v, why, sizeof why)) {
        xgpu__log("tune", XGPU_LOG_DEBUG, "%s %s %s: entry of %s not used: %s", r->kernel, r->dtype,
                  r->cls, r->key.device, why);
        return false;
    }
    u->values = v;
    return true;
}

void xgpu__tune_pick(const xgpu__tune_key *key, const xgpu_device_info *info,
                     xgpu__tune_kernel_id id, xgpu_dtype dtype, xgpu__tune_class cls,
                     const xgpu__tune_db *user_db, const xgpu__tune_db *shipped_db,
                     xgpu__tune_choice *out) {
    const char *kname = xgpu__tune_kernel_get(id)->name, *dname = xgpu_dtype_name(dtype);
    const char *cname = xgpu__tune_class_name(cls);
    const xgpu__tune_db *dbs[2] = {user_db, shipped_db};
    *out = (xgpu__tune_choice){.source = "built-in default", .level = XGPU__TL_NONE};
    /* The closest entry that suits the device (a group too large, say,
     * gives way to the next); the user's database wins ties. */
    const xgpu__tune_record *best = NULL;
    xgpu__tune_level best_level = XGPU__TL_NONE;
    for (int d = 0; d < 2; d++) {
        suits u = {id, dtype, info, {{0}}};
        xgpu__tune_level level = best_level;
        long i = xgpu__tune_db_match(dbs[d], key, kname, dname, cname, &level, suits_device, &u);
        if (i < 0 || level >= best_level) {
            continue;
        }
        best = &dbs[d]->recs[i];
        best_level = level;
        out->values = u.values;
        out->shipped = d == 1;
    }
    if (!best) {
        out->outdated = xgpu__tune_db_has_outdated(user_db, key, kname, dname, cname) ||
                        xgpu__tune_db_has_outdated(shipped_db, key, kname, dname, cname);
        out->warm_only = xgpu__tune_db_has_warm(user_db, key, kname, dname, cname) ||
                         xgpu__tune_db_has_warm(shipped_db, key, kname, dname, cname);
        if (out->outdated) {
            xgpu__log("tune", XGPU_LOG_INFO,
                      "%s %s %s: %s's entries were made with other kernel sources (another "
                      "xgpu's tune): the built-in default runs; gpubench tune measures again",
                      kname, dname, cname, key->device);
        } else if (out->warm_only) {
            xgpu__log("tune", XGPU_LOG_DEBUG,
                      "%s %s %s: only entries of other driver families fit %s: the built-in "
                      "default runs (they are warm starts for a tune)",
                      kname, dname, cname, key->device);
        }
        xgpu__tune_builtin(id, dtype, cls, info, &out->values);
        return;
    }
    out->source = "tuned";
    out->level = best_level;
    out->stale = best_level != XGPU__TL_EXACT && xgpu__tune_same_device(&best->key, key);
    out->auto_tuned = best->auto_tuned && !out->shipped;
    out->rate = best->best_rate;
    snprintf(out->unit, sizeof out->unit, "%s", best->unit);
}

/* The databases' choice, or the built-in default. */
static void from_db(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                    xgpu__tune_class cls, xgpu__tune_choice *out) {
    xgpu__tune_db user_db, shipped_db;
    load(&user_db, &shipped_db);
    xgpu__tune_key key;
    xgpu__tune_key_of(ctx, id, &key);
    xgpu__tune_pick(&key, xgpu__context_info(ctx), id, dtype, cls, &user_db, &shipped_db, out);
    xgpu__tune_db_free(&user_db);
    xgpu__tune_db_free(&shipped_db);
}

/* A thread that runs a quick tune asks no more (the tuner's own runs
 * pass their parameters; this is a guard). */
static _Thread_local bool in_auto;

/* XGPU_TUNE=auto and no exact entry: a quick tune, then the lookup again.
 * A failed tune leaves the choice as it was. */
static void maybe_auto(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                       xgpu__tune_class cls, xgpu__tune_choice *out) {
    if (out->level == XGPU__TL_EXACT || !auto_fn || in_auto) {
        return;
    }
    in_auto = true;
    bool stored = auto_fn(ctx, id, dtype, cls);
    in_auto = false;
    if (stored) {
        from_db(ctx, id, dtype, cls, out);
    }
}

void xgpu__tune_memo_init(xgpu__tune_memo_set *set) {
    pthread_mutex_init(&set->lock, NULL);
    set->count = 0;
}

void xgpu__tune_memo_destroy(xgpu__tune_memo_set *set) {
    pthread_mutex_destroy(&set->lock);
}

static void choose(xgpu_context *ctx, xgpu__tune_memo_set *memo, xgpu__tune_kernel_id id,
                   xgpu_dtype dtype, xgpu__tune_class cls, xgpu__tune_choice *out, bool may_tune) {
    unsigned gen = atomic_load(&generation);
    pthread_mutex_lock(&memo->lock);
    for (size_t i = 0; i < memo->count; i++) {
        const xgpu__tune_memo *m = &memo->memo[i];
        if (m->id == id && m->dtype == dtype && m->cls == cls && m->generation == gen) {
            *out = m->choice;
            pthread_mutex_unlock(&memo->lock);
            return;
        }
    }
    pthread_mutex_unlock(&memo->lock);

    xgpu__tune_mode mode = xgpu__tune_mode_get();
    if (mode == XGPU__TUNE_OFF) {
        *out = (xgpu__tune_choice){
            .source = "built-in default (XGPU_TUNE=off)", .level = XGPU__TL_NONE, .off = true};
        xgpu__tune_builtin(id, dtype, cls, xgpu__context_info(ctx), &out->values);
    } else {
        from_db(ctx, id, dtype, cls, out);
        if (mode == XGPU__TUNE_AUTO && may_tune) {
            maybe_auto(ctx, id, dtype, cls, out);
            gen = atomic_load(&generation); /* a stored tune bumped it */
        } else if (mode == XGPU__TUNE_AUTO && out->level != XGPU__TL_EXACT) {
            return; /* not remembered: the first call still tunes */
        }
    }

    pthread_mutex_lock(&memo->lock);
    size_t slot = memo->count;
    for (size_t i = 0; i < memo->count; i++) {
        const xgpu__tune_memo *m = &memo->memo[i];
        if (m->id == id && m->dtype == dtype && m->cls == cls) {
            slot = i; /* an older generation's */
        }
    }
    if (slot < XGPU__TUNE_MEMO_MAX) {
        memo->memo[slot] = (xgpu__tune_memo){id, dtype, cls, gen, *out};
        memo->count += slot == memo->count;
    }
    pthread_mutex_unlock(&memo->lock);
}

void xgpu__tune_choose(xgpu_context *ctx, xgpu__tune_memo_set *memo, xgpu__tune_kernel_id id,
                       xgpu_dtype dtype, xgpu__tune_class cls, xgpu__tune_choice *out) {
    choose(ctx, memo, id, dtype, cls, out, true);
}

void xgpu__tune_peek(xgpu_context *ctx, xgpu__tune_memo_set *memo, xgpu__tune_kernel_id id,
                     xgpu_dtype dtype, xgpu__tune_class cls, xgpu__tune_choice *out) {
    choose(ctx, memo, id, dtype, cls, out, false);
}
