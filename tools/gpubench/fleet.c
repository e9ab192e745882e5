/* The devices of a node as a launcher's ranks and --all-devices see them,
 * a rank's device and result file, and the run on all of them at once:
 * one thread per device, each with its own context and queue, so that
 * thermal, power and PCIe-topology problems a one-device run hides show
 * up. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"
#include "device_id.h"

#include <limits.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool is_gpu(const xgpu_device_info *info) {
    return info->type == XGPU_DEVICE_TYPE_GPU || info->type == XGPU_DEVICE_TYPE_ACCELERATOR;
}

/* One path per physical device: the tools' grouping (devid_merge), the first
 * path of each group. */
uint32_t gb_node_devices(xgpu_device **devs, uint32_t n) {
    xgpu_device_info *info = calloc(n ? n : 1, sizeof *info);
    uint32_t *group = calloc(n ? n : 1, sizeof *group);
    bool *seen = calloc(n ? n : 1, sizeof *seen);
    if (!info || !group || !seen) {
        free(info), free(group), free(seen);
        return n; /* unfiltered rather than none */
    }
    bool any_gpu = false;
    for (uint32_t i = 0; i < n; i++) {
        xgpu_device_get_info(devs[i], &info[i], sizeof info[i]);
        any_gpu |= is_gpu(&info[i]);
    }
    devid_merge(info, n, group);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!seen[group[i]] && (!any_gpu || is_gpu(&info[i]))) {
            devs[kept++] = devs[i];
        }
        seen[group[i]] = true;
    }
    free(info), free(group), free(seen);
    return kept;
}

typedef struct worker {
    const gb_options *opt;
    xgpu_device *device;
    gb_env env;
    int rc;
    pthread_t thread;
    bool started;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    w->rc = gb_run_device(w->opt, w->device, &w->env);
    return NULL;
}

int gb_run_all(const gb_options *opt, xgpu_device **devs, uint32_t n, gb_env *into) {
    worker *w = calloc(n ? n : 1, sizeof *w);
    if (!w) {
        fprintf(stderr, "gpubench: out of memory\n");
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        w[i].opt = opt;
        w[i].device = devs[i];
        w[i].env.opt = opt;
        w[i].rc = -1;
        /* Progress lines of several threads would overwrite each other. */
        w[i].env.progress = false;
        int e = pthread_create(&w[i].thread, NULL, work, &w[i]);
        w[i].started = e == 0;
        if (e) {
            fprintf(stderr, "gpubench: device %u: cannot start a thread: %s\n", i, strerror(e));
        }
    }
    int ran = 0;
    bool lost = false;
    for (uint32_t i = 0; i < n; i++) {
        if (w[i].started) {
            pthread_join(w[i].thread, NULL);
        }
        ran += w[i].rc == 0;
        lost |= !gb_results_move(&into->results, &w[i].env.results);
        gb_results_free(&w[i].env.results);
        lost |= !gb_health_move(&into->health, &w[i].env.health);
        gb_health_free(&w[i].env.health);
    }
    if (lost) {
        fprintf(stderr, "gpubench: out of memory: some devices' results are missing\n");
    }
    free(w);
    return ran;
}

/* Under a launcher (o->rank set): without -d and --all-devices, the
 * device of this node's local rank (local rank mod the node's devices,
 * gb_node_devices) replaces run[] with that one device; --all-devices
 * keeps the node's devices. Without --json, results go to
 * gpubench-HOST-rRANK-UUID.json in the working folder ("node" for the UUID
 * when several devices run), its path written in `json`, which must
 * outlive *o. */
void gb_take_rank(gb_run_options *o, xgpu_device **run, uint32_t *nrun, char *json,
                  size_t json_size) {
    const gb_rank *r = o->rank;
    if (!r) {
        return;
    }
    fprintf(stderr, "gpubench: %s launcher: rank %d (%s)", r->engine, r->rank,
            r->rank >= 0 ? r->variable : "none");
    if (r->local_rank >= 0) {
        fprintf(stderr, ", local rank %d (%s)", r->local_rank, r->local_variable);
    }
    fputs("\n", stderr);
    bool pick = !o->selector && !o->all_devices && r->local_rank >= 0;
    if ((pick || (o->all_devices && !o->selector)) && *nrun) {
        *nrun = gb_node_devices(run, *nrun);
    }
    if (pick && *nrun) {
        run[0] = run[(uint32_t)r->local_rank % *nrun];
        xgpu_device_info info;
        xgpu_device_get_info(run[0], &info, sizeof info);
        fprintf(stderr, "gpubench: local rank %d: device %s:%u (%u of this node's %u)\n",
                r->local_rank, info.backend, info.backend_index, (uint32_t)r->local_rank % *nrun,
                *nrun);
        *nrun = 1;
    }
    if (o->json && r->size != 1) {
        fprintf(stderr,
                "gpubench: warning: every rank writes --json %s (the last one wins); leave "
                "--json out for a file per rank\n",
                o->json);
    }
    if (o->json || !*nrun) {
        return;
    }
    char id[64] = "node";
    if (*nrun == 1) {
        xgpu_device_info info;
        xgpu_device_get_info(run[0], &info, sizeof info);
        devid_uuid(&info, id, sizeof id);
        if (!*id) { /* no UUID: the path, unique on the host */
            snprintf(id, sizeof id, "%s%u", info.backend, info.backend_index);
        }
    }
    /* Said in full: a job's working folder is easy to mistake. */
    char cwd[PATH_MAX], host[128], uuid[64];
    gb_file_part(gb_host_name(), host, sizeof host);
    gb_file_part(id, uuid, sizeof uuid);
    /* A local rank alone ("l3") must not take a global rank's name. */
    snprintf(json, json_size, "%s/gpubench-%s-%s%d-%s.json", getcwd(cwd, sizeof cwd) ? cwd : ".",
             host, r->rank >= 0 ? "r" : "l", r->rank >= 0 ? r->rank : r->local_rank, uuid);
    o->json = json;
    fprintf(stderr, "gpubench: results to %s\n", json);
}
