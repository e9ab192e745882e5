/* gpuinfo internals: the text printers, the doctor and --watch. The
 * physical devices and the field table they print are tools/common's
 * (physdev.h, fields.h), shared with gpubench. */
#ifndef XGPU_GPUINFO_H
#define XGPU_GPUINFO_H

#include "physdev.h"

#include <xgpu.h>

#include <stdio.h>

/* select.c: the physical devices, all of them or those `selector` (NULL:
 * all) matches, in *all (malloc'ed, also after an error) and *n. Returns
 * 0; 1 when a term matches nothing (*n is then 0); 2 when xgpu fails, the
 * selector does not parse or memory runs out. Each said on stderr. */
int gi_devices(const char *selector, pd_device **all, uint32_t *n);

/* text.c */
void gi_print_short(FILE *out, const pd_device *devs, uint32_t n, int show_backends);
void gi_print_verbose(FILE *out, const pd_device *devs, uint32_t n);
void gi_print_backends(FILE *out);

/* doctor.c: returns the number of devices whose smoke test passed. */
uint32_t gi_doctor(FILE *out, const pd_device *devs, uint32_t n);

/* traps_hooks.c: the checks of the stack (traps.h) as the doctor's
 * section, and the JSON document (fields.h's) with its "findings". */
void gi_doctor_traps(FILE *out);
void gi_print_json(FILE *out, const pd_device *devs, uint32_t n);
/* fw_report.c: the frameworks of the Python environments against this
 * machine (fw.h), as the doctor's "frameworks" section, and as --json's
 * "python_environments" and "frameworks" members (a df_json_more_fn). */
void gi_frameworks_doctor(FILE *out);
void gi_frameworks_json(FILE *out, void *unused);

/* watch.c: gpuinfo --watch with its options in argv; the exit status. */
int gi_watch(int argc, char **argv);

/* fit.c: gpuinfo --fit MODEL with its options in argv; the exit status. */
int gi_fit(int argc, char **argv);

#endif
