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

/* The machine gpuinfo's checks are given: two GPUs on buses 01 and 41,
 * driver 580.65.06
 * (FAKE_NVML_KERNEL is the kernel module's version that matches it and
 * FAKE_NVML_NEWER the user-space one of an upgrade not rebooted into). */
#define FAKE_NVML_GPU0 "GPU-6f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
#define FAKE_NVML_GPU1 "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"
#define FAKE_NVML_KERNEL "580.65.06"
#define FAKE_NVML_NEWER "580.82.07"
static inline void fake_nvml_machine(void) {
    setenv("FAKE_NVML_COUNT", "2", 1);
    setenv("FAKE_NVML_UUIDS", FAKE_NVML_GPU0 "," FAKE_NVML_GPU1, 1);
    setenv("FAKE_NVML_BUSES", "0000:01:00.0,0000:41:00.0", 1);
    setenv("FAKE_NVML_DRIVER", FAKE_NVML_KERNEL, 1);
}

/* MIG on GPU 0 with two of its seven slots used. */
#define FAKE_NVML_MIG0 "MIG-11111111-2222-3333-4444-555555555555"
#define FAKE_NVML_MIG1 "MIG-66666666-7777-8888-9999-aaaaaaaaaaaa"
static inline void fake_nvml_mig(void) {
    setenv("FAKE_NVML_MIG", "1,1", 1);
    setenv("FAKE_NVML_MIG_MAX", "7", 1);
    setenv("FAKE_NVML_MIG_UUIDS", FAKE_NVML_MIG0 "," FAKE_NVML_MIG1, 1);
}

#endif
