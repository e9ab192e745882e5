/* The report's opening: a headline (how many devices, hosts and models,
 * the files' dates) and a row per device path with where it ran (host,
 * model, backend, driver, CUDA/ROCm/OpenCL version, xgpu version, date)
 * and its headline figures. Filled by gb_summarize (devices.c); each
 * writer prints it first. A row is one host, rank, device path and UUID of
 * one model with at least one xgpu row (the CPU library's "host" rows are
 * not one); the headline counts devices by host and UUID, so one GPU seen
 * through CUDA and OpenCL is one device of two rows ("1 device(s) (2
 * device paths)"). */
#ifndef XGPU_GPUBENCH_REPORT_DEVICES_H
#define XGPU_GPUBENCH_REPORT_DEVICES_H

#include "report_read.h"

#include <stddef.h>

/* The verdict's room (gb_report_set_verdict cuts longer texts). */
#define GB_VERDICT_MAX 16
#define GB_VERDICT_WHY_MAX 256

typedef struct gb_device_row {
    const gb_row *key; /* one of its rows: host, rank, device, UUID, model */
    size_t begin, end; /* its rows in gb_summary.by_device */
    size_t file;       /* the first file with its rows */
    char arch[64];     /* the rows' device_arch, else gpuinfo's arch; "" */
    char backend[16];  /* "cuda", "hip", "opencl" (gpuinfo's, else the path's) */
    char driver[64];   /* gpuinfo's driver_version; "" when the file has none */
    char api[96];      /* "CUDA 13.0", "HIP 6.2.41133", "OpenCL 3.0 PoCL"; "" */
    char xgpu[32];     /* the first file's xgpu_version; "" */
    char started[32];  /* the earliest started_utc of its files; "" when none */
    /* The first row before it of another backend with its host and UUID:
       the same GPU seen through another path (cuda:0 for opencl:0); NULL */
    const struct gb_device_row *same_as;
    /* The headline figures; -1 where its files have no such row. */
    double gemm;                          /* the best verified xgpu GEMM, GFLOP/s */
    char gemm_dtype[8];                   /* its dtype */
    double gemm_ratio;                    /* gemm / the vendor library's rate for the same file, */
    char gemm_vendor[16];                 /* dtype and shape ("cublas", "rocblas", "clblast") */
    double stream;                        /* GB/s: the best triad, else the best copy */
    char stream_kernel[8];                /* "triad" or "copy" */
    double transfer;                      /* GB/s: the best pinned host<->device copy */
    double launch;                        /* us: the round trip (else the shortest launch row) */
    char verdict[GB_VERDICT_MAX];         /* "" until set: no verdict column */
    char verdict_why[GB_VERDICT_WHY_MAX]; /* one line for the reader */
} gb_device_row;

typedef struct gb_headline {
    size_t devices; /* physical devices: by host and UUID (gb_count_gpus) */
    size_t paths;   /* rows of the device table: one per device path */
    size_t hosts, models;
    char first[32], last[32]; /* the earliest and latest started_utc; "" */
    size_t undated;           /* merged files without a started_utc */
} gb_headline;

/* Figures shown with their unit and an em dash for none ("—"), as the
 * writers print them: "22.95 TFLOP/s", "0.46x", "2994 GB/s", "10.2 us",
 * three significant digits or more. */
void gb_fmt_flops(double gflops, char *out, size_t size);
void gb_fmt_gbs(double gbs, char *out, size_t size);
void gb_fmt_us(double us, char *out, size_t size);
void gb_fmt_ratio(double ratio, char *out, size_t size);
/* What the table shows for no figure: an em dash. */
#define GB_NONE "\xe2\x80\x94"
/* A started_utc as "2026-12-01 23:45 UTC", GB_NONE for "". */
void gb_date_text(const char *utc, char *out, size_t size);
/* The host, with the rank when there is one: "node-a (rank 3)". */
void gb_host_text(const gb_row *r, char *out, size_t size);
/* The headline as one sentence, without markup. */
void gb_headline_text(const gb_headline *h, char *out, size_t size);

#endif
