/* The persistent cache of compiled kernels: one file per program binary,
 * named by a SHA-256 key over everything the binary depends on.
 *
 * Safe for many processes at once without locks: an entry is written to a
 * temporary file of its own in the same folder and renamed over the name,
 * so readers see a whole entry or none. Each entry carries its key, its
 * size and a SHA-256 of its payload, checked on every read; one that does
 * not check out is removed and rebuilt, never loaded. The removal renames
 * whatever is at the name aside first and unlinks it only when it is the
 * file that was read: a good entry another process renamed in meanwhile
 * is put back, not lost. The folder is made 0700 and used only when it
 * belongs to this user and nobody else can write to it, checked on an open
 * descriptor of it that every entry is then read, written, renamed and
 * removed through: whoever may write to a parent folder can swap the path
 * for a folder of their own, never the folder this process checked.
 * Entries are 0600. Bounded: after each write, the least recently used
 * entries (by modification time, refreshed on every hit) go until the
 * total fits the limit. Any failure to read or write only means no
 * caching, said at debug level (XGPU_LOG=debug). */
#define _GNU_SOURCE
#include "kcache.h"
#include "core_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WHO "cache"
static const unsigned char magic[8] = {'X', 'G', 'P', 'U', 'K', 'C', 1, '\n'};
#define HEADER_SIZE (8 + XGPU__SHA256_SIZE + 8 + XGPU__SHA256_SIZE)
#define ENTRY_SUFFIX ".xkc"
#define DEFAULT_LIMIT_MB 256
/* Temporary files older than this were left by a process that died. */
#define STALE_TMP_SECONDS 3600

uint64_t xgpu__kcache_limit_bytes(void) {
    const char *v = getenv("XGPU_CACHE_SIZE_MB");
    uint32_t mb = DEFAULT_LIMIT_MB;
    char why[96];
    if (v && !xgpu__uint_parse(v, 1, 1u << 20, &mb, why, sizeof why)) {
        xgpu__log(WHO, XGPU_LOG_WARN, "XGPU_CACHE_SIZE_MB='%.32s' ignored: %s; using %u", v, why,
                  DEFAULT_LIMIT_MB);
        mb = DEFAULT_LIMIT_MB;
    }
    return (uint64_t)mb << 20;
}

int xgpu__make_dirs(const char *path) {
    char buf[XGPU__KCACHE_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
                return -1;
            }
            *p = c;
            if (!c) {
                return 0;
            }
        }
    }
}

/* Says why the cache is off, at debug level and into `why` (may be NULL). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
off(char *why, size_t why_size, const char *fmt, ...) {
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    xgpu__log(WHO, XGPU_LOG_DEBUG, "off: %s", text);
    if (why && why_size) {
        snprintf(why, why_size, "%s", text);
    }
}

bool xgpu__cache_dir(char *dir, size_t size, char *why, size_t why_size) {
    /* secure_getenv: a setuid program gets no cache, rather than one a
     * user's environment points somewhere. */
    const char *base = secure_getenv("XGPU_CACHE_DIR");
    const char *xdg = secure_getenv("XDG_CACHE_HOME"), *home = secure_getenv("HOME");
    int n;
    if (base && *base) {
        n = snprintf(dir, size, "%s", base);
    } else if (xdg && *xdg == '/') {
        n = snprintf(dir, size, "%s/xgpu", xdg);
    } else if (home && *home == '/') {
        n = snprintf(dir, size, "%s/.cache/xgpu", home);
    } else {
        snprintf(why, why_size, "no XGPU_CACHE_DIR, XDG_CACHE_HOME or HOME");
        return false;
    }
    if (n < 0 || (size_t)n >= size) {
        snprintf(why, why_size,
                 "the cache folder's path is %d characters long, more than the %zu a path may "
                 "have ('%.100s...')",
                 n, size - 1, dir);
        return false;
    }
    if (dir[0] != '/') {
        snprintf(why, why_size, "'%.200s' is not an absolute path", dir);
        return false;
    }
    /* Trailing slashes would let O_NOFOLLOW follow a symbolic link. */
    for (size_t len = strlen(dir); len > 1 && dir[len - 1] == '/'; len--) {
        dir[len - 1] = '\0';
    }
    return true;
}

