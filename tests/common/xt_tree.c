#define _GNU_SOURCE /* nftw's FTW_PHYS */
#include "xt_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int xt_tree_make(const char *prefix, char *root) {
    char tmpl[PATH_MAX];
    if (snprintf(tmpl, sizeof tmpl, "/tmp/%s-XXXXXX", prefix) >= (int)sizeof tmpl ||
        !mkdtemp(tmpl) || !realpath(tmpl, root)) {
        return -1;
    }
    return 0;
}

int xt_tree_path(const char *root, const char *rel, char *out) {
    if (snprintf(out, PATH_MAX, "%s/%s", root, rel) >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* The parents of root/rel (root itself exists); the path in `path`. */
static int parents(const char *root, const char *rel, char *path) {
    if (xt_tree_path(root, rel, path) != 0) {
        return -1;
    }
    for (char *p = path + strlen(root) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            int rc = mkdir(path, 0700);
            *p = '/';
            if (rc != 0 && errno != EEXIST) {
                return -1;
            }
        }
    }
    return 0;
}

int xt_tree_dir(const char *root, const char *rel) {
    char path[PATH_MAX];
    if (parents(root, rel, path) != 0 || (mkdir(path, 0700) != 0 && errno != EEXIST)) {
        return -1;
    }
    return 0;
}

int xt_tree_file(const char *root, const char *rel, mode_t mode) {
    char path[PATH_MAX];
    if (parents(root, rel, path) != 0) {
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        return -1;
    }
    close(fd);
    return chmod(path, mode);
}

int xt_tree_link(const char *root, const char *rel, const char *target) {
    char path[PATH_MAX];
    return parents(root, rel, path) == 0 ? symlink(target, path) : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int xt_tree_remove(const char *root) {
    return nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
