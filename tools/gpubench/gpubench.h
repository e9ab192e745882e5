/* gpubench's commands, which main.c dispatches to: the benchmark run
 * (run.c; the node's devices and launchers' ranks in fleet.c; its outputs
 * in output.c and output_json.c), `gpubench report` (report.c, on the
 * report/ library) and `gpubench tune` (tune.c). The benchmarks are
 * bench/'s (bench.h). */
#ifndef XGPU_GPUBENCH_H
#define XGPU_GPUBENCH_H

#include "bench.h"
#include "rank.h"

#include <xgpu.h>

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

/* The command line of a run. */
typedef struct gb_run_options {
    gb_options bench; /* what the benchmarks run */
    bool all_devices; /* --all-devices: every device at once, a thread each */
    const char *selector;
    const char *csv, *json;
    const gb_rank *rank; /* the launcher's rank, NULL when none */
    int argc;
    char **argv;
    time_t started; /* when the run began, for "started_utc"; 0: unknown */
} gb_run_options;

/* run.c */
/* `gpubench [options]`: the benchmarks on the chosen devices, the table
 * on stdout, --csv and --json written; the exit status. */
int gb_run(const gb_run_options *o);
/* The benchmarks on one device, into env's results; 0, or -1 when no
 * context or queue could be made (said on stderr). env->opt and
 * env->progress are the caller's. */
int gb_run_device(const gb_options *o, xgpu_device *dev, gb_env *env);
/* Every device, or those `selector` matches, into a calloc'ed array; 0, or
 * the exit status after saying why on stderr. */
int gb_select_devices(const char *selector, uint32_t ndev, xgpu_device ***out, uint32_t *n);

/* fleet.c */
/* Keeps in `devs` (in order) the node's physical devices: one path per
 * device (the first, when CUDA and OpenCL both reach a GPU: same UUID or
 * PCI bus id), and only GPUs and accelerators when there are any. Returns
 * how many were kept. */
uint32_t gb_node_devices(xgpu_device **devs, uint32_t n);
/* --all-devices: gb_run_device on every device at once, a thread and a
 * context each; their results appended to `into` in device order. Returns
 * how many devices ran. */
int gb_run_all(const gb_options *o, xgpu_device **devs, uint32_t n, gb_env *into);
/* Under a launcher (o->rank set): the devices this rank runs on, in
 * run[] and *nrun, and without --json the result file's name for it,
 * written in `json` (which must outlive *o). */
void gb_take_rank(gb_run_options *o, xgpu_device **run, uint32_t *nrun, char *json,
                  size_t json_size);

/* output.c */
void gb_print_table(FILE *out, const gb_results *r);
/* Both p2p matrices as tables; returns how many pairs failed. */
int gb_print_p2p(FILE *f, const gb_p2p *m);
/* Write to an open file (outfile.h: written to a temporary, renamed at the
 * end); errors show in ferror(f). */
void gb_write_csv(FILE *f, const gb_results *r);
const char *gb_host_name(void);
/* output_json.c: the results file, schema "xgpu.gpubench/1". */
void gb_write_json(FILE *f, const gb_run_options *opt, const gb_env *env);

/* report.c: gpubench report FILE... */
int gb_report(int argc, char **argv);
/* report_verdict.c: the report's verdict column from gpubench check's
 * rules, for the devices of a summary (report.h's gb_summary). */
struct gb_summary;
void gb_report_add_verdicts(struct gb_summary *s);
/* check.c: `gpubench check [FILE...]`: a verdict per device; the exit
 * status. */
int gb_check(int argc, char **argv);
/* tune.c: `gpubench tune ...`: the exit status. */
int gb_tune(int argc, char **argv);

#endif
