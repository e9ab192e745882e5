/* hiprtc compilation for the device's exact gcnArchName, behind an
 * allow-list: some ROCm releases' hiprtc abort the whole process on an
 * architecture their device libraries lack (ROCm 5.2 on gfx940), so xgpu
 * refuses those itself, with a message, before calling hiprtc. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "hip_internal.h"
#include "backend_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Architectures hiprtc compiles for, by the ROCm release that first
 * shipped device libraries for them. An entry applies to its release and
 * every later one. The table errs on the side of refusing: an arch missing
 * here gets a clear error naming this table, never a crash. */
static const struct {
    int since; /* hipRuntimeGetVersion of the first release: 50000000 = 5.0 */
    const char *arch;
} rocm_archs[] = {
    {0, "gfx803"},         {0, "gfx900"},         {0, "gfx902"},         {0, "gfx904"},
    {0, "gfx906"},         {0, "gfx908"},         {0, "gfx909"},         {0, "gfx90c"},
    {0, "gfx1010"},        {0, "gfx1011"},        {0, "gfx1012"},        {0, "gfx1030"},
    {50000000, "gfx90a"},  {50000000, "gfx1013"}, {50000000, "gfx1031"}, {50000000, "gfx1032"},
    {50000000, "gfx1033"}, {50000000, "gfx1034"}, {50000000, "gfx1035"}, {50300000, "gfx940"},
    {50300000, "gfx1036"}, {50300000, "gfx1100"}, {50300000, "gfx1101"}, {50300000, "gfx1102"},
    {50400000, "gfx1103"}, {50500000, "gfx941"},  {50500000, "gfx942"},  {60100000, "gfx1150"},
    {60100000, "gfx1151"}, {60300000, "gfx1200"}, {60300000, "gfx1201"}, {60400000, "gfx950"},
};

/* Hygon DCU architectures, for DTK's own hiprtc (and no other: vanilla
 * ROCm's LLVM has no gfx928 or gfx936 target, so the ROCm table above
 * lacks them). An entry applies from its DTK release on (2604 = DTK
 * 26.04). xgpu learns the release from the folder DTK is installed in
 * (/opt/dtk-24.04, or the folder /opt/dtk links to); an unknown release
 * (0) gets gfx906 only. The releases are deliberately late: no release
 * before them is known here to compile the architecture, and a hiprtc
 * asked for one its device libraries lack may abort the process (as ROCm
 * 5.2's does on gfx940) instead of failing. Lower one only on a report of
 * that release compiling for it on a DCU. */
static const struct {
    int since;
    const char *arch;
} dtk_archs[] = {
    {0, "gfx906"},    /* Z100: the Vega 20 ISA, also in every ROCm */
    {2404, "gfx926"}, /* no report of its device or release: gated as gfx928 */
    {2404, "gfx928"}, /* K100-class */
    {2504, "gfx936"}, /* BW-class */
};

/* The architecture's name without its features ("gfx90a" of
 * "gfx90a:sramecc+:xnack-"); false when it does not fit. */
static bool arch_base(const char *arch, char *base, size_t size) {
    size_t n = strcspn(arch, ":");
    if (n == 0 || n >= size) {
        return false;
    }
    memcpy(base, arch, n);
    base[n] = '\0';
    return true;
}

bool hip__arch_supported(int version, hip_flavor flavor, int dtk_release, const char *arch) {
    char base[32];
    if (!arch_base(arch, base, sizeof base)) {
        return false;
    }
    if (flavor == HIP_FLAVOR_DTK) {
        for (size_t i = 0; i < sizeof dtk_archs / sizeof dtk_archs[0]; i++) {
            if (!strcmp(dtk_archs[i].arch, base) && dtk_release >= dtk_archs[i].since) {
                return true;
            }
        }
        return false;
    }
    for (size_t i = 0; i < sizeof rocm_archs / sizeof rocm_archs[0]; i++) {
        if (!strcmp(rocm_archs[i].arch, base) && version >= rocm_archs[i].since) {
            return true;
        }
    }
    return false;
}

