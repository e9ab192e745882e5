/* gpuinfo --doctor: walk each backend's stack layer by layer (plugin,
 * vendor libraries, OpenCL ICD files, device nodes, environment), then
 * build and run a small kernel on every device. Every problem line ends
 * with what to do about it. */
#define _GNU_SOURCE
#include "gpuinfo.h"
#include "device_id.h"
#include "tune_env.h"

#include <dirent.h>
#include <dlfcn.h>
#include <grp.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct smoke_result {
    char path[64];
    char name[256];
    int pass;
    char detail[1024];
    char tuning[3][300]; /* where gemm, sum and stream take their parameters from */
} smoke_result;

/* Which parameters the library kernels would use on this context, for
 * the large problems, and where they come from. */
static void tuning_of(xgpu_context *ctx, smoke_result *r) {
    static const char *const kernels[] = {"gemm", "sum", "stream"};
    static const size_t sizes[] = {(size_t)1024 * 1024 * 1024, (size_t)256 << 20,
                                   (size_t)128 << 20};
    for (int i = 0; i < 3; i++) {
        xgpu_tune_choice c;
        if (xgpu_tune_lookup(ctx, kernels[i], XGPU_F32, sizes[i], &c) != XGPU_SUCCESS) {
            snprintf(r->tuning[i], sizeof r->tuning[i], "%s: %s", kernels[i],
                     xgpu_last_error()->message);
        } else if (c.rate > 0) {
            snprintf(r->tuning[i], sizeof r->tuning[i], "%-6s f32 large: %s, %.4g %s: %s",
                     kernels[i], c.source, c.rate, c.unit, c.params);
        } else {
            snprintf(r->tuning[i], sizeof r->tuning[i], "%-6s f32 large: %s: %s", kernels[i],
                     c.source, c.params);
        }
    }
}

static const char *smoke_source =
    "XGPU_KERNEL void smoke(XGPU_GLOBAL const float *x, XGPU_GLOBAL float *y, xgpu_u32 n) {\n"
    "    xgpu_u32 i = xgpu_global_id(0);\n"
    "    if (i < n) y[i] = 2.0f * x[i] + 1.0f;\n"
    "}\n";

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* One step of the smoke test: on failure xgpu's message goes to
 * result->detail and control to `label`. */
#define SMOKE_STEP_OR_GOTO(result, call, label)                                                    \
    do {                                                                                           \
        if ((call) != XGPU_SUCCESS) {                                                              \
            snprintf((result)->detail, sizeof(result)->detail, "%s", xgpu_last_error()->message);  \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)

static void smoke(xgpu_device *dev, const xgpu_device_info *info, smoke_result *r) {
    enum { N = 4099 };
    xgpu_context *ctx = NULL;
    xgpu_queue *q = NULL;
    xgpu_buffer *bx = NULL, *by = NULL;
    xgpu_program *prog = NULL;
    xgpu_kernel *k = NULL;
    xgpu_event *start = NULL, *end = NULL;
    static float x[N], y[N];
    devid_path(info, r->path, sizeof r->path);
    snprintf(r->name, sizeof r->name, "%s", info->name);
    r->pass = 0;
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 97) * 0.25f - 3.0f;
        y[i] = NAN;
    }
    SMOKE_STEP_OR_GOTO(r, xgpu_context_create(dev, &ctx), done);
    tuning_of(ctx, r);
    SMOKE_STEP_OR_GOTO(r, xgpu_queue_create(ctx, &q), done);
    SMOKE_STEP_OR_GOTO(r, xgpu_buffer_create(ctx, sizeof x, &bx), done);
    SMOKE_STEP_OR_GOTO(r, xgpu_buffer_create(ctx, sizeof y, &by), done);
    double t0 = now_ms();
    SMOKE_STEP_OR_GOTO(r, xgpu_program_build(ctx, smoke_source, NULL, &prog), done);
    double build_ms = now_ms() - t0;
    SMOKE_STEP_OR_GOTO(r, xgpu_kernel_create(prog, "smoke", &k), done);
    SMOKE_STEP_OR_GOTO(r, xgpu_buffer_write(q, bx, 0, x, sizeof x, true, NULL), done);
    SMOKE_STEP_OR_GOTO(r, xgpu_buffer_write(q, by, 0, y, sizeof y, true, NULL), done);
    xgpu_range range = xgpu_range_1d((N + 63) / 64, 64);
    xgpu_arg args[] = {xgpu_arg_buffer(bx), xgpu_arg_buffer(by), xgpu_arg_u32(N)};
    SMOKE_STEP_OR_GOTO(r, xgpu_queue_record_event(q, &start), done);
    SMOKE_STEP_OR_GOTO(r, xgpu_launch(q, k, &range, 3, args, &end), done);
    SMOKE_STEP_OR_GOTO(r, xgpu_buffer_read(q, by, 0, y, sizeof y, true, NULL), done);
    double run_ms = 0;
    SMOKE_STEP_OR_GOTO(r, xgpu_event_elapsed_ms(start, end, &run_ms), done);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        bad += y[i] != 2.0f * x[i] + 1.0f; /* exact: small multiples of 1/4 */
    }
    r->pass = bad == 0;
    snprintf(r->detail, sizeof r->detail, "build %.1f ms, kernel %.3f ms, %d elements %s", build_ms,
             run_ms, N, bad ? "WRONG" : "verified");
