/* One site-packages folder: the distributions gpuinfo knows (by their
 * dist-info METADATA), and what each one's generated files say it was
 * built for. One listing of the folder; files opened only for the
 * distributions named in `known`, never a tree walked. */
#define _GNU_SOURCE
#include "fw.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A generated version file is a few KiB (paddle's, the largest, ~5). */
#define VERSION_FILE_MAX ((size_t)256 << 10)
/* METADATA's header comes first; its description can be long. */
#define METADATA_HEAD ((size_t)64 << 10)

static void say(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

/* a/b in out; false when it does not fit. */
static bool join(char *out, size_t size, const char *a, const char *b) {
    int n = snprintf(out, size, "%s/%s", a, b);
    return n >= 0 && (size_t)n < size;
}

static void human_size(char *out, size_t size, uintmax_t bytes) {
    if (bytes >= (uintmax_t)1 << 20) {
        snprintf(out, size, "%.1f MiB", (double)bytes / 1048576.0);
    } else {
        snprintf(out, size, "%ju bytes", bytes);
    }
}

/* Opens a regular file without blocking on a FIFO or taking a terminal;
 * `head`: its first `max` bytes whatever its size. */
static int read_file(const char *path, size_t max, bool head, char **text, size_t *len, char *err,
                     size_t errsize) {
    *text = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int why = errno; /* ENOENT and ENOTDIR tell the callers what to try */
        say(err, errsize, "%s: %s", path, strerror(why));
        errno = why;
        return -1;
    }
    struct stat st;
    char size_text[32];
    int rc = -1;
    char *buf = NULL;
    if (fstat(fd, &st) != 0) {
        say(err, errsize, "%s: %s", path, strerror(errno));
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        say(err, errsize, "%s: not a regular file", path);
        goto done;
    }
    human_size(size_text, sizeof size_text, (uintmax_t)st.st_size);
    if (!head && (uintmax_t)st.st_size > max) {
        say(err, errsize, "%s: %s, more than the %zu KiB a generated file takes: not read", path,
            size_text, max >> 10);
        goto done;
    }
    buf = malloc(max + 1);
    if (!buf) {
        say(err, errsize, "%s: out of memory", path);
        goto done;
    }
    size_t n = 0;
    while (n < max) {
        ssize_t got = read(fd, buf + n, max - n);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            say(err, errsize, "%s: %s", path, strerror(errno));
            goto done;
        }
        if (got == 0) {
            break;
        }
        n += (size_t)got;
    }
    if (!head && n == max) { /* it grew past the limit since fstat */
        char extra;
        if (read(fd, &extra, 1) == 1) {
            say(err, errsize, "%s: more than the %zu KiB a generated file takes: not read", path,
                max >> 10);
            goto done;
        }
    }
    const char *nul = memchr(buf, '\0', n);
    if (nul) {
        say(err, errsize, "%s: binary (a NUL byte at offset %td), not a generated text file", path,
            nul - buf);
        goto done;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    buf = NULL;
    rc = 0;
done:
    free(buf);
    close(fd);
    errno = rc ? EINVAL : 0; /* it exists: not ENOENT */
    return rc;
}

int fw_read_small(const char *path, size_t max, char **text, size_t *len, char *err,
                  size_t errsize) {
    return read_file(path, max, false, text, len, err, errsize);
}

bool fw_parse_release(const char *s, int *major, int *minor) {
    *major = *minor = -1;
    if (!s || !isdigit((unsigned char)s[0])) {
        return false;
    }
    char *end;
    long ma = strtol(s, &end, 10);
    if (ma > 999) {
        return false;
    }
    *major = (int)ma;
    if (*end == '.' && isdigit((unsigned char)end[1])) {
        long mi = strtol(end + 1, NULL, 10);
        *minor = mi > 999 ? 999 : (int)mi;
    }
    return true;
}

/* ---- the distributions gpuinfo knows ---------------------------------- */

/* A distribution's name as PEP 503 compares them: lower case, each run of
 * '-', '_' and '.' one '_'. */
