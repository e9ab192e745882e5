/* Result files into one table: each read whole (at most
 * GB_REPORT_MAX_BYTES), parsed, and merged or skipped with the reason: not
 * a result file, another major version of xgpu, or a duplicate; a file of
 * an older minor version is merged with a note of what it lacks. */
#define _POSIX_C_SOURCE 200809L
#include "report_merge.h"

#include <xgpu.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole file, at most GB_REPORT_MAX_BYTES: /dev/zero or a runaway
 * file is refused, not read until memory runs out. */
static char *read_all(const char *path, size_t *len, char *why, size_t why_size) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(why, why_size, "cannot read: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) != 0) {
        snprintf(why, why_size, "cannot read: %s", strerror(errno));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "a directory, not a result file");
        goto fail;
    }
    const size_t limit = GB_REPORT_MAX_BYTES;
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > limit) {
        snprintf(why, why_size, "%jd bytes, over the %zu MiB limit for a result file",
                 (intmax_t)st.st_size, limit >> 20);
        goto fail;
    }
    /* Pipes and devices have no size: read up to one byte over the limit. */
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : (size_t)1 << 16;
    size_t used = 0;
    buf = malloc(cap);
    for (;;) {
        if (!buf) {
            snprintf(why, why_size, "out of memory");
            goto fail;
        }
        if (used == cap) {
            size_t grown_cap = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            char *grown = grown_cap > cap ? realloc(buf, grown_cap) : NULL;
            if (!grown) {
                free(buf);
            }
            buf = grown;
            cap = grown_cap;
            continue;
        }
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            snprintf(why, why_size, "cannot read: %s", strerror(errno));
            goto fail;
        }
        if (got == 0) {
            break;
        }
        used += (size_t)got;
        if (used > limit) {
            snprintf(why, why_size, "more than the %zu MiB limit for a result file", limit >> 20);
            goto fail;
        }
    }
    close(fd);
    *len = used;
    return buf;
fail:
    free(buf);
    close(fd);
    return NULL;
}

/* Parses the file into `t`; -1 with the reason in `why` otherwise. */
static int load(const char *path, gb_table *t, char *why, size_t why_size) {
    size_t len = 0;
    char *text = read_all(path, &len, why, why_size);
    int rc = text ? gb_report_parse(text, len, t, why, why_size) : -1;
    free(text);
    if (rc == 0) {
        t->files[t->nfiles - 1].name = path;
    }
    return rc;
}

/* "MAJOR.MINOR" and what follows of a version text; false when it has no
 * such start. */
static bool major_minor(const char *v, unsigned long *major, unsigned long *minor,
                        const char **rest) {
    char *end;
    if (!isdigit((unsigned char)v[0])) {
        return false;
    }
    *major = strtoul(v, &end, 10);
    if (*end != '.' || !isdigit((unsigned char)end[1])) {
        return false;
    }
    *minor = strtoul(end + 1, &end, 10);
    *rest = end;
    return true;
}

/* What a file lacks of what today's files have, as "no telemetry, no
 * rank, no date", into `out`; "" when it lacks nothing. */
static void lacks_text(unsigned has, char *out, size_t size) {
    static const struct {
        unsigned bit;
        const char *what;
    } members[] = {{GB_HAS_TELEMETRY, "telemetry"},    {GB_HAS_RANK, "rank"},
                   {GB_HAS_STARTED, "date"},           {GB_HAS_P2P, "p2p"},
                   {GB_HAS_UUID, "device_uuid"},       {GB_HAS_ARCH, "device_arch"},
                   {GB_HAS_GPUINFO, "gpuinfo devices"}};
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
        if (!(has & members[i].bit) && used < size) {
            int n = snprintf(out + used, size - used, "%sno %s", used ? ", " : "", members[i].what);
            used += n > 0 ? (size_t)n : 0;
        }
    }
}

/* Every xgpu of this major version writes "xgpu.gpubench/1" with the same
 * meaning for the same keys; later ones only add keys. A file of another
 * minor version is merged, with a note (fi->note) of what it lacks or
 * that it is newer; one of another major version, or whose version is no
 * MAJOR.MINOR.PATCH, is skipped. Another patch level only fixes bugs:
 * merged, with a word. */
