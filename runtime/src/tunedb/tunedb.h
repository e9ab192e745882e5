/* runtime/src/tunedb: what a library kernel runs with. Every kernel's
 * parameters, built-in defaults, validity and build options (params.c,
 * gemm_params.c, options.c), the tuning database (db.c) and the choice a
 * library call makes from it (lookup.c). What lib/ and tune/ may call;
 * this layer sees core.h and support.h only. */
#ifndef XGPU_TUNEDB_H
#define XGPU_TUNEDB_H

#include "xgpu.h"

#include <pthread.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XGPU__TUNE_PARAMS_MAX 128
#define XGPU__TUNE_FIELDS_MAX 8
#define XGPU__TUNE_SCHEMA "xgpu.tune/1"

/* ---- the kernels and their parameters (params.c) ---- */

typedef enum xgpu__tune_kernel_id {
    XGPU__TK_GEMM,
    XGPU__TK_SUM,
    XGPU__TK_MINMAX,
    XGPU__TK_ARGMAX,
    XGPU__TK_STREAM,
    XGPU__TK_COUNT
} xgpu__tune_kernel_id;

typedef enum xgpu__tune_class { XGPU__TC_SMALL, XGPU__TC_LARGE, XGPU__TC_COUNT } xgpu__tune_class;

/* One kernel's parameter values, in the order of its field names. */
typedef struct xgpu__tune_values {
    uint32_t v[XGPU__TUNE_FIELDS_MAX];
} xgpu__tune_values;

typedef struct xgpu__tune_kernel {
    const char *name; /* "gemm", "sum", "minmax", "argmax", "stream" */
    const char *const *fields;
    size_t field_count;
    const char *unit; /* of the rate: "GFLOP/s" or "GB/s" */
    /* Fields from this one on were added later: text without them (an
     * older database) parses with 0 there. */
    size_t optional_from;
} xgpu__tune_kernel;

const xgpu__tune_kernel *xgpu__tune_kernel_get(xgpu__tune_kernel_id id);
/* The id of a kernel name; -1 when unknown. */
int xgpu__tune_kernel_find(const char *name);
const char *xgpu__tune_class_name(xgpu__tune_class c);
int xgpu__tune_class_find(const char *name);
/* The shape class of a problem: GEMM by m*n*k, the others by bytes. */
xgpu__tune_class xgpu__tune_class_of(xgpu__tune_kernel_id id, size_t work);

/* "name=value,..." in the kernel's field order; parse checks names and
 * that every field is present exactly once. */
void xgpu__tune_format(xgpu__tune_kernel_id id, const xgpu__tune_values *v, char *out, size_t size);
bool xgpu__tune_parse(xgpu__tune_kernel_id id, const char *text, xgpu__tune_values *v, char *why,
                      size_t why_size);

/* A CPU device whose OpenCL compiler vectorises across work-items, as a
 * GPU runs its lanes (Intel's runtime; every CPU runtime but pocl, whose
 * compiler vectorises the loops inside a work-item), and the float lanes
 * of its vectors (8 when the device does not say). */
bool xgpu__tune_cpu_simt(const xgpu_device_info *info);
uint32_t xgpu__tune_cpu_lanes(const xgpu_device_info *info);

/* The built-in default for the device and the problem's size class, and
 * whether values suit the device (the kernel compiles and fits); the
 * reason when not. */
void xgpu__tune_builtin(xgpu__tune_kernel_id id, xgpu_dtype dtype, xgpu__tune_class cls,
                        const xgpu_device_info *info, xgpu__tune_values *v);
bool xgpu__tune_valid(xgpu__tune_kernel_id id, xgpu_dtype dtype, const xgpu_device_info *info,
                      const xgpu__tune_values *v, char *why, size_t why_size);
/* Candidates for a search, most promising first, all valid for the device;
 * the built-ins of both size classes lead. */
size_t xgpu__tune_candidates(xgpu__tune_kernel_id id, xgpu_dtype dtype,
                             const xgpu_device_info *info, xgpu__tune_values *out, size_t max);
/* Values one step from `v` (one field doubled or halved), valid ones only. */
size_t xgpu__tune_neighbours(xgpu__tune_kernel_id id, xgpu_dtype dtype,
                             const xgpu_device_info *info, const xgpu__tune_values *v,
                             xgpu__tune_values *out, size_t max);