static void normalize(const char *name, size_t len, char *out, size_t size) {
    size_t j = 0;
    for (size_t i = 0; i < len && name[i] && j + 1 < size; i++) {
        char c = name[i];
        if (c == '-' || c == '_' || c == '.') {
            if (j == 0 || out[j - 1] != '_') {
                out[j++] = '_';
            }
        } else {
            out[j++] = (char)tolower((unsigned char)c);
        }
    }
    out[j] = '\0';
}

/* "12" of "cu12" at the end of `s` after `prefix`: digits, then `tail`. */
static bool number_between(const char *s, const char *prefix, const char *tail, int *n) {
    size_t p = strlen(prefix);
    if (strncmp(s, prefix, p) || !isdigit((unsigned char)s[p])) {
        return false;
    }
    char *end;
    long v = strtol(s + p, &end, 10);
    if (strcmp(end, tail) || v > 999) {
        return false;
    }
    *n = (int)v;
    return true;
}

static bool is_one_of(const char *s, const char *const *names) {
    for (size_t i = 0; names[i]; i++) {
        if (!strcmp(s, names[i])) {
            return true;
        }
    }
    return false;
}

/* NVIDIA's wheels: nvidia-<component>[-cuNN]; CUDA 13's have no suffix. */
static bool classify_nvidia(const char *norm, fw_entry *e) {
    static const char *const components[] = {"cuda_runtime", "cudnn", "cublas", "nccl",
                                             "cuda_nvrtc"};
    if (strncmp(norm, "nvidia_", 7)) {
        return false;
    }
    const char *rest = norm + 7;
    for (size_t c = 0; c < sizeof components / sizeof components[0]; c++) {
        size_t n = strlen(components[c]);
        int major;
        if (strncmp(rest, components[c], n)) {
            continue;
        }
        if (rest[n] == '\0') {
            e->major = -1; /* from the version, once read */
        } else if (number_between(rest + n, "_cu", "", &major)) {
            e->major = major;
        } else {
            continue;
        }
        e->kind = FW_NVIDIA;
        e->build = FW_BUILD_CUDA;
        return true;
    }
    return false;
}

/* Fills e->kind (and what the name alone says of the build) when `norm`
 * is a distribution gpuinfo knows. */
static bool classify(const char *norm, fw_entry *e) {
    static const char *const tensorflows[] = {
        "tensorflow", "tensorflow_gpu", "tensorflow_cpu", "tensorflow_rocm",
        "tf_nightly", "tf_nightly_gpu", "tf_nightly_cpu", NULL};
    int n;
    e->major = e->minor = -1;
    e->build = FW_BUILD_UNKNOWN;
    if (!strcmp(norm, "torch")) {
        e->kind = FW_TORCH;
    } else if (is_one_of(norm, tensorflows)) {
        e->kind = FW_TENSORFLOW;
    } else if (!strcmp(norm, "jax")) {
        e->kind = FW_JAX;
    } else if (!strcmp(norm, "jaxlib")) {
        e->kind = FW_JAXLIB;
    } else if (number_between(norm, "jax_cuda", "_plugin", &n) ||
               number_between(norm, "jax_cuda", "_pjrt", &n)) {
        e->kind = FW_JAX_PLUGIN;
        e->build = FW_BUILD_CUDA;
        e->major = n;
        snprintf(e->source, sizeof e->source, "its name");
    } else if (!strcmp(norm, "cupy") || !strncmp(norm, "cupy_cuda", 9) ||
               !strncmp(norm, "cupy_rocm_", 10)) {
        e->kind = FW_CUPY;
        const char *v = norm + 9;
        int ma, mi;
        if (!strncmp(norm, "cupy_rocm_", 10) && sscanf(norm + 10, "%3d_%3d", &ma, &mi) == 2) {
            e->build = FW_BUILD_ROCM;
            e->major = ma;
            e->minor = mi;
        } else if (!strncmp(norm, "cupy_cuda", 9) && isdigit((unsigned char)v[0]) &&
                   isdigit((unsigned char)v[1])) {
            /* cupy-cuda12x: CUDA 12.x; cupy-cuda117: 11.7; cupy-cuda92: 9.2. */
            size_t digits = strspn(v, "0123456789");
            e->build = FW_BUILD_CUDA;
            if (!strcmp(v + digits, "x") && digits <= 3) {
                e->major = atoi(v);
            } else if (v[digits] == '\0' && (digits == 2 || digits == 3)) {
                e->minor = v[digits - 1] - '0';
                e->major = atoi(v) / 10;
            } else {
                e->build = FW_BUILD_UNKNOWN;
            }
        }
        if (e->build != FW_BUILD_UNKNOWN) {
            snprintf(e->source, sizeof e->source, "its name");
        }
    } else if (!strcmp(norm, "paddlepaddle_gpu") || !strcmp(norm, "paddlepaddle")) {
        e->kind = FW_PADDLE;
    } else if (!classify_nvidia(norm, e)) {
        return false;
    } else {
        snprintf(e->source, sizeof e->source, "its name");
    }
    return true;
}