/* Records why `arch` is refused. */
static xgpu_status refuse_arch(const hip_rtc *rtc, const char *arch) {
    if (rtc->flavor == HIP_FLAVOR_DTK) {
        char release[80] = "of an unknown release (its folder is not named dtk-<version>)";
        if (rtc->dtk_release) {
            snprintf(release, sizeof release, "%d.%02d", rtc->dtk_release / 100,
                     rtc->dtk_release % 100);
        }
        return hip__services->error(
            HIP_BACKEND_NAME, XGPU_ERROR_UNSUPPORTED, 0, NULL,
            "%s is not an architecture xgpu knows the hiprtc of Hygon DTK %s to compile for "
            "(%s); install a newer DTK, or add it to the DTK table in backends/hip/hip_compile.c "
            "if this release supports it",
            arch, release, rtc->path);
    }
    return hip__services->error(
        HIP_BACKEND_NAME, XGPU_ERROR_UNSUPPORTED, 0, NULL,
        "%s is not an architecture the hiprtc of ROCm %d.%d compiles for (%s); install a newer "
        "ROCm, or add it to the table in backends/hip/hip_compile.c if this release supports it",
        arch, rtc->rocm_version / 10000000, (rtc->rocm_version / 100000) % 100, rtc->path);
}

static char *program_log(const hip_rtc *rtc, hiprtcProgram prog) {
    size_t size = 0;
    if (rtc->hiprtcGetProgramLogSize(prog, &size) != HIPRTC_SUCCESS || size < 2) {
        return NULL;
    }
    char *log = calloc(size + 1, 1);
    if (log && rtc->hiprtcGetProgramLog(prog, log) != HIPRTC_SUCCESS) {
        free(log);
        log = NULL;
    }
    return log;
}

static xgpu_status rtc_fail(const hip_rtc *rtc, hiprtcResult r, const char *call,
                            const char *arch) {
    const char *name = rtc->hiprtcGetErrorString(r);
    xgpu_status st = r == HIPRTC_ERROR_COMPILATION || r == HIPRTC_ERROR_INVALID_OPTION
                         ? XGPU_ERROR_BUILD_FAILED
                         : XGPU_ERROR_BACKEND;
    return hip__services->error(HIP_BACKEND_NAME, st, r, name, "%s failed: %s (%s, hiprtc %s)",
                                call, name, arch, rtc->path);
}

xgpu_status hip__compile(const hip_rtc *rtc, const char *source, const char *options,
                         const char *arch, char **code, size_t *code_size, char **log) {
    *code = NULL;
    *code_size = 0;
    if (!hip__arch_supported(rtc->rocm_version, rtc->flavor, rtc->dtk_release, arch)) {
        return refuse_arch(rtc, arch);
    }
    char arch_opt[96];
    snprintf(arch_opt, sizeof arch_opt, "--offload-arch=%s", arch);
    char *opts = strdup(options ? options : "");
    const char *argv[130];
    argv[0] = arch_opt;
    int argc = opts ? xgpu__util_split_options(opts, argv + 1, 128) : -1;
    if (argc < 0) {
        free(opts);
        return hip__services->error(HIP_BACKEND_NAME, XGPU_ERROR_INVALID_ARGUMENT, 0, NULL,
                                    "too many build options (at most 128)");
    }
    hiprtcProgram prog = NULL;
    hiprtcResult r = rtc->hiprtcCreateProgram(&prog, source, "xgpu_program.hip", 0, NULL, NULL);
    if (r != HIPRTC_SUCCESS) {
        free(opts);
        return rtc_fail(rtc, r, "hiprtcCreateProgram", arch);
    }
    r = rtc->hiprtcCompileProgram(prog, argc + 1, argv);
    free(opts);
    *log = program_log(rtc, prog);
    if (r != HIPRTC_SUCCESS) {
        rtc->hiprtcDestroyProgram(&prog);
        return rtc_fail(rtc, r, "hiprtcCompileProgram", arch);
    }
    size_t size = 0;
    r = rtc->hiprtcGetCodeSize(prog, &size);
    char *data = r == HIPRTC_SUCCESS && size ? malloc(size) : NULL;
    if (data) {
        r = rtc->hiprtcGetCode(prog, data);
    }
    rtc->hiprtcDestroyProgram(&prog);
    if (r != HIPRTC_SUCCESS || !data) {
        free(data);
        return r != HIPRTC_SUCCESS
                   ? rtc_fail(rtc, r, "hiprtcGetCode", arch)
                   : hip__services->error(HIP_BACKEND_NAME, XGPU_ERROR_BACKEND, 0, NULL,
                                          "hiprtc produced no code for %s", arch);
    }
    *code = data;
    *code_size = size;
    return XGPU_SUCCESS;
}
