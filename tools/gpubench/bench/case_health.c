/* The health facts of each device a run uses (health.h): read when the
 * device's run starts, the PCIe link again while the transfer benchmark
 * copies, kept in env->health for the result file. */
#define _POSIX_C_SOURCE 200809L
#include "measure.h"

#include <stdlib.h>
#include <string.h>

void gb_health_open(gb_env *env) {
    env->health_device = gh_open(&env->info);
    if (!env->health_device) {
        fprintf(stderr, "gpubench: %s: no health facts: out of memory\n", env->path);
    }
}

void gb_health_close(gb_env *env) {
    gh_device *d = env->health_device;
    env->health_device = NULL;
    if (!d) {
        return;
    }
    gb_health one = {malloc(sizeof *one.facts), 1};
    if (one.facts) {
        *one.facts = *gh_device_facts(d);
        /* The run's name for the device ("opencl:0"), as its rows say. */
        snprintf(one.facts->device, sizeof one.facts->device, "%s", env->path);
    }
    if (!one.facts || !gb_health_move(&env->health, &one)) {
        fprintf(stderr, "gpubench: %s: health facts lost: out of memory\n", env->path);
    }
    free(one.facts);
    gh_close(d);
}

bool gb_health_move(gb_health *into, gb_health *from) {
    if (!from->count) {
        return true;
    }
    gh_facts *grown = realloc(into->facts, (into->count + from->count) * sizeof *grown);
    if (!grown) {
        return false;
    }
    memcpy(grown + into->count, from->facts, from->count * sizeof *grown);
    into->facts = grown;
    into->count += from->count;
    from->count = 0;
    return true;
}

void gb_health_free(gb_health *h) {
    free(h->facts);
    h->facts = NULL;
    h->count = 0;
}
