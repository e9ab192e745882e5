/* Finding Hygon's DTK (the DCU toolkit, a fork of ROCm) without running
 * anything: DTK installs as /opt/dtk-<version> (/opt/dtk-26.04), often
 * without an /opt/dtk link; DTK 26.04 wants ROCM_PATH=/opt/dtk/.hyhal,
 * earlier releases DTK_PATH. Its runtime is libgalaxyhip (legacy ABI) or a
 * libamdhip64.so.5 of its own, which, unlike vanilla ROCm's, speaks
 * Hygon's KFD. /opt is under XGPU_HIP_SYSROOT when that is set (tests
 * build DTK trees in a temporary folder). */
#define _GNU_SOURCE
#include "hip_internal.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *hip__sysroot(void) {
    const char *root = secure_getenv("XGPU_HIP_SYSROOT");
    return root && *root ? root : "";
}

/* "26.04" or "24.04.3": up to three numbers; false when `s` is not one. */
static bool parse_version(const char *s, int v[3]) {
    v[0] = v[1] = v[2] = 0;
    for (int i = 0; i < 3; i++) {
        char *end;
        if (*s < '0' || *s > '9') {
            return false;
        }
        long n = strtol(s, &end, 10);
        v[i] = n > 9999 ? 9999 : (int)n;
        if (*end == '\0') {
            return i >= 1;
        }
        if (*end != '.') {
            return false;
        }
        s = end + 1;
    }
    return false;
}

/* The version in a DTK folder's name: "dtk-26.04", or "26.04" inside a
 * folder named dtk (/public/software/compiler/dtk/24.04). */
static bool folder_version(const char *dir, int v[3]) {
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", dir);
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/') {
        copy[--n] = '\0';
    }
    char *base = strrchr(copy, '/');
    base = base ? base + 1 : copy;
    if (!strncmp(base, "dtk-", 4)) {
        return parse_version(base + 4, v);
    }
    if (base > copy + 4 && !strncmp(base - 5, "/dtk/", 5)) {
        return parse_version(base, v);
    }
    return false;
}

int hip__dtk_release(const char *dir) {
    char real[PATH_MAX];
    int v[3];
    /* /opt/dtk is usually a link to the versioned folder. */
    if ((realpath(dir, real) && folder_version(real, v)) || folder_version(dir, v)) {
        return v[0] * 100 + (v[1] > 99 ? 99 : v[1]);
    }
    return 0;
}

/* Is this path component one of DTK's? */
static bool dtk_component(const char *c, size_t n, const char *prev, size_t prev_n) {
    if ((n == 3 && !strncmp(c, "dtk", 3)) || (n > 4 && !strncmp(c, "dtk-", 4)) ||
        (n == 6 && !strncmp(c, ".hyhal", 6))) {
        return true;
    }
    /* A version folder inside "dtk". */
    char v[32];
    int parts[3];
    if (prev_n == 3 && !strncmp(prev, "dtk", 3) && n < sizeof v) {
        memcpy(v, c, n);
        v[n] = '\0';
        return parse_version(v, parts);
    }
    return false;
}

bool hip__path_is_dtk(const char *path) {
    if (strstr(path, "galaxyhip")) {
        return true;
    }
    const char *prev = "";
    size_t prev_n = 0;
    for (const char *p = path; *p;) {
        while (*p == '/') {
            p++;
        }
        size_t n = strcspn(p, "/");
        if (n && dtk_component(p, n, prev, prev_n)) {
            return true;
        }
        prev = p;
        prev_n = n;
        p += n;
    }
    return false;
}

