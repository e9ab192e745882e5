/* Where the HIP runtime is looked for, in what order, and what the
 * reason says when none is found or the wrong one is: ROCm's libamdhip64
 * (7, 6, 5, unversioned; on the library path, in $ROCM_PATH/lib and
 * /opt/rocm/lib), Hygon's libgalaxyhip, and the runtimes of the DTKs
 * hip_dtk.c finds, a DTK the environment names first. */
#define _GNU_SOURCE
#include "hip_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t add_candidate(hip_candidate *out, size_t n, size_t max, const char *dir,
                            const char *sub, const char *name, hip_flavor flavor) {
    if (n < max) {
        snprintf(out[n].file, sizeof out[n].file, "%.500s%s%s", dir, sub, name);
        out[n].flavor = flavor;
        n++;
    }
    return n;
}

static const char *const rocm_names[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
                                         "libamdhip64.so"};
static const char *const galaxy_names[] = {"libgalaxyhip.so.5", "libgalaxyhip.so"};
/* A DTK's own libamdhip64 is .so.5 even where vanilla ROCm's is .so.6 or
 * .so.7 (DTK 26.04). */
static const char *const dtk_amdhip_names[] = {"libamdhip64.so.5", "libamdhip64.so",
                                               "libamdhip64.so.6", "libamdhip64.so.7"};
static const char *const dtk_amdhip_dirs[] = {"/.hyhal/lib/", "/lib/", "/hip/lib/"};
static const char *const dtk_galaxy_dirs[] = {"/lib/", "/hip/lib/", "/.hyhal/lib/"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One DTK's runtimes: its libamdhip64 (in .hyhal/lib as DTK 26.04 lays it
 * out, lib or hip/lib), then libgalaxyhip (legacy ABI). */
static size_t add_dtk_candidates(hip_candidate *out, size_t n, size_t max, const hip_dtk *dtk) {
    for (size_t d = 0; d < COUNT(dtk_amdhip_dirs); d++) {
        for (size_t s = 0; s < COUNT(dtk_amdhip_names); s++) {
            n = add_candidate(out, n, max, dtk->root, dtk_amdhip_dirs[d], dtk_amdhip_names[s],
                              HIP_FLAVOR_DTK);
        }
    }
    for (size_t d = 0; d < COUNT(dtk_galaxy_dirs); d++) {
        for (size_t s = 0; s < COUNT(galaxy_names); s++) {
            n = add_candidate(out, n, max, dtk->root, dtk_galaxy_dirs[d], galaxy_names[s],
                              HIP_FLAVOR_DTK);
        }
    }
    return n;
}

/* The runtime libraries to try, in order. A DTK the environment names
 * (DTK_PATH, or ROCM_PATH=/opt/dtk/.hyhal) first: vanilla ROCm's runtime
 * cannot talk to Hygon's KFD, and loading it first would leave its HSA
 * library in the process. Then ROCm 7, 6 and 5 (ROCm 7 may ship
 * libamdhip64.so.7 without the unversioned link) on the library path, in
 * $ROCM_PATH/lib and /opt/rocm/lib; then libgalaxyhip on the library path
 * and in $ROCM_PATH/lib; then the DTKs found under /opt (/opt/dtk, or
 * every /opt/dtk-<version>, newest first). */
size_t hip__runtime_candidates(hip_candidate *out, size_t max) {
    hip_dtk dtks[HIP_DTK_MAX];
    size_t ndtk = hip__dtk_find(dtks, HIP_DTK_MAX), n = 0;
    for (size_t i = 0; i < ndtk; i++) {
        n = dtks[i].named ? add_dtk_candidates(out, n, max, &dtks[i]) : n;
    }
    const char *rocm_path = secure_getenv("ROCM_PATH");
    bool has_rocm = rocm_path && *rocm_path && !hip__path_is_dtk(rocm_path);
    char opt_rocm[600];
    snprintf(opt_rocm, sizeof opt_rocm, "%.500s/opt/rocm", hip__sysroot());
    const struct {
        const char *dir, *sub;
        bool use;
    } rocm_dirs[] = {{"", "", true},
                     {has_rocm ? rocm_path : "", "/lib/", has_rocm},
                     {opt_rocm, "/lib/", true}},
      galaxy_dirs[] = {{"", "", true}, {has_rocm ? rocm_path : "", "/lib/", has_rocm}};
    for (size_t d = 0; d < COUNT(rocm_dirs); d++) {
        for (size_t s = 0; rocm_dirs[d].use && s < COUNT(rocm_names); s++) {
            n = add_candidate(out, n, max, rocm_dirs[d].dir, rocm_dirs[d].sub, rocm_names[s],
                              HIP_FLAVOR_ROCM);
        }
    }
    for (size_t d = 0; d < COUNT(galaxy_dirs); d++) {
        for (size_t s = 0; galaxy_dirs[d].use && s < COUNT(galaxy_names); s++) {
            n = add_candidate(out, n, max, galaxy_dirs[d].dir, galaxy_dirs[d].sub, galaxy_names[s],
                              HIP_FLAVOR_DTK);
        }
    }
    for (size_t i = 0; i < ndtk; i++) {
        n = dtks[i].named ? n : add_dtk_candidates(out, n, max, &dtks[i]);
    }
    return n;
}

