/* The fake NVML's health functions (fake_nvml.c is the rest), GPU 0's
 * values from the environment at each call; an unset variable makes its
 * call answer NVML_ERROR_NOT_SUPPORTED:
 *   FAKE_NVML_PCIE_GEN    the current generation, or a comma-separated
 *                         sequence: call k answers item k, the last one
 *                         from then on ("1,5": idle at Gen1 on the first
 *                         reading, Gen5 after); fake_nvml_health_reset()
 *                         starts the sequences again
 *   FAKE_NVML_PCIE_WIDTH  the current width, as a sequence as well
 *   FAKE_NVML_PCIE_MAX    "gen,width": nvmlDeviceGetMaxPcieLink*
 *   FAKE_NVML_ECC         "current,pending" ECC modes (1 on)
 *   FAKE_NVML_ECC_ERRORS  "volatile corrected,volatile uncorrected,
 *                         aggregate corrected,aggregate uncorrected"
 *   FAKE_NVML_RETIRED     "single-bit pages,double-bit pages,pending"
 *   FAKE_NVML_REMAPPED    "correctable,uncorrectable,pending,failed"
 *   FAKE_NVML_NVLINK      one character per link that exists, 1 up and 0
 *                         down ("111111111111111100": 2 of 18 down); the
 *                         links after it answer NOT_SUPPORTED
 *   FAKE_NVML_PERSISTENCE 1 on, 0 off
 * FAKE_NVML_PARTIAL builds lack the PCIe link, remapped-row and NVLink
 * functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((visibility("default")))

enum { OK = 0, INVALID = 2, NOT_SUPPORTED = 3, INSUFFICIENT_SIZE = 7 };

int fake_nvml_is_gpu0(const void *device);

/* Item i of the comma-separated numbers in `name` (the last one when
 * there are fewer) into out; NOT_SUPPORTED when unset. */
static int item(const char *name, unsigned i, unsigned long long *out) {
    const char *p = getenv(name);
    if (!p || !*p) {
        return NOT_SUPPORTED;
    }
    for (unsigned k = 0; k < i; k++) {
        const char *comma = strchr(p, ',');
        if (!comma) {
            break;
        }
        p = comma + 1;
    }
    *out = strtoull(p, NULL, 0);
    return OK;
}

static int uint_item(const char *name, unsigned i, unsigned *out) {
    unsigned long long v = 0;
    int rc = item(name, i, &v);
    *out = (unsigned)v;
    return rc;
}

/* How many times the current generation and width were asked. */
static _Atomic unsigned gen_calls, width_calls;
FAKE_API void fake_nvml_health_reset(void) {
    gen_calls = 0;
    width_calls = 0;
}

#if !defined(FAKE_NVML_PARTIAL)
FAKE_API int nvmlDeviceGetCurrPcieLinkGeneration(void *device, unsigned *gen) {
    return fake_nvml_is_gpu0(device) ? uint_item("FAKE_NVML_PCIE_GEN", gen_calls++, gen) : INVALID;
}

FAKE_API int nvmlDeviceGetCurrPcieLinkWidth(void *device, unsigned *width) {
    return fake_nvml_is_gpu0(device) ? uint_item("FAKE_NVML_PCIE_WIDTH", width_calls++, width)
                                     : INVALID;
}

FAKE_API int nvmlDeviceGetMaxPcieLinkGeneration(void *device, unsigned *gen) {
    return fake_nvml_is_gpu0(device) ? uint_item("FAKE_NVML_PCIE_MAX", 0, gen) : INVALID;
}

FAKE_API int nvmlDeviceGetMaxPcieLinkWidth(void *device, unsigned *width) {
    return fake_nvml_is_gpu0(device) ? uint_item("FAKE_NVML_PCIE_MAX", 1, width) : INVALID;
}

FAKE_API int nvmlDeviceGetRemappedRows(void *device, unsigned *corr, unsigned *unc,
                                       unsigned *pending, unsigned *failed) {
    if (!fake_nvml_is_gpu0(device)) {
        return INVALID;
    }
    int rc = uint_item("FAKE_NVML_REMAPPED", 0, corr);
    uint_item("FAKE_NVML_REMAPPED", 1, unc);
    uint_item("FAKE_NVML_REMAPPED", 2, pending);
    uint_item("FAKE_NVML_REMAPPED", 3, failed);
    return rc;
}

FAKE_API int nvmlDeviceGetNvLinkState(void *device, unsigned link, unsigned *active) {
    const char *links = getenv("FAKE_NVML_NVLINK");
    if (!fake_nvml_is_gpu0(device)) {
        return INVALID;
    }
    if (!links || link >= strlen(links)) {
        return NOT_SUPPORTED;
    }
    *active = links[link] == '1';
    return OK;
}
#endif

FAKE_API int nvmlDeviceGetEccMode(void *device, unsigned *current, unsigned *pending) {
    if (!fake_nvml_is_gpu0(device)) {
        return INVALID;
    }
    int rc = uint_item("FAKE_NVML_ECC", 0, current);
    uint_item("FAKE_NVML_ECC", 1, pending);
    return rc;
}

/* nvmlMemoryErrorType_t (0 corrected, 1 uncorrected) and
 * nvmlEccCounterType_t (0 volatile, 1 aggregate). */
FAKE_API int nvmlDeviceGetTotalEccErrors(void *device, int type, int counter,
                                         unsigned long long *count) {
    if (!fake_nvml_is_gpu0(device) || type < 0 || type > 1 || counter < 0 || counter > 1) {
        return INVALID;
    }
    return item("FAKE_NVML_ECC_ERRORS", (unsigned)(counter * 2 + type), count);
}

/* A count of 0 (or too small) asks for the number: INSUFFICIENT_SIZE
 * when there are more pages than that. */
FAKE_API int nvmlDeviceGetRetiredPages(void *device, int cause, unsigned *count,
                                       unsigned long long *addresses) {
    unsigned n = 0;
    if (!fake_nvml_is_gpu0(device) || cause < 0 || cause > 1 || !count) {
        return INVALID;
    }
    if (uint_item("FAKE_NVML_RETIRED", (unsigned)cause, &n) != OK) {
        return NOT_SUPPORTED;
    }
    unsigned room = *count;
    *count = n;
    if (room < n) {
        return INSUFFICIENT_SIZE;
    }
    for (unsigned i = 0; addresses && i < n; i++) {
        addresses[i] = 0x100000ull * (i + 1);
    }
    return OK;
}

FAKE_API int nvmlDeviceGetRetiredPagesPendingStatus(void *device, unsigned *pending) {
    return fake_nvml_is_gpu0(device) ? uint_item("FAKE_NVML_RETIRED", 2, pending) : INVALID;
}

FAKE_API int nvmlDeviceGetPersistenceMode(void *device, unsigned *mode) {
    return fake_nvml_is_gpu0(device) ? uint_item("FAKE_NVML_PERSISTENCE", 0, mode) : INVALID;
}