/* GEMM values <-> the public parameters. */
xgpu_gemm_params xgpu__tune_to_gemm(const xgpu__tune_values *v);
xgpu__tune_values xgpu__tune_from_gemm(const xgpu_gemm_params *p);

/* ---- GEMM's parameters (gemm_params.c) ---- */

/* What the GPU family's parameter check allows: 32-bit registers per
 * work-item and per group, and the registers its estimate adds to the
 * arrays' (addresses, indices, loop state). */
#define XGPU__GEMM_GPU_REGS_PER_ITEM 255
#define XGPU__GEMM_GPU_REGS_PER_GROUP 65536
#define XGPU__GEMM_GPU_REG_OVERHEAD 40
/* The register family's largest register block, in accumulators
 * (work_m x work_n): 16 AVX-512 registers' worth four times over. */
#define XGPU__GEMM_REG_MAX_ACC 1024

/* The GEMM parameter sets xgpu_gemm can choose for a device class. */
size_t xgpu__gemm_param_sets(bool cpu, xgpu_dtype dtype, xgpu_gemm_params *out, size_t max);
/* Whether the kernel can run with `p` on the device (elem: bytes per
 * element in local memory); the error names `who`. */
xgpu_status xgpu__gemm_check_params(const xgpu_gemm_params *p, const xgpu_device_info *info,
                                    size_t elem, const char *who);
/* The built-in parameters for a device class, or small ones when those do
 * not fit the device. The register family's need an OpenCL CPU device
 * without vectorisation across work-items, f32 or f64, and vectors of 8
 * or more floats. */
void xgpu__gemm_builtin(const xgpu_device_info *info, xgpu_dtype dtype, xgpu_gemm_params *params);
/* XGPU_GEMM_PARAMS="tile_m,tile_n,tile_k,work_m,work_n[,vector_width[,contiguous]]",
 * or as the tuning database spells them: *found is false when it is unset
 * or empty; a malformed value is an error naming the variable after `who`. */
xgpu_status xgpu__gemm_env_params(xgpu_gemm_params *p, bool *found, const char *who);
/* The same, and checked against the kernel `dtype` runs on this device
 * (the fragment family's own checks where it applies): what
 * xgpu_gemm_default_params and xgpu_tune_lookup report. Errors begin with
 * `func`. */
xgpu_status xgpu__gemm_env_checked(const xgpu_device_info *info, xgpu_dtype dtype, const char *func,
                                   xgpu_gemm_params *p, bool *found);
/* Bytes per element of the GEMM's tiles in local memory (fp32 for f16). */
size_t xgpu__gemm_local_elem(xgpu_dtype dtype);
/* The vector width the kernel is built with: f16 loads stay scalar, f64
 * vectors hold two. */
uint32_t xgpu__gemm_vector_width(xgpu_dtype dtype, const xgpu_gemm_params *p);

/* ---- the fragment GEMM's parameters (gemm_mma_params.c) ----
 * `in` is A's and B's type: XGPU_F16, XGPU_BF16, or XGPU_F32 for tf32;
 * `path` is "mma.sync", "mfma", "fragments" or "fragments-mfma", as
 * xgpu_gemm_choose says. */

/* The work-items of a warp on the path: 64 in MFMA's layout (emulated or
 * not), else 32. A group is (tile_m / work_m) * (tile_n / work_n) warps. */
uint32_t xgpu__gemm_mma_lanes(const char *path);

/* The path the device multiplies `in` on: "mma.sync" (CUDA sm_80+),
 * "mfma" (HIP gfx90a/gfx94x, gfx908 for f16), else "fragments"; NULL for
 * f32 (tf32 allowed or not) without matrix units, and for other types:
 * the SIMT kernels run those. */
const char *xgpu__gemm_mma_path(const xgpu_device_info *info, xgpu_dtype in, bool tf32);
/* The built-in parameters for the path and device class, or small ones
 * when those do not fit the device. */
void xgpu__gemm_mma_builtin(const xgpu_device_info *info, xgpu_dtype in, const char *path,
                            xgpu_gemm_params *p);
/* Whether the kernel can run with `p` on the path and device: every rule
 * named in the error (XGPU_ERROR_INVALID_ARGUMENT for a set the kernel
 * cannot build, XGPU_ERROR_UNSUPPORTED for one the device cannot hold),
 * which starts with `func`. */
