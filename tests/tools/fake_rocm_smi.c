/* A stand-in for ROCm SMI (librocm_smi64.so) that telemetry loads in the
 * tests: one GPU whose values come from the environment at each call.
 *   FAKE_RSMI_INIT      rsmi_init's status (default 0)
 *   FAKE_RSMI_MAJOR     the version rsmi_version_get gives (default 6): 6
 *                       and later lay rsmi_frequencies_t out with a
 *                       deep-sleep flag first and 33 frequencies
 *   FAKE_RSMI_BUS       its bus id, dddd:bb:dd.f (default 0000:03:00.0)
 *   FAKE_RSMI_SCLK, _SCLK_MAX, _MCLK (MHz), _POWER_UW, _CAP_UW, _TEMP_MC
 *   (millidegrees), _BUSY (%), _VRAM_USED (bytes): unset ones fail with
 *   RSMI_STATUS_NOT_SUPPORTED.
 * Its health facts, unset ones NOT_SUPPORTED as well:
 *   FAKE_RSMI_PCIE_RATES    the link's rates in MT/s, comma-separated
 *                           ("2500,8000,16000")
 *   FAKE_RSMI_PCIE_LANES    the lanes of each rate (the last for the rest)
 *   FAKE_RSMI_PCIE_CURRENT  the index of the current one (default 0)
 *   FAKE_RSMI_ECC_MASK      rsmi_dev_ecc_enabled_get's blocks (UMC 0x1,
 *                           SDMA 0x2, GFX 0x4)
 *   FAKE_RSMI_ECC_UMC, _ECC_SDMA, _ECC_GFX  "correctable,uncorrectable"
 *   FAKE_RSMI_PAGES         "reserved,pending,unreservable" page counts
 *   FAKE_RSMI_DRIVER        rsmi_version_str_get's driver version
 * Built three times: complete; FAKE_RSMI_PARTIAL, without
 * rsmi_dev_power_ave_get (power from rsmi_dev_current_socket_power_get),
 * rsmi_dev_busy_percent_get, rsmi_dev_pci_bandwidth_get and
 * rsmi_dev_memory_reserved_pages_get; FAKE_RSMI_NO_PCI, without
 * rsmi_dev_pci_id_get. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((visibility("default")))

enum { OK = 0, INVALID = 1, NOT_SUPPORTED = 2 };

static int value(const char *name, uint64_t *out) {
    const char *v = getenv(name);
    if (!v || !*v) {
        return NOT_SUPPORTED;
    }
    *out = strtoull(v, NULL, 0);
    return OK;
}

/* Item i of the comma-separated numbers in `name`, the last one when
 * there are fewer; NOT_SUPPORTED when unset. */
static int item(const char *name, unsigned i, uint64_t *out) {
    const char *p = getenv(name);
    if (!p || !*p) {
        return NOT_SUPPORTED;
    }
    for (unsigned k = 0; k < i && strchr(p, ','); k++) {
        p = strchr(p, ',') + 1;
    }
    *out = strtoull(p, NULL, 0);
    return OK;
}

static unsigned major(void) {
    const char *v = getenv("FAKE_RSMI_MAJOR");
    return v ? (unsigned)atoi(v) : 6;
}

FAKE_API int rsmi_init(uint64_t flags) {
    (void)flags;
    const char *v = getenv("FAKE_RSMI_INIT");
    return v ? atoi(v) : OK;
}

FAKE_API int rsmi_shut_down(void) {
    return OK;
}

FAKE_API int rsmi_status_string(int status, const char **text) {
    *text = status == 8 ? "RSMI_STATUS_INIT_ERROR: An error occurred during initialization"
                        : "RSMI_STATUS_UNKNOWN_ERROR";
    return OK;
}

typedef struct {
    uint32_t major, minor, patch;
    const char *build;
} fake_version;

FAKE_API int rsmi_version_get(fake_version *v) {
    v->major = major();
    v->minor = 0;
    v->patch = 0;
    v->build = "fake";
    return OK;
}

FAKE_API int rsmi_num_monitor_devices(uint32_t *n) {
    *n = 1;
    return OK;
}

