/* Finding and binding hiprtc, at the first program build: XGPU_HIPRTC
 * (a file, or "none"), else libhiprtc beside the runtime, on the library
 * path, in the runtime's DTK folders and $DTK_PATH, or inside the runtime
 * (ROCm 5). Never unloaded. */
#define _GNU_SOURCE
#include "hip_internal.h"
#include "backend_util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool bind_rtc(hip_rtc *rtc, void *lib) {
    bool ok = true;
#define HIP_BIND(name, symbol, required, ret, params)                                              \
    xgpu__util_bind_symbol(lib, symbol, &rtc->name, sizeof rtc->name);                             \
    ok = ok && (!required || rtc->name);
    HIP_RTC_FUNCTIONS(HIP_BIND)
#undef HIP_BIND
    return ok;
}

static xgpu_status rtc_found(hip_rtc *rtc, void *lib, const char *name, const char *detail) {
    rtc->lib = lib;
    xgpu__util_loaded_path(lib, "hiprtcCompileProgram", rtc->path, sizeof rtc->path);
    hip__services->library(HIP_BACKEND_NAME, name, rtc->path, true, detail);
    return XGPU_SUCCESS;
}

/* XGPU_HIPRTC names the one file to load ("none": no hiprtc at all, not
 * even the one inside ROCm 5's runtime). */
static xgpu_status rtc_named(hip_rtc *rtc, const char *only, char *reason, size_t reason_size) {
    void *lib = strcmp(only, "none") ? dlopen(only, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (lib && bind_rtc(rtc, lib)) {
        return rtc_found(rtc, lib, only, "hiprtc (XGPU_HIPRTC)");
    }
    snprintf(reason, reason_size, "hiprtc: XGPU_HIPRTC=%s %s", only,
             !strcmp(only, "none") ? "turns hiprtc off"
             : lib                 ? "is not a usable hiprtc"
                                   : "cannot be loaded");
    hip__services->library(HIP_BACKEND_NAME, "libhiprtc.so", NULL, false, reason);
    return XGPU_ERROR_BACKEND_UNAVAILABLE;
}

xgpu_status hip__rtc_load(const hip_runtime *rt, hip_rtc *rtc, char *reason, size_t reason_size) {
    memset(rtc, 0, sizeof *rtc);
    rtc->rocm_version = rt->version;
    rtc->flavor = rt->flavor;
    rtc->dtk_release = rt->dtk_release;
    const char *only = secure_getenv("XGPU_HIPRTC");
    if (only && *only) {
        return rtc_named(rtc, only, reason, reason_size);
    }
    /* Beside the runtime first: a hiprtc of another ROCm release would not
     * match its device libraries. Then the library path, then the DTK's
     * folders (its hiprtc sits beside libgalaxyhip in hip/lib, in lib, or
     * in .hyhal/lib), the runtime's own DTK and $DTK_PATH. */
    static const char *const names[] = {"libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so.5",
                                        "libhiprtc.so"};
    static const char *const subs[] = {"/hip/lib/", "/lib/", "/.hyhal/lib/"};
    const char *dtk_path = secure_getenv("DTK_PATH");
    const char *roots[2] = {rt->dtk_root, dtk_path && *dtk_path ? dtk_path : ""};
    char dirs[2 + 2 * COUNT(subs)][520];
    size_t ndirs = 0;
    snprintf(dirs[ndirs], sizeof dirs[0], "%s", rt->path);
    char *slash = strrchr(dirs[ndirs], '/');
    if (slash) {
        slash[1] = '\0';
        ndirs++;
    }
    dirs[ndirs++][0] = '\0'; /* the library path */
    for (size_t r = 0; r < 2; r++) {
        for (size_t s = 0; roots[r][0] && s < COUNT(subs); s++) {
            snprintf(dirs[ndirs++], sizeof dirs[0], "%.500s%s", roots[r], subs[s]);
        }
    }
    for (size_t d = 0; d < ndirs; d++) {
        for (size_t s = 0; s < COUNT(names); s++) {
            char file[600];
            snprintf(file, sizeof file, "%.520s%s", dirs[d], names[s]);
            void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
            if (lib && bind_rtc(rtc, lib)) {
                return rtc_found(rtc, lib, names[s], "hiprtc");
            }
        }
    }
    /* ROCm 5 ships hiprtc inside libamdhip64 itself. */
    if (bind_rtc(rtc, rt->lib)) {
        rtc->lib = rt->lib;
        snprintf(rtc->path, sizeof rtc->path, "%s", rt->path);
        hip__services->library(HIP_BACKEND_NAME, "hiprtc", rtc->path, true,
                               "hiprtc inside the HIP runtime");
        return XGPU_SUCCESS;
    }
    snprintf(reason, reason_size,
             "hiprtc was not found (libhiprtc.so.7/.6/.5 beside %s, on the library path or in "
             "the DTK's hip/lib, lib or .hyhal/lib, nor inside the runtime); install ROCm's "
             "hiprtc package",
             rt->path);
    hip__services->library(HIP_BACKEND_NAME, "libhiprtc.so", NULL, false, "not found");
    return XGPU_ERROR_BACKEND_UNAVAILABLE;
}