/* Whether the settings leave the cache on, the folder's path in `dir`;
 * false with the reason otherwise. Nothing is created or checked. */
static bool configured(char *dir, size_t size, char *why, size_t why_size) {
    const char *setting = getenv("XGPU_CACHE");
    if (setting && (!strcmp(setting, "off") || !strcmp(setting, "0"))) {
        off(why, why_size, "XGPU_CACHE=%s", setting);
        return false;
    }
    char reason[300] = "";
    if (!xgpu__cache_dir(dir, size, reason, sizeof reason)) {
        off(why, why_size, "%s", reason);
        return false;
    }
    return true;
}

/* A descriptor of the existing folder `dir`, checked to be this user's
 * and writable by nobody else; -1 with the reason otherwise, or with
 * *missing set (and nothing said) when there is no such folder yet. */
static int open_folder(const char *dir, char *why, size_t why_size, bool *missing) {
    *missing = false;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        *missing = true;
        return -1;
    }
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        off(why, why_size, "%.400s is not a folder (%s)", dir, fd < 0 ? strerror(errno) : "fstat");
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    /* Someone else's folder, or one others may write to, could hand this
     * process code to run. */
    if (st.st_uid != geteuid() || (st.st_mode & 022)) {
        xgpu__log(WHO, XGPU_LOG_WARN,
                  "%.400s is not used: another user's, or others may write to it", dir);
        off(why, why_size, "%.400s belongs to another user or others may write to it (mode %03o)",
            dir, (unsigned)(st.st_mode & 0777));
        close(fd);
        return -1;
    }
    return fd;
}

int xgpu__kcache_open(char *dir, size_t size, char *why, size_t why_size) {
    if (!configured(dir, size, why, why_size)) {
        return -1;
    }
    if (xgpu__make_dirs(dir) != 0) {
        off(why, why_size, "cannot create %.400s: %s", dir, strerror(errno));
        return -1;
    }
    bool missing;
    int fd = open_folder(dir, why, why_size, &missing);
    if (missing) { /* removed since it was made */
        off(why, why_size, "%.400s is not a folder (%s)", dir, strerror(ENOENT));
    }
    return fd;
}

/* Whether xgpu__make_dirs could make the missing folder `dir`: its
 * nearest existing parent is a folder this process may create entries
 * in. False with the reason otherwise. Nothing is created. */
static bool could_create(const char *dir, char *why, size_t why_size) {
    char parent[XGPU__KCACHE_PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    struct stat st;
    for (;;) {
        char *slash = strrchr(parent, '/');
        if (!slash) {
            return true; /* not reached: the path is absolute */
        }
        slash[slash == parent] = '\0'; /* "/x" leaves "/" */
        if (stat(parent, &st) == 0) {
            break;
        }
        if (errno != ENOENT) {
            off(why, why_size, "cannot create %.400s: %s", dir, strerror(errno));
            return false;
        }
    }
    if (!S_ISDIR(st.st_mode)) {
        off(why, why_size, "cannot create %.400s: %s", dir, strerror(ENOTDIR));
        return false;
    }
    if (faccessat(AT_FDCWD, parent, W_OK | X_OK, AT_EACCESS) != 0) {
        off(why, why_size, "cannot create %.400s: %s", dir, strerror(errno));
        return false;
    }
    return true;
}

void xgpu__kcache_key_make(xgpu__kcache_key *key, const char *const *parts, size_t count) {
    static const char domain[] = "xgpu kernel cache, format 1";
    xgpu__sha256_state s;
    xgpu__sha256_init(&s);
    xgpu__sha256_update(&s, domain, sizeof domain);
    for (size_t i = 0; i < count; i++) {
        /* Each part with its length, so that no two lists hash alike by
         * moving a boundary. */
        const char *p = parts[i] ? parts[i] : "";
        uint64_t n = strlen(p);
        unsigned char len[8];
        for (int b = 0; b < 8; b++) {
            len[b] = (unsigned char)(n >> (8 * b));
        }
        xgpu__sha256_update(&s, len, sizeof len);
        xgpu__sha256_update(&s, p, (size_t)n);
    }
    xgpu__sha256_final(&s, key->hash);
    static const char hexd[] = "0123456789abcdef";
    for (int i = 0; i < XGPU__SHA256_SIZE; i++) {
        key->hex[2 * i] = hexd[key->hash[i] >> 4];
        key->hex[2 * i + 1] = hexd[key->hash[i] & 15];
    }
    key->hex[2 * XGPU__SHA256_SIZE] = '\0';
}

static void entry_name(char *out, size_t size, const xgpu__kcache_key *key) {
    snprintf(out, size, "%s" ENTRY_SUFFIX, key->hex);
}

static void put_u64(unsigned char *p, uint64_t v) {
    for (int b = 0; b < 8; b++) {
        p[b] = (unsigned char)(v >> (8 * b));
    }
}

static uint64_t get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int b = 0; b < 8; b++) {
        v |= (uint64_t)p[b] << (8 * b);
    }
    return v;
}

