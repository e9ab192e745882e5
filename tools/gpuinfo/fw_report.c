/* The frameworks as the doctor's section and as JSON members: one line
 * (one object) per environment and framework, each with its verdict. */
#define _GNU_SOURCE /* open_memstream */
#include "fw.h"
#include "gpuinfo.h"
#include "json_write.h"
#include "pyfolders.h"

#include <stdlib.h>
#include <string.h>

/* One environment at a time: fw_env is large. */
typedef void (*env_fn)(void *ctx, const fw_env *env, const fw_host *h, unsigned index);

/* Calls fn for each environment xgpu__python_sites finds, scanned; returns
 * how many there were. */
static unsigned each_env(void *ctx, const fw_host *h, env_fn fn) {
    xgpu_pysite *sites = calloc(XGPU_PYFOLDERS_MAX, sizeof *sites);
    fw_env *env = malloc(sizeof *env);
    size_t n = 0;
    if (sites && env) {
        n = xgpu__python_sites(sites, XGPU_PYFOLDERS_MAX);
        for (size_t i = 0; i < n; i++) {
            snprintf(env->site, sizeof env->site, "%s", sites[i].path);
            env->found_by = sites[i].found_by;
            fw_scan_site(env);
            fn(ctx, env, h, (unsigned)i);
        }
    }
    free(env);
    free(sites);
    return (unsigned)n;
}

/* ---- the doctor ---------------------------------------------------------- */

static void gpus(char *out, size_t size, const fw_gpu *g, unsigned n) {
    size_t used = strlen(out);
    for (unsigned i = 0; i < n && used < size; i++) {
        int k = snprintf(out + used, size - used, "%s%s (%s)", i ? ", " : "", g[i].arch, g[i].path);
        if (k < 0) {
            break;
        }
        used += (size_t)k;
    }
}

static void host_line(FILE *out, const fw_host *h) {
    char nv[512] = "", amd[512] = "";
    if (h->cuda_gpus) {
        snprintf(nv, sizeof nv, "NVIDIA driver for CUDA %d.%d, GPU ", h->cuda_major, h->cuda_minor);
        gpus(nv, sizeof nv, h->cuda, h->cuda_gpus);
    } else {
        snprintf(nv, sizeof nv, "%s",
                 h->nvidia_driver ? "NVIDIA driver loaded, no GPU" : "no NVIDIA driver loaded");
    }
    if (h->hip_gpus) {
        snprintf(amd, sizeof amd, "ROCm %d.%d runtime, GPU ", h->rocm_major, h->rocm_minor);
        gpus(amd, sizeof amd, h->hip, h->hip_gpus);
    } else {
        snprintf(amd, sizeof amd, "%s",
                 h->rocm_runtime ? "ROCm runtime loaded, no AMD GPU" : "no ROCm runtime loaded");
    }
    fprintf(out, "  %-5s this machine: %s; %s\n", "info", nv, amd);
}

/* What to do about a file that could not be read, when it does not say. */
static void problem_line(FILE *out, const fw_entry *e) {
    fprintf(out, "  %-5s %s %s: %s", "WARN", e->name, e->version[0] ? e->version : "(no version)",
            e->problem);
    if (!strstr(e->problem, "pip install")) {
        fprintf(out, "; reinstall it: pip install --force-reinstall %s", e->name);
    }
    fputc('\n', out);
}

static void doctor_env(void *ctx, const fw_env *env, const fw_host *h, unsigned index) {
    FILE *out = ctx;
    (void)index;
    fprintf(out, "  %-5s %s (%s): %u distribution%s\n", "env", env->site, env->found_by,
            env->distributions, env->distributions == 1 ? "" : "s");
    if (env->problem[0]) {
        fprintf(out, "  %-5s %s\n", "WARN", env->problem);
        return;
    }
    if (!env->count) {
        fprintf(out,
                "  %-5s none of torch, tensorflow, jax, cupy, paddlepaddle or NVIDIA's CUDA "
                "wheels\n",
                "-");
    }
    for (unsigned i = 0; i < env->count; i++) {
        const fw_entry *e = &env->entries[i];
        fw_verdict v;
        fw_judge(env, e, h, &v);
        if (e->problem[0]) {
            problem_line(out, e);
        }
        fprintf(out, "  %-5s %s %s: %s%s%s\n", fw_status_tag(v.status), e->name,
                e->version[0] ? e->version : "(no version)", v.finding, v.fix[0] ? "; " : "",
                v.fix);
    }
    if (env->left_out) {
        fprintf(out, "  %-5s %u more distributions gpuinfo knows are here, past the %d shown\n",
                "info", env->left_out, FW_MAX_ENTRIES);
    }
}

void fw_doctor_section(FILE *out, const fw_host *h) {
    fprintf(out, "frameworks: what each Python environment's builds need (read from their files, "
                 "without running Python)\n");
    host_line(out, h);
    if (each_env(out, h, doctor_env) == 0) {
        fprintf(out,
                "  %-5s no Python environment found (VIRTUAL_ENV, CONDA_PREFIX, python3 on "
                "PATH, ~/.local)\n",
                "-");
    }
}

