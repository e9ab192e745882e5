/* The tuning database: a JSON file of records, one per device, kernel,
 * dtype and shape class, read whole and written whole (under a lock, by
 * rename). Records that do not parse are skipped one by one; a file that
 * does not parse is an empty database with a reason. */
#define _GNU_SOURCE
#include "tunedb_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define DB_MAX_BYTES (4u << 20) /* a larger file is refused, not read */
#define ASIDE_MAX 100           /* tune.json.damaged, .damaged.1, ... */

bool xgpu__tune_db_path(char *out, size_t size, char *why, size_t why_size) {
    const char *env = secure_getenv("XGPU_TUNE_DB");
    char dir[XGPU__KCACHE_PATH_MAX];
    int n;
    if (env && *env) {
        n = snprintf(out, size, "%s", env);
    } else if (xgpu__cache_dir(dir, sizeof dir, why, why_size)) {
        n = snprintf(out, size, "%s/tune.json", dir);
    } else {
        return false;
    }
    /* The lock, temporary and damaged copies are named after the file:
     * refused now, rather than failing the store after a search. */
    size_t room = size < XGPU__KCACHE_PATH_MAX ? size : XGPU__KCACHE_PATH_MAX;
    if (n < 0 || (size_t)n + XGPU__TUNE_DB_SUFFIX_MAX >= room) {
        snprintf(why, why_size,
                 "the tuning database's path (%s) is %d characters long; with the %d its lock "
                 "and temporary files add, more than the %zu a path may have",
                 env && *env ? "XGPU_TUNE_DB" : "in the cache folder", n, XGPU__TUNE_DB_SUFFIX_MAX,
                 room - 1);
        out[0] = '\0';
        return false;
    }
    return true;
}

void xgpu__tune_record_free(xgpu__tune_record *rec) {
    free(rec->tried);
    rec->tried = NULL;
    rec->ntried = 0;
}

void xgpu__tune_db_free(xgpu__tune_db *db) {
    for (size_t i = 0; i < db->n; i++) {
        xgpu__tune_record_free(&db->recs[i]);
    }
    for (size_t i = 0; i < db->nraw; i++) {
        free(db->raw[i]);
    }
    free(db->raw);
    free(db->recs);
    *db = (xgpu__tune_db){0};
}

/* Copies a string member into a fixed field; false when missing or too
 * long (a record is taken whole or not at all). */
static bool take(const xgpu__json *obj, const char *key, char *out, size_t size) {
    const char *s = xgpu__json_string(obj, key);
    if (!s || strlen(s) >= size) {
        return false;
    }
    memcpy(out, s, strlen(s) + 1);
    return true;
}

static bool take_u64(const xgpu__json *obj, const char *key, uint64_t max, uint64_t *out) {
    double d;
    if (!xgpu__json_number(obj, key, &d) || d < 0 || d > (double)max || d != (double)(uint64_t)d) {
        return false;
    }
    *out = (uint64_t)d;
    return true;
}

static bool take_rate(const xgpu__json *obj, const char *key, double *out) {
    return xgpu__json_number(obj, key, out) && *out >= 0 && *out < 1e12;
}

static bool read_tried(const xgpu__json *arr, xgpu__tune_record *rec) {
    if (!arr || arr->type != XGPU__JSON_ARRAY) {
        return false;
    }
    size_t n = 0;
    for (const xgpu__json *t = arr->child; t; t = t->next) {
        n++;
    }
    if (n > XGPU__TUNE_TRIED_MAX) {
        return false;
    }
    rec->tried = n ? calloc(n, sizeof *rec->tried) : NULL;
    if (n && !rec->tried) {
        return false;
    }
    for (const xgpu__json *t = arr->child; t; t = t->next) {
        xgpu__tune_try *x = &rec->tried[rec->ntried];
        if (!take(t, "params", x->params, sizeof x->params) ||
            !take(t, "status", x->status, sizeof x->status)) {
            return false;
        }
        x->rate = 0;
        if (xgpu__json_get(t, "rate") && !take_rate(t, "rate", &x->rate)) {
            return false;
        }
        rec->ntried++;
    }
    return true;
}