done:
    xgpu_event_release(start);
    xgpu_event_release(end);
    xgpu_kernel_release(k);
    xgpu_program_release(prog);
    xgpu_buffer_release(bx);
    xgpu_buffer_release(by);
    xgpu_queue_release(q);
    xgpu_context_release(ctx);
}

static void line(FILE *out, const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void line(FILE *out, const char *tag, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(out, "  %-5s ", tag);
    vfprintf(out, fmt, ap);
    fputc('\n', out);
    va_end(ap);
}

/* A device node: present, and can this user open it? */
static void check_node(FILE *out, const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        return;
    }
    if (access(path, R_OK | W_OK) == 0) {
        line(out, "ok", "%s: readable and writable", path);
        return;
    }
    struct group *g = getgrgid(st.st_gid);
    line(out, "FAIL",
         "%s: this user cannot open it; add the user to group '%s' "
         "(usermod -aG %s $USER, then log in again)",
         path, g ? g->gr_name : "?", g ? g->gr_name : "<group>");
}

static int check_nodes(FILE *out, const char *dir, const char *prefix) {
    DIR *d = opendir(dir);
    int found = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (!strncmp(e->d_name, prefix, strlen(prefix))) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            check_node(out, path);
            found++;
        }
    }
    if (d) {
        closedir(d);
    }
    return found;
}

static void check_icd_files(FILE *out) {
    const char *env = getenv("OCL_ICD_VENDORS");
    const char *dir = env && *env ? env : "/etc/OpenCL/vendors";
    DIR *d = opendir(dir);
    if (!d) {
        line(out, "FAIL",
             "%s: no such directory: no OpenCL driver is registered; install one "
             "(pocl-opencl-icd for the CPU, the GPU vendor's OpenCL package)",
             dir);
        return;
    }
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".icd")) {
            continue;
        }
        files++;
        char path[512], lib[512] = "";
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(lib, sizeof lib, f)) {
                lib[0] = '\0';
            }
            fclose(f);
        }
        lib[strcspn(lib, "\r\n")] = '\0';
        if (!lib[0]) {
            line(out, "FAIL",
                 "%s: empty or unreadable; reinstall the package that owns it "
                 "(dpkg -S %s)",
                 path, path);
            continue;
        }
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (h) {
            line(out, "ok", "ICD %s -> %s: loads", path, lib);
        } else {
            const char *err = dlerror();
            line(out, "FAIL", "ICD %s -> %s: %s; reinstall the package that owns it (dpkg -S %s)",
                 path, lib, err ? err : "dlopen failed", path);
        }
    }
    closedir(d);
    if (!files) {
        line(out, "FAIL",
             "%s holds no .icd file: no OpenCL driver is registered; install one "
             "(pocl-opencl-icd for the CPU)",
             dir);
    }
}

