/* Fleets: each launcher's variables map to the right engine, rank, local
 * rank and size; a rank picks its device and names its result file by
 * host, rank and device; --all-devices runs two devices at once and
 * measures the copies between them (pocl made to show two devices). */
#define _POSIX_C_SOURCE 200809L
#include "rank.h"
#include "xt_file.h"

#include <cjson/cJSON.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static const char *const all_vars[] = {
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK",
    "MPI_LOCALRANKID",
    "PMI_SIZE",
    "PMIX_RANK",
    "PMIX_SIZE",
    "SLURM_PROCID",
    "SLURM_LOCALID",
    "SLURM_NTASKS",
    "JOB_COMPLETION_INDEX",
    "SKYPILOT_NODE_RANK",
    "SKYPILOT_NUM_NODES",
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
};

static void clear_vars(void) {
    for (size_t i = 0; i < sizeof all_vars / sizeof all_vars[0]; i++) {
        unsetenv(all_vars[i]);
    }
}

/* "NAME=VALUE NAME=VALUE" into the environment. */
static void set_vars(const char *list) {
    char copy[512];
    snprintf(copy, sizeof copy, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(t, '=');
        assert_non_null(eq);
        *eq = '\0';
        setenv(t, eq + 1, 1);
    }
}

static void each_engine_maps_to_its_rank(void **state) {
    (void)state;
    static const struct {
        const char *env, *engine, *variable;
        int rank, local, size;
    } cases[] = {
        {"OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_SIZE=8", "openmpi",
         "OMPI_COMM_WORLD_RANK", 5, 1, 8},
        {"PMI_RANK=3 MPI_LOCALRANKID=2 PMI_SIZE=4", "mpich", "PMI_RANK", 3, 2, 4},
        {"SLURM_PROCID=9 SLURM_LOCALID=1 SLURM_NTASKS=16", "slurm", "SLURM_PROCID", 9, 1, 16},
        /* srun --mpi=pmi2 sets PMI_RANK as well: Slurm's local rank wins. */
        {"SLURM_PROCID=6 SLURM_LOCALID=2 SLURM_NTASKS=8 PMI_RANK=6 PMI_SIZE=8", "slurm",
         "SLURM_PROCID", 6, 2, 8},
        /* mpirun inside an allocation: the batch step's Slurm variables lose. */
        {"SLURM_PROCID=0 SLURM_LOCALID=0 OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_LOCAL_RANK=3",
         "openmpi", "OMPI_COMM_WORLD_RANK", 3, 3, -1},
        {"PMIX_RANK=2 PMIX_SIZE=4", "pmi", "PMIX_RANK", 2, -1, 4},
        {"PMI_RANK=1", "pmi", "PMI_RANK", 1, -1, -1},
        {"JOB_COMPLETION_INDEX=7", "kubernetes", "JOB_COMPLETION_INDEX", 7, -1, -1},
        {"SKYPILOT_NODE_RANK=1 SKYPILOT_NUM_NODES=2", "skypilot", "SKYPILOT_NODE_RANK", 1, -1, 2},
        {"RANK=4 LOCAL_RANK=0 WORLD_SIZE=8", "generic", "RANK", 4, 0, 8},
        {"LOCAL_RANK=3", "generic", "LOCAL_RANK", -1, 3, -1},
        /* A malformed variable is no rank: the next engine's is taken. */
        {"OMPI_COMM_WORLD_RANK=x1 SLURM_PROCID=2 SLURM_NTASKS=0", "slurm", "SLURM_PROCID", 2, -1,
         -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clear_vars();
        set_vars(cases[i].env);
        gb_rank r;
        if (!gb_rank_detect(&r)) {
            fail_msg("%s: no launcher found", cases[i].env);
        }
        if (strcmp(r.engine, cases[i].engine) || strcmp(r.variable, cases[i].variable) ||
            r.rank != cases[i].rank || r.local_rank != cases[i].local || r.size != cases[i].size) {
            fail_msg("%s: got %s %s rank %d local %d size %d", cases[i].env, r.engine, r.variable,
                     r.rank, r.local_rank, r.size);
        }
    }
    static const char *const none[] = {
        "", "RANK=-1", "RANK=", "LOCAL_RANK=1048576", "SLURM_PROCID=2x", "JOB_COMPLETION_INDEX= 1"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        clear_vars();
        if (*none[i]) {
            char *eq = strchr(none[i], '=');
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(eq - none[i]), none[i]);
            setenv(name, eq + 1, 1);
        }
        gb_rank r;
        if (gb_rank_detect(&r)) {
            fail_msg("\"%s\" was taken for a %s rank", none[i], r.engine);
        }
    }
    clear_vars();
}