/* ---- JSON ---------------------------------------------------------------- */

static void string_or_null(FILE *out, const char *s) {
    if (s && s[0]) {
        jw_string(out, s);
    } else {
        fputs("null", out);
    }
}

static void int_or_null(FILE *out, int v) {
    if (v >= 0) {
        fprintf(out, "%d", v);
    } else {
        fputs("null", out);
    }
}

static const char *build_key(fw_build b) {
    switch (b) {
    case FW_BUILD_CPU:
        return "cpu";
    case FW_BUILD_CUDA:
        return "cuda";
    case FW_BUILD_ROCM:
        return "rocm";
    case FW_BUILD_UNKNOWN:
        break;
    }
    return NULL;
}

/* The two arrays, written in one pass over the environments: the
 * frameworks' objects are kept in `frameworks` until the environments'
 * array is closed. */
typedef struct json_out {
    FILE *envs, *frameworks;
    unsigned written; /* frameworks so far */
} json_out;

static void json_framework(FILE *out, const fw_env *env, const fw_entry *e, const fw_verdict *v) {
    fputs("{\"site_packages\": ", out);
    jw_string(out, env->site);
    fputs(", \"found_by\": ", out);
    jw_string(out, env->found_by);
    fputs(",\n     \"name\": ", out);
    jw_string(out, e->name);
    fputs(", \"version\": ", out);
    string_or_null(out, e->version);
    fputs(", \"built_for\": ", out);
    string_or_null(out, build_key(e->build));
    bool release = e->build == FW_BUILD_CUDA || e->build == FW_BUILD_ROCM;
    fputs(", \"built_for_release\": ", out);
    string_or_null(out, release ? e->build_text : NULL);
    fputs(", \"built_for_major\": ", out);
    int_or_null(out, release ? e->major : -1);
    fputs(", \"built_for_minor\": ", out);
    int_or_null(out, release ? e->minor : -1);
    fputs(", \"build_source\": ", out);
    string_or_null(out, e->source);
    fputs(",\n     \"cuda_archs\": ", out);
    if (e->archs_known) {
        fputs("[", out);
        for (const char *p = e->archs; *p;) {
            size_t len = strcspn(p, ",");
            char item[64];
            snprintf(item, sizeof item, "%.*s", (int)(len < 63 ? len : 63), p);
            fputs(p == e->archs ? "" : ", ", out);
            jw_string(out, item);
            p += len + (p[len] == ',');
        }
        fputs("]", out);
    } else {
        fputs("null", out);
    }
    fputs(", \"cuda_archs_note\": ", out);
    string_or_null(out, e->archs_known ? NULL : e->archs_note);
    static const char *const status[] = {"ok", "info", "warn", "fail"};
    fputs(",\n     \"status\": ", out);
    jw_string(out, status[v->status]);
    fputs(", \"finding\": ", out);
    jw_string(out, v->finding);
    fputs(", \"fix\": ", out);
    string_or_null(out, v->fix);
    fputs(", \"error\": ", out);
    string_or_null(out, e->problem);
    fputs("}", out);
}

static void json_env(void *ctx, const fw_env *env, const fw_host *h, unsigned index) {
    json_out *j = ctx;
    fputs(index ? ",\n    {\"site_packages\": " : "\n    {\"site_packages\": ", j->envs);
    jw_string(j->envs, env->site);
    fputs(", \"found_by\": ", j->envs);
    jw_string(j->envs, env->found_by);
    fprintf(j->envs,
            ", \"distributions\": %u, \"frameworks_left_out\": %u, \"error\": ", env->distributions,
            env->left_out);
    string_or_null(j->envs, env->problem);
    fputs("}", j->envs);
    for (unsigned i = 0; i < env->count; i++) {
        fw_verdict v;
        fw_judge(env, &env->entries[i], h, &v);
        fputs(j->written++ ? ",\n    " : "\n    ", j->frameworks);
        json_framework(j->frameworks, env, &env->entries[i], &v);
    }
}

void fw_json_members(FILE *out, const fw_host *h) {
    char *held = NULL;
    size_t held_size = 0;
    json_out j = {out, open_memstream(&held, &held_size), 0};
    fputs(",\n  \"python_environments\": [", out);
    unsigned n = j.frameworks ? each_env(&j, h, json_env) : 0;
    fputs(n ? "\n  ],\n  \"frameworks\": [" : "],\n  \"frameworks\": [", out);
    if (j.frameworks && fclose(j.frameworks) == 0 && held) {
        fwrite(held, 1, held_size, out);
    }
    free(held);
    fputs(j.written ? "\n  ]" : "]", out);
}

/* ---- gpuinfo.h's entry points ------------------------------------------- */

void gi_frameworks_doctor(FILE *out) {
    fw_host h;
    fw_host_collect(&h);
    fw_doctor_section(out, &h);
}

void gi_frameworks_json(FILE *out, void *arg) {
    (void)arg;
    fw_host h;
    fw_host_collect(&h);
    fw_json_members(out, &h);
}