/* ---- METADATA ---------------------------------------------------------- */

/* A header's value, trimmed, printable ASCII, into out. */
static void header_value(const char *v, size_t len, char *out, size_t size) {
    while (len && (*v == ' ' || *v == '\t')) {
        v++, len--;
    }
    while (len && (v[len - 1] == ' ' || v[len - 1] == '\t' || v[len - 1] == '\r')) {
        len--;
    }
    size_t j = 0;
    for (size_t i = 0; i < len && j + 1 < size; i++) {
        out[j++] = v[i] >= 0x20 && v[i] < 0x7f ? v[i] : '?';
    }
    out[j] = '\0';
}

/* Name and Version from the header of a METADATA (or PKG-INFO) file; up to
 * the first empty line. Returns what it found: bit 1 Name, bit 2 Version. */
static int metadata_fields(const char *text, char *name, size_t name_size, char *version,
                           size_t version_size) {
    int found = 0;
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        size_t content = len && line[len - 1] == '\r' ? len - 1 : len;
        if (content == 0) {
            break; /* the body starts */
        }
        if (!(found & 1) && content > 5 && !strncasecmp(line, "Name:", 5)) {
            header_value(line + 5, content - 5, name, name_size);
            found |= name[0] ? 1 : 0;
        } else if (!(found & 2) && content > 8 && !strncasecmp(line, "Version:", 8)) {
            header_value(line + 8, content - 8, version, version_size);
            found |= version[0] ? 2 : 0;
        }
        line += len + (line[len] == '\n');
    }
    return found;
}

/* ---- version files ------------------------------------------------------ */

/* What one generated file assigned, for the names asked. */
typedef struct assigned {
    const char *const *names; /* top-level names, then "dict/key" for dict items */
    pl_value values[12];
    bool seen[12];
} assigned;

static void on_assign(void *ctx, const char *name, const char *key, const pl_value *v) {
    assigned *a = ctx;
    char full[256];
    snprintf(full, sizeof full, key ? "%s/%s" : "%s", name, key ? key : "");
    for (size_t i = 0; a->names[i] && i < 12; i++) {
        if (!strcmp(full, a->names[i])) {
            a->values[i] = *v;
            a->seen[i] = true;
        }
    }
}

/* The value of names[i], or NULL when the file did not assign it. */
static const pl_value *got(const assigned *a, size_t i) {
    return a->seen[i] ? &a->values[i] : NULL;
}

/* Reads site/rel into *a. false with e->problem when it cannot be read or
 * parsed (what was assigned before a syntax error is kept); `missing_ok`:
 * a file that does not exist is no problem. */
static bool read_assignments(const fw_env *env, fw_entry *e, const char *rel, assigned *a,
                             bool missing_ok) {
    char path[4600], err[560];
    char *text = NULL;
    size_t len = 0;
    memset(a->seen, 0, sizeof a->seen);
    if (!join(path, sizeof path, env->site, rel)) {
        say(e->problem, sizeof e->problem, "%s/%s: the path is too long", env->site, rel);
        return false;
    }
    if (fw_read_small(path, VERSION_FILE_MAX, &text, &len, err, sizeof err) != 0) {
        if (!(missing_ok && errno == ENOENT)) {
            say(e->problem, sizeof e->problem, "%s", err);
        }
        return false;
    }
    int rc = pl_parse(text, len, on_assign, a, err, sizeof err);
    free(text);
    if (rc != 0) {
        say(e->problem, sizeof e->problem, "%s: %s, not a generated version file", path, err);
        return false;
    }
    return true;
}

/* A string value that names a release ("12.8"); else a problem that says
 * what the file holds instead. */
