/* Result files into rows, every field checked for its type: a file from
 * another tool, an older schema or a hand edit is an error naming the key,
 * never a row of zeros. See report_read.h. */
#include "report_read.h"
#include "report_read_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text a key must hold, copied into `out`; -1 with `why` otherwise. */
static int get_string(const cJSON *o, const char *where, const char *key, char *out,
                      size_t out_size, char *why, size_t why_size) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v) || !v->valuestring) {
        snprintf(why, why_size, "%s%s%s: %s", where, *where ? "." : "", key,
                 v ? "expected a string" : "missing (a string)");
        return -1;
    }
    snprintf(out, out_size, "%s", v->valuestring);
    return 0;
}

/* A number, or null for "not measured" (-1). */
static int get_number(const cJSON *v, const char *where, const char *key, double *out, char *why,
                      size_t why_size) {
    if (cJSON_IsNull(v)) {
        *out = -1;
        return 0;
    }
    if (!cJSON_IsNumber(v)) {
        snprintf(why, why_size, "%s.%s: %s", where, key,
                 v ? "expected a number or null" : "missing (a number or null)");
        return -1;
    }
    *out = v->valuedouble;
    return 0;
}

int gb__opt_string(const cJSON *o, const char *where, const char *key, char *out, size_t out_size,
                   char *why, size_t why_size) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    out[0] = '\0';
    if (!v || cJSON_IsNull(v)) {
        return 0;
    }
    if (!cJSON_IsString(v) || !v->valuestring) {
        snprintf(why, why_size, "%s%s%s: expected a string or null", where, *where ? "." : "", key);
        return -1;
    }
    snprintf(out, out_size, "%s", v->valuestring);
    return 0;
}

/* An optional whole number in [0, 2^31): absent or null gives -1. */
static int opt_count(const cJSON *o, const char *where, const char *key, long *out, char *why,
                     size_t why_size) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = -1;
    if (!v || cJSON_IsNull(v)) {
        return 0;
    }
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
    if (!(d >= 0 && d < 2147483648.0) || d != (double)(long)d) {
        snprintf(why, why_size, "%s.%s: expected a whole number from 0 to 2^31-1, or null", where,
                 key);
        return -1;
    }
    *out = (long)d;
    return 0;
}

/* An optional true or false: absent gives `dflt`. */
static int opt_bool(const cJSON *o, const char *where, const char *key, bool dflt, bool *out,
                    char *why, size_t why_size) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = dflt;
    if (!v) {
        return 0;
    }
    if (!cJSON_IsBool(v)) {
        snprintf(why, why_size, "%s.%s: expected true or false", where, key);
        return -1;
    }
    *out = cJSON_IsTrue(v);
    return 0;
}

/* results[i].telemetry: null, or an object whose throttle verdict the
 * report lists; the sampled figures stay in the file. */
static int read_telemetry(const cJSON *r, const char *where, gb_row *x, char *why,
                          size_t why_size) {
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(r, "telemetry");
    if (!tm || cJSON_IsNull(tm)) {
        return 0;
    }
    char at[64];
    snprintf(at, sizeof at, "%s.telemetry", where);
    if (!cJSON_IsObject(tm)) {
        snprintf(why, why_size, "%s: expected an object or null", at);
        return -1;
    }
    if (gb__opt_string(tm, at, "source", x->telemetry, sizeof x->telemetry, why, why_size) != 0 ||
        opt_bool(tm, at, "throttled", false, &x->throttled, why, why_size) != 0 ||
        gb__opt_string(tm, at, "throttle_why", x->throttle_why, sizeof x->throttle_why, why,
                       why_size) != 0) {
        return -1;
    }
    if (!x->telemetry[0]) {
        snprintf(x->telemetry, sizeof x->telemetry, "?");
    }
    return 0;
}

