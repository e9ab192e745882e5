/* gpuinfo's framework layer (tools/gpuinfo/fw.h) on made-up environments
 * in a temporary folder and made-up machines: the Python literal reader on
 * real and hostile files, one site-packages folder's distributions, the
 * driver table, and each rule of fw_rules.c (each test fails when its rule
 * is taken out). */
#define _GNU_SOURCE /* setenv, open_memstream */
#include "fw.h"
#include "pyfolders.h"
#include "xt_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

static char root[PATH_MAX];

/* ---- made-up trees -------------------------------------------------------- */

static const char *at(char *buf, const char *rel) {
    assert_int_equal(xt_tree_path(root, rel, buf), 0);
    return buf;
}

/* root/rel with `text` (len bytes; -1: strlen), its folders made. */
static void write_len(const char *rel, const char *text, size_t len) {
    char path[PATH_MAX], dir[PATH_MAX];
    at(path, rel);
    snprintf(dir, sizeof dir, "%s", rel);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        assert_int_equal(xt_tree_dir(root, dir), 0);
    }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void write_at(const char *rel, const char *text) {
    write_len(rel, text, strlen(text));
}

/* A distribution's METADATA: site/<stem>.dist-info, Name and Version
 * (NULL: left out). */
static void dist(const char *site, const char *stem, const char *name, const char *version) {
    char rel[PATH_MAX], text[512];
    snprintf(rel, sizeof rel, "%s/%s.dist-info/METADATA", site, stem);
    snprintf(text, sizeof text, "Metadata-Version: 2.1\n%s%s%s%s%s\nSummary: x\n\nName: body\n",
             name ? "Name: " : "", name ? name : "", name ? "\n" : "", version ? "Version: " : "",
             version ? version : "");
    write_at(rel, text);
}

static const char torch_cu128[] = "from typing import Optional\n\n"
                                  "__all__ = ['__version__', 'debug', 'cuda', 'git_version', "
                                  "'hip', 'xpu']\n"
                                  "__version__ = '2.8.0+cu128'\n"
                                  "debug = False\n"
                                  "cuda: Optional[str] = '12.8'\n"
                                  "git_version = 'a1cb3cc05d46d198467bebbb6e8fba50a325d4e7'\n"
                                  "hip: Optional[str] = None\n"
                                  "xpu: Optional[str] = None\n";

static const char torch_cpu[] = "__version__ = '2.8.0+cpu'\n"
                                "cuda: Optional[str] = None\n"
                                "hip: Optional[str] = None\n";

static const char torch_rocm[] = "__version__ = '2.5.1+rocm6.2'\n"
                                 "cuda: Optional[str] = None\n"
                                 "hip: Optional[str] = '6.2.41133-dd7f95766'\n";

/* TensorFlow's build_info.py, as 2.4 to 2.17 write it. */
static const char tf_build_info[] =
    "\"\"\"Auto-generated module providing information about the build.\"\"\"\n"
    "import collections\n\n"
    "build_info = collections.OrderedDict([('cpu_compiler', '/usr/bin/gcc'), "
    "('cuda_compute_capabilities', ['sm_35', 'sm_50', 'sm_60', 'sm_70', 'sm_75']), "
    "('cuda_version', '12.3'), ('cudnn_version', '8'), ('is_cuda_build', True), "
    "('is_rocm_build', False), ('is_tensorrt_build', True)])\n";

static fw_env *scan(const char *site_rel) {
    fw_env *env = calloc(1, sizeof *env);
    assert_non_null(env);
    char path[PATH_MAX];
    fw_copy(env->site, sizeof env->site, at(path, site_rel));
    env->found_by = "VIRTUAL_ENV";
    fw_scan_site(env);
    return env;
}

static const fw_entry *entry(const fw_env *env, const char *name) {
    for (unsigned i = 0; i < env->count; i++) {
        if (!strcmp(env->entries[i].name, name)) {
            return &env->entries[i];
        }
    }
    fail_msg("%s: no entry %s (%u entries)", env->site, name, env->count);
    static const fw_entry none; /* not reached: fail_msg leaves the test */
    return &none;
}

static void expect_text(const char *what, const char *text, const char *want) {
    if (!strstr(text, want)) {
        fail_msg("%s lacks \"%s\": %s", what, want, text);
    }
}

/* ---- made-up machines ----------------------------------------------------- */

static fw_host no_gpu(void) {
    fw_host h;
    memset(&h, 0, sizeof h);
    h.cuda_major = h.cuda_minor = h.rocm_major = h.rocm_minor = -1;
    return h;
}

/* An NVIDIA GPU sm_`sm` on a driver for CUDA major.minor. */
static fw_host nvidia(int major, int minor, int sm) {
    fw_host h = no_gpu();
    h.nvidia_driver = true;
    h.cuda_major = major;
    h.cuda_minor = minor;
    h.cuda_gpus = 1;
    snprintf(h.cuda[0].arch, sizeof h.cuda[0].arch, "sm_%d", sm);
    snprintf(h.cuda[0].path, sizeof h.cuda[0].path, "cuda:0");
    h.cuda[0].sm = sm;
    return h;
}

static fw_host amd(int major, int minor, const char *gfx) {
    fw_host h = no_gpu();
    h.rocm_runtime = true;
    h.rocm_major = major;
    h.rocm_minor = minor;
    h.hip_gpus = 1;
    snprintf(h.hip[0].arch, sizeof h.hip[0].arch, "%s", gfx);
    snprintf(h.hip[0].path, sizeof h.hip[0].path, "hip:0");
    return h;
}

static fw_entry made(fw_kind kind, const char *name, fw_build build, int major, int minor,
                     const char *archs) {
    fw_entry e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    snprintf(e.name, sizeof e.name, "%s", name);
    snprintf(e.version, sizeof e.version, "1.0");
    e.build = build;
    e.major = major;
    e.minor = minor;
    if (archs) {
        snprintf(e.archs, sizeof e.archs, "%s", archs);
        e.archs_known = true;
    }
    return e;
}

static fw_verdict judge(const fw_entry *e, const fw_host *h) {
    fw_verdict v;
    fw_env env;
    memset(&env, 0, sizeof env);
    fw_judge(&env, e, h, &v);
    return v;
}

/* v has status s, its finding holds `finding` and its fix `fix` (NULL:
 * not checked; "": no fix). */
