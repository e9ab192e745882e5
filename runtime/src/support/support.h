/* runtime/src/support: what every layer above may use. Pure code over
 * libc: no object of the core, no registry, no logging, so the plugins
 * (SHA-256 for their built-in code tables), the fuzzers and the unit tests
 * link it alone. Nothing here includes a header of another layer but the
 * public xgpu.h, for the types it parses into. */
#ifndef XGPU_SUPPORT_H
#define XGPU_SUPPORT_H

#include "xgpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- sha256.c: SHA-256, incremental and one-shot ---- */
#define XGPU__SHA256_SIZE 32

typedef struct xgpu__sha256_state {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char buf[64];
    size_t used;
} xgpu__sha256_state;

void xgpu__sha256_init(xgpu__sha256_state *s);
void xgpu__sha256_update(xgpu__sha256_state *s, const void *data, size_t size);
void xgpu__sha256_final(xgpu__sha256_state *s, unsigned char out[XGPU__SHA256_SIZE]);
void xgpu__sha256(const void *data, size_t size, unsigned char out[XGPU__SHA256_SIZE]);

/* ---- json.c: a small JSON reader (RFC 8259, into a tree) and string
 * writer, for the tuning database: the core links libc only, and the
 * database is read once per process ---- */
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

/* ---- env_parse.c: pure parsers of XGPU_* values ---- */
#define XGPU__MAX_LISTED_BACKENDS 16
typedef struct xgpu__backend_list {
    size_t count;
    char names[XGPU__MAX_LISTED_BACKENDS][32];
} xgpu__backend_list;
/* XGPU_BACKENDS: names of [a-z0-9_-], 1..31 characters, separated by
 * commas or spaces; at least one. False with a reason in err otherwise. */
bool xgpu__backend_list_parse(const char *list, xgpu__backend_list *out, char *err,
                              size_t err_size);
/* Whether `name` is in the list; a NULL list holds every name. */
bool xgpu__backend_list_has(const xgpu__backend_list *list, const char *name);
/* XGPU_GEMM_PARAMS: "tile_m,tile_n,tile_k,work_m,work_n[,vector_width]",
 * each a decimal number in 1..XGPU__GEMM_PARAM_MAX, nothing else. */
#define XGPU__GEMM_PARAM_MAX 1024
bool xgpu__gemm_params_parse(const char *text, xgpu_gemm_params *out, char *err, size_t err_size);
/* A whole decimal number in lo..hi, nothing around it. */
bool xgpu__uint_parse(const char *text, uint32_t lo, uint32_t hi, uint32_t *out, char *err,
                      size_t err_size);

/* ---- selector.c ---- */
/* A parsed device selector: a comma-separated list of terms, the grammar
 * xgpu.h documents above xgpu_device_match. */
typedef enum xgpu__term_kind {
    XGPU__TERM_INDEX,   /* "2": global device index */
    XGPU__TERM_BACKEND, /* "opencl": every device of that backend */
    XGPU__TERM_PATH,    /* "opencl:1": index within the backend */
    XGPU__TERM_PCI,     /* "0000:01:00.0" or "01:00.0" */
    XGPU__TERM_UUID     /* "GPU-6f1e...", dashes optional */
} xgpu__term_kind;

/* A PCI address; parsed from selectors and from xgpu_device_info's
 * pci_bus_id alike, so "01:00.0" and "0000:01:00.0" are one device. */
typedef struct xgpu__pci_address {
    uint32_t domain;   /* 0..0xffff */
    uint32_t bus;      /* 0..0xff */
    uint32_t device;   /* 0..0x1f */
    uint32_t function; /* 0..7 */
} xgpu__pci_address;

/* Fields a kind does not use are zero, so two terms compare with memcmp. */
typedef struct xgpu__selector_term {
    xgpu__term_kind kind;
    uint32_t index;        /* INDEX: global; PATH: within `backend` */
    char backend[32];      /* BACKEND, PATH: the name, as in xgpu__backend */
    xgpu__pci_address pci; /* PCI */
    uint8_t uuid[16];      /* UUID */
} xgpu__selector_term;

#define XGPU__SELECTOR_MAX_TERMS 64

typedef struct xgpu__selector {
    uint32_t count; /* 1..XGPU__SELECTOR_MAX_TERMS after a successful parse */
    xgpu__selector_term terms[XGPU__SELECTOR_MAX_TERMS];
} xgpu__selector;

/* Parses `s` (may be NULL) without touching the registry. On failure
 * returns false with *out zeroed and a message naming the bad term,
 * without a function name, in err[err_size]. Pure: no allocation, no
 * global state but errno. */
bool xgpu__selector_parse(const char *s, xgpu__selector *out, char *err, size_t err_size);

/* Writes a term as the parser reads it back: "2", "opencl", "opencl:1",
 * "0000:01:00.0", "GPU-" and the dashed lower-case UUID gpuinfo prints. */
void xgpu__selector_term_format(const xgpu__selector_term *t, char *out, size_t size);

/* Parses exactly `n` bytes of `s` as a PCI bus id ("dddd:bb:dd.f", with a
 * domain of 4 or 8 hex digits, or "bb:dd.f" for domain 0). */
bool xgpu__pci_address_parse(const char *s, size_t n, xgpu__pci_address *out);

#endif /* XGPU_SUPPORT_H */
