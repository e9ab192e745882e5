/* The reference table of GPU models: the shipped references.json
 * (compiled in by cmake/EmbedFile.cmake), and a user's file over it. Each
 * member is checked for its type; a wrong type is an error naming the
 * model and the member, never a silent zero. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const char gc_references_json[];

/* A number member: NAN when absent or null; -1 with why when another type. */
static int num(const cJSON *o, const char *key, double *out, const char *where, char *why,
               size_t why_size) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NAN;
    if (!v || cJSON_IsNull(v)) {
        return 0;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0) {
        snprintf(why, why_size, "%s: \"%s\" is not a number of zero or more", where, key);
        return -1;
    }
    *out = v->valuedouble;
    return 0;
}

static int whole(const cJSON *o, const char *key, int *out, const char *where, char *why,
                 size_t why_size) {
    double d;
    if (num(o, key, &d, where, why, why_size) != 0) {
        return -1;
    }
    if (!isnan(d) && (d != floor(d) || d > 1e6)) {
        snprintf(why, why_size, "%s: \"%s\" is not a whole number", where, key);
        return -1;
    }
    *out = isnan(d) ? -1 : (int)d;
    return 0;
}

static int text(const cJSON *o, const char *key, char *out, size_t size, bool required,
                const char *where, char *why, size_t why_size) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    out[0] = '\0';
    if (!v || cJSON_IsNull(v)) {
        if (required) {
            snprintf(why, why_size, "%s: no \"%s\"", where, key);
            return -1;
        }
        return 0;
    }
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= size || (required && !*v->valuestring)) {
        snprintf(why, why_size, "%s: \"%s\" is not a string of 1 to %zu characters", where, key,
                 size - 1);
        return -1;
    }
    strcpy(out, v->valuestring);
    return 0;
}

