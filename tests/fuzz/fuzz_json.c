/* The tuning database's JSON reader on any bytes: it never reads past the
 * size it is given (the input is copied to an exact-size buffer, so ASan
 * sees one byte too far), never overflows its stack, and what it accepts
 * is a well-formed tree: every string terminated, members named, and
 * strings no longer than the text they came from. */
#include "support.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(const xgpu__json *v, size_t size, int depth, int in_object) {
    for (; v; v = v->next) {
        if (depth > 65 || (in_object && !v->key) || (!in_object && v->key)) {
            abort();
        }
        if (v->key && strlen(v->key) > size) {
            abort();
        }
        if (v->type == XGPU__JSON_STRING && (!v->string || strlen(v->string) > size)) {
            abort();
        }
        if ((v->type == XGPU__JSON_ARRAY || v->type == XGPU__JSON_OBJECT) && v->string) {
            abort();
        }
        check(v->child, size, depth + 1, v->type == XGPU__JSON_OBJECT);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size ? size : 1);
    if (!text) {
        return 0;
    }
    memcpy(text, data, size);
    char why[160];
    why[0] = '\0';
    xgpu__json *v = xgpu__json_parse(text, size, why, sizeof why);
    if (v) {
        check(v, size, 0, 0);
        if (v->next || v->key) {
            abort(); /* one value, unnamed */
        }
        const xgpu__json *m = xgpu__json_get(v, "records");
        (void)m;
        double d;
        (void)xgpu__json_number(v, "rate", &d);
        (void)xgpu__json_string(v, "schema");
    } else if (!why[0] || !strstr(why, "at byte")) {
        abort(); /* a refusal always says where */
    }
    xgpu__json_free(v);
    free(text);
    return 0;
}
