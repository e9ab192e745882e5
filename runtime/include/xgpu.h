/*
 * xgpu: a portable, multi-backend GPU compute runtime.
 *
 * This header is the whole public API and its reference documentation.
 *
 * Conventions
 * - Every call returns an xgpu_status. XGPU_SUCCESS is 0; on any other value
 *   xgpu_last_error() describes the failure on the calling thread (which
 *   call, which argument, the backend's own error code name).
 * - Handles are opaque. Passing NULL, or a handle of the wrong type, returns
 *   XGPU_ERROR_INVALID_HANDLE; it never crashes.
 * - Sizes are in bytes unless a name says otherwise.
 *
 * Threads
 * - Device discovery (xgpu_device_*) and xgpu_backend_* are thread-safe.
 * - A context may be shared by any number of threads: creating and releasing
 *   buffers, programs, kernels and queues on one context from several threads
 *   is safe.
 * - A queue belongs to one thread at a time: do not enqueue into the same
 *   queue from two threads concurrently. Give each thread its own queue.
 * - A kernel object holds no launch arguments (they are passed to each
 *   xgpu_launch), so one kernel may be launched from several threads.
 *
 * Versioning rule: within one major version, functions and enum values are
 * only added; structs passed with a size argument only grow at their end.
 * The SOVERSION of libxgpu is the major version. Before 1.0, a minor
 * version may also change the layout of structs passed by value or in
 * arrays, or what an argument means: 0.2 added xgpu_arg.type, so code
 * built against 0.1 must be rebuilt. 0.3 changed what arguments mean,
 * each noted at its function too (CHANGES.md lists them): xgpu_reduce's
 * out_offset counts elements; xgpu_gemm's overlap check looks at the
 * elements touched and alpha == 0 reads neither A nor B;
 * xgpu_device_select is the first device of xgpu_device_match's grammar.
 */
#ifndef XGPU_H
#define XGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* xgpu builds and runs on POSIX systems (it loads plugins with dlopen).
 * On Windows the macro is already what a DLL needs: dllexport while
 * building xgpu (XGPU_BUILDING), dllimport for its users. */
#if defined(_WIN32)
#if defined(XGPU_BUILDING)
#define XGPU_API __declspec(dllexport)
#else
#define XGPU_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define XGPU_API __attribute__((visibility("default")))
#else
#define XGPU_API
#endif

#define XGPU_VERSION_MAJOR 0
#define XGPU_VERSION_MINOR 6
#define XGPU_VERSION_PATCH 0
#define XGPU_VERSION_HEX                                                                           \
    ((XGPU_VERSION_MAJOR << 16) | (XGPU_VERSION_MINOR << 8) | XGPU_VERSION_PATCH)

/* ---------------------------------------------------------------------------
 * Status codes: one table generates the enum, xgpu_status_name() and
 * xgpu_status_message().
 * ------------------------------------------------------------------------- */
#define XGPU_STATUS_MAP(X)                                                                         \
    X(SUCCESS, 0, "success")                                                                       \
    X(ERROR_INVALID_ARGUMENT, 1, "an argument is invalid")                                         \
    X(ERROR_INVALID_HANDLE, 2, "a handle is NULL, of the wrong type or already released")          \
    X(ERROR_INVALID_SIZE, 3, "a size is zero, too large or overflows")                             \
    X(ERROR_OUT_OF_RANGE, 4, "an offset and size reach past the end of a buffer")                  \
    X(ERROR_OUT_OF_DEVICE_MEMORY, 5, "the device has not enough free memory")                      \
    X(ERROR_OUT_OF_HOST_MEMORY, 6, "the host has not enough free memory")                          \
    X(ERROR_NO_DEVICE, 7, "no device matches the request")                                         \
    X(ERROR_BACKEND_UNAVAILABLE, 8, "the backend could not be loaded or started")                  \
    X(ERROR_BUILD_FAILED, 9, "the kernel source did not compile")                                  \
    X(ERROR_KERNEL_NOT_FOUND, 10, "no kernel of that name in the program")                         \
    X(ERROR_INVALID_KERNEL_ARGS, 11, "the launch arguments do not match the kernel")               \
    X(ERROR_INVALID_LAUNCH, 12, "the launch geometry is invalid for this kernel or device")        \
    X(ERROR_UNSUPPORTED, 13, "the device or backend does not support this")                        \
    X(ERROR_ABI_MISMATCH, 14, "the backend plugin speaks no ABI version the core speaks")          \
    X(ERROR_BUSY, 15, "the object still has dependent objects alive")                              \
    X(ERROR_BACKEND, 16, "the backend reported an error")                                          \
    X(ERROR_INTERNAL, 17, "internal error in xgpu")                                                \
    X(ERROR_DEVICE_LOST, 18,                                                                       \
      "the device context is lost after a fault (an illegal address, a trap in a kernel); "        \
      "every later call on it fails: restart the process")                                         \
    X(ERROR_IO, 19, "a file xgpu keeps (the tuning database) could not be read or written")

typedef enum xgpu_status {
#define XGPU__STATUS_ENUM(name, value, text) XGPU_##name = value,
    XGPU_STATUS_MAP(XGPU__STATUS_ENUM)
#undef XGPU__STATUS_ENUM
} xgpu_status;

/* "XGPU_ERROR_BUILD_FAILED"; "XGPU_UNKNOWN_STATUS" for a value not in the
 * table. The string is static. */
XGPU_API const char *xgpu_status_name(xgpu_status status);
/* A one-line English description of the status. The string is static. */
XGPU_API const char *xgpu_status_message(xgpu_status status);

/* The last failure on the calling thread. Valid until the next xgpu call on
 * this thread that fails. Never NULL; after no failure, status is
 * XGPU_SUCCESS and message is "". */
typedef struct xgpu_error_info {
    xgpu_status status;
    const char *message;     /* full text: what failed, with which values */
    const char *backend;     /* "opencl", "cuda", ... or NULL for the core */
    const char *native_name; /* "CL_BUILD_PROGRAM_FAILURE", or NULL */
    long long native_code;   /* the backend's numeric code, 0 when none */
} xgpu_error_info;

XGPU_API const xgpu_error_info *xgpu_last_error(void);

/* The build log of the last failed xgpu_program_build on this thread, or "".
 * Valid until the next failing build on this thread. */
XGPU_API const char *xgpu_last_build_log(void);

/* ---------------------------------------------------------------------------
 * Versions
 * ------------------------------------------------------------------------- */
/* XGPU_VERSION_HEX of the library actually loaded. */
XGPU_API uint32_t xgpu_version(void);
/* "0.6.0" */
XGPU_API const char *xgpu_version_string(void);
/* The newest backend ABI version this core speaks (see xgpu_backend.h). */
XGPU_API uint32_t xgpu_backend_abi_version(void);

/* ---------------------------------------------------------------------------
 * Backends: which plugins were found, and why one is unavailable.
 * Loading happens once, on the first call of any function below or of the
 * device functions. Thread-safe.
 * ------------------------------------------------------------------------- */
typedef struct xgpu_backend_info {
    char name[32];         /* "opencl" */
    bool available;        /* probed and started; its devices are listed */
    xgpu_status status;    /* why not available, XGPU_SUCCESS when available */
    char reason[512];      /* human-readable reason when not available */
    char plugin_path[512]; /* the plugin file loaded, "" when none was found */
    uint32_t abi_version;  /* negotiated ABI version, 0 when not negotiated */
    uint32_t device_count;
    uint32_t library_count; /* vendor libraries tried so far: xgpu_backend_get_library */
} xgpu_backend_info;

