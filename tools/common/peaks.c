/* Theoretical peaks, derived only where the inputs are known, each with
 * its provenance. Unknown is null, never a guessed default. */
#include "peaks.h"

#include <stdio.h>
#include <string.h>

/* FP32 lanes per SM by compute capability, as NVIDIA's CUDA C++
 * Programming Guide tabulates arithmetic throughput (32-bit floating-point
 * add/multiply/fma results per clock per multiprocessor). A capability not
 * listed is unknown until someone adds it from the same source. */
static const struct {
    int sm;
    int lanes;
} nvidia_fp32_lanes[] = {
    {50, 128}, {52, 128}, {53, 128},  {60, 64},   {61, 128},  {62, 128},
    {70, 64},  {72, 64},  {75, 64},   {80, 64},   {86, 128},  {87, 128},
    {89, 128}, {90, 128}, {100, 128}, {103, 128}, {120, 128}, {121, 128},
};

static int sm_number(const char *arch) {
    int sm = 0;
    return sscanf(arch, "sm_%d", &sm) == 1 ? sm : 0;
}

void peak_fp32(const xgpu_device_info *info, peak_figure *p) {
    p->known = false;
    p->value = 0;
    int sm = sm_number(info->arch);
    if (!sm) {
        snprintf(p->provenance, sizeof p->provenance,
                 "unknown: no FP32 lanes-per-unit figure for %s",
                 info->arch[0] ? info->arch : "this device");
        return;
    }
    int lanes = 0;
    for (size_t i = 0; i < sizeof nvidia_fp32_lanes / sizeof nvidia_fp32_lanes[0]; i++) {
        if (nvidia_fp32_lanes[i].sm == sm) {
            lanes = nvidia_fp32_lanes[i].lanes;
        }
    }
    if (!lanes || !info->compute_units || !info->max_clock_mhz) {
        snprintf(p->provenance, sizeof p->provenance, "unknown: %s",
                 !lanes ? "sm not in the FP32 throughput table"
                        : "the driver reports no SM count or clock");
        return;
    }
    p->known = true;
    p->value = (double)info->compute_units * lanes * 2.0 * info->max_clock_mhz / 1000.0;
    snprintf(p->provenance, sizeof p->provenance,
             "%u SMs x %d FP32 lanes (sm_%d) x 2 flops per FMA x %u MHz", info->compute_units,
             lanes, sm, info->max_clock_mhz);
}

void peak_bandwidth(const xgpu_device_info *info, peak_figure *p) {
    p->known = false;
    p->value = 0;
    if (!info->memory_clock_mhz || !info->memory_bus_width_bits) {
        snprintf(p->provenance, sizeof p->provenance,
                 "unknown: the backend reports no memory clock and bus width");
        return;
    }
    p->known = true;
    p->value = info->memory_clock_mhz * 1e6 * 2.0 * info->memory_bus_width_bits / 8.0 / 1e9;
    snprintf(p->provenance, sizeof p->provenance,
             "%u MHz x 2 transfers per clock x %u-bit bus, as the driver reports them",
             info->memory_clock_mhz, info->memory_bus_width_bits);
}
