/* The devices of a node as a launcher's ranks and --all-devices see them,
 * and the run on all of them at once: one thread per device, each with its
 * own context and queue, so that thermal, power and PCIe-topology problems
 * a one-device run hides show up. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"
#include "device_id.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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
    gb_options *opt;
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

int gb_run_all(gb_options *opt, xgpu_device **devs, uint32_t n, gb_env *into) {
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
    }
    if (lost) {
        fprintf(stderr, "gpubench: out of memory: some devices' results are missing\n");
    }
    free(w);
    return ran;
}
