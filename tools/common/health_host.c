/* The health facts Linux shows without a vendor library: the PCIe link in
 * sysfs, the PCI vendor, the kernel modules' versions and the kernel's
 * log for NVIDIA's Xid messages. Every file is read under
 * XGPU_TELEMETRY_HOST_ROOT (for tests), bounded and without blocking. */
#define _GNU_SOURCE
#include "health_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GH_KMSG_MAX_BYTES (4u << 20) /* of the kernel's log read for Xids */
#define GH_KMSG_MAX_READS 65536u

long gh_read_host_file(const char *path, char *buf, size_t size) {
    char full[1024];
    gt_host_path(full, sizeof full, path);
    if (size) {
        buf[0] = '\0';
    }
    /* O_NONBLOCK: a FIFO where a file was expected does not hang. */
    int fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        return -1;
    }
    struct stat st;
    if (size < 2 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    size_t have = 0;
    while (have + 1 < size) {
        ssize_t n = read(fd, buf + have, size - 1 - have);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        have += (size_t)n;
    }
    buf[have] = '\0';
    close(fd);
    return (long)have;
}

int gh_pcie_gen_from_rate(double per_second) {
    static const double gts[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    for (int i = 0; i < 6; i++) {
        if (fabs(per_second * 1e-9 - gts[i]) < 0.05) {
            return i + 1;
        }
    }
    return 0;
}

int gh_pcie_gen_from_speed(const char *text) {
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || !isfinite(v)) {
        return 0;
    }
    end += strspn(end, " ");
    if (strncmp(end, "GT/s", 4) != 0) {
        return 0;
    }
    return gh_pcie_gen_from_rate(v * 1e9);
}

/* A width sysfs may hold: x1 ... x32; 0 (the link is down) and anything
 * else are unknown. */
static int parse_width(const char *text) {
    char *end = NULL;
    if (!isdigit((unsigned char)text[0])) {
        return 0;
    }
    errno = 0;
    unsigned long w = strtoul(text, &end, 10);
    end += strspn(end, " \t\r\n");
    if (errno || *end) {
        return 0;
    }
    return w == 1 || w == 2 || w == 4 || w == 8 || w == 12 || w == 16 || w == 32 ? (int)w : 0;
}

static void sysfs_attr(const char *bus_id, const char *attr, char *buf, size_t size) {
    char path[256];
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/%s", bus_id, attr);
    if (gh_read_host_file(path, buf, size) < 0) {
        buf[0] = '\0';
    }
}

static void sysfs_pair(const char *bus_id, const char *speed, const char *width, gh_num *gen,
                       gh_num *lanes) {
    char text[64];
    if (!bus_id || !*bus_id) {
        return;
    }
    sysfs_attr(bus_id, speed, text, sizeof text);
    int g = gh_pcie_gen_from_speed(text);
    if (g) {
        *gen = gh_known((uint64_t)g);
    }
    sysfs_attr(bus_id, width, text, sizeof text);
    int w = parse_width(text);
    if (w) {
        *lanes = gh_known((uint64_t)w);
    }
}

void gh_sysfs_link(const char *bus_id, gh_num *gen, gh_num *width) {
    sysfs_pair(bus_id, "current_link_speed", "current_link_width", gen, width);
}

void gh_sysfs_max_link(const char *bus_id, gh_num *gen, gh_num *width) {
    sysfs_pair(bus_id, "max_link_speed", "max_link_width", gen, width);
}

gh_vendor gh_sysfs_vendor(const char *bus_id) {
    char text[32] = "";
    if (bus_id && *bus_id) {
        sysfs_attr(bus_id, "vendor", text, sizeof text);
    }
    unsigned long id = strtoul(text, NULL, 16);
    return id == 0x10de ? GH_VENDOR_NVIDIA : (id == 0x1002 ? GH_VENDOR_AMD : GH_VENDOR_UNKNOWN);
}

/* A version: digits, then dotted groups of digits ("550.54.15"); its
 * length, 0 when `s` does not start with one. */