/* One vendor library a backend tried to load, and what happened. */
typedef struct xgpu_library_info {
    char name[128]; /* as asked for: "libcuda.so.1", "libnvrtc.so.13" */
    char path[512]; /* the file loaded, "" when none */
    bool loaded;
    char detail[512]; /* the loader's error, or the version and what it offers */
} xgpu_library_info;

/* Number of backends known: every plugin found plus the backends xgpu ships
 * (cuda, hip, opencl), which are listed even when their plugin is missing. */
XGPU_API xgpu_status xgpu_backend_count(uint32_t *count);
/* Fills *info for backend `index` (0 .. count-1). `info_size` is
 * sizeof(xgpu_backend_info) as the caller was compiled. */
XGPU_API xgpu_status xgpu_backend_get_info(uint32_t index, xgpu_backend_info *info,
                                           size_t info_size);

/* Library `library` (0 .. library_count-1) tried by backend `backend`.
 * Backends may load libraries late (NVRTC at the first program build), so
 * the count can grow. */
XGPU_API xgpu_status xgpu_backend_get_library(uint32_t backend, uint32_t library,
                                              xgpu_library_info *info, size_t info_size);

/* ---------------------------------------------------------------------------
 * Devices. Device handles live as long as the process; never freed.
 * ------------------------------------------------------------------------- */
typedef struct xgpu_device xgpu_device;

typedef enum xgpu_device_type {
    XGPU_DEVICE_TYPE_OTHER = 0,
    XGPU_DEVICE_TYPE_CPU = 1,
    XGPU_DEVICE_TYPE_GPU = 2,
    XGPU_DEVICE_TYPE_ACCELERATOR = 3
} xgpu_device_type;

/* Plain data about a device. Strings are NUL-terminated, "" when unknown;
 * numbers are 0 when unknown. This struct only grows at its end. */
typedef struct xgpu_device_info {
    char backend[32];       /* "opencl" */
    uint32_t backend_index; /* index within the backend: "opencl:<n>" */
    xgpu_device_type type;
    char vendor[128]; /* "NVIDIA Corporation", "Portable Computing Language" */
    char name[256];
    char arch[64];            /* "sm_90", "gfx90a", pocl's LLVM CPU name */
    char platform[128];       /* OpenCL platform name, "" elsewhere */
    char device_version[128]; /* OpenCL: CL_DEVICE_VERSION */
    char driver_version[128];
    char language_version[128]; /* OpenCL C version, CUDA/HIP runtime version */
    uint32_t compute_units;
    uint32_t max_clock_mhz;
    uint64_t global_mem_bytes;
    uint64_t local_mem_bytes; /* per group */
    uint64_t constant_mem_bytes;
    uint64_t max_alloc_bytes; /* largest single buffer */
    uint64_t max_group_size;  /* work-items per group */
    uint64_t max_group_dims[3];
    uint32_t preferred_group_multiple; /* warp/wavefront size or OpenCL's hint */
    uint32_t subgroup_size;            /* 0 when the device has no subgroups */
    bool fp16; /* fp16 arithmetic in kernels: XGPU_HAS_FP16 is 1 (storage works everywhere) */
    bool fp64;
    bool subgroups;
    bool has_pci_bus_id;
    char pci_bus_id[16]; /* "dddd:bb:dd.f" lower-case hex, "" when none */
    bool has_uuid;
    uint8_t uuid[16];
    uint64_t max_groups[3]; /* groups per launch in each dimension */
    uint64_t l2_cache_bytes;
    uint64_t local_mem_per_cu_bytes; /* shared memory per SM / CU */
    uint32_t memory_clock_mhz;       /* peak memory clock as the driver reports it */
    uint32_t memory_bus_width_bits;
    int32_t ecc_enabled; /* 1 on, 0 off, -1 unknown */
    /* Fixed-size local memory (XGPU_LOCAL arrays) a kernel may declare; it
     * can be less than local_mem_bytes, which launch-sized local memory
     * (XGPU_LOCAL_ARG) may reach: CUDA caps static shared memory at 48 KiB
     * while an H100 or H200 opts in to 227 KiB. 0: same as local_mem_bytes. */
    uint64_t local_mem_static_bytes;
    /* Kernels may order global memory between groups with release/acquire
     * atomics at device scope (XGPU_HAS_SCOPED_ATOMICS is 1 when built for
     * it): CUDA, HIP, OpenCL C 2.x, and OpenCL 3.0 devices reporting
     * acquire/release and device scope. Without them, results from several
     * groups are combined in a second launch. */
    bool device_scope_atomics;
    /* float lanes of the device's vectors (OpenCL
     * CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: 16 on an AVX-512 CPU, 8 with
     * AVX2, 1 on most GPUs); 0 when unknown (CUDA, HIP). */
    uint32_t native_vector_width_f32;
    /* The kernel compiler runs a kernel one work-item per thread, as
     * written, when the kernel asks (XGPU_ITEMS_UNVECTORISED; OpenCL's
     * cl_intel_vec_len_hint, on Intel's CPU runtime), where it would
     * otherwise vectorise across work-items. */
    bool items_unvectorised_hint;
} xgpu_device_info;

/* Number of devices over all available backends. Thread-safe. */
XGPU_API xgpu_status xgpu_device_count(uint32_t *count);
/* Device by global index, in backend order (cuda, hip, opencl, others). */
XGPU_API xgpu_status xgpu_device_get(uint32_t index, xgpu_device **device);
/* Device selectors: the one grammar of xgpu_device_match,
 * xgpu_device_select and every tool's -d option (gpuinfo, gpubench). A
 * selector is a comma-separated list of terms; blanks
 * (spaces, tabs) around a term are ignored, none may appear inside one.
 * A term's kind is told by its shape alone:
 *
 *   2                  global device index, as xgpu_device_get counts
 *                      (the index gpuinfo prints)
 *   opencl             every device of that backend (cuda, hip, opencl)
 *   opencl:1           device 1 of that backend (gpuinfo's "paths")
 *   0000:01:00.0       PCI bus id, hex: dddd:bb:dd.f, bb:dd.f (domain 0),
 *   01:00.0            or nvidia-smi's 8-digit domain; matched as numbers
 *   GPU-6f1e...-...    UUID as gpuinfo prints it: 32 hex digits, dashed
 *                      8-4-4-4-12 or not, any case, "GPU-" prefix optional
 *
 * e.g. "cuda:0,cuda:1", "opencl", "0000:41:00.0, 0000:c1:00.0". A term
 * matches every device it describes: a PCI bus id or UUID matches each
 * backend's path to that device (cuda:0 and opencl:0 of one GPU).
 * CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES keep
 * their vendor meaning: the drivers apply them before xgpu counts devices,
 * so indexes count only the devices they leave visible. */

/* Every device `selector` matches, in device order (global index), each
 * once however many terms match it. Writes the first min(*count,
 * capacity) of them to devices[] and the number matched to *count, which
 * may exceed capacity: call with capacity 0 (devices may then be NULL) to
 * size the array, or pass xgpu_device_count's count. On success *count is
 * at least 1. Every term must match a device, or the call fails with
 * *count 0: XGPU_ERROR_INVALID_ARGUMENT for a selector that does not
 * parse (the message names the bad term), XGPU_ERROR_BACKEND_UNAVAILABLE
 * for a backend that is missing or did not load (with its reason),
 * XGPU_ERROR_NO_DEVICE for a term no device answers (with each backend's
 * reason). Thread-safe; loads the backends on first use. */
