/* The library kernels' tunable parameters: names, text form, built-in
 * defaults, validity on a device, and the candidates a search tries. */
#include "tunedb_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const gemm_fields[] = {"tm", "tn", "tk", "wm", "wn", "vw", "contig"};
/* group: work-items per group; gpcu: groups per compute unit; unroll:
 * loads in flight per work-item (interleaved work-items); vec: lanes per
 * work-item over contiguous blocks (chunked 1), else 1 (scalar loads) or
 * more (16-byte loads); chunked: 0 the grid stride (GPUs), 1 each
 * work-item one contiguous chunk (pocl), 2 each group one contiguous
 * range with its work-items interleaved in it (CPU runtimes that
 * vectorise across work-items). */
static const char *const reduce_fields[] = {"group", "gpcu", "unroll", "vec", "chunked"};
/* unroll: 16-byte blocks of each array a work-item loads before it stores
 * (grid stride); 0: one element at a time (the only way before 0.6). */
static const char *const stream_fields[] = {"group", "gpcu", "chunked", "unroll"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const xgpu__tune_kernel kernels[XGPU__TK_COUNT] = {
    {"gemm", gemm_fields, COUNT(gemm_fields), "GFLOP/s", COUNT(gemm_fields)},
    {"sum", reduce_fields, COUNT(reduce_fields), "GB/s", COUNT(reduce_fields)},
    {"minmax", reduce_fields, COUNT(reduce_fields), "GB/s", COUNT(reduce_fields)},
    {"argmax", reduce_fields, COUNT(reduce_fields), "GB/s", COUNT(reduce_fields)},
    {"stream", stream_fields, COUNT(stream_fields), "GB/s", 3},
};

const xgpu__tune_kernel *xgpu__tune_kernel_get(xgpu__tune_kernel_id id) {
    return &kernels[id];
}

int xgpu__tune_kernel_find(const char *name) {
    for (int i = 0; i < XGPU__TK_COUNT; i++) {
        if (name && !strcmp(kernels[i].name, name)) {
            return i;
        }
    }
    return -1;
}

const char *xgpu__tune_class_name(xgpu__tune_class c) {
    return c == XGPU__TC_SMALL ? "small" : "large";
}

int xgpu__tune_class_find(const char *name) {
    return !strcmp(name, "small") ? XGPU__TC_SMALL : (!strcmp(name, "large") ? XGPU__TC_LARGE : -1);
}

xgpu__tune_class xgpu__tune_class_of(xgpu__tune_kernel_id id, size_t work) {
    /* GEMM: up to 512^3 multiply-adds; the others: up to 16 MiB, which a
     * cache may hold and where launch costs still show. */
    size_t limit = id == XGPU__TK_GEMM ? (size_t)512 * 512 * 512 : (size_t)16 << 20;
    return work <= limit ? XGPU__TC_SMALL : XGPU__TC_LARGE;
}

void xgpu__tune_format(xgpu__tune_kernel_id id, const xgpu__tune_values *v, char *out,
                       size_t size) {
    const xgpu__tune_kernel *k = &kernels[id];
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < k->field_count && used < size; i++) {
        int n = snprintf(out + used, size - used, "%s%s=%u", i ? "," : "", k->fields[i], v->v[i]);
        if (n < 0) {
            break;
        }
        used += (size_t)n;
    }
}

