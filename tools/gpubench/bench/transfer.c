/* -b transfer: host-to-device and device-to-host copies, pageable and
 * pinned, each a round trip checked byte for byte; the device's PCIe link
 * is read while they run (health.h's watch). */
#include "measure.h"

#include <stdlib.h>
#include <string.h>

typedef struct transfer_case {
    bool to_device;
    void *host;
    xgpu_buffer *buf;
    size_t bytes;
} transfer_case;

static int run_transfer(gb_env *env, void *arg) {
    transfer_case *t = arg;
    xgpu_status st = t->to_device
                         ? xgpu_buffer_write(env->queue, t->buf, 0, t->host, t->bytes, true, NULL)
                         : xgpu_buffer_read(env->queue, t->buf, 0, t->host, t->bytes, true, NULL);
    return st == XGPU_SUCCESS ? 0 : -1;
}

void gb_bench_transfer(gb_env *env) {
    static const double quick[] = {4096, GB_MIB, 64 * GB_MIB};
    static const double full[] = {4096, 65536, GB_MIB, 16 * GB_MIB, 256 * GB_MIB, 1024 * GB_MIB};
    const double *sizes = env->opt->full ? full : quick;
    size_t count = env->opt->full ? 6 : 3;
    for (int pinned = 0; pinned < 2; pinned++) {
        for (size_t s = 0; s < count; s++) {
            size_t bytes = (size_t)sizes[s];
            if (!gb_fits(env, (double)bytes)) {
                continue;
            }
            void *host = NULL;
            unsigned char *check = malloc(bytes);
            xgpu_buffer *buf = NULL;
            bool ok = check && xgpu_buffer_create(env->ctx, bytes, &buf) == XGPU_SUCCESS;
            if (ok) {
                ok = pinned ? xgpu_host_alloc(env->ctx, bytes, &host) == XGPU_SUCCESS
                            : (host = malloc(bytes)) != NULL;
            }
            for (int dir = 0; ok && dir < 2; dir++) {
                uint32_t seed = (uint32_t)s + 1;
                for (size_t i = 0; i < bytes; i++) {
                    ((unsigned char *)host)[i] = (unsigned char)(gb_rand(&seed) >> 24);
                }
                memcpy(check, host, bytes);
                transfer_case t = {dir == 0, host, buf, bytes};
                char shape[64], what[96];
                gb_shape_mib(shape, sizeof shape,
                             dir == 0 ? (pinned ? "h2d pinned" : "h2d pageable")
                                      : (pinned ? "d2h pinned" : "d2h pageable"),
                             (double)bytes);
                snprintf(what, sizeof what, "transfer %s", shape);
                gb_progress(env, what);
                gb_result *r = gb_add(env, "transfer", "xgpu", "u8", shape, (double)bytes);
                /* The link trains up under load: read while the copies run. */
                gh_watch_start(env->health_device);
                int timed = r ? gb_time_device(env, run_transfer, &t, &r->t, &r->first_s) : -1;
                gh_watch_stop(env->health_device);
                if (timed != 0) {
                    if (r) {
                        snprintf(r->note, sizeof r->note, "%s", xgpu_last_error()->message);
                    }
                    continue;
                }
                gb_set_bandwidth(env, r, (double)bytes);
                r->pct_peak = -1; /* the bus, not device memory */
                /* Round trip: what went to the device comes back. */
                if (dir == 0) {
                    memset(host, 0, bytes);
                    xgpu_buffer_read(env->queue, buf, 0, host, bytes, true, NULL);
                }
                if (gb_inject("transfer")) {
                    ((unsigned char *)host)[bytes / 2] ^= 1;
                }
                r->verified = memcmp(host, check, bytes) == 0;
            }
            if (pinned && host) {
                xgpu_host_free(env->ctx, host);
            } else {
                free(host);
            }
            free(check);
            xgpu_buffer_release(buf);
        }
    }
}