XGPU_API xgpu_status xgpu_device_match(const char *selector, xgpu_device **devices,
                                       uint32_t capacity, uint32_t *count);
/* The first device xgpu_device_match(selector) selects, with its errors:
 * "opencl" is opencl:0, "1,0" is device 0. */
XGPU_API xgpu_status xgpu_device_select(const char *selector, xgpu_device **device);
XGPU_API xgpu_status xgpu_device_get_info(const xgpu_device *device, xgpu_device_info *info,
                                          size_t info_size);
/* Device memory free right now, as the driver sees it (all processes).
 * XGPU_ERROR_UNSUPPORTED where the backend cannot tell (OpenCL). */
XGPU_API xgpu_status xgpu_device_free_memory(const xgpu_device *device, uint64_t *free_bytes);

/* ---------------------------------------------------------------------------
 * Contexts: the owner of every buffer, program and queue on one device.
 * Shareable across threads.
 * ------------------------------------------------------------------------- */
typedef struct xgpu_context xgpu_context;
typedef struct xgpu_queue xgpu_queue;
typedef struct xgpu_buffer xgpu_buffer;
typedef struct xgpu_program xgpu_program;
typedef struct xgpu_kernel xgpu_kernel;
typedef struct xgpu_event xgpu_event;

/* Handles and lifetimes.
 *
 * Every handle is checked against a registry of live objects before it is
 * used. A handle is not the object's address (never dereference one): it
 * names a slot of the registry and a generation, so a released handle is
 * never taken for an object made after it. NULL, a handle of another type,
 * a released handle (double release, use after release) and a pointer that
 * never was a handle all give XGPU_ERROR_INVALID_HANDLE. Devices live
 * as long as the process. Every other object lives from its create call to
 * its release call; a release takes the handle out of the registry at once,
 * even when the object behind it lives on as described below:
 *
 *   context  release fails with XGPU_ERROR_BUSY, and changes nothing, while
 *            any queue, buffer, program, kernel, event or pinned host block
 *            of it is alive.
 *   queue    release waits for the queue's work to complete. Events recorded
 *            on it stay valid afterwards.
 *   buffer   may be released while queued work still uses it: the memory is
 *            returned to the device after that work completes.
 *   program  may be released while kernels of it are alive: each kernel
 *            keeps its program until the kernel is released.
 *   kernel   may be released right after xgpu_launch returns, while the
 *            launch is still queued.
 *   event    may be released before it completes; it may outlive its queue.
 *
 * Objects may be used from several threads, but a release must not race
 * with another call on the same object. */

XGPU_API xgpu_status xgpu_context_create(xgpu_device *device, xgpu_context **context);
/* Fails with XGPU_ERROR_BUSY while buffers, queues, programs, kernels or
 * events of the context are alive; release those first. NULL is a no-op. */
XGPU_API xgpu_status xgpu_context_release(xgpu_context *context);
XGPU_API xgpu_status xgpu_context_get_device(const xgpu_context *context, xgpu_device **device);

/* ---------------------------------------------------------------------------
 * Queues: in-order; operations run in the order they were enqueued.
 * One thread at a time per queue.
 * ------------------------------------------------------------------------- */
XGPU_API xgpu_status xgpu_queue_create(xgpu_context *context, xgpu_queue **queue);
/* Waits for the queue to drain, then releases it; events recorded on it
 * stay valid. NULL is a no-op. */
XGPU_API xgpu_status xgpu_queue_release(xgpu_queue *queue);
/* Blocks until every operation enqueued so far has completed. */
XGPU_API xgpu_status xgpu_queue_finish(xgpu_queue *queue);

/* ---------------------------------------------------------------------------
 * Events. Any enqueueing call takes an optional `xgpu_event **event`: when
 * not NULL it receives a new event that completes with that operation; the
 * caller releases it.
 * ------------------------------------------------------------------------- */
/* An event that completes when everything enqueued before it has. */
XGPU_API xgpu_status xgpu_queue_record_event(xgpu_queue *queue, xgpu_event **event);
/* Cross-queue ordering: work enqueued on `queue` after this call starts
 * only after `event` completes (an event of any queue of the same context;
 * one of another context is XGPU_ERROR_INVALID_ARGUMENT). Work enqueued on
 * `queue` before the call is not held back. Asynchronous on OpenCL (a
 * barrier in the queue); where a backend offers no device-side wait, it
 * waits for the event on the host before returning, which orders the
 * same. The event may be released right after the call. New in 0.3.0. */
XGPU_API xgpu_status xgpu_queue_wait_event(xgpu_queue *queue, xgpu_event *event);
XGPU_API xgpu_status xgpu_event_wait(xgpu_event *event);
/* Milliseconds of device time between the end of `start` and the end of
 * `end` (both must be complete or are waited for). */
XGPU_API xgpu_status xgpu_event_elapsed_ms(xgpu_event *start, xgpu_event *end, double *ms);
/* Allowed before the event completes and after its queue is released. */
XGPU_API xgpu_status xgpu_event_release(xgpu_event *event);

/* ---------------------------------------------------------------------------
 * Buffers. Device memory of a fixed size. Asynchronous calls (blocking ==
 * false) read or write host memory later: it must stay valid and untouched
 * until the operation's event or xgpu_queue_finish says it completed.
 * ------------------------------------------------------------------------- */
/* Fails with XGPU_ERROR_OUT_OF_DEVICE_MEMORY naming the bytes asked and the
 * device's memory, or XGPU_ERROR_INVALID_SIZE for 0. Contents are undefined. */
XGPU_API xgpu_status xgpu_buffer_create(xgpu_context *context, size_t size, xgpu_buffer **buffer);
/* Allowed while queued work still uses the buffer: the memory is freed
 * after that work completes. NULL is a no-op. */
XGPU_API xgpu_status xgpu_buffer_release(xgpu_buffer *buffer);
XGPU_API xgpu_status xgpu_buffer_size(const xgpu_buffer *buffer, size_t *size);

/* Host -> device: `size` bytes from `src` into `dst` at `dst_offset`. */
XGPU_API xgpu_status xgpu_buffer_write(xgpu_queue *queue, xgpu_buffer *dst, size_t dst_offset,
                                       const void *src, size_t size, bool blocking,
                                       xgpu_event **event);
/* Device -> host. */
XGPU_API xgpu_status xgpu_buffer_read(xgpu_queue *queue, xgpu_buffer *src, size_t src_offset,
                                      void *dst, size_t size, bool blocking, xgpu_event **event);
/* Device -> device, asynchronous. Overlapping ranges of one buffer are an
 * error. */
XGPU_API xgpu_status xgpu_buffer_copy(xgpu_queue *queue, xgpu_buffer *src, size_t src_offset,
                                      xgpu_buffer *dst, size_t dst_offset, size_t size,
                                      xgpu_event **event);
/* Fills `size` bytes at `offset` with a repeated pattern of 1, 2, 4, 8, 16,
 * 32, 64 or 128 bytes; offset and size must be multiples of it.
 * Asynchronous. */