static bool read_record(const xgpu__json *r, xgpu__tune_record *rec, bool with_tried) {
    *rec = (xgpu__tune_record){0};
    xgpu__tune_key *k = &rec->key;
    uint64_t cus = 0;
    const xgpu__json *complete = xgpu__json_get(r, "complete");
    bool ok = take(r, "kernel", rec->kernel, sizeof rec->kernel) &&
              take(r, "dtype", rec->dtype, sizeof rec->dtype) &&
              take(r, "class", rec->cls, sizeof rec->cls) &&
              take(r, "unit", rec->unit, sizeof rec->unit) &&
              take(r, "backend", k->backend, sizeof k->backend) &&
              take(r, "vendor", k->vendor, sizeof k->vendor) &&
              take(r, "type", k->type, sizeof k->type) &&
              take(r, "device", k->device, sizeof k->device) &&
              take(r, "arch", k->arch, sizeof k->arch) &&
              take_u64(r, "compute_units", UINT32_MAX, &cus) &&
              take(r, "driver", k->driver, sizeof k->driver) &&
              take(r, "compiler", k->compiler, sizeof k->compiler) &&
              take(r, "source", k->source, sizeof k->source) &&
              take(r, "xgpu", k->xgpu, sizeof k->xgpu) &&
              take_u64(r, "size", UINT64_MAX >> 11, &rec->size) && complete &&
              complete->type == XGPU__JSON_BOOL && take(r, "best", rec->best, sizeof rec->best) &&
              take_rate(r, "rate", &rec->best_rate) &&
              (with_tried ? read_tried(xgpu__json_get(r, "tried"), rec)
                          : xgpu__json_get(r, "tried") != NULL);
    if (ok) {
        k->compute_units = (uint32_t)cus;
        rec->complete = complete->boolean;
        take(r, "tuned", rec->tuned, sizeof rec->tuned);     /* optional */
        const char *origin = xgpu__json_string(r, "origin"); /* optional */
        rec->auto_tuned = origin && !strcmp(origin, "auto");
        ok = xgpu__tune_kernel_find(rec->kernel) >= 0 && xgpu__tune_class_find(rec->cls) >= 0;
    }
    if (ok && rec->best[0]) { /* the winner must parse as the kernel's parameters */
        xgpu__tune_values v;
        ok = xgpu__tune_parse(xgpu__tune_kernel_find(rec->kernel), rec->best, &v, NULL, 0);
    }
    if (!ok) {
        xgpu__tune_record_free(rec);
    }
    return ok;
}

static bool db_append(xgpu__tune_db *db, const xgpu__tune_record *rec) {
    if (db->n == db->cap) {
        size_t cap = db->cap ? db->cap * 2 : 16;
        xgpu__tune_record *r = realloc(db->recs, cap * sizeof *r);
        if (!r) {
            return false;
        }
        db->recs = r;
        db->cap = cap;
    }
    db->recs[db->n++] = *rec;
    return true;
}

/* Keeps a record this build does not read (another kernel or class, say,
 * from another xgpu), as its text, to write back unchanged. */
static bool keep_raw(xgpu__tune_db *db, const char *text, const xgpu__json *r) {
    char **raw = realloc(db->raw, (db->nraw + 1) * sizeof *raw);
    if (!raw) {
        return false;
    }
    db->raw = raw;
    size_t len = r->end - r->start;
    char *copy = malloc(len + 1);
    if (!copy) {
        return false;
    }
    memcpy(copy, text + r->start, len);
    copy[len] = '\0';
    db->raw[db->nraw++] = copy;
    return true;
}