static void file_parts_are_safe(void **state) {
    (void)state;
    char out[16];
    gb_file_part("node/7 a:b", out, sizeof out);
    assert_string_equal(out, "node_7_a_b");
    gb_file_part("GPU-1234.x_y", out, sizeof out);
    assert_string_equal(out, "GPU-1234.x_y");
    gb_file_part("0123456789abcdefghij", out, sizeof out);
    assert_string_equal(out, "0123456789abcde");
}

static char *run(const char *cmdline, int *status) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s 2>&1", cmdline);
    char *out = xt_run_command(cmd, status);
    assert_non_null(out);
    return out;
}

static void remove_results(void) {
    glob_t g;
    if (glob("gpubench-node_7-*.json", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            remove(g.gl_pathv[i]);
        }
    }
    globfree(&g);
}

/* Under Slurm: the local rank picks the device, the file is named by host,
 * global rank and device, and the JSON records the rank. */
static void slurm_rank_names_its_file(void **state) {
    (void)state;
    remove_results();
    char cmd[1024];
    int status = 0;
    snprintf(cmd, sizeof cmd,
             "XGPU_GPUBENCH_HOST=node/7 SLURM_PROCID=3 SLURM_LOCALID=0 SLURM_NTASKS=4 "
             "%s -b launch --reps 3",
             GPUBENCH);
    char *out = run(cmd, &status);
    if (status != 0 ||
        !strstr(out, "slurm launcher: rank 3 (SLURM_PROCID), local rank 0 "
                     "(SLURM_LOCALID)") ||
        !strstr(out, "local rank 0: device ")) {
        fail_msg("status %d\n%s", status, out);
    }
    glob_t g;
    assert_int_equal(glob("gpubench-node_7-r3-*.json", 0, NULL, &g), 0);
    assert_int_equal(g.gl_pathc, 1);
    char said[4200], cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(said, sizeof said, "results to %s/%s", cwd, g.gl_pathv[0]);
    if (!strstr(out, said)) {
        fail_msg("expected \"%s\" in\n%s", said, out);
    }
    free(out);
    char *text = xt_read_file(g.gl_pathv[0], NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    const cJSON *rank = cJSON_GetObjectItem(root, "rank");
    assert_string_equal(cJSON_GetObjectItem(rank, "engine")->valuestring, "slurm");
    assert_int_equal(cJSON_GetObjectItem(rank, "rank")->valueint, 3);
    assert_int_equal(cJSON_GetObjectItem(rank, "local_rank")->valueint, 0);
    assert_int_equal(cJSON_GetObjectItem(rank, "size")->valueint, 4);
    /* The file's last part is the device's UUID, or its path without one. */
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "results"), 0);
    const cJSON *uuid = cJSON_GetObjectItem(first, "device_uuid");
    char want[256], path[64];
    if (cJSON_IsString(uuid)) {
        snprintf(want, sizeof want, "gpubench-node_7-r3-%s.json", uuid->valuestring);
    } else {
        snprintf(path, sizeof path, "%s", cJSON_GetObjectItem(first, "device")->valuestring);
        char *colon = strchr(path, ':');
        assert_non_null(colon);
        memmove(colon, colon + 1, strlen(colon));
        snprintf(want, sizeof want, "gpubench-node_7-r3-%s.json", path);
    }
    assert_string_equal(g.gl_pathv[0], want);
    cJSON_Delete(root);
    free(text);
    globfree(&g);
    remove_results();
}

/* Two pocl devices at once, then the copies between them: four pairs,
 * the diagonal local and the others staged, every one verified; a health
 * object for each device. */