xgpu_status xgpu__gemm_mma_check_params(const xgpu_gemm_params *p, const xgpu_device_info *info,
                                        xgpu_dtype in, const char *path, const char *func);
/* The -D options of kernels/gemm_mma.xgpu; `out` is C's type (f32, or
 * `in` for f16/bf16). */
void xgpu__gemm_mma_options(xgpu_dtype in, xgpu_dtype out, const char *path,
                            const xgpu_gemm_params *p, char *buf, size_t size);

/* ---- build options (options.c): one function per kernel source, shared
 * by the routines and the compile-matrix test (which builds every variant
 * the library can choose) ---- */
void xgpu__gemm_options(xgpu_dtype dtype, const xgpu_gemm_params *p, char *out, size_t size);
/* Loads in flight per work-item in the GPU reduction (XGPU_REDUCE_UNROLL
 * overrides it). */
#define XGPU__REDUCE_UNROLL_GPU 4
/* v: the reduction's tuning values (group, gpcu, unroll, vec, chunked). */
void xgpu__reduce_options(xgpu_reduce_op op, xgpu_dtype dtype, const xgpu__tune_values *v,
                          char *out, size_t size);
xgpu__tune_kernel_id xgpu__reduce_tune_id(xgpu_reduce_op op);
/* v: the stream kernels' tuning values (group, gpcu, chunked). */
void xgpu__stream_options(xgpu_dtype dtype, const xgpu__tune_values *v, char *out, size_t size);

/* ---- the database (db.c) ---- */

/* What identifies the device, its compiler and the kernel's source. */
typedef struct xgpu__tune_key {
    char backend[32], vendor[128], type[8], device[256], arch[64];
    uint32_t compute_units;
    char driver[128], compiler[512], source[20], xgpu[24];
} xgpu__tune_key;

typedef struct xgpu__tune_try {
    char params[XGPU__TUNE_PARAMS_MAX];
    double rate;     /* 0 unless status is "ok" */
    char status[16]; /* "ok", "wrong", "build", "launch"; "slower": GEMM's
                        large winner, slower than the built-in at 2n */
} xgpu__tune_try;

typedef struct xgpu__tune_record {
    xgpu__tune_key key;
    char kernel[16], dtype[8], cls[8], unit[12], tuned[32];
    uint64_t size; /* the problem the rates were measured on */
    bool complete;
    char best[XGPU__TUNE_PARAMS_MAX]; /* "" while nothing verified */
    bool auto_tuned;                  /* by XGPU_TUNE=auto ("origin": "auto") */
    double best_rate;
    size_t ntried;
    xgpu__tune_try *tried;
} xgpu__tune_record;

typedef struct xgpu__tune_db {
    xgpu__tune_record *recs;
    size_t n, cap;
    char **raw; /* records this build does not read, as text, written back unchanged */
    size_t nraw;
} xgpu__tune_db;

/* Candidates a record keeps at most. */
#define XGPU__TUNE_TRIED_MAX 4096

typedef enum xgpu__tune_db_state {
    XGPU__DB_OK,         /* read, or missing (empty) */
    XGPU__DB_UNREADABLE, /* not a regular file, or an I/O error: left alone */
    XGPU__DB_DAMAGED     /* a regular file that does not parse: a store moves it aside */
} xgpu__tune_db_state;

/* How closely a record fits: the fallback order of a lookup (match.c).
 * The driver family is the backend, and for OpenCL the platform: two
 * OpenCL implementations on one CPU are two families. */
typedef enum xgpu__tune_level {
    XGPU__TL_EXACT,  /* same device, driver, compiler, kernel source, xgpu */
    XGPU__TL_ARCH,   /* same driver family, device type and arch (a stale
                        entry of this device too) */
    XGPU__TL_VENDOR, /* same driver family, vendor and device type */
    XGPU__TL_WARM,   /* same device type, another driver family or vendor:
                        a warm start for the tuner, never a lookup's winner */
    XGPU__TL_NONE
} xgpu__tune_level;

const char *xgpu__tune_level_name(xgpu__tune_level level);

/* The database at `path`: a missing file is an empty one; otherwise db is
 * empty and `why` says what is wrong. Without `with_tried` the records'
 * candidate lists (and records this build does not read) are left out:
 * lookups need only the winners. */