static void expect_verdict(const fw_verdict *v, fw_status s, const char *finding, const char *fix) {
    if (v->status != s) {
        fail_msg("status %s, want %s: %s; %s", fw_status_tag(v->status), fw_status_tag(s),
                 v->finding, v->fix);
    }
    if (finding) {
        expect_text("the finding", v->finding, finding);
    }
    if (fix && !fix[0] && v->fix[0]) {
        fail_msg("a fix where none is due: %s", v->fix);
    }
    if (fix && fix[0]) {
        expect_text("the fix", v->fix, fix);
    }
}

/* ---- the Python literal reader -------------------------------------------- */

typedef struct seen {
    char names[32][96];
    pl_value values[32];
    int n;
} seen;

static void record(void *ctx, const char *name, const char *key, const pl_value *v) {
    seen *s = ctx;
    if (s->n < 32) {
        snprintf(s->names[s->n], sizeof s->names[0], key ? "%s/%s" : "%s", name, key ? key : "");
        s->values[s->n++] = *v;
    }
}

/* The last value assigned to `name`, or NULL. */
static const pl_value *value_of(const seen *s, const char *name) {
    for (int i = s->n - 1; i >= 0; i--) {
        if (!strcmp(s->names[i], name)) {
            return &s->values[i];
        }
    }
    return NULL;
}

static int parse_text(const char *text, seen *s, char *err, size_t errsize) {
    memset(s, 0, sizeof *s);
    return pl_parse(text, strlen(text), record, s, err, errsize);
}

static void expect_str(const seen *s, const char *name, const char *want) {
    const pl_value *v = value_of(s, name);
    if (!v || v->kind != PL_STRING || strcmp(v->text, want)) {
        fail_msg("%s: want '%s', got %s", name, want, v ? v->text : "nothing");
    }
}

static void literal_reader_reads_what_torch_and_tensorflow_write(void **state) {
    (void)state;
    seen s;
    char err[256];
    assert_int_equal(parse_text(torch_cu128, &s, err, sizeof err), 0);
    expect_str(&s, "__version__", "2.8.0+cu128");
    expect_str(&s, "cuda", "12.8");
    assert_int_equal(value_of(&s, "hip")->kind, PL_NONE);
    assert_int_equal(value_of(&s, "debug")->kind, PL_BOOL);
    assert_int_equal(value_of(&s, "__all__")->kind, PL_LIST);
    assert_int_equal(value_of(&s, "__all__")->items, 6);
    assert_null(value_of(&s, "typing")); /* an import is not an assignment */

    assert_int_equal(parse_text(tf_build_info, &s, err, sizeof err), 0);
    expect_str(&s, "build_info/cuda_version", "12.3");
    const pl_value *caps = value_of(&s, "build_info/cuda_compute_capabilities");
    assert_non_null(caps);
    assert_int_equal(caps->kind, PL_LIST);
    assert_string_equal(caps->text, "sm_35,sm_50,sm_60,sm_70,sm_75");
    assert_true(value_of(&s, "build_info/is_cuda_build")->truth);
    assert_int_equal(value_of(&s, "build_info")->kind, PL_DICT);
    /* The dict form of older releases. */
    assert_int_equal(parse_text("build_info = {'cuda_version': '11.2', 'is_cuda_build': True,\n"
                                "    'cuda_compute_capabilities': ['sm_80', 'compute_86'],}\n",
                                &s, err, sizeof err),
                     0);
    expect_str(&s, "build_info/cuda_version", "11.2");
    assert_string_equal(value_of(&s, "build_info/cuda_compute_capabilities")->text,
                        "sm_80,compute_86");
}

static void literal_reader_takes_python_as_python(void **state) {
    (void)state;
    seen s;
    char err[256];
    static const char odd[] = "# cuda = '9.0' in a comment\n"
                              "\"\"\"A docstring that says\n"
                              "cuda = '10.0'\n"
                              "\"\"\"\n"
                              "def show():\n"
                              "    cuda = '11.0'  # in a function: not the module's\n"
                              "    return '''\n"
                              "hip = 'x'\n"
                              "'''\n"
                              "if False:\n"
                              "    __version__ = 'indented'\n"
                              "a = 1; b = \"two\"\n"
                              "c = 'con' \"cat\"\n"
                              "d = r'\\d'\n"
                              "e = 'it\\'s'\n"
                              "f = f'{a}'\n"
                              "g = None if a else '12.8'\n"
                              "h = (\n"
                              "    '12.'\n"
                              "    '4'\n"
                              ")\n"
                              "i = \\\n"
                              "    '6.2'\n"
                              "cuda = '12.1'\n"
                              "j = -3\n"
                              "k = 'a' + 'b'\n"
                              "l = 1, 2\n";
    assert_int_equal(parse_text(odd, &s, err, sizeof err), 0);
    expect_str(&s, "cuda", "12.1");
    assert_null(value_of(&s, "hip"));
    assert_null(value_of(&s, "__version__"));
    assert_string_equal(value_of(&s, "a")->text, "1");
    expect_str(&s, "b", "two");
    expect_str(&s, "c", "concat");
    expect_str(&s, "d", "\\d");
    expect_str(&s, "e", "it's");
    assert_int_equal(value_of(&s, "f")->kind, PL_OTHER);
    assert_int_equal(value_of(&s, "g")->kind, PL_OTHER);
    expect_str(&s, "h", "12.4");
    expect_str(&s, "i", "6.2");
    assert_string_equal(value_of(&s, "j")->text, "-3");
    assert_int_equal(value_of(&s, "k")->kind, PL_OTHER);
    assert_int_equal(value_of(&s, "l")->kind, PL_OTHER);
}

