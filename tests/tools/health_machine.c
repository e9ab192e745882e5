/* The made-up machine of the health facts' tests (health_machine.h). */
#define _GNU_SOURCE
#include "health_machine.h"
#include "xt_tree.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

extern char **environ;

char hm_root[PATH_MAX];

int hm_setup(void **state) {
    (void)state;
    /* Every FAKE_* variable a test may have set, names first: unsetenv
     * changes environ. */
    char names[64][64];
    size_t n = 0;
    for (char **e = environ; *e && n < 64; e++) {
        if (!strncmp(*e, "FAKE_", 5)) {
            snprintf(names[n++], sizeof names[0], "%.*s", (int)strcspn(*e, "="), *e);
        }
    }
    for (size_t i = 0; i < n; i++) {
        unsetenv(names[i]);
    }
    unsetenv("XGPU_TELEMETRY_MATCH");
    setenv("XGPU_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("XGPU_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
    snprintf(hm_root, sizeof hm_root, "%s/health-XXXXXX", HEALTH_TREE_DIR);
    if (!mkdtemp(hm_root)) {
        return -1;
    }
    setenv("XGPU_TELEMETRY_HOST_ROOT", hm_root, 1);
    return 0;
}

int hm_teardown(void **state) {
    (void)state;
    unsetenv("XGPU_TELEMETRY_HOST_ROOT");
    return xt_tree_remove(hm_root);
}

void hm_use_nvml(const char *variant) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/libnvidia-ml.so.1", FAKE_NVML_DIR, variant);
    setenv("XGPU_NVML_LIBRARY", path, 1);
}

void hm_use_rsmi(const char *variant) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/librocm_smi64.so", FAKE_RSMI_DIR, variant);
    setenv("XGPU_ROCM_SMI_LIBRARY", path, 1);
    /* ROCm SMI is started only where sysfs shows an AMD or Hygon card. */
    hm_put("sys/class/drm/card0/device/vendor", "0x1002\n");
}

void hm_reset_nvml_sequences(void) {
    void *lib = dlopen(getenv("XGPU_NVML_LIBRARY"), RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    void *sym = dlsym(lib, "fake_nvml_health_reset");
    assert_non_null(sym);
    void (*reset)(void);
    memcpy(&reset, &sym, sizeof sym);
    reset();
    /* Kept loaded: telemetry never unloads the library either. */
}

void hm_put(const char *rel, const char *text) {
    char path[PATH_MAX], dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", rel);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        assert_int_equal(xt_tree_dir(hm_root, dir), 0);
    }
    assert_int_equal(xt_tree_path(hm_root, rel, path), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

void hm_link(const char *bus, const char *cur_speed, const char *cur_width, const char *max_speed,
             const char *max_width) {
    const char *files[4] = {"current_link_speed", "current_link_width", "max_link_speed",
                            "max_link_width"};
    const char *texts[4] = {cur_speed, cur_width, max_speed, max_width};
    for (int i = 0; i < 4; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/%s", bus, files[i]);
        if (texts[i]) {
            hm_put(rel, texts[i]);
        }
    }
}

void hm_assert_num(gh_num n, uint64_t want) {
    if (!n.known || n.value != want) {
        fail_msg("got %s%llu, want %llu", n.known ? "" : "unknown ", (unsigned long long)n.value,
                 (unsigned long long)want);
    }
}

void hm_assert_unknown(gh_num n) {
    if (n.known) {
        fail_msg("got %llu, want unknown", (unsigned long long)n.value);
    }
}

void hm_assert_flag(gh_flag f, bool want) {
    if (!f.known || f.value != want) {
        fail_msg("got %s, want %s", !f.known ? "unknown" : (f.value ? "true" : "false"),
                 want ? "true" : "false");
    }
}

void hm_assert_flag_unknown(gh_flag f) {
    if (f.known) {
        fail_msg("got %s, want unknown", f.value ? "true" : "false");
    }
}

cJSON *hm_json(const gh_facts *h) {
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    gh_write_json(f, h);
    assert_int_equal(fclose(f), 0);
    cJSON *root = cJSON_Parse(text);
    if (!root) {
        fail_msg("not JSON:\n%s", text);
    }
    free(text);
    return root;
}

const cJSON *hm_key(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        fail_msg("no key '%s'", key);
    }
    return v;
}