/* All `n` bytes read into, or written from, `p`; false on an error or
 * an end of file (a short entry, a full disk). */
static bool transfer_all(int fd, unsigned char *p, size_t n, bool writing) {
    while (n) {
        ssize_t r = writing ? write(fd, p, n) : read(fd, p, n);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return false;
        }
        p += r;
        n -= (size_t)r;
    }
    return true;
}

/* The entry's payload when the file is whole and its own; NULL otherwise,
 * with `why` saying which. */
static void *check_entry(const unsigned char *file, size_t file_size, const xgpu__kcache_key *key,
                         size_t *size, const char **why) {
    if (file_size < HEADER_SIZE || memcmp(file, magic, sizeof magic) != 0) {
        *why = "not an entry of this format";
        return NULL;
    }
    if (memcmp(file + 8, key->hash, XGPU__SHA256_SIZE) != 0) {
        *why = "it holds another key";
        return NULL;
    }
    uint64_t n = get_u64(file + 8 + XGPU__SHA256_SIZE);
    if (n != file_size - HEADER_SIZE) {
        *why = "truncated or padded";
        return NULL;
    }
    unsigned char sum[XGPU__SHA256_SIZE];
    xgpu__sha256(file + HEADER_SIZE, (size_t)n, sum);
    if (memcmp(sum, file + 8 + XGPU__SHA256_SIZE + 8, XGPU__SHA256_SIZE) != 0) {
        *why = "its checksum does not match";
        return NULL;
    }
    void *out = malloc(n ? (size_t)n : 1);
    if (!out) {
        *why = "out of host memory";
        return NULL;
    }
    memcpy(out, file + HEADER_SIZE, (size_t)n);
    *size = (size_t)n;
    return out;
}

/* A name of this process's own next to the entry's, for a temporary file
 * (stale ones are removed by xgpu__kcache_evict). */
static void temp_name(char *out, size_t size, const xgpu__kcache_key *key, const char *tail) {
    static atomic_uint serial;
    snprintf(out, size, "%s.tmp.%ld.%u%s", key->hex, (long)getpid(), atomic_fetch_add(&serial, 1),
             tail);
}

/* Removes the damaged entry that `fd` (still open) was read from. Whatever
 * is at `path` now is renamed aside, and unlinked only when it is that
 * file: another process may have renamed a good entry over the name since
 * the read, and that one is put back. */
static void remove_damaged(int dir, const char *path, const xgpu__kcache_key *key, int fd) {
    char aside[128];
    temp_name(aside, sizeof aside, key, ".bad");
    if (renameat(dir, path, dir, aside) != 0) {
        return; /* gone already: another reader removed it */
    }
    struct stat read_st, moved_st;
    bool same = fstat(fd, &read_st) == 0 &&
                fstatat(dir, aside, &moved_st, AT_SYMLINK_NOFOLLOW) == 0 &&
                read_st.st_dev == moved_st.st_dev && read_st.st_ino == moved_st.st_ino;
    if (!same) {
        xgpu__log(WHO, XGPU_LOG_DEBUG, "entry %s was replaced since it was read: kept", path);
        if (renameat(dir, aside, dir, path) == 0) {
            return;
        }
    }
    unlinkat(dir, aside, 0);
}