static void literal_reader_refuses_hostile_text(void **state) {
    (void)state;
    seen s;
    char err[256];
    /* Control characters never reach a terminal; a long string is cut. */
    assert_int_equal(parse_text("__version__ = '\x1b[31m2.8\\x07'\n", &s, err, sizeof err), 0);
    expect_str(&s, "__version__", "?[31m2.8\\x07");
    char *long_text = malloc(20000);
    assert_non_null(long_text);
    memcpy(long_text, "cuda = '", 8);
    memset(long_text + 8, '9', 19980);
    memcpy(long_text + 19988, "'\n", 3);
    assert_int_equal(parse_text(long_text, &s, err, sizeof err), 0);
    assert_true(value_of(&s, "cuda")->truncated);
    assert_int_equal(strlen(value_of(&s, "cuda")->text), PL_TEXT - 1);
    /* Deep brackets, open strings, stray brackets: an error with its line. */
    memset(long_text, '[', 10000);
    long_text[0] = 'x', long_text[1] = '=';
    long_text[10000] = '\0';
    assert_int_equal(parse_text(long_text, &s, err, sizeof err), -1);
    expect_text("the error", err, "nested more than 32 deep");
    free(long_text);
    assert_int_equal(parse_text("a = 1\ncuda = '12.8\nhip = None\n", &s, err, sizeof err), -1);
    expect_text("the error", err, "line 2");
    assert_string_equal(value_of(&s, "a")->text, "1"); /* what came before is kept */
    assert_int_equal(parse_text("x = '''never closed\n", &s, err, sizeof err), -1);
    expect_text("the error", err, "not closed");
    assert_int_equal(parse_text("x = 1)\n", &s, err, sizeof err), -1);
    assert_int_equal(parse_text("x = (1,\n", &s, err, sizeof err), -1);
    expect_text("the error", err, "ends inside brackets");
    /* NUL bytes end nothing. */
    static const char with_nul[] = "a = 'x'\0\nb = 'y'\n";
    memset(&s, 0, sizeof s);
    assert_int_equal(pl_parse(with_nul, sizeof with_nul - 1, record, &s, err, sizeof err), 0);
    expect_str(&s, "b", "y");
    /* Nothing at all. */
    assert_int_equal(parse_text("", &s, err, sizeof err), 0);
    assert_int_equal(s.n, 0);
}

/* ---- one site-packages folder --------------------------------------------- */

static void venv_with_torch_and_nvidia_wheels(void **state) {
    (void)state;
    static const char site[] = "venv/lib/python3.12/site-packages";
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/torch/version.py", site);
    write_at(rel, torch_cu128);
    dist(site, "torch-2.8.0+cu128", "torch", "2.8.0+cu128");
    dist(site, "nvidia_cuda_runtime_cu12-12.8.90", "nvidia-cuda-runtime-cu12", "12.8.90");
    dist(site, "nvidia_cudnn_cu12-9.10.2.21", "nvidia-cudnn-cu12", "9.10.2.21");
    dist(site, "nvidia_cublas_cu12-12.8.4.1", "nvidia-cublas-cu12", "12.8.4.1");
    dist(site, "nvidia_nccl_cu12-2.27.3", "nvidia-nccl-cu12", "2.27.3");
    dist(site, "nvidia_cuda_nvrtc_cu12-12.8.93", "nvidia-cuda-nvrtc-cu12", "12.8.93");
    /* CUDA 13's names have no suffix. */
    dist(site, "nvidia_cuda_runtime-13.0.48", "nvidia-cuda-runtime", "13.0.48");
    dist(site, "nvidia_cudnn_cu13-9.13.0.50", "nvidia-cudnn-cu13", "9.13.0.50");
    dist(site, "numpy-2.3.0", "numpy", "2.3.0");
    dist(site, "torchvision-0.23.0", "torchvision", "0.23.0");
    fw_env *env = scan(site);
    assert_int_equal(env->distributions, 10);
    assert_int_equal(env->count, 8);
    assert_string_equal(env->entries[0].name, "torch"); /* frameworks first */
    const fw_entry *t = entry(env, "torch");
    assert_int_equal(t->build, FW_BUILD_CUDA);
    assert_int_equal(t->major, 12);
    assert_int_equal(t->minor, 8);
    assert_string_equal(t->version, "2.8.0+cu128");
    assert_string_equal(t->source, "torch/version.py");
    assert_false(t->archs_known);
    expect_text("the arch note", t->archs_note, "compiled libraries");
    assert_string_equal(t->problem, "");
    const fw_entry *rt = entry(env, "nvidia-cuda-runtime-cu12");
    assert_int_equal(rt->kind, FW_NVIDIA);
    assert_int_equal(rt->major, 12);
    assert_int_equal(rt->minor, 8);
    const fw_entry *dnn = entry(env, "nvidia-cudnn-cu12");
    assert_int_equal(dnn->major, 12);
    assert_int_equal(dnn->minor, -1); /* cuDNN's version is not CUDA's */
    assert_string_equal(dnn->build_text, "12.x");
    assert_int_equal(entry(env, "nvidia-cuda-runtime")->major, 13);
    assert_int_equal(entry(env, "nvidia-cudnn-cu13")->major, 13);
    assert_int_equal(entry(env, "nvidia-cuda-nvrtc-cu12")->minor, 8);
    assert_int_equal(entry(env, "nvidia-nccl-cu12")->build, FW_BUILD_CUDA);
    free(env);
    /* A ROCm build, a CPU-only one. */
    snprintf(rel, sizeof rel, "rocm/lib/python3.12/site-packages/torch/version.py");
    write_at(rel, torch_rocm);
    dist("rocm/lib/python3.12/site-packages", "torch-2.5.1+rocm6.2", "torch", "2.5.1+rocm6.2");
    env = scan("rocm/lib/python3.12/site-packages");
    assert_int_equal(entry(env, "torch")->build, FW_BUILD_ROCM);
    assert_int_equal(entry(env, "torch")->major, 6);
    assert_int_equal(entry(env, "torch")->minor, 2);
    assert_string_equal(entry(env, "torch")->build_text, "6.2.41133-dd7f95766");
    free(env);
    snprintf(rel, sizeof rel, "cpu/lib/python3.12/site-packages/torch/version.py");
    write_at(rel, torch_cpu);
    dist("cpu/lib/python3.12/site-packages", "torch-2.8.0+cpu", "torch", "2.8.0+cpu");
    env = scan("cpu/lib/python3.12/site-packages");
    assert_int_equal(entry(env, "torch")->build, FW_BUILD_CPU);
    assert_string_equal(entry(env, "torch")->source, "torch/version.py");
    free(env);
}

