/* -b transfer: at each size, host-to-device and device-to-host copies from
 * pageable and from pinned memory, the four timed in the same rounds
 * (gb_time_rounds) so that the pinned rows' ratio to the pageable ones
 * compares one stretch of the link; each then checked on one more copy
 * into a poisoned destination. The device's PCIe link is read while they
 * run (health.h's watch). */
#include "measure.h"

#include <stdlib.h>
#include <string.h>

enum { XFER_CASES = 4, XFER_POISON = 0xa5 };

typedef struct transfer_case {
    bool to_device;
    bool pinned;
    unsigned char *host; /* holds the size's pattern between runs */
    xgpu_buffer *buf;    /* shared by the four: every copy keeps it the pattern */
    size_t bytes;
} transfer_case;

static int run_transfer(gb_env *env, void *arg) {
    transfer_case *t = arg;
    xgpu_status st = t->to_device
                         ? xgpu_buffer_write(env->queue, t->buf, 0, t->host, t->bytes, true, NULL)
                         : xgpu_buffer_read(env->queue, t->buf, 0, t->host, t->bytes, true, NULL);
    return st == XGPU_SUCCESS ? 0 : -1;
}

/* The size's bytes, the same for every seed's caller: writes them, or
 * says whether p holds them. */
static void pattern_fill(unsigned char *p, size_t bytes, uint32_t seed) {
    for (size_t i = 0; i < bytes; i++) {
        p[i] = (unsigned char)(gb_rand(&seed) >> 24);
    }
}

static bool pattern_holds(const unsigned char *p, size_t bytes, uint32_t seed) {
    for (size_t i = 0; i < bytes; i++) {
        if (p[i] != (unsigned char)(gb_rand(&seed) >> 24)) {
            return false;
        }
    }
    return true;
}

/* One more copy of case t, into a destination poisoned first, and what
 * arrived read back on the host. Leaves t->host and t->buf the pattern
 * again. false with r's note set when a call fails. */
static bool check_copy(gb_env *env, const transfer_case *t, gb_result *r, uint32_t seed) {
    static const unsigned char poison = XFER_POISON;
    xgpu_status st = XGPU_SUCCESS;
    if (t->to_device) {
        st = xgpu_buffer_fill(env->queue, t->buf, 0, t->bytes, &poison, 1, NULL);
        if (st == XGPU_SUCCESS) {
            st = xgpu_buffer_write(env->queue, t->buf, 0, t->host, t->bytes, true, NULL);
        }
    } else {
        /* The device's copy is the pattern (written from a host copy that
         * holds it), and the host's is poisoned. */
        st = xgpu_buffer_write(env->queue, t->buf, 0, t->host, t->bytes, true, NULL);
    }
    if (st == XGPU_SUCCESS) {
        memset(t->host, XFER_POISON, t->bytes);
        st = xgpu_buffer_read(env->queue, t->buf, 0, t->host, t->bytes, true, NULL);
    }
    if (st != XGPU_SUCCESS) {
        snprintf(r->note, sizeof r->note, "not checked: %s", xgpu_last_error()->message);
        pattern_fill(t->host, t->bytes, seed);
        return false;
    }
    if (gb_inject("transfer")) {
        t->host[t->bytes / 2] ^= 1;
    }
    r->verified = pattern_holds(t->host, t->bytes, seed);
    if (!r->verified) {
        pattern_fill(t->host, t->bytes, seed);
    }
    return true;
}

/* The four rows of one size: their host copies (pinned through the
 * context: NULL with the reason in pinned_why when it cannot be had). */
typedef struct transfer_size {
    size_t bytes;
    uint32_t seed;
    unsigned char *pageable, *pinned;
    xgpu_buffer *buf;
    char pinned_why[256];
} transfer_size;

static const char *case_name(const transfer_case *t) {
    return t->to_device ? (t->pinned ? "h2d pinned" : "h2d pageable")
                        : (t->pinned ? "d2h pinned" : "d2h pageable");
}

/* Rows and cases for one size; a case whose memory could not be had gets
 * its row with the reason and no timing. Returns how many cases to time. */
