/* XGPU_CACHE_DIR of about 4030 characters is accepted (it fits the 4096
 * buffer), but "<dir>/<64 hex>.xkc" does not: entry_path truncates it with
 * snprintf, so entries are stored without the .xkc suffix (and, for a
 * longer folder, with part of the hex), which eviction and
 * xgpu_cache_get_info never see: the bound no longer holds.
 * Exit 0 when the cache either refuses the folder or stores proper entries. */
#include "common.h"

#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
    size_t want = argc > 1 ? strtoul(argv[1], NULL, 10) : 4030;
    char dir[4200];
    int n = snprintf(dir, sizeof dir, "/tmp/xgpu-repro-long");
    mkdir(dir, 0700);
    while ((size_t)n + 201 < want) { /* components of 200 characters */
        dir[n++] = '/';
        memset(dir + n, 'd', 199);
        n += 199;
        dir[n] = '\0';
    }
    dir[n++] = '/';
    while ((size_t)n < want) {
        dir[n++] = 'e';
    }
    dir[n] = '\0';
    setenv("XGPU_CACHE_DIR", dir, 1);
    setenv("XGPU_CACHE_SIZE_MB", "1", 1);
    r_open();
    char opt[32];
    for (int i = 0; i < 3; i++) {
        snprintf(opt, sizeof opt, "-DV=%d", i);
        r_build(r_source, opt);
    }
    xgpu_cache_info info;
    xgpu_cache_get_info(&info);
    printf("folder of %zu characters: cache %s (%s), %llu entries, %llu bytes\n", strlen(dir),
           info.enabled ? "on" : "off", info.reason, (unsigned long long)info.entries,
           (unsigned long long)info.bytes);
    DIR *d = opendir(dir);
    struct dirent *de;
    int stray = 0;
    while (d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] != '.') {
            printf("  file: %s\n", de->d_name);
            stray += strstr(de->d_name, ".xkc") == NULL;
        }
    }
    if (d) {
        closedir(d);
    }
    r_close();
    printf("%s\n",
           stray ? "FAIL: files in the cache folder that are not entries" : "OK: no stray files");
    return stray != 0;
}
