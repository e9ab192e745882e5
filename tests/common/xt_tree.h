/* Made-up folder trees in a temporary folder (a fake venv, a fake conda
 * prefix), for tests of code that searches the file system. No CMocka
 * here: every function returns 0 on success, -1 (errno set) otherwise. */
#ifndef XGPU_TEST_TREE_H
#define XGPU_TEST_TREE_H

#include <stddef.h>
#include <sys/types.h>

/* Creates a new empty folder /tmp/<prefix>-XXXXXX and stores its real path
 * (no symbolic link in it) in root, PATH_MAX bytes. */
int xt_tree_make(const char *prefix, char *root);

/* root/rel into out (PATH_MAX bytes); -1 when it does not fit. */
int xt_tree_path(const char *root, const char *rel, char *out);

/* The folder root/rel, and its parents. */
int xt_tree_dir(const char *root, const char *rel);

/* An empty file root/rel with permissions `mode`, and its parents. */
int xt_tree_file(const char *root, const char *rel, mode_t mode);

/* A symbolic link root/rel pointing to `target` (taken as it is: relative
 * to the link's folder or absolute), and its parents. */
int xt_tree_link(const char *root, const char *rel, const char *target);

/* Removes root and everything in it, following no link. */
int xt_tree_remove(const char *root);

#endif
