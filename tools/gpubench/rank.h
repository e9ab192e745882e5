/* The rank a launcher gave this process (rank.c), read from the variables
 * of Open MPI, MPICH, Slurm, PMI/PMIx, Kubernetes Indexed Jobs, SkyPilot
 * and torchrun-style launchers, in that order. */
#ifndef XGPU_GPUBENCH_RANK_H
#define XGPU_GPUBENCH_RANK_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gb_rank {
    const char *engine;         /* "openmpi", "mpich", "slurm", "pmi", "kubernetes", ... */
    const char *variable;       /* where `rank` came from (or local_rank, without one) */
    const char *local_variable; /* where `local_rank` came from, NULL without one */
    int rank;                   /* global rank, -1 when the engine gave none */
    int local_rank;             /* node-local rank, -1 when the engine has none */
    int size;                   /* ranks in all, -1 when unknown */
} gb_rank;

/* True when a launcher's variables were found (*r filled), else false. */
bool gb_rank_detect(gb_rank *r);
/* `text` made a safe part of a file name: characters other than
 * [A-Za-z0-9._-] become '_'; cut to fit `size`. */
void gb_file_part(const char *text, char *out, size_t size);

#endif