static int read_model(const cJSON *o, size_t i, gc_model *m, char *why, size_t why_size) {
    char where[96];
    snprintf(where, sizeof where, "models[%zu]", i);
    memset(m, 0, sizeof *m);
    if (!cJSON_IsObject(o) ||
        text(o, "model", m->model, sizeof m->model, true, where, why, why_size) != 0) {
        if (!cJSON_IsObject(o)) {
            snprintf(why, why_size, "%s is not an object", where);
        }
        return -1;
    }
    snprintf(where, sizeof where, "model \"%s\"", m->model);
    const cJSON *match = cJSON_GetObjectItemCaseSensitive(o, "match");
    const cJSON *e;
    if (!cJSON_IsArray(match) || !cJSON_GetArraySize(match) ||
        cJSON_GetArraySize(match) > (int)(sizeof m->match / sizeof m->match[0])) {
        snprintf(why, why_size, "%s: \"match\" is not a list of 1 to 4 names", where);
        return -1;
    }
    cJSON_ArrayForEach(e, match) {
        if (!cJSON_IsString(e) || !*e->valuestring ||
            strlen(e->valuestring) >= sizeof m->match[0]) {
            snprintf(why, why_size, "%s: a \"match\" name is not a string of 1 to %zu characters",
                     where, sizeof m->match[0] - 1);
            return -1;
        }
        strcpy(m->match[m->nmatch++], e->valuestring);
    }
    const cJSON *exclude = cJSON_GetObjectItemCaseSensitive(o, "exclude");
    if (exclude &&
        (!cJSON_IsArray(exclude) ||
         cJSON_GetArraySize(exclude) > (int)(sizeof m->exclude / sizeof m->exclude[0]))) {
        snprintf(why, why_size, "%s: \"exclude\" is not a list of up to 4 words", where);
        return -1;
    }
    cJSON_ArrayForEach(e, exclude) {
        if (!cJSON_IsString(e) || !*e->valuestring ||
            strlen(e->valuestring) >= sizeof m->exclude[0]) {
            snprintf(why, why_size,
                     "%s: an \"exclude\" word is not a string of 1 to %zu "
                     "characters",
                     where, sizeof m->exclude[0] - 1);
            return -1;
        }
        strcpy(m->exclude[m->nexclude++], e->valuestring);
    }
    const cJSON *ecc = cJSON_GetObjectItemCaseSensitive(o, "ecc");
    if (ecc && !cJSON_IsBool(ecc) && !cJSON_IsNull(ecc)) {
        snprintf(why, why_size, "%s: \"ecc\" is not true, false or null", where);
        return -1;
    }
    m->ecc = cJSON_IsBool(ecc) ? cJSON_IsTrue(ecc) : -1;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(o, "spec");
    const cJSON *meas = cJSON_GetObjectItemCaseSensitive(o, "measured");
    if ((spec && !cJSON_IsObject(spec)) || (meas && !cJSON_IsObject(meas))) {
        snprintf(why, why_size, "%s: \"spec\" and \"measured\" must be objects", where);
        return -1;
    }
    if (text(o, "vendor", m->vendor, sizeof m->vendor, false, where, why, why_size) ||
        num(o, "memory_gb", &m->memory_gb, where, why, why_size) ||
        whole(o, "compute_units", &m->compute_units, where, why, why_size) ||
        num(o, "max_clock_mhz", &m->max_clock_mhz, where, why, why_size) ||
        whole(o, "pcie_gen", &m->pcie_gen, where, why, why_size) ||
        whole(o, "pcie_width", &m->pcie_width, where, why, why_size) ||
        whole(o, "nvlink_links", &m->nvlink_links, where, why, why_size) ||
        num(spec, "mem_bandwidth_gbs", &m->spec_bandwidth_gbs, where, why, why_size) ||
        num(spec, "fp32_gflops", &m->spec_fp32_gflops, where, why, why_size) ||
        num(spec, "fp64_gflops", &m->spec_fp64_gflops, where, why, why_size) ||
        text(spec, "source", m->spec_source, sizeof m->spec_source, spec != NULL, where, why,
             why_size) ||
        num(meas, "stream_triad_gbs", &m->meas_triad_gbs, where, why, why_size) ||
        num(meas, "gemm_f32_vendor_gflops", &m->meas_gemm_vendor_gflops, where, why, why_size) ||
        num(meas, "gemm_f32_xgpu_gflops", &m->meas_gemm_xgpu_gflops, where, why, why_size) ||
        num(meas, "transfer_pinned_gbs", &m->meas_transfer_gbs, where, why, why_size) ||
        num(meas, "launch_enqueue_us", &m->meas_enqueue_us, where, why, why_size) ||
        num(meas, "launch_round_trip_us", &m->meas_round_trip_us, where, why, why_size) ||
        whole(meas, "gemm_n", &m->meas_gemm_n, where, why, why_size) ||
        num(meas, "stream_mib", &m->meas_stream_mib, where, why, why_size) ||
        text(meas, "source", m->meas_source, sizeof m->meas_source, meas != NULL, where, why,
             why_size) ||
        text(meas, "backend", m->meas_backend, sizeof m->meas_backend, false, where, why,
             why_size)) {
        return -1;
    }
    return 0;
}

static int read_tolerance(const cJSON *root, gc_tolerance *t, char *why, size_t why_size) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "tolerance");
    if (!o) {
        return 0;
    }
    if (!cJSON_IsObject(o)) {
        snprintf(why, why_size, "\"tolerance\" is not an object");
        return -1;
    }
    struct {
        const char *key;
        double *to, lo, hi;
    } k[] = {{"measured", &t->measured, 0, 1},
             {"spec_bandwidth", &t->spec_bandwidth, 0, 1},
             {"spec_gemm", &t->spec_gemm, 0, 1},
             {"link_transfer", &t->link_transfer, 0, 1},
             {"launch", &t->launch, 1, 100}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        double d;
        if (num(o, k[i].key, &d, "tolerance", why, why_size) != 0) {
            return -1;
        }
        if (!isnan(d) && (d <= k[i].lo || d > k[i].hi)) {
            snprintf(why, why_size, "tolerance: \"%s\" is %g, outside (%g, %g]", k[i].key, d,
                     k[i].lo, k[i].hi);
            return -1;
        }
        if (!isnan(d)) {
            *k[i].to = d;
        }
    }
    return 0;
}