bool xgpu__tune_parse(xgpu__tune_kernel_id id, const char *text, xgpu__tune_values *v, char *why,
                      size_t why_size) {
    const xgpu__tune_kernel *k = &kernels[id];
    bool seen[XGPU__TUNE_FIELDS_MAX] = {false};
    *v = (xgpu__tune_values){{0}};
    const char *p = text ? text : "";
    while (*p) {
        const char *eq = strchr(p, '=');
        size_t len = eq ? (size_t)(eq - p) : 0;
        size_t f = 0;
        while (f < k->field_count &&
               (strlen(k->fields[f]) != len || strncmp(p, k->fields[f], len))) {
            f++;
        }
        if (!eq || f == k->field_count) {
            if (why) {
                snprintf(why, why_size, "'%.40s': not a %s parameter", p, k->name);
            }
            return false;
        }
        p = eq + 1;
        unsigned long value = 0;
        const char *digits = p;
        while (isdigit((unsigned char)*p) && value <= 65536) {
            value = value * 10 + (unsigned long)(*p++ - '0');
        }
        if (p == digits || value > 65536 || (*p && *p != ',') || seen[f]) {
            if (why) {
                snprintf(why, why_size, "%s: %s", k->fields[f],
                         seen[f] ? "given twice" : "not a whole number up to 65536");
            }
            return false;
        }
        seen[f] = true;
        v->v[f] = (uint32_t)value;
        if (*p == ',' && !*++p) {
            if (why) {
                snprintf(why, why_size, "it ends with a comma");
            }
            return false;
        }
    }
    for (size_t f = 0; f < k->optional_from; f++) {
        if (!seen[f]) {
            if (why) {
                snprintf(why, why_size, "%s is missing", k->fields[f]);
            }
            return false;
        }
    }
    return true;
}

xgpu_gemm_params xgpu__tune_to_gemm(const xgpu__tune_values *v) {
    return (xgpu_gemm_params){v->v[0], v->v[1], v->v[2], v->v[3], v->v[4], v->v[5], v->v[6]};
}

xgpu__tune_values xgpu__tune_from_gemm(const xgpu_gemm_params *p) {
    return (xgpu__tune_values){{p->tile_m, p->tile_n, p->tile_k, p->work_m, p->work_n,
                                p->vector_width ? p->vector_width : 1, p->contiguous}};
}

static bool is_cpu(const xgpu_device_info *info) {
    return info->type == XGPU_DEVICE_TYPE_CPU;
}

bool xgpu__tune_cpu_simt(const xgpu_device_info *info) {
    return is_cpu(info) && info->platform[0] &&
           strcmp(info->platform, "Portable Computing Language") != 0;
}

uint32_t xgpu__tune_cpu_lanes(const xgpu_device_info *info) {
    uint32_t w = info->native_vector_width_f32;
    return w >= 4 && w <= 64 && !(w & (w - 1)) ? w : 8;
}

static uint32_t fit_group(const xgpu_device_info *info, uint32_t group) {
    while (info->max_group_size && group > info->max_group_size && group > 1) {
        group /= 2;
    }
    return group;
}

/* The CPU reductions' lanes a block: four 64-byte vectors, or one (VW in
 * kernels/reduce_vectors.xgpu) in the large class. */
static uint32_t cpu_vec(xgpu_dtype dtype, xgpu__tune_class cls) {
    return cls != XGPU__TC_LARGE ? 64 : xgpu_dtype_size(dtype) == 8 ? 8 : 16;
}

