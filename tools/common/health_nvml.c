/* NVML's health facts: the PCIe link, ECC mode and errors, retired pages,
 * remapped rows, NVLinks, MIG and persistence modes, temperature and the
 * driver's version. Opened through telemetry's gt_nvml_open (the same
 * library and device); each function is looked up on its own, and a
 * missing one, or one that answers NOT_SUPPORTED, leaves its facts
 * unknown. */
#define _GNU_SOURCE /* dlinfo, RTLD_NOLOAD */
#include "health_internal.h"
#include "nvml_inventory.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

enum {
    GH_FN_CURR_GEN,
    GH_FN_MAX_GEN,
    GH_FN_CURR_WIDTH,
    GH_FN_MAX_WIDTH,
    GH_FN_ECC_MODE,
    GH_FN_ECC_ERRORS,
    GH_FN_RETIRED,
    GH_FN_RETIRED_PENDING,
    GH_FN_REMAPPED,
    GH_FN_NVLINK_STATE,
    GH_FN_MIG_MODE,
    GH_FN_PERSISTENCE,
    GH_FN_TEMPERATURE,
    GH_FN_DRIVER,
    GH_FN_NVML_COUNT
};

static const char *const nvml_names[GH_FN_NVML_COUNT] = {
    "nvmlDeviceGetCurrPcieLinkGeneration",
    "nvmlDeviceGetMaxPcieLinkGeneration",
    "nvmlDeviceGetCurrPcieLinkWidth",
    "nvmlDeviceGetMaxPcieLinkWidth",
    "nvmlDeviceGetEccMode",
    "nvmlDeviceGetTotalEccErrors",
    "nvmlDeviceGetRetiredPages",
    "nvmlDeviceGetRetiredPagesPendingStatus",
    "nvmlDeviceGetRemappedRows",
    "nvmlDeviceGetNvLinkState",
    "nvmlDeviceGetMigMode",
    "nvmlDeviceGetPersistenceMode",
    "nvmlDeviceGetTemperature",
    "nvmlSystemGetDriverVersion",
};

typedef int nvml_return;
enum { NVML_OK = 0, NVML_INVALID_ARGUMENT = 2, NVML_NOT_SUPPORTED = 3, NVML_NOT_FOUND = 6 };
enum { NVML_INSUFFICIENT_SIZE = 7 };
/* nvmlMemoryErrorType_t, nvmlEccCounterType_t, nvmlPageRetirementCause_t */
enum { NVML_CORRECTED = 0, NVML_UNCORRECTED = 1, NVML_VOLATILE = 0, NVML_AGGREGATE = 1 };
enum { NVML_CAUSE_SINGLE_BIT = 0, NVML_CAUSE_DOUBLE_BIT = 1, NVML_TEMPERATURE_GPU = 0 };

typedef nvml_return (*uint_fn)(void *, unsigned *);
typedef nvml_return (*two_uint_fn)(void *, unsigned *, unsigned *);

int gh_nvml_open(const char *bus_id, const char *uuid, gh_lib *lib) {
    char why[512];
    double max_sm;
    memset(lib, 0, sizeof *lib);
    if (gt_nvml_open(bus_id, uuid, &lib->base, &max_sm, why, sizeof why) != 0) {
        return -1;
    }
    for (int i = 0; i < GH_FN_NVML_COUNT; i++) {
        lib->fn[i] = gt_sym(lib->base.dl, nvml_names[i]);
    }
    return 0;
}

void gh_nvml_close(gh_lib *lib) {
    gt_nvml_close(&lib->base); /* nvmlShutdown, the library kept loaded */
    memset(lib, 0, sizeof *lib);
}

/* A function of one unsigned out-parameter into *out when it answers. */
static void get_uint(const gh_lib *lib, int fn, gh_num *out) {
    unsigned u = 0;
    if (lib->fn[fn] && GT_CALL(uint_fn, lib->fn[fn])(lib->base.nvml_device, &u) == NVML_OK) {
        *out = gh_known(u);
    }
}