static void all_devices_and_the_p2p_matrix(void **state) {
    (void)state;
    char cmd[1024];
    int status = 0;
    remove("gb-fleet.json");
    snprintf(cmd, sizeof cmd,
             "POCL_DEVICES='pthread pthread' XGPU_BACKENDS=opencl %s --all-devices -b stream,p2p "
             "--size 1 --reps 3 --json gb-fleet.json",
             GPUBENCH);
    char *out = run(cmd, &status);
    if (status != 0 || !strstr(out, "--all-devices: 2 devices at once") ||
        !strstr(out, "p2p bandwidth, GB/s") || !strstr(out, "(staged)")) {
        fail_msg("status %d\n%s", status, out);
    }
    free(out);
    char *text = xt_read_file("gb-fleet.json", NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    int seen[2] = {0, 0};
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results")) {
        const char *dev = cJSON_GetObjectItem(r, "device")->valuestring;
        seen[0] += !strcmp(dev, "opencl:0");
        seen[1] += !strcmp(dev, "opencl:1");
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r, "verified")));
    }
    assert_true(seen[0] > 0 && seen[0] == seen[1]);
    /* each device's health facts, from its own thread, in device order */
    const cJSON *health = cJSON_GetObjectItem(root, "health");
    assert_int_equal(cJSON_GetArraySize(health), 2);
    for (int i = 0; i < 2; i++) {
        const cJSON *dev = cJSON_GetObjectItem(cJSON_GetArrayItem(health, i), "device");
        assert_string_equal(dev->valuestring, i ? "opencl:1" : "opencl:0");
    }
    const cJSON *pairs = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "p2p"), "pairs");
    assert_int_equal(cJSON_GetArraySize(pairs), 4);
    const cJSON *p;
    cJSON_ArrayForEach(p, pairs) {
        const char *src = cJSON_GetObjectItem(p, "src")->valuestring;
        const char *dst = cJSON_GetObjectItem(p, "dst")->valuestring;
        const char *path = cJSON_GetObjectItem(p, "path")->valuestring;
        assert_string_equal(path, strcmp(src, dst) ? "staged" : "local");
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p, "verified")));
        assert_true(cJSON_GetObjectItem(p, "gbs")->valuedouble > 0);
        assert_true(cJSON_GetObjectItem(p, "latency_us")->valuedouble > 0);
    }
    cJSON_Delete(root);
    free(text);
    remove("gb-fleet.json");
}

/* A launcher that gives only a local rank (LOCAL_RANK alone): the files
 * merge, and the same file twice is named a duplicate by its local rank. */
static void local_rank_files_merge(void **state) {
    (void)state;
    remove_results();
    char cmd[1024];
    int status = 0;
    for (int r = 0; r < 2; r++) {
        snprintf(cmd, sizeof cmd, "XGPU_GPUBENCH_HOST=node/7 LOCAL_RANK=%d %s -b launch --reps 3",
                 r, GPUBENCH);
        char *out = run(cmd, &status);
        if (status != 0) {
            fail_msg("LOCAL_RANK=%d: status %d\n%s", r, status, out);
        }
        free(out);
    }
    glob_t g;
    assert_int_equal(glob("gpubench-node_7-l[01]-*.json", 0, NULL, &g), 0);
    assert_int_equal(g.gl_pathc, 2);
    snprintf(cmd, sizeof cmd, "%s report -o gb-local %s %s %s", GPUBENCH, g.gl_pathv[0],
             g.gl_pathv[1], g.gl_pathv[0]);
    char *out = run(cmd, &status);
    if (status != 0 || !strstr(out, "from 2 file(s), 1 skipped") ||
        !strstr(out, "(host node/7, local rank 0)")) {
        fail_msg("status %d\n%s", status, out);
    }
    free(out);
    globfree(&g);
    remove_results();
    remove("gb-local.md"), remove("gb-local.html"), remove("gb-local.json");
}

/* --json - keeps stdout to the JSON (the table goes to stderr); under a
 * launcher, one --json for every rank is warned about; report's own help
 * and its unknown options. */
