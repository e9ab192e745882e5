/* Result files into rows, every field checked for its type: a file from
 * another tool, an older schema or a hand edit is an error naming the key,
 * never a row of zeros. See report_read.h. */
#include "report_read.h"

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

static int read_row(const cJSON *r, const char *where, const char *host, gb_row *x, char *why,
                    size_t why_size) {
    memset(x, 0, sizeof *x);
    if (!cJSON_IsObject(r)) {
        snprintf(why, why_size, "%s: expected an object", where);
        return -1;
    }
    snprintf(x->host, sizeof x->host, "%s", host);
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
    size_t before = t->count;
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
    char host[128];
    if (get_string(root, "", "host", host, sizeof host, why, why_size) != 0) {
        goto done;
    }
    size_t i = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, results) {
        if (t->count == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 64;
            gb_row *grown = realloc(t->rows, cap * sizeof *grown);
            if (!grown) {
                snprintf(why, why_size, "out of memory at results[%zu]", i);
                goto done;
            }
            t->rows = grown;
            t->cap = cap;
        }
        char where[48];
        snprintf(where, sizeof where, "results[%zu]", i++);
        if (read_row(r, where, host, &t->rows[t->count], why, why_size) != 0) {
            goto done;
        }
        t->count++;
    }
    rc = 0;
done:
    if (rc) {
        t->count = before;
    }
    cJSON_Delete(root);
    return rc;
}

void gb_table_free(gb_table *t) {
    free(t->rows);
    t->rows = NULL;
    t->count = t->cap = 0;
}
