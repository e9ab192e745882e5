/* Each framework against this machine: what it was built for (CUDA x.y,
 * ROCm x.y, CPU only), whether the driver or runtime here can run that,
 * whether the GPU's architecture is among those the build ships, and the
 * one step that mends what does not fit. The figures are fw_cuda.c's. */
#include "fw.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *fw_status_tag(fw_status s) {
    switch (s) {
    case FW_OK:
        return "ok";
    case FW_INFO:
        return "info";
    case FW_WARN:
        return "WARN";
    case FW_FAIL:
        return "FAIL";
    }
    return "?";
}

static void set(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set(char *buf, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

/* Appends to a finding. */
static void add(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t size, const char *fmt, ...) {
    size_t n = strlen(buf);
    if (n + 1 >= size) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, size - n, fmt, ap);
    va_end(ap);
}

static void verdict(fw_verdict *v, fw_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void verdict(fw_verdict *v, fw_status s, const char *fmt, ...) {
    v->status = s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->finding, sizeof v->finding, fmt, ap);
    va_end(ap);
}

/* "CUDA 12.8", "CUDA 12.x", "ROCm 6.2". */
static void release(char *out, size_t size, const char *what, int major, int minor) {
    if (major < 0) {
        set(out, size, "%s (release unknown)", what);
    } else if (minor < 0) {
        set(out, size, "%s %d.x", what, major);
    } else {
        set(out, size, "%s %d.%d", what, major, minor);
    }
}

/* How the entry's line names its build. */
static void build_name(const fw_entry *e, char *out, size_t size) {
    char r[48];
    release(r, sizeof r, e->build == FW_BUILD_ROCM ? "ROCm" : "CUDA", e->major, e->minor);
    if (e->kind == FW_NVIDIA) {
        set(out, size, "for %s", r);
    } else if (e->build == FW_BUILD_CPU) {
        set(out, size, "CPU-only build");
    } else {
        set(out, size, "%s build", r);
    }
}

/* ---- fixes --------------------------------------------------------------- */

/* The one step that installs e's framework built for CUDA major.minor. */
static void fix_cuda(const fw_entry *e, int major, int minor, char *out, size_t size) {
    const char *index = fw_torch_index(false, major, minor);
    switch (e->kind) {
    case FW_TORCH:
        if (index) {
            set(out, size,
                "pip install --force-reinstall torch --index-url "
                "https://download.pytorch.org/whl/%s",
                index);
        } else {
            set(out, size, "no PyTorch wheel runs on a driver for CUDA %d.%d: upgrade the driver",
                major, minor);
        }
        break;
    case FW_TENSORFLOW:
        if (major >= 12) {
            set(out, size, "pip install --force-reinstall 'tensorflow[and-cuda]'");
        } else {
            set(out, size, "install a TensorFlow built for CUDA %d (tensorflow.org/install/pip)",
                major);
        }
        break;
    case FW_JAX:
    case FW_JAXLIB:
    case FW_JAX_PLUGIN:
        if (major >= 12) {
            set(out, size, "pip install -U \"jax[cuda%d]\"", major >= 13 ? 13 : 12);
        } else {
            set(out, size, "no current JAX runs on a driver for CUDA %d: upgrade the driver",
                major);
        }
        break;
    case FW_CUPY:
        set(out, size, "pip uninstall -y %s && pip install cupy-cuda%dx", e->name,
            major >= 13  ? 13
            : major < 11 ? 11
                         : major);
        break;
    case FW_PADDLE:
        set(out, size,
            "pip install paddlepaddle-gpu from the index for CUDA %d (paddlepaddle.org.cn names "
            "one per CUDA release)",
            major);
        break;
    case FW_NVIDIA:
        set(out, size, "%s comes with the framework that needs it: install that one's CUDA build",
            e->name);
        break;
    }
}

/* The same for ROCm major.minor. */
static void fix_rocm(const fw_entry *e, int major, int minor, char *out, size_t size) {
    const char *index = fw_torch_index(true, major, minor);
    switch (e->kind) {
    case FW_TORCH:
        if (index) {
            set(out, size,
                "pip install --force-reinstall torch --index-url "
                "https://download.pytorch.org/whl/%s",
                index);
        } else {
            set(out, size, "no PyTorch wheel is built for ROCm %d.%d: upgrade ROCm", major, minor);
        }
        break;
    case FW_TENSORFLOW:
        set(out, size, "pip install --force-reinstall tensorflow-rocm");
        break;
    case FW_CUPY:
        set(out, size, "pip uninstall -y %s && pip install cupy-rocm-%d-%d", e->name, major,
            minor < 0 ? 0 : minor);
        break;
    default:
        set(out, size, "install %s's ROCm %d build (its documentation names the wheel)", e->name,
            major);
        break;
    }
}

/* ---- CUDA architectures -------------------------------------------------- */

typedef enum arch_fit { ARCH_NONE, ARCH_PTX, ARCH_SASS } arch_fit;

/* Whether the build's list runs on sm_`sm`: code for it (an sm_XY of the
 * same major and no newer minor runs there; sm_XYa only on XY itself), or
 * PTX it can JIT (compute_XY with XY <= sm). The item that fits best (the
 * newest) in via. */
static arch_fit arch_fit_of(const char *archs, int sm, char *via, size_t size) {
    arch_fit best = ARCH_NONE;
    int best_v = -1;
    via[0] = '\0';
    for (const char *p = archs; *p;) {
        size_t len = strcspn(p, ",");
        char item[32];
        snprintf(item, sizeof item, "%.*s", (int)(len < 31 ? len : 31), p);
        p += len + (p[len] == ',');
        int v = 0;
        char suffix = '\0';
        bool code = sscanf(item, "sm_%d%c", &v, &suffix) >= 1;
        bool ptx = !code && sscanf(item, "compute_%d%c", &v, &suffix) >= 1;
        bool exact_only = suffix == 'a';
        bool fits_code = code && (exact_only ? v == sm : v / 10 == sm / 10 && v % 10 <= sm % 10);
        bool fits_ptx = ptx && (exact_only ? v == sm : v <= sm);
        arch_fit fit = fits_code ? ARCH_SASS : fits_ptx ? ARCH_PTX : ARCH_NONE;
        if (fit != ARCH_NONE && (fit > best || (fit == best && v > best_v))) {
            best = fit;
            best_v = v;
            snprintf(via, size, "%s", item);
        }
    }
    return best;
}

/* ---- the rules ----------------------------------------------------------- */

static void judge_cpu(const fw_entry *e, const fw_host *h, fw_verdict *v) {
    const char *what = e->kind == FW_JAXLIB
                           ? "jaxlib without a GPU plugin (jax-cuda12-plugin): JAX "
                             "runs on the CPU only"
                           : "CPU-only build";
    if (h->cuda_gpus) {
        verdict(v, FW_FAIL, "%s on a machine with an NVIDIA GPU (%s, %s): it never uses the GPU",
                what, h->cuda[0].arch, h->cuda[0].path);
        fix_cuda(e, h->cuda_major, h->cuda_minor, v->fix, sizeof v->fix);
    } else if (h->hip_gpus) {
        verdict(v, FW_FAIL, "%s on a machine with an AMD GPU (%s, %s): it never uses the GPU", what,
                h->hip[0].arch, h->hip[0].path);
        fix_rocm(e, h->rocm_major, h->rocm_minor, v->fix, sizeof v->fix);
    } else {
        verdict(v, FW_OK, "%s; no GPU is reached here", what);
    }
}

/* No CUDA device: why, as the doctor's cuda lines say. */
static void cuda_without_gpu(const fw_entry *e, const fw_host *h, const char *build,
                             fw_verdict *v) {
    bool library = e->kind == FW_NVIDIA;
    const char *compat = fw_minor_compat_driver(e->major);
    if (h->hip_gpus && library) {
        verdict(v, FW_INFO, "%s: not used here (the GPU is AMD's)", build);
    } else if (h->hip_gpus) {
        verdict(v, FW_FAIL,
                "%s on a machine whose GPU is AMD's (%s, %s): its GPU path cannot run here", build,
                h->hip[0].arch, h->hip[0].path);
        fix_rocm(e, h->rocm_major, h->rocm_minor, v->fix, sizeof v->fix);
    } else if (library) {
        verdict(v, FW_INFO, "%s: not used here (%s)", build,
                h->nvidia_driver ? "the NVIDIA driver reaches no GPU"
                                 : "no NVIDIA driver is loaded");
    } else if (h->nvidia_driver) {
        verdict(v, FW_WARN,
                "%s: the NVIDIA driver is loaded but reaches no GPU, so its GPU path cannot run "
                "here (the cuda lines above say why)",
                build);
    } else {
        verdict(v, FW_WARN, "%s: no NVIDIA driver is loaded, so its GPU path cannot run here",
                build);
        if (compat) {
            set(v->fix, sizeof v->fix,
                "where there is an NVIDIA GPU, install its driver: >= %s runs any CUDA %d.x build",
                compat, e->major);
        } else {
            set(v->fix, sizeof v->fix, "where there is an NVIDIA GPU, install its driver");
        }
    }
}

/* The build's architectures against each CUDA GPU; `mvc`: the build is
 * newer than the driver (minor-version compatibility). */
static void judge_archs(const fw_entry *e, const fw_host *h, bool mvc, fw_verdict *v) {
    for (unsigned g = 0; g < h->cuda_gpus; g++) {
        const fw_gpu *gpu = &h->cuda[g];
        char via[32];
        if (gpu->sm <= 0) {
            continue;
        }
        arch_fit fit = arch_fit_of(e->archs, gpu->sm, via, sizeof via);
        if (fit == ARCH_NONE) {
            verdict(v, FW_FAIL,
                    "built for %s: neither code for this GPU's %s (%s) nor PTX it can compile; "
                    "its kernels fail with \"no kernel image is available\"",
                    e->archs, gpu->arch, gpu->path);
            set(v->fix, sizeof v->fix, "install a %s build that includes %s (a newer release)",
                e->name, gpu->arch);
            return;
        }
        if (fit == ARCH_PTX && mvc) {
            const char *drv = fw_toolkit_driver(e->major, e->minor);
            verdict(
                v, FW_FAIL,
                "this GPU's %s (%s) runs only the build's PTX (%s), and a driver for CUDA %d.%d "
                "cannot compile PTX of CUDA %d.%d: minor-version compatibility does not cover "
                "PTX",
                gpu->arch, gpu->path, via, h->cuda_major, h->cuda_minor, e->major, e->minor);
            if (drv) {
                set(v->fix, sizeof v->fix, "upgrade the NVIDIA driver to >= %s (CUDA %d.%d's)", drv,
                    e->major, e->minor);
            } else {
                set(v->fix, sizeof v->fix, "upgrade the NVIDIA driver to one for CUDA %d.%d",
                    e->major, e->minor);
            }
            return;
        }
        add(v->finding, sizeof v->finding,
            fit == ARCH_SASS ? "; %s code for %s" : "; %s PTX for %s (compiled at first use)", via,
            gpu->arch);
    }
}

static void judge_cuda(const fw_entry *e, const fw_host *h, fw_verdict *v) {
    char build[64];
    build_name(e, build, sizeof build);
    if (e->major < 0) {
        verdict(v, FW_INFO, "a CUDA build; which release is not recorded");
        return;
    }
    if (!h->cuda_gpus) {
        cuda_without_gpu(e, h, build, v);
        return;
    }
    int dm = h->cuda_major, dn = h->cuda_minor;
    /* A "12.x" build may be any 12: minor-version compatibility makes it
     * run on a driver for 12.0. */
    int bn = e->minor < 0 ? 0 : e->minor;
    bool too_old = dm < e->major || (e->major < 11 && dm == e->major && dn < bn);
    if (too_old) {
        const char *compat = fw_minor_compat_driver(e->major);
        const char *drv = e->minor >= 0 ? fw_toolkit_driver(e->major, e->minor) : NULL;
        char rel[48], needs[96], alt[384] = "";
        release(rel, sizeof rel, "CUDA", e->major, e->minor);
        if (compat) {
            set(needs, sizeof needs, "CUDA %d.0 or newer (>= %s)", e->major, compat);
        } else {
            set(needs, sizeof needs,
                "%s or newer (before CUDA 11 a build needs its own "
                "release's driver)",
                rel);
        }
        verdict(v, FW_FAIL, "%s: needs a driver for %s; this driver supports CUDA %d.%d", build,
                needs, dm, dn);
        if (drv && compat) {
            set(v->fix, sizeof v->fix, "upgrade the NVIDIA driver to >= %s (%s's own: %s)", compat,
                rel, drv);
        } else if (drv) {
            set(v->fix, sizeof v->fix, "upgrade the NVIDIA driver to >= %s (%s's)", drv, rel);
        } else if (compat) {
            set(v->fix, sizeof v->fix, "upgrade the NVIDIA driver to >= %s (any CUDA %d.x)", compat,
                e->major);
        } else {
            set(v->fix, sizeof v->fix, "upgrade the NVIDIA driver to one for %s", rel);
        }
        if (e->kind != FW_NVIDIA) {
            fix_cuda(e, dm, dn, alt, sizeof alt);
            if (strncmp(alt, "no ", 3)) { /* not "no wheel runs there" */
                add(v->fix, sizeof v->fix, ", or: %s", alt);
            }
        }
        return;
    }
    bool mvc = dm == e->major && dn < bn && e->major >= 11;
    if (mvc && e->kind == FW_NVIDIA) {
        verdict(v, FW_OK, "%s: runs on this driver for CUDA %d.%d (minor-version compatibility)",
                build, dm, dn);
    } else if (mvc) {
        verdict(v, FW_OK,
                "%s: runs under minor-version compatibility on this driver for CUDA %d.%d (which "
                "cannot compile CUDA %d.%d's PTX, and lacks what needs a newer driver)",
                build, dm, dn, e->major, bn);
    } else {
        verdict(v, FW_OK, "%s: this driver supports CUDA %d.%d", build, dm, dn);
    }
    if (e->archs_known) {
        judge_archs(e, h, mvc, v);
    } else if (e->kind != FW_NVIDIA && e->kind != FW_JAX_PLUGIN && e->kind != FW_CUPY) {
        add(v->finding, sizeof v->finding, "; its CUDA architectures: not recorded in a file");
    }
}

static void judge_rocm(const fw_entry *e, const fw_host *h, fw_verdict *v) {
    char build[64];
    build_name(e, build, sizeof build);
    if (!h->hip_gpus) {
        if (h->cuda_gpus) {
            verdict(v, FW_FAIL, "%s on a machine whose GPU is NVIDIA's (%s, %s): it never uses it",
                    build, h->cuda[0].arch, h->cuda[0].path);
            fix_cuda(e, h->cuda_major, h->cuda_minor, v->fix, sizeof v->fix);
        } else if (h->rocm_runtime) {
            verdict(v, FW_WARN,
                    "%s: the ROCm runtime is loaded but finds no AMD GPU, so its GPU path cannot "
                    "run here (the hip lines above say why)",
                    build);
        } else {
            verdict(v, FW_WARN,
                    "%s: no ROCm runtime with an AMD GPU here, so its GPU path cannot run", build);
        }
        return;
    }
    int rm = h->rocm_major, rn = h->rocm_minor;
    if (e->major < 0 || rm < 0) {
        verdict(v, FW_INFO, "%s; the ROCm runtime's release is %s", build,
                rm < 0 ? "unknown" : "known, the build's not");
        return;
    }
    if (e->major != rm) {
        verdict(v, FW_FAIL, "%s; the ROCm runtime here is %d.%d: another major release", build, rm,
                rn);
        fix_rocm(e, rm, rn, v->fix, sizeof v->fix);
    } else if (e->minor > rn) {
        verdict(v, FW_WARN, "%s; the ROCm runtime here is %d.%d, older than the build's", build, rm,
                rn);
        fix_rocm(e, rm, rn, v->fix, sizeof v->fix);
        add(v->fix, sizeof v->fix, " (or upgrade ROCm to %d.%d)", e->major, e->minor);
    } else {
        verdict(v, FW_OK, "%s; the ROCm runtime here is %d.%d", build, rm, rn);
    }
}

/* The user site's packages are installed with --user: the pip of an active
 * venv would install into the venv. */
static void for_user_site(fw_verdict *v) {
    static const char pip[] = "pip install ";
    char *at = strstr(v->fix, pip);
    size_t n = strlen(v->fix);
    if (!at || n + 7 >= sizeof v->fix) {
        return;
    }
    at += sizeof pip - 1;
    memmove(at + 7, at, strlen(at) + 1);
    memcpy(at, "--user ", 7);
}

void fw_judge(const fw_env *env, const fw_entry *e, const fw_host *h, fw_verdict *v) {
    memset(v, 0, sizeof *v);
    switch (e->build) {
    case FW_BUILD_CPU:
        judge_cpu(e, h, v);
        break;
    case FW_BUILD_CUDA:
        judge_cuda(e, h, v);
        break;
    case FW_BUILD_ROCM:
        judge_rocm(e, h, v);
        break;
    case FW_BUILD_UNKNOWN:
        if (e->kind == FW_JAXLIB && e->with[0]) {
            verdict(v, FW_INFO, "the CPU part of JAX; its GPU support is %s's (its own line)",
                    e->with);
        } else if (e->kind == FW_JAX) {
            verdict(v, FW_INFO, "pure Python: what it runs on is jaxlib's and its plugin's");
        } else {
            verdict(v, FW_INFO, "what it was built for is not recorded%s%s%s",
                    e->archs_note[0] ? " (" : "", e->archs_note, e->archs_note[0] ? ")" : "");
        }
        break;
    }
    if (env && env->found_by && !strcmp(env->found_by, "HOME")) {
        for_user_site(v);
    }
}
