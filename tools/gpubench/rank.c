/* The rank a launcher gave this process, from its environment alone: no
 * MPI library is linked. The most specific engine wins: an MPI launcher
 * run inside a Slurm allocation sees Slurm's variables of the batch step
 * too, so the MPI ones are read first. */
#include "gpubench.h"

#include <stdlib.h>
#include <string.h>

/* One engine: the variables of its global rank, node-local rank and world
 * size (NULL where the engine has none); `needs_local`: only with its
 * local rank (PMI_RANK alone is bare PMI, not MPICH). */
typedef struct engine {
    const char *name, *rank, *local_rank, *size;
    bool needs_local;
} engine;

static const engine engines[] = {
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE",
     false},
    /* MPICH's Hydra (and Intel MPI) sets PMI_RANK beside MPI_LOCALRANKID. */
    {"mpich", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE", true},
    /* srun sets PMI_RANK or PMIX_RANK too (--mpi=pmi2, pmix) and adds the
     * local rank, so Slurm comes before bare PMI. */
    {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", false},
    {"pmi", "PMIX_RANK", NULL, "PMIX_SIZE", false},
    {"pmi", "PMI_RANK", NULL, "PMI_SIZE", false},
    /* An Indexed Job: one pod per index, a node's GPUs within the pod. */
    {"kubernetes", "JOB_COMPLETION_INDEX", NULL, NULL, false},
    {"skypilot", "SKYPILOT_NODE_RANK", NULL, "SKYPILOT_NUM_NODES", false},
    /* torchrun and many Python launchers. */
    {"generic", "RANK", "LOCAL_RANK", "WORLD_SIZE", false},
};

/* A variable's value as a rank: a decimal in [0, 2^20), else -1 (unset,
 * empty or malformed alike). */
static int rank_value(const char *name) {
    const char *v = name ? getenv(name) : NULL;
    if (!v || *v < '0' || *v > '9') {
        return -1;
    }
    char *end = NULL;
    long r = strtol(v, &end, 10);
    return *end || r >= 1 << 20 ? -1 : (int)r;
}

bool gb_rank_detect(gb_rank *out) {
    memset(out, 0, sizeof *out);
    out->rank = out->local_rank = out->size = -1;
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
        const engine *e = &engines[i];
        int rank = rank_value(e->rank);
        /* A node-local rank alone (LOCAL_RANK without RANK) still names
         * this process's device. */
        int local = rank_value(e->local_rank);
        if ((rank < 0 && local < 0) || (e->needs_local && local < 0)) {
            continue;
        }
        out->engine = e->name;
        out->variable = rank >= 0 ? e->rank : e->local_rank;
        out->rank = rank;
        out->local_rank = local;
        out->local_variable = local >= 0 ? e->local_rank : NULL;
        int size = rank_value(e->size);
        out->size = size > 0 ? size : -1;
        return true;
    }
    return false;
}

void gb_file_part(const char *text, char *out, size_t size) {
    size_t n = 0;
    for (const char *c = text; *c && n + 1 < size; c++) {
        bool keep = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                    (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' || *c == '_';
        out[n++] = keep ? *c : '_';
    }
    if (size) {
        out[n] = '\0';
    }
}