static void conda_prefix_with_tensorflow_jax_cupy_paddle(void **state) {
    (void)state;
    static const char site[] = "conda/lib/python3.11/site-packages";
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/tensorflow/python/platform/build_info.py", site);
    write_at(rel, tf_build_info);
    dist(site, "tensorflow-2.17.0", "tensorflow", "2.17.0");
    dist(site, "jax-0.7.0", "jax", "0.7.0");
    dist(site, "jaxlib-0.7.0", "jaxlib", "0.7.0");
    dist(site, "jax_cuda12_plugin-0.7.0", "jax-cuda12-plugin", "0.7.0");
    dist(site, "jax_cuda12_pjrt-0.7.0", "jax-cuda12-pjrt", "0.7.0");
    dist(site, "cupy_cuda12x-13.5.1", "cupy-cuda12x", "13.5.1");
    dist(site, "cupy_cuda117-10.6.0", "cupy-cuda117", "10.6.0");
    snprintf(rel, sizeof rel, "%s/paddle/version/__init__.py", site);
    write_at(rel, "# THIS FILE IS GENERATED FROM PADDLEPADDLE SETUP.PY\n"
                  "full_version     = '3.1.0'\n"
                  "cuda_version     = '12.6'\n"
                  "cudnn_version    = '9.5.1'\n"
                  "hip_version      = None\n"
                  "compiled_cuda_archs     = [75, 80, 86, 89, 90]\n"
                  "def cuda():\n"
                  "    \"\"\"paddle.version.cuda()\n"
                  "    # 'False'\n"
                  "    \"\"\"\n"
                  "    return cuda_version\n");
    dist(site, "paddlepaddle_gpu-3.1.0", "paddlepaddle-gpu", "3.1.0");
    /* An egg-info file is its own PKG-INFO (a CuPy built from source). */
    snprintf(rel, sizeof rel, "%s/cupy-13.0.0-py3.11.egg-info", site);
    write_at(rel, "Metadata-Version: 1.0\nName: cupy\nVersion: 13.0.0\n");
    fw_env *env = scan(site);
    const fw_entry *tf = entry(env, "tensorflow");
    assert_int_equal(tf->build, FW_BUILD_CUDA);
    assert_int_equal(tf->major, 12);
    assert_int_equal(tf->minor, 3);
    assert_true(tf->archs_known);
    assert_string_equal(tf->archs, "sm_35,sm_50,sm_60,sm_70,sm_75");
    assert_int_equal(entry(env, "cupy")->build, FW_BUILD_UNKNOWN);
    assert_string_equal(entry(env, "cupy")->version, "13.0.0");
    assert_string_equal(entry(env, "cupy")->problem, "");
    assert_string_equal(entry(env, "jaxlib")->with, "jax-cuda12-pjrt");
    assert_int_equal(entry(env, "jax-cuda12-plugin")->major, 12);
    assert_int_equal(entry(env, "cupy-cuda12x")->major, 12);
    assert_int_equal(entry(env, "cupy-cuda12x")->minor, -1);
    assert_int_equal(entry(env, "cupy-cuda117")->minor, 7);
    const fw_entry *pd = entry(env, "paddlepaddle-gpu");
    assert_int_equal(pd->build, FW_BUILD_CUDA);
    assert_int_equal(pd->minor, 6);
    assert_string_equal(pd->archs, "sm_75,sm_80,sm_86,sm_89,sm_90");
    free(env);
}

/* One bad file per distribution: each a message with its path, none a
 * crash, and what else is known kept. */
static void bad_files_are_said_plainly(void **state) {
    (void)state;
    static const char site[] = "bad/lib/python3.12/site-packages";
    char rel[PATH_MAX], path[PATH_MAX], target[PATH_MAX];
    /* torch: binary version.py (the local tag still tells the build). */
    snprintf(rel, sizeof rel, "%s/torch/version.py", site);
    write_len(rel, "__version__ = '2.8.0'\0\x01\x02", 24);
    dist(site, "torch-2.8.0+cu126", "torch", "2.8.0+cu126");
    /* paddle: 50 MB (sparse: nothing is written). */
    snprintf(rel, sizeof rel, "%s/paddle/version/__init__.py", site);
    write_at(rel, "");
    int fd = open(at(path, rel), O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 50 * 1000 * 1000), 0);
    close(fd);
    dist(site, "paddlepaddle_gpu-3.1.0", "paddlepaddle-gpu", "3.1.0");
    /* tensorflow: build_info.py is a FIFO (open must not block). */
    snprintf(rel, sizeof rel, "%s/tensorflow/python/platform", site);
    assert_int_equal(xt_tree_dir(root, rel), 0);
    snprintf(rel, sizeof rel, "%s/tensorflow/python/platform/build_info.py", site);
    assert_int_equal(mkfifo(at(path, rel), 0644), 0);
    dist(site, "tensorflow-2.17.0", "tensorflow", "2.17.0");
    /* A METADATA without Version. */
    dist(site, "nvidia_cudnn_cu12-9.1.0.70", "nvidia-cudnn-cu12", NULL);
    /* A link loop in place of a dist-info folder, one in place of a
     * package folder. */
    snprintf(rel, sizeof rel, "%s/nvidia_nccl_cu12-2.21.5.dist-info", site);
    assert_int_equal(xt_tree_link(root, rel, "nvidia_nccl_cu12-2.21.5.dist-info"), 0);
    dist(site, "cupy_cuda12x-13.5.1", "cupy-cuda12x", "13.5.1");
    fw_env *env = scan(site);
    assert_int_equal(env->count, 6);

    const fw_entry *t = entry(env, "torch");
    expect_text("torch's problem", t->problem, "binary (a NUL byte at offset 21)");
    expect_text("torch's problem", t->problem, "torch/version.py");
    assert_int_equal(t->build, FW_BUILD_CUDA);
    assert_int_equal(t->major, 12);
    assert_int_equal(t->minor, 6);
    assert_string_equal(t->source, "the version's local tag");

    const fw_entry *p = entry(env, "paddlepaddle-gpu");
    expect_text("paddle's problem", p->problem, "47.7 MiB, more than the 256 KiB");
    assert_int_equal(p->build, FW_BUILD_UNKNOWN);

    const fw_entry *tf = entry(env, "tensorflow");
    expect_text("tensorflow's problem", tf->problem, "not a regular file");

    const fw_entry *dnn = entry(env, "nvidia-cudnn-cu12");
    expect_text("cudnn's problem", dnn->problem,
                "no Version field (the folder's name says "
                "9.1.0.70)");
    assert_string_equal(dnn->version, "");

    const fw_entry *nccl = entry(env, "nvidia_nccl_cu12");
    expect_text("nccl's problem", nccl->problem, strerror(ELOOP));
    assert_string_equal(nccl->version, "2.21.5");
    free(env);

    /* The package folder a loop, a version.py that is hostile Python, and
     * one that is a folder. */
    static const char site2[] = "bad2/lib/python3.12/site-packages";
    snprintf(rel, sizeof rel, "%s/torch", site2);
    assert_int_equal(xt_tree_link(root, rel, "torch"), 0);
    dist(site2, "torch-2.8.0", "torch", "2.8.0");
    snprintf(rel, sizeof rel, "%s/tensorflow/python/platform/build_info.py", site2);
    write_at(rel, "build_info = {'is_cuda_build': True, 'cuda_version': '12.3\n");
    dist(site2, "tensorflow-2.17.0", "tensorflow", "2.17.0");
    snprintf(rel, sizeof rel, "%s/paddle/version/__init__.py", site2);
    assert_int_equal(xt_tree_dir(root, rel), 0);
    dist(site2, "paddlepaddle-3.1.0", "paddlepaddle", "3.1.0");
    env = scan(site2);
    expect_text("torch's problem", entry(env, "torch")->problem, strerror(ELOOP));
    assert_int_equal(entry(env, "torch")->build, FW_BUILD_UNKNOWN);
    expect_text("tensorflow's problem", entry(env, "tensorflow")->problem,
                "line 1: a string is not closed");
    expect_text("paddle's problem", entry(env, "paddlepaddle")->problem, "not a regular file");
    free(env);

    /* A version.py whose values are not torch's. */
    static const char site3[] = "bad3/lib/python3.12/site-packages";
    snprintf(rel, sizeof rel, "%s/torch/version.py", site3);
    write_at(rel, "__version__ = '2.8.0'\ncuda = get_cuda()\nhip = None\n");
    dist(site3, "torch-2.8.0", "torch", "2.8.0");
    env = scan(site3);
    expect_text("torch's problem", entry(env, "torch")->problem, "an expression");
    assert_int_equal(entry(env, "torch")->build, FW_BUILD_UNKNOWN);
    free(env);

    /* A site folder that is a loop itself, and one that is gone. */
    fw_env *gone = calloc(1, sizeof *gone);
    assert_non_null(gone);
    snprintf(rel, sizeof rel, "loop/lib/python3.12/site-packages");
    assert_int_equal(xt_tree_link(root, rel, "site-packages"), 0);
    fw_copy(gone->site, sizeof gone->site, at(target, rel));
    fw_scan_site(gone);
    expect_text("the folder's problem", gone->problem, "cannot list it");
    expect_text("the folder's problem", gone->problem, strerror(ELOOP));
    free(gone);
    /* Root reads what mode 000 forbids: only others can see EACCES. */
    if (geteuid() != 0) {
        snprintf(rel, sizeof rel, "noread/torch/version.py");
        write_at(rel, torch_cu128);
        assert_int_equal(chmod(at(path, rel), 0), 0);
        char *text = NULL, err[600];
        size_t len = 0;
        assert_int_equal(fw_read_small(path, 4096, &text, &len, err, sizeof err), -1);
        expect_text("the error", err, strerror(EACCES));
        assert_null(text);
    }
}

