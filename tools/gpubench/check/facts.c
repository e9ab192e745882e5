/* The facts gpubench check judges, read from a result file of any 0.x
 * xgpu: each device's identity from the file's gpuinfo, its best figures
 * from the rows, and its "health" object where the file has one (files
 * after the 0.6.0 release). What an older file lacks is said, not guessed. */
#include "check.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cJSON *item(const cJSON *o, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* The length of the UTF-8 sequence at s (1 to 4), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s) {
    size_t n = s[0] < 0x80             ? 1
               : (s[0] & 0xe0) == 0xc0 ? 2
               : (s[0] & 0xf0) == 0xe0 ? 3
               : (s[0] & 0xf8) == 0xf0 ? 4
                                       : 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
    }
    return n;
}

/* A string member into out, fit for a terminal and for JSON: control
 * characters and bytes that are not UTF-8 become '?', and a cut never
 * splits a character. */
static void copy_str(const cJSON *o, const char *key, char *out, size_t size) {
    const cJSON *v = item(o, key);
    if (!cJSON_IsString(v)) {
        return;
    }
    const unsigned char *in = (const unsigned char *)v->valuestring;
    size_t k = 0;
    while (*in) {
        size_t n = utf8_len(in);
        if (n == 0 || (n == 1 && (*in < 0x20 || *in == 0x7f))) {
            n = 1;
            if (k + 1 >= size) {
                break;
            }
            out[k++] = '?';
        } else {
            if (k + n >= size) {
                break;
            }
            memcpy(out + k, in, n);
            k += n;
        }
        in += n;
    }
    out[k] = '\0';
}

