/* -b p2p: bandwidth and latency of copies between every pair of devices
 * (xgpu_buffer_copy_peer), direct where the backend has a peer path and
 * staged through the host otherwise, each labelled; the diagonal is a copy
 * within one device. Every copy's result is checked once. */
#define _POSIX_C_SOURCE 200809L
#include "measure.h"
#include "device_id.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LATENCY_BYTES = 8 };

typedef struct p2p_dev {
    xgpu_device_info info;
    char path[48], uuid[64];
    xgpu_context *ctx;
    xgpu_queue *queue;
    xgpu_buffer *big, *small; /* source side and destination side alike */
    xgpu_buffer *big_dst, *small_dst;
    bool ok; /* set up: its pairs can run */
} p2p_dev;

typedef struct copy_arg {
    p2p_dev *src, *dst;
    bool big;
    size_t bytes;
    xgpu_peer_path path;
    int failed; /* calls that failed, timed ones included */
} copy_arg;

static int copy_once(void *arg) {
    copy_arg *c = arg;
    xgpu_status st =
        xgpu_buffer_copy_peer(c->src->queue, c->big ? c->src->big : c->src->small, 0, c->dst->queue,
                              c->big ? c->dst->big_dst : c->dst->small_dst, 0, c->bytes, &c->path);
    c->failed += st != XGPU_SUCCESS;
    return st == XGPU_SUCCESS ? 0 : -1;
}

static void release_dev(p2p_dev *d) {
    xgpu_buffer_release(d->big);
    xgpu_buffer_release(d->small);
    xgpu_buffer_release(d->big_dst);
    xgpu_buffer_release(d->small_dst);
    xgpu_queue_release(d->queue);
    xgpu_context_release(d->ctx);
}

/* A context, a queue and the four buffers; the sources hold `pattern`. */
static int setup_dev(p2p_dev *d, xgpu_device *dev, size_t bytes, const uint32_t *pattern) {
    xgpu_device_get_info(dev, &d->info, sizeof d->info);
    snprintf(d->path, sizeof d->path, "%s:%u", d->info.backend, d->info.backend_index);
    devid_uuid(&d->info, d->uuid, sizeof d->uuid);
    if (xgpu_context_create(dev, &d->ctx) || xgpu_queue_create(d->ctx, &d->queue) ||
        xgpu_buffer_create(d->ctx, bytes, &d->big) ||
        xgpu_buffer_create(d->ctx, bytes, &d->big_dst) ||
        xgpu_buffer_create(d->ctx, LATENCY_BYTES, &d->small) ||
        xgpu_buffer_create(d->ctx, LATENCY_BYTES, &d->small_dst) ||
        xgpu_buffer_write(d->queue, d->big, 0, pattern, bytes, true, NULL) ||
        xgpu_buffer_write(d->queue, d->small, 0, pattern, LATENCY_BYTES, true, NULL)) {
        fprintf(stderr, "gpubench: p2p: %s: %s\n", d->path, xgpu_last_error()->message);
        return -1;
    }
    return 0;
}

/* Poisons the destination, copies once and compares with the pattern;
 * false with the reason in `why`. */
static bool verify_pair(copy_arg *c, const uint32_t *pattern, uint32_t *check, char *why,
                        size_t why_size) {
    uint8_t poison = 0xA5;
    if (xgpu_buffer_fill(c->dst->queue, c->dst->big_dst, 0, c->bytes, &poison, 1, NULL) ||
        xgpu_queue_finish(c->dst->queue) || copy_once(c) != 0 ||
        xgpu_buffer_read(c->dst->queue, c->dst->big_dst, 0, check, c->bytes, true, NULL)) {
        snprintf(why, why_size, "%s", xgpu_last_error()->message);
        return false;
    }
    if (memcmp(check, pattern, c->bytes) != 0) {
        snprintf(why, why_size, "the copy's result differs from its source");
        return false;
    }
    return true;
}

/* Whether `bytes` fits every device's largest buffer and, twice over
 * (the source pattern and the read-back), half the host's memory; says
 * why not on stderr. */
static bool size_fits(xgpu_device **devs, uint32_t n, size_t bytes) {
    for (uint32_t i = 0; i < n; i++) {
        xgpu_device_info info;
        xgpu_device_get_info(devs[i], &info, sizeof info);
        if (info.max_alloc_bytes && bytes > info.max_alloc_bytes) {
            fprintf(stderr,
                    "gpubench: p2p: %zu MiB copies do not fit %s:%u, whose largest buffer is "
                    "%llu MiB; choose a smaller --size\n",
                    bytes >> 20, info.backend, info.backend_index,
                    (unsigned long long)(info.max_alloc_bytes >> 20));
            return false;
        }
    }
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double host = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
    if (host > 0 && 2.0 * (double)bytes > host / 2) {
        fprintf(stderr,
                "gpubench: p2p: %zu MiB copies need twice that in host memory, over half of "
                "this host's %.0f MiB; choose a smaller --size\n",
                bytes >> 20, host / 1048576.0);
        return false;
    }
    return true;
}