static void check_backend(FILE *out, uint32_t b, const xgpu_backend_info *bi) {
    fprintf(out, "%s\n", bi->name);
    if (bi->plugin_path[0]) {
        line(out, bi->abi_version ? "ok" : "FAIL", "plugin %s%s", bi->plugin_path,
             bi->abi_version ? "" : " (not usable: see below)");
    }
    for (uint32_t l = 0; l < bi->library_count; l++) {
        xgpu_library_info lib;
        if (xgpu_backend_get_library(b, l, &lib, sizeof lib) == XGPU_SUCCESS) {
            line(out, lib.loaded ? "ok" : "FAIL", "%s -> %s: %s", lib.name,
                 lib.loaded ? lib.path : "not loaded", lib.detail);
        }
    }
    if (!strcmp(bi->name, "opencl") && bi->plugin_path[0]) {
        check_icd_files(out);
    }
    if (!strcmp(bi->name, "cuda") && bi->plugin_path[0] && !check_nodes(out, "/dev", "nvidia")) {
        line(out, "info",
             "no /dev/nvidia* device nodes: the NVIDIA kernel module is not loaded "
             "(or a container was started without the GPU)");
    }
    if (!strcmp(bi->name, "hip") && bi->plugin_path[0]) {
        if (!check_nodes(out, "/dev", "kfd")) {
            line(out, "info",
                 "no /dev/kfd: the amdgpu kernel driver is not loaded (or a "
                 "container was started without /dev/kfd and /dev/dri)");
        }
        check_nodes(out, "/dev/dri", "renderD");
    }
    if (bi->available) {
        line(out, bi->device_count ? "ok" : "FAIL", "%u device(s)%s", bi->device_count,
             bi->device_count ? "" : ": the driver loaded but lists no device");
    } else {
        line(out, "FAIL", "unavailable: %s", bi->reason);
    }
}

/* What a variable's value does that its name does not say. */
static const char *env_note(const char *name, const char *val) {
    return !*val && strstr(name, "VISIBLE") ? ": empty hides every device" : "";
}

/* What selects devices or libraries; CUDA_PATH, VIRTUAL_ENV and
 * CONDA_PREFIX lead the CUDA backend to NVRTC, ROCM_PATH and DTK_PATH the
 * HIP backend to ROCm's or Hygon DTK's runtime and hiprtc. */
static void check_environment(FILE *out) {
    static const char *const vars[] = {"XGPU_BACKENDS",
                                       "XGPU_PLUGIN_PATH",
                                       "CUDA_VISIBLE_DEVICES",
                                       "HIP_VISIBLE_DEVICES",
                                       "ROCR_VISIBLE_DEVICES",
                                       "OCL_ICD_VENDORS",
                                       "XGPU_CUDA_DRIVER",
                                       "XGPU_NVRTC",
                                       "CUDA_PATH",
                                       "VIRTUAL_ENV",
                                       "CONDA_PREFIX",
                                       "XGPU_HIP_RUNTIME",
                                       "XGPU_HIPRTC",
                                       "ROCM_PATH",
                                       "DTK_PATH",
                                       "XGPU_CACHE",
                                       "XGPU_CACHE_DIR",
                                       "XGPU_TUNE",
                                       "XGPU_TUNE_BUDGET_S",
                                       "XGPU_TUNE_DB"};
    fprintf(out, "environment\n");
    for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
        const char *val = getenv(vars[v]);
        if (val) {
            char why[300];
            line(out, "set", "%s=\"%s\"%s", vars[v], val, env_note(vars[v], val));
            if (tune_env_refused(vars[v], val, why, sizeof why)) {
                line(out, "warn", "%s", why); /* the library's own words */
            }
        } else {
            line(out, "-", "%s not set", vars[v]);
        }
    }
}