XGPU_API xgpu_status xgpu_buffer_fill(xgpu_queue *queue, xgpu_buffer *buffer, size_t offset,
                                      size_t size, const void *pattern, size_t pattern_size,
                                      xgpu_event **event);

/* Interoperation with vendor libraries (CLBlast, cuBLAS, rocBLAS...): the
 * vendor object behind a buffer or a queue, still owned by xgpu and valid
 * until the xgpu object is released. Buffers: cl_mem (OpenCL), CUdeviceptr
 * stored in the pointer (CUDA), hipDeviceptr_t (HIP). Queues:
 * cl_command_queue, CUstream, hipStream_t. Work enqueued on the native
 * queue is ordered with xgpu's work on that queue. */
XGPU_API xgpu_status xgpu_buffer_native(const xgpu_buffer *buffer, void **native);
XGPU_API xgpu_status xgpu_queue_native(const xgpu_queue *queue, void **native);

/* Pinned (page-locked) host memory for fast transfers. *ptr is usable as
 * ordinary host memory; free it with xgpu_host_free on the same context. */
XGPU_API xgpu_status xgpu_host_alloc(xgpu_context *context, size_t size, void **ptr);
XGPU_API xgpu_status xgpu_host_free(xgpu_context *context, void *ptr);

/* Copies between devices. A copy travels directly between the two devices'
 * memories where their backend offers it (CUDA's and HIP's peer copies, over
 * NVLink, Infinity Fabric or PCIe), else it is staged through host memory.
 * New in 0.6.0. */
typedef enum xgpu_peer_path {
    XGPU_PEER_STAGED = 0, /* device -> host memory -> device */
    XGPU_PEER_DIRECT = 1  /* device -> device */
} xgpu_peer_path;
/* The path a copy from `src`'s memory to `dst`'s memory takes: direct when
 * both are devices of one backend that can copy between them (CUDA:
 * cuDeviceCanAccessPeer; HIP: hipDeviceCanAccessPeer; two contexts of one
 * device), staged otherwise (OpenCL devices, devices of two backends). */
XGPU_API xgpu_status xgpu_device_peer_path(xgpu_device *src, xgpu_device *dst,
                                           xgpu_peer_path *path);
/* `size` bytes from `src` (a buffer of src_queue's context) at `src_offset`
 * into `dst` (of dst_queue's context) at `dst_offset`, along the path
 * xgpu_device_peer_path names; *path (may be NULL) says which it took. The
 * copy starts after the work already enqueued on both queues and is
 * complete when the call returns. The two contexts may be of one device or
 * of two backends; one context is allowed too (a plain copy, direct). A
 * direct copy between two CUDA or HIP devices enables peer access from the
 * destination's context to the source's, which stays enabled (CUDA's
 * primary contexts are shared with the rest of the process); where the
 * driver refuses it (too many peers), the copy is staged. */
XGPU_API xgpu_status xgpu_buffer_copy_peer(xgpu_queue *src_queue, xgpu_buffer *src,
                                           size_t src_offset, xgpu_queue *dst_queue,
                                           xgpu_buffer *dst, size_t dst_offset, size_t size,
                                           xgpu_peer_path *path);

/* ---------------------------------------------------------------------------
 * Programs and kernels, written in the xgpu kernel dialect (kernels/README.md).
 * The runtime prepends the dialect prelude for the device's backend.
 * ------------------------------------------------------------------------- */
/* Compiles `source` (NUL-terminated) with `options` (compiler flags such as
 * "-DTILE=16", may be NULL). On XGPU_ERROR_BUILD_FAILED the compiler's log is
 * in xgpu_last_build_log() and, abridged, in xgpu_last_error()->message. */
XGPU_API xgpu_status xgpu_program_build(xgpu_context *context, const char *source,
                                        const char *options, xgpu_program **program);
/* Allowed while kernels of the program are alive: they keep it until they
 * are released. The handle is invalid from here on. NULL is a no-op. */
XGPU_API xgpu_status xgpu_program_release(xgpu_program *program);
/* Whether the program was loaded from the persistent kernel cache rather
 * than compiled. Built programs are kept on disk, keyed by everything the
 * binary depends on (source, options, device, driver, compiler, xgpu
 * version), in XGPU_CACHE_DIR, else $XDG_CACHE_HOME/xgpu, else
 * ~/.cache/xgpu; XGPU_CACHE=off turns the cache off, XGPU_CACHE_SIZE_MB
 * bounds it (default 256). New in 0.4.0. */
XGPU_API xgpu_status xgpu_program_from_cache(const xgpu_program *program, bool *from_cache);
/* The kernel cache as this process would use it now: on or off (and why),
 * its folder, what it holds and its bound. New in 0.4.0. */
typedef struct xgpu_cache_info {
    bool enabled;
    char dir[4096];
    char reason[512]; /* why it is off; "" when on */
    uint64_t entries, bytes, limit_bytes;
} xgpu_cache_info;
XGPU_API xgpu_status xgpu_cache_get_info(xgpu_cache_info *info);
/* The log of a successful build (warnings), "" when none. Owned by the program. */
XGPU_API const char *xgpu_program_build_log(const xgpu_program *program);

XGPU_API xgpu_status xgpu_kernel_create(xgpu_program *program, const char *name,
                                        xgpu_kernel **kernel);
/* Allowed while launches of the kernel are queued. NULL is a no-op. */
XGPU_API xgpu_status xgpu_kernel_release(xgpu_kernel *kernel);
/* Number of parameters the kernel declares, read from its source or, when
 * that cannot be read (a kernel declared through a macro), counted by the
 * backend; XGPU_ERROR_UNSUPPORTED when neither can tell. */
XGPU_API xgpu_status xgpu_kernel_arg_count(const xgpu_kernel *kernel, uint32_t *count);
/* Largest group size this kernel can be launched with on its device. */
XGPU_API xgpu_status xgpu_kernel_max_group_size(const xgpu_kernel *kernel, size_t *size);
/* Group sizes that are multiples of this run best (warp or wavefront size,
 * or the OpenCL driver's hint); 1 when the backend gives no hint. */
XGPU_API xgpu_status xgpu_kernel_preferred_group_multiple(const xgpu_kernel *kernel,
                                                          size_t *multiple);
/* The vendor's kernel object, for launching it without xgpu (to time the
 * vendor's own launch, or to hand it to a vendor library): cl_kernel
 * (OpenCL), CUfunction (CUDA), hipFunction_t (HIP). Owned by xgpu and
 * valid until the kernel is released. The caller launches it on the queue's
 * native queue (xgpu_queue_native) with the CUDA context or HIP device
 * current that xgpu's last call on this thread left current. On OpenCL,
 * xgpu sets every argument at each xgpu_launch, so arguments set on the
 * cl_kernel do not leak into xgpu's launches, but the caller must not set
 * them while another thread launches the same kernel through xgpu.
 * XGPU_ERROR_UNSUPPORTED when the backend gives no native handles. New in
 * 0.4.0. */
XGPU_API xgpu_status xgpu_kernel_native(const xgpu_kernel *kernel, void **native);

/* Launch arguments. Build them with the helpers below. */
typedef enum xgpu_arg_kind {
    XGPU_ARG_NONE = 0,
    XGPU_ARG_BUFFER = 1, /* an XGPU_GLOBAL pointer parameter */
    XGPU_ARG_SCALAR = 2, /* a value parameter, copied at xgpu_launch */
    XGPU_ARG_LOCAL = 3   /* an XGPU_LOCAL_ARG parameter: bytes of local memory */
} xgpu_arg_kind;

