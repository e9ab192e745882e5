/* gpuinfo's framework layer: what the Python environments a user would run
 * have installed (torch, TensorFlow, JAX, CuPy, Paddle, NVIDIA's CUDA
 * wheels), what each was built for, and whether this machine's driver
 * and GPU can run it. Read from the files the wheels ship, without running
 * Python. Private to gpuinfo (and its tests):
 *
 *   fw_pyliteral.c  the Python literals of generated files (version.py)
 *   fw_site.c       one site-packages folder: dist-info, version files
 *   fw_cuda.c       NVIDIA's driver table, PyTorch's wheel indexes
 *   fw_host.c       this machine's driver, runtime and GPUs, from xgpu
 *   fw_rules.c      the verdicts: each framework against the host
 *   fw_report.c     the doctor's section and the JSON members */
#ifndef XGPU_GPUINFO_FW_H
#define XGPU_GPUINFO_FW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* src into dst[size], cut to fit: the one way these files copy a string. */
static inline void fw_copy(char *dst, size_t size, const char *src) {
    size_t n = strlen(src);
    if (n >= size) {
        n = size - 1;
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* ---------------------------------------------------------------------------
 * fw_pyliteral.c: the top-level assignments of a generated Python file
 * (`__version__ = '2.8.0'`, `cuda: Optional[str] = '12.8'`,
 * `build_info = {...}` or `collections.OrderedDict([...])`). Not a Python
 * parser: literals only, anything else is PL_OTHER.
 * ------------------------------------------------------------------------- */
typedef enum pl_kind { PL_NONE, PL_BOOL, PL_NUMBER, PL_STRING, PL_LIST, PL_DICT, PL_OTHER } pl_kind;

#define PL_TEXT 512

typedef struct pl_value {
    pl_kind kind;
    bool truth; /* PL_BOOL */
    /* PL_STRING and PL_NUMBER: the value; PL_LIST: its scalar items joined
     * with ','. Printable ASCII only: any other byte is written '?'. */
    char text[PL_TEXT];
    unsigned items; /* PL_LIST: how many */
    bool truncated; /* text did not fit (it holds the start) */
} pl_value;

/* Called for each top-level `name = value` in file order (a later one
 * overrides, as in Python; key NULL), and for each item of a dict literal
 * or an OrderedDict([(k, v), ...]) assigned to a top-level name (key its
 * string key, before the callback for the dict itself). */
typedef void (*pl_assign_cb)(void *ctx, const char *name, const char *key, const pl_value *v);

/* Walks src[0 .. len) (NUL bytes allowed: they end nothing). Returns 0, or
 * -1 with the reason and the line in err: an unterminated string, brackets
 * that do not match or nest deeper than 32. Assignments before the error
 * have been reported. Bounded: one pass, no allocation. */
int pl_parse(const char *src, size_t len, pl_assign_cb cb, void *ctx, char *err, size_t errsize);

/* ---------------------------------------------------------------------------
 * fw_site.c: what one site-packages folder holds.
 * ------------------------------------------------------------------------- */
typedef enum fw_kind {
    FW_TORCH,
    FW_TENSORFLOW,
    FW_JAX,
    FW_JAXLIB,
    FW_JAX_PLUGIN, /* jax-cuda12-plugin, jax-cuda12-pjrt, and cuda13 */
    FW_CUPY,
    FW_PADDLE,
    FW_NVIDIA /* nvidia-cuda-runtime, -cudnn, -cublas, -nccl, -cuda-nvrtc */
} fw_kind;

typedef enum fw_build { FW_BUILD_UNKNOWN, FW_BUILD_CPU, FW_BUILD_CUDA, FW_BUILD_ROCM } fw_build;

#define FW_MAX_ENTRIES 48

typedef struct fw_entry {
    fw_kind kind;
    char name[64];    /* METADATA's Name ("torch"), else the folder's */
    char version[64]; /* METADATA's Version, "" when it has none */
    fw_build build;
    /* The CUDA or ROCm release it was built for: -1 when unknown (minor
     * -1 alone: "12.x", as cupy-cuda12x says). */
    int major, minor;
    char build_text[64]; /* that release as the file writes it: "12.8", "6.2.41133-dd7f9576" */
    char source[64];     /* where the build was read: "torch/version.py", "the name" */
    /* The CUDA architectures the build ships ("sm_50,sm_80,compute_90"),
     * when a file lists them (archs_known); else why not, in archs_note. */
    bool archs_known;
    char archs[PL_TEXT];
    char archs_note[160];
    char with[64]; /* jaxlib: the GPU plugin beside it ("jax-cuda12-plugin") */
    /* A file that could not be read or made no sense: the message, with
     * the file's path. The rest of the entry holds what is known. */
    char problem[640];
} fw_entry;

typedef struct fw_env {
    char site[4096];
    const char *found_by;   /* pyfolders.h: "VIRTUAL_ENV", "CONDA_PREFIX", "PATH", "HOME" */
    unsigned distributions; /* .dist-info and .egg-info entries */
    char problem[640];      /* the folder could not be listed */
    unsigned count;
    unsigned left_out; /* entries past FW_MAX_ENTRIES */
    fw_entry entries[FW_MAX_ENTRIES];
} fw_env;

/* Reads env->site (set by the caller, with found_by) into env: one listing
 * of the folder, METADATA of the distributions named above only, and
 * their version files. Never follows more than the one link level open(2)
 * does into a file, never reads a file that is not regular or is larger
 * than 256 KiB (METADATA: its first 64 KiB). */
void fw_scan_site(fw_env *env);

/* The whole of a small regular file in *text (malloc'ed, NUL-terminated;
 * the caller frees it) and *len. 0, or -1 with the reason in err: it
 * cannot be opened (strerror: a loop of links, no permission), it is not a
 * regular file, it is larger than `max`, or it holds a NUL byte (binary). */
int fw_read_small(const char *path, size_t max, char **text, size_t *len, char *err,
                  size_t errsize);

/* "12.8" -> 12, 8; "6.2.41133-dd7f9576" -> 6, 2; "12" -> 12, -1. False
 * when it does not start with a number. */
bool fw_parse_release(const char *s, int *major, int *minor);

/* ---------------------------------------------------------------------------
 * fw_cuda.c: data from NVIDIA and PyTorch, in one place.
 * ------------------------------------------------------------------------- */
/* The Linux x86_64 driver the CUDA Toolkit major.minor ships with (its GA
 * release), NULL when the table lacks it. */
const char *fw_toolkit_driver(int major, int minor);
/* The oldest driver that runs any CUDA `major`.x build under minor-version
 * compatibility, NULL before CUDA 11 (which had none). */
const char *fw_minor_compat_driver(int major);
/* The PyTorch wheel index ("cu128", "rocm6.2.4") to name for a driver
 * that supports CUDA major.minor (rocm: a ROCm major.minor runtime); NULL
 * when none runs there. */
const char *fw_torch_index(bool rocm, int major, int minor);

/* ---------------------------------------------------------------------------
 * fw_host.c: this machine as xgpu sees it.
 * ------------------------------------------------------------------------- */
#define FW_MAX_GPUS 8

typedef struct fw_gpu {
    char arch[64]; /* "sm_90", "gfx90a" (xgpu_device_info's size) */
    char path[48]; /* "cuda:0" */
    int sm;        /* 90 for sm_90; 0 elsewhere */
} fw_gpu;

typedef struct fw_host {
    bool nvidia_driver;         /* libcuda.so.1 was loaded */
    int cuda_major, cuda_minor; /* the driver's CUDA version; -1 with no CUDA device */
    unsigned cuda_gpus;         /* distinct architectures, in cuda[] */
    fw_gpu cuda[FW_MAX_GPUS];
    bool rocm_runtime;          /* the HIP backend loaded a runtime */
    int rocm_major, rocm_minor; /* its version, from a HIP device; -1 with none */
    unsigned hip_gpus;
    fw_gpu hip[FW_MAX_GPUS];
} fw_host;

/* Every device and backend xgpu reaches (not only those -d selects: what a
 * framework will find is the machine's). */
void fw_host_collect(fw_host *host);

/* ---------------------------------------------------------------------------
 * fw_rules.c
 * ------------------------------------------------------------------------- */
typedef enum fw_status { FW_OK, FW_INFO, FW_WARN, FW_FAIL } fw_status;

typedef struct fw_verdict {
    fw_status status;
    char finding[1024]; /* what it was built for, and what that means here */
    char fix[512];      /* one command or step; "" when nothing is to be done */
} fw_verdict;

/* `e` of environment `env` against `host` (the user site's fixes install
 * with --user). */
void fw_judge(const fw_env *env, const fw_entry *e, const fw_host *host, fw_verdict *v);

/* "ok", "info", "WARN", "FAIL" */
const char *fw_status_tag(fw_status s);

/* ---------------------------------------------------------------------------
 * fw_report.c (gpuinfo.h declares the two entry points).
 * ------------------------------------------------------------------------- */
/* The doctor's section, and the JSON members "python_environments" and
 * "frameworks", for the environments xgpu__python_sites finds and a given
 * host (the tests' way in, with a made-up one). */
void fw_doctor_section(FILE *out, const fw_host *host);
void fw_json_members(FILE *out, const fw_host *host);

#endif