/* What every pair of one matrix shares: the devices, set up or not, the
 * copies' size, the source pattern and a buffer to read results into. */
typedef struct p2p_run {
    xgpu_device **devs;
    p2p_dev *d;
    size_t bytes;
    const uint32_t *pattern;
    uint32_t *check;
} p2p_run;

/* One pair, source s to destination t: its labels, then (both devices set
 * up) one checked copy and the timed bandwidth and latency copies. */
static void run_pair(gb_env *into, const p2p_run *run, uint32_t s, uint32_t t, gb_p2p_pair *p) {
    p2p_dev *d = run->d;
    size_t bytes = run->bytes;
    snprintf(p->src, sizeof p->src, "%s", d[s].path);
    snprintf(p->dst, sizeof p->dst, "%s", d[t].path);
    snprintf(p->src_uuid, sizeof p->src_uuid, "%s", d[s].uuid);
    snprintf(p->dst_uuid, sizeof p->dst_uuid, "%s", d[t].uuid);
    p->gbs = p->latency_us = -1;
    if (into->progress) {
        fprintf(stderr, "\r\033[Kp2p %s -> %s", p->src, p->dst);
    }
    if (!d[s].ok || !d[t].ok) {
        xgpu_peer_path way = XGPU_PEER_STAGED;
        xgpu_device_peer_path(run->devs[s], run->devs[t], &way);
        snprintf(p->path, sizeof p->path, "%s",
                 s == t ? "local" : (way == XGPU_PEER_DIRECT ? "direct" : "staged"));
        p->verified = false;
        return;
    }
    copy_arg big = {&d[s], &d[t], true, bytes, XGPU_PEER_STAGED, 0};
    copy_arg small = {&d[s], &d[t], false, LATENCY_BYTES, XGPU_PEER_STAGED, 0};
    char why[512] = "";
    p->verified = verify_pair(&big, run->pattern, run->check, why, sizeof why);
    gb_stats bw, lat;
    double first = 0;
    if (p->verified && gb_time_host(into, copy_once, &big, &bw, &first) == 0 && !big.failed) {
        p->gbs = (double)bytes / bw.median / 1e9;
    }
    if (p->verified && gb_time_host(into, copy_once, &small, &lat, &first) == 0 && !small.failed) {
        p->latency_us = lat.median * 1e6;
    }
    if (p->verified && (big.failed || small.failed)) {
        snprintf(why, sizeof why, "%s", xgpu_last_error()->message);
        p->verified = false;
    }
    snprintf(p->path, sizeof p->path, "%s",
             s == t ? "local" : (big.path == XGPU_PEER_DIRECT ? "direct" : "staged"));
    if (!p->verified) {
        fprintf(stderr, "gpubench: p2p %s -> %s: %s\n", p->src, p->dst, why);
    }
}

void gb_bench_p2p(const gb_options *o, xgpu_device **devs, uint32_t n, gb_env *into) {
    size_t bytes = (o->size ? o->size : (o->full ? 256 : 64)) << 20;
    if (!size_fits(devs, n, bytes)) {
        into->p2p_failed = true;
        return;
    }
    gb_p2p *m = calloc(1, sizeof *m);
    p2p_dev *d = calloc(n ? n : 1, sizeof *d);
    uint32_t *pattern = malloc(bytes), *check = malloc(bytes);
    gb_p2p_pair *pairs = calloc((size_t)n * n + 1, sizeof *pairs);
    if (!m || !d || !pattern || !check || !pairs) {
        fprintf(stderr, "gpubench: p2p: out of memory for %zu-byte buffers\n", bytes);
        free(m), free(d), free(pattern), free(check), free(pairs);
        into->p2p_failed = true;
        return;
    }
    uint32_t seed = 0x9e3779b9u;
    for (size_t i = 0; i < bytes / 4; i++) {
        pattern[i] = gb_rand(&seed);
    }
    /* A device that cannot take the buffers fails its own row and column
     * only (said on stderr once). */
    for (uint32_t i = 0; i < n; i++) {
        d[i].ok = setup_dev(&d[i], devs[i], bytes, pattern) == 0;
    }
    m->pairs = pairs;
    m->bytes = bytes;
    const p2p_run run = {devs, d, bytes, pattern, check};
    for (uint32_t s = 0; s < n; s++) {
        for (uint32_t t = 0; t < n; t++) {
            run_pair(into, &run, s, t, &pairs[m->count++]);
        }
    }
    if (into->progress) {
        fputs("\r\033[K", stderr);
    }
    for (uint32_t i = 0; i < n; i++) {
        release_dev(&d[i]);
    }
    free(d);
    free(pattern);
    free(check);
    free(into->p2p);
    into->p2p = m;
}
