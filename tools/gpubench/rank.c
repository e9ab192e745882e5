/* Cluster launchers: the node-local rank picks the device. No MPI library
 * is linked; the launchers' variables are enough. */
#include "gpubench.h"

#include <stdlib.h>

int gb_local_rank(const char **variable) {
    static const char *const vars[] = {"SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK",
                                       "MPI_LOCALRANKID", "LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        char *end = NULL;
        long r = v && *v ? strtol(v, &end, 10) : -1;
        if (v && *v && end && !*end && r >= 0 && r < 1 << 20) {
            if (variable) {
                *variable = vars[i];
            }
            return (int)r;
        }
    }
    return -1;
}