xgpu__tune_db_state xgpu__tune_db_load(const char *path, bool with_tried, xgpu__tune_db *db,
                                       char *why, size_t why_size);
bool xgpu__tune_db_parse(const char *text, size_t size, bool with_tried, xgpu__tune_db *db,
                         char *why, size_t why_size);
void xgpu__tune_db_free(xgpu__tune_db *db);
/* Adds a copy of `rec`, or merges it into the record with its kernel,
 * dtype, class and exact key (candidates joined, the better winner kept). */
bool xgpu__tune_db_put(xgpu__tune_db *db, const xgpu__tune_record *rec);
/* Reads, merges `rec` and writes `path` back under an exclusive lock
 * (`path`.lock), through a temporary file and rename: concurrent writers
 * lose nothing, readers never see half a file. A file that does not parse
 * is moved aside to a new `path`.damaged[.N] (said in `note`, may be NULL);
 * one that cannot be read, or is no regular file, fails XGPU_ERROR_IO and
 * is left alone. */
xgpu_status xgpu__tune_db_store(const char *path, const xgpu__tune_record *rec, char *note,
                                size_t note_size);
/* The index of the record that fits `key` best for kernel, dtype and
 * class with a verified winner, at *level or closer (*level is then set),
 * never at XGPU__TL_WARM; -1 when none. Within a level this device's own
 * entry (another driver version, say) comes first, then the fastest.
 * `accept` (may be NULL) can refuse a record, e.g. parameters this device
 * cannot run; the next one is taken. */
long xgpu__tune_db_match(const xgpu__tune_db *db, const xgpu__tune_key *key, const char *kernel,
                         const char *dtype, const char *cls, xgpu__tune_level *level,
                         bool (*accept)(const xgpu__tune_record *rec, void *user), void *user);
/* Whether a verified record fits `key` only as a warm start. */
bool xgpu__tune_db_has_warm(const xgpu__tune_db *db, const xgpu__tune_key *key, const char *kernel,
                            const char *dtype, const char *cls);
/* Whether this device (same driver family and name) has a verified
 * record made with another kernel source: a tune of an older or newer
 * xgpu, which no lookup uses. */
bool xgpu__tune_db_has_outdated(const xgpu__tune_db *db, const xgpu__tune_key *key,
                                const char *kernel, const char *dtype, const char *cls);
/* The level at which `rec` fits `key` (kernel, dtype and class aside). */
xgpu__tune_level xgpu__tune_fit(const xgpu__tune_record *rec, const xgpu__tune_key *key);
/* Every field of the keys is equal. */
bool xgpu__tune_same_key(const xgpu__tune_key *a, const xgpu__tune_key *b);
/* Same backend and, for OpenCL, the same platform name. */
bool xgpu__tune_same_family(const xgpu__tune_key *a, const xgpu__tune_key *b);
/* Same driver family and device name: this device, maybe under another
 * driver version, compiler or xgpu. */
bool xgpu__tune_same_device(const xgpu__tune_key *a, const xgpu__tune_key *b);
void xgpu__tune_record_free(xgpu__tune_record *rec);

/* The most the database's lock, temporary and damaged copies add to its
 * path (".tmp.<pid>", ".lock", ".damaged.<n>"). */
#define XGPU__TUNE_DB_SUFFIX_MAX 32
/* XGPU_TUNE_DB, else tune.json in xgpu's cache folder; false with the
 * reason when none is set, or when the path leaves no room for
 * XGPU__TUNE_DB_SUFFIX_MAX more characters in a path. */
bool xgpu__tune_db_path(char *out, size_t size, char *why, size_t why_size);

/* ---- lookups (lookup.c) ---- */

typedef struct xgpu__tune_choice {
    xgpu__tune_values values;
    const char *source; /* "tuned", "built-in default", or a variable's name */
    xgpu__tune_level level;
    bool shipped, stale;
    bool off;        /* the default because XGPU_TUNE=off */
    bool warm_only;  /* the default: entries of other driver families only */
    bool outdated;   /* the default: this device's entries are of other
                        kernel sources (another xgpu's tune) */
    bool auto_tuned; /* the entry was stored by XGPU_TUNE=auto */
    double rate;     /* the entry's measured rate, 0 for a default */
    char unit[12];
} xgpu__tune_choice;