static int check_version(gb_file *fi, char *why, size_t why_size) {
    const char *ours = xgpu_version_string(), *rest_theirs, *rest_ours;
    unsigned long ma, mi, our_ma, our_mi;
    fi->note[0] = '\0';
    if (!fi->version[0]) {
        return 0; /* hand-written files say nothing */
    }
    if (!major_minor(fi->version, &ma, &mi, &rest_theirs)) {
        snprintf(why, why_size, "xgpu_version \"%s\" is not MAJOR.MINOR.PATCH", fi->version);
        return -1;
    }
    if (!major_minor(ours, &our_ma, &our_mi, &rest_ours) || ma != our_ma) {
        snprintf(why, why_size, "written by xgpu %s, this gpubench is %s (another major version)",
                 fi->version, ours);
        return -1;
    }
    if (mi > our_mi) {
        snprintf(fi->note, sizeof fi->note,
                 "written by xgpu %.31s, newer than this gpubench (%.31s): members it does not "
                 "know are left out",
                 fi->version, ours);
    } else if (mi < our_mi) {
        char lacks[192];
        lacks_text(fi->has, lacks, sizeof lacks);
        snprintf(fi->note, sizeof fi->note, "written by xgpu %.31s: %s", fi->version,
                 lacks[0] ? lacks : "has every member this gpubench reads");
    } else if (strcmp(rest_theirs, rest_ours)) {
        fprintf(stderr,
                "gpubench report: warning: %s: written by xgpu %s, this gpubench is %s (another "
                "patch level; merged)\n",
                fi->name, fi->version, ours);
    }
    return 0;
}

/* FNV-1a, for telling files apart before comparing them. */
static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 1099511628211u;
    }
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s) {
    return fnv(h, s, strlen(s) + 1);
}

static bool same_result(const gb_row *a, const gb_row *b) {
    return !strcmp(a->device_uuid, b->device_uuid) && !strcmp(a->device, b->device) &&
           !strcmp(a->bench, b->bench) && !strcmp(a->impl, b->impl) &&
           !strcmp(a->dtype, b->dtype) && !strcmp(a->shape, b->shape) && a->size == b->size &&
           a->rate == b->rate && a->verified == b->verified;
}

/* Whether a file names its process: a rank, or a node-local rank alone. */
static bool has_rank(const gb_file *fi) {
    return fi->rank >= 0 || fi->local_rank >= 0;
}

/* A file's identity for finding duplicates: its host and rank (or local
 * rank), or, without either, its host and every result (the same file
 * given twice). */
static uint64_t file_key(const gb_table *t, const gb_file *fi) {
    uint64_t h = fnv_str(14695981039346656037u, fi->host);
    h = fnv(h, &fi->rank, sizeof fi->rank);
    h = fnv(h, &fi->local_rank, sizeof fi->local_rank);
    if (has_rank(fi)) {
        return h;
    }
    for (size_t i = fi->first_row; i < fi->first_row + fi->rows; i++) {
        const gb_row *r = &t->rows[i];
        const char *texts[] = {r->device_uuid, r->device, r->bench, r->impl, r->dtype, r->shape};
        for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
            h = fnv_str(h, texts[k]);
        }
        h = fnv(h, &r->size, sizeof r->size);
        h = fnv(h, &r->rate, sizeof r->rate);
        h = fnv(h, &r->verified, sizeof r->verified);
    }
    return h;
}

/* The earlier file the last one duplicates, or -1. `keys` holds every
 * file's key; equal keys are confirmed field by field. */
static long duplicate_of(const gb_table *t, const uint64_t *keys) {
    size_t last = t->nfiles - 1;
    const gb_file *b = &t->files[last];
    for (size_t i = 0; i < last; i++) {
        const gb_file *a = &t->files[i];
        if (keys[i] != keys[last] || a->rank != b->rank || strcmp(a->host, b->host) ||
            (b->rank < 0 && a->local_rank != b->local_rank)) {
            continue;
        }
        if (has_rank(b)) {
            return (long)i;
        }
        bool same = a->rows == b->rows;
        for (size_t r = 0; same && r < a->rows; r++) {
            same = same_result(&t->rows[a->first_row + r], &t->rows[b->first_row + r]);
        }
        if (same) {
            return (long)i;
        }
    }
    return -1;
}

int gb_merge_file(gb_table *t, uint64_t *keys, const char *path, char *why, size_t why_size) {
    if (load(path, t, why, why_size) != 0) {
        return -1;
    }
    gb_file *fi = &t->files[t->nfiles - 1];
    keys[t->nfiles - 1] = file_key(t, fi);
    long dup = check_version(fi, why, why_size) == 0 ? duplicate_of(t, keys) : -2;
    if (dup == -1) {
        if (fi->note[0]) {
            fprintf(stderr, "gpubench report: note: %s: %s (merged)\n", fi->name, fi->note);
        }
        return 0;
    }
    if (dup >= 0) {
        const gb_file *first = &t->files[dup];
        char rank[32] = "no rank, the same results";
        if (fi->rank >= 0) {
            snprintf(rank, sizeof rank, "rank %ld", fi->rank);
        } else if (fi->local_rank >= 0) {
            snprintf(rank, sizeof rank, "local rank %ld", fi->local_rank);
        }
        snprintf(why, why_size, "duplicate of %.300s (host %.128s, %s)", first->name, fi->host,
                 rank);
    }
    gb_table_drop_last(t);
    return -1;
}