static size_t version_length(const char *s) {
    size_t n = strspn(s, "0123456789.");
    if (n == 0 || !isdigit((unsigned char)s[0]) || s[n - 1] == '.' || !memchr(s, '.', n)) {
        return 0;
    }
    return n;
}

/* /proc/driver/nvidia/version's NVRM line ("NVRM version: NVIDIA UNIX
 * x86_64 Kernel Module  550.54.15  Tue Mar  5 ...", or "... Open Kernel
 * Module for x86_64  550.54.15  Release Build ..."): the first word after
 * "Kernel Module" that is a version. */
static void nvrm_version(char *out, size_t size) {
    char text[4096];
    if (gh_read_host_file("/proc/driver/nvidia/version", text, sizeof text) <= 0) {
        return;
    }
    char *line = strstr(text, "NVRM version:");
    if (!line) {
        return;
    }
    line[strcspn(line, "\n")] = '\0';
    const char *km = strstr(line, "Kernel Module");
    for (const char *p = km ? km + 13 : NULL; p && *p;) {
        p += strspn(p, " \t");
        size_t w = strcspn(p, " \t");
        size_t v = version_length(p);
        if (v && v == w && w < size) {
            snprintf(out, size, "%.*s", (int)w, p);
            return;
        }
        p += w;
    }
}

/* /sys/module/<name>/version: one line holding a version. */
static void module_version(const char *name, char *out, size_t size) {
    char path[128], text[128];
    snprintf(path, sizeof path, "/sys/module/%s/version", name);
    if (gh_read_host_file(path, text, sizeof text) <= 0) {
        return;
    }
    size_t w = strcspn(text, " \t\r\n");
    if (w && w == version_length(text) && w < size && text[w + strspn(text + w, " \t\r\n")] == 0) {
        snprintf(out, size, "%.*s", (int)w, text);
    }
}

void gh_kernel_module(gh_vendor vendor, char *out, size_t size) {
    out[0] = '\0';
    if (vendor == GH_VENDOR_NVIDIA) {
        nvrm_version(out, size);
        if (!out[0]) {
            module_version("nvidia", out, size);
        }
    } else if (vendor == GH_VENDOR_AMD) {
        module_version("amdgpu", out, size);
    }
}

/* Occurrences of `pat` in what `fd` gives until it has no more (the
 * kernel's log: one record a read, EAGAIN at its end), bounded. */
static uint64_t count_in(int fd, const char *pat) {
    size_t plen = strlen(pat), carry = 0, total = 0;
    char buf[8192 + 64];
    uint64_t count = 0;
    for (unsigned reads = 0; reads < GH_KMSG_MAX_READS && total < GH_KMSG_MAX_BYTES; reads++) {
        ssize_t n = read(fd, buf + carry, 8192);
        if (n < 0 && (errno == EINTR || errno == EPIPE)) {
            continue; /* EPIPE: a record was overwritten while reading */
        }
        if (n <= 0) {
            break;
        }
        total += (size_t)n;
        size_t len = carry + (size_t)n;
        for (char *p = buf; (p = memmem(p, len - (size_t)(p - buf), pat, plen)); p += plen) {
            count++;
        }
        /* The last plen - 1 bytes: a match split between two reads. */
        carry = len < plen - 1 ? len : plen - 1;
        memmove(buf, buf + len - carry, carry);
    }
    return count;
}

void gh_read_xid(gh_xid *x) {
    char path[1024];
    gt_host_path(path, sizeof path, "/dev/kmsg");
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        x->readable = gh_flag_of(false);
        snprintf(x->why, sizeof x->why, "/dev/kmsg: %s", strerror(errno));
        return;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        x->readable = gh_flag_of(false);
        snprintf(x->why, sizeof x->why, "/dev/kmsg: not a file or device");
        close(fd);
        return;
    }
    x->readable = gh_flag_of(true);
    x->count = gh_known(count_in(fd, "NVRM: Xid"));
    x->why[0] = '\0';
    close(fd);
}