void gh_nvml_link(const gh_lib *lib, gh_num *gen, gh_num *width) {
    gh_num g = {0}, w = {0};
    get_uint(lib, GH_FN_CURR_GEN, &g);
    get_uint(lib, GH_FN_CURR_WIDTH, &w);
    /* Generation 0 or width 0 is a link NVML does not know. */
    if (g.known && g.value > 0) {
        *gen = g;
    }
    if (w.known && w.value > 0) {
        *width = w;
    }
}

static void read_pcie(const gh_lib *lib, gh_facts *h) {
    gh_pcie *p = &h->pcie;
    gh_nvml_link(lib, &p->current_gen, &p->current_width);
    gh_num g = {0}, w = {0};
    get_uint(lib, GH_FN_MAX_GEN, &g);
    get_uint(lib, GH_FN_MAX_WIDTH, &w);
    p->max_gen = g.known && g.value > 0 ? g : p->max_gen;
    p->max_width = w.known && w.value > 0 ? w : p->max_width;
    if (p->current_gen.known || p->current_width.known || p->max_gen.known || p->max_width.known) {
        p->source = GH_SOURCE_NVML;
    }
}

static void read_ecc(const gh_lib *lib, gh_facts *h) {
    void *dev = lib->base.nvml_device;
    unsigned current = 0, pending = 0;
    gt_fn mode = lib->fn[GH_FN_ECC_MODE], errors = lib->fn[GH_FN_ECC_ERRORS];
    if (mode && GT_CALL(two_uint_fn, mode)(dev, &current, &pending) == NVML_OK) {
        h->ecc.enabled = gh_flag_of(current != 0);
        h->ecc.source = GH_SOURCE_NVML;
    }
    typedef nvml_return (*errors_fn)(void *, int, int, unsigned long long *);
    struct {
        int type, counter;
        gh_num *out;
    } const counts[] = {
        {NVML_CORRECTED, NVML_VOLATILE, &h->ecc.volatile_corrected},
        {NVML_UNCORRECTED, NVML_VOLATILE, &h->ecc.volatile_uncorrected},
        {NVML_CORRECTED, NVML_AGGREGATE, &h->ecc.aggregate_corrected},
        {NVML_UNCORRECTED, NVML_AGGREGATE, &h->ecc.aggregate_uncorrected},
    };
    for (size_t i = 0; errors && i < sizeof counts / sizeof counts[0]; i++) {
        unsigned long long n = 0;
        if (GT_CALL(errors_fn, errors)(dev, counts[i].type, counts[i].counter, &n) == NVML_OK) {
            *counts[i].out = gh_known(n);
            h->ecc.source = GH_SOURCE_NVML;
        }
    }
}

static void read_retired(const gh_lib *lib, gh_facts *h) {
    void *dev = lib->base.nvml_device;
    typedef nvml_return (*pages_fn)(void *, int, unsigned *, unsigned long long *);
    gt_fn pages = lib->fn[GH_FN_RETIRED];
    gh_retired *r = &h->retired;
    for (int cause = 0; pages && cause < 2; cause++) {
        /* A count of 0 asks for the number alone: INSUFFICIENT_SIZE when
         * there are pages. */
        unsigned n = 0;
        nvml_return rc = GT_CALL(pages_fn, pages)(dev, cause, &n, NULL);
        if (rc == NVML_OK || rc == NVML_INSUFFICIENT_SIZE) {
            *(cause == NVML_CAUSE_SINGLE_BIT ? &r->single_bit : &r->double_bit) = gh_known(n);
            r->source = GH_SOURCE_NVML;
        }
    }
    if (r->single_bit.known && r->double_bit.known) {
        r->reserved = gh_known(r->single_bit.value + r->double_bit.value);
    }
    unsigned pending = 0;
    if (lib->fn[GH_FN_RETIRED_PENDING] &&
        GT_CALL(uint_fn, lib->fn[GH_FN_RETIRED_PENDING])(dev, &pending) == NVML_OK) {
        r->pending = gh_flag_of(pending != 0);
        r->source = GH_SOURCE_NVML;
    }
}