bool xgpu__tune_db_parse(const char *text, size_t size, bool with_tried, xgpu__tune_db *db,
                         char *why, size_t why_size) {
    *db = (xgpu__tune_db){0};
    char reason[200] = "";
    xgpu__json *root = xgpu__json_parse(text, size, reason, sizeof reason);
    if (!root) {
        snprintf(why, why_size, "not JSON: %s", reason);
        return false;
    }
    const char *schema = xgpu__json_string(root, "schema");
    const xgpu__json *recs = xgpu__json_get(root, "records");
    bool ok = true;
    if (!schema || strcmp(schema, XGPU__TUNE_SCHEMA) != 0) {
        snprintf(why, why_size, "schema is '%.40s', not '%s'", schema ? schema : "(none)",
                 XGPU__TUNE_SCHEMA);
        ok = false;
    } else if (!recs || recs->type != XGPU__JSON_ARRAY) {
        snprintf(why, why_size, "no \"records\" array");
        ok = false;
    }
    size_t skipped = 0;
    for (const xgpu__json *r = ok ? recs->child : NULL; r; r = r->next) {
        xgpu__tune_record rec;
        if (!read_record(r, &rec, with_tried)) {
            skipped++;
            if (with_tried && r->type == XGPU__JSON_OBJECT && !keep_raw(db, text, r)) {
                snprintf(why, why_size, "out of memory");
                ok = false;
                break;
            }
            continue;
        }
        if (!db_append(db, &rec)) {
            xgpu__tune_record_free(&rec);
            snprintf(why, why_size, "out of memory");
            ok = false;
            break;
        }
    }
    xgpu__json_free(root);
    if (ok && skipped) {
        xgpu__log("tune", XGPU_LOG_INFO,
                  "%zu record(s) of the tuning database are not this xgpu's (another "
                  "kernel or class) or malformed: not used, kept as they are",
                  skipped);
    }
    if (!ok) {
        xgpu__tune_db_free(db);
    }
    return ok;
}

xgpu__tune_db_state xgpu__tune_db_load(const char *path, bool with_tried, xgpu__tune_db *db,
                                       char *why, size_t why_size) {
    *db = (xgpu__tune_db){0};
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT) {
            return XGPU__DB_OK; /* nothing tuned yet */
        }
        snprintf(why, why_size, "cannot open %.300s: %s", path, strerror(errno));
        return XGPU__DB_UNREADABLE;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "%.300s is not a regular file", path);
        close(fd);
        return XGPU__DB_UNREADABLE;
    }
    if (st.st_size > (off_t)DB_MAX_BYTES) {
        snprintf(why, why_size, "%.300s is larger than %u MiB", path, DB_MAX_BYTES >> 20);
        close(fd);
        return XGPU__DB_DAMAGED;
    }
    size_t size = (size_t)st.st_size, got = 0;
    char *text = malloc(size + 1);
    while (text && got < size) {
        ssize_t r = read(fd, text + got, size - got);
        if (r <= 0) {
            break;
        }
        got += (size_t)r;
    }
    close(fd);
    if (!text || got != size) {
        snprintf(why, why_size, "cannot read %.300s", path);
        free(text);
        return XGPU__DB_UNREADABLE;
    }
    char reason[240] = "";
    bool ok = xgpu__tune_db_parse(text, size, with_tried, db, reason, sizeof reason);
    free(text);
    if (!ok) {
        snprintf(why, why_size, "%.300s: %s", path, reason);
    }
    return ok ? XGPU__DB_OK : XGPU__DB_DAMAGED;
}

static bool copy_record(xgpu__tune_record *dst, const xgpu__tune_record *src) {
    *dst = *src;
    dst->tried = NULL;
    if (src->ntried) {
        dst->tried = malloc(src->ntried * sizeof *dst->tried);
        if (!dst->tried) {
            return false;
        }
        memcpy(dst->tried, src->tried, src->ntried * sizeof *dst->tried);
    }
    return true;
}

/* Whether `rec` knows `params` as failed, wrong or rejected. */
static bool lost_in(const xgpu__tune_record *rec, const char *params) {
    for (size_t j = 0; j < rec->ntried; j++) {
        if (!strcmp(rec->tried[j].params, params)) {
            return strcmp(rec->tried[j].status, "ok") != 0;
        }
    }
    return false;
}

/* Candidates of `old` that `rec` lacks are added to it; a failure either
 * saw (wrong, a failed build or launch, slower at 2n) stands; the better
 * winner is kept, never one that either found failed: two tunes of one
 * record at once lose nothing. */
