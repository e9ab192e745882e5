/* A small JSON reader (RFC 8259, into a tree) and string writer, for the
 * tuning database: the core links libc only, and the database is read once
 * per process. */
#ifndef XGPU_JSON_H
#define XGPU_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum xgpu__json_type {
    XGPU__JSON_NULL,
    XGPU__JSON_BOOL,
    XGPU__JSON_NUMBER,
    XGPU__JSON_STRING,
    XGPU__JSON_ARRAY,
    XGPU__JSON_OBJECT
} xgpu__json_type;

typedef struct xgpu__json {
    xgpu__json_type type;
    char *key;    /* the member's name inside an object, else NULL */
    char *string; /* XGPU__JSON_STRING: NUL-terminated (a \u0000 ends it early) */
    double number;
    bool boolean;
    struct xgpu__json *child;        /* first element or member */
    struct xgpu__json *next;         /* next sibling */
    struct xgpu__json_chunk *chunks; /* the root's: every value's memory */
    size_t start, end;               /* the value's bytes in the text: [start, end) */
} xgpu__json;

/* The tree of `text` (`size` bytes), or NULL with the reason and the byte
 * offset in `why`. Nesting deeper than 64 is refused. The whole tree is a
 * few allocations, freed together. */
xgpu__json *xgpu__json_parse(const char *text, size_t size, char *why, size_t why_size);
/* Frees a tree xgpu__json_parse returned (its root only). */
void xgpu__json_free(xgpu__json *root);

/* The member `key` of an object; NULL when absent or `obj` is no object. */
const xgpu__json *xgpu__json_get(const xgpu__json *obj, const char *key);
/* The member's string, or NULL when absent or not a string. */
const char *xgpu__json_string(const xgpu__json *obj, const char *key);
/* The member's number; false when absent or not a number. */
bool xgpu__json_number(const xgpu__json *obj, const char *key, double *out);

/* v with six significant digits, as xgpu__json_write_number writes it. */
double xgpu__json_round(double v);
/* Writes v with six significant digits and a '.' whatever the locale (0
 * for a value that is not finite). */
void xgpu__json_write_number(FILE *f, double v);
/* Writes `s` as a JSON string, quotes included. */
void xgpu__json_write_string(FILE *f, const char *s);

#endif
