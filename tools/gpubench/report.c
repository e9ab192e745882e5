/* gpubench report: merges result files from many machines into Markdown, a
 * self-contained HTML page with SVG charts, and a JSON summary. A file that
 * cannot be merged (unreadable, damaged, foreign, another major xgpu
 * version, a duplicate) is named with the reason and skipped; the report fails only
 * when no file is left. */
#define _POSIX_C_SOURCE 200809L
#include "gpubench.h"
#include "outfile.h"
#include "report.h"
#include "report_merge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Writes PREFIX.md, PREFIX.html and PREFIX.json, each whole or not at all
 * (outfile.h). 0 or the exit status. */
static int write_outputs(const char *prefix, const gb_summary *s) {
    static const char *const ext[3] = {"md", "html", "json"};
    static void (*const writers[3])(FILE *, const gb_summary *) = {
        gb_write_report_md, gb_write_report_html, gb_write_report_json};
    char paths[3][1024], why[1024];
    gb_outfile out[3];
    int opened = 0, committed = 0, rc = 2;
    for (; opened < 3; opened++) {
        snprintf(paths[opened], sizeof paths[opened], "%s.%s", prefix, ext[opened]);
        if (gb_outfile_open(&out[opened], paths[opened], why, sizeof why) != 0) {
            fprintf(stderr, "gpubench report: %s\n", why);
            goto done;
        }
    }
    for (int i = 0; i < 3; i++) {
        writers[i](out[i].f, s);
    }
    while (committed < 3) {
        /* A commit forgets its file whether or not it succeeds. */
        if (gb_outfile_commit(&out[committed++], why, sizeof why) != 0) {
            fprintf(stderr, "gpubench report: %s\n", why);
            goto done;
        }
    }
    printf("wrote %s, %s and %s (%zu results from %zu file(s), %zu skipped; %zu straggler(s), "
           "%zu throttled row(s), %zu slow link(s), %zu missing rank(s))\n",
           paths[0], paths[1], paths[2], s->t->count, s->t->nfiles, s->nskipped, s->nstragglers,
           s->nthrottled, s->nslow_links, s->nmissing_ranks);
    rc = 0;
done:
    for (int i = committed; i < opened; i++) {
        gb_outfile_discard(&out[i]);
    }
    return rc;
}

static const char report_usage[] =
    "usage: gpubench report [-o PREFIX] RESULT.json...\n"
    "\n"
    "Merges gpubench result files (from many machines, ranks or runs) into\n"
    "PREFIX.md, PREFIX.html (SVG charts, offline) and PREFIX.json\n"
    "(xgpu.gpubench-report/1); PREFIX defaults to gpubench-report. First come\n"
    "a headline and a row per device: host, model, driver, CUDA/ROCm/OpenCL\n"
    "version, xgpu version, date, best GEMM against the vendor BLAS, stream,\n"
    "transfer and launch figures. Then the stragglers (a device more than 10%\n"
    "worse than the median of identical devices, same name and arch, on a\n"
    "case), slow peer-to-peer links, ranks missing from a launcher's job and\n"
    "throttled rows, one line for those with none; then the spread per model,\n"
    "the peer-to-peer matrices and every result.\n"
    "\n"
    "Files of older 0.x xgpu versions are merged, with a note of what they\n"
    "lack. A file that cannot be merged (not gpubench's, another major xgpu\n"
    "version, damaged, a duplicate rank) is named on stderr and skipped.\n"
    "\n"
    "  -o PREFIX     the outputs' names (default gpubench-report)\n"
    "  --            ends the options (for a file whose name starts with '-')\n"
    "  -h, --help    this text\n"
    "\n"
    "Exit status: 0 when the outputs were written from at least one file; 2 on\n"
    "a usage error, when no file could be merged, or when an output could not\n"
    "be written.\n";

/* The options into *prefix and the file names to the front of argv, their
 * number in *given. Returns -1 to go on, else the exit status: 0 after
 * --help, 2 on a usage error (said on stderr). */
static int parse_options(int argc, char **argv, const char **prefix, int *given) {
    *given = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(report_usage, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "-o")) {
            if (i + 1 == argc) {
                fprintf(stderr, "gpubench report: -o needs a PREFIX\n");
                return 2;
            }
            *prefix = argv[++i];
            continue;
        }
        /* "--" ends the options: a result file may start with '-'. */
        if (!strcmp(argv[i], "--")) {
            for (i++; i < argc; i++) {
                argv[(*given)++] = argv[i];
            }
            break;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gpubench report: unknown option '%s'\n\n%s", argv[i], report_usage);
            return 2;
        }
        argv[(*given)++] = argv[i];
    }
    return -1;
}

/* The merged table summarised and written out; the exit status. */
static int summarise_and_write(const char *prefix, const gb_table *t, const gb_skip *skipped,
                               size_t nskipped) {
    gb_summary s = {0};
    int rc = 2;
    if (gb_summarize(t, &s) != 0) {
        fprintf(stderr, "gpubench report: out of memory\n");
        goto done;
    }
    s.skipped = skipped;
    s.nskipped = nskipped;
    gb_report_add_verdicts(&s);
    if (s.nmissing_ranks) {
        fprintf(stderr, "gpubench report: warning: %zu rank(s) missing: %s\n", s.nmissing_ranks,
                s.missing_ranks);
    }
    rc = write_outputs(prefix, &s);
done:
    gb_summary_free(&s);
    return rc;
}

int gb_report(int argc, char **argv) {
    const char *prefix = "gpubench-report";
    gb_table t = {0};
    gb_skip *skipped = calloc(argc > 0 ? (size_t)argc : 1, sizeof *skipped);
    uint64_t *keys = calloc(argc > 0 ? (size_t)argc : 1, sizeof *keys);
    size_t nskipped = 0;
    int given = 0, rc = 2;
    if (!skipped || !keys) {
        fprintf(stderr, "gpubench report: out of memory\n");
        goto done;
    }
    rc = parse_options(argc, argv, &prefix, &given);
    if (rc >= 0) {
        goto done;
    }
    rc = 2;
    /* The files, in order. */
    for (int i = 0; i < given; i++) {
        gb_skip *sk = &skipped[nskipped];
        sk->file = argv[i];
        if (gb_merge_file(&t, keys, argv[i], sk->why, sizeof sk->why) == 0) {
            continue;
        }
        fprintf(stderr, "gpubench report: warning: %s: skipped: %s\n", sk->file, sk->why);
        nskipped++;
    }
    if (!given) {
        fputs(report_usage, stderr);
    } else if (!t.nfiles) {
        fprintf(stderr, "gpubench report: no result file could be merged (%zu skipped)\n",
                nskipped);
    } else {
        rc = summarise_and_write(prefix, &t, skipped, nskipped);
    }
done:
    gb_table_free(&t);
    free(skipped);
    free(keys);
    return rc;
}