static bool merge_into(xgpu__tune_record *rec, const xgpu__tune_record *old) {
    for (size_t i = 0; i < old->ntried; i++) {
        const xgpu__tune_try *o = &old->tried[i];
        size_t j = 0;
        while (j < rec->ntried && strcmp(rec->tried[j].params, o->params)) {
            j++;
        }
        if (j < rec->ntried) {
            if (strcmp(o->status, "ok") && !strcmp(rec->tried[j].status, "ok")) {
                rec->tried[j] = *o;
            }
            continue;
        }
        if (rec->ntried >= XGPU__TUNE_TRIED_MAX) {
            continue;
        }
        xgpu__tune_try *t = realloc(rec->tried, (rec->ntried + 1) * sizeof *t);
        if (!t) {
            return false;
        }
        rec->tried = t;
        rec->tried[rec->ntried++] = *o;
    }
    bool old_sound = old->best[0] && !lost_in(rec, old->best);
    bool mine_lost = rec->best[0] && lost_in(rec, rec->best);
    if (old_sound && (mine_lost || old->best_rate > rec->best_rate)) {
        /* The better winner; or the other tune's where it found this
         * one failed or slower (then its winner is the built-in). */
        rec->best_rate = old->best_rate;
        snprintf(rec->best, sizeof rec->best, "%s", old->best);
    } else if (mine_lost) {
        rec->best[0] = '\0'; /* the best of the rest */
        rec->best_rate = 0;
        for (size_t j = 0; j < rec->ntried; j++) {
            if (!strcmp(rec->tried[j].status, "ok") && rec->tried[j].rate > rec->best_rate) {
                rec->best_rate = rec->tried[j].rate;
                snprintf(rec->best, sizeof rec->best, "%s", rec->tried[j].params);
            }
        }
    }
    return true;
}

bool xgpu__tune_db_put(xgpu__tune_db *db, const xgpu__tune_record *rec) {
    xgpu__tune_record copy;
    if (!copy_record(&copy, rec)) {
        return false;
    }
    for (size_t i = 0; i < db->n; i++) {
        xgpu__tune_record *r = &db->recs[i];
        if (!strcmp(r->kernel, rec->kernel) && !strcmp(r->dtype, rec->dtype) &&
            !strcmp(r->cls, rec->cls) && xgpu__tune_same_key(&r->key, &rec->key)) {
            if (!merge_into(&copy, r)) {
                xgpu__tune_record_free(&copy);
                return false;
            }
            xgpu__tune_record_free(r);
            *r = copy;
            return true;
        }
    }
    if (!db_append(db, &copy)) {
        xgpu__tune_record_free(&copy);
        return false;
    }
    return true;
}

static void write_field(FILE *f, const char *name, const char *value, bool comma) {
    fprintf(f, "\"%s\": ", name);
    xgpu__json_write_string(f, value);
    fputs(comma ? ", " : "", f);
}

static void write_record(FILE *f, const xgpu__tune_record *r, bool last) {
    const xgpu__tune_key *k = &r->key;
    fputs("    {", f);
    write_field(f, "kernel", r->kernel, true);
    write_field(f, "dtype", r->dtype, true);
    write_field(f, "class", r->cls, true);
    fprintf(f, "\"size\": %llu,\n     ", (unsigned long long)r->size);
    write_field(f, "backend", k->backend, true);
    write_field(f, "vendor", k->vendor, true);
    write_field(f, "type", k->type, true);
    fputs("\n     ", f);
    write_field(f, "device", k->device, true);
    write_field(f, "arch", k->arch, true);
    fprintf(f, "\"compute_units\": %u,\n     ", k->compute_units);
    write_field(f, "driver", k->driver, true);
    write_field(f, "compiler", k->compiler, true);
    fputs("\n     ", f);
    write_field(f, "source", k->source, true);
    write_field(f, "xgpu", k->xgpu, true);
    write_field(f, "tuned", r->tuned, true);
    if (r->auto_tuned) { /* only then: files stay as older versions wrote them */
        write_field(f, "origin", "auto", true);
    }
    fprintf(f, "\"complete\": %s,\n     ", r->complete ? "true" : "false");
    write_field(f, "best", r->best, true);
    fputs("\"rate\": ", f);
    xgpu__json_write_number(f, r->best_rate);
    fputs(", ", f);
    write_field(f, "unit", r->unit, true);
    fputs("\n     \"tried\": [", f);
    for (size_t i = 0; i < r->ntried; i++) {
        const xgpu__tune_try *t = &r->tried[i];
        fputs(i ? ",\n       {" : "\n       {", f);
        write_field(f, "params", t->params, true);
        fputs("\"rate\": ", f);
        xgpu__json_write_number(f, t->rate);
        fputs(", ", f);
        write_field(f, "status", t->status, false);
        fputc('}', f);
    }
    fprintf(f, "]}%s\n", last ? "" : ",");
}