static void two_distributions_of_one_name(void **state) {
    (void)state;
    static const char site[] = "twice/lib/python3.12/site-packages";
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/torch/version.py", site);
    write_at(rel, torch_cu128);
    dist(site, "torch-2.7.0", "torch", "2.7.0");
    dist(site, "torch-2.8.0+cu128", "torch", "2.8.0+cu128");
    fw_env *env = scan(site);
    assert_int_equal(env->count, 2);
    expect_text("the second's problem", env->entries[1].problem,
                "two torch distributions (2.7.0 and 2.8.0+cu128)");
    assert_string_equal(env->entries[0].problem, "");
    assert_int_equal(env->entries[1].build, FW_BUILD_CUDA); /* one torch/ for both */
    assert_int_equal(env->entries[1].minor, 8);
    free(env);
}

/* ---- the tables ------------------------------------------------------------ */

static void driver_table_and_wheel_indexes(void **state) {
    (void)state;
    assert_string_equal(fw_toolkit_driver(12, 8), "570.26");
    assert_string_equal(fw_toolkit_driver(13, 0), "580.65.06");
    assert_string_equal(fw_toolkit_driver(12, 0), "525.60.13");
    assert_null(fw_toolkit_driver(12, 7)); /* there was no 12.7 */
    assert_string_equal(fw_minor_compat_driver(12), "525.60.13");
    assert_string_equal(fw_minor_compat_driver(13), "580");
    assert_string_equal(fw_minor_compat_driver(11), "450.80.02");
    assert_null(fw_minor_compat_driver(10));
    /* The newest index not newer than the driver; the oldest of its major
     * release when all are newer; none for a driver older than all. */
    assert_string_equal(fw_torch_index(false, 12, 8), "cu128");
    assert_string_equal(fw_torch_index(false, 12, 9), "cu128");
    assert_string_equal(fw_torch_index(false, 12, 6), "cu126");
    assert_string_equal(fw_torch_index(false, 12, 4), "cu126"); /* minor-version compat */
    assert_string_equal(fw_torch_index(false, 12, 0), "cu126");
    assert_string_equal(fw_torch_index(false, 13, 0), "cu130");
    assert_string_equal(fw_torch_index(false, 14, 2), "cu130");
    assert_string_equal(fw_torch_index(false, 11, 4), "cu118");
    assert_null(fw_torch_index(false, 10, 2));
    /* ROCm: nothing newer than the runtime. */
    assert_string_equal(fw_torch_index(true, 6, 2), "rocm6.2.4");
    assert_string_equal(fw_torch_index(true, 6, 9), "rocm6.4");
    assert_string_equal(fw_torch_index(true, 5, 7), "rocm5.7");
    assert_null(fw_torch_index(true, 5, 2));
    assert_string_equal(fw_torch_index(true, 7, 0), "rocm6.4");
    int ma, mi;
    assert_true(fw_parse_release("6.2.41133-dd7f95766", &ma, &mi));
    assert_int_equal(ma, 6);
    assert_int_equal(mi, 2);
    assert_true(fw_parse_release("12", &ma, &mi));
    assert_int_equal(mi, -1);
    assert_false(fw_parse_release("None", &ma, &mi));
}

/* ---- the rules -------------------------------------------------------------- */

