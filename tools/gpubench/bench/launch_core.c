/* The core's own cost per launch: xgpu_launch on the null backend, whose
 * hooks do no work, so what is timed is the core's checks, signature
 * lookup and marshalling and one indirect call.
 *
 * The null backend is loaded only when XGPU_BACKENDS names it, and the
 * core loads its backends once per process, so from a run on a real device
 * it is measured in a child: this same gpubench, run again as
 * `XGPU_BACKENDS=null gpubench -b launch -d null --json FILE`, whose launch
 * benchmark times the null device (gb_core_series) and whose JSON row the
 * parent reads back. Once per process, whatever the number of devices. */
#define _POSIX_C_SOURCE 200809L
#include "measure.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int gb_core_series(gb_env *env, xgpu_kernel *k, const xgpu_range *range, const xgpu_arg *args,
                   double *series, int n) {
    int failed = 0;
    for (int i = 0; i < n; i++) {
        double a = gb_now();
        for (int j = 0; j < GB_CORE_BATCH; j++) {
            failed += xgpu_launch(env->queue, k, range, 1, args, NULL) != XGPU_SUCCESS;
        }
        series[i] = (gb_now() - a) / GB_CORE_BATCH;
    }
    return failed;
}

/* The environment with XGPU_BACKENDS=null in place of any XGPU_BACKENDS;
 * the strings are environ's, the array malloc'ed. NULL when out of memory. */
static char **null_environment(void) {
    static char backends[] = "XGPU_BACKENDS=null";
    size_t n = 0;
    while (environ[n]) {
        n++;
    }
    char **env = malloc((n + 2) * sizeof *env);
    if (!env) {
        return NULL;
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(environ[i], "XGPU_BACKENDS=", 14)) {
            env[used++] = environ[i];
        }
    }
    env[used++] = backends;
    env[used] = NULL;
    return env;
}

/* The last non-empty line of a small text file, for a reason. */
static void last_line(const char *path, char *out, size_t size) {
    char text[4096];
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) {
        return;
    }
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) {
        text[--len] = '\0';
    }
    char *line = strrchr(text, '\n');
    snprintf(out, size, "%.*s", (int)size - 1, line ? line + 1 : text);
}

static double number(const cJSON *row, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The core-overhead row of the child's result file. */
static int read_row(const char *path, gb_stats *t, bool *verified, char *why, size_t why_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "it wrote no results");
        return -1;
    }
    char *text = malloc(GB_CORE_JSON_MAX + 1);
    size_t len = text ? fread(text, 1, GB_CORE_JSON_MAX, f) : 0;
    fclose(f);
    if (!text) {
        snprintf(why, why_size, "out of host memory");
        return -1;
    }
    text[len] = '\0';
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *row = NULL, *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    cJSON_ArrayForEach(row, results) {
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(row, "shape");
        if (cJSON_IsString(shape) && !strcmp(shape->valuestring, GB_CORE_SHAPE)) {
            break;
        }
    }
    int rc = -1;
    if (!row) {
        snprintf(why, why_size, "its results have no '%s' row", GB_CORE_SHAPE);
    } else {
        *t = (gb_stats){number(row, "median_s"), number(row, "min_s"), number(row, "max_s"),
                        number(row, "stddev_s"), (int)number(row, "reps")};
        *verified = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "verified"));
        rc = t->median > 0 && t->reps > 0 ? 0 : -1;
        if (rc) {
            snprintf(why, why_size, "its '%s' row has no median", GB_CORE_SHAPE);
        }
    }
    cJSON_Delete(root);
    return rc;
}

static int run_child(const char *dir, gb_stats *t, bool *verified, char *why, size_t why_size) {
    char exe[4096], json[4200], err[4200];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(why, why_size, "cannot find gpubench itself (/proc/self/exe: %s)",
                 strerror(errno));
        return -1;
    }
    exe[n] = '\0';
    snprintf(json, sizeof json, "%s/core.json", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    char *argv[] = {exe, "-b", "launch", "-d", "null", "--json", json, NULL};
    char **envp = null_environment();
    posix_spawn_file_actions_t fa;
    if (!envp || posix_spawn_file_actions_init(&fa) != 0) {
        free(envp);
        snprintf(why, why_size, "out of host memory");
        return -1;
    }
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int spawn_rc = posix_spawn(&pid, exe, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    if (spawn_rc != 0) {
        snprintf(why, why_size, "cannot run %.300s: %s", exe, strerror(spawn_rc));
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    /* A failed verification makes the child exit 1 with its results
     * written: the row says so itself. */
    int rc = read_row(json, t, verified, why, why_size);
    if (rc != 0) {
        char line[160], what[256], how[64];
        last_line(err, line, sizeof line);
        snprintf(what, sizeof what, "%.*s", (int)sizeof what - 1, why);
        if (WIFSIGNALED(status)) {
            snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(status));
        } else {
            snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
        }
        snprintf(why, why_size, "XGPU_BACKENDS=null gpubench -b launch -d null (%s): %s%s%s", how,
                 what, line[0] ? "; " : "", line);
    }
    unlink(json);
    unlink(err);
    return rc;
}

int gb_core_from_child(gb_stats *t, bool *verified, char *why, size_t why_size) {
    static bool done;
    static int rc;
    static gb_stats saved;
    static bool saved_verified;
    static char saved_why[512];
    /* --all-devices: one child for every device's thread. */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    if (!done) {
        done = true;
        const char *tmp = getenv("TMPDIR");
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/gpubench-core-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            snprintf(saved_why, sizeof saved_why, "cannot make a temporary folder in %s: %s",
                     tmp && *tmp == '/' ? tmp : "/tmp", strerror(errno));
            rc = -1;
        } else {
            rc = run_child(dir, &saved, &saved_verified, saved_why, sizeof saved_why);
            rmdir(dir);
        }
    }
    *t = saved;
    *verified = saved_verified;
    snprintf(why, why_size, "%s", saved_why);
    pthread_mutex_unlock(&lock);
    return rc;
}
