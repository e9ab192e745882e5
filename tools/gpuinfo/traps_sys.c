/* The facts of the machine under XGPU_SYSROOT (traps.h): PCI GPUs, device
 * nodes, container and WSL hints, OpenCL ICD files and the kernel modules'
 * versions. Every file is read through tr_read_text, bounded; a folder
 * is listed up to a bound of entries. */
#define _GNU_SOURCE /* secure_getenv */
#include "traps.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define TR_MAX_ENTRIES 4096 /* entries read of one folder */

/* ---- the root ---- */

static int root_fail(tr_facts *f, const char *value, const char *why) {
    char shown[96];
    tr_quote(value, 64, shown, sizeof shown);
    snprintf(f->root_error, sizeof f->root_error, "XGPU_SYSROOT=\"%s\" %s", shown, why);
    f->root[0] = '\0';
    return -1;
}

int tr_facts_init(tr_facts *f) {
    memset(f, 0, sizeof *f);
    /* secure_getenv: a setuid gpuinfo reads the real machine, never a
     * tree its caller made up. */
    const char *v = secure_getenv("XGPU_SYSROOT");
    if (!v || !*v) {
        return 0;
    }
    size_t len = strlen(v);
    if (v[0] != '/') {
        return root_fail(f, v, "is not an absolute path");
    }
    if (len > TR_ROOT_MAX) {
        char why[96];
        snprintf(why, sizeof why, "is %zu bytes long, more than the %d taken", len, TR_ROOT_MAX);
        return root_fail(f, v, why);
    }
    for (size_t i = 0; i < len; i++) {
        if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f) {
            return root_fail(f, v, "holds a control character");
        }
    }
    for (const char *p = strstr(v, ".."); p; p = strstr(p + 1, "..")) {
        if ((p == v || p[-1] == '/') && (p[2] == '\0' || p[2] == '/')) {
            return root_fail(f, v, "holds a '..' component");
        }
    }
    struct stat st;
    if (stat(v, &st) != 0) {
        char why[160];
        snprintf(why, sizeof why, "cannot be used: %s", strerror(errno));
        return root_fail(f, v, why);
    }
    if (!S_ISDIR(st.st_mode)) {
        return root_fail(f, v, "is not a folder");
    }
    snprintf(f->root, sizeof f->root, "%s", v);
    for (len = strlen(f->root); len > 1 && f->root[len - 1] == '/'; len--) {
        f->root[len - 1] = '\0';
    }
    if (!strcmp(f->root, "/")) {
        f->root[0] = '\0';
    }
    return 0;
}

int tr_path(const tr_facts *f, const char *path, char *out, size_t size) {
    int n = snprintf(out, size, "%s%s", f->root, path);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

bool tr_exists(const tr_facts *f, const char *path) {
    char full[PATH_MAX];
    struct stat st;
    return tr_path(f, path, full, sizeof full) == 0 && stat(full, &st) == 0;
}

long tr_read_text(const tr_facts *f, const char *path, char *buf, size_t size, bool *truncated) {
    char full[PATH_MAX];
    if (truncated) {
        *truncated = false;
    }
    buf[0] = '\0';
    if (size < 2 || tr_path(f, path, full, sizeof full) != 0) {
        return -1;
    }
    /* O_NONBLOCK: a FIFO put where a file was expected does not hang. */
    int fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    size_t got = 0;
    while (got < size - 1) {
        ssize_t r = read(fd, buf + got, size - 1 - got);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            break;
        }
        got += (size_t)r;
    }
    char more;
    if (got == size - 1 && truncated && read(fd, &more, 1) == 1) {
        *truncated = true;
    }
    close(fd);
    buf[got] = '\0';
    return (long)got;
}

/* A small file's first number ("0x10de\n"), in any base strtoul takes. */
static bool read_number(const tr_facts *f, const char *path, unsigned *out) {
    char text[64];
    if (tr_read_text(f, path, text, sizeof text, NULL) <= 0) {
        return false;
    }
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 0);
    if (end == text || errno || v > 0xffffffffUL) {
        return false;
    }
    *out = (unsigned)v;
    return true;
}

/* ---- PCI ---- */

static bool is_bus_id(const char *s) {
    unsigned d, b, dev, fn;
    char tail;
    return strlen(s) == 12 && sscanf(s, "%4x:%2x:%2x.%1x%c", &d, &b, &dev, &fn, &tail) == 4;
}

static int by_bus_id(const void *a, const void *b) {
    return strcmp(((const tr_pci *)a)->bus_id, ((const tr_pci *)b)->bus_id);
}

