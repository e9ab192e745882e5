/* Atomic result files: mkstemp beside the destination, fsync, fchmod,
 * rename. See outfile.h. */
#define _POSIX_C_SOURCE 200809L
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporaries to remove if a signal ends the process first. The handler
 * only reads these: unlink is async-signal-safe, the paths are fixed
 * arrays. */
#define MAX_PENDING 8
static char pending[MAX_PENDING][4096];
static volatile sig_atomic_t handlers_installed;
static mode_t file_mode = 0644;

static void on_signal(int sig) {
    for (int i = 0; i < MAX_PENDING; i++) {
        if (pending[i][0]) {
            unlink(pending[i]);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void) {
    if (handlers_installed) {
        return;
    }
    handlers_installed = 1;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        /* Keep a signal the caller ignores (nohup) ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) {
            sigaction(sigs[i], &sa, NULL);
        }
    }
}

static void remember(const char *tmp, bool add) {
    for (int i = 0; i < MAX_PENDING; i++) {
        if (add ? !pending[i][0] : !strcmp(pending[i], tmp)) {
            if (add && strlen(tmp) < sizeof pending[i]) {
                memcpy(pending[i], tmp, strlen(tmp) + 1);
            } else {
                pending[i][0] = '\0';
            }
            return;
        }
    }
}

int gb_outfile_open(gb_outfile *o, const char *path, char *why, size_t why_size) {
    memset(o, 0, sizeof *o);
    o->path = path;
    if (!strcmp(path, "-")) {
        o->f = stdout;
        return 0;
    }
    struct stat st;
    if (!*path) {
        snprintf(why, why_size, "\"\": an empty file name");
        return -1;
    }
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "%s is a directory", path);
        return -1;
    }
    /* The folder part (up to the last slash) and the name part. */
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dir_len = slash ? (int)(slash - path) : 1;
    const char *dir = slash ? path : ".";
    if (slash == path) {
        dir_len = 1; /* "/name": the root folder */
    }
    if (!*base) {
        snprintf(why, why_size, "%s: names a folder, not a file", path);
        return -1;
    }
    size_t size = strlen(path) + 32;
    o->tmp = malloc(size);
    if (!o->tmp) {
        snprintf(why, why_size, "%s: out of memory", path);
        return -1;
    }
    /* The name is cut so that it stays within NAME_MAX with the suffix. */
    snprintf(o->tmp, size, "%.*s/.%.200s.XXXXXX", dir_len, dir, base);
    mode_t mask = umask(0); /* read it: POSIX has no other way */
    umask(mask);
    file_mode = 0644 & ~mask;
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        snprintf(why, why_size, "%s: cannot create a file in %.*s: %s", path, dir_len, dir,
                 strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    install_handlers();
    remember(o->tmp, true);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        close(fd);
        gb_outfile_discard(o);
        return -1;
    }
    return 0;
}

void gb_outfile_discard(gb_outfile *o) {
    if (o->f && o->f != stdout) {
        fclose(o->f);
    }
    if (o->tmp) {
        unlink(o->tmp);
        remember(o->tmp, false);
        free(o->tmp);
    }
    memset(o, 0, sizeof *o);
}

/* The destination's folder reaches the disk too, so the rename survives a
 * power cut. Best effort: some file systems refuse fsync on a folder. */
static void sync_folder(const char *tmp) {
    const char *slash = strrchr(tmp, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash == tmp ? 1 : (int)(slash - tmp), tmp);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int gb_outfile_commit(gb_outfile *o, char *why, size_t why_size) {
    if (!o->f) {
        snprintf(why, why_size, "%s: not open", o->path ? o->path : "(none)");
        return -1;
    }
    if (o->f == stdout) {
        int rc = fflush(stdout) || ferror(stdout) ? -1 : 0;
        if (rc) {
            snprintf(why, why_size, "standard output: %s", strerror(errno));
        }
        memset(o, 0, sizeof *o);
        return rc;
    }
    const char *step = "write";
    int fd = fileno(o->f);
    if (fflush(o->f) != 0 || ferror(o->f)) {
        goto fail;
    }
    step = "fsync";
    if (fsync(fd) != 0) {
        goto fail;
    }
    step = "fchmod";
    if (fchmod(fd, file_mode) != 0) {
        goto fail;
    }
    step = "close";
    FILE *f = o->f;
    o->f = NULL;
    if (fclose(f) != 0) {
        goto fail;
    }
    step = "rename";
    if (rename(o->tmp, o->path) != 0) {
        goto fail;
    }
    sync_folder(o->tmp);
    remember(o->tmp, false);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return 0;
fail:
    snprintf(why, why_size, "%s: %s: %s (left as it was)", o->path, step, strerror(errno));
    gb_outfile_discard(o);
    return -1;
}