void xgpu__tune_builtin(xgpu__tune_kernel_id id, xgpu_dtype dtype, xgpu__tune_class cls,
                        const xgpu_device_info *info, xgpu__tune_values *v) {
    bool cpu = is_cpu(info);
    /* Neither a CPU nor a GPU (an accelerator, an emulator, a device type
     * xgpu does not know): small groups on a grid stride, the shape every
     * OpenCL device runs correctly and none runs badly. */
    bool unknown = !cpu && info->type != XGPU_DEVICE_TYPE_GPU;
    /* A CPU runtime that vectorises across work-items runs a group one
     * vector of work-items at a time, each vector through the whole
     * kernel: a group wider than one vector sweeps its range once per
     * vector, each sweep reading a slice of every cache line. Its stream
     * kernels take groups of one vector, each a contiguous range (Intel's
     * runtime, AVX-512: 16). */
    bool simt = xgpu__tune_cpu_simt(info);
    uint32_t lanes = xgpu__tune_cpu_lanes(info);
    *v = (xgpu__tune_values){{0}};
    switch (id) {
    case XGPU__TK_GEMM: {
        if (xgpu__gemm_frag_dtype(dtype)) {
            xgpu__gemm_frag_builtin(info, dtype, v);
            return;
        }
        xgpu_gemm_params p;
        xgpu__gemm_builtin(info, dtype, &p);
        *v = xgpu__tune_from_gemm(&p);
        return;
    }
    case XGPU__TK_SUM:
    case XGPU__TK_MINMAX:
    case XGPU__TK_ARGMAX:
        /* CPUs, both kinds: each work-item a contiguous chunk with 64
         * lanes, in OpenCL vector types (on 2 cores of an AVX-512 Xeon, f32
         * sum of 256 MiB with groups of 4, one a core: 29.7 GB/s on pocl
         * and 29.9 on Intel's runtime, clpeak 27.8 and 30.1; in another
         * run Intel's read 12.9 with the group-chunked layout). pocl: one
         * group of 4 per core. Runtimes that vectorise across work-items:
         * a group of one vector of work-items, 2 per core (on another host,
         * a 260 MiB L3 shared with other tenants, where Intel's runtime
         * read 0.6x clpeak with groups of 4: f64 and i32 sums 1.4x-1.5x
         * faster, argmax 2.5x, the f32 sum the same, medians of 3 rounds;
         * not measured on the first host; docs/results/
         * 2026-12-03-cpu-reductions); GPUs of every vendor: groups of
         * 256 (a multiple of every subgroup width, 8 to 64; fit_group
         * halves it for a device that allows less), 8 per compute unit, on
         * a grid stride with XGPU__REDUCE_UNROLL_GPU 16-byte loads in
         * flight; other devices: the grid stride with scalar loads.
         *
         * CPUs past 16 MiB (the large class): one 64-byte vector a block,
         * one accumulator, instead of four. Streaming from memory, the
         * single add chain keeps up and the shorter block reads faster;
         * inside a cache the add chain's latency binds and four hide it.
         * On 2 cores of an AMD EPYC, f32 sum of 256 MiB: pocl 1.29-1.51x
         * the device-to-device copy against 1.13-1.24x, Intel's runtime
         * 0.91-1.03x against 0.85-0.89x; at 1 MiB 0.57-0.73x against
         * 0.85-0.91x (docs/results/2026-12-07-reduce-vec-epyc). */
        *v = unknown ? (xgpu__tune_values){{fit_group(info, 64), 4, 1, 1, 0}}
             : simt  ? (xgpu__tune_values){{fit_group(info, lanes), 2, 1, cpu_vec(dtype, cls), 1}}
             : cpu   ? (xgpu__tune_values){{fit_group(info, 4), 1, 1, cpu_vec(dtype, cls), 1}}
                   : (xgpu__tune_values){{fit_group(info, 256), 8, XGPU__REDUCE_UNROLL_GPU, 4, 0}};
        return;
    case XGPU__TK_STREAM:
        /* CPUs: chunks per group of 64, 4 groups per core (pocl); GPUs:
         * groups of 256, 8 per compute unit, grid stride (as above), 2
         * 16-byte blocks of each array in flight per work-item; other
         * devices: the grid stride, one element at a time. */
        *v = unknown ? (xgpu__tune_values){{fit_group(info, 64), 4, 0, 0}}
             : simt  ? (xgpu__tune_values){{fit_group(info, lanes), 4, 2, 0}}
             : cpu   ? (xgpu__tune_values){{fit_group(info, 64), 4, 1, 0}}
                     : (xgpu__tune_values){{fit_group(info, 256), 8, 0, 2}};
        return;
    case XGPU__TK_COUNT:
        break;
    }
}

static bool say(char *why, size_t why_size, const char *text) {
    if (why) {
        snprintf(why, why_size, "%s", text);
    }
    return false;
}

static bool pow2(uint32_t x) {
    return x && !(x & (x - 1));
}

