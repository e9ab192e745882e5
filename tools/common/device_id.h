/* A device's identity as the tools spell it, and the grouping of backend
 * paths into physical devices: the same GPU seen through two backends
 * (CUDA and OpenCL on NVIDIA, HIP and OpenCL on AMD) is one device. */
#ifndef XGPU_TOOLS_DEVICE_ID_H
#define XGPU_TOOLS_DEVICE_ID_H

#include <xgpu.h>

#include <stddef.h>
#include <stdint.h>

/* The path, "cuda:0": the backend and its index. */
void devid_path(const xgpu_device_info *info, char *out, size_t size);
/* The UUID as the tools print it, 32 hex digits dashed 8-4-4-4-12; ""
 * when the device has none. */
void devid_uuid(const xgpu_device_info *info, char *out, size_t size);
/* Groups `n` device infos into physical devices: two infos are one device
 * when both have a UUID and the UUIDs are equal, or else both have a PCI
 * bus id and the ids are equal; two paths of one backend never are. Writes
 * the physical index of each info to group[i] (groups numbered in order of
 * their first info) and returns the number of physical devices. */
uint32_t devid_merge(const xgpu_device_info *infos, uint32_t n, uint32_t *group);

#endif