#define XGPU_ARG_SCALAR_MAX 16

/* What a scalar argument holds, checked against the parameter's type: a
 * float for an integer parameter, or an integer for a float parameter, is
 * refused. Signed and unsigned integers of the same size are accepted for
 * each other (the bits are passed as they are, as C converts them). RAW
 * bytes (xgpu_arg_bytes) are checked by size only. */
typedef enum xgpu_scalar_type {
    XGPU_SCALAR_RAW = 0,
    XGPU_SCALAR_INT = 1,
    XGPU_SCALAR_UINT = 2,
    XGPU_SCALAR_FLOAT = 3
} xgpu_scalar_type;

typedef struct xgpu_arg {
    xgpu_arg_kind kind;
    size_t size; /* scalar: its size in bytes; local: bytes to allocate */
    xgpu_buffer *buffer;
    union {
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f32;
        double f64;
        unsigned char bytes[XGPU_ARG_SCALAR_MAX];
    } value;
    xgpu_scalar_type type; /* scalars only */
} xgpu_arg;

static inline xgpu_arg xgpu_arg_buffer(xgpu_buffer *buffer) {
    xgpu_arg a = {XGPU_ARG_BUFFER, 0, buffer, {0}, XGPU_SCALAR_RAW};
    return a;
}
static inline xgpu_arg xgpu_arg_local(size_t bytes) {
    xgpu_arg a = {XGPU_ARG_LOCAL, bytes, NULL, {0}, XGPU_SCALAR_RAW};
    return a;
}
/* `size` bytes from `bytes`, passed as they are (vector types, structs, or
 * a deliberate reinterpretation); size must be 1..XGPU_ARG_SCALAR_MAX. A
 * NULL `bytes` gives size 0, which xgpu_launch refuses. */
static inline xgpu_arg xgpu_arg_bytes(const void *bytes, size_t size) {
    xgpu_arg a = {XGPU_ARG_SCALAR, bytes ? size : 0, NULL, {0}, XGPU_SCALAR_RAW};
    const unsigned char *b = (const unsigned char *)bytes;
    for (size_t i = 0; b && i < size && i < XGPU_ARG_SCALAR_MAX; i++) {
        a.value.bytes[i] = b[i];
    }
    return a;
}
static inline xgpu_arg xgpu_arg_i32(int32_t v) {
    xgpu_arg a = {XGPU_ARG_SCALAR, sizeof v, NULL, {0}, XGPU_SCALAR_INT};
    a.value.i32 = v;
    return a;
}
static inline xgpu_arg xgpu_arg_u32(uint32_t v) {
    xgpu_arg a = {XGPU_ARG_SCALAR, sizeof v, NULL, {0}, XGPU_SCALAR_UINT};
    a.value.u32 = v;
    return a;
}
static inline xgpu_arg xgpu_arg_i64(int64_t v) {
    xgpu_arg a = {XGPU_ARG_SCALAR, sizeof v, NULL, {0}, XGPU_SCALAR_INT};
    a.value.i64 = v;
    return a;
}
static inline xgpu_arg xgpu_arg_u64(uint64_t v) {
    xgpu_arg a = {XGPU_ARG_SCALAR, sizeof v, NULL, {0}, XGPU_SCALAR_UINT};
    a.value.u64 = v;
    return a;
}
static inline xgpu_arg xgpu_arg_f32(float v) {
    xgpu_arg a = {XGPU_ARG_SCALAR, sizeof v, NULL, {0}, XGPU_SCALAR_FLOAT};
    a.value.f32 = v;
    return a;
}
static inline xgpu_arg xgpu_arg_f64(double v) {
    xgpu_arg a = {XGPU_ARG_SCALAR, sizeof v, NULL, {0}, XGPU_SCALAR_FLOAT};
    a.value.f64 = v;
    return a;
}

/* Launch geometry: `groups[d]` groups of `group_size[d]` work-items in each
 * of `dims` (1..3) dimensions; entries past `dims` are ignored. */
typedef struct xgpu_range {
    uint32_t dims;
    size_t groups[3];
    size_t group_size[3];
} xgpu_range;

static inline xgpu_range xgpu_range_1d(size_t groups, size_t group_size) {
    xgpu_range r = {1, {groups, 1, 1}, {group_size, 1, 1}};
    return r;
}
/* Groups in x and y, then the group's size in x and y. */
static inline xgpu_range xgpu_range_2d(size_t groups_x, size_t groups_y, size_t size_x,
                                       size_t size_y) {
    xgpu_range r = {2, {groups_x, groups_y, 1}, {size_x, size_y, 1}};
    return r;
}
static inline xgpu_range xgpu_range_3d(size_t groups_x, size_t groups_y, size_t groups_z,
                                       size_t size_x, size_t size_y, size_t size_z) {
    xgpu_range r = {3, {groups_x, groups_y, groups_z}, {size_x, size_y, size_z}};
    return r;
}

/* Enqueues the kernel. The runtime checks the arguments against the
 * kernel's signature (count, kind, scalar size and type, buffer context,
 * local memory total) and the geometry against the device's limits before
 * the backend sees them. Work-item ids are 32-bit: each dimension holds at
 * most 2^32 work-items (groups x group_size). When the signature cannot be
 * read from the source (a kernel declared through a macro), the count comes
 * from the backend (OpenCL, CUDA 12.4+ drivers); where the backend cannot
 * count either, the launch is refused. Asynchronous. The kernel may be
 * released as soon as this returns. */
XGPU_API xgpu_status xgpu_launch(xgpu_queue *queue, xgpu_kernel *kernel, const xgpu_range *range,
                                 size_t arg_count, const xgpu_arg *args, xgpu_event **event);

/* ---------------------------------------------------------------------------
 * Library routines: GEMM, reductions and the stream kernels, built from
 * xgpu's own kernel sources on first use and cached per context. They are
 * asynchronous like xgpu_launch, check every argument first, and are as
 * thread-safe as launches (one queue per thread).
 * ------------------------------------------------------------------------- */
typedef enum xgpu_dtype {
    XGPU_F32 = 1,
    XGPU_F64 = 2,
    XGPU_F16 = 3, /* IEEE binary16; GEMM multiplies it on matrix units where the
                     device has them and always accumulates in fp32 */
    XGPU_I32 = 4,
    XGPU_I64 = 5,
    XGPU_U64 = 6,
    XGPU_BF16 = 7 /* bfloat16: fp32's sign and exponent, 7 stored significand bits;
                     GEMM only (storage, fp32 accumulation). New after 0.6.0 */
} xgpu_dtype;

/* Bytes per element, 0 for a value not in the enum. */
XGPU_API size_t xgpu_dtype_size(xgpu_dtype dtype);
/* "f32", "bf16", ... or "unknown". */
XGPU_API const char *xgpu_dtype_name(xgpu_dtype dtype);

/* The host's conversions, bit for bit the kernels' own: round to nearest,
 * ties to even; a NaN stays a NaN (quieted, its sign kept); values beyond
 * the type's range become infinities; subnormals are kept, not flushed.
 * New after 0.6.0. */
XGPU_API uint16_t xgpu_f32_to_bf16(float value);
XGPU_API float xgpu_bf16_to_f32(uint16_t bits);
XGPU_API uint16_t xgpu_f32_to_f16(float value);
XGPU_API float xgpu_f16_to_f32(uint16_t bits);