/* A DTK runtime that exists, for the doctor's advice: false when no DTK
 * folder holds one. */
static bool dtk_runtime_present(const hip_dtk *dtks, size_t ndtk, hip_candidate *found) {
    hip_candidate c[COUNT(dtk_amdhip_dirs) * COUNT(dtk_amdhip_names) +
                    COUNT(dtk_galaxy_dirs) * COUNT(galaxy_names)];
    for (size_t i = 0; i < ndtk; i++) {
        size_t n = add_dtk_candidates(c, 0, COUNT(c), &dtks[i]);
        for (size_t k = 0; k < n; k++) {
            if (access(c[k].file, F_OK) == 0) {
                *found = c[k];
                return true;
            }
        }
    }
    return false;
}

/* On a machine with Hygon's DTK, a vanilla ROCm runtime that sees no GPU
 * is the wrong runtime: says so and how to load DTK's. False when that is
 * not the case. */
bool hip__dtk_advice(const hip_runtime *rt, char *reason, size_t size) {
    hip_dtk dtks[HIP_DTK_MAX];
    size_t ndtk = rt->flavor == HIP_FLAVOR_ROCM ? hip__dtk_find(dtks, HIP_DTK_MAX) : 0;
    if (!ndtk) {
        return false;
    }
    char version[24];
    snprintf(version, sizeof version, "%d.%d", rt->version / 10000000,
             (rt->version / 100000) % 100);
    hip_candidate found;
    if (!dtk_runtime_present(dtks, ndtk, &found)) {
        snprintf(reason, size,
                 "the HIP runtime (ROCm %s, %s) finds no GPU (hipErrorNoDevice); Hygon DTK is "
                 "installed in %s but holds no HIP runtime xgpu knows (libamdhip64.so.5 in "
                 ".hyhal/lib, lib or hip/lib; libgalaxyhip.so in lib or hip/lib), and vanilla "
                 "ROCm's cannot talk to Hygon's KFD",
                 version, rt->path, dtks[0].root);
        return true;
    }
    char root[512];
    if (!hip__dtk_root_of(found.file, root, sizeof root)) {
        snprintf(root, sizeof root, "%s", dtks[0].root);
    }
    bool hyhal = strstr(found.file, "/.hyhal/") != NULL;
    snprintf(reason, size,
             "the HIP runtime (ROCm %s, %s) finds no GPU (hipErrorNoDevice): Hygon DTK is "
             "installed in %s, and vanilla ROCm's runtime cannot talk to Hygon's KFD; load DTK's: "
             "%s=%s%s or XGPU_HIP_RUNTIME=%s",
             version, rt->path, root, hyhal ? "ROCM_PATH" : "DTK_PATH", root,
             hyhal ? "/.hyhal" : "", found.file);
    return true;
}

/* Nothing loaded: what was searched, and the DTK folders found. */
void hip__not_found_reason(const char *override, const char *error, char *reason, size_t size) {
    if (override) {
        snprintf(reason, size,
                 "no HIP runtime found (XGPU_HIP_RUNTIME=%s cannot be loaded: %s); install ROCm "
                 "(Debian: libamdhip64-5) or Hygon DTK, or set ROCM_PATH / DTK_PATH",
                 override, error);
        return;
    }
    hip_dtk dtks[HIP_DTK_MAX];
    size_t ndtk = hip__dtk_find(dtks, HIP_DTK_MAX);
    int len = snprintf(reason, size,
                       "no HIP runtime found (libamdhip64.so.7/.6/.5, libamdhip64.so, "
                       "libgalaxyhip.so.5, libgalaxyhip.so on the library path, $ROCM_PATH/lib, "
                       "%s/opt/rocm/lib, /opt/dtk or /opt/dtk-*); install ROCm (Debian: "
                       "libamdhip64-5) or Hygon DTK, or set ROCM_PATH / DTK_PATH",
                       hip__sysroot());
    if (ndtk && len > 0 && (size_t)len < size) {
        snprintf(reason + len, size - (size_t)len,
                 "; Hygon DTK in %s%s holds no libamdhip64.so.5 in .hyhal/lib, lib or hip/lib "
                 "nor libgalaxyhip.so in lib or hip/lib",
                 dtks[0].root, ndtk > 1 ? " (and others)" : "");
    }
}
