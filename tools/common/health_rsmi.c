/* ROCm SMI's health facts: the PCIe link, ECC mode and error counts of
 * the memory (UMC), SDMA and GFX blocks, reserved (retired) pages by
 * status, temperature and the driver's version. Opened through
 * telemetry's gt_rsmi_open (the same library and device); a missing
 * function, or one that fails, leaves its facts unknown. */
#include "health_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum {
    GH_FN_BANDWIDTH,
    GH_FN_ECC_ENABLED,
    GH_FN_ECC_COUNT,
    GH_FN_RESERVED_PAGES,
    GH_FN_TEMP,
    GH_FN_VERSION_STR,
    GH_FN_RSMI_COUNT
};

static const char *const rsmi_names[GH_FN_RSMI_COUNT] = {
    "rsmi_dev_pci_bandwidth_get",         "rsmi_dev_ecc_enabled_get", "rsmi_dev_ecc_count_get",
    "rsmi_dev_memory_reserved_pages_get", "rsmi_dev_temp_metric_get", "rsmi_version_str_get",
};

typedef int rsmi_status;
enum { RSMI_OK = 0, RSMI_INSUFFICIENT_SIZE = 11 };
enum { RSMI_BLOCK_UMC = 0x1, RSMI_BLOCK_SDMA = 0x2, RSMI_BLOCK_GFX = 0x4 };
enum { RSMI_PAGE_RESERVED = 0, RSMI_PAGE_PENDING = 1, RSMI_PAGE_UNRESERVABLE = 2 };
enum { RSMI_SW_COMP_DRIVER = 0, RSMI_TEMP_EDGE = 0, RSMI_TEMP_CURRENT = 0 };
#define GH_MAX_PAGES 65536u /* reserved-page records read */

/* rsmi_pcie_bandwidth_t up to ROCm 5 and from ROCm 6 (whose
 * rsmi_frequencies_t starts with a deep-sleep flag and holds one more
 * rate, as telemetry_rsmi.c's). */
typedef struct bandwidth5 {
    uint32_t num_supported, current;
    uint64_t rate[32];
    uint32_t lanes[32];
} bandwidth5;
typedef struct bandwidth6 {
    bool has_deep_sleep;
    uint32_t num_supported, current;
    uint64_t rate[33];
    uint32_t lanes[33];
} bandwidth6;

/* rsmi_error_count_t, with room for counters a newer library adds. */
typedef struct error_count {
    uint64_t correctable, uncorrectable, more[6];
} error_count;

typedef struct page_record {
    uint64_t address, size;
    int status;
} page_record;

int gh_rsmi_open(const char *bus_id, gh_lib *lib) {
    char why[512];
    double max_sm;
    memset(lib, 0, sizeof *lib);
    if (gt_rsmi_open(bus_id, &lib->base, &max_sm, why, sizeof why) != 0) {
        return -1;
    }
    for (int i = 0; i < GH_FN_RSMI_COUNT; i++) {
        lib->fn[i] = gt_sym(lib->base.dl, rsmi_names[i]);
    }
    return 0;
}

void gh_rsmi_close(gh_lib *lib) {
    gt_rsmi_close(&lib->base);
    memset(lib, 0, sizeof *lib);
}

/* The link: the current rate and lanes, and the highest of each the
 * device lists; false when ROCm SMI does not say. */
static bool bandwidth(const gh_lib *lib, gh_num *gen, gh_num *width, gh_num *max_gen,
                      gh_num *max_width) {
    union {
        bandwidth5 v5;
        bandwidth6 v6;
    } b;
    memset(&b, 0, sizeof b);
    gt_fn f = lib->fn[GH_FN_BANDWIDTH];
    if (!f || GT_CALL(rsmi_status(*)(uint32_t, void *), f)(lib->base.rsmi_index, &b) != RSMI_OK) {
        return false;
    }
    bool six = lib->base.rsmi_major >= 6;
    uint32_t n = six ? b.v6.num_supported : b.v5.num_supported;
    uint32_t cur = six ? b.v6.current : b.v5.current;
    const uint64_t *rate = six ? b.v6.rate : b.v5.rate;
    const uint32_t *lanes = six ? b.v6.lanes : b.v5.lanes;
    if (n == 0 || n > (six ? 33u : 32u) || cur >= n) {
        return false;
    }
    int g = gh_pcie_gen_from_rate((double)rate[cur]);
    if (g) {
        *gen = gh_known((uint64_t)g);
    }
    if (lanes[cur] >= 1 && lanes[cur] <= 32) {
        *width = gh_known(lanes[cur]);
    }
    int gmax = 0;
    uint32_t wmax = 0;
    for (uint32_t i = 0; i < n; i++) {
        int gi = gh_pcie_gen_from_rate((double)rate[i]);
        gmax = gi > gmax ? gi : gmax;
        wmax = lanes[i] <= 32 && lanes[i] > wmax ? lanes[i] : wmax;
    }
    if (max_gen && gmax) {
        *max_gen = gh_known((uint64_t)gmax);
    }
    if (max_width && wmax) {
        *max_width = gh_known(wmax);
    }
    return true;
}

