/* Backend and device discovery API, version queries. */
#include "core_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t xgpu_version(void) {
    return XGPU_VERSION_HEX;
}

const char *xgpu_version_string(void) {
#define XGPU__STR2(x) #x
#define XGPU__STR(x) XGPU__STR2(x)
    return XGPU__STR(XGPU_VERSION_MAJOR) "." XGPU__STR(XGPU_VERSION_MINOR) "." XGPU__STR(
        XGPU_VERSION_PATCH);
}

uint32_t xgpu_backend_abi_version(void) {
    return XGPU_BACKEND_ABI_VERSION;
}

xgpu_status xgpu_backend_count(uint32_t *count) {
    if (!count) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: count is NULL", __func__);
    }
    const xgpu__registry *reg;
    xgpu_status st = xgpu__registry_get(&reg, __func__);
    *count = st ? 0 : reg->backend_count;
    return st;
}

/* Copies a struct the caller may have compiled at an older, smaller size. */
static xgpu_status copy_sized(void *dst, size_t dst_size, const void *src, size_t src_size,
                              const char *func) {
    if (!dst) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: info is NULL", func);
    }
    if (dst_size == 0 || dst_size > src_size) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE, "%s: info_size %zu is not in 1..%zu", func,
                          dst_size, src_size);
    }
    memcpy(dst, src, dst_size);
    return XGPU_SUCCESS;
}

xgpu_status xgpu_backend_get_info(uint32_t index, xgpu_backend_info *info, size_t info_size) {
    const xgpu__registry *reg;
    xgpu_status reg_st = xgpu__registry_get(&reg, __func__);
    if (reg_st != XGPU_SUCCESS) {
        return reg_st;
    }
    if (index >= reg->backend_count) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_RANGE, "%s: index %u, but there are %u backends",
                          __func__, index, reg->backend_count);
    }
    const xgpu__backend *b = &reg->backends[index];
    xgpu_backend_info full;
    memset(&full, 0, sizeof full);
    snprintf(full.name, sizeof full.name, "%s", b->name);
    full.available = b->available;
    full.status = b->status;
    snprintf(full.reason, sizeof full.reason, "%s", b->reason);
    snprintf(full.plugin_path, sizeof full.plugin_path, "%s", b->path);
    full.abi_version = b->abi_version;
    full.device_count = b->available ? b->device_count : 0;
    full.library_count = xgpu__library_count(b->name);
    return copy_sized(info, info_size, &full, sizeof full, __func__);
}

xgpu_status xgpu_backend_get_library(uint32_t backend, uint32_t library, xgpu_library_info *info,
                                     size_t info_size) {
    const xgpu__registry *reg;
    xgpu_status reg_st = xgpu__registry_get(&reg, __func__);
    if (reg_st != XGPU_SUCCESS) {
        return reg_st;
    }
    if (backend >= reg->backend_count) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_RANGE, "%s: backend %u, but there are %u backends",
                          __func__, backend, reg->backend_count);
    }
    xgpu_library_info full;
    if (!xgpu__library_get(reg->backends[backend].name, library, &full)) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_RANGE,
                          "%s: backend %s tried %u libraries, there is no library %u", __func__,
                          reg->backends[backend].name,
                          xgpu__library_count(reg->backends[backend].name), library);
    }
    return copy_sized(info, info_size, &full, sizeof full, __func__);
}

xgpu_status xgpu_device_count(uint32_t *count) {
    if (!count) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: count is NULL", __func__);
    }
    const xgpu__registry *reg;
    xgpu_status st = xgpu__registry_get(&reg, __func__);
    *count = st ? 0 : reg->device_count;
    return st;
}

/* "no device: backend opencl: <reason>; backend cuda: <reason>" */
static xgpu_status no_device_error(const xgpu__registry *reg, const char *func, const char *what) {
    char reasons[3000] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < reg->backend_count && used < sizeof reasons; i++) {
        const xgpu__backend *b = &reg->backends[i];
        int n = b->available ? snprintf(reasons + used, sizeof reasons - used,
                                        "; %s: available, %u device(s)", b->name, b->device_count)
                             : snprintf(reasons + used, sizeof reasons - used, "; %s: %s", b->name,
                                        b->reason);
        used += n > 0 ? (size_t)n : 0;
    }
    return xgpu__fail(XGPU_ERROR_NO_DEVICE, "%s: %s%s", func, what,
                      reg->backend_count ? reasons : "; no backend available");
}

xgpu_status xgpu_device_get(uint32_t index, xgpu_device **device) {
    if (!device) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: device is NULL", __func__);
    }
    *device = NULL;
    const xgpu__registry *reg;
    xgpu_status reg_st = xgpu__registry_get(&reg, __func__);
    if (reg_st != XGPU_SUCCESS) {
        return reg_st;
    }
    if (index >= reg->device_count) {
        char what[96];
        snprintf(what, sizeof what, "no device %u (%u found)", index, reg->device_count);
        return no_device_error(reg, __func__, what);
    }
    *device = reg->devices[index].self;
    return XGPU_SUCCESS;
}

