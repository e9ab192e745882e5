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
/* Dense matrix-unit GFLOP/s (int8: GOP/s) for `precision` ("tf32",
 * "f16", "bf16", "int8", "fp8"): SMs or CUs x dense flops per clock per
 * unit (by architecture and precision) (from the vendor's
 * datasheet figures) x the maximum clock. Unknown for an architecture or
 * precision the table lacks, or a device without matrix units. */
void peak_matrix(const xgpu_device_info *info, const char *precision, peak_figure *p);
/* Memory GB/s: memory clock x 2 transfers per clock x bus width. */
void peak_bandwidth(const xgpu_device_info *info, peak_figure *p);

#endif
