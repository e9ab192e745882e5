/* Theoretical peaks of a device, derived only where the inputs are known,
 * each with its provenance: gpuinfo shows them, gpubench reads its rates
 * against them. Unknown is unknown, never a guessed default. */
#ifndef XGPU_TOOLS_PEAKS_H
#define XGPU_TOOLS_PEAKS_H

#include <xgpu.h>

#include <stdbool.h>

typedef struct peak_figure {
    bool known;
    double value;         /* GFLOP/s or GB/s when known, else 0 */
    char provenance[256]; /* how it was derived, or why it is unknown */
} peak_figure;

/* FP32 GFLOP/s: SMs x FP32 lanes per SM (by compute capability) x 2 x clock. */
void peak_fp32(const xgpu_device_info *info, peak_figure *p);
/* Memory GB/s: memory clock x 2 transfers per clock x bus width. */
void peak_bandwidth(const xgpu_device_info *info, peak_figure *p);

#endif