static bool release_value(fw_entry *e, const char *file, const char *name, const pl_value *v) {
    if (v->kind == PL_STRING && fw_parse_release(v->text, &e->major, &e->minor)) {
        fw_copy(e->build_text, sizeof e->build_text, v->text);
        return true;
    }
    say(e->problem, sizeof e->problem, "%s: %s is %s%s%s, not a release such as '12.8'", file, name,
        v->kind == PL_STRING ? "'" : "", v->kind == PL_STRING ? v->text : "an expression",
        v->kind == PL_STRING ? "'" : "");
    return false;
}

/* The local part of a version ("+cu128", "+rocm6.2", "+cpu"): what torch's
 * wheels say of their build when version.py cannot be read. */
static void build_from_local_tag(fw_entry *e) {
    const char *plus = strchr(e->version, '+');
    if (!plus) {
        return;
    }
    int digits;
    if (!strcmp(plus, "+cpu") || !strncmp(plus, "+cpu.", 5)) {
        e->build = FW_BUILD_CPU;
    } else if (!strncmp(plus, "+cu", 3) && sscanf(plus + 3, "%d", &digits) == 1 && digits >= 10 &&
               digits < 1000) {
        e->build = FW_BUILD_CUDA;
        e->major = digits / 10;
        e->minor = digits % 10;
        snprintf(e->build_text, sizeof e->build_text, "%d.%d", e->major, e->minor);
    } else if (!strncmp(plus, "+rocm", 5) && fw_parse_release(plus + 5, &e->major, &e->minor)) {
        e->build = FW_BUILD_ROCM;
        snprintf(e->build_text, sizeof e->build_text, "%s", plus + 5);
    } else {
        return;
    }
    snprintf(e->source, sizeof e->source, "the version's local tag");
}

static const char torch_archs_note[] =
    "torch records its CUDA architectures only inside its compiled libraries "
    "(torch.cuda.get_arch_list() reads them there)";

static void read_torch(const fw_env *env, fw_entry *e) {
    static const char *const names[] = {"__version__", "cuda", "hip", NULL};
    static const char file[] = "torch/version.py";
    assigned a = {names, {{0}}, {0}};
    snprintf(e->archs_note, sizeof e->archs_note, "%s", torch_archs_note);
    bool ok = read_assignments(env, e, file, &a, false);
    const pl_value *cuda = got(&a, 1), *hip = got(&a, 2);
    if (cuda && cuda->kind == PL_STRING) {
        e->build = FW_BUILD_CUDA;
        release_value(e, file, "cuda", cuda);
    } else if (hip && hip->kind == PL_STRING) {
        e->build = FW_BUILD_ROCM;
        release_value(e, file, "hip", hip);
    } else if (cuda && hip && cuda->kind == PL_NONE && hip->kind == PL_NONE) {
        e->build = FW_BUILD_CPU;
    } else if (ok) {
        say(e->problem, sizeof e->problem,
            "%s/%s: %s, not as torch writes it (cuda and hip are a string or None)", env->site,
            file, !cuda || !hip ? "no cuda or no hip assignment" : "cuda or hip is an expression");
    }
    if (e->build != FW_BUILD_UNKNOWN && !e->problem[0]) {
        snprintf(e->source, sizeof e->source, "%s", file);
    } else {
        e->build = FW_BUILD_UNKNOWN;
        e->major = e->minor = -1;
        build_from_local_tag(e);
    }
}

/* "64_112" (TensorFlow on Windows writes the DLL's suffix) -> 11.2. */
static bool tf_release(const char *s, int *major, int *minor) {
    if (!strncmp(s, "64_", 3) && strlen(s + 3) >= 2 &&
        strspn(s + 3, "0123456789") == strlen(s + 3)) {
        int v = atoi(s + 3);
        *major = v / 10;
        *minor = v % 10;
        return true;
    }
    return fw_parse_release(s, major, minor);
}

/* A list of architectures as a framework writes them ("sm_80",
 * "compute_90", "8.0", 80) into e->archs as sm_XY / compute_XY. */
