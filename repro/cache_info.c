/* Prints xgpu_cache_get_info for the environment it runs in. */
#include <stdio.h>
#include <xgpu.h>

int main(void) {
    xgpu_cache_info i;
    if (xgpu_cache_get_info(&i)) {
        return 2;
    }
    printf("enabled=%d dir='%s' reason='%s' entries=%llu bytes=%llu limit=%llu\n", i.enabled, i.dir,
           i.reason, (unsigned long long)i.entries, (unsigned long long)i.bytes,
           (unsigned long long)i.limit_bytes);
    return 0;
}