bool xgpu__tune_valid(xgpu__tune_kernel_id id, xgpu_dtype dtype, const xgpu_device_info *info,
                      const xgpu__tune_values *v, char *why, size_t why_size) {
    if (id == XGPU__TK_GEMM && xgpu__gemm_frag_dtype(dtype)) {
        return xgpu__gemm_frag_valid(dtype, info, v, why, why_size);
    }
    if (id == XGPU__TK_GEMM) {
        xgpu_gemm_params p = xgpu__tune_to_gemm(v);
        size_t elem = dtype == XGPU_F64 ? 8 : 4;
        struct xgpu__error_state *saved = xgpu__error_save();
        xgpu_status st = xgpu__gemm_check_params(&p, info, elem, "gemm");
        if (st != XGPU_SUCCESS && why) {
            snprintf(why, why_size, "%s", xgpu_last_error()->message);
        }
        xgpu__error_restore(saved);
        return st == XGPU_SUCCESS;
    }
    uint32_t group = v->v[0], gpcu = v->v[1];
    if (!pow2(group) || (info->max_group_size && group > info->max_group_size)) {
        return say(why, why_size, "group must be a power of two the device allows");
    }
    if (gpcu < 1 || gpcu > 64) {
        return say(why, why_size, "gpcu must be 1..64");
    }
    if (id == XGPU__TK_STREAM) {
        return (v->v[2] <= 2 && v->v[3] <= 8 && !(v->v[2] && v->v[3])) ||
               say(why, why_size, "chunked 0..2, unroll 0..8, unroll > 0 needs chunked 0");
    }
    uint32_t unroll = v->v[2], vec = v->v[3], chunked = v->v[4];
    if (chunked > 2 || unroll < 1 || unroll > 16 || vec < 1 || vec > 256) {
        return say(why, why_size, "unroll 1..16, vec 1..256, chunked 0..2");
    }
    if (unroll > 1 && chunked == 1) {
        return say(why, why_size, "unroll > 1 needs work-items interleaved (chunked 0 or 2)");
    }
    /* The tree in local memory: a value and an index per work-item. */
    uint64_t local = (uint64_t)group * 16 + 16;
    uint64_t local_max =
        info->local_mem_static_bytes ? info->local_mem_static_bytes : info->local_mem_bytes;
    (void)dtype;
    return !local_max || local <= local_max ||
           say(why, why_size, "the group's tree does not fit local memory");
}

/* Appends the valid, new values among `list`. */
static size_t add_valid(xgpu__tune_kernel_id id, xgpu_dtype dtype, const xgpu_device_info *info,
                        const xgpu__tune_values *list, size_t count, xgpu__tune_values *out,
                        size_t n, size_t max) {
    for (size_t i = 0; i < count && n < max; i++) {
        bool dup = false;
        for (size_t j = 0; j < n && !dup; j++) {
            dup = !memcmp(&out[j], &list[i], sizeof list[i]);
        }
        if (!dup && xgpu__tune_valid(id, dtype, info, &list[i], NULL, 0)) {
            out[n++] = list[i];
        }
    }
    return n;
}

#define V(...)                                                                                     \
    {                                                                                              \
        { __VA_ARGS__ }                                                                            \
    }

/* GEMM: on CPUs the register family first (contig=4: blocks of 4 to 12
 * rows by one to four vectors, 1 to 8 blocks per work-item, K blocks of
 * 64 to 512; OpenCL only), then contiguous work per item with 8 to 32
 * columns (a CPU's vector registers); on GPUs the GPU family (contig=2: 128x128 and
 * 128x256 tiles, K steps of 8 and 16, 128 or 256 work-items; 64x64 and
 * 32x32 for small problems), then the CPU family's strided work with 4x4
 * to 8x8 per item and 64 to 256 work-items. f64 halves the tiles' bytes. */