static bool term_matches(const xgpu__selector_term *t, const xgpu__registry *reg, uint32_t d) {
    const xgpu__device *dev = &reg->devices[d];
    const xgpu_device_info *info = &dev->info;
    xgpu__pci_address pci;
    switch (t->kind) {
    case XGPU__TERM_INDEX:
        return t->index == d;
    case XGPU__TERM_BACKEND:
        return !strcmp(dev->backend->name, t->backend);
    case XGPU__TERM_PATH:
        return !strcmp(dev->backend->name, t->backend) && dev->index == t->index;
    case XGPU__TERM_PCI:
        /* Compared as numbers: backends spell the same id differently. */
        return info->has_pci_bus_id &&
               xgpu__pci_address_parse(info->pci_bus_id, strlen(info->pci_bus_id), &pci) &&
               !memcmp(&pci, &t->pci, sizeof pci);
    case XGPU__TERM_UUID:
        return info->has_uuid && !memcmp(info->uuid, t->uuid, sizeof t->uuid);
    }
    return false;
}

/* Why `t` matched no device, as the error of `func`. */
static xgpu_status term_matched_nothing(const xgpu__selector_term *t, const xgpu__registry *reg,
                                        const char *func) {
    char text[64], what[160];
    xgpu__selector_term_format(t, text, sizeof text);
    switch (t->kind) {
    case XGPU__TERM_INDEX:
        snprintf(what, sizeof what, "no device %u (%u found)", t->index, reg->device_count);
        return no_device_error(reg, func, what);
    case XGPU__TERM_BACKEND:
    case XGPU__TERM_PATH:
        for (uint32_t i = 0; i < reg->backend_count; i++) {
            const xgpu__backend *b = &reg->backends[i];
            if (strcmp(b->name, t->backend)) {
                continue;
            }
            if (!b->available) {
                return xgpu__fail(XGPU_ERROR_BACKEND_UNAVAILABLE,
                                  "%s: backend %s is unavailable: %s", func, b->name, b->reason);
            }
            return xgpu__fail(XGPU_ERROR_NO_DEVICE,
                              "%s: backend %s has %u device(s); there is no %s", func, b->name,
                              b->device_count, text);
        }
        return xgpu__fail(XGPU_ERROR_BACKEND_UNAVAILABLE,
                          "%s: no backend named '%s' (XGPU_BACKENDS may exclude it)", func,
                          t->backend);
    case XGPU__TERM_PCI:
    case XGPU__TERM_UUID:
        break;
    }
    uint32_t known = 0;
    for (uint32_t d = 0; d < reg->device_count; d++) {
        const xgpu_device_info *info = &reg->devices[d].info;
        known += t->kind == XGPU__TERM_PCI ? info->has_pci_bus_id : info->has_uuid;
    }
    snprintf(what, sizeof what, "no device has %s %s (%u of %u devices report one)",
             t->kind == XGPU__TERM_PCI ? "PCI bus id" : "UUID", text, known, reg->device_count);
    return no_device_error(reg, func, what);
}

/* xgpu_device_match's work, with errors in the name of `func`. */
static xgpu_status match(const char *func, const char *selector, xgpu_device **devices,
                         uint32_t capacity, uint32_t *count) {
    if (!count) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: count is NULL", func);
    }
    *count = 0;
    if (!devices && capacity) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: devices is NULL, but capacity is %u",
                          func, capacity);
    }
    xgpu__selector sel;
    char err[4096]; /* as long as the last error's message: never the shorter one */
    if (!xgpu__selector_parse(selector, &sel, err, sizeof err)) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: %s", func, err);
    }
    const xgpu__registry *reg;
    xgpu_status reg_st = xgpu__registry_get(&reg, func);
    if (reg_st != XGPU_SUCCESS) {
        return reg_st;
    }
    /* Every term must match: a typo in one term of a list fails the call
     * instead of quietly selecting fewer devices. */
    for (uint32_t t = 0; t < sel.count; t++) {
        uint32_t d = 0;
        while (d < reg->device_count && !term_matches(&sel.terms[t], reg, d)) {
            d++;
        }
        if (d == reg->device_count) {
            return term_matched_nothing(&sel.terms[t], reg, func);
        }
    }
    /* Device order, each device once, whatever the order of the terms. */
    uint32_t n = 0;
    for (uint32_t d = 0; d < reg->device_count; d++) {
        for (uint32_t t = 0; t < sel.count; t++) {
            if (term_matches(&sel.terms[t], reg, d)) {
                if (n < capacity) {
                    devices[n] = reg->devices[d].self;
                }
                n++;
                break;
            }
        }
    }
    *count = n;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_device_match(const char *selector, xgpu_device **devices, uint32_t capacity,
                              uint32_t *count) {
    return match(__func__, selector, devices, capacity, count);
}

xgpu_status xgpu_device_select(const char *selector, xgpu_device **device) {
    if (!device) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: device is NULL", __func__);
    }
    *device = NULL;
    uint32_t n = 0;
    return match(__func__, selector, device, 1, &n);
}

xgpu_status xgpu_device_free_memory(const xgpu_device *device, uint64_t *free_bytes) {
    xgpu__device *dev;
    XGPU__OK_OR_RETURN(xgpu__device_get(device, __func__, "device", &dev));
    if (!free_bytes) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: free_bytes is NULL", __func__);
    }
    const xgpu__backend *b = dev->backend;
    return b->ops.device_free_memory(b->state, dev->index, free_bytes);
}

xgpu_status xgpu_device_get_info(const xgpu_device *device, xgpu_device_info *info,
                                 size_t info_size) {
    xgpu__device *dev;
    XGPU__OK_OR_RETURN(xgpu__device_get(device, __func__, "device", &dev));
    return copy_sized(info, info_size, &dev->info, sizeof dev->info, __func__);
}

const xgpu_device_info *xgpu__device_info(const xgpu_device *device) {
    return &((const xgpu__device *)xgpu__handle_object(device, XGPU__MAGIC_DEVICE))->info;
}