static void set_archs(fw_entry *e, const pl_value *list) {
    e->archs[0] = '\0';
    size_t n = 0;
    for (const char *p = list->text; *p;) {
        size_t len = strcspn(p, ",");
        char item[64], norm[64];
        snprintf(item, sizeof item, "%.*s", (int)(len < 63 ? len : 63), p);
        int ma, mi;
        if (!strncmp(item, "sm_", 3) || !strncmp(item, "compute_", 8)) {
            snprintf(norm, sizeof norm, "%s", item);
        } else if (strchr(item, '.') && sscanf(item, "%d.%d", &ma, &mi) == 2) {
            snprintf(norm, sizeof norm, "sm_%d%d", ma, mi);
        } else if (isdigit((unsigned char)item[0])) {
            snprintf(norm, sizeof norm, "sm_%.60s", item);
        } else {
            snprintf(norm, sizeof norm, "%s", item);
        }
        int k = snprintf(e->archs + n, sizeof e->archs - n, "%s%s", n ? "," : "", norm);
        if (k < 0 || (size_t)k >= sizeof e->archs - n) {
            break;
        }
        n += (size_t)k;
        p += len + (p[len] == ',');
    }
    e->archs_known = n > 0;
}

static void read_tensorflow(const fw_env *env, fw_entry *e) {
    static const char *const names[] = {"build_info/is_cuda_build",
                                        "build_info/is_rocm_build",
                                        "build_info/cuda_version",
                                        "build_info/cuda_compute_capabilities",
                                        "build_info/rocm_version",
                                        "is_cuda_build",
                                        "is_rocm_build",
                                        "cuda_version_number",
                                        NULL};
    static const char file[] = "tensorflow/python/platform/build_info.py";
    assigned a = {names, {{0}}, {0}};
    if (!read_assignments(env, e, file, &a, true) && !e->problem[0]) {
        snprintf(e->archs_note, sizeof e->archs_note, "no %s in this TensorFlow", file);
        return; /* TensorFlow before 1.13 wrote none */
    }
    const pl_value *cuda_build = got(&a, 0) ? got(&a, 0) : got(&a, 5);
    const pl_value *rocm_build = got(&a, 1) ? got(&a, 1) : got(&a, 6);
    const pl_value *version = got(&a, 2) ? got(&a, 2) : got(&a, 7);
    const pl_value *caps = got(&a, 3);
    if (rocm_build && rocm_build->kind == PL_BOOL && rocm_build->truth) {
        e->build = FW_BUILD_ROCM;
        const pl_value *rv = got(&a, 4);
        if (rv && rv->kind == PL_STRING && fw_parse_release(rv->text, &e->major, &e->minor)) {
            fw_copy(e->build_text, sizeof e->build_text, rv->text);
        }
    } else if (cuda_build && cuda_build->kind == PL_BOOL && cuda_build->truth) {
        e->build = FW_BUILD_CUDA;
        if (version && version->kind == PL_STRING &&
            tf_release(version->text, &e->major, &e->minor)) {
            snprintf(e->build_text, sizeof e->build_text, "%d.%d", e->major, e->minor);
        }
    } else if (cuda_build && cuda_build->kind == PL_BOOL) {
        e->build = FW_BUILD_CPU;
    } else if (!e->problem[0]) {
        say(e->problem, sizeof e->problem, "%s/%s: no is_cuda_build in it", env->site, file);
    }
    if (e->build != FW_BUILD_UNKNOWN) {
        snprintf(e->source, sizeof e->source, "%s", file);
    }
    if (e->build == FW_BUILD_CUDA && caps && caps->kind == PL_LIST && !caps->truncated) {
        set_archs(e, caps);
    }
    if (!e->archs_known) {
        snprintf(e->archs_note, sizeof e->archs_note, "%s lists no CUDA architectures", file);
    }
}

