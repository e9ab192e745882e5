/* JSON strings and numbers: one spelling for every tool's output. */
#include "json_write.h"

#include <math.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s, 0 when it is not one. */
static size_t utf8_length(const unsigned char *s) {
    size_t n;
    unsigned min;
    if (s[0] < 0x80) {
        return 1;
    } else if ((s[0] & 0xe0) == 0xc0) {
        n = 2, min = 0x80;
    } else if ((s[0] & 0xf0) == 0xe0) {
        n = 3, min = 0x800;
    } else if ((s[0] & 0xf8) == 0xf0) {
        n = 4, min = 0x10000;
    } else {
        return 0;
    }
    unsigned cp = s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        return 0;
    }
    return n;
}

void jw_string(FILE *out, const char *s) {
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p++);
        } else if (*p < 0x20) {
            fprintf(out, "\\u%04x", *p++);
        } else {
            size_t n = utf8_length(p);
            if (n == 0) {
                fputs("\\ufffd", out);
                p++;
            } else {
                fwrite(p, 1, n, out);
                p += n;
            }
        }
    }
    fputc('"', out);
}

void jw_number(FILE *out, double v) {
    if (isfinite(v)) {
        fprintf(out, "%.9g", v);
    } else {
        fputs("null", out);
    }
}