static const xgpu__tune_values gemm_cpu_reg[] = {
    V(96, 64, 512, 6, 64, 1, 4),  V(96, 64, 256, 6, 64, 1, 4), V(128, 32, 256, 8, 32, 1, 4),
    V(48, 64, 256, 6, 64, 1, 4),  V(24, 64, 128, 6, 64, 1, 4), V(48, 64, 128, 6, 64, 1, 4),
    V(192, 64, 512, 6, 64, 1, 4), V(48, 64, 512, 6, 64, 1, 4), V(6, 64, 256, 6, 64, 1, 4),
    V(48, 128, 256, 6, 64, 1, 4), V(64, 32, 256, 8, 32, 1, 4), V(48, 32, 256, 12, 32, 1, 4),
    V(32, 64, 256, 4, 64, 1, 4),  V(48, 16, 256, 6, 16, 1, 4), V(48, 64, 64, 6, 64, 1, 4),
};
static const xgpu__tune_values gemm_cpu_reg_f64[] = {
    V(96, 32, 256, 6, 32, 1, 4), V(96, 32, 512, 6, 32, 1, 4),  V(48, 32, 256, 6, 32, 1, 4),
    V(24, 32, 128, 6, 32, 1, 4), V(192, 32, 256, 6, 32, 1, 4), V(48, 32, 128, 6, 32, 1, 4),
    V(64, 16, 256, 8, 16, 1, 4), V(48, 16, 256, 12, 16, 1, 4), V(48, 8, 256, 6, 8, 1, 4),
};
static const xgpu__tune_values gemm_cpu[] = {
    V(128, 256, 16, 16, 64, 1, 1), V(512, 512, 16, 16, 64, 1, 1), V(256, 256, 16, 16, 64, 1, 1),
    V(128, 128, 16, 32, 8, 1, 1),  V(64, 128, 16, 8, 16, 1, 1),   V(64, 64, 16, 8, 16, 1, 1),
    V(128, 128, 16, 16, 16, 1, 1), V(64, 128, 32, 8, 32, 1, 1),   V(32, 128, 16, 4, 32, 1, 1),
    V(128, 64, 16, 16, 16, 1, 1),  V(64, 64, 32, 16, 16, 1, 1),   V(128, 128, 8, 16, 16, 1, 1),
    V(64, 256, 16, 8, 32, 1, 1),   V(32, 64, 16, 4, 16, 1, 1),    V(128, 128, 16, 8, 16, 4, 1),
    V(128, 128, 32, 32, 8, 1, 1),  V(128, 128, 16, 32, 8, 1, 0),  V(96, 128, 16, 12, 16, 1, 1),
    V(48, 64, 16, 6, 16, 1, 1),    V(256, 128, 16, 32, 16, 1, 1), V(128, 256, 16, 16, 32, 1, 1),
};
static const xgpu__tune_values gemm_cpu_f64[] = {
    V(128, 256, 16, 16, 64, 1, 1), V(256, 256, 16, 16, 32, 1, 1), V(128, 128, 16, 16, 32, 1, 1),
    V(64, 64, 16, 16, 8, 1, 1),    V(64, 64, 16, 8, 8, 1, 1),     V(64, 64, 16, 16, 8, 1, 0),
    V(32, 64, 16, 4, 8, 1, 1),     V(64, 128, 16, 8, 16, 1, 1),   V(128, 64, 16, 16, 8, 1, 1),
    V(64, 64, 32, 8, 16, 1, 1),    V(32, 32, 16, 4, 8, 1, 1),     V(48, 64, 16, 6, 8, 1, 1),
    V(128, 128, 16, 16, 16, 1, 1),
};
static const xgpu__tune_values gemm_gpu[] = {
    V(128, 128, 16, 8, 8, 4, 2),  V(128, 128, 8, 8, 8, 4, 2),   V(128, 256, 16, 8, 16, 4, 2),
    V(128, 256, 8, 8, 16, 4, 2),  V(128, 128, 16, 8, 16, 4, 2), V(128, 128, 8, 8, 16, 4, 2),
    V(128, 128, 16, 16, 8, 4, 2), V(128, 128, 8, 16, 8, 4, 2),  V(64, 64, 16, 4, 4, 4, 2),
    V(64, 64, 8, 8, 4, 4, 2),     V(32, 32, 8, 4, 4, 4, 2),     V(128, 128, 16, 8, 8, 4, 0),
    V(64, 64, 16, 4, 4, 4, 0),    V(128, 128, 8, 8, 8, 4, 0),   V(128, 64, 16, 8, 4, 4, 0),
    V(64, 128, 16, 4, 8, 4, 0),   V(128, 128, 32, 8, 8, 4, 0),  V(128, 128, 16, 8, 8, 2, 0),
    V(64, 64, 32, 4, 4, 4, 0),    V(128, 256, 16, 8, 16, 4, 0), V(256, 128, 16, 16, 8, 4, 0),
    V(64, 64, 16, 8, 8, 4, 0),    V(128, 128, 16, 16, 8, 4, 0), V(32, 32, 16, 2, 2, 1, 0),
    V(128, 128, 16, 8, 8, 1, 0),
};
static const xgpu__tune_values gemm_gpu_f64[] = {
    V(64, 64, 16, 4, 4, 2, 2), V(64, 64, 8, 4, 4, 2, 2),   V(128, 64, 8, 8, 4, 2, 2),
    V(64, 128, 8, 4, 8, 2, 2), V(128, 128, 8, 8, 8, 2, 2), V(32, 32, 8, 4, 4, 2, 2),
    V(64, 64, 16, 4, 4, 2, 0), V(64, 64, 8, 4, 4, 2, 0),   V(128, 64, 16, 8, 4, 2, 0),
    V(64, 128, 8, 4, 8, 2, 0), V(32, 32, 16, 2, 2, 2, 0),  V(128, 128, 8, 8, 8, 2, 0),
    V(64, 64, 16, 4, 4, 1, 0),
};
/* Reductions: CPUs chunk (group, gpcu, 1, lanes, 1), then try a grid
 * stride and a range per group of one or two vectors of work-items
 * (chunked 2), then chunks in groups of one vector (16 or 8) of
 * work-items, two a core (the built-in of runtimes that vectorise across
 * work-items; the tuner adds each device's built-in first); GPUs stride with 1 to 8 loads in
 * flight, 16 bytes (vec 4) or one element (vec 1) each. */
