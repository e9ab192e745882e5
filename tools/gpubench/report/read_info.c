/* A result file's provenance for the report's summary: when it ran
 * ("started_utc") and, from gpuinfo's embedded document, each device's
 * backend and versions by device path. Both are optional (files of 0.6.0
 * and before have no start time); a member of the wrong type is an error naming
 * it, as everywhere in the reader. See report_read_internal.h. */
#include "report_read_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* "YYYY-MM-DDTHH:MM:SSZ", each digit a digit. */
static bool utc_form(const char *s) {
    static const char form[] = "dddd-dd-ddTdd:dd:ddZ";
    for (size_t i = 0; i < sizeof form; i++) {
        if (form[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != form[i]) {
            return false;
        }
    }
    return true;
}

static int read_started(const cJSON *root, gb_file *fi, char *why, size_t why_size) {
    if (!cJSON_HasObjectItem(root, "started_utc")) {
        return 0;
    }
    fi->has |= GB_HAS_STARTED;
    if (gb__opt_string(root, "", "started_utc", fi->started_utc, sizeof fi->started_utc, why,
                       why_size) != 0) {
        return -1;
    }
    if (fi->started_utc[0] && !utc_form(fi->started_utc)) {
        snprintf(why, why_size, "started_utc: expected a UTC time like 2026-12-01T23:45:10Z");
        return -1;
    }
    return 0;
}

/* One device of gpuinfo's document: an entry per path. */
static int read_device(const cJSON *d, const char *where, gb_table *t, char *why, size_t why_size) {
    if (!cJSON_IsObject(d)) {
        snprintf(why, why_size, "%s: expected an object", where);
        return -1;
    }
    gb_devinfo x = {.file = t->nfiles};
    if (gb__opt_string(d, where, "backend", x.backend, sizeof x.backend, why, why_size) != 0 ||
        gb__opt_string(d, where, "arch", x.arch, sizeof x.arch, why, why_size) != 0 ||
        gb__opt_string(d, where, "driver_version", x.driver_version, sizeof x.driver_version, why,
                       why_size) != 0 ||
        gb__opt_string(d, where, "device_version", x.device_version, sizeof x.device_version, why,
                       why_size) != 0 ||
        gb__opt_string(d, where, "language_version", x.language_version, sizeof x.language_version,
                       why, why_size) != 0) {
        return -1;
    }
    const cJSON *paths = cJSON_GetObjectItemCaseSensitive(d, "paths");
    if (paths && !cJSON_IsArray(paths)) {
        snprintf(why, why_size, "%s.paths: expected an array", where);
        return -1;
    }
    size_t i = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, paths) {
        if (!cJSON_IsString(p) || !p->valuestring) {
            snprintf(why, why_size, "%s.paths[%zu]: expected a string", where, i);
            return -1;
        }
        if (!gb__grow((void **)&t->devinfos, t->ndevinfos, &t->devinfos_cap, sizeof *t->devinfos)) {
            snprintf(why, why_size, "out of memory at %s.paths[%zu]", where, i);
            return -1;
        }
        snprintf(x.path, sizeof x.path, "%s", p->valuestring);
        t->devinfos[t->ndevinfos++] = x;
        i++;
    }
    return 0;
}

/* "gpuinfo": null, or {"devices": [...], ...}. */
static int read_gpuinfo(const cJSON *root, gb_table *t, gb_file *fi, char *why, size_t why_size) {
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(root, "gpuinfo");
    if (!g || cJSON_IsNull(g)) {
        return 0;
    }
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(g, "devices");
    if (!cJSON_IsObject(g) || (devs && !cJSON_IsArray(devs))) {
        snprintf(why, why_size, "%s",
                 cJSON_IsObject(g) ? "gpuinfo.devices: expected an array"
                                   : "gpuinfo: expected an object or null");
        return -1;
    }
    if (!devs) {
        return 0;
    }
    fi->has |= GB_HAS_GPUINFO;
    size_t i = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, devs) {
        char where[48];
        snprintf(where, sizeof where, "gpuinfo.devices[%zu]", i++);
        if (read_device(d, where, t, why, why_size) != 0) {
            return -1;
        }
    }
    return 0;
}

int gb__read_info(const cJSON *root, gb_table *t, gb_file *fi, char *why, size_t why_size) {
    return read_started(root, fi, why, why_size) != 0 ||
                   read_gpuinfo(root, t, fi, why, why_size) != 0
               ? -1
               : 0;
}

const gb_devinfo *gb_devinfo_of(const gb_table *t, size_t file, const char *path) {
    if (file >= t->nfiles) {
        return NULL;
    }
    const gb_file *fi = &t->files[file];
    for (size_t i = fi->first_devinfo; i < fi->first_devinfo + fi->devinfos; i++) {
        if (!strcmp(t->devinfos[i].path, path)) {
            return &t->devinfos[i];
        }
    }
    return NULL;
}
