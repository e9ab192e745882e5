/* The attacker's half of swap_parent.sh, run as another user with a cache
 * of their own (XGPU_CACHE_DIR): builds the victim's source (public) to
 * learn its key, and a program of the same kernel name that computes
 * something else, whose binary is then put under the victim's key. */
#include "common.h"

int main(void) {
    static const char *const evil =
        "XGPU_KERNEL void affine(XGPU_GLOBAL float *y, float a, xgpu_u32 n) {\n"
        "    xgpu_u32 i = xgpu_global_id(0);\n"
        "    if (i < n) y[i] = 1234.0f;\n"
        "}\n";
    r_open();
    const char *dir = getenv("XGPU_CACHE_DIR");
    char path[600];
    if (r_build(r_source, NULL) < 0 || !r_entry(dir, path, sizeof path)) {
        return 2;
    }
    printf("%s\n", path); /* the victim's key */
    setenv("XGPU_CACHE_DIR", getenv("EVIL_BUILD_DIR"), 1);
    if (r_build(evil, NULL) < 0 || !r_entry(getenv("EVIL_BUILD_DIR"), path, sizeof path)) {
        return 2;
    }
    printf("%s\n", path); /* the other program's entry */
    r_close();
    return 0;
}
