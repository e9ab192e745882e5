/* A made-up machine for the health facts' tests (test_health*.c): a host
 * tree under the build folder (XGPU_TELEMETRY_HOST_ROOT) that each test
 * fills with sysfs, /proc and /dev/kmsg files, the fake NVML and ROCm SMI
 * chosen by variant, and assertions on the facts and their JSON. */
#ifndef XGPU_TEST_HEALTH_MACHINE_H
#define XGPU_TEST_HEALTH_MACHINE_H

#include "health.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

extern char hm_root[PATH_MAX];

/* CMocka setup and teardown: no FAKE_* variable set, both libraries
 * missing, XGPU_TELEMETRY_MATCH unset, a new empty host tree. */
int hm_setup(void **state);
int hm_teardown(void **state);

/* The fake library of that variant ("full", "partial", "noinit"). */
void hm_use_nvml(const char *variant);
void hm_use_rsmi(const char *variant);
/* Restarts the fake NVML's sequences of link readings. */
void hm_reset_nvml_sequences(void);

/* The host file root/rel holding `text` (its folders made). */
void hm_put(const char *rel, const char *text);
/* /sys/bus/pci/devices/<bus>/'s link files (NULL: not written). */
void hm_link(const char *bus, const char *cur_speed, const char *cur_width, const char *max_speed,
             const char *max_width);

void hm_assert_num(gh_num n, uint64_t want);
void hm_assert_unknown(gh_num n);
void hm_assert_flag(gh_flag f, bool want);
void hm_assert_flag_unknown(gh_flag f);

/* The facts' JSON parsed back (the caller deletes it); fails the test
 * when it is not valid JSON. */
cJSON *hm_json(const gh_facts *h);
/* o[key], failing the test when it is missing. */
const cJSON *hm_key(const cJSON *o, const char *key);

#endif