static void cuda_build_against_the_driver(void **state) {
    (void)state;
    fw_entry torch = made(FW_TORCH, "torch", FW_BUILD_CUDA, 12, 8, NULL);
    fw_host h = nvidia(13, 0, 90);
    fw_verdict v = judge(&torch, &h);
    expect_verdict(&v, FW_OK, "this driver supports CUDA 13.0", "");
    expect_text("the finding", v.finding, "architectures: not recorded");
    /* Minor-version compatibility: a 12.8 build on a driver for 12.4. */
    h = nvidia(12, 4, 90);
    v = judge(&torch, &h);
    expect_verdict(&v, FW_OK, "minor-version compatibility", "");
    /* A driver of an older major release: too old, with the table's
     * figures and a build that runs on it. */
    h = nvidia(11, 8, 90);
    v = judge(&torch, &h);
    expect_verdict(&v, FW_FAIL, "needs a driver for CUDA 12.0 or newer (>= 525.60.13)",
                   ">= 525.60.13 (CUDA 12.8's own: 570.26)");
    expect_text("the fix", v.fix, "https://download.pytorch.org/whl/cu118");
    fw_entry cu13 = made(FW_TORCH, "torch", FW_BUILD_CUDA, 13, 0, NULL);
    h = nvidia(12, 9, 90);
    v = judge(&cu13, &h);
    expect_verdict(&v, FW_FAIL, "(>= 580)", "580.65.06");
    expect_text("the fix", v.fix, "whl/cu128");
    /* Before CUDA 11 there was no minor-version compatibility. */
    fw_entry old = made(FW_TORCH, "torch", FW_BUILD_CUDA, 10, 2, NULL);
    h = nvidia(10, 1, 70);
    v = judge(&old, &h);
    expect_verdict(&v, FW_FAIL, "before CUDA 11", NULL);
    h = nvidia(11, 0, 70);
    v = judge(&old, &h);
    expect_verdict(&v, FW_OK, NULL, "");
    /* A library wheel: the same rule, no framework fix. */
    fw_entry dnn = made(FW_NVIDIA, "nvidia-cudnn-cu13", FW_BUILD_CUDA, 13, -1, NULL);
    h = nvidia(12, 8, 90);
    v = judge(&dnn, &h);
    expect_verdict(&v, FW_FAIL, "for CUDA 13.x", ">= 580 (any CUDA 13.x)");
    assert_null(strstr(v.fix, "pip"));
}

static void cuda_build_without_an_nvidia_gpu(void **state) {
    (void)state;
    fw_entry torch = made(FW_TORCH, "torch", FW_BUILD_CUDA, 12, 8, NULL);
    fw_host h = no_gpu();
    fw_verdict v = judge(&torch, &h);
    expect_verdict(&v, FW_WARN, "no NVIDIA driver is loaded, so its GPU path cannot run here",
                   ">= 525.60.13 runs any CUDA 12.x build");
    h.nvidia_driver = true;
    v = judge(&torch, &h);
    expect_verdict(&v, FW_WARN, "the NVIDIA driver is loaded but reaches no GPU", NULL);
    /* On a machine whose GPU is AMD's, the ROCm build is the fix. */
    h = amd(6, 2, "gfx90a");
    v = judge(&torch, &h);
    expect_verdict(&v, FW_FAIL, "GPU is AMD's (gfx90a, hip:0)", "whl/rocm6.2.4");
    /* NVIDIA's library wheels only say they are not used. */
    fw_entry rt = made(FW_NVIDIA, "nvidia-cuda-runtime-cu12", FW_BUILD_CUDA, 12, 8, NULL);
    h = no_gpu();
    v = judge(&rt, &h);
    expect_verdict(&v, FW_INFO, "not used here (no NVIDIA driver is loaded)", "");
}

static void cuda_architectures_against_the_gpu(void **state) {
    (void)state;
    /* TensorFlow's list without PTX: nothing for sm_90. */
    fw_entry tf =
        made(FW_TENSORFLOW, "tensorflow", FW_BUILD_CUDA, 12, 3, "sm_35,sm_50,sm_60,sm_70,sm_75");
    fw_host h = nvidia(12, 8, 90);
    fw_verdict v = judge(&tf, &h);
    expect_verdict(&v, FW_FAIL, "no kernel image is available", "includes sm_90");
    /* Code of an older minor of the same major runs: sm_75 on sm_75. */
    h = nvidia(12, 8, 75);
    v = judge(&tf, &h);
    expect_verdict(&v, FW_OK, "sm_75 code for sm_75", "");
    fw_entry ampere = made(FW_TENSORFLOW, "tensorflow", FW_BUILD_CUDA, 12, 3, "sm_80");
    h = nvidia(12, 8, 86);
    v = judge(&ampere, &h);
    expect_verdict(&v, FW_OK, "sm_80 code for sm_86", "");
    /* ... but not of a newer minor, nor of another major. */
    fw_entry ada = made(FW_TENSORFLOW, "tensorflow", FW_BUILD_CUDA, 12, 3, "sm_89");
    h = nvidia(12, 8, 86);
    v = judge(&ada, &h);
    expect_verdict(&v, FW_FAIL, "neither code for this GPU's sm_86", NULL);
    /* sm_90a code runs on sm_90 only. */
    fw_entry hopper = made(FW_TENSORFLOW, "tensorflow", FW_BUILD_CUDA, 12, 8, "sm_90a");
    h = nvidia(12, 8, 90);
    v = judge(&hopper, &h);
    expect_verdict(&v, FW_OK, "sm_90a code", "");
    h = nvidia(12, 8, 100);
    v = judge(&hopper, &h);
    expect_verdict(&v, FW_FAIL, "sm_100", NULL);
    /* sm_100 code runs on sm_103, sm_100a code does not. */
    fw_entry blackwell = made(FW_TENSORFLOW, "tensorflow", FW_BUILD_CUDA, 12, 9, "sm_100");
    h = nvidia(12, 9, 103);
    v = judge(&blackwell, &h);
    expect_verdict(&v, FW_OK, "sm_100 code for sm_103", "");
    snprintf(blackwell.archs, sizeof blackwell.archs, "sm_100a");
    v = judge(&blackwell, &h);
    expect_verdict(&v, FW_FAIL, "neither code for this GPU's sm_103", NULL);
    /* PTX of an older architecture is compiled for the GPU... */
    fw_entry ptx = made(FW_TENSORFLOW, "tensorflow", FW_BUILD_CUDA, 12, 8, "sm_70,compute_80");
    h = nvidia(12, 8, 90);
    v = judge(&ptx, &h);
    expect_verdict(&v, FW_OK, "compute_80 PTX for sm_90", "");
    /* ... except by a driver older than the build: minor-version
     * compatibility does not cover PTX. */
    h = nvidia(12, 4, 90);
    v = judge(&ptx, &h);
    expect_verdict(&v, FW_FAIL, "cannot compile PTX of CUDA 12.8", ">= 570.26");
    /* With code for the GPU, the older driver is fine. */
    fw_entry both = made(FW_TENSORFLOW, "tensorflow", FW_BUILD_CUDA, 12, 8, "sm_90,compute_90");
    v = judge(&both, &h);
    expect_verdict(&v, FW_OK, "sm_90 code for sm_90", "");
}