static int read_row(const cJSON *r, const char *where, const gb_file *fi, size_t file, gb_row *x,
                    char *why, size_t why_size) {
    memset(x, 0, sizeof *x);
    if (!cJSON_IsObject(r)) {
        snprintf(why, why_size, "%s: expected an object", where);
        return -1;
    }
    snprintf(x->host, sizeof x->host, "%s", fi->host);
    x->file = file;
    x->rank = fi->rank;
    static const struct {
        const char *key;
        size_t offset, size;
    } strings[] = {
        {"bench", offsetof(gb_row, bench), sizeof x->bench},
        {"impl", offsetof(gb_row, impl), sizeof x->impl},
        {"device", offsetof(gb_row, device), sizeof x->device},
        {"device_name", offsetof(gb_row, device_name), sizeof x->device_name},
        {"dtype", offsetof(gb_row, dtype), sizeof x->dtype},
        {"shape", offsetof(gb_row, shape), sizeof x->shape},
    };
    for (size_t k = 0; k < sizeof strings / sizeof strings[0]; k++) {
        if (get_string(r, where, strings[k].key, (char *)x + strings[k].offset, strings[k].size,
                       why, why_size) != 0) {
            return -1;
        }
    }
    if (get_number(cJSON_GetObjectItemCaseSensitive(r, "size"), where, "size", &x->size, why,
                   why_size) != 0) {
        return -1;
    }
    /* The rate's key says its unit; exactly one of them. */
    static const char *const keys[][2] = {{"gflops", "GFLOP/s"}, {"gbs", "GB/s"}, {"us", "us"}};
    int found = 0;
    for (size_t k = 0; k < 3; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, keys[k][0]);
        if (!v) {
            continue;
        }
        if (found++) {
            snprintf(why, why_size, "%s: more than one rate (gflops, gbs, us)", where);
            return -1;
        }
        if (get_number(v, where, keys[k][0], &x->rate, why, why_size) != 0) {
            return -1;
        }
        snprintf(x->unit, sizeof x->unit, "%s", keys[k][1]);
    }
    if (!found) {
        snprintf(why, why_size, "%s: missing a rate (gflops, gbs or us)", where);
        return -1;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verified");
    if (!cJSON_IsBool(v)) {
        snprintf(why, why_size, "%s.verified: %s", where,
                 v ? "expected true or false" : "missing (true or false)");
        return -1;
    }
    x->verified = cJSON_IsTrue(v);
    /* Keys added for fleets: the host per row (the file's when absent), the
     * device's identity and the telemetry's verdict. */
    char row_host[sizeof x->host];
    if (gb__opt_string(r, where, "host", row_host, sizeof row_host, why, why_size) != 0 ||
        gb__opt_string(r, where, "device_uuid", x->device_uuid, sizeof x->device_uuid, why,
                       why_size) != 0 ||
        gb__opt_string(r, where, "device_arch", x->device_arch, sizeof x->device_arch, why,
                       why_size) != 0 ||
        read_telemetry(r, where, x, why, why_size) != 0) {
        return -1;
    }
    if (row_host[0]) {
        memcpy(x->host, row_host, sizeof x->host);
    }
    return 0;
}

bool gb__grow(void **items, size_t count, size_t *cap, size_t size) {
    if (count < *cap) {
        return true;
    }
    size_t n = *cap ? *cap * 2 : 64;
    void *grown = realloc(*items, n * size);
    if (!grown) {
        return false;
    }
    *items = grown;
    *cap = n;
    return true;
}

/* "rank": null, or {"engine": ..., "rank": N, "local_rank": N|null, ...}. */
static int read_rank(const cJSON *root, gb_file *fi, char *why, size_t why_size) {
    const cJSON *rk = cJSON_GetObjectItemCaseSensitive(root, "rank");
    if (!rk || cJSON_IsNull(rk)) {
        return 0;
    }
    if (!cJSON_IsObject(rk)) {
        snprintf(why, why_size, "rank: expected an object or null");
        return -1;
    }
    if (gb__opt_string(rk, "rank", "engine", fi->engine, sizeof fi->engine, why, why_size) != 0 ||
        opt_count(rk, "rank", "rank", &fi->rank, why, why_size) != 0 ||
        opt_count(rk, "rank", "local_rank", &fi->local_rank, why, why_size) != 0 ||
        opt_count(rk, "rank", "size", &fi->size, why, why_size) != 0) {
        return -1;
    }
    /* A launcher may give only a node-local rank (LOCAL_RANK alone). */
    if (fi->rank < 0 && fi->local_rank < 0) {
        snprintf(why, why_size, "rank: neither rank nor local_rank is a whole number");
        return -1;
    }
    return 0;
}

static int read_pair(const cJSON *p, const char *where, gb_pair *x, char *why, size_t why_size) {
    memset(x, 0, sizeof *x);
    if (!cJSON_IsObject(p)) {
        snprintf(why, why_size, "%s: expected an object", where);
        return -1;
    }
    char path[16];
    if (get_string(p, where, "src", x->src, sizeof x->src, why, why_size) != 0 ||
        get_string(p, where, "dst", x->dst, sizeof x->dst, why, why_size) != 0 ||
        gb__opt_string(p, where, "path", path, sizeof path, why, why_size) != 0 ||
        get_number(cJSON_GetObjectItemCaseSensitive(p, "gbs"), where, "gbs", &x->gbs, why,
                   why_size) != 0 ||
        opt_bool(p, where, "verified", false, &x->verified, why, why_size) != 0) {
        return -1;
    }
    const cJSON *lat = cJSON_GetObjectItemCaseSensitive(p, "latency_us");
    x->latency_us = -1;
    if (lat && get_number(lat, where, "latency_us", &x->latency_us, why, why_size) != 0) {
        return -1;
    }
    x->staged = !strcmp(path, "staged");
    static const char *const known[] = {"direct", "staged", "local"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (!strcmp(path, known[i])) {
            snprintf(x->path, sizeof x->path, "%s", known[i]);
        }
    }
    return 0;
}