void *xgpu__kcache_read(int dir, const xgpu__kcache_key *key, size_t *size) {
    char path[96];
    entry_name(path, sizeof path, key);
    /* O_NONBLOCK: a FIFO named like an entry would block open(2) for ever;
     * opened at once, it is refused below as not a regular file. */
    int fd = openat(dir, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT) {
            xgpu__log(WHO, XGPU_LOG_DEBUG, "cannot read %s: %s", path, strerror(errno));
        }
        return NULL;
    }
    struct stat st;
    uint64_t limit = xgpu__kcache_limit_bytes();
    const char *why = NULL;
    unsigned char *file = NULL;
    void *payload = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        why = "not a regular file";
    } else if ((uint64_t)st.st_size > limit) {
        /* Another process's bound may be larger: its entry, not damage. */
        close(fd);
        xgpu__log(WHO, XGPU_LOG_DEBUG, "entry %s skipped: larger than this process's bound", path);
        return NULL;
    } else if (!(file = malloc((size_t)st.st_size ? (size_t)st.st_size : 1)) ||
               !transfer_all(fd, file, (size_t)st.st_size, false)) {
        why = file ? "short read" : "out of host memory";
    } else {
        payload = check_entry(file, (size_t)st.st_size, key, size, &why);
    }
    free(file);
    if (!payload) {
        bool damaged = strcmp(why, "out of host memory") != 0;
        xgpu__log(WHO, XGPU_LOG_DEBUG, "entry %s %s: %s", path, damaged ? "removed" : "skipped",
                  why);
        if (damaged) {
            remove_damaged(dir, path, key, fd); /* rebuilt and written again by the caller */
        }
        close(fd);
        return NULL;
    }
    close(fd);
    /* Recently used: eviction goes by modification time. */
    utimensat(dir, path, NULL, AT_SYMLINK_NOFOLLOW);
    xgpu__log(WHO, XGPU_LOG_DEBUG, "hit %s (%zu bytes)", path, *size);
    return payload;
}

typedef struct entry_stat {
    struct timespec mtime;
    uint64_t size;
    char name[80];
} entry_stat;

static int older_first(const void *a, const void *b) {
    const entry_stat *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec) {
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    }
    return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : x->mtime.tv_nsec > y->mtime.tv_nsec;
}

/* The folder's listing through a descriptor of its own (closedir closes
 * it), `dir` staying open. */
static DIR *listing(int dir) {
    int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (fd >= 0 && !d) {
        close(fd);
    }
    return d;
}

void xgpu__kcache_evict(int dir, uint64_t limit) {
    DIR *d = listing(dir);
    if (!d) {
        return;
    }
    entry_stat *list = NULL;
    size_t count = 0, cap = 0;
    uint64_t total = 0;
    time_t now = time(NULL);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        bool entry = len > strlen(ENTRY_SUFFIX) &&
                     !strcmp(de->d_name + len - strlen(ENTRY_SUFFIX), ENTRY_SUFFIX);
        bool tmp = strstr(de->d_name, ".tmp.") != NULL;
        struct stat st;
        if ((!entry && !tmp) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode)) {
            continue;
        }
        /* Temporary names are longer than entries' (a 7-digit pid and a
         * serial make 80 characters and more): never kept in the list. */
        if (tmp) {
            if (now - st.st_mtime > STALE_TMP_SECONDS) {
                unlinkat(dirfd(d), de->d_name, 0);
            }
            continue;
        }
        if (len >= sizeof list->name) {
            continue;
        }
        if (count == cap) {
            size_t grown = cap ? cap * 2 : 64;
            entry_stat *l = realloc(list, grown * sizeof *l);
            if (!l) {
                break;
            }
            list = l;
            cap = grown;
        }
        list[count].mtime = st.st_mtim;
        list[count].size = (uint64_t)st.st_size;
        memcpy(list[count].name, de->d_name, len + 1); /* len < sizeof name: checked above */
        total += (uint64_t)st.st_size;
        count++;
    }
    if (total > limit) {
        qsort(list, count, sizeof *list, older_first);
        for (size_t i = 0; i < count && total > limit; i++) {
            /* Gone is gone, by this process or another evicting at the
             * same time: counting only this process's own removals made
             * every one of them remove its whole share, and together they
             * emptied the cache. */
            if (unlinkat(dirfd(d), list[i].name, 0) == 0 || errno == ENOENT) {
                total -= list[i].size;
                xgpu__log(WHO, XGPU_LOG_DEBUG, "evicted %s (least recently used)", list[i].name);
            }
        }
    }
    closedir(d);
    free(list);
}