/* The choice among the user's and the built-in databases (either may be
 * empty) for a device's key and info, without a context: the closest
 * entry whose parameters suit the device, the user's first on a tie; else
 * the built-in default (warm_only says whether entries of other driver
 * families were passed over). */
void xgpu__tune_pick(const xgpu__tune_key *key, const xgpu_device_info *info,
                     xgpu__tune_kernel_id id, xgpu_dtype dtype, xgpu__tune_class cls,
                     const xgpu__tune_db *user_db, const xgpu__tune_db *shipped_db,
                     xgpu__tune_choice *out);

/* XGPU_TUNE=auto: a quick search at first use of a kernel, dtype and
 * class on a device without an exact entry, which stores its winner in
 * the user's database. The tuner (a layer above) registers it; true when
 * it stored a record. */
typedef bool (*xgpu__tune_auto_fn)(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                                   xgpu__tune_class cls);
void xgpu__tune_set_auto(xgpu__tune_auto_fn fn);
/* XGPU_TUNE as a mode: off ("off", "0"), auto, or on (unset, anything else). */
typedef enum xgpu__tune_mode { XGPU__TUNE_ON, XGPU__TUNE_OFF, XGPU__TUNE_AUTO } xgpu__tune_mode;
xgpu__tune_mode xgpu__tune_mode_get(void);
/* The one reading of each tuning variable (settings.c). XGPU_TUNE: on for
 * NULL, "", "on", "1"; off for "off", "0"; auto for "auto"; false (and on)
 * for anything else. XGPU_TUNE_BUDGET_S: seconds in (0, 600]; NULL or ""
 * is the default 3 s; false (and 3) for anything else. */
bool xgpu__tune_mode_parse(const char *value, xgpu__tune_mode *mode);
bool xgpu__tune_budget_parse(const char *value, double *seconds);
/* What the library says of a value it refuses for `name`, after
 * "NAME='value' ": "is not one of on, off, auto (or 1, 0); the tuning
 * database is used". */
const char *xgpu__tune_setting_refusal(const char *name);

/* One remembered choice of a context. */
#define XGPU__TUNE_MEMO_MAX 48
typedef struct xgpu__tune_memo {
    xgpu__tune_kernel_id id;
    xgpu_dtype dtype;
    xgpu__tune_class cls;
    unsigned generation;
    xgpu__tune_choice choice;
} xgpu__tune_memo;

/* The choices a context's library calls made: the library keeps one set
 * per context (lib/cache.c) and passes it to every lookup. */
typedef struct xgpu__tune_memo_set {
    pthread_mutex_t lock;
    xgpu__tune_memo memo[XGPU__TUNE_MEMO_MAX];
    size_t count;
} xgpu__tune_memo_set;
void xgpu__tune_memo_init(xgpu__tune_memo_set *set);
void xgpu__tune_memo_destroy(xgpu__tune_memo_set *set);

/* The key of the context's device for a kernel. */
void xgpu__tune_key_of(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu__tune_key *key);
/* The hash a record's "source" holds for kernel `id` in this build: of
 * the prelude, the fragment header and the kernel's source (the
 * reductions share one), 16 hex digits. A record with another hash is
 * never used. */
const char *xgpu__tune_source_hash(xgpu__tune_kernel_id id);
/* The parameters a library call uses: the databases' closest fit, else
 * the built-in default; remembered in `memo` (one lock and a short scan
 * after the first call; the databases are read for the first only). */
void xgpu__tune_choose(xgpu_context *ctx, xgpu__tune_memo_set *memo, xgpu__tune_kernel_id id,
                       xgpu_dtype dtype, xgpu__tune_class cls, xgpu__tune_choice *out);
/* The choice without XGPU_TUNE=auto's tune (and, under auto, not
 * remembered unless exact, so that the first call still tunes). */
void xgpu__tune_peek(xgpu_context *ctx, xgpu__tune_memo_set *memo, xgpu__tune_kernel_id id,
                     xgpu_dtype dtype, xgpu__tune_class cls, xgpu__tune_choice *out);
/* Makes every context choose again (reading the databases afresh): the
 * tuner calls it after storing results. */
void xgpu__tune_forget(void);

#endif /* XGPU_TUNEDB_H */