#if !defined(FAKE_RSMI_NO_PCI)
FAKE_API int rsmi_dev_pci_id_get(uint32_t dev, uint64_t *bdfid) {
    const char *bus = getenv("FAKE_RSMI_BUS");
    unsigned long dom = 0;
    unsigned b = 3, d = 0, f = 0;
    if (bus) {
        sscanf(bus, "%lx:%x:%x.%x", &dom, &b, &d, &f);
    }
    *bdfid = ((uint64_t)dom << 32) | (uint64_t)b << 8 | (uint64_t)(d & 0x1f) << 3 | (f & 7);
    return dev == 0 ? OK : INVALID;
}
#endif

/* rsmi_frequencies_t as each version lays it out. */
typedef struct {
    uint32_t num_supported, current;
    uint64_t frequency[32];
} freq5;
typedef struct {
    bool has_deep_sleep;
    uint32_t num_supported, current;
    uint64_t frequency[33];
} freq6;

/* The current clock first, then the maximum (when set). */
FAKE_API int rsmi_dev_gpu_clk_freq_get(uint32_t dev, int type, void *out) {
    uint64_t cur = 0, max = 0;
    int rc = dev != 0
                 ? INVALID
                 : value(type == 0 ? "FAKE_RSMI_SCLK" : (type == 4 ? "FAKE_RSMI_MCLK" : "-"), &cur);
    if (rc != OK) {
        return rc;
    }
    bool has_max = type == 0 && value("FAKE_RSMI_SCLK_MAX", &max) == OK;
    uint32_t n = has_max ? 2 : 1;
    if (major() >= 6) {
        freq6 *f = out;
        memset(f, 0, sizeof *f);
        f->num_supported = n;
        f->frequency[0] = cur * 1000000;
        f->frequency[1] = max * 1000000;
    } else {
        freq5 *f = out;
        memset(f, 0, sizeof *f);
        f->num_supported = n;
        f->frequency[0] = cur * 1000000;
        f->frequency[1] = max * 1000000;
    }
    return OK;
}

#if !defined(FAKE_RSMI_PARTIAL)
FAKE_API int rsmi_dev_power_ave_get(uint32_t dev, uint32_t sensor, uint64_t *uw) {
    return dev == 0 && sensor == 0 ? value("FAKE_RSMI_POWER_UW", uw) : INVALID;
}

FAKE_API int rsmi_dev_busy_percent_get(uint32_t dev, uint32_t *pct) {
    uint64_t v = 0;
    int rc = dev == 0 ? value("FAKE_RSMI_BUSY", &v) : INVALID;
    *pct = (uint32_t)v;
    return rc;
}

/* The rates (T/s) and lanes, in each version's rsmi_pcie_bandwidth_t. */
FAKE_API int rsmi_dev_pci_bandwidth_get(uint32_t dev, void *out) {
    const char *rates = getenv("FAKE_RSMI_PCIE_RATES");
    if (dev != 0 || !rates || !*rates) {
        return dev != 0 ? INVALID : NOT_SUPPORTED;
    }
    uint32_t n = 1;
    for (const char *p = rates; (p = strchr(p, ',')); p++) {
        n++;
    }
    uint64_t cur = 0, r = 0, l = 0;
    item("FAKE_RSMI_PCIE_CURRENT", 0, &cur);
    if (major() >= 6) {
        struct {
            freq6 rate;
            uint32_t lanes[33];
        } *b = out;
        memset(b, 0, sizeof *b);
        b->rate.num_supported = n > 33 ? 33 : n;
        b->rate.current = (uint32_t)cur;
        for (uint32_t i = 0; i < b->rate.num_supported; i++) {
            item("FAKE_RSMI_PCIE_RATES", i, &r);
            b->rate.frequency[i] = r * 1000000;
            b->lanes[i] = item("FAKE_RSMI_PCIE_LANES", i, &l) == OK ? (uint32_t)l : 0;
        }
    } else {
        struct {
            freq5 rate;
            uint32_t lanes[32];
        } *b = out;
        memset(b, 0, sizeof *b);
        b->rate.num_supported = n > 32 ? 32 : n;
        b->rate.current = (uint32_t)cur;
        for (uint32_t i = 0; i < b->rate.num_supported; i++) {
            item("FAKE_RSMI_PCIE_RATES", i, &r);
            b->rate.frequency[i] = r * 1000000;
            b->lanes[i] = item("FAKE_RSMI_PCIE_LANES", i, &l) == OK ? (uint32_t)l : 0;
        }
    }
    return OK;
}