typedef enum xgpu_layout { XGPU_ROW_MAJOR = 0, XGPU_COL_MAJOR = 1 } xgpu_layout;
typedef enum xgpu_transpose { XGPU_NO_TRANS = 0, XGPU_TRANS = 1 } xgpu_transpose;

/* A matrix in a buffer: its first element at `offset` (in elements) and
 * `ld` elements between the starts of consecutive rows (row-major) or
 * columns (column-major). */
typedef struct xgpu_matrix {
    xgpu_buffer *buffer;
    size_t offset;
    size_t ld;
} xgpu_matrix;

/* GEMM tuning: each group computes a tile_m x tile_n tile of C, each
 * work-item a work_m x work_n block of it; K advances tile_k at a time.
 * tile_m % work_m == 0, tile_n % work_n == 0, and the group
 * (tile_m/work_m) x (tile_n/work_n) must divide tile_m*tile_k and
 * tile_k*tile_n, vector_width times over. Operands whose leading
 * dimension, offset and row length are multiples of vector_width are loaded
 * that many elements at a time. */
typedef struct xgpu_gemm_params {
    uint32_t tile_m, tile_n, tile_k;
    uint32_t work_m, work_n;
    uint32_t vector_width; /* 1; 2 or 4 (f32), 2 (f64): elements per load where aligned */
    /* The kernel family and how a work-item's results lie. The CPU family:
     * 0: a work-item's work_m rows (work_n columns) lie tile_m / work_m
     * (tile_n / work_n) apart, so that neighbouring work-items read
     * neighbouring addresses; 1: they are adjacent, so that a CPU
     * compiler turns each work-item's row of results into vectors. New in
     * 0.5.0. XGPU_GEMM_GPU (2): the GPU family, the default on GPUs: warp
     * tiles, A transposed and both operands double-buffered in local
     * memory, work_m and work_n multiples of 4 (2 for f64); see
     * docs/tuning.md. */
    uint32_t contiguous;
} xgpu_gemm_params;
#define XGPU_GEMM_GPU 2u
/* XGPU_GEMM_FRAGMENTS (3): the matrix-fragment family, which runs f16,
 * bf16 and tf32 GEMMs (on matrix units where the device has them: CUDA
 * mma.sync on sm_80 and newer, AMD MFMA on gfx908/gfx90a/gfx94x; on the
 * SIMT lanes elsewhere, with the same fragments). tile_m x tile_n is the
 * group's tile, tile_k its K step (a multiple of 16; 8 for tf32);
 * work_m x work_n is one warp's tile (multiples of the fragment's 16 x 8;
 * 32 x 32 on MFMA), so a group has (tile_m / work_m) * (tile_n / work_n)
 * warps of 32 work-items (64 on AMD); vector_width is elements per global
 * load where aligned (1, 2, 4 or 8). New after 0.6.0. */
#define XGPU_GEMM_FRAGMENTS 3u
/* XGPU_GEMM_REGISTERS (4): the register family, the default for f32 and
 * f64 on pocl's CPU devices (OpenCL only; f16 keeps the CPU family). Each
 * work-item computes tile_m rows by work_n columns of C, work_m rows at a
 * time in OpenCL vectors (work_n a multiple of 16 for f32, 8 for f64);
 * a group is tile_n / work_n work-items sharing op(B)'s tile_k x tile_n
 * block in local memory; vector_width is 1. New after 0.6.0. */
#define XGPU_GEMM_REGISTERS 4u

/* xgpu_gemm_desc.flags */
/* fp32 GEMM may multiply in tf32 (fp32 range, 10 significand bits, inputs
 * rounded to nearest) on matrix units, accumulating in fp32, where the
 * device has them (CUDA sm_80 and newer); elsewhere it computes in fp32.
 * Off by default. xgpu_gemm_choose says which ran. */
#define XGPU_GEMM_ALLOW_TF32 1u

/* C = alpha * op(A) * op(B) + beta * C with C m x n, op(A) m x k, op(B)
 * k x n. beta == 0 means C is not read (it may hold anything, NaN too);
 * alpha == 0 means A and B are not read (C = beta * C), as in reference
 * BLAS. m or n == 0 does nothing; k == 0 scales C by beta.
 * C may share a buffer with A or B but no element: the check looks at the
 * elements each matrix touches (its rows or columns of stored length, `ld`
 * apart), so A or B may lie in the gap between C's rows when C's ld is
 * larger than its row; a shared element is XGPU_ERROR_INVALID_ARGUMENT.
 * (0.2.0 compared whole [offset, offset + rows * ld) spans and refused
 * the gap.) */
/* Types: dtype is A's and B's element type; C is c_dtype (0: dtype).
 * f32 x f32 -> f32, f64 x f64 -> f64 (where the device has fp64), and the
 * mixed-precision GEMMs f16 x f16 -> f16 or f32, bf16 x bf16 -> bf16 or
 * f32, which accumulate in fp32 and round C once (to nearest even). alpha
 * and beta are applied in the accumulator's precision. Another pair is
 * XGPU_ERROR_UNSUPPORTED naming the types and the device.
 *
 * Strided-batched GEMM (batch > 1): `batch` independent GEMMs of one
 * shape, the i-th reading A at a.offset + i * stride_a, B at b.offset +
 * i * stride_b and writing C at c.offset + i * stride_c (strides in
 * elements). A and B may be shared (stride 0) or overlap between
 * batches; no element of one batch's C may be another batch's C, A or B
 * (XGPU_ERROR_INVALID_ARGUMENT), and every batch must fit its buffer and
 * 32-bit indexing (XGPU_ERROR_INVALID_SIZE); an offset plus strides that
 * overflow size_t is XGPU_ERROR_INVALID_SIZE too. The check of C against
 * C is exact (batches may interleave: attention's heads side by side, C
 * seq x dim with ld = heads * dim and stride_c = dim, is accepted); the
 * check of C against A and B is exact for every pair of batches whose
 * spans meet up to 2^24 row comparisons, and beyond that refuses any such
 * pair (the message says so). Messages name the batches. batch 0 or 1 is
 * one GEMM and the strides are ignored.
 *
 * Kernels: f32 and f64 run the SIMT kernels (kernels/gemm.xgpu); f16 and
 * bf16 the fragment kernel (kernels/gemm_mma.xgpu), and f32 with
 * XGPU_GEMM_ALLOW_TF32 too where the device has tensor cores. Explicit
 * parameters (params, XGPU_GEMM_PARAMS) choose the family: SIMT-family
 * ones run f16 -> f16 on 0.6.0's SIMT kernel (fp32 in local memory) and
 * make bf16 and f16 -> f32 fail XGPU_ERROR_UNSUPPORTED; fragment-family
 * ones (contiguous = XGPU_GEMM_FRAGMENTS) make f32 without the tf32 flag
 * and f64 fail XGPU_ERROR_INVALID_ARGUMENT. XGPU_GEMM_PATH=fragments runs
 * the fragment kernel on SIMT lanes on any device (tf32 emulated by
 * rounding the inputs), =fragments-mfma the same with MFMA's 32x32x8 layout
 * on 64 lanes (f16, bf16), =simt the SIMT kernels only, =auto (or unset) the
 * device's choice; another value is XGPU_ERROR_INVALID_ARGUMENT.
 *
 * The members after `params` are new after 0.6.0; zero keeps 0.6.0's
 * behaviour. Code built against 0.6.0 must be rebuilt (the struct grew). */