static const xgpu__tune_values reduce_cpu[] = {
    V(4, 1, 1, 64, 1),  V(4, 1, 1, 32, 1),  V(4, 1, 1, 128, 1), V(1, 1, 1, 64, 1),
    V(8, 1, 1, 64, 1),  V(4, 2, 1, 64, 1),  V(2, 2, 1, 64, 1),  V(16, 1, 1, 16, 1),
    V(4, 4, 1, 64, 1),  V(1, 4, 1, 64, 1),  V(4, 1, 1, 16, 1),  V(1, 1, 1, 256, 1),
    V(64, 4, 4, 1, 0),  V(16, 2, 1, 16, 0), V(16, 4, 4, 1, 2),  V(8, 4, 4, 1, 2),
    V(16, 1, 8, 1, 2),  V(32, 2, 4, 1, 2),  V(16, 8, 4, 1, 2),  V(16, 4, 2, 1, 2),
    V(16, 2, 1, 64, 1), V(8, 2, 1, 64, 1),
};
static const xgpu__tune_values reduce_gpu[] = {
    V(256, 8, 4, 4, 0),  V(256, 8, 2, 4, 0),  V(256, 16, 2, 4, 0), V(512, 4, 4, 4, 0),
    V(256, 8, 1, 4, 0),  V(256, 4, 8, 4, 0),  V(128, 16, 4, 4, 0), V(1024, 2, 2, 4, 0),
    V(256, 8, 4, 1, 0),  V(256, 8, 8, 1, 0),  V(256, 16, 4, 1, 0), V(512, 8, 4, 1, 0),
    V(1024, 4, 4, 1, 0), V(256, 32, 2, 1, 0), V(256, 8, 1, 1, 0),  V(512, 16, 8, 1, 0),
};
static const xgpu__tune_values stream_cpu[] = {
    V(64, 4, 1, 0), V(64, 1, 1, 0), V(16, 4, 1, 0), V(128, 4, 1, 0), V(64, 8, 1, 0),
    V(32, 2, 1, 0), V(8, 4, 1, 0),  V(64, 2, 1, 0), V(256, 1, 1, 0), V(256, 4, 0, 1),
    V(16, 4, 2, 0), V(8, 4, 2, 0),  V(16, 8, 2, 0), V(32, 2, 2, 0),  V(16, 1, 2, 0),
};
static const xgpu__tune_values stream_gpu[] = {
    V(256, 8, 0, 2),  V(256, 8, 0, 1),  V(256, 8, 0, 4),  V(512, 4, 0, 2), V(1024, 2, 0, 2),
    V(128, 16, 0, 2), V(256, 16, 0, 1), V(256, 4, 0, 4),  V(256, 8, 0, 0), V(256, 16, 0, 0),
    V(512, 8, 0, 0),  V(1024, 4, 0, 0), V(256, 32, 0, 0),
};