int gc_refs_add(gc_refs *r, const char *txt, size_t len, const char *origin, char *why,
                size_t why_size) {
    char inner[320];
    cJSON *root = cJSON_ParseWithLength(txt, len);
    int rc = -1;
    gc_model *models = NULL;
    gc_tolerance tol = r->tol;
    const cJSON *schema = root ? cJSON_GetObjectItemCaseSensitive(root, "schema") : NULL;
    const cJSON *list = root ? cJSON_GetObjectItemCaseSensitive(root, "models") : NULL;
    if (!root) {
        snprintf(inner, sizeof inner, "not valid JSON (truncated or damaged)");
    } else if (!cJSON_IsString(schema) ||
               strcmp(schema->valuestring, "xgpu.gpu-references/1") != 0) {
        snprintf(inner, sizeof inner,
                 "not a reference table (schema \"%.64s\", expected "
                 "\"xgpu.gpu-references/1\")",
                 cJSON_IsString(schema) ? schema->valuestring : "");
    } else if (!cJSON_IsArray(list)) {
        snprintf(inner, sizeof inner, "no \"models\" list");
    } else if (read_tolerance(root, &tol, inner, sizeof inner) == 0) {
        size_t n = (size_t)cJSON_GetArraySize(list), i = 0;
        models = calloc(n + r->count + 1, sizeof *models);
        if (!models) {
            snprintf(inner, sizeof inner, "out of memory");
            goto done;
        }
        if (r->count) {
            memcpy(models, r->models, r->count * sizeof *models);
        }
        size_t count = r->count;
        const cJSON *o;
        cJSON_ArrayForEach(o, list) {
            gc_model m;
            if (read_model(o, i++, &m, inner, sizeof inner) != 0) {
                goto done;
            }
            size_t at = 0;
            while (at < count && strcmp(models[at].model, m.model) != 0) {
                at++;
            }
            models[at] = m;
            count += at == count;
        }
        const cJSON *updated = cJSON_GetObjectItemCaseSensitive(root, "updated");
        if (cJSON_IsString(updated) && strlen(updated->valuestring) < sizeof r->updated) {
            strcpy(r->updated, updated->valuestring);
        }
        free(r->models);
        r->models = models;
        r->count = count;
        r->tol = tol;
        models = NULL;
        size_t used = strlen(r->source);
        snprintf(r->source + used, sizeof r->source - used, "%s%s", used ? ", then " : "", origin);
        rc = 0;
    }
done:
    if (rc) {
        snprintf(why, why_size, "%s: %s", origin, inner);
    }
    free(models);
    cJSON_Delete(root);
    return rc;
}

int gc_refs_load_shipped(gc_refs *r, char *why, size_t why_size) {
    memset(r, 0, sizeof *r);
    r->tol = (gc_tolerance){0.85, 0.6, 0.5, 0.6, 2.0};
    return gc_refs_add(r, gc_references_json, strlen(gc_references_json),
                       "the shipped reference table", why, why_size);
}

/* Whether `name` occurs in `hay` as whole words, ignoring case. */
static bool word_match(const char *hay, const char *name) {
    size_t n = strlen(name);
    for (const char *p = hay; *p; p++) {
        if (strncasecmp(p, name, n) != 0) {
            continue;
        }
        bool start = p == hay || !isalnum((unsigned char)p[-1]);
        bool end = !isalnum((unsigned char)p[n]);
        if (start && end) {
            return true;
        }
    }
    return false;
}

const gc_model *gc_refs_match(const gc_refs *r, const char *device_name, int compute_units) {
    const gc_model *best = NULL;
    size_t best_len = 0;
    bool best_units = false;
    for (size_t i = 0; device_name && i < r->count; i++) {
        const gc_model *m = &r->models[i];
        bool excluded = false;
        for (int k = 0; k < m->nexclude; k++) {
            excluded |= word_match(device_name, m->exclude[k]);
        }
        /* The device's compute units first (a combined name such as
         * "MI250X/MI250" names two models), then the longest name. */
        bool units = compute_units > 0 && m->compute_units == compute_units;
        for (int k = 0; !excluded && k < m->nmatch; k++) {
            size_t len = strlen(m->match[k]);
            if (word_match(device_name, m->match[k]) &&
                (!best || units > best_units || (units == best_units && len > best_len))) {
                best = m;
                best_len = len;
                best_units = units;
            }
        }
    }
    return best;
}

void gc_refs_free(gc_refs *r) {
    free(r->models);
    memset(r, 0, sizeof *r);
}
