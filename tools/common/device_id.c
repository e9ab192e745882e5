/* Device identity: the path and UUID spellings, and physical devices. */
#include "device_id.h"

#include <stdio.h>
#include <string.h>

static int same_device(const xgpu_device_info *a, const xgpu_device_info *b) {
    if (a->has_uuid && b->has_uuid) {
        return memcmp(a->uuid, b->uuid, sizeof a->uuid) == 0;
    }
    if (a->has_pci_bus_id && b->has_pci_bus_id) {
        return strcmp(a->pci_bus_id, b->pci_bus_id) == 0;
    }
    return 0;
}

uint32_t devid_merge(const xgpu_device_info *infos, uint32_t n, uint32_t *group) {
    uint32_t groups = 0;
    for (uint32_t i = 0; i < n; i++) {
        group[i] = UINT32_MAX;
        for (uint32_t j = 0; j < i; j++) {
            /* Two paths of one backend are two devices (two GPUs of a
             * model can share nothing but a name). */
            if (strcmp(infos[i].backend, infos[j].backend) != 0 &&
                same_device(&infos[i], &infos[j])) {
                group[i] = group[j];
                break;
            }
        }
        if (group[i] == UINT32_MAX) {
            group[i] = groups++;
        }
    }
    return groups;
}

void devid_path(const xgpu_device_info *info, char *out, size_t size) {
    snprintf(out, size, "%s:%u", info->backend, info->backend_index);
}

void devid_uuid(const xgpu_device_info *info, char *out, size_t size) {
    const uint8_t *u = info->uuid;
    if (!info->has_uuid) {
        snprintf(out, size, "%s", "");
        return;
    }
    snprintf(out, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
}
