/* A process killed mid-write leaves "<key>.tmp.<pid>.<serial>"; eviction
 * removes such files after an hour, but it skips every name of 80
 * characters or more before it looks at the ".tmp." (entry_stat.name is 80
 * bytes). 64 hex + ".tmp." + a 7-digit pid (pid_max is 4194304 on many
 * systems) + "." + a serial of 3 digits (the 100th store of a process) is
 * 80: such leftovers stay for ever, and they are not counted against the
 * bound either. Exit 0 when both stale files are removed. */
#include "common.h"

#include <fcntl.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static void leftover(const char *dir, const char *name, char *path, size_t size) {
    snprintf(path, size, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, "half an entry", 13) != 13) {
        perror(path);
        exit(2);
    }
    close(fd);
    struct timespec old[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
    utimensat(AT_FDCWD, path, old, 0);
}

int main(void) {
    char dir[] = "/tmp/xgpu-repro-tmp-XXXXXX", shortp[512], longp[512];
    if (!mkdtemp(dir)) {
        return 2;
    }
    const char *hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    char name[128];
    snprintf(name, sizeof name, "%s.tmp.%d.%d", hex, 31337, 7);
    leftover(dir, name, shortp, sizeof shortp);
    snprintf(name, sizeof name, "%s.tmp.%d.%d", hex, 4194301, 123);
    leftover(dir, name, longp, sizeof longp);
    setenv("XGPU_CACHE_DIR", dir, 1);
    r_open();
    r_build(r_source, NULL); /* stores an entry, then evicts */
    r_close();
    int short_left = access(shortp, F_OK) == 0, long_left = access(longp, F_OK) == 0;
    printf("stale leftover of %zu chars: %s; of %zu chars: %s\n", strlen(strrchr(shortp, '/') + 1),
           short_left ? "still there" : "removed", strlen(strrchr(longp, '/') + 1),
           long_left ? "still there" : "removed");
    return short_left || long_left;
}
