/* What NVIDIA and PyTorch publish about which build runs on which driver:
 * the only place gpuinfo keeps these figures. */
#include "fw.h"

#include <stddef.h>

/* NVIDIA's CUDA Toolkit Release Notes, table "CUDA Toolkit and
 * Corresponding Driver Versions": the Linux x86_64 driver each toolkit
 * release ships with (its GA release; an Update may ship a later one),
 * https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/. A release that
 * is not here (13.1 and later) is said as "newer than this table". */
static const struct toolkit_driver {
    int major, minor;
    const char *driver;
} toolkit_drivers[] = {
    {13, 0, "580.65.06"}, {12, 9, "575.51.03"}, {12, 8, "570.26"},    {12, 6, "560.28.03"},
    {12, 5, "555.42.02"}, {12, 4, "550.54.14"}, {12, 3, "545.23.06"}, {12, 2, "535.54.03"},
    {12, 1, "530.30.02"}, {12, 0, "525.60.13"}, {11, 8, "520.61.05"}, {11, 7, "515.43.04"},
    {11, 6, "510.39.01"}, {11, 5, "495.29.05"}, {11, 4, "470.42.01"}, {11, 3, "465.19.01"},
    {11, 2, "460.27.03"}, {11, 1, "455.23"},    {11, 0, "450.51.05"},
};

/* The same release notes, "CUDA Toolkit and Minimum Required Driver
 * Version for CUDA Minor Version Compatibility", and NVIDIA's CUDA
 * Compatibility guide: from CUDA 11 on, a build with any toolkit of a
 * major release runs on a driver of that major release from this one on,
 * with a limited feature set: PTX of a newer toolkit than the driver's is
 * not JIT-compiled, and features that need the newer driver are missing. */
static const struct compat_driver {
    int major;
    const char *driver;
} compat_drivers[] = {
    {13, "580"},
    {12, "525.60.13"},
    {11, "450.80.02"},
};

/* PyTorch's wheel indexes, https://download.pytorch.org/whl/<index>, as
 * pytorch.org's install selector names them. CUDA: those of the current
 * releases (2.7 to 2.9; cu121 and cu124 hold 2.6 at most, cu129 only 2.8):
 * a driver of a major release runs the builds of all its minor releases
 * (minor-version compatibility), so the newest index not newer than the
 * driver, else the oldest of its major release, gets the current PyTorch.
 * ROCm has no such rule: the newest not newer than the runtime, from
 * PyTorch 2.3 (rocm6.0) on. */
typedef struct torch_index {
    int major, minor;
    const char *name;
} torch_index;

static const torch_index cuda_indexes[] = {
    {11, 8, "cu118"},
    {12, 6, "cu126"},
    {12, 8, "cu128"},
    {13, 0, "cu130"},
};

static const torch_index rocm_indexes[] = {
    {5, 7, "rocm5.7"},   {6, 0, "rocm6.0"}, {6, 1, "rocm6.1"}, {6, 2, "rocm6.2"},
    {6, 2, "rocm6.2.4"}, {6, 3, "rocm6.3"}, {6, 4, "rocm6.4"},
};

const char *fw_toolkit_driver(int major, int minor) {
    for (size_t i = 0; i < sizeof toolkit_drivers / sizeof toolkit_drivers[0]; i++) {
        if (toolkit_drivers[i].major == major && toolkit_drivers[i].minor == minor) {
            return toolkit_drivers[i].driver;
        }
    }
    return NULL;
}

const char *fw_minor_compat_driver(int major) {
    for (size_t i = 0; i < sizeof compat_drivers / sizeof compat_drivers[0]; i++) {
        if (compat_drivers[i].major == major) {
            return compat_drivers[i].driver;
        }
    }
    return NULL;
}

/* The newest index of the host's major release not newer than the host;
 * else, where `compat`, the oldest of that major release; else, for a
 * host newer than every index, the newest. */
static const char *choose(const torch_index *t, size_t n, int major, int minor, bool compat) {
    const torch_index *best = NULL, *oldest_same = NULL;
    if (minor < 0) {
        minor = 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (t[i].major != major) {
            continue;
        }
        if (!oldest_same) {
            oldest_same = &t[i];
        }
        if (t[i].minor <= minor) {
            best = &t[i];
        }
    }
    if (best) {
        return best->name;
    }
    if (oldest_same) {
        return compat ? oldest_same->name : NULL;
    }
    return n && major > t[n - 1].major ? t[n - 1].name : NULL;
}

const char *fw_torch_index(bool rocm, int major, int minor) {
    if (rocm) {
        return choose(rocm_indexes, sizeof rocm_indexes / sizeof rocm_indexes[0], major, minor,
                      false);
    }
    return choose(cuda_indexes, sizeof cuda_indexes / sizeof cuda_indexes[0], major, minor, true);
}
