/* How closely a tuning record fits a device, and the closest record of a
 * database: the rules of the fallback (docs/tuning.md, "The lookup").
 *
 * Parameters tuned under one driver family can be far worse than the
 * built-in defaults under another (another OpenCL implementation on the
 * same CPU compiles, vectorizes and schedules the same kernel its own
 * way), so a lookup takes an entry of this device, or of a similar device
 * of the same driver family; entries of other families are warm starts
 * for the tuner only. */
#include "tunedb_int.h"

#include <string.h>

const char *xgpu__tune_level_name(xgpu__tune_level level) {
    switch (level) {
    case XGPU__TL_EXACT:
        return "this device";
    case XGPU__TL_ARCH:
        return "same arch";
    case XGPU__TL_VENDOR:
        return "same vendor";
    case XGPU__TL_WARM:
        return "another driver family";
    case XGPU__TL_NONE:
        break;
    }
    return "none";
}

bool xgpu__tune_same_key(const xgpu__tune_key *a, const xgpu__tune_key *b) {
    return !strcmp(a->backend, b->backend) && !strcmp(a->vendor, b->vendor) &&
           !strcmp(a->type, b->type) && !strcmp(a->device, b->device) &&
           !strcmp(a->arch, b->arch) && a->compute_units == b->compute_units &&
           !strcmp(a->driver, b->driver) && !strcmp(a->compiler, b->compiler) &&
           !strcmp(a->source, b->source) && !strcmp(a->xgpu, b->xgpu);
}

/* The OpenCL platform's name: the compiler identity's first field
 * ("Portable Computing Language; OpenCL 3.0 PoCL 3.1; ..."). */
static size_t platform_name_len(const char *compiler) {
    return strcspn(compiler, ";");
}

bool xgpu__tune_same_family(const xgpu__tune_key *a, const xgpu__tune_key *b) {
    if (strcmp(a->backend, b->backend) != 0) {
        return false;
    }
    /* CUDA and HIP: one driver each. OpenCL: one per platform (ICD). */
    if (strcmp(a->backend, "opencl") != 0) {
        return true;
    }
    size_t na = platform_name_len(a->compiler), nb = platform_name_len(b->compiler);
    return na == nb && !memcmp(a->compiler, b->compiler, na);
}

bool xgpu__tune_same_device(const xgpu__tune_key *a, const xgpu__tune_key *b) {
    return xgpu__tune_same_family(a, b) && !strcmp(a->device, b->device);
}

xgpu__tune_level xgpu__tune_fit(const xgpu__tune_record *rec, const xgpu__tune_key *key) {
    const xgpu__tune_key *r = &rec->key;
    /* Parameters mean what the kernel source makes of them: another
     * source, and the entry says nothing. Another device type neither. */
    if (strcmp(r->source, key->source) != 0 || strcmp(r->type, key->type) != 0) {
        return XGPU__TL_NONE;
    }
    if (xgpu__tune_same_key(r, key)) {
        return XGPU__TL_EXACT;
    }
    if (!xgpu__tune_same_family(r, key)) {
        return XGPU__TL_WARM;
    }
    if (!strcmp(r->arch, key->arch) && key->arch[0]) {
        return XGPU__TL_ARCH;
    }
    return !strcmp(r->vendor, key->vendor) ? XGPU__TL_VENDOR : XGPU__TL_WARM;
}

long xgpu__tune_db_match(const xgpu__tune_db *db, const xgpu__tune_key *key, const char *kernel,
                         const char *dtype, const char *cls, xgpu__tune_level *level,
                         bool (*accept)(const xgpu__tune_record *rec, void *user), void *user) {
    long best = -1;
    xgpu__tune_level best_level = *level < XGPU__TL_WARM ? *level : XGPU__TL_WARM;
    bool best_mine = false;
    for (size_t i = 0; i < db->n; i++) {
        const xgpu__tune_record *r = &db->recs[i];
        if (strcmp(r->kernel, kernel) || strcmp(r->dtype, dtype) || strcmp(r->cls, cls) ||
            !r->best[0]) {
            continue;
        }
        xgpu__tune_level l = xgpu__tune_fit(r, key);
        if (l >= XGPU__TL_WARM) {
            continue; /* a warm start for the tuner, never a winner */
        }
        bool mine = xgpu__tune_same_device(&r->key, key);
        /* Closer wins; within a level this device's own entry, then the
         * faster device's choice. */
        bool better =
            l < best_level ||
            (l == best_level && (best < 0 || mine > best_mine ||
                                 (mine == best_mine && r->best_rate > db->recs[best].best_rate)));
        if (better && (!accept || accept(r, user))) {
            best = (long)i;
            best_level = l;
            best_mine = mine;
        }
    }
    if (best >= 0) {
        *level = best_level;
    }
    return best;
}

bool xgpu__tune_db_has_warm(const xgpu__tune_db *db, const xgpu__tune_key *key, const char *kernel,
                            const char *dtype, const char *cls) {
    for (size_t i = 0; i < db->n; i++) {
        const xgpu__tune_record *r = &db->recs[i];
        if (!strcmp(r->kernel, kernel) && !strcmp(r->dtype, dtype) && !strcmp(r->cls, cls) &&
            r->best[0] && xgpu__tune_fit(r, key) == XGPU__TL_WARM) {
            return true;
        }
    }
    return false;
}

bool xgpu__tune_db_has_outdated(const xgpu__tune_db *db, const xgpu__tune_key *key,
                                const char *kernel, const char *dtype, const char *cls) {
    for (size_t i = 0; i < db->n; i++) {
        const xgpu__tune_record *r = &db->recs[i];
        if (!strcmp(r->kernel, kernel) && !strcmp(r->dtype, dtype) && !strcmp(r->cls, cls) &&
            r->best[0] && strcmp(r->key.source, key->source) != 0 &&
            !strcmp(r->key.type, key->type) && xgpu__tune_same_device(&r->key, key)) {
            return true;
        }
    }
    return false;
}
