/* Result files written atomically: a temporary file beside the destination,
 * created before the run (so an unwritable destination is found at once),
 * then flushed, fsync'ed and renamed over the destination. A reader sees
 * the old file or the whole new one, never half of one; a symlink planted
 * at the destination is replaced, not written through. */
#ifndef XGPU_GPUBENCH_OUTFILE_H
#define XGPU_GPUBENCH_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct gb_outfile {
    const char *path; /* the destination; "-" is standard output */
    char *tmp;        /* the temporary beside it, NULL for standard output */
    FILE *f;          /* write here between open and commit */
} gb_outfile;

/* Creates the temporary file in the destination's folder. 0, or -1 with a
 * message naming the path in `why` (the folder does not exist or is not
 * writable, the destination is a folder). Reads the umask: call before
 * starting threads. While a temporary exists, SIGINT, SIGTERM and SIGHUP
 * remove it before the process dies of the signal. */
int gb_outfile_open(gb_outfile *o, const char *path, char *why, size_t why_size);

/* Flushes and fsyncs the temporary, gives it mode 0644 & ~umask (mkstemp
 * made it 0600), renames it over the destination and fsyncs the folder.
 * Closes and forgets `o` whatever happens; on failure the temporary is
 * removed and the destination is left as it was. 0 or -1 with `why`. */
int gb_outfile_commit(gb_outfile *o, char *why, size_t why_size);

/* Removes the temporary, leaving the destination as it was. */
void gb_outfile_discard(gb_outfile *o);

#endif