typedef struct xgpu_gemm_desc {
    xgpu_dtype dtype; /* of A and B: XGPU_F32, XGPU_F64, XGPU_F16, XGPU_BF16 */
    xgpu_layout layout;
    xgpu_transpose trans_a, trans_b;
    size_t m, n, k;
    double alpha, beta;
    xgpu_matrix a, b, c;
    const xgpu_gemm_params *params; /* NULL: the default for the device */
    xgpu_dtype c_dtype;             /* 0: dtype; XGPU_F32 for f16/bf16 inputs */
    uint32_t flags;                 /* XGPU_GEMM_ALLOW_TF32 */
    size_t batch;                   /* 0 or 1: one GEMM */
    size_t stride_a, stride_b, stride_c;
} xgpu_gemm_desc;

XGPU_API xgpu_status xgpu_gemm(xgpu_queue *queue, const xgpu_gemm_desc *desc, xgpu_event **event);

/* What xgpu_gemm would run for `desc` on this queue's device. */
typedef struct xgpu_gemm_choice {
    const char *path;    /* "simt" (the SIMT kernels, fp32/fp64 arithmetic),
                            "fragments" (the fragment kernel on SIMT lanes),
                            "mma.sync" (CUDA tensor cores), "mfma" (AMD matrix cores),
                            "fragments-mfma" (MFMA's layout on SIMT lanes, on request) */
    const char *compute; /* the multiply's input precision: "f32", "f64", "tf32",
                            "f16" or "bf16"; accumulation is fp32 except for "f64" */
    xgpu_gemm_params params;
    char source[80]; /* where params came from, as xgpu_tune_choice.source says it */
} xgpu_gemm_choice;

/* Checks `desc` as xgpu_gemm does and fills *choice; enqueues nothing.
 * New after 0.6.0. */
XGPU_API xgpu_status xgpu_gemm_choose(xgpu_queue *queue, const xgpu_gemm_desc *desc,
                                      xgpu_gemm_choice *choice);
/* The built-in parameters for this device and dtype (the variable
 * XGPU_GEMM_PARAMS="tile_m,tile_n,tile_k,work_m,work_n[,vector_width[,contiguous]]"
 * overrides them). xgpu_gemm prefers a tuning database entry that fits the
 * device (xgpu_tune_lookup says which). f16 and bf16 get the fragment
 * family's values on the device's own path (0.6.0 gave f16 SIMT values). */
XGPU_API xgpu_status xgpu_gemm_default_params(const xgpu_device *device, xgpu_dtype dtype,
                                              xgpu_gemm_params *params);

typedef enum xgpu_reduce_op {
    XGPU_REDUCE_SUM = 1,
    XGPU_REDUCE_MIN = 2,
    XGPU_REDUCE_MAX = 3,
    XGPU_REDUCE_ARGMAX = 4 /* index of the first maximum; NaN never wins */
} xgpu_reduce_op;

/* The dtype xgpu_reduce writes: XGPU_I64 for a sum of XGPU_I32, XGPU_U64
 * (an index) for argmax, else the input dtype. 0 when unsupported. */
XGPU_API xgpu_dtype xgpu_reduce_result_dtype(xgpu_reduce_op op, xgpu_dtype dtype);

/* Reduces n elements of `in` starting at element `offset` (dtype f32, f64,
 * i32 or i64) into element `out_offset` of `out`, whose elements are of
 * xgpu_reduce_result_dtype(op, dtype): both offsets count elements, as
 * xgpu_matrix offsets do (0.2.0 counted out_offset in bytes). n == 0
 * gives the identity: 0, +inf / INT_MAX, -inf / INT_MIN, UINT64_MAX for
 * argmax. fp32 sums are compensated within each work-item and tree-summed
 * across them. */
XGPU_API xgpu_status xgpu_reduce(xgpu_queue *queue, xgpu_reduce_op op, xgpu_dtype dtype,
                                 xgpu_buffer *in, size_t offset, size_t n, xgpu_buffer *out,
                                 size_t out_offset, xgpu_event **event);

typedef enum xgpu_stream_op {
    XGPU_STREAM_COPY = 1,  /* c = a */
    XGPU_STREAM_MUL = 2,   /* b = scalar * c */
    XGPU_STREAM_ADD = 3,   /* c = a + b */
    XGPU_STREAM_TRIAD = 4, /* a = b + scalar * c */
    XGPU_STREAM_DOT = 5    /* out[0] = sum(a * b) */
} xgpu_stream_op;

/* The BabelStream kernels over n elements (f32 or f64) of buffers a, b, c
 * (those the operation uses; others may be NULL); `out` receives the dot
 * product. */
XGPU_API xgpu_status xgpu_stream(xgpu_queue *queue, xgpu_stream_op op, xgpu_dtype dtype,
                                 xgpu_buffer *a, xgpu_buffer *b, xgpu_buffer *c, double scalar,
                                 size_t n, xgpu_buffer *out, xgpu_event **event);

/* ---------------------------------------------------------------------------
 * Tuning: the library kernels' launch parameters per device
 *
 * xgpu_gemm (without desc->params or XGPU_GEMM_PARAMS), xgpu_reduce and
 * xgpu_stream take their parameters from the tuning database when an entry
 * fits, closest first: the same device, driver, compiler, kernel source and
 * xgpu version; the same driver family (backend, and for OpenCL the
 * platform) and arch (an entry of this device measured under another driver
 * version, compiler or xgpu counts here, as stale); the same driver family,
 * vendor and device type. Entries of another driver family (another OpenCL
 * implementation on the same CPU, say) are never used: they are warm starts
 * for xgpu_tune, and the built-in default runs. The user's database
 * (XGPU_TUNE_DB, else tune.json in xgpu's cache folder) wins ties with the
 * entries built into the library. XGPU_TUNE=auto: the first call of a kind
 * on a device without an exact entry first runs a quick tune
 * (XGPU_TUNE_BUDGET_S seconds, 3 by default) and stores its winner in the
 * user's database; a failed tune changes nothing. XGPU_TUNE=off
 * uses the built-in defaults only. Each context remembers its choices: after
 * the first call of a kind, a lookup is a lock and a short scan.
 * Kernels: "gemm", "sum", "minmax" (min and max), "argmax", "stream".
 * "gemm" with XGPU_F16 or XGPU_BF16 is the fragment family on the
 * device's own path (entries of another family are passed over); tf32
 * is not tuned and runs its built-in parameters.
 * Shape classes: GEMM "small" up to 512^3 multiply-adds, else "large"; the
 * others "small" up to 16 MiB, else "large". New in 0.5.0.
 * ------------------------------------------------------------------------- */

/* Where a choice came from (xgpu_tune_choice.origin). */
typedef enum xgpu_tune_origin {
    XGPU_TUNE_ORIGIN_BUILTIN = 0,  /* the built-in default: no entry fits */
    XGPU_TUNE_ORIGIN_OFF = 1,      /* the built-in default because XGPU_TUNE=off */
    XGPU_TUNE_ORIGIN_DATABASE = 2, /* an entry of a tuning database */
    XGPU_TUNE_ORIGIN_AUTO = 3,     /* an entry XGPU_TUNE=auto measured at first use
                                      (the user's database); new after 0.6.0 */
    XGPU_TUNE_ORIGIN_ENV = 4       /* XGPU_GEMM_PARAMS, XGPU_REDUCE_PARAMS or
                                      XGPU_STREAM_PARAMS, which every call then uses
                                      instead of any entry; new after 0.6.0 */
} xgpu_tune_origin;