static void gather_pci(tr_facts *f) {
    char dir_path[PATH_MAX];
    if (tr_path(f, "/sys/bus/pci/devices", dir_path, sizeof dir_path) != 0) {
        return;
    }
    DIR *d = opendir(dir_path);
    struct dirent *e;
    for (int seen = 0; d && (e = readdir(d)) != NULL && seen < TR_MAX_ENTRIES; seen++) {
        if (!is_bus_id(e->d_name) || f->pci_count == TR_MAX_PCI) {
            continue;
        }
        char file[128];
        unsigned vendor = 0, cls = 0;
        snprintf(file, sizeof file, "/sys/bus/pci/devices/%.12s/vendor", e->d_name);
        bool ok = read_number(f, file, &vendor);
        snprintf(file, sizeof file, "/sys/bus/pci/devices/%.12s/class", e->d_name);
        ok = ok && read_number(f, file, &cls);
        if (!ok || ((cls >> 16) != 0x03 && (cls >> 16) != 0x12)) {
            continue;
        }
        tr_pci *p = &f->pci[f->pci_count++];
        snprintf(p->bus_id, sizeof p->bus_id, "%.12s", e->d_name); /* is_bus_id: 12 */
        for (char *c = p->bus_id; *c; c++) {
            *c = (char)tolower((unsigned char)*c);
        }
        p->vendor = vendor;
        p->class_code = cls;
        snprintf(file, sizeof file, "/sys/bus/pci/devices/%.12s/unique_id", e->d_name);
        char id[64];
        if (vendor != TR_PCI_NVIDIA && tr_read_text(f, file, id, sizeof id, NULL) > 0) {
            id[strcspn(id, " \t\r\n")] = '\0';
            snprintf(p->unique_id, sizeof p->unique_id, "%.32s", id);
        }
    }
    if (d) {
        closedir(d);
    }
    qsort(f->pci, f->pci_count, sizeof f->pci[0], by_bus_id);
}

/* ---- /dev ---- */

/* Whether root + dir holds an entry named prefix followed by digits. */
static bool has_numbered(const tr_facts *f, const char *dir, const char *prefix) {
    char dir_path[PATH_MAX];
    if (tr_path(f, dir, dir_path, sizeof dir_path) != 0) {
        return false;
    }
    DIR *d = opendir(dir_path);
    struct dirent *e;
    bool found = false;
    size_t n = strlen(prefix);
    for (int seen = 0; d && !found && (e = readdir(d)) != NULL && seen < TR_MAX_ENTRIES; seen++) {
        const char *rest = e->d_name + n;
        found =
            !strncmp(e->d_name, prefix, n) && *rest && strspn(rest, "0123456789") == strlen(rest);
    }
    if (d) {
        closedir(d);
    }
    return found;
}

static void gather_dev(tr_facts *f) {
    f->dev_nvidia0 = tr_exists(f, "/dev/nvidia0");
    f->dev_nvidia =
        f->dev_nvidia0 || tr_exists(f, "/dev/nvidiactl") || has_numbered(f, "/dev", "nvidia");
    f->dev_kfd = tr_exists(f, "/dev/kfd");
    f->dev_render = has_numbered(f, "/dev/dri", "renderD");
    f->dev_dxg = tr_exists(f, "/dev/dxg");
}

/* ---- container, WSL ---- */

static bool contains_nocase(const char *text, const char *word) {
    for (const char *p = text; *p; p++) {
        if (!strncasecmp(p, word, strlen(word))) {
            return true;
        }
    }
    return false;
}

static void gather_container(tr_facts *f) {
    static const char *const files[] = {"/.dockerenv", "/run/.containerenv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (tr_exists(f, files[i])) {
            snprintf(f->container, sizeof f->container, "%s", files[i]);
            return;
        }
    }
    /* cgroup v1 names the runtime in PID 1's paths; v2 inside a container
     * shows "0::/", which says nothing. */
    static const char *const runtimes[] = {"docker", "kubepods", "containerd", "libpod", "lxc"};
    char text[TR_TEXT_MAX];
    if (tr_read_text(f, "/proc/1/cgroup", text, sizeof text, NULL) <= 0) {
        return;
    }
    for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0]; i++) {
        if (strstr(text, runtimes[i])) {
            snprintf(f->container, sizeof f->container, "/proc/1/cgroup: %s", runtimes[i]);
            return;
        }
    }
}

static void gather_wsl(tr_facts *f) {
    static const char *const files[] = {"/proc/sys/kernel/osrelease", "/proc/version"};
    char text[TR_TEXT_MAX];
    for (size_t i = 0; i < sizeof files / sizeof files[0] && !f->wsl[0]; i++) {
        if (tr_read_text(f, files[i], text, sizeof text, NULL) > 0 &&
            (contains_nocase(text, "microsoft") || contains_nocase(text, "wsl"))) {
            snprintf(f->wsl, sizeof f->wsl, "%s", files[i]);
        }
    }
    f->wsl_libcuda = tr_exists(f, "/usr/lib/wsl/lib/libcuda.so.1") ||
                     tr_exists(f, "/usr/lib/wsl/lib/libcuda.so");
}

/* ---- OpenCL ICD files ---- */

