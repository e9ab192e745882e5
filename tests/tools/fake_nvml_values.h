/* The values the telemetry tests give the fake NVML (fake_nvml.c reads
 * them from the environment at each call): one set, so that the tests of
 * the library and of gpuinfo --watch expect the same figures. */
#ifndef XGPU_TEST_FAKE_NVML_VALUES_H
#define XGPU_TEST_FAKE_NVML_VALUES_H

#include <stdlib.h>

/* SM 1410 of 1980 MHz, memory 2619 MHz, 250.5 of 700 W, 61 C, 87%, 3 GiB. */
static inline void fake_nvml_values(void) {
    setenv("FAKE_NVML_SM", "1410", 1);
    setenv("FAKE_NVML_SM_MAX", "1980", 1);
    setenv("FAKE_NVML_MEM", "2619", 1);
    setenv("FAKE_NVML_POWER_MW", "250500", 1);
    setenv("FAKE_NVML_LIMIT_MW", "700000", 1);
    setenv("FAKE_NVML_TEMP", "61", 1);
    setenv("FAKE_NVML_UTIL", "87", 1);
    setenv("FAKE_NVML_MEM_USED", "3221225472", 1);
}

#endif