static double get_num(const cJSON *o, const char *key) {
    const cJSON *v = item(o, key);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

static int get_int(const cJSON *o, const char *key) {
    double d = get_num(o, key);
    return isnan(d) || d < 0 || d > 1e9 ? -1 : (int)d;
}

static int get_bool(const cJSON *o, const char *key) {
    const cJSON *v = item(o, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

/* The file's gpuinfo device whose paths include `path`, NULL when none. */
static const cJSON *gpuinfo_device(const cJSON *root, const char *path) {
    const cJSON *devs = item(item(root, "gpuinfo"), "devices"), *d, *p;
    cJSON_ArrayForEach(d, devs) {
        cJSON_ArrayForEach(p, item(d, "paths")) {
            if (cJSON_IsString(p) && !strcmp(p->valuestring, path)) {
                return d;
            }
        }
    }
    return NULL;
}

static void read_identity(const cJSON *root, gc_facts *f) {
    const cJSON *d = gpuinfo_device(root, f->device);
    f->mem_bytes = f->max_clock_mhz = NAN;
    f->compute_units = -1;
    if (!d) {
        return;
    }
    copy_str(d, "name", f->name, sizeof f->name);
    copy_str(d, "type", f->type, sizeof f->type);
    copy_str(d, "pci_bus_id", f->pci_bus_id, sizeof f->pci_bus_id);
    copy_str(d, "driver_version", f->driver, sizeof f->driver);
    f->mem_bytes = get_num(d, "global_mem_bytes");
    f->max_clock_mhz = get_num(d, "max_clock_mhz");
    f->compute_units = get_int(d, "compute_units");
}

static void read_health(const cJSON *h, gc_facts *f) {
    f->h.known = true;
    copy_str(h, "source", f->h.source, sizeof f->h.source);
    const cJSON *g = item(h, "pcie");
    copy_str(g, "source", f->h.pcie_source, sizeof f->h.pcie_source);
    f->h.pcie_under_load = get_bool(g, "under_load");
    f->h.pcie_gen = get_int(g, "current_gen");
    f->h.pcie_max_gen = get_int(g, "max_gen");
    f->h.pcie_width = get_int(g, "current_width");
    f->h.pcie_max_width = get_int(g, "max_width");
    g = item(h, "ecc");
    f->h.ecc_enabled = get_bool(g, "enabled");
    f->h.ecc_volatile_corr = get_num(g, "volatile_corrected");
    f->h.ecc_volatile_unc = get_num(g, "volatile_uncorrected");
    f->h.ecc_aggregate_corr = get_num(g, "aggregate_corrected");
    f->h.ecc_aggregate_unc = get_num(g, "aggregate_uncorrected");
    g = item(h, "retired_pages");
    f->h.retired_sbe = get_num(g, "single_bit");
    f->h.retired_dbe = get_num(g, "double_bit");
    f->h.retired_pending = get_bool(g, "pending");
    f->h.retired_unreservable = get_num(g, "unreservable");
    g = item(h, "xid");
    f->h.xid_readable = get_bool(g, "readable");
    f->h.xid_count = get_num(g, "count");
    g = item(h, "remapped_rows");
    f->h.remap_corr = get_num(g, "correctable");
    f->h.remap_unc = get_num(g, "uncorrectable");
    f->h.remap_pending = get_bool(g, "pending");
    f->h.remap_failed = get_bool(g, "failed");
    g = item(h, "nvlink");
    f->h.nvlink_links = get_int(g, "links");
    f->h.nvlink_up = get_int(g, "up");
    g = item(h, "mig");
    f->h.mig_enabled = get_bool(g, "enabled");
    f->h.mig_pending = get_bool(g, "pending");
    f->h.persistence = get_bool(item(h, "persistence"), "enabled");
    f->h.temperature_c = get_num(h, "temperature_c");
    g = item(h, "driver");
    copy_str(g, "kernel_module", f->h.module_version, sizeof f->h.module_version);
    copy_str(g, "library", f->h.library_version, sizeof f->h.library_version);
    f->h.driver_match = get_bool(g, "match");
}

static void no_health(gc_facts *f) {
    f->h.pcie_gen = f->h.pcie_max_gen = f->h.pcie_width = f->h.pcie_max_width = -1;
    f->h.pcie_under_load = f->h.ecc_enabled = f->h.retired_pending = f->h.remap_pending = -1;
    f->h.remap_failed = f->h.nvlink_links = f->h.nvlink_up = f->h.mig_enabled = f->h.mig_pending =
        -1;
    f->h.persistence = f->h.driver_match = f->h.xid_readable = -1;
    f->h.retired_unreservable = f->h.xid_count = NAN;
    f->h.ecc_volatile_corr = f->h.ecc_volatile_unc = f->h.ecc_aggregate_corr = NAN;
    f->h.ecc_aggregate_unc = f->h.retired_sbe = f->h.retired_dbe = f->h.remap_corr = NAN;
    f->h.remap_unc = f->h.temperature_c = NAN;
}

static bool is_vendor_blas(const char *impl) {
    return !strcmp(impl, "cublas") || !strcmp(impl, "rocblas") || !strcmp(impl, "hipblas") ||
           !strcmp(impl, "clblast");
}

/* A row's rate, NAN when it did not run. */
static double row_rate(const cJSON *r, const char *key) {
    return cJSON_IsNumber(item(r, "median_s")) ? get_num(r, key) : NAN;
}

/* Which GEMM row stands for the device: f32 first (the reference
 * figures are f32), then the largest n, then the highest rate. */
static bool gemm_better(const char *dtype, int n, double g, const char *best_dtype, int best_n,
                        double best) {
    if (isnan(best)) {
        return true;
    }
    bool f32 = !strcmp(dtype, "f32"), best_f32 = !strcmp(best_dtype, "f32");
    if (f32 != best_f32) {
        return f32;
    }
    if (strcmp(dtype, best_dtype) != 0) {
        return false;
    }
    return n > best_n || (n == best_n && g > best);
}

static void take_gemm(const cJSON *r, const char *impl, const char *dtype, gc_facts *f) {
    double g = row_rate(r, "gflops");
    int n = get_int(r, "size");
    /* The references are single GEMMs: a strided-batched row (its "batch"
     * is new after 0.6.0; absent means one) is no figure of the device. */
    const cJSON *batch = item(r, "batch");
    if (isnan(g) || (cJSON_IsNumber(batch) && batch->valuedouble > 1)) {
        return;
    }
    if (is_vendor_blas(impl)) {
        if (gemm_better(dtype, n, g, f->gemm_vendor_dtype, f->gemm_vendor_n,
                        f->gemm_vendor_gflops)) {
            f->gemm_vendor_gflops = g;
            f->gemm_vendor_n = n;
            snprintf(f->gemm_vendor_dtype, sizeof f->gemm_vendor_dtype, "%s", dtype);
            snprintf(f->gemm_vendor_impl, sizeof f->gemm_vendor_impl, "%s", impl);
        }
    } else if (!strcmp(impl, "xgpu") &&
               gemm_better(dtype, n, g, f->gemm_xgpu_dtype, f->gemm_xgpu_n, f->gemm_xgpu_gflops)) {
        f->gemm_xgpu_gflops = g;
        f->gemm_xgpu_n = n;
        snprintf(f->gemm_xgpu_dtype, sizeof f->gemm_xgpu_dtype, "%s", dtype);
    }
}

static void take_row(const cJSON *r, gc_facts *f) {
    char bench[16] = "", impl[16] = "", dtype[8] = "", shape[64] = "";
    copy_str(r, "bench", bench, sizeof bench);
    copy_str(r, "impl", impl, sizeof impl);
    copy_str(r, "dtype", dtype, sizeof dtype);
    copy_str(r, "shape", shape, sizeof shape);
    f->rows++;
    bool ran = cJSON_IsNumber(item(r, "median_s"));
    if (!ran) {
        f->unrun_rows++;
    } else if (get_bool(r, "verified") != 1) {
        if (!f->failed_rows++) {
            snprintf(f->failed_first, sizeof f->failed_first, "%s %s %s %s", bench, impl, dtype,
                     shape);
        }
    }
    const cJSON *t = item(r, "telemetry");
    if (get_bool(t, "throttled") == 1) {
        f->throttled_rows++;
        const cJSON *reason;
        bool thermal = false;
        cJSON_ArrayForEach(reason, item(t, "reasons")) {
            thermal |= cJSON_IsString(reason) && (strstr(reason->valuestring, "thermal") ||
                                                  strstr(reason->valuestring, "hw_slowdown") ||
                                                  strstr(reason->valuestring, "power_brake"));
        }
        f->thermal_rows += thermal;
        if (!f->throttle_why[0]) {
            copy_str(t, "throttle_why", f->throttle_why, sizeof f->throttle_why);
        }
    }
    if (!ran) {
        return;
    }
    static const char *const benches[] = {"gemm", "reduce", "stream", "transfer", "launch"};
    for (unsigned b = 0; b < sizeof benches / sizeof benches[0]; b++) {
        f->benches |= !strcmp(bench, benches[b]) ? 1u << b : 0;
    }
    double size = get_num(r, "size");
    if (!strcmp(bench, "gemm")) {
        take_gemm(r, impl, dtype, f);
    } else if (!strcmp(bench, "stream") && !strncmp(shape, "triad", 5)) {
        double mib = size / (1 << 20);
        double g = row_rate(r, "gbs");
        if (!isnan(g) && (isnan(f->triad_gbs) || mib > f->stream_mib ||
                          (mib == f->stream_mib && g > f->triad_gbs))) {
            f->triad_gbs = g;
            f->stream_mib = mib;
        }
    } else if (!strcmp(bench, "transfer") && strstr(shape, "pinned")) {
        double g = row_rate(r, "gbs");
        double mib = size / (1 << 20);
        /* The best copy large enough to judge, else the best of all. */
        bool big = mib >= GC_MIN_TRANSFER_MIB, best_big = f->transfer_mib >= GC_MIN_TRANSFER_MIB;
        if (!isnan(g) && (isnan(f->transfer_gbs) || (big && !best_big) ||
                          (big == best_big && g > f->transfer_gbs))) {
            f->transfer_gbs = g;
            f->transfer_mib = mib;
            snprintf(f->transfer_shape, sizeof f->transfer_shape, "%s", shape);
        }
    } else if (!strcmp(bench, "launch") && !strcmp(impl, "xgpu")) {
        double us = get_num(r, "median_s") * 1e6;
        if (!strcmp(shape, "enqueue")) {
            f->enqueue_us = us;
        } else if (!strcmp(shape, "round trip")) {
            f->round_trip_us = us;
        }
    }
}

static void init_facts(gc_facts *f, const cJSON *root, const char *file, const char *path) {
    memset(f, 0, sizeof *f);
    snprintf(f->file, sizeof f->file, "%s", file ? file : "-");
    copy_str(root, "host", f->host, sizeof f->host);
    copy_str(root, "xgpu_version", f->version, sizeof f->version);
    copy_str(root, "started_utc", f->started, sizeof f->started);
    snprintf(f->device, sizeof f->device, "%s", path);
    f->triad_gbs = f->stream_mib = f->gemm_vendor_gflops = f->gemm_xgpu_gflops = NAN;
    f->transfer_gbs = f->transfer_mib = f->enqueue_us = f->round_trip_us = NAN;
    no_health(f);
    read_identity(root, f);
}

/* What the file lacks, for the devices' "lacks". */
static void say_lacks(const cJSON *root, gc_facts *f) {
    char parts[3][80];
    int n = 0;
    if (!f->h.known) {
        snprintf(parts[n++], sizeof parts[0],
                 "no health (PCIe link, ECC, NVLink, MIG, persistence)");
    }
    if (!cJSON_IsObject(item(root, "gpuinfo"))) {
        snprintf(parts[n++], sizeof parts[0], "no gpuinfo (model, memory, compute units)");
    }
    if (!item(root, "started_utc")) {
        snprintf(parts[n++], sizeof parts[0], "no date");
    }
    if (!n) {
        return;
    }
    char text[512];
    int w = snprintf(text, sizeof text, "written by xgpu %s: %s%s%s%s%s",
                     f->version[0] ? f->version : "of unknown version", parts[0], n > 1 ? "; " : "",
                     n > 1 ? parts[1] : "", n > 2 ? "; " : "", n > 2 ? parts[2] : "");
    size_t len = w < 0 ? 0 : (size_t)w;
    len = len < sizeof f->lacks ? len : sizeof f->lacks - 1;
    memcpy(f->lacks, text, len);
    f->lacks[len] = '\0';
}

int gc_facts_read(const char *text, size_t len, const char *file, gc_facts **out, size_t *n,
                  char *why, size_t why_size) {
    *out = NULL;
    *n = 0;
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        snprintf(why, why_size, "not valid JSON (truncated or damaged)");
        return -1;
    }
    const cJSON *schema = item(root, "schema"), *results = item(root, "results");
    const char *version =
        cJSON_IsString(item(root, "xgpu_version")) ? item(root, "xgpu_version")->valuestring : "";
    int rc = -1;
    if (!cJSON_IsObject(root) || !cJSON_IsString(schema) ||
        strcmp(schema->valuestring, "xgpu.gpubench/1") != 0) {
        snprintf(why, why_size,
                 "not a gpubench result file (schema \"%.64s\", expected \"xgpu.gpubench/1\")",
                 cJSON_IsString(schema) ? schema->valuestring : "");
        goto done;
    }
    if (!cJSON_IsArray(results)) {
        snprintf(why, why_size, "a gpubench result file whose \"results\" is not an array");
        goto done;
    }
    if (version[0] && strncmp(version, "0.", 2) != 0) {
        snprintf(why, why_size, "written by xgpu %.32s, which this gpubench (0.x) cannot read",
                 version);
        goto done;
    }
    /* One gc_facts per device path the rows name, in their order. */
    size_t cap = (size_t)cJSON_GetArraySize(results);
    gc_facts *f = calloc(cap ? cap : 1, sizeof *f);
    if (!f) {
        snprintf(why, why_size, "out of memory");
        goto done;
    }
    const cJSON *r;
    cJSON_ArrayForEach(r, results) {
        const cJSON *dev = item(r, "device");
        if (!cJSON_IsObject(r) || !cJSON_IsString(dev) || !strcmp(dev->valuestring, "host")) {
            continue;
        }
        size_t k = 0;
        while (k < *n && strcmp(f[k].device, dev->valuestring) != 0) {
            k++;
        }
        if (k == *n) {
            init_facts(&f[k], root, file, dev->valuestring);
            copy_str(r, "backend", f[k].backend, sizeof f[k].backend);
            if (!f[k].name[0]) {
                copy_str(r, "device_name", f[k].name, sizeof f[k].name);
            }
            /* A device's health: its entry read under load, else its last. */
            const cJSON *h, *pick = NULL;
            cJSON_ArrayForEach(h, item(root, "health")) {
                const cJSON *hd = item(h, "device");
                if (cJSON_IsString(hd) && !strcmp(hd->valuestring, f[k].device) &&
                    (!pick || get_bool(item(pick, "pcie"), "under_load") != 1)) {
                    pick = h;
                }
            }
            if (pick) {
                read_health(pick, &f[k]);
            }
            say_lacks(root, &f[k]);
            (*n)++;
        }
        take_row(r, &f[k]);
    }
    /* A peer-to-peer copy that failed verification counts against both
     * of its devices. */
    const cJSON *pair;
    cJSON_ArrayForEach(pair, item(item(root, "p2p"), "pairs")) {
        char src[48] = "", dst[48] = "";
        copy_str(pair, "src", src, sizeof src);
        copy_str(pair, "dst", dst, sizeof dst);
        if (get_bool(pair, "verified") != 0 || !cJSON_IsNumber(item(pair, "gbs"))) {
            continue;
        }
        for (size_t k = 0; k < *n; k++) {
            if (!strcmp(f[k].device, src) || !strcmp(f[k].device, dst)) {
                if (!f[k].failed_rows++) {
                    snprintf(f[k].failed_first, sizeof f[k].failed_first, "p2p copy %s -> %s", src,
                             dst);
                }
                f[k].rows++;
            }
        }
    }
    if (!*n) {
        snprintf(why, why_size, "no device rows (only the host's, or none)");
        free(f);
        goto done;
    }
    *out = f;
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

bool gc_facts_same_device(const gc_facts *a, const gc_facts *b) {
    return !strcmp(a->host, b->host) && !strcmp(a->device, b->device) &&
           !strcmp(a->name, b->name) && !strcmp(a->pci_bus_id, b->pci_bus_id) &&
           !strcmp(a->version, b->version) && !strcmp(a->started, b->started) &&
           strcmp(a->file, b->file) != 0 && (a->started[0] || !(a->benches & b->benches));
}

void gc_facts_merge(gc_facts *into, const gc_facts *from) {
    size_t used = strlen(into->file);
    snprintf(into->file + used, sizeof into->file - used, " + %s", from->file);
    if (!isnan(from->triad_gbs) &&
        (isnan(into->triad_gbs) || from->stream_mib > into->stream_mib)) {
        into->triad_gbs = from->triad_gbs;
        into->stream_mib = from->stream_mib;
    }
    if (!isnan(from->gemm_vendor_gflops) &&
        gemm_better(from->gemm_vendor_dtype, from->gemm_vendor_n, from->gemm_vendor_gflops,
                    into->gemm_vendor_dtype, into->gemm_vendor_n, into->gemm_vendor_gflops)) {
        into->gemm_vendor_gflops = from->gemm_vendor_gflops;
        into->gemm_vendor_n = from->gemm_vendor_n;
        memcpy(into->gemm_vendor_dtype, from->gemm_vendor_dtype, sizeof into->gemm_vendor_dtype);
        memcpy(into->gemm_vendor_impl, from->gemm_vendor_impl, sizeof into->gemm_vendor_impl);
    }
    if (!isnan(from->gemm_xgpu_gflops) &&
        gemm_better(from->gemm_xgpu_dtype, from->gemm_xgpu_n, from->gemm_xgpu_gflops,
                    into->gemm_xgpu_dtype, into->gemm_xgpu_n, into->gemm_xgpu_gflops)) {
        into->gemm_xgpu_gflops = from->gemm_xgpu_gflops;
        into->gemm_xgpu_n = from->gemm_xgpu_n;
        memcpy(into->gemm_xgpu_dtype, from->gemm_xgpu_dtype, sizeof into->gemm_xgpu_dtype);
    }
    if (!isnan(from->transfer_gbs) &&
        (isnan(into->transfer_gbs) || from->transfer_gbs > into->transfer_gbs)) {
        into->transfer_gbs = from->transfer_gbs;
        into->transfer_mib = from->transfer_mib;
        memcpy(into->transfer_shape, from->transfer_shape, sizeof into->transfer_shape);
    }
    if (isnan(into->enqueue_us)) {
        into->enqueue_us = from->enqueue_us;
    }
    if (isnan(into->round_trip_us)) {
        into->round_trip_us = from->round_trip_us;
    }
    if (!into->failed_rows && from->failed_rows) {
        memcpy(into->failed_first, from->failed_first, sizeof into->failed_first);
    }
    if (!into->throttle_why[0]) {
        memcpy(into->throttle_why, from->throttle_why, sizeof into->throttle_why);
    }
    into->benches |= from->benches;
    into->rows += from->rows;
    into->failed_rows += from->failed_rows;
    into->unrun_rows += from->unrun_rows;
    into->throttled_rows += from->throttled_rows;
    into->thermal_rows += from->thermal_rows;
    if (!into->h.known && from->h.known) {
        into->h = from->h;
        memcpy(into->lacks, from->lacks, sizeof into->lacks);
    }
}