static void gather_icd(tr_facts *f) {
    char dir_path[PATH_MAX];
    f->rocm_installed = tr_exists(f, "/opt/rocm");
    if (tr_path(f, "/etc/OpenCL/vendors", dir_path, sizeof dir_path) != 0) {
        return;
    }
    DIR *d = opendir(dir_path);
    f->icd_dir = d != NULL;
    struct dirent *e;
    for (int seen = 0; d && (e = readdir(d)) != NULL && seen < TR_MAX_ENTRIES; seen++) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".icd") != 0) {
            continue;
        }
        char rel[PATH_MAX], lib[512];
        snprintf(rel, sizeof rel, "/etc/OpenCL/vendors/%s", e->d_name);
        if (tr_read_text(f, rel, lib, sizeof lib, NULL) <= 0) {
            continue;
        }
        f->icd_nvidia = f->icd_nvidia || contains_nocase(lib, "nvidia");
        f->icd_amd = f->icd_amd || contains_nocase(lib, "amdocl");
    }
    if (d) {
        closedir(d);
    }
}

/* ---- kernel modules ---- */

static bool is_version(const char *s, size_t n) {
    size_t digits = strspn(s, "0123456789");
    if (digits < 2 || digits >= n || s[digits] != '.') {
        return false;
    }
    for (size_t i = digits; i < n; i++) {
        if (!isdigit((unsigned char)s[i]) && s[i] != '.') {
            return false;
        }
    }
    return s[n - 1] != '.';
}

/* The version in /proc/driver/nvidia/version's NVRM line ("NVRM version:
 * NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ...", or "...
 * Open Kernel Module for x86_64  580.65.06  Release Build ..."): the first
 * word after "Kernel Module" that is a version. */
static void nvrm_version(tr_facts *f) {
    static const char *const path = "/proc/driver/nvidia/version";
    char text[TR_TEXT_MAX];
    bool cut = false;
    long n = tr_read_text(f, path, text, sizeof text, &cut);
    if (n < 0) {
        return;
    }
    const char *why = NULL;
    const char *line = strstr(text, "NVRM version:");
    size_t line_len = line ? strcspn(line, "\n") : 0;
    if ((size_t)n != strlen(text)) {
        why = "holds binary data (a NUL byte)";
    } else if (!line) {
        why = n == 0 ? "is empty" : "has no \"NVRM version:\" line";
    } else if (cut && line[line_len] == '\0') {
        why = "has an NVRM line longer than the 4096 bytes read";
    }
    const char *km = line && !why ? strstr(line, "Kernel Module") : NULL;
    if (!why && (!km || km > line + line_len)) {
        why = "has no \"Kernel Module\" in its NVRM line";
    }
    for (const char *p = km ? km + 13 : NULL; p && !why && p < line + line_len;) {
        p += strspn(p, " \t");
        size_t w = strcspn(p, " \t\n");
        if (w == 0) {
            break;
        }
        if (is_version(p, w) && w < sizeof f->nvidia_kmod) {
            snprintf(f->nvidia_kmod, sizeof f->nvidia_kmod, "%.*s", (int)w, p);
            snprintf(f->nvidia_kmod_from, sizeof f->nvidia_kmod_from, "%s", path);
            return;
        }
        p += w;
    }
    snprintf(f->nvidia_kmod_problem, sizeof f->nvidia_kmod_problem, "%s %s", path,
             why ? why : "has no version number after \"Kernel Module\" (cut short?)");
}

/* /sys/module/<name>/version: one line holding a version. */
static void module_version(tr_facts *f, const char *name, char *out, size_t size, char *from,
                           size_t from_size) {
    char path[128], text[128];
    snprintf(path, sizeof path, "/sys/module/%s/version", name);
    if (tr_read_text(f, path, text, sizeof text, NULL) <= 0) {
        return;
    }
    size_t w = strcspn(text, " \t\r\n");
    if (w < size && is_version(text, w)) {
        snprintf(out, size, "%.*s", (int)w, text);
        if (from) {
            snprintf(from, from_size, "%s", path);
        }
    }
}

static void gather_modules(tr_facts *f) {
    f->nvidia_module = tr_exists(f, "/proc/driver/nvidia") || tr_exists(f, "/sys/module/nvidia");
    nvrm_version(f);
    if (!f->nvidia_kmod[0]) {
        module_version(f, "nvidia", f->nvidia_kmod, sizeof f->nvidia_kmod, f->nvidia_kmod_from,
                       sizeof f->nvidia_kmod_from);
    }
    module_version(f, "amdgpu", f->amdgpu_kmod, sizeof f->amdgpu_kmod, NULL, 0);
}

void tr_gather_system(tr_facts *f) {
    if (f->root_error[0]) {
        return;
    }
    gather_pci(f);
    gather_dev(f);
    gather_container(f);
    gather_wsl(f);
    gather_icd(f);
    gather_modules(f);
}