/* Writes the whole database to `path` through a temporary file. */
static xgpu_status db_write(const char *path, const xgpu__tune_db *db) {
    char tmp[XGPU__KCACHE_PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
        }
        return xgpu__fail(XGPU_ERROR_IO, "tuning database: cannot write %.300s: %s", tmp,
                          strerror(e));
    }
    /* The file keeps its mode (a database shared read-only stays so). */
    struct stat old;
    if (stat(path, &old) == 0) {
        fchmod(fileno(f), old.st_mode & 0777);
    }
    fprintf(f, "{\n  \"schema\": \"%s\",\n  \"records\": [\n", XGPU__TUNE_SCHEMA);
    for (size_t i = 0; i < db->n; i++) {
        write_record(f, &db->recs[i], i + 1 == db->n && !db->nraw);
    }
    for (size_t i = 0; i < db->nraw; i++) {
        fprintf(f, "    %s%s\n", db->raw[i], i + 1 == db->nraw ? "" : ",");
    }
    fputs("  ]\n}\n", f);
    bool ok = !ferror(f) && fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return xgpu__fail(XGPU_ERROR_IO, "tuning database: cannot write %.300s: %s", path,
                          strerror(e));
    }
    return XGPU_SUCCESS;
}

/* Creates the folder of `path` (mode 0700) when it is missing. */
static void make_parent(const char *path) {
    char dir[XGPU__KCACHE_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        xgpu__make_dirs(dir);
    }
}

/* Moves a damaged database aside under a name not yet taken; the name
 * into `aside`, or "" when it could not be moved. */
static void move_aside(const char *path, char *aside, size_t size) {
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        aside[0] = '\0';
        return;
    }
    for (int i = 0; i < ASIDE_MAX; i++) {
        if (i == 0) {
            snprintf(aside, size, "%s.damaged", path);
        } else {
            snprintf(aside, size, "%s.damaged.%d", path, i);
        }
        /* link fails on an existing name: no earlier copy is replaced. */
        if (link(path, aside) == 0) {
            unlink(path);
            return;
        }
        if (errno != EEXIST) {
            break;
        }
    }
    aside[0] = '\0';
}

xgpu_status xgpu__tune_db_store(const char *path, const xgpu__tune_record *rec, char *note,
                                size_t note_size) {
    if (note && note_size) {
        note[0] = '\0';
    }
    make_parent(path);
    char lock[XGPU__KCACHE_PATH_MAX + 8];
    snprintf(lock, sizeof lock, "%s.lock", path);
    int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lfd < 0) {
        return xgpu__fail(XGPU_ERROR_IO, "tuning database: cannot open the lock %.300s: %s", lock,
                          strerror(errno));
    }
    int locked;
    while ((locked = flock(lfd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (locked != 0) {
        int e = errno;
        close(lfd);
        return xgpu__fail(XGPU_ERROR_IO,
                          "tuning database: cannot lock %.300s: %s (concurrent writers would "
                          "lose records)",
                          lock, strerror(e));
    }
    xgpu__tune_db db;
    char why[400] = "";
    xgpu__tune_db_state state = xgpu__tune_db_load(path, true, &db, why, sizeof why);
    xgpu_status st = XGPU_SUCCESS;
    if (state == XGPU__DB_UNREADABLE) {
        st = xgpu__fail(XGPU_ERROR_IO, "tuning database: %s; nothing was written", why);
    } else if (state == XGPU__DB_DAMAGED) {
        /* Kept beside the new one, never overwritten. */
        char aside[XGPU__KCACHE_PATH_MAX + 32];
        move_aside(path, aside, sizeof aside);
        if (!aside[0]) {
            st = xgpu__fail(XGPU_ERROR_IO,
                            "tuning database: %s, and it could not be moved aside; nothing "
                            "was written",
                            why);
        } else {
            xgpu__log("tune", XGPU_LOG_WARN, "%s: kept as %s; a new database is started", why,
                      aside);
            if (note && note_size) {
                snprintf(note, note_size, "%.300s: kept as %.300s; a new database was started", why,
                         aside);
            }
        }
    }
    if (st == XGPU_SUCCESS) {
        st = xgpu__tune_db_put(&db, rec)
                 ? db_write(path, &db)
                 : xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "tuning database: out of memory");
    }
    xgpu__tune_db_free(&db);
    flock(lfd, LOCK_UN);
    close(lfd);
    return st;
}