static size_t add_cases(gb_env *env, transfer_size *z, const char *buf_why, transfer_case *cases,
                        gb_result **rows, gb_timed *timed) {
    size_t n = 0;
    for (int k = 0; k < XFER_CASES; k++) {
        transfer_case t = {k % 2 == 0, k >= 2, k >= 2 ? z->pinned : z->pageable, z->buf, z->bytes};
        char shape[64];
        gb_shape_mib(shape, sizeof shape, case_name(&t), (double)z->bytes);
        gb_result *r = gb_add(env, "transfer", "xgpu", "u8", shape, (double)z->bytes);
        if (!r) {
            continue;
        }
        r->pct_peak = -1; /* the bus, not device memory */
        if (buf_why) {
            snprintf(r->note, sizeof r->note, "%s", buf_why);
            continue;
        }
        if (!t.host) {
            snprintf(r->note, sizeof r->note, "%s",
                     t.pinned ? z->pinned_why : "out of host memory for the pageable copy");
            continue;
        }
        cases[n] = t;
        rows[n] = r;
        timed[n] =
            (gb_timed){.fn = run_transfer, .arg = &cases[n], .st = &r->t, .first_s = &r->first_s};
        n++;
    }
    return n;
}

/* The pinned rows' note: their rate against the pageable copy's the same
 * way, from the same rounds. */
static void note_pinned_ratio(const transfer_case *cases, gb_result *const *rows, size_t n) {
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            if (cases[i].pinned && !cases[j].pinned && cases[i].to_device == cases[j].to_device &&
                rows[i]->verified && rows[j]->verified && rows[j]->rate > 0 && !rows[i]->note[0]) {
                snprintf(rows[i]->note, sizeof rows[i]->note, "%.2fx the pageable copy",
                         rows[i]->rate / rows[j]->rate);
            }
        }
    }
}

static void bench_size(gb_env *env, size_t bytes, uint32_t seed) {
    transfer_size z = {bytes, seed, malloc(bytes), NULL, NULL, ""};
    char buf_why[256] = "";
    if (xgpu_buffer_create(env->ctx, bytes, &z.buf) != XGPU_SUCCESS) {
        snprintf(buf_why, sizeof buf_why, "%s", xgpu_last_error()->message);
    } else if (gb_inject("transfer-pinned")) { /* the tests' stand-in for a refusal */
        snprintf(z.pinned_why, sizeof z.pinned_why, "no pinned memory: refused (%s)",
                 "XGPU_GPUBENCH_INJECT=transfer-pinned");
    } else if (xgpu_host_alloc(env->ctx, bytes, (void **)&z.pinned) != XGPU_SUCCESS) {
        z.pinned = NULL;
        snprintf(z.pinned_why, sizeof z.pinned_why, "no pinned memory: %s",
                 xgpu_last_error()->message);
    }
    if (z.pageable) {
        pattern_fill(z.pageable, bytes, seed);
    }
    if (z.pinned) {
        pattern_fill(z.pinned, bytes, seed);
    }
    transfer_case cases[XFER_CASES];
    gb_result *rows[XFER_CASES];
    gb_timed timed[XFER_CASES];
    size_t n = add_cases(env, &z, buf_why[0] ? buf_why : NULL, cases, rows, timed);
    char shape[64], what[128];
    gb_shape_mib(shape, sizeof shape, "", (double)bytes);
    snprintf(what, sizeof what, "transfer %s: pageable and pinned, both ways", shape);
    gb_progress(env, what);
    /* The link trains up under load: read while the copies run. */
    gh_watch_start(env->health_device);
    gb_time_rounds(env, timed, n);
    gh_watch_stop(env->health_device);
    for (size_t i = 0; i < n; i++) {
        if (timed[i].rc) {
            snprintf(rows[i]->note, sizeof rows[i]->note, "%s", timed[i].why);
            continue;
        }
        gb_set_bandwidth(env, rows[i], (double)bytes);
        rows[i]->pct_peak = -1;
        check_copy(env, &cases[i], rows[i], seed);
    }
    note_pinned_ratio(cases, rows, n);
    if (z.pinned) {
        xgpu_host_free(env->ctx, z.pinned);
    }
    free(z.pageable);
    xgpu_buffer_release(z.buf);
}

void gb_bench_transfer(gb_env *env) {
    static const double quick[] = {4096, GB_MIB, 64 * GB_MIB};
    static const double full[] = {4096, 65536, GB_MIB, 16 * GB_MIB, 256 * GB_MIB, 1024 * GB_MIB};
    double one = (double)env->opt->size * GB_MIB;
    const double *sizes = env->opt->size ? &one : (env->opt->full ? full : quick);
    size_t count = env->opt->size ? 1 : (env->opt->full ? 6 : 3);
    for (size_t s = 0; s < count; s++) {
        if (gb_fits(env, sizes[s])) {
            bench_size(env, (size_t)sizes[s], (uint32_t)s + 1);
        }
    }
}
