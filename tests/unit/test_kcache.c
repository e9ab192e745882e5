/* The persistent kernel cache's own parts: SHA-256, keys, entries that are
 * whole or refused, eviction, the folder's checks, the file size limit. */
#define _GNU_SOURCE
#include "core_int.h"
#include "kcache.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

/* renameat and unlinkat are wrapped (-Wl,--wrap, see CMakeLists.txt): armed
 * with an entry's name, the first call that names it first stores a good
 * entry under it, as another process finishing a build at that moment. */
static struct {
    bool armed, fired;
    int dir;
    char name[96];
    const xgpu__kcache_key *key;
    const void *data;
    size_t size;
} meanwhile;

int __real_renameat(int olddir, const char *oldpath, int newdir, const char *newpath);
int __real_unlinkat(int dir, const char *path, int flags);

static void store_meanwhile(const char *path) {
    if (meanwhile.armed && !strcmp(path, meanwhile.name)) {
        meanwhile.armed = false;
        meanwhile.fired = true;
        xgpu__kcache_write(meanwhile.dir, meanwhile.key, meanwhile.data, meanwhile.size);
    }
}

int __wrap_renameat(int olddir, const char *oldpath, int newdir, const char *newpath) {
    store_meanwhile(oldpath);
    return __real_renameat(olddir, oldpath, newdir, newpath);
}

int __wrap_unlinkat(int dir, const char *path, int flags) {
    store_meanwhile(path);
    return __real_unlinkat(dir, path, flags);
}

static void hex(const unsigned char *h, char *out) {
    for (int i = 0; i < XGPU__SHA256_SIZE; i++) {
        sprintf(out + 2 * i, "%02x", h[i]);
    }
}

