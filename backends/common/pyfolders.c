/* Python site-packages and conda folders, found without running Python;
 * pyfolders.h says in which order, and why these. */
#define _GNU_SOURCE /* secure_getenv */
#include "pyfolders.h"

#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(XGPU_PYFOLDER_SIZE >= PATH_MAX, "realpath writes up to PATH_MAX bytes");

/* PATH entries looked at, at most. */
#define MAX_PATH_ENTRIES 64

/* What is being collected: the folders `subdirs` below each site folder
 * (into `out`), or, with subdirs NULL, the site folders themselves (into
 * `sites`, each with `by`). */
typedef struct found {
    char (*out)[XGPU_PYFOLDER_SIZE];
    xgpu_pysite *sites;
    const char *const *subdirs;
    const char *by;
    size_t max, n;
} found;

static char *slot(const found *f, size_t i) {
    return f->sites ? f->sites[i].path : f->out[i];
}

/* The value of `name` when it is an absolute path; NULL when unset, empty,
 * relative, or hidden from a setuid program. */
static const char *env_path(const char *name) {
    const char *v = secure_getenv(name);
    return v && v[0] == '/' ? v : NULL;
}

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_program(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Lists realpath(path) when it is a folder not listed yet. */
static void add(found *f, const char *path) {
    char real[PATH_MAX];
    if (f->n == f->max || !realpath(path, real) || !is_dir(real)) {
        return;
    }
    for (size_t i = 0; i < f->n; i++) {
        if (!strcmp(slot(f, i), real)) {
            return;
        }
    }
    if (f->sites) {
        f->sites[f->n].found_by = f->by;
    }
    memcpy(slot(f, f->n++), real, strlen(real) + 1);
}

/* `s` with glob(3)'s special characters escaped, so that a folder named
 * "a[1]" is matched as itself; false when it does not fit. */
static bool glob_escape(const char *s, char *out, size_t size) {
    size_t j = 0;
    for (; *s; s++) {
        bool special = strchr("*?[]\\", *s) != NULL;
        if (j + special + 1 >= size) {
            return false;
        }
        if (special) {
            out[j++] = '\\';
        }
        out[j++] = *s;
    }
    out[j] = '\0';
    return true;
}

/* Every match of `pattern` under the folder `dir` (escaped here), sorted;
 * false when there is none. The caller frees g with globfree. */
static bool glob_under(const char *dir, const char *pattern, glob_t *g) {
    char escaped[PATH_MAX], full[PATH_MAX + 64];
    memset(g, 0, sizeof *g);
    if (!glob_escape(dir, escaped, sizeof escaped) ||
        snprintf(full, sizeof full, "%s/%s", escaped, pattern) >= (int)sizeof full) {
        return false;
    }
    return glob(full, 0, NULL, g) == 0;
}

/* Each site folder of one prefix (a real path), or <site>/<subdir>. */
static void add_sites(found *f, const char *prefix) {
    static const char *const sites[] = {"lib/python3*/site-packages", "lib/python3*/dist-packages",
                                        "lib64/python3*/site-packages"};
    for (size_t s = 0; s < sizeof sites / sizeof sites[0]; s++) {
        glob_t g;
        if (glob_under(prefix, sites[s], &g)) {
            for (size_t i = 0; i < g.gl_pathc; i++) {
                if (!f->subdirs) {
                    add(f, g.gl_pathv[i]);
                }
                for (size_t d = 0; f->subdirs && f->subdirs[d]; d++) {
                    char path[PATH_MAX];
                    if (snprintf(path, sizeof path, "%s/%s", g.gl_pathv[i], f->subdirs[d]) <
                        (int)sizeof path) {
                        add(f, path);
                    }
                }
            }
        }
        globfree(&g);
    }
}

static void add_prefix(found *f, const char *prefix) {
    char real[PATH_MAX];
    if (!realpath(prefix, real)) {
        return;
    }
    if (!strcmp(real, "/usr")) {
        add_sites(f, "/usr/local");
    }
    add_sites(f, real);
}

/* dir/python3, or else the first dir/python3.N, when it is a program. */
static bool find_python(const char *dir, char *exe, size_t size) {
    if (snprintf(exe, size, "%s/python3", dir) < (int)size && is_program(exe)) {
        return true;
    }
    glob_t g;
    bool found_one = false;
    if (glob_under(dir, "python3.[0-9]*", &g)) {
        for (size_t i = 0; i < g.gl_pathc && !found_one; i++) {
            const char *name = strrchr(g.gl_pathv[i], '/');
            /* python3.11-config is a script, not the interpreter. */
            if (!strchr(name, '-') && is_program(g.gl_pathv[i]) &&
                snprintf(exe, size, "%s", g.gl_pathv[i]) < (int)size) {
                found_one = true;
            }
        }
    }
    globfree(&g);
    return found_one;
}

/* The prefixes of the python3 in one PATH folder: the folder's parent,
 * then that of the file the program resolves to. */
static void add_path_entry(found *f, const char *dir) {
    char exe[PATH_MAX], prefix[PATH_MAX];
    if (!find_python(dir, exe, sizeof exe) ||
        snprintf(prefix, sizeof prefix, "%s/..", dir) >= (int)sizeof prefix) {
        return;
    }
    add_prefix(f, prefix);
    if (realpath(exe, prefix)) {
        char *slash = strrchr(prefix, '/'); /* strip the file name, then bin */
        *slash = '\0';
        slash = strrchr(prefix, '/');
        if (slash && slash != prefix) {
            *slash = '\0';
            add_prefix(f, prefix);
        }
    }
}

/* The prefixes in the documented order; the active conda environment's
 * after $VIRTUAL_ENV when `conda_sites` (xgpu__python_lib_dirs takes
 * $CONDA_PREFIX/lib instead, last). */
static void add_environments(found *f, bool conda_sites) {
    char path[PATH_MAX];
    const char *venv = env_path("VIRTUAL_ENV");
    f->by = "VIRTUAL_ENV";
    if (venv) {
        add_prefix(f, venv);
    }
    const char *conda = env_path("CONDA_PREFIX");
    f->by = "CONDA_PREFIX";
    if (conda && conda_sites) {
        add_prefix(f, conda);
    }
    const char *search = secure_getenv("PATH");
    f->by = "PATH";
    for (int entries = 0; search && *search && entries < MAX_PATH_ENTRIES; entries++) {
        size_t len = strcspn(search, ":");
        /* Only absolute entries: an empty or relative one means the
         * current folder, which names no installation. */
        if (search[0] == '/' && len < sizeof path) {
            memcpy(path, search, len);
            path[len] = '\0';
            add_path_entry(f, path);
        }
        search += len + (search[len] == ':');
    }
    const char *home = env_path("HOME");
    f->by = "HOME";
    if (home && snprintf(path, sizeof path, "%s/.local", home) < (int)sizeof path) {
        add_prefix(f, path);
    }
}

size_t xgpu__python_lib_dirs(const char *const *subdirs, char (*out)[XGPU_PYFOLDER_SIZE],
                             size_t max) {
    found f = {out, NULL, subdirs, NULL, max, 0};
    char path[PATH_MAX];
    add_environments(&f, false);
    const char *conda = env_path("CONDA_PREFIX");
    if (conda && snprintf(path, sizeof path, "%s/lib", conda) < (int)sizeof path) {
        add(&f, path);
    }
    return f.n;
}

size_t xgpu__python_sites(xgpu_pysite *out, size_t max) {
    found f = {NULL, out, NULL, NULL, max, 0};
    add_environments(&f, true);
    return f.n;
}