/* How closely a database entry fits the device (xgpu_tune_choice.fit), in
 * the lookup's order; XGPU_TUNE_FIT_NONE for a default. */
typedef enum xgpu_tune_fit {
    XGPU_TUNE_FIT_NONE = 0,
    XGPU_TUNE_FIT_DEVICE = 1,     /* this device (stale: measured under another
                                     driver, compiler or xgpu) */
    XGPU_TUNE_FIT_ARCH = 2,       /* another device of the same backend and arch */
    XGPU_TUNE_FIT_VENDOR = 3,     /* the same driver family, vendor and device type */
    XGPU_TUNE_FIT_TYPE = 4,       /* no longer chosen (0.6.0: any entry of the device type) */
    XGPU_TUNE_FIT_WARM_START = 5, /* with XGPU_TUNE_ORIGIN_BUILTIN: entries of other
                                     driver families fit the device type, but only
                                     as warm starts for xgpu_tune; new after 0.6.0 */
    XGPU_TUNE_FIT_OUTDATED = 6    /* with XGPU_TUNE_ORIGIN_BUILTIN: this device's
                                     entries were made with other kernel sources
                                     (another xgpu's tune), which no lookup uses:
                                     tune again; new after 0.6.0 */
} xgpu_tune_fit;

/* origin, fit and shipped say as fields what `source` says in words; a
 * program reads them, never the text. They sit in what were the last 16
 * bytes of 0.6.0's source[96], so the struct's size and the offsets of
 * rate, unit and stale are unchanged (code built against 0.6.0 reads
 * source up to its NUL, which comes before them). */
typedef struct xgpu_tune_choice {
    char params[128]; /* "tm=128,tn=128,tk=16,wm=32,wn=8,vw=1,contig=1" */
    char source[80];  /* "tuned (this device, user database)", "built-in default", ... */
    int32_t origin;   /* an xgpu_tune_origin */
    int32_t fit;      /* an xgpu_tune_fit */
    bool shipped;     /* the entry is one of those built into the library */
    char reserved[7]; /* zero; keeps rate where 0.6.0 had it on every ABI */
    double rate;      /* the entry's measured rate; 0 for a default */
    char unit[12];    /* "GFLOP/s" or "GB/s"; "" for a default */
    bool stale;       /* this device's entry from another driver, compiler or xgpu */
} xgpu_tune_choice;

/* What a call of `kernel` on `dtype` over `size` (GEMM: m * n * k; the
 * others: bytes of input) would use on the context's device now. GEMM
 * takes f32, f64, f16 and bf16.
 * It never tunes: under XGPU_TUNE=auto, the first call does that. */
XGPU_API xgpu_status xgpu_tune_lookup(xgpu_context *context, const char *kernel, xgpu_dtype dtype,
                                      size_t size, xgpu_tune_choice *choice);

/* Where tunes are stored: XGPU_TUNE_DB, else tune.json in xgpu's cache
 * folder. XGPU_ERROR_UNSUPPORTED when neither can be named. */
XGPU_API xgpu_status xgpu_tune_db_path(char *path, size_t size);

/* Whether the library takes `value` (NULL or "": unset) for the tuning
 * variable `name`, "XGPU_TUNE" or "XGPU_TUNE_BUDGET_S", as given. The
 * library reads a value it does not know as the default (the database; 3
 * s) and warns only under XGPU_LOG=warn: a program may check first and
 * refuse. XGPU_ERROR_INVALID_ARGUMENT for such a value, xgpu_last_error()
 * saying what the library does instead ("XGPU_TUNE='autoo' is not one of
 * on, off, auto (or 1, 0); the tuning database is used"), and for a NULL
 * or other name. Reads no environment, needs no device. New after 0.6.0. */
XGPU_API xgpu_status xgpu_tune_setting_check(const char *name, const char *value);

typedef struct xgpu_tune_progress {
    const char *kernel, *shape_class; /* "gemm", "large" */
    xgpu_dtype dtype;
    size_t size;            /* the problem measured: GEMM n (n^3), else bytes */
    unsigned done, planned; /* candidates measured in this class; planned so far */
    const char *params;     /* the candidate just measured */
    /* "ok", "wrong", "build", "launch", "resumed"; "confirm": GEMM's large
       class times its winner and the built-in at twice the n it searched
       (size), and keeps the winner unless it is over 2% slower there */
    const char *status;
    double rate, best_rate; /* of the candidate and of the best so far */
    const char *unit;
    double elapsed_s, budget_s;
} xgpu_tune_progress;

typedef struct xgpu_tune_options {
    double seconds;  /* budget per kernel, dtype and shape class; 0: 20; negative: an error.
                        A candidate starts only within it, and the first
                        (the built-in) always runs: a candidate started
                        in time runs to its end, kernel build included */
    bool restart;    /* forget this device's earlier candidates: no resume */
    const char *db;  /* NULL: xgpu_tune_db_path's; not "" */
    size_t max_size; /* 0: the classes' standard problems; else at most
                        this many bytes per buffer (small devices, tests) */
    void (*progress)(void *user, const xgpu_tune_progress *p); /* may be NULL */
    void *user;
} xgpu_tune_options;

typedef struct xgpu_tune_summary {
    unsigned measured;      /* candidates run in this call (failures included) */
    unsigned resumed;       /* skipped: measured by an earlier, interrupted tune */
    unsigned failed;        /* wrong results, build or launch failures */
    size_t size[2];         /* per class (small, large): the problem measured (GEMM n,
                               else bytes); 0 when the class did not fit max_size or
                               the device and was not tuned */
    double best_rate[2];    /* per class; 0 when none verified */
    double default_rate[2]; /* the built-in default's rate, measured alike */
    char best[2][128];      /* "" when none verified */
    char warning[512];      /* about the database, e.g. a damaged file set aside; "" */
} xgpu_tune_summary;

/* Searches the parameters of `kernel` for `dtype` on the queue's device,
 * class by class, within the time budget: the built-in default, this
 * device's stale entry and the same arch's entry first, then a list of
 * likely shapes, then neighbours of the best. Every candidate's result is
 * checked against a host reference before it may win; failures are
 * recorded and never retried. GEMM's large class (searched at 1024^3)
 * keeps its winner unless it is more than 2% slower than the built-in at
 * 2048^3, timed side by side after the search (outside the budget); else
 * the built-in is stored as the best. After each candidate the
 * record is stored (complete: false until the candidates run out), so an
 * interrupted tune resumes where it stopped, and a later tune goes on
 * from the best so far. Two tunes of one device at once merge their
 * candidates. A database file that does not parse is moved aside
 * (summary->warning says where); one that cannot be read or is no regular
 * file fails XGPU_ERROR_IO, untouched.
 * Later calls in this process, and every later process, use the winner. */
XGPU_API xgpu_status xgpu_tune(xgpu_queue *queue, const char *kernel, xgpu_dtype dtype,
                               const xgpu_tune_options *options, xgpu_tune_summary *summary);

#ifdef __cplusplus
}
#endif
#endif /* XGPU_H */