static void sha256_known_answers(void **state) {
    (void)state;
    unsigned char h[XGPU__SHA256_SIZE];
    char s[65];
    xgpu__sha256("", 0, h);
    hex(h, s);
    assert_string_equal(s, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    xgpu__sha256("abc", 3, h);
    hex(h, s);
    assert_string_equal(s, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    xgpu__sha256(two_blocks, strlen(two_blocks), h);
    hex(h, s);
    assert_string_equal(s, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* A million 'a', fed in uneven pieces through the incremental form. */
    xgpu__sha256_state st;
    xgpu__sha256_init(&st);
    char a[1000];
    memset(a, 'a', sizeof a);
    size_t left = 1000000, piece = 1;
    while (left) {
        size_t n = piece < left ? piece : left;
        xgpu__sha256_update(&st, a, n);
        left -= n;
        piece = piece % 900 + 61; /* 61..960: within a[] */
    }
    xgpu__sha256_final(&st, h);
    hex(h, s);
    assert_string_equal(s, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void keys_change_with_every_part(void **state) {
    (void)state;
    const char *base[] = {"0.4.0",  "opencl", "source",   "-DX=1",
                          "device", "arch",   "driver 1", "compiler 1"};
    enum { N = sizeof base / sizeof base[0] };
    xgpu__kcache_key k0, k;
    xgpu__kcache_key_make(&k0, base, N);
    assert_int_equal(strlen(k0.hex), 64);
    xgpu__kcache_key_make(&k, base, N);
    assert_string_equal(k.hex, k0.hex); /* the same parts, the same key */
    for (size_t i = 0; i < N; i++) {
        const char *parts[N];
        memcpy(parts, base, sizeof parts);
        parts[i] = "changed"; /* a new driver version, say */
        xgpu__kcache_key_make(&k, parts, N);
        assert_string_not_equal(k.hex, k0.hex);
    }
    /* Moving a boundary between parts changes the key. */
    const char *a[] = {"ab", "c"}, *b[] = {"a", "bc"};
    xgpu__kcache_key ka, kb;
    xgpu__kcache_key_make(&ka, a, 2);
    xgpu__kcache_key_make(&kb, b, 2);
    assert_string_not_equal(ka.hex, kb.hex);
}

static char dir[256];

static int make_dir(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/xgpu-kcache-test-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("XGPU_CACHE_DIR", dir, 1);
    unsetenv("XGPU_CACHE");
    unsetenv("XGPU_CACHE_SIZE_MB");
    return 0;
}

static int remove_dir(void **state) {
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The cache folder's descriptor, as xgpu opens it; the test fails when it
 * is refused. */
static int open_cache(void) {
    char path[XGPU__KCACHE_PATH_MAX];
    int fd = xgpu__kcache_open(path, sizeof path, NULL, 0);
    assert_true(fd >= 0);
    assert_string_equal(path, dir);
    return fd;
}

/* Whether xgpu would use the folder the environment names now. */
static bool cache_usable(void) {
    char path[XGPU__KCACHE_PATH_MAX];
    int fd = xgpu__kcache_open(path, sizeof path, NULL, 0);
    if (fd >= 0) {
        close(fd);
    }
    return fd >= 0;
}

static void key_of(xgpu__kcache_key *k, const char *text) {
    const char *parts[] = {text};
    xgpu__kcache_key_make(k, parts, 1);
}

static void entry_file(char *out, size_t size, const xgpu__kcache_key *k) {
    snprintf(out, size, "%s/%s.xkc", dir, k->hex);
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void round_trip_and_refusals(void **state) {
    (void)state;
    int d = open_cache();
    xgpu__kcache_key k, other;
    key_of(&k, "one");
    key_of(&other, "two");
    unsigned char payload[3000];
    for (size_t i = 0; i < sizeof payload; i++) {
        payload[i] = (unsigned char)(i * 131 + 7);
    }
    size_t size = 0;
    assert_null(xgpu__kcache_read(d, &k, &size)); /* a miss */
    xgpu__kcache_write(d, &k, payload, sizeof payload);
    char path[600];
    entry_file(path, sizeof path, &k);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    unsigned char *got = xgpu__kcache_read(d, &k, &size);
    assert_non_null(got);
    assert_int_equal(size, sizeof payload);
    assert_memory_equal(got, payload, sizeof payload);
    free(got);
    assert_null(xgpu__kcache_read(d, &other, &size));

    /* Every way an entry can be damaged: refused and removed, never read. */
    long whole = file_size(path);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *bytes = malloc((size_t)whole);
    assert_int_equal(fread(bytes, 1, (size_t)whole, f), (size_t)whole);
    fclose(f);
    const long cuts[] = {0, 5, 40, 80, whole - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        f = fopen(path, "wb");
        fwrite(bytes, 1, (size_t)cuts[i], f);
        fclose(f);
        assert_null(xgpu__kcache_read(d, &k, &size));
        assert_int_equal(file_size(path), -1);
    }
    const long flips[] = {0, 9, 45, 50, 80, 1000, whole - 1};
    for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
        bytes[flips[i]] ^= 0x10;
        f = fopen(path, "wb");
        fwrite(bytes, 1, (size_t)whole, f);
        fclose(f);
        bytes[flips[i]] ^= 0x10;
        assert_null(xgpu__kcache_read(d, &k, &size));
        assert_int_equal(file_size(path), -1);
    }
    /* Another key's entry under this key's name. */
    xgpu__kcache_write(d, &other, payload, sizeof payload);
    char other_path[600];
    entry_file(other_path, sizeof other_path, &other);
    assert_int_equal(rename(other_path, path), 0);
    assert_null(xgpu__kcache_read(d, &k, &size));
    /* A symbolic link is not followed. */
    xgpu__kcache_write(d, &other, payload, sizeof payload);
    assert_int_equal(symlink(other_path, path), 0);
    assert_null(xgpu__kcache_read(d, &k, &size));
    unlink(path);
    free(bytes);
}

static void least_recently_used_go_first(void **state) {
    (void)state;
    int d = open_cache();
    static unsigned char mb[300 * 1024];
    memset(mb, 0x5a, sizeof mb);
    xgpu__kcache_key k[4];
    char path[4][600];
    for (int i = 0; i < 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "e%d", i);
        key_of(&k[i], name);
        entry_file(path[i], sizeof path[i], &k[i]);
        xgpu__kcache_write(d, &k[i], mb, sizeof mb);
        /* Distinct ages: e0 oldest. */
        struct timespec t[2] = {{1000000 + i * 10, 0}, {1000000 + i * 10, 0}};
        assert_int_equal(utimensat(AT_FDCWD, path[i], t, 0), 0);
    }
    /* A hit makes e0 the most recently used. */
    size_t size;
    free(xgpu__kcache_read(d, &k[0], &size));
    /* Room for two entries: e1 and e2, the least recently used, go. */
    xgpu__kcache_evict(d, 2 * (sizeof mb + 200));
    assert_true(file_size(path[0]) > 0);
    assert_int_equal(file_size(path[1]), -1);
    assert_int_equal(file_size(path[2]), -1);
    assert_true(file_size(path[3]) > 0);
    /* XGPU_CACHE_SIZE_MB bounds what a write leaves behind. */
    setenv("XGPU_CACHE_SIZE_MB", "1", 1);
    for (int i = 0; i < 6; i++) {
        char name[8];
        snprintf(name, sizeof name, "f%d", i);
        xgpu__kcache_key kf;
        key_of(&kf, name);
        xgpu__kcache_write(d, &kf, mb, sizeof mb);
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "test $(du -sk '%s' | cut -f1) -le 1100", dir);
    assert_int_equal(system(cmd), 0);
    unsetenv("XGPU_CACHE_SIZE_MB");
}

static void folders_that_are_not_used(void **state) {
    (void)state;
    char sub[400];
    /* Off. */
    setenv("XGPU_CACHE", "off", 1);
    assert_false(cache_usable());
    setenv("XGPU_CACHE", "0", 1);
    assert_false(cache_usable());
    unsetenv("XGPU_CACHE");
    /* Others may write to it. */
    snprintf(sub, sizeof sub, "%s/shared", dir);
    assert_int_equal(mkdir(sub, 0777), 0);
    assert_int_equal(chmod(sub, 0777), 0);
    setenv("XGPU_CACHE_DIR", sub, 1);
    assert_false(cache_usable());
    /* Cannot be created: its parent is a file. */
    snprintf(sub, sizeof sub, "%s/file", dir);
    FILE *f = fopen(sub, "w");
    fclose(f);
    snprintf(sub, sizeof sub, "%s/file/cache", dir);
    setenv("XGPU_CACHE_DIR", sub, 1);
    assert_false(cache_usable());
    /* A read-only file system. */
    setenv("XGPU_CACHE_DIR", "/proc/xgpu-cache", 1);
    assert_false(cache_usable());
    /* Relative, or unset with no XDG_CACHE_HOME or HOME. */
    setenv("XGPU_CACHE_DIR", "relative/path", 1);
    assert_false(cache_usable());
    /* Made with mode 0700, parents too. */
    snprintf(sub, sizeof sub, "%s/a/b/c", dir);
    setenv("XGPU_CACHE_DIR", sub, 1);
    assert_true(cache_usable());
    struct stat st;
    assert_int_equal(stat(sub, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    setenv("XGPU_CACHE_DIR", dir, 1);
}

/* With RLIMIT_FSIZE under an entry's size (a full disk, as far as this
 * process can tell), the entry is not written, no temporary file is left,
 * and the process lives on: writing past the limit would raise SIGXFSZ,
 * which ends it. */
static void a_file_size_limit_means_no_entry(void **state) {
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char path[XGPU__KCACHE_PATH_MAX];
        int d = xgpu__kcache_open(path, sizeof path, NULL, 0);
        if (d < 0) {
            _exit(10);
        }
        struct rlimit rl = {4096, 4096};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) {
            _exit(11);
        }
        static unsigned char big[64 * 1024];
        xgpu__kcache_key k;
        key_of(&k, "too big");
        xgpu__kcache_write(d, &k, big, sizeof big);
        size_t size;
        if (xgpu__kcache_read(d, &k, &size)) {
            _exit(12);
        }
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "! ls '%s' | grep -q tmp", dir);
    assert_int_equal(system(cmd), 0);
}

/* A FIFO (or any file that is not a regular file) named like an entry is
 * refused at once: opening a FIFO without O_NONBLOCK would wait for a
 * writer for ever, and the build with it. */
static void a_fifo_named_like_an_entry_does_not_block(void **state) {
    (void)state;
    int d = open_cache();
    xgpu__kcache_key k;
    key_of(&k, "fifo");
    char path[600];
    entry_file(path, sizeof path, &k);
    assert_int_equal(mkfifo(path, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(10); /* a blocked open ends the child with SIGALRM */
        size_t size;
        _exit(xgpu__kcache_read(d, &k, &size) ? 11 : 0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    unlink(path);
}

/* Processes that evict at once share the work: an entry another one
 * removed first still counts as gone, so together they stop near the
 * bound instead of each removing its own share and emptying the cache. */
static void concurrent_evictions_stop_at_the_bound(void **state) {
    (void)state;
    enum { ENTRIES = 200, SIZE = 10240, PROCS = 4 };
    const uint64_t limit = 1u << 20;
    static unsigned char payload[SIZE];
    time_t base = time(NULL) - 100000;
    int d = open_cache();
    for (int i = 0; i < ENTRIES; i++) {
        char text[32], path[600];
        snprintf(text, sizeof text, "entry %d", i);
        xgpu__kcache_key k;
        key_of(&k, text);
        xgpu__kcache_write(d, &k, payload, sizeof payload);
        entry_file(path, sizeof path, &k);
        struct timespec t[2] = {{base + i, 0}, {base + i, 0}};
        assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
    }
    int go[2];
    assert_int_equal(pipe(go), 0);
    for (int i = 0; i < PROCS; i++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            char c;
            close(go[1]);
            _exit(read(go[0], &c, 1) == 0 ? (xgpu__kcache_evict(d, limit), 0) : 3);
        }
    }
    close(go[0]);
    close(go[1]); /* all start at once */
    for (int i = 0; i < PROCS; i++) {
        int status = 0;
        assert_true(wait(&status) > 0);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    uint64_t left = 0;
    for (int i = 0; i < ENTRIES; i++) {
        char text[32], path[600];
        snprintf(text, sizeof text, "entry %d", i);
        xgpu__kcache_key k;
        key_of(&k, text);
        entry_file(path, sizeof path, &k);
        long n = file_size(path);
        left += n > 0 ? (uint64_t)n : 0;
    }
    assert_true(left <= limit);
    assert_true(left >= limit - (uint64_t)PROCS * (SIZE + 100)); /* one entry each, at most */
}

/* A temporary file left by a process that died is removed after an hour,
 * whatever the length of its pid and serial. */
static void stale_temporaries_of_any_length_go(void **state) {
    (void)state;
    const char *hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    const char *tails[] = {"1234.5", "4194301.123", "4194303.4294967295"};
    char paths[3][600];
    for (int i = 0; i < 3; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s.tmp.%s", dir, hex, tails[i]);
        int fd = open(paths[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "half", 4), 4);
        close(fd);
        struct timespec t[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
        assert_int_equal(utimensat(AT_FDCWD, paths[i], t, 0), 0);
    }
    int d = open_cache();
    xgpu__kcache_evict(d, 1u << 20);
    close(d);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(file_size(paths[i]), -1);
    }
}

/* The folder checked is the folder used: after the check, whoever may
 * write to a parent can put another folder at the path (rename the
 * checked one away, plant one of theirs with an entry for a key anyone can
 * compute), but reads, writes and evictions go on in the checked one. A
 * symbolic link at the path is refused, with or without a trailing slash. */
static void the_checked_folder_is_the_one_used(void **state) {
    (void)state;
    int d = open_cache();
    xgpu__kcache_key k;
    key_of(&k, "planted");
    char moved[300], cmd[700];
    snprintf(moved, sizeof moved, "%s.checked", dir);
    assert_int_equal(rename(dir, moved), 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    static const unsigned char theirs[] = "another program";
    int planted = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(planted >= 0);
    xgpu__kcache_write(planted, &k, theirs, sizeof theirs); /* a whole, valid entry */
    close(planted);
    size_t size = 0;
    assert_null(xgpu__kcache_read(d, &k, &size)); /* not seen through the checked folder */
    static const unsigned char ours[] = "our program";
    xgpu__kcache_write(d, &k, ours, sizeof ours);
    unsigned char *got = xgpu__kcache_read(d, &k, &size);
    assert_non_null(got);
    assert_memory_equal(got, ours, sizeof ours);
    free(got);
    char entry[700];
    snprintf(entry, sizeof entry, "%s/%s.xkc", moved, k.hex);
    assert_true(file_size(entry) > 0); /* written where it was checked */
    close(d);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", moved);
    assert_int_equal(system(cmd), 0);
    /* A symbolic link at the path. */
    char link[300];
    snprintf(link, sizeof link, "%s/link", dir);
    snprintf(moved, sizeof moved, "%s/real", dir);
    assert_int_equal(mkdir(moved, 0700), 0);
    assert_int_equal(symlink(moved, link), 0);
    setenv("XGPU_CACHE_DIR", link, 1);
    assert_false(cache_usable());
    snprintf(cmd, sizeof cmd, "%s/", link);
    setenv("XGPU_CACHE_DIR", cmd, 1);
    assert_false(cache_usable());
    setenv("XGPU_CACHE_DIR", dir, 1);
}

/* A damaged entry is removed without taking a good one with it: another
 * process may rename a whole entry over the name between this process's
 * read of the damaged one and its removal (removing by name then cost a
 * rebuild). */
static void a_damaged_entry_never_takes_a_good_one_with_it(void **state) {
    (void)state;
    int d = open_cache();
    xgpu__kcache_key k;
    key_of(&k, "raced");
    static const unsigned char bad[] = "first build", good[] = "second build";
    xgpu__kcache_write(d, &k, bad, sizeof bad);
    char path[600];
    entry_file(path, sizeof path, &k);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, -1, SEEK_END), 0);
    fputc('!', f); /* its checksum no longer matches */
    fclose(f);
    meanwhile.armed = true;
    meanwhile.fired = false;
    meanwhile.dir = d;
    snprintf(meanwhile.name, sizeof meanwhile.name, "%s.xkc", k.hex);
    meanwhile.key = &k;
    meanwhile.data = good;
    meanwhile.size = sizeof good;
    size_t size = 0;
    assert_null(xgpu__kcache_read(d, &k, &size)); /* the damaged one */
    assert_true(meanwhile.fired);                 /* the good one came between */
    unsigned char *got = xgpu__kcache_read(d, &k, &size);
    assert_non_null(got);
    assert_int_equal(size, sizeof good);
    assert_memory_equal(got, good, sizeof good);
    free(got);
    /* Nothing left aside. */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "! ls '%s' | grep -q tmp", dir);
    assert_int_equal(system(cmd), 0);
    /* Without a race, a damaged entry is gone and nothing is left. */
    f = fopen(path, "r+b");
    assert_non_null(f);
    fputc('!', f);
    fclose(f);
    assert_null(xgpu__kcache_read(d, &k, &size));
    assert_int_equal(file_size(path), -1);
    assert_int_equal(system(cmd), 0);
    close(d);
}

static bool exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

/* xgpu_cache_get_info reports without creating anything: a folder not
 * made yet is on (the first build makes it) with nothing in it, one that
 * could not be made is off with the reason. */
static void cache_info_creates_nothing(void **state) {
    (void)state;
    char sub[400], top[400];
    snprintf(top, sizeof top, "%s/not", dir);
    snprintf(sub, sizeof sub, "%s/not/yet/made", dir);
    setenv("XGPU_CACHE_DIR", sub, 1);
    xgpu_cache_info info;
    assert_int_equal(xgpu_cache_get_info(&info), XGPU_SUCCESS);
    assert_true(info.enabled);
    assert_string_equal(info.dir, sub);
    assert_string_equal(info.reason, "");
    assert_int_equal(info.entries, 0);
    assert_int_equal(info.bytes, 0);
    assert_false(exists(top));
    /* Under a file: off, and why. */
    snprintf(top, sizeof top, "%s/file", dir);
    FILE *f = fopen(top, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(sub, sizeof sub, "%s/file/cache", dir);
    setenv("XGPU_CACHE_DIR", sub, 1);
    assert_int_equal(xgpu_cache_get_info(&info), XGPU_SUCCESS);
    assert_false(info.enabled);
    assert_non_null(strstr(info.reason, strerror(ENOTDIR)));
    assert_false(exists(sub));
    /* Made by a build: on, with what it holds. */
    setenv("XGPU_CACHE_DIR", dir, 1);
    int d = open_cache();
    xgpu__kcache_key k;
    key_of(&k, "counted");
    static const unsigned char payload[100] = {1};
    xgpu__kcache_write(d, &k, payload, sizeof payload);
    close(d);
    assert_int_equal(xgpu_cache_get_info(&info), XGPU_SUCCESS);
    assert_true(info.enabled);
    assert_int_equal(info.entries, 1);
    assert_true(info.bytes > sizeof payload);
}

/* `base` and components of 200 characters up to `length` characters. */
static void long_path(char *out, size_t size, const char *base, size_t length) {
    size_t n = (size_t)snprintf(out, size, "%s", base);
    while (n + 1 < length && n + 1 < size) {
        out[n++] = '/';
        for (size_t i = 0; i < 199 && n < length && n + 1 < size; i++) {
            out[n++] = 'd';
        }
    }
    out[n] = '\0';
}

/* Folders near PATH_MAX: 4000 characters store whole entries, which the
 * info counts; past what a path may have, the cache is off with that
 * reason and nothing is made; the tuning database, whose lock and
 * temporary files add to its name, is refused up front when they would
 * not fit. */
static void folders_near_path_max(void **state) {
    (void)state;
    static char path[5000], got[XGPU__KCACHE_PATH_MAX], why[600];
    long_path(path, sizeof path, dir, 4000);
    assert_int_equal(strlen(path), 4000);
    setenv("XGPU_CACHE_DIR", path, 1);
    int d = xgpu__kcache_open(got, sizeof got, why, sizeof why);
    assert_true(d >= 0);
    xgpu__kcache_key k;
    key_of(&k, "long");
    static const unsigned char payload[200] = {7};
    xgpu__kcache_write(d, &k, payload, sizeof payload);
    size_t size = 0;
    unsigned char *back = xgpu__kcache_read(d, &k, &size);
    assert_non_null(back);
    free(back);
    close(d);
    xgpu_cache_info info;
    assert_int_equal(xgpu_cache_get_info(&info), XGPU_SUCCESS);
    assert_true(info.enabled);
    assert_int_equal(info.entries, 1);
    assert_int_equal(xgpu_tune_db_path(got, sizeof got), XGPU_SUCCESS);
    /* Past PATH_MAX: off, said so, nothing made. */
    char top[400];
    snprintf(top, sizeof top, "%s/over", dir);
    long_path(path, sizeof path, top, 4200);
    setenv("XGPU_CACHE_DIR", path, 1);
    assert_true(xgpu__kcache_open(got, sizeof got, why, sizeof why) < 0);
    assert_non_null(strstr(why, "4200 characters long"));
    assert_int_equal(xgpu_cache_get_info(&info), XGPU_SUCCESS);
    assert_false(info.enabled);
    assert_non_null(strstr(info.reason, "4200 characters long"));
    assert_false(exists(top));
    /* The tuning database within its suffixes of PATH_MAX. */
    long_path(path, sizeof path, top, 4080);
    setenv("XGPU_CACHE_DIR", path, 1);
    assert_int_equal(xgpu_tune_db_path(got, sizeof got), XGPU_ERROR_UNSUPPORTED);
    assert_non_null(strstr(xgpu_last_error()->message, "lock and temporary files"));
    setenv("XGPU_TUNE_DB", path, 1);
    assert_int_equal(xgpu_tune_db_path(got, sizeof got), XGPU_ERROR_UNSUPPORTED);
    unsetenv("XGPU_TUNE_DB");
    assert_false(exists(top));
    setenv("XGPU_CACHE_DIR", dir, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(the_checked_folder_is_the_one_used, make_dir, remove_dir),
        cmocka_unit_test(sha256_known_answers),
        cmocka_unit_test(keys_change_with_every_part),
        cmocka_unit_test_setup_teardown(round_trip_and_refusals, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(least_recently_used_go_first, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(folders_that_are_not_used, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(a_file_size_limit_means_no_entry, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(a_fifo_named_like_an_entry_does_not_block, make_dir,
                                        remove_dir),
        cmocka_unit_test_setup_teardown(concurrent_evictions_stop_at_the_bound, make_dir,
                                        remove_dir),
        cmocka_unit_test_setup_teardown(stale_temporaries_of_any_length_go, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(a_damaged_entry_never_takes_a_good_one_with_it, make_dir,
                                        remove_dir),
        cmocka_unit_test_setup_teardown(cache_info_creates_nothing, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(folders_near_path_max, make_dir, remove_dir),
    };
    return cmocka_run_group_tests_name("kcache", tests, NULL, NULL);
}