void xgpu__kcache_write(int dir, const xgpu__kcache_key *key, const void *data, size_t size) {
    uint64_t limit = xgpu__kcache_limit_bytes();
    if ((uint64_t)size + HEADER_SIZE > limit) { /* it would evict everything, itself too */
        xgpu__log(WHO, XGPU_LOG_DEBUG, "not stored: %zu bytes is over the limit", size);
        return;
    }
    /* A file over RLIMIT_FSIZE would raise SIGXFSZ, which ends the process
     * by default: not written at all instead. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (uint64_t)rl.rlim_cur < (uint64_t)size + HEADER_SIZE) {
        xgpu__log(WHO, XGPU_LOG_DEBUG, "not stored: over the file size limit (RLIMIT_FSIZE)");
        return;
    }
    char path[96], tmp[128];
    entry_name(path, sizeof path, key);
    temp_name(tmp, sizeof tmp, key, "");
    unsigned char header[HEADER_SIZE];
    memcpy(header, magic, sizeof magic);
    memcpy(header + 8, key->hash, XGPU__SHA256_SIZE);
    put_u64(header + 8 + XGPU__SHA256_SIZE, size);
    xgpu__sha256(data, size, header + 8 + XGPU__SHA256_SIZE + 8);
    int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        xgpu__log(WHO, XGPU_LOG_DEBUG, "not stored: cannot create %s: %s", tmp, strerror(errno));
        return;
    }
    bool ok = transfer_all(fd, header, sizeof header, true) &&
              transfer_all(fd, (unsigned char *)(uintptr_t)data, size, true) && fsync(fd) == 0;
    int err = errno;
    ok = close(fd) == 0 && ok;
    if (!ok || renameat(dir, tmp, dir, path) != 0) {
        err = ok ? errno : err;
        unlinkat(dir, tmp, 0);
        xgpu__log(WHO, XGPU_LOG_DEBUG, "not stored: writing %s: %s", tmp, strerror(err));
        return;
    }
    xgpu__log(WHO, XGPU_LOG_DEBUG, "stored %s (%zu bytes)", path, size);
    xgpu__kcache_evict(dir, limit);
}

xgpu_status xgpu_cache_get_info(xgpu_cache_info *info) {
    if (!info) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: info is NULL", __func__);
    }
    memset(info, 0, sizeof *info);
    info->limit_bytes = xgpu__kcache_limit_bytes();
    /* Reported, never made: a folder not there yet is on when the first
     * build could make it. */
    bool missing = false;
    int dir = -1;
    if (configured(info->dir, sizeof info->dir, info->reason, sizeof info->reason)) {
        dir = open_folder(info->dir, info->reason, sizeof info->reason, &missing);
    }
    info->enabled =
        dir >= 0 || (missing && could_create(info->dir, info->reason, sizeof info->reason));
    DIR *d = dir >= 0 ? listing(dir) : NULL;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        struct stat st;
        if (len > strlen(ENTRY_SUFFIX) &&
            !strcmp(de->d_name + len - strlen(ENTRY_SUFFIX), ENTRY_SUFFIX) &&
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
            info->entries++;
            info->bytes += (uint64_t)st.st_size;
        }
    }
    if (d) {
        closedir(d);
    }
    if (dir >= 0) {
        close(dir);
    }
    return XGPU_SUCCESS;
}