bool hip__dtk_root_of(const char *path, char *root, size_t size) {
    /* The root ends with the last DTK component, or before a .hyhal. */
    const char *end = NULL, *prev = "";
    size_t prev_n = 0;
    for (const char *p = path; *p;) {
        while (*p == '/') {
            p++;
        }
        size_t n = strcspn(p, "/");
        if (n == 6 && !strncmp(p, ".hyhal", 6)) {
            end = p > path ? p - 1 : p;
            break;
        }
        if (n && dtk_component(p, n, prev, prev_n)) {
            end = p + n;
        }
        prev = p;
        prev_n = n;
        p += n;
    }
    if (!end || end == path) {
        return false;
    }
    snprintf(root, size, "%.*s", (int)(end - path), path);
    return true;
}

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Adds `dir` unless it is one already listed (the same real folder). */
static size_t add_dtk(hip_dtk *out, size_t n, size_t max, const char *dir, bool named) {
    char real[PATH_MAX], other[PATH_MAX];
    bool has_real = realpath(dir, real) != NULL;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(out[i].root, dir) ||
            (has_real && realpath(out[i].root, other) && !strcmp(real, other))) {
            out[i].named = out[i].named || named;
            return n;
        }
    }
    if (n < max) {
        snprintf(out[n].root, sizeof out[n].root, "%s", dir);
        size_t len = strlen(out[n].root);
        while (len > 1 && out[n].root[len - 1] == '/') {
            out[n].root[--len] = '\0';
        }
        out[n].release = hip__dtk_release(dir);
        out[n].named = named;
        n++;
    }
    return n;
}

typedef struct versioned_dir {
    char name[256];
    int v[3];
} versioned_dir;

/* Newest first; a folder without a version last. */
static int newest_first(const void *a, const void *b) {
    const versioned_dir *x = a, *y = b;
    for (int i = 0; i < 3; i++) {
        if (x->v[i] != y->v[i]) {
            return x->v[i] > y->v[i] ? -1 : 1;
        }
    }
    return strcmp(x->name, y->name);
}

/* Every <opt>/dtk-<version> folder, newest first. */
static size_t add_versioned(hip_dtk *out, size_t n, size_t max, const char *opt) {
    DIR *d = opendir(opt);
    if (!d) {
        return n;
    }
    enum { MAX_DIRS = 32 };
    versioned_dir *dirs = calloc(MAX_DIRS, sizeof *dirs);
    size_t count = 0;
    struct dirent *e;
    while (dirs && count < MAX_DIRS && (e = readdir(d)) != NULL) {
        char path[PATH_MAX];
        if (strncmp(e->d_name, "dtk-", 4) || strlen(e->d_name) >= sizeof dirs[0].name) {
            continue;
        }
        snprintf(path, sizeof path, "%.3800s/%.255s", opt, e->d_name);
        if (!is_dir(path)) {
            continue;
        }
        snprintf(dirs[count].name, sizeof dirs[count].name, "%s", e->d_name);
        if (!parse_version(e->d_name + 4, dirs[count].v)) {
            dirs[count].v[0] = dirs[count].v[1] = dirs[count].v[2] = -1;
        }
        count++;
    }
    closedir(d);
    if (dirs) {
        qsort(dirs, count, sizeof *dirs, newest_first);
    }
    for (size_t i = 0; i < count; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%.3800s/%.255s", opt, dirs[i].name);
        n = add_dtk(out, n, max, path, false);
    }
    free(dirs);
    return n;
}

size_t hip__dtk_find(hip_dtk *out, size_t max) {
    size_t n = 0;
    const char *dtk_path = secure_getenv("DTK_PATH");
    if (dtk_path && *dtk_path) {
        n = add_dtk(out, n, max, dtk_path, true);
    }
    /* ROCM_PATH=/opt/dtk/.hyhal (DTK 26.04), or ROCM_PATH=/opt/dtk. */
    const char *rocm_path = secure_getenv("ROCM_PATH");
    char root[PATH_MAX];
    if (rocm_path && *rocm_path && hip__path_is_dtk(rocm_path)) {
        if (!hip__dtk_root_of(rocm_path, root, sizeof root)) {
            snprintf(root, sizeof root, "%s", rocm_path);
        }
        n = add_dtk(out, n, max, root, true);
    }
    char opt[PATH_MAX], dtk[PATH_MAX];
    snprintf(opt, sizeof opt, "%.4000s/opt", hip__sysroot());
    snprintf(dtk, sizeof dtk, "%.4000s/dtk", opt);
    if (is_dir(dtk)) {
        n = add_dtk(out, n, max, dtk, false);
    } else {
        n = add_versioned(out, n, max, opt);
    }
    return n;
}
