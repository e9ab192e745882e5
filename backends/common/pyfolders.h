/* Where pip wheels and conda keep NVIDIA's shared libraries (NVRTC,
 * cuBLAS) on a machine without the CUDA toolkit, and the site-packages
 * folders of the Python environments a user would run, found without
 * running Python. Used by the CUDA plugin and by the tools (a static
 * library of its own: nothing here is exported). */
#ifndef XGPU_PYFOLDERS_H
#define XGPU_PYFOLDERS_H

#include <stddef.h>

/* A sensible bound for xgpu__python_lib_dirs's `max`. */
#define XGPU_PYFOLDERS_MAX 32
/* The size of each folder name: PATH_MAX on Linux, what realpath(3) needs
 * (a constant of its own, as <limits.h> defines PATH_MAX only for POSIX
 * programs). */
#define XGPU_PYFOLDER_SIZE 4096

/* Fills out[0 .. max) with the existing folders below, each once (compared
 * after realpath, which is also what is stored, without a trailing slash)
 * and in this order; returns how many.
 *
 *   1. <site>/<subdir> for each of `subdirs` (NULL-terminated, e.g.
 *      "nvidia/cu13/lib"), <site> being, per prefix, each existing
 *      <prefix>/lib/<py>/site-packages, then lib/<py>/dist-packages, then
 *      lib64/<py>/site-packages, where <py> matches the glob python3*
 *      (Debian's own packages are in lib/python3/dist-packages); each in
 *      glob(3)'s sorted order. The prefixes, in order:
 *      - $VIRTUAL_ENV;
 *      - for each absolute folder D among the first 64 on $PATH that
 *        holds an executable python3 (or else python3.N): D/.., then the
 *        prefix of the file it resolves to (a venv's python3 is a link to
 *        its base interpreter); a prefix /usr brings /usr/local first
 *        (Debian's pip installs there);
 *      - $HOME/.local (the user site).
 *   2. $CONDA_PREFIX/lib (conda's cuda-nvrtc and libcublas packages).
 *
 * Runs no program: only stat, access, realpath and glob. The variables are
 * read with secure_getenv, and only absolute values are used, so a setuid
 * program gets nothing from its caller's environment. Thread-safe while
 * nobody changes the environment; keeps no state. */
size_t xgpu__python_lib_dirs(const char *const *subdirs, char (*out)[XGPU_PYFOLDER_SIZE],
                             size_t max);

/* One site-packages (or dist-packages) folder and what led to it. */
typedef struct xgpu_pysite {
    char path[XGPU_PYFOLDER_SIZE]; /* realpath, no trailing slash */
    /* "VIRTUAL_ENV", "CONDA_PREFIX", "PATH" or "HOME" (the user site,
     * ~/.local): a static string. */
    const char *found_by;
} xgpu_pysite;

/* Fills out[0 .. max) with the site folders of the Python environments a
 * user would run, each once and in this order, and returns how many: those
 * of $VIRTUAL_ENV, of $CONDA_PREFIX (the active conda environment), of
 * each python3 on PATH, then of $HOME/.local; each prefix's folders as in
 * step 1 of xgpu__python_lib_dirs. found_by names the first of these that
 * led to a folder. The same rules hold: no program run, secure_getenv,
 * absolute values only, no state. */
size_t xgpu__python_sites(xgpu_pysite *out, size_t max);

#endif