/* "p2p": null, or {"devices": [...], "pairs": [{...}, ...]}. */
static int read_p2p(const cJSON *root, gb_table *t, gb_file *fi, char *why, size_t why_size) {
    const cJSON *p2p = cJSON_GetObjectItemCaseSensitive(root, "p2p");
    if (!p2p || cJSON_IsNull(p2p)) {
        return 0;
    }
    const cJSON *pairs = cJSON_GetObjectItemCaseSensitive(p2p, "pairs");
    if (!cJSON_IsObject(p2p) || (pairs && !cJSON_IsArray(pairs))) {
        snprintf(why, why_size, "%s",
                 cJSON_IsObject(p2p) ? "p2p.pairs: expected an array"
                                     : "p2p: expected an object or null");
        return -1;
    }
    fi->has_p2p = true;
    size_t i = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, pairs) {
        if (!gb__grow((void **)&t->pairs, t->npairs, &t->pairs_cap, sizeof *t->pairs)) {
            snprintf(why, why_size, "out of memory at p2p.pairs[%zu]", i);
            return -1;
        }
        char where[48];
        snprintf(where, sizeof where, "p2p.pairs[%zu]", i++);
        if (read_pair(p, where, &t->pairs[t->npairs], why, why_size) != 0) {
            return -1;
        }
        t->pairs[t->npairs++].file = t->nfiles;
    }
    return 0;
}

int gb_report_parse(const char *text, size_t len, gb_table *t, char *why, size_t why_size) {
    if (len > GB_REPORT_MAX_BYTES) {
        snprintf(why, why_size, "%zu bytes, over the %zu MiB limit for a result file", len,
                 GB_REPORT_MAX_BYTES >> 20);
        return -1;
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t offset = at && at >= text && at <= text + len ? (size_t)(at - text) : 0;
        snprintf(why, why_size, "not valid JSON (truncated or damaged) at byte %zu", offset);
        return -1;
    }
    int rc = -1;
    size_t rows_before = t->count, pairs_before = t->npairs, infos_before = t->ndevinfos;
    gb_file fi = {.rank = -1,
                  .local_rank = -1,
                  .size = -1,
                  .first_row = t->count,
                  .first_pair = t->npairs,
                  .first_devinfo = t->ndevinfos};
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    if (!cJSON_IsObject(root) || !cJSON_IsString(schema) ||
        strcmp(schema->valuestring, "xgpu.gpubench/1") != 0 || !cJSON_IsArray(results)) {
        snprintf(why, why_size,
                 "not a gpubench result file (schema \"%.64s\", expected \"xgpu.gpubench/1\" "
                 "with a results array)",
                 cJSON_IsString(schema) ? schema->valuestring : "");
        goto done;
    }
    if (!gb__grow((void **)&t->files, t->nfiles, &t->files_cap, sizeof *t->files)) {
        snprintf(why, why_size, "out of memory");
        goto done;
    }
    if (get_string(root, "", "host", fi.host, sizeof fi.host, why, why_size) != 0 ||
        gb__opt_string(root, "", "xgpu_version", fi.version, sizeof fi.version, why, why_size) !=
            0 ||
        read_rank(root, &fi, why, why_size) != 0 || read_p2p(root, t, &fi, why, why_size) != 0 ||
        gb__read_info(root, t, &fi, why, why_size) != 0) {
        goto done;
    }
    fi.has |= (cJSON_HasObjectItem(root, "rank") ? GB_HAS_RANK : 0u) |
              (cJSON_HasObjectItem(root, "p2p") ? GB_HAS_P2P : 0u) | GB_HAS_UUID | GB_HAS_ARCH |
              GB_HAS_TELEMETRY;
    size_t i = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, results) {
        /* A row without one of the later keys: the file lacks it. */
        static const struct {
            const char *key;
            unsigned bit;
        } later[] = {{"device_uuid", GB_HAS_UUID},
                     {"device_arch", GB_HAS_ARCH},
                     {"telemetry", GB_HAS_TELEMETRY}};
        for (size_t k = 0; k < sizeof later / sizeof later[0]; k++) {
            if (!cJSON_IsObject(r) || !cJSON_HasObjectItem(r, later[k].key)) {
                fi.has &= ~later[k].bit;
            }
        }
        if (!gb__grow((void **)&t->rows, t->count, &t->cap, sizeof *t->rows)) {
            snprintf(why, why_size, "out of memory at results[%zu]", i);
            goto done;
        }
        char where[48];
        snprintf(where, sizeof where, "results[%zu]", i++);
        if (read_row(r, where, &fi, t->nfiles, &t->rows[t->count], why, why_size) != 0) {
            goto done;
        }
        t->count++;
    }
    fi.rows = t->count - fi.first_row;
    fi.pairs = t->npairs - fi.first_pair;
    fi.devinfos = t->ndevinfos - fi.first_devinfo;
    t->files[t->nfiles++] = fi;
    rc = 0;
done:
    if (rc) {
        t->count = rows_before;
        t->npairs = pairs_before;
        t->ndevinfos = infos_before;
    }
    cJSON_Delete(root);
    return rc;
}

void gb_table_drop_last(gb_table *t) {
    if (t->nfiles) {
        const gb_file *fi = &t->files[--t->nfiles];
        t->count = fi->first_row;
        t->npairs = fi->first_pair;
        t->ndevinfos = fi->first_devinfo;
    }
}

void gb_table_free(gb_table *t) {
    free(t->rows);
    free(t->files);
    free(t->pairs);
    free(t->devinfos);
    *t = (gb_table){0};
}