static void outputs_and_options(void **state) {
    (void)state;
    char cmd[1024];
    int status = 0;
    snprintf(cmd, sizeof cmd,
             "SLURM_PROCID=0 SLURM_NTASKS=2 %s -b launch --reps 3 --json - 2>/dev/null", GPUBENCH);
    char *out = xt_run_command(cmd, &status);
    assert_non_null(out);
    cJSON *root = cJSON_Parse(out);
    if (status != 0 || !root) {
        fail_msg("status %d, stdout is not JSON:\n%s", status, out);
    }
    cJSON_Delete(root);
    free(out);
    snprintf(cmd, sizeof cmd,
             "SLURM_PROCID=0 SLURM_NTASKS=2 %s -b launch --reps 3 --json gb-one.json", GPUBENCH);
    out = run(cmd, &status);
    if (status != 0 || !strstr(out, "every rank writes --json gb-one.json")) {
        fail_msg("status %d\n%s", status, out);
    }
    free(out);
    remove("gb-one.json");
    snprintf(cmd, sizeof cmd, "%s -b launch --csv - --json -", GPUBENCH);
    out = run(cmd, &status);
    assert_int_equal(status, 2);
    assert_non_null(strstr(out, "cannot both write to standard output"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s -b gemm --dtype i32", GPUBENCH);
    out = run(cmd, &status);
    assert_int_equal(status, 2);
    assert_non_null(strstr(out, "--dtype i32: none of these element types is run"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s report --help", GPUBENCH);
    out = run(cmd, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "usage: gpubench report [-o PREFIX] RESULT.json..."));
    free(out);
    snprintf(cmd, sizeof cmd, "%s report -x a.json", GPUBENCH);
    out = run(cmd, &status);
    assert_int_equal(status, 2);
    assert_non_null(strstr(out, "unknown option '-x'"));
    free(out);
}

/* Copies larger than a device's largest buffer are refused before any
 * memory is taken, and the run fails. */
static void oversized_p2p_is_refused(void **state) {
    (void)state;
    char cmd[1024];
    int status = 0;
    snprintf(cmd, sizeof cmd, "%s -b p2p --size 200000", GPUBENCH);
    char *out = run(cmd, &status);
    if (status != 1 || !strstr(out, "p2p: 200000 MiB copies do not fit") ||
        !strstr(out, "choose a smaller --size")) {
        fail_msg("status %d\n%s", status, out);
    }
    free(out);
}

#if defined(FAKE_CUDA)
/* gpubench --all-devices -b p2p on three fake CUDA devices (after `env`),
 * which must exit `want`, say `says` and not `never` (NULL: anything); the
 * file's nine pairs, parsed (*root to cJSON_Delete). */
static const cJSON *fake_p2p(const char *env, int want, const char *says, const char *never,
                             cJSON **root) {
    char cmd[2048];
    int status = 0;
    remove("gb-fake-p2p.json");
    snprintf(cmd, sizeof cmd,
             "%s %s %s --all-devices -b p2p --size 2 --reps 3 --json gb-fake-p2p.json", env,
             FAKE_CUDA, GPUBENCH);
    char *out = run(cmd, &status);
    if (status != want || !strstr(out, says) || (never && strstr(out, never))) {
        fail_msg("status %d\n%s", status, out);
    }
    free(out);
    char *text = xt_read_file("gb-fake-p2p.json", NULL);
    assert_non_null(text);
    *root = cJSON_Parse(text);
    free(text);
    remove("gb-fake-p2p.json");
    assert_non_null(*root);
    const cJSON *pairs = cJSON_GetObjectItem(cJSON_GetObjectItem(*root, "p2p"), "pairs");
    assert_int_equal(cJSON_GetArraySize(pairs), 9);
    return pairs;
}
#endif

/* Three fake CUDA devices that are each other's peers: every pair direct,
 * and the copies checked like any other. */
static void direct_paths_are_labelled(void **state) {
    (void)state;
#if defined(FAKE_CUDA)
    cJSON *root = NULL;
    const cJSON *pairs = fake_p2p("", 0, "--all-devices: 3 devices at once", "staged)", &root);
    const cJSON *p;
    cJSON_ArrayForEach(p, pairs) {
        bool diagonal = !strcmp(cJSON_GetObjectItem(p, "src")->valuestring,
                                cJSON_GetObjectItem(p, "dst")->valuestring);
        assert_string_equal(cJSON_GetObjectItem(p, "path")->valuestring,
                            diagonal ? "local" : "direct");
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p, "verified")));
    }
    cJSON_Delete(root);
#else
    skip();
#endif
}

/* A device that cannot take the p2p buffers fails its own row and column;
 * the other pairs still run and verify, and the run exits 1. */
static void one_device_short_of_memory(void **state) {
    (void)state;
#if defined(FAKE_CUDA)
    cJSON *root = NULL;
    const cJSON *pairs =
        fake_p2p("FAKE_CUDA_OOM_DEVICE=1", 1, "gpubench: p2p: cuda:1:", NULL, &root);
    const cJSON *p;
    cJSON_ArrayForEach(p, pairs) {
        bool involved = !strcmp(cJSON_GetObjectItem(p, "src")->valuestring, "cuda:1") ||
                        !strcmp(cJSON_GetObjectItem(p, "dst")->valuestring, "cuda:1");
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(p, "verified")), !involved);
        assert_int_equal(cJSON_IsNumber(cJSON_GetObjectItem(p, "gbs")), !involved);
    }
    cJSON_Delete(root);
#else
    skip();
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_engine_maps_to_its_rank),
        cmocka_unit_test(file_parts_are_safe),
        cmocka_unit_test(slurm_rank_names_its_file),
        cmocka_unit_test(all_devices_and_the_p2p_matrix),
        cmocka_unit_test(local_rank_files_merge),
        cmocka_unit_test(outputs_and_options),
        cmocka_unit_test(oversized_p2p_is_refused),
        cmocka_unit_test(direct_paths_are_labelled),
        cmocka_unit_test(one_device_short_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