static void read_paddle(const fw_env *env, fw_entry *e) {
    static const char *const names[] = {"cuda_version", "hip_version", "compiled_cuda_archs", NULL};
    static const char file[] = "paddle/version/__init__.py";
    assigned a = {names, {{0}}, {0}};
    if (!read_assignments(env, e, file, &a, false) && !got(&a, 0)) {
        return;
    }
    const pl_value *cuda = got(&a, 0), *hip = got(&a, 1), *archs = got(&a, 2);
    /* Paddle writes the string 'False' for "no CUDA". */
    bool has_cuda = cuda && cuda->kind == PL_STRING && strcmp(cuda->text, "False");
    bool has_hip = hip && hip->kind == PL_STRING && strcmp(hip->text, "False");
    if (has_cuda) {
        e->build = FW_BUILD_CUDA;
        release_value(e, file, "cuda_version", cuda);
    } else if (has_hip) {
        e->build = FW_BUILD_ROCM;
        release_value(e, file, "hip_version", hip);
    } else if (cuda) {
        e->build = FW_BUILD_CPU;
    }
    if (e->build != FW_BUILD_UNKNOWN) {
        snprintf(e->source, sizeof e->source, "%s", file);
    }
    if (e->build == FW_BUILD_CUDA && archs && archs->kind == PL_LIST && archs->items > 0 &&
        !archs->truncated) {
        set_archs(e, archs);
    } else {
        snprintf(e->archs_note, sizeof e->archs_note, "%s lists no compiled_cuda_archs", file);
    }
}

/* ---- the folder ---------------------------------------------------------- */

/* The folder of a distribution's metadata, and its file in it. */
static bool metadata_entry(const char *d_name, size_t *stem, const char **file) {
    size_t len = strlen(d_name);
    if (len > 10 && !strcmp(d_name + len - 10, ".dist-info")) {
        *stem = len - 10;
        *file = "METADATA";
        return true;
    }
    if (len > 9 && !strcmp(d_name + len - 9, ".egg-info")) {
        *stem = len - 9;
        *file = "PKG-INFO"; /* or the .egg-info file itself: tried below */
        return true;
    }
    return false;
}

/* The entry for one distribution's metadata folder `d_name`. */
static void read_distribution(fw_env *env, fw_entry *e, const char *d_name, size_t stem,
                              const char *file, const char *norm) {
    char path[4600], err[560];
    char *text = NULL;
    size_t len = 0;
    /* The folder's name is "<name>-<version>": the fallback for both. */
    const char *dash = memchr(d_name, '-', stem);
    size_t name_len = dash ? (size_t)(dash - d_name) : stem;
    snprintf(e->name, sizeof e->name, "%.*s", (int)(name_len < 63 ? name_len : 63), d_name);
    char folder_version[64] = "";
    if (dash) {
        size_t vl = stem - name_len - 1;
        snprintf(folder_version, sizeof folder_version, "%.*s", (int)(vl < 63 ? vl : 63), dash + 1);
    }
    char dir[4600];
    int rc = -1;
    if (join(dir, sizeof dir, env->site, d_name) && join(path, sizeof path, dir, file)) {
        rc = read_file(path, METADATA_HEAD, true, &text, &len, err, sizeof err);
        if (rc != 0 && errno == ENOTDIR) { /* an .egg-info file is PKG-INFO itself */
            rc = read_file(dir, METADATA_HEAD, true, &text, &len, err, sizeof err);
        }
    } else {
        say(err, sizeof err, "%s/%s: the path is too long", env->site, d_name);
    }
    if (rc != 0) {
        say(e->problem, sizeof e->problem, "%s", err);
        snprintf(e->version, sizeof e->version, "%s", folder_version);
        return;
    }
    int found = metadata_fields(text, e->name, sizeof e->name, e->version, sizeof e->version);
    free(text);
    if (!(found & 2)) {
        say(e->problem, sizeof e->problem,
            "%s: no Version field%s%s%s: a broken install; pip install --force-reinstall %s", path,
            folder_version[0] ? " (the folder's name says " : "", folder_version,
            folder_version[0] ? ")" : "", (found & 1) ? e->name : norm);
    }
}

/* Sorted by kind, then name: the frameworks first, NVIDIA's wheels last. */
static int by_kind_then_name(const void *a, const void *b) {
    const fw_entry *x = a, *y = b;
    if (x->kind != y->kind) {
        return x->kind < y->kind ? -1 : 1;
    }
    int c = strcasecmp(x->name, y->name);
    return c ? c : strcmp(x->version, y->version);
}

/* What an entry's files say, once the folder is listed: version files, and
 * what one distribution says of another (jaxlib's plugin). */