static void cpu_only_build_on_a_machine_with_a_gpu(void **state) {
    (void)state;
    fw_entry torch = made(FW_TORCH, "torch", FW_BUILD_CPU, -1, -1, NULL);
    fw_host h = nvidia(12, 8, 90);
    fw_verdict v = judge(&torch, &h);
    expect_verdict(&v, FW_FAIL, "CPU-only build on a machine with an NVIDIA GPU (sm_90, cuda:0)",
                   "pip install --force-reinstall torch --index-url "
                   "https://download.pytorch.org/whl/cu128");
    h = nvidia(13, 0, 100);
    v = judge(&torch, &h);
    expect_verdict(&v, FW_FAIL, NULL, "whl/cu130");
    h = nvidia(12, 4, 90);
    v = judge(&torch, &h);
    expect_verdict(&v, FW_FAIL, NULL, "whl/cu126");
    h = amd(6, 3, "gfx942");
    v = judge(&torch, &h);
    expect_verdict(&v, FW_FAIL, "AMD GPU (gfx942, hip:0)", "whl/rocm6.3");
    h = no_gpu();
    v = judge(&torch, &h);
    expect_verdict(&v, FW_OK, "no GPU is reached here", "");
    /* The other frameworks' fixes. */
    h = nvidia(12, 8, 90);
    fw_entry tf = made(FW_TENSORFLOW, "tensorflow", FW_BUILD_CPU, -1, -1, NULL);
    v = judge(&tf, &h);
    expect_verdict(&v, FW_FAIL, NULL, "tensorflow[and-cuda]");
    fw_entry jaxlib = made(FW_JAXLIB, "jaxlib", FW_BUILD_CPU, -1, -1, NULL);
    v = judge(&jaxlib, &h);
    expect_verdict(&v, FW_FAIL, "without a GPU plugin", "jax[cuda12]");
    h = nvidia(13, 0, 90);
    v = judge(&jaxlib, &h);
    expect_verdict(&v, FW_FAIL, NULL, "jax[cuda13]");
    /* jaxlib with its plugin beside it: the plugin's line judges. */
    snprintf(jaxlib.with, sizeof jaxlib.with, "jax-cuda12-plugin");
    jaxlib.build = FW_BUILD_UNKNOWN;
    v = judge(&jaxlib, &h);
    expect_verdict(&v, FW_INFO, "jax-cuda12-plugin", "");
}

static void rocm_build_against_the_runtime(void **state) {
    (void)state;
    fw_entry torch = made(FW_TORCH, "torch", FW_BUILD_ROCM, 6, 2, NULL);
    fw_host h = amd(6, 2, "gfx90a");
    fw_verdict v = judge(&torch, &h);
    expect_verdict(&v, FW_OK, "the ROCm runtime here is 6.2", "");
    h = amd(6, 4, "gfx90a");
    v = judge(&torch, &h);
    expect_verdict(&v, FW_OK, NULL, "");
    h = amd(6, 0, "gfx90a");
    v = judge(&torch, &h);
    expect_verdict(&v, FW_WARN, "older than the build's", "whl/rocm6.0");
    h = amd(5, 7, "gfx90a");
    v = judge(&torch, &h);
    expect_verdict(&v, FW_FAIL, "another major release", "whl/rocm5.7");
    h = nvidia(12, 8, 90);
    v = judge(&torch, &h);
    expect_verdict(&v, FW_FAIL, "GPU is NVIDIA's", "whl/cu128");
    h = no_gpu();
    v = judge(&torch, &h);
    expect_verdict(&v, FW_WARN, "no ROCm runtime with an AMD GPU", "");
    h.rocm_runtime = true;
    v = judge(&torch, &h);
    expect_verdict(&v, FW_WARN, "loaded but finds no AMD GPU", "");
}

/* ---- the doctor's section and the JSON members -------------------------------- */