typedef struct {
    uint64_t address, size;
    int status; /* 0 reserved, 1 pending, 2 unreservable */
} fake_page;

/* records NULL: the count alone; else at most *num records. */
FAKE_API int rsmi_dev_memory_reserved_pages_get(uint32_t dev, uint32_t *num, fake_page *records) {
    uint64_t counts[3] = {0, 0, 0};
    if (dev != 0 || item("FAKE_RSMI_PAGES", 0, &counts[0]) != OK) {
        return dev != 0 ? INVALID : NOT_SUPPORTED;
    }
    item("FAKE_RSMI_PAGES", 1, &counts[1]);
    item("FAKE_RSMI_PAGES", 2, &counts[2]);
    uint32_t total = (uint32_t)(counts[0] + counts[1] + counts[2]);
    if (!records) {
        *num = total;
        return OK;
    }
    uint32_t k = 0;
    for (int status = 0; status < 3; status++) {
        for (uint64_t i = 0; i < counts[status] && k < *num; i++, k++) {
            records[k].address = 0x200000ull * (k + 1);
            records[k].size = 4096;
            records[k].status = status;
        }
    }
    int rc = k < total ? 11 : OK; /* RSMI_STATUS_INSUFFICIENT_SIZE */
    *num = k;
    return rc;
}
#endif

FAKE_API int rsmi_dev_ecc_enabled_get(uint32_t dev, uint64_t *mask) {
    return dev == 0 ? value("FAKE_RSMI_ECC_MASK", mask) : INVALID;
}

typedef struct {
    uint64_t correctable, uncorrectable;
} fake_error_count;

FAKE_API int rsmi_dev_ecc_count_get(uint32_t dev, int block, fake_error_count *ec) {
    const char *name = block == 1 ? "FAKE_RSMI_ECC_UMC"
                                  : (block == 2 ? "FAKE_RSMI_ECC_SDMA"
                                                : (block == 4 ? "FAKE_RSMI_ECC_GFX" : NULL));
    if (dev != 0 || !name) {
        return INVALID;
    }
    int rc = item(name, 0, &ec->correctable);
    item(name, 1, &ec->uncorrectable);
    return rc;
}

FAKE_API int rsmi_version_str_get(int component, char *text, uint32_t len) {
    const char *v = getenv("FAKE_RSMI_DRIVER");
    if (component != 0 || !v) {
        return component != 0 ? INVALID : NOT_SUPPORTED;
    }
    if (strlen(v) + 1 > len) {
        return 11;
    }
    memcpy(text, v, strlen(v) + 1);
    return OK;
}

FAKE_API int rsmi_dev_current_socket_power_get(uint32_t dev, uint64_t *uw) {
    return dev == 0 ? value("FAKE_RSMI_POWER_UW", uw) : INVALID;
}

FAKE_API int rsmi_dev_power_cap_get(uint32_t dev, uint32_t sensor, uint64_t *uw) {
    return dev == 0 && sensor == 0 ? value("FAKE_RSMI_CAP_UW", uw) : INVALID;
}

FAKE_API int rsmi_dev_temp_metric_get(uint32_t dev, uint32_t sensor, int metric, int64_t *mc) {
    uint64_t v = 0;
    int rc = dev == 0 && sensor == 0 && metric == 0 ? value("FAKE_RSMI_TEMP_MC", &v) : INVALID;
    *mc = (int64_t)v;
    return rc;
}

FAKE_API int rsmi_dev_memory_usage_get(uint32_t dev, int type, uint64_t *used) {
    return dev == 0 && type == 0 ? value("FAKE_RSMI_VRAM_USED", used) : INVALID;
}
