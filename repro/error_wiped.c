/* xgpu.h: xgpu_last_error() is "valid until the next xgpu call on this
 * thread that fails". A successful xgpu_program_build with the cache on
 * wipes an earlier failure (cache_prepare calls xgpu__clear_error); with
 * XGPU_CACHE=off it does not. Exit 0 when the failure survives. */
#include "common.h"

int main(void) {
    char dir[] = "/tmp/xgpu-repro-err-XXXXXX";
    if (!mkdtemp(dir)) {
        return 2;
    }
    setenv("XGPU_CACHE_DIR", dir, 1);
    r_open();
    int bad = 0;
    for (int round = 0; round < 2; round++) { /* a miss, then a hit */
        xgpu_buffer *b = NULL;
        xgpu_status st = xgpu_buffer_create(r_ctx, 0, &b); /* fails: size 0 */
        char before[256];
        snprintf(before, sizeof before, "%s", xgpu_last_error()->message);
        int r = r_build(r_source, NULL);
        const xgpu_error_info *e = xgpu_last_error();
        printf("%s build: earlier failure %s (%s) -> after: status %d \"%s\"\n",
               r == 1 ? "cached" : "compiled", xgpu_status_name(st), before, e->status, e->message);
        bad |= st != XGPU_SUCCESS && e->status == XGPU_SUCCESS;
    }
    r_close();
    printf("%s\n", bad ? "FAIL: a successful build wiped the earlier failure"
                       : "OK: the earlier failure survived");
    return bad;
}