size_t xgpu__tune_candidates(xgpu__tune_kernel_id id, xgpu_dtype dtype,
                             const xgpu_device_info *info, xgpu__tune_values *out, size_t max) {
    bool cpu = is_cpu(info), f64 = dtype == XGPU_F64;
    xgpu__tune_values builtin[XGPU__TC_COUNT];
    for (int c = 0; c < XGPU__TC_COUNT; c++) {
        xgpu__tune_builtin(id, dtype, (xgpu__tune_class)c, info, &builtin[c]);
    }
    size_t n = add_valid(id, dtype, info, builtin, XGPU__TC_COUNT, out, 0, max);
    if (id == XGPU__TK_GEMM && xgpu__gemm_frag_dtype(dtype)) {
        return xgpu__gemm_frag_candidates(dtype, info, out, n, max);
    }
    const xgpu__tune_values *list;
    size_t count;
    switch (id) {
    case XGPU__TK_GEMM:
        if (cpu) { /* the register family first; refused off OpenCL */
            n = add_valid(id, dtype, info, f64 ? gemm_cpu_reg_f64 : gemm_cpu_reg,
                          f64 ? COUNT(gemm_cpu_reg_f64) : COUNT(gemm_cpu_reg), out, n, max);
        }
        list = cpu ? (f64 ? gemm_cpu_f64 : gemm_cpu) : (f64 ? gemm_gpu_f64 : gemm_gpu);
        count = cpu ? (f64 ? COUNT(gemm_cpu_f64) : COUNT(gemm_cpu))
                    : (f64 ? COUNT(gemm_gpu_f64) : COUNT(gemm_gpu));
        break;
    case XGPU__TK_STREAM:
        list = cpu ? stream_cpu : stream_gpu;
        count = cpu ? COUNT(stream_cpu) : COUNT(stream_gpu);
        break;
    default:
        list = cpu ? reduce_cpu : reduce_gpu;
        count = cpu ? COUNT(reduce_cpu) : COUNT(reduce_gpu);
        break;
    }
    n = add_valid(id, dtype, info, list, count, out, n, max);
    /* The other device type's list last: a device may not behave as its
     * type suggests. */
    if (id == XGPU__TK_GEMM && !f64) {
        n = add_valid(id, dtype, info, cpu ? gemm_gpu : gemm_cpu,
                      cpu ? COUNT(gemm_gpu) : COUNT(gemm_cpu), out, n, max);
    }
    return n;
}

size_t xgpu__tune_neighbours(xgpu__tune_kernel_id id, xgpu_dtype dtype,
                             const xgpu_device_info *info, const xgpu__tune_values *v,
                             xgpu__tune_values *out, size_t max) {
    const xgpu__tune_kernel *k = &kernels[id];
    xgpu__tune_values list[4 * XGPU__TUNE_FIELDS_MAX + 8];
    size_t count = 0;
    for (size_t f = 0; f < k->field_count; f++) {
        xgpu__tune_values up = *v, down = *v;
        bool flag = !strcmp(k->fields[f], "contig") || !strcmp(k->fields[f], "chunked");
        /* chunked cycles through its three layouts, contig toggles. */
        up.v[f] = !flag                              ? (v->v[f] ? v->v[f] * 2 : 1)
                  : !strcmp(k->fields[f], "chunked") ? (v->v[f] + 1) % 3
                                                     : !v->v[f];
        down.v[f] = v->v[f] / 2;
        list[count++] = up;
        if (!flag && down.v[f] != v->v[f]) {
            list[count++] = down;
        }
    }
    if (id == XGPU__TK_GEMM) {
        /* Tiles and the work per item together: the group's shape stays. */
        for (int side = 0; side < 2; side++) {
            xgpu__tune_values up = *v, down = *v;
            up.v[side] *= 2;
            up.v[side + 3] *= 2;
            down.v[side] /= 2;
            down.v[side + 3] /= 2;
            list[count++] = up;
            list[count++] = down;
        }
    }
    return add_valid(id, dtype, info, list, count, out, 0, max);
}