static char *capture(void (*fn)(FILE *, const fw_host *), const fw_host *h) {
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    fn(f, h);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void set_environments(const char *venv, const char *conda, const char *home) {
    char buf[PATH_MAX];
    setenv("PATH", "", 1);
    if (venv) {
        setenv("VIRTUAL_ENV", at(buf, venv), 1);
    } else {
        unsetenv("VIRTUAL_ENV");
    }
    if (conda) {
        setenv("CONDA_PREFIX", at(buf, conda), 1);
    } else {
        unsetenv("CONDA_PREFIX");
    }
    if (home) {
        setenv("HOME", at(buf, home), 1);
    } else {
        unsetenv("HOME");
    }
}

static void doctor_section_one_line_per_environment_and_framework(void **state) {
    (void)state;
    static const char site[] = "report/venv/lib/python3.12/site-packages";
    static const char cpu_site[] = "report/home/.local/lib/python3.12/site-packages";
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/torch/version.py", site);
    write_at(rel, torch_cu128);
    dist(site, "torch-2.8.0+cu128", "torch", "2.8.0+cu128");
    dist(site, "nvidia_cudnn_cu12-9.10.2.21", "nvidia-cudnn-cu12", NULL);
    snprintf(rel, sizeof rel, "%s/torch/version.py", cpu_site);
    write_at(rel, torch_cpu);
    dist(cpu_site, "torch-2.8.0+cpu", "torch", "2.8.0+cpu");
    assert_int_equal(xt_tree_dir(root, "report/conda/lib/python3.11/site-packages"), 0);
    set_environments("report/venv", "report/conda", "report/home");
    fw_host h = nvidia(12, 8, 90);
    char *out = capture(fw_doctor_section, &h);
    expect_text("the section", out, "frameworks: ");
    expect_text("the section", out,
                "this machine: NVIDIA driver for CUDA 12.8, GPU sm_90 (cuda:0)");
    expect_text("the section", out, "site-packages (VIRTUAL_ENV): 2 distributions\n");
    expect_text("the section", out,
                "\n  ok    torch 2.8.0+cu128: CUDA 12.8 build: this driver supports CUDA 12.8");
    expect_text("the section", out, "\n  WARN  nvidia-cudnn-cu12 (no version): ");
    expect_text("the section", out, "site-packages (CONDA_PREFIX): 0 distributions\n  -     none");
    expect_text("the section", out, "site-packages (HOME): 1 distribution\n");
    expect_text("the section", out,
                "\n  FAIL  torch 2.8.0+cpu: CPU-only build on a machine with an NVIDIA GPU");
    /* The user site's fix installs there, not into an active venv. */
    expect_text("the section", out, "; pip install --user --force-reinstall torch --index-url");
    /* Every line is a tag and a text, and none longer than a finding. */
    for (const char *p = strchr(out, '\n') + 1; *p;) {
        size_t len = strcspn(p, "\n");
        if (strncmp(p, "  ", 2)) {
            fail_msg("a line without indent: %.*s", (int)len, p);
        }
        p += len + (p[len] == '\n');
    }
    free(out);

    /* JSON: numbers and versions apart, null for unknown. */
    out = capture(fw_json_members, &h);
    expect_text("the JSON", out, ",\n  \"python_environments\": [");
    expect_text("the JSON", out, "\"found_by\": \"CONDA_PREFIX\", \"distributions\": 0");
    expect_text("the JSON", out,
                "\"name\": \"torch\", \"version\": \"2.8.0+cu128\", \"built_for\": \"cuda\", "
                "\"built_for_release\": \"12.8\", \"built_for_major\": 12, \"built_for_minor\": 8");
    expect_text("the JSON", out, "\"cuda_archs\": null");
    expect_text("the JSON", out,
                "\"name\": \"torch\", \"version\": \"2.8.0+cpu\", \"built_for\": \"cpu\", "
                "\"built_for_release\": null, \"built_for_major\": null");
    expect_text("the JSON", out, "\"status\": \"fail\"");
    expect_text("the JSON", out, "\"version\": null");
    expect_text("the JSON", out, "\"error\": \"");
    free(out);

    /* No environment at all. */
    set_environments(NULL, NULL, NULL);
    out = capture(fw_doctor_section, &h);
    expect_text("the section", out, "no Python environment found");
    free(out);
    out = capture(fw_json_members, &h);
    expect_text("the JSON", out, "\"python_environments\": [],\n  \"frameworks\": []");
    free(out);
}

/* Three environments of 200 distributions each, the target's case: the
 * median of 21 scans, printed; well under the doctor's 0.2 s. */
static void three_environments_of_200_distributions(void **state) {
    (void)state;
    static const char *const sites[] = {"big/venv/lib/python3.12/site-packages",
                                        "big/conda/lib/python3.11/site-packages",
                                        "big/home/.local/lib/python3.12/site-packages"};
    for (size_t s = 0; s < 3; s++) {
        char rel[PATH_MAX], stem[64], name[64];
        snprintf(rel, sizeof rel, "%s/torch/version.py", sites[s]);
        write_at(rel, torch_cu128);
        dist(sites[s], "torch-2.8.0+cu128", "torch", "2.8.0+cu128");
        static const char *const nv[] = {"cuda_runtime", "cudnn",      "cublas",
                                         "nccl",         "cuda_nvrtc", "cufft",
                                         "cusparse",     "curand",     "nvjitlink"};
        for (size_t i = 0; i < 9; i++) {
            snprintf(stem, sizeof stem, "nvidia_%s_cu12-12.8.1", nv[i]);
            snprintf(name, sizeof name, "nvidia-%s-cu12", nv[i]);
            dist(sites[s], stem, name, "12.8.1");
        }
        for (int i = 0; i < 190; i++) {
            snprintf(stem, sizeof stem, "package%03d-1.%d.0", i, i);
            snprintf(name, sizeof name, "package%03d", i);
            dist(sites[s], stem, name, "1.0");
            snprintf(rel, sizeof rel, "%s/package%03d/__init__.py", sites[s], i);
            write_at(rel, "");
        }
    }
    set_environments("big/venv", "big/conda", "big/home");
    fw_host h = nvidia(12, 8, 90);
    double ms[21];
    for (int r = 0; r < 21; r++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        char *out = capture(fw_doctor_section, &h);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (r == 0) {
            expect_text("the section", out, "(HOME): 200 distributions");
        }
        free(out);
        ms[r] = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
    }
    for (int i = 1; i < 21; i++) { /* insertion sort */
        for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            double t = ms[j];
            ms[j] = ms[j - 1];
            ms[j - 1] = t;
        }
    }
    printf("frameworks section, 3 environments x 200 distributions: median %.2f ms "
           "(min %.2f, max %.2f) of 21\n",
           ms[10], ms[0], ms[20]);
    assert_true(ms[10] < 100.0);
}

static int make_root(void **state) {
    (void)state;
    return xt_tree_make("xgpu-frameworks", root);
}

static int remove_root(void **state) {
    (void)state;
    return xt_tree_remove(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(literal_reader_reads_what_torch_and_tensorflow_write),
        cmocka_unit_test(literal_reader_takes_python_as_python),
        cmocka_unit_test(literal_reader_refuses_hostile_text),
        cmocka_unit_test(venv_with_torch_and_nvidia_wheels),
        cmocka_unit_test(conda_prefix_with_tensorflow_jax_cupy_paddle),
        cmocka_unit_test(bad_files_are_said_plainly),
        cmocka_unit_test(two_distributions_of_one_name),
        cmocka_unit_test(driver_table_and_wheel_indexes),
        cmocka_unit_test(cuda_build_against_the_driver),
        cmocka_unit_test(cuda_build_without_an_nvidia_gpu),
        cmocka_unit_test(cuda_architectures_against_the_gpu),
        cmocka_unit_test(cpu_only_build_on_a_machine_with_a_gpu),
        cmocka_unit_test(rocm_build_against_the_runtime),
        cmocka_unit_test(doctor_section_one_line_per_environment_and_framework),
        cmocka_unit_test(three_environments_of_200_distributions),
    };
    return cmocka_run_group_tests_name("gpuinfo frameworks", tests, make_root, remove_root);
}