static void read_remapped(const gh_lib *lib, gh_facts *h) {
    typedef nvml_return (*rows_fn)(void *, unsigned *, unsigned *, unsigned *, unsigned *);
    unsigned corr = 0, unc = 0, pending = 0, failed = 0;
    gt_fn f = lib->fn[GH_FN_REMAPPED];
    if (f &&
        GT_CALL(rows_fn, f)(lib->base.nvml_device, &corr, &unc, &pending, &failed) == NVML_OK) {
        gh_remapped *m = &h->remapped;
        m->source = GH_SOURCE_NVML;
        m->correctable = gh_known(corr);
        m->uncorrectable = gh_known(unc);
        m->pending = gh_flag_of(pending != 0);
        m->failed = gh_flag_of(failed != 0);
    }
}

/* Links 0 .. GH_MAX_NVLINKS - 1: one whose state NVML gives exists (a
 * NOT_SUPPORTED or INVALID_ARGUMENT one does not); up when active. */
static void read_nvlink(const gh_lib *lib, gh_facts *h) {
    typedef nvml_return (*state_fn)(void *, unsigned, unsigned *);
    gt_fn f = lib->fn[GH_FN_NVLINK_STATE];
    if (!f) {
        return;
    }
    unsigned links = 0, up = 0;
    for (unsigned i = 0; i < GH_MAX_NVLINKS; i++) {
        unsigned active = 0;
        nvml_return rc = GT_CALL(state_fn, f)(lib->base.nvml_device, i, &active);
        if (rc == NVML_OK) {
            links++;
            up += active != 0;
        } else if (rc != NVML_NOT_SUPPORTED && rc != NVML_INVALID_ARGUMENT &&
                   rc != NVML_NOT_FOUND) {
            return; /* another failure: the links are not known */
        }
    }
    /* A GPU without NVLink answers NOT_SUPPORTED for every link: 0 links,
     * which NVML states, not an unknown. */
    h->nvlink.source = GH_SOURCE_NVML;
    h->nvlink.links = gh_known(links);
    h->nvlink.up = gh_known(up);
}

void gh_nvml_read(const gh_lib *lib, gh_facts *h) {
    void *dev = lib->base.nvml_device;
    read_pcie(lib, h);
    read_ecc(lib, h);
    read_retired(lib, h);
    read_remapped(lib, h);
    read_nvlink(lib, h);
    unsigned current = 0, pending = 0;
    if (lib->fn[GH_FN_MIG_MODE] &&
        GT_CALL(two_uint_fn, lib->fn[GH_FN_MIG_MODE])(dev, &current, &pending) == NVML_OK) {
        h->mig.source = GH_SOURCE_NVML;
        h->mig.enabled = gh_flag_of(current != 0);
        h->mig.pending = gh_flag_of(pending != 0);
    }
    unsigned mode = 0;
    if (lib->fn[GH_FN_PERSISTENCE] &&
        GT_CALL(uint_fn, lib->fn[GH_FN_PERSISTENCE])(dev, &mode) == NVML_OK) {
        h->persistence.source = GH_SOURCE_NVML;
        h->persistence.enabled = gh_flag_of(mode != 0);
    }
    unsigned c = 0;
    if (lib->fn[GH_FN_TEMPERATURE] &&
        GT_CALL(nvml_return(*)(void *, int, unsigned *),
                lib->fn[GH_FN_TEMPERATURE])(dev, NVML_TEMPERATURE_GPU, &c) == NVML_OK) {
        h->temperature_c = gh_known(c);
    }
    char version[80] = "";
    if (lib->fn[GH_FN_DRIVER] && GT_CALL(nvml_return(*)(char *, unsigned), lib->fn[GH_FN_DRIVER])(
                                     version, (unsigned)sizeof version) == NVML_OK) {
        version[sizeof version - 1] = '\0';
        snprintf(h->driver.library, sizeof h->driver.library, "%s", version);
    }
}

void gh_libcuda_version(char *out, size_t size) {
    out[0] = '\0';
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD); /* loaded already, or not at all */
    if (!h) {
        return;
    }
    struct link_map *map = NULL;
    char real[PATH_MAX];
    if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name &&
        realpath(map->l_name, real)) {
        ni_file_version(real, out, size);
    }
    dlclose(h); /* the reference NOLOAD took */
}
