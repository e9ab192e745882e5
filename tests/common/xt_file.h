/* Whole files and whole command outputs read into memory: the one reader
 * every test uses. No CMocka and no libxgpu here, so a test that has
 * neither (the compile matrix) links it too. */
#ifndef XGPU_TEST_FILE_H
#define XGPU_TEST_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Everything left in `f`, malloc'ed and NUL-terminated (the caller frees
 * it); its length without the NUL in *size when size is not NULL. NULL
 * when memory runs out or reading fails. `f` stays open. */
char *xt_read_stream(FILE *f, size_t *size);

/* The whole of the file at `path`, as xt_read_stream returns it; NULL when
 * it cannot be opened or read. */
char *xt_read_file(const char *path, size_t *size);

/* Runs `cmdline` with /bin/sh (its redirections are the caller's: add
 * "2>&1" to capture stderr) and returns what it wrote on standard output,
 * as xt_read_stream returns it. *status is its exit status, -1 when it did
 * not exit normally. NULL when it could not be started or read. */
char *xt_run_command(const char *cmdline, int *status);

#endif
