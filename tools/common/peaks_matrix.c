/* Matrix-unit (tensor core, matrix core) peaks: dense flops per clock per
 * SM or CU for each precision, times the units and the maximum clock the
 * driver reports. Each figure is the vendor's dense peak divided by the
 * units and clock it was quoted at (sparsity excluded). */
#include "peaks.h"

#include <stdio.h>
#include <string.h>

typedef struct matrix_rate {
    const char *arch;        /* "sm_80", or a gfx prefix ("gfx90a" matches "gfx90a:xnack-") */
    int tf32, f16, bf16, i8; /* dense flops (int8: ops) per clock per unit; 0: none */
    int fp8;
    const char *source;
} matrix_rate;

static const matrix_rate rates[] = {
    /* A100 SXM4: 312 TFLOPS f16/bf16, 156 tf32, 624 TOPS int8 at 108 SMs
     * x 1410 MHz (NVIDIA A100 Tensor Core GPU Architecture whitepaper,
     * table 1). */
    {"sm_80", 1024, 2048, 2048, 4096, 0, "A100 whitepaper"},
    /* GA102 at full rate (A40: 149.7 TFLOPS f16 with fp32 accumulation,
     * 74.8 tf32, 299.3 TOPS int8 at 84 SMs x 1740 MHz, NVIDIA A40
     * datasheet); GeForce parts halve fp32 accumulation (NVIDIA Ampere
     * GA102 GPU Architecture whitepaper, table 3): an upper bound there. */
    {"sm_86", 512, 1024, 1024, 2048, 0, "A40 datasheet, GA102 whitepaper"},
    /* AD102 (L40S: 362 TFLOPS f16/bf16, 183 tf32, 733 TOPS int8 and fp8
     * at 142 SMs x 2520 MHz, NVIDIA L40S datasheet; GeForce as for sm_86). */
    {"sm_89", 512, 1024, 1024, 2048, 2048, "L40S datasheet, Ada whitepaper"},
    /* H100 SXM5: 989.4 TFLOPS f16/bf16, 494.7 tf32, 1979 TOPS int8 and
     * fp8 at 132 SMs x 1830 MHz (NVIDIA H100 Tensor Core GPU Architecture
     * whitepaper, table 2); H200 has the same SMs. */
    {"sm_90", 2048, 4096, 4096, 8192, 8192, "H100 whitepaper"},
    /* MI250X: 383 TFLOPS f16/bf16, 383 TOPS int8 at 220 CUs x 1700 MHz;
     * CDNA2 has no tf32 (AMD Instinct MI250X datasheet, CDNA2
     * whitepaper). */
    {"gfx90a", 0, 1024, 1024, 1024, 0, "MI250X datasheet"},
    /* MI300X: 1307.4 TFLOPS f16/bf16, 653.7 tf32, 2614.9 TOPS int8 and
     * fp8 at 304 CUs x 2100 MHz (AMD Instinct MI300X datasheet, CDNA3
     * whitepaper). */
    {"gfx942", 1024, 2048, 2048, 4096, 4096, "MI300X datasheet"},
};

static int rate_of(const matrix_rate *r, const char *precision) {
    return !strcmp(precision, "tf32")   ? r->tf32
           : !strcmp(precision, "f16")  ? r->f16
           : !strcmp(precision, "bf16") ? r->bf16
           : !strcmp(precision, "int8") ? r->i8
           : !strcmp(precision, "fp8")  ? r->fp8
                                        : 0;
}

static const matrix_rate *find(const char *arch) {
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        size_t n = strlen(rates[i].arch);
        bool gfx = !strncmp(arch, "gfx", 3);
        if (gfx ? !strncmp(arch, rates[i].arch, n) && (arch[n] == '\0' || arch[n] == ':')
                : !strcmp(arch, rates[i].arch)) {
            return &rates[i];
        }
    }
    return NULL;
}

void peak_matrix(const xgpu_device_info *info, const char *precision, peak_figure *p) {
    p->known = false;
    p->value = 0;
    const matrix_rate *r = find(info->arch);
    int rate = r ? rate_of(r, precision) : 0;
    if (!rate) {
        snprintf(p->provenance, sizeof p->provenance,
                 "unknown: no dense %s matrix-unit figure for %s", precision,
                 info->arch[0] ? info->arch : "this device");
        return;
    }
    if (!info->compute_units || !info->max_clock_mhz) {
        snprintf(p->provenance, sizeof p->provenance,
                 "unknown: the driver reports no unit count or clock");
        return;
    }
    p->known = true;
    p->value = (double)info->compute_units * rate * info->max_clock_mhz / 1000.0;
    snprintf(p->provenance, sizeof p->provenance,
             "%u %s x %d dense %s flops per clock (%s, %s) x %u MHz", info->compute_units,
             strncmp(info->arch, "gfx", 3) ? "SMs" : "CUs", rate, precision, info->arch, r->source,
             info->max_clock_mhz);
}