static void check_cache(FILE *out) {
    xgpu_cache_info cache;
    fprintf(out, "kernel cache\n");
    if (xgpu_cache_get_info(&cache) == XGPU_SUCCESS && cache.enabled) {
        line(out, "ok", "%s: %llu entries, %.1f of %.0f MiB", cache.dir,
             (unsigned long long)cache.entries, (double)cache.bytes / 1048576.0,
             (double)cache.limit_bytes / 1048576.0);
    } else {
        line(out, "info", "off: %s (programs are compiled every run)", cache.reason);
    }
}

/* The database, and where each device path's kernels take their
 * parameters from (found by the smoke tests). */
static void check_tuning(FILE *out, const smoke_result *results, uint32_t n) {
    fprintf(out, "tuning database\n");
    char tune_path[4096];
    struct stat ts;
    if (xgpu_tune_db_path(tune_path, sizeof tune_path) != XGPU_SUCCESS) {
        line(out, "info", "none: %s (the built-in parameters are used)",
             xgpu_last_error()->message);
    } else if (stat(tune_path, &ts) == 0) {
        line(out, "ok", "%s (%lld bytes; gpubench tune adds to it)", tune_path,
             (long long)ts.st_size);
    } else {
        line(out, "info", "%s does not exist yet: run gpubench tune", tune_path);
    }
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3 && results[i].tuning[k][0]; k++) {
            line(out, strstr(results[i].tuning[k], "tuned") ? "ok" : "-", "%-10s %s",
                 results[i].path, results[i].tuning[k]);
        }
    }
}

/* The smoke tests' lines; returns how many passed. */
static uint32_t print_smoke(FILE *out, const smoke_result *results, uint32_t n) {
    uint32_t passed = 0;
    fprintf(out, "smoke test: build and run a kernel on every device path\n");
    for (uint32_t i = 0; i < n; i++) {
        line(out, results[i].pass ? "PASS" : "FAIL", "%-10s %s: %s", results[i].path,
             results[i].name, results[i].detail);
        passed += results[i].pass != 0;
    }
    if (n == 0) {
        line(out, "FAIL", "no device to test: see the backends above for why");
    }
    fprintf(out, "\n%u of %u device path(s) passed\n", passed, n);
    return passed;
}

uint32_t gi_doctor(FILE *out, const pd_device *devs, uint32_t n) {
    /* Smoke tests first: they load libraries lazily (NVRTC), which the
     * layer walk then shows. */
    uint32_t paths = 0;
    for (uint32_t i = 0; i < n; i++) {
        paths += devs[i].path_count;
    }
    smoke_result *results = calloc(paths ? paths : 1, sizeof *results);
    if (!results) {
        return 0;
    }
    uint32_t r = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t p = 0; p < devs[i].path_count; p++, r++) {
            smoke(devs[i].devices[p], &devs[i].infos[p], &results[r]);
        }
    }
    fprintf(out, "xgpu %s doctor\n\n", xgpu_version_string());
    uint32_t nb = 0;
    xgpu_backend_count(&nb);
    for (uint32_t b = 0; b < nb; b++) {
        xgpu_backend_info bi;
        if (xgpu_backend_get_info(b, &bi, sizeof bi) == XGPU_SUCCESS) {
            check_backend(out, b, &bi);
        }
    }
    check_environment(out);
    gi_doctor_traps(out);
    gi_frameworks_doctor(out);
    check_cache(out);
    check_tuning(out, results, r);
    uint32_t passed = print_smoke(out, results, r);
    free(results);
    return passed;
}