static void finish(fw_env *env) {
    qsort(env->entries, env->count, sizeof env->entries[0], by_kind_then_name);
    const fw_entry *plugin = NULL;
    for (unsigned i = 0; i < env->count; i++) {
        fw_entry *e = &env->entries[i];
        if (e->kind == FW_JAX_PLUGIN && !plugin) {
            plugin = e;
        }
        if (i > 0 && e->kind == env->entries[i - 1].kind &&
            !strcasecmp(e->name, env->entries[i - 1].name) && !e->problem[0]) {
            say(e->problem, sizeof e->problem,
                "%s: two %s distributions (%s and %s): a leftover of an interrupted install or "
                "upgrade; pip install --force-reinstall %s",
                env->site, e->name,
                env->entries[i - 1].version[0] ? env->entries[i - 1].version : "?",
                e->version[0] ? e->version : "?", e->name);
        }
    }
    for (unsigned i = 0; i < env->count; i++) {
        fw_entry *e = &env->entries[i];
        bool first = i == 0 || e->kind != env->entries[i - 1].kind ||
                     strcasecmp(e->name, env->entries[i - 1].name);
        if (!first) { /* the same package folder: the same build */
            const fw_entry *prev = &env->entries[i - 1];
            e->build = prev->build;
            e->major = prev->major;
            e->minor = prev->minor;
            fw_copy(e->build_text, sizeof e->build_text, prev->build_text);
            fw_copy(e->source, sizeof e->source, prev->source);
            e->archs_known = prev->archs_known;
            fw_copy(e->archs, sizeof e->archs, prev->archs);
            fw_copy(e->archs_note, sizeof e->archs_note, prev->archs_note);
        }
        switch (e->kind) {
        case FW_TORCH:
            if (first) {
                read_torch(env, e);
            }
            break;
        case FW_TENSORFLOW:
            if (first) {
                read_tensorflow(env, e);
            }
            break;
        case FW_PADDLE:
            if (first) {
                read_paddle(env, e);
            }
            break;
        case FW_JAXLIB:
            if (plugin) {
                snprintf(e->with, sizeof e->with, "%s", plugin->name);
            } else {
                e->build = FW_BUILD_CPU;
                snprintf(e->source, sizeof e->source, "no jax-cuda plugin beside it");
            }
            break;
        case FW_NVIDIA:
            /* CUDA 13's wheels are named without -cu13: the runtime's,
             * cuBLAS's and NVRTC's versions are CUDA's. */
            if (e->version[0] && (strstr(e->name, "runtime") || strstr(e->name, "cublas") ||
                                  strstr(e->name, "nvrtc"))) {
                int ma, mi;
                if (fw_parse_release(e->version, &ma, &mi) && (e->major < 0 || e->major == ma)) {
                    e->major = ma;
                    e->minor = mi;
                    snprintf(e->source, sizeof e->source, "its version");
                }
            }
            if (e->major < 0) {
                e->build = FW_BUILD_UNKNOWN;
            }
            break;
        default:
            break;
        }
        if (e->build_text[0] == '\0' && e->major >= 0) {
            if (e->minor >= 0) {
                snprintf(e->build_text, sizeof e->build_text, "%d.%d", e->major, e->minor);
            } else {
                snprintf(e->build_text, sizeof e->build_text, "%d.x", e->major);
            }
        }
    }
}

void fw_scan_site(fw_env *env) {
    env->count = env->left_out = env->distributions = 0;
    env->problem[0] = '\0';
    DIR *d = opendir(env->site);
    if (!d) {
        say(env->problem, sizeof env->problem, "%s: cannot list it: %s", env->site,
            strerror(errno));
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t stem;
        const char *file;
        if (!metadata_entry(de->d_name, &stem, &file)) {
            continue;
        }
        env->distributions++;
        const char *dash = memchr(de->d_name, '-', stem);
        char norm[128];
        normalize(de->d_name, dash ? (size_t)(dash - de->d_name) : stem, norm, sizeof norm);
        fw_entry probe;
        memset(&probe, 0, sizeof probe);
        if (!classify(norm, &probe)) {
            continue;
        }
        if (env->count == FW_MAX_ENTRIES) {
            env->left_out++;
            continue;
        }
        fw_entry *e = &env->entries[env->count++];
        *e = probe;
        read_distribution(env, e, de->d_name, stem, file, norm);
    }
    closedir(d);
    finish(env);
}