void gh_rsmi_link(const gh_lib *lib, gh_num *gen, gh_num *width) {
    bandwidth(lib, gen, width, NULL, NULL);
}

static void read_ecc(const gh_lib *lib, gh_facts *h) {
    uint32_t i = lib->base.rsmi_index;
    uint64_t mask = 0;
    gt_fn enabled = lib->fn[GH_FN_ECC_ENABLED], count = lib->fn[GH_FN_ECC_COUNT];
    if (!enabled || GT_CALL(rsmi_status(*)(uint32_t, uint64_t *), enabled)(i, &mask) != RSMI_OK) {
        return;
    }
    h->ecc.source = GH_SOURCE_ROCM_SMI;
    h->ecc.enabled = gh_flag_of((mask & RSMI_BLOCK_UMC) != 0); /* the memory's */
    static const int blocks[] = {RSMI_BLOCK_UMC, RSMI_BLOCK_SDMA, RSMI_BLOCK_GFX};
    uint64_t corr = 0, unc = 0;
    bool any = false;
    for (size_t b = 0; count && b < sizeof blocks / sizeof blocks[0]; b++) {
        error_count ec;
        memset(&ec, 0, sizeof ec);
        if ((mask & (uint64_t)blocks[b]) && GT_CALL(rsmi_status(*)(uint32_t, int, error_count *),
                                                    count)(i, blocks[b], &ec) == RSMI_OK) {
            corr += ec.correctable;
            unc += ec.uncorrectable;
            any = true;
        }
    }
    /* The driver's counts since it loaded: volatile, in NVML's words. */
    if (any || (count && mask == 0)) {
        h->ecc.volatile_corrected = gh_known(corr);
        h->ecc.volatile_uncorrected = gh_known(unc);
    }
}

static void read_pages(const gh_lib *lib, gh_facts *h) {
    typedef rsmi_status (*pages_fn)(uint32_t, uint32_t *, page_record *);
    gt_fn f = lib->fn[GH_FN_RESERVED_PAGES];
    uint32_t n = 0;
    if (!f || GT_CALL(pages_fn, f)(lib->base.rsmi_index, &n, NULL) != RSMI_OK) {
        return;
    }
    uint32_t want = n < GH_MAX_PAGES ? n : GH_MAX_PAGES;
    page_record *rec = want ? calloc(want, sizeof *rec) : NULL;
    uint32_t got = want;
    rsmi_status rc = rec ? GT_CALL(pages_fn, f)(lib->base.rsmi_index, &got, rec) : RSMI_OK;
    if (want && (!rec || (rc != RSMI_OK && rc != RSMI_INSUFFICIENT_SIZE))) {
        free(rec);
        return;
    }
    uint64_t reserved = 0, pending = 0, unreservable = 0;
    for (uint32_t k = 0; k < got && k < want; k++) {
        reserved += rec[k].status == RSMI_PAGE_RESERVED;
        pending += rec[k].status == RSMI_PAGE_PENDING;
        unreservable += rec[k].status == RSMI_PAGE_UNRESERVABLE;
    }
    free(rec);
    h->retired.source = GH_SOURCE_ROCM_SMI;
    h->retired.reserved = gh_known(reserved);
    h->retired.unreservable = gh_known(unreservable);
    h->retired.pending = gh_flag_of(pending != 0);
}

void gh_rsmi_read(const gh_lib *lib, gh_facts *h) {
    gh_pcie *p = &h->pcie;
    if (bandwidth(lib, &p->current_gen, &p->current_width, &p->max_gen, &p->max_width)) {
        p->source = GH_SOURCE_ROCM_SMI;
    }
    read_ecc(lib, h);
    read_pages(lib, h);
    int64_t milli = 0;
    if (lib->fn[GH_FN_TEMP] &&
        GT_CALL(rsmi_status(*)(uint32_t, uint32_t, int, int64_t *), lib->fn[GH_FN_TEMP])(
            lib->base.rsmi_index, RSMI_TEMP_EDGE, RSMI_TEMP_CURRENT, &milli) == RSMI_OK &&
        milli >= 0) {
        h->temperature_c = gh_known((uint64_t)llround((double)milli * 1e-3));
    }
    char version[80] = "";
    if (lib->fn[GH_FN_VERSION_STR] &&
        GT_CALL(rsmi_status(*)(int, char *, uint32_t), lib->fn[GH_FN_VERSION_STR])(
            RSMI_SW_COMP_DRIVER, version, (uint32_t)sizeof version) == RSMI_OK) {
        version[sizeof version - 1] = '\0';
        snprintf(h->driver.library, sizeof h->driver.library, "%s", version);
    }
}
