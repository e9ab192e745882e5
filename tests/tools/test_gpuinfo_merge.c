/* The tools' merge of backend paths into physical devices, on made-up
 * devices: one GPU through CUDA and OpenCL is one device. */
#include "device_id.h"
#include "physdev.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static xgpu_device_info dev(const char *backend, uint32_t index, const char *pci, int uuid_byte) {
    xgpu_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.backend, sizeof d.backend, "%s", backend);
    d.backend_index = index;
    if (pci) {
        d.has_pci_bus_id = true;
        snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "%s", pci);
    }
    if (uuid_byte >= 0) {
        d.has_uuid = true;
        memset(d.uuid, uuid_byte, sizeof d.uuid);
    }
    return d;
}

static void two_paths_to_one_pci_address_are_one_device(void **state) {
    (void)state;
    xgpu_device_info infos[] = {
        dev("cuda", 0, "0000:17:00.0", 0xA1), /* GPU A through CUDA */
        dev("cuda", 1, "0000:65:00.0", 0xB2), /* GPU B through CUDA */
        dev("opencl", 0, "0000:17:00.0", -1), /* GPU A through OpenCL: PCI only */
        dev("opencl", 1, NULL, 0xB2),         /* GPU B through OpenCL: UUID only */
        dev("opencl", 2, NULL, -1),           /* pocl: neither */
    };
    uint32_t group[5];
    assert_int_equal(devid_merge(infos, 5, group), 3);
    assert_int_equal(group[0], 0);
    assert_int_equal(group[1], 1);
    assert_int_equal(group[2], 0);
    assert_int_equal(group[3], 1);
    assert_int_equal(group[4], 2);
}

static void uuid_decides_before_pci(void **state) {
    (void)state;
    /* MIG instances: one PCI address, different UUIDs. */
    xgpu_device_info infos[] = {
        dev("cuda", 0, "0000:17:00.0", 0x01),
        dev("opencl", 0, "0000:17:00.0", 0x02),
    };
    uint32_t group[2];
    assert_int_equal(devid_merge(infos, 2, group), 2);
}

static void devices_of_one_backend_never_merge(void **state) {
    (void)state;
    /* Two identical boards whose driver reports no address: still two. */
    xgpu_device_info infos[] = {
        dev("opencl", 0, NULL, -1), dev("opencl", 1, NULL, -1),
        dev("cuda", 0, "0000:01:00.0", 0x11),
        dev("cuda", 1, "0000:01:00.0", 0x11), /* a driver bug: same ids twice */
    };
    uint32_t group[4];
    assert_int_equal(devid_merge(infos, 4, group), 4);
}

/* A selector that names any path of a GPU selects the GPU; order kept. */
static void any_path_selects_the_physical_device(void **state) {
    (void)state;
    /* Handles are only compared, never used: addresses of a local array. */
    char handles[4];
    xgpu_device *p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = (xgpu_device *)&handles[i];
    }
    pd_device devs[3];
    memset(devs, 0, sizeof devs);
    devs[0].index = 0, devs[0].path_count = 2, devs[0].devices[0] = p[0], devs[0].devices[1] = p[2];
    devs[1].index = 1, devs[1].path_count = 1, devs[1].devices[0] = p[1];
    devs[2].index = 3, devs[2].path_count = 1, devs[2].devices[0] = p[3];
    xgpu_device *chosen[] = {p[2], p[3]}; /* opencl:0 of GPU 0, and the CPU */
    assert_int_equal(pd_select(devs, 3, chosen, 2), 2);
    assert_int_equal(devs[0].index, 0);
    assert_int_equal(devs[1].index, 3);
    assert_int_equal(pd_select(devs, 2, NULL, 0), 0);
}

static void nothing_merges_nothing(void **state) {
    (void)state;
    assert_int_equal(devid_merge(NULL, 0, NULL), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_paths_to_one_pci_address_are_one_device),
        cmocka_unit_test(uuid_decides_before_pci),
        cmocka_unit_test(devices_of_one_backend_never_merge),
        cmocka_unit_test(any_path_selects_the_physical_device),
        cmocka_unit_test(nothing_merges_nothing),
    };
    return cmocka_run_group_tests_name("gpuinfo_merge", tests, NULL, NULL);
}
