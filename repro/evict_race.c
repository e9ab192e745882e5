/* Processes that evict at once each count only their own successful
 * unlinks: an entry another process removed first (ENOENT) is not taken
 * off the total, so each goes on to remove more, and together they empty
 * far more of the cache than the bound asks. 8 processes, 400 entries of
 * 10 KiB, a bound of 2 MiB: what is left should be just under 2 MiB.
 * Links the internal objects (xgpu__kcache_*). Exit 0 when >= 90% is left. */
#define _GNU_SOURCE
#include "kcache.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long left_bytes(const char *dir, int *count) {
    DIR *d = opendir(dir);
    struct dirent *de;
    unsigned long long total = 0;
    *count = 0;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        if (strstr(de->d_name, ".xkc") && fstatat(dirfd(d), de->d_name, &st, 0) == 0) {
            total += (unsigned long long)st.st_size;
            (*count)++;
        }
    }
    closedir(d);
    return total;
}

int main(void) {
    enum { ENTRIES = 400, SIZE = 10240 };
    const int PROCS = getenv("PROCS") ? atoi(getenv("PROCS")) : 8;
    const unsigned long long limit = 2ull << 20;
    char dir[] = "/tmp/xgpu-repro-evict-XXXXXX";
    if (!mkdtemp(dir)) {
        return 2;
    }
    static unsigned char payload[SIZE];
    time_t base = time(NULL) - 100000;
    for (int i = 0; i < ENTRIES; i++) {
        char text[32], path[600];
        snprintf(text, sizeof text, "entry %d", i);
        const char *parts[] = {text};
        xgpu__kcache_key key;
        xgpu__kcache_key_make(&key, parts, 1);
        xgpu__kcache_write(dir, &key, payload, sizeof payload);
        snprintf(path, sizeof path, "%s/%s.xkc", dir, key.hex);
        struct timespec t[2] = {{base + i, 0}, {base + i, 0}};
        utimensat(AT_FDCWD, path, t, 0);
    }
    int fds[2];
    if (pipe(fds) != 0) {
        return 2;
    }
    for (int i = 0; i < PROCS; i++) {
        if (fork() == 0) {
            char c;
            close(fds[1]);
            if (read(fds[0], &c, 1) < 0) { /* all start when the pipe closes */
                _exit(3);
            }
            xgpu__kcache_evict(dir, limit);
            _exit(0);
        }
    }
    close(fds[0]);
    close(fds[1]);
    while (wait(NULL) > 0) {
    }
    int count;
    unsigned long long left = left_bytes(dir, &count);
    printf("bound %llu bytes: %d entries (%llu bytes, %.0f%% of the bound) left\n", limit, count,
           left, 100.0 * (double)left / (double)limit);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) {
        return 2;
    }
    return left < limit * 9 / 10;
}
