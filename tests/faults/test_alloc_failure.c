/* Allocation failure at every site. One scenario touches everything a
 * program does (discovery, context, queue, buffers, pinned memory, build,
 * launch, reduce, GEMM, events, release). The driver runs it once to count
 * the allocations xgpu makes, then once per allocation N with the N-th
 * failing (tests/faults/alloc_shim.c, preloaded). Each run must:
 *   - end the first pass in success or XGPU_ERROR_OUT_OF_HOST_MEMORY, never
 *     another status (a wrong reason) and never a crash;
 *   - release everything it made, and leave as many live xgpu blocks as a
 *     run without failures (no leak);
 *   - then pass the whole scenario again: a transient failure never sticks.
 *
 * Usage: test_alloc_failure SHIM [FIRST LAST]   (driver)
 *        XGPU_FAULT_CHILD=1 test_alloc_failure   (one run; the driver
 *        starts these with LD_PRELOAD=SHIM and XGPU_FAULT_AT=N). */
#define _GNU_SOURCE
#include <xgpu.h>

#include <dlfcn.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *source =
    "XGPU_KERNEL void scale(XGPU_GLOBAL const float *x, XGPU_GLOBAL float *y, float a,\n"
    "                       xgpu_u32 n) {\n"
    "    xgpu_u32 i = xgpu_global_id(0);\n"
    "    if (i < n) y[i] = a * x[i];\n"
    "}\n";

enum { N = 1024, G = 32 };

typedef struct run {
    const char *step; /* the step that failed */
    xgpu_status status;
    char message[512];
} run;

#define STEP(r, name, call)                                                                        \
    do {                                                                                           \
        (r)->step = (name);                                                                        \
        xgpu_status step_st_ = (call);                                                             \
        if (step_st_ != XGPU_SUCCESS) {                                                            \
            (r)->status = step_st_;                                                                \
            snprintf((r)->message, sizeof(r)->message, "%s", xgpu_last_error()->message);          \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

/* Releases must succeed even after a failure: anything else is a leak or a
 * broken object. */
static int released(const char *what, xgpu_status st) {
    if (st != XGPU_SUCCESS) {
        printf("RELEASE-FAILED %s: %s: %s\n", what, xgpu_status_name(st),
               xgpu_last_error()->message);
        return 1;
    }
    return 0;
}

static int scenario(run *r, int churn) {
    xgpu_device *dev = NULL;
    xgpu_context *ctx = NULL;
    xgpu_queue *q = NULL;
    xgpu_buffer *x = NULL, *y = NULL, *out = NULL, *a = NULL, *b = NULL, *c = NULL;
    xgpu_program *prog = NULL;
    xgpu_kernel *k = NULL;
    xgpu_event *e1 = NULL, *e2 = NULL;
    float *pinned = NULL;
    xgpu_buffer *many[40] = {NULL};
    int bad = 0;
    static float host[N], mat[G * G], res[G * G];
    memset(r, 0, sizeof *r);
    const char *sel = getenv("XGPU_TEST_DEVICES");
    for (int i = 0; i < N; i++) {
        host[i] = (float)((i * 37) % 101) / 16.0f + 0.5f;
    }
    for (int i = 0; i < G * G; i++) {
        mat[i] = (float)((i * 13) % 17) / 8.0f - 1.0f;
    }
    STEP(r, "device_select", xgpu_device_select(sel && *sel ? sel : "0", &dev));
    STEP(r, "context_create", xgpu_context_create(dev, &ctx));
    STEP(r, "queue_create", xgpu_queue_create(ctx, &q));
    STEP(r, "buffer_create", xgpu_buffer_create(ctx, N * sizeof(float), &x));
    STEP(r, "buffer_create", xgpu_buffer_create(ctx, N * sizeof(float), &y));
    STEP(r, "buffer_create", xgpu_buffer_create(ctx, 64, &out));
    STEP(r, "buffer_create", xgpu_buffer_create(ctx, sizeof mat, &a));
    STEP(r, "buffer_create", xgpu_buffer_create(ctx, sizeof mat, &b));
    STEP(r, "buffer_create", xgpu_buffer_create(ctx, sizeof mat, &c));
    /* Enough live handles to make the handle registry grow. */
    for (size_t i = 0; i < sizeof many / sizeof many[0]; i++) {
        STEP(r, "buffer_create", xgpu_buffer_create(ctx, 64, &many[i]));
    }
    STEP(r, "host_alloc", xgpu_host_alloc(ctx, N * sizeof(float), (void **)&pinned));
    memcpy(pinned, host, sizeof host);
    STEP(r, "buffer_write", xgpu_buffer_write(q, x, 0, pinned, sizeof host, false, &e1));
    STEP(r, "event_wait", xgpu_event_wait(e1));
    STEP(r, "buffer_write", xgpu_buffer_write(q, a, 0, mat, sizeof mat, true, NULL));
    STEP(r, "buffer_write", xgpu_buffer_write(q, b, 0, mat, sizeof mat, true, NULL));
    STEP(r, "program_build", xgpu_program_build(ctx, source, NULL, &prog));
    STEP(r, "kernel_create", xgpu_kernel_create(prog, "scale", &k));
    STEP(r, "program_release", xgpu_program_release(prog));
    prog = NULL;
    xgpu_range range = xgpu_range_1d(N / 64, 64);
    xgpu_arg args[] = {xgpu_arg_buffer(x), xgpu_arg_buffer(y), xgpu_arg_f32(2.0f), xgpu_arg_u32(N)};
    STEP(r, "launch", xgpu_launch(q, k, &range, 4, args, NULL));
    STEP(r, "reduce", xgpu_reduce(q, XGPU_REDUCE_SUM, XGPU_F32, y, 0, N, out, 0, NULL));
    xgpu_gemm_desc g = {.dtype = XGPU_F32,
                        .layout = XGPU_ROW_MAJOR,
                        .trans_a = XGPU_NO_TRANS,
                        .trans_b = XGPU_NO_TRANS,
                        .m = G,
                        .n = G,
                        .k = G,
                        .alpha = 1.0,
                        .beta = 0.0,
                        .a = {a, 0, G},
                        .b = {b, 0, G},
                        .c = {c, 0, G},
                        .params = NULL};
    STEP(r, "gemm", xgpu_gemm(q, &g, NULL));
    STEP(r, "record_event", xgpu_queue_record_event(q, &e2));
    double ms = 0;
    STEP(r, "event_elapsed", xgpu_event_elapsed_ms(e1, e2, &ms));
    float sum = 0;
    STEP(r, "buffer_read", xgpu_buffer_read(q, out, 0, &sum, sizeof sum, true, NULL));
    STEP(r, "buffer_read", xgpu_buffer_read(q, c, 0, res, sizeof res, true, NULL));
    /* The results are right, not just returned. */
    double want = 0;
    for (int i = 0; i < N; i++) {
        want += 2.0 * host[i];
    }
    if (fabs(sum - want) > 1e-3 * want) {
        printf("WRONG sum %g, want %g\n", sum, want);
        bad = 1;
    }
    double c00 = 0;
    for (int i = 0; i < G; i++) {
        c00 += (double)mat[i] * mat[i * G];
    }
    if (fabs(res[0] - c00) > 1e-3 * (1 + fabs(c00))) {
        printf("WRONG gemm c[0] %g, want %g\n", res[0], c00);
        bad = 1;
    }
    r->step = NULL;
    /* Released objects' memory is recycled through a ring of recent
     * releases; churning it makes the live count comparable between runs. */
    for (int i = 0; i < churn; i++) {
        xgpu_buffer *t = NULL;
        STEP(r, "churn", xgpu_buffer_create(ctx, 16, &t));
        STEP(r, "churn", xgpu_buffer_release(t));
    }
cleanup:
    bad |= released("event", xgpu_event_release(e1));
    bad |= released("event", xgpu_event_release(e2));
    bad |= released("kernel", xgpu_kernel_release(k));
    bad |= released("program", xgpu_program_release(prog));
    xgpu_buffer *bufs[] = {x, y, out, a, b, c};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        bad |= released("buffer", xgpu_buffer_release(bufs[i]));
    }
    for (size_t i = 0; i < sizeof many / sizeof many[0]; i++) {
        bad |= released("buffer", xgpu_buffer_release(many[i]));
    }
    if (pinned) {
        bad |= released("host_free", xgpu_host_free(ctx, pinned));
    }
    bad |= released("queue", xgpu_queue_release(q));
    bad |= released("context", xgpu_context_release(ctx));
    return bad;
}

static int child(void) {
    void (*stats)(long *, long *, long *) = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "xgpu_fault_stats");
    memcpy(&stats, &sym, sizeof stats);
    long allocs1 = 0, allocs = 0, live = 0, failed = 0;
    run r1, r2;
    int bad = scenario(&r1, 0);
    if (stats) {
        stats(&allocs1, &live, &failed);
    }
    if (r1.status != XGPU_SUCCESS && r1.status != XGPU_ERROR_OUT_OF_HOST_MEMORY) {
        printf("WRONG-REASON step %s: %s: %s\n", r1.step, xgpu_status_name(r1.status), r1.message);
        bad = 1;
    }
    if (r1.status == XGPU_ERROR_OUT_OF_HOST_MEMORY && !r1.message[0]) {
        printf("NO-MESSAGE step %s\n", r1.step);
        bad = 1;
    }
    bad |= scenario(&r2, 300);
    if (r2.status != XGPU_SUCCESS) {
        printf("STUCK step %s: %s: %s\n", r2.step, xgpu_status_name(r2.status), r2.message);
        bad = 1;
    }
    if (stats) {
        stats(&allocs, &live, &failed);
    }
    printf("RESULT first=%s step=%s failed_at=%ld pass1_allocations=%ld live=%ld bad=%d\n",
           xgpu_status_name(r1.status), r1.step ? r1.step : "-", failed, allocs1, live, bad);
    return bad;
}

typedef struct outcome {
    int ok;
    long failed_at, pass1, live;
    char first[64], line[1024];
} outcome;

static outcome run_child(const char *self, const char *shim, long n) {
    outcome o = {0};
    char at[32], preload[1024];
    snprintf(at, sizeof at, "XGPU_FAULT_AT=%ld", n);
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", shim);
    size_t envc = 0;
    while (environ[envc]) {
        envc++;
    }
    char **env = calloc(envc + 4, sizeof *env);
    size_t e = 0;
    for (size_t i = 0; i < envc; i++) {
        if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], "XGPU_FAULT_", 11)) {
            env[e++] = environ[i];
        }
    }
    env[e++] = at;
    env[e++] = preload;
    env[e++] = "XGPU_FAULT_CHILD=1";
    int fds[2];
    if (pipe(fds)) {
        free(env);
        return o;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    char *argv[] = {(char *)self, NULL};
    int rc = posix_spawn(&pid, self, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    free(env);
    FILE *f = fdopen(fds[0], "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "RESULT ", 7)) {
            sscanf(line, "RESULT first=%63s step=%*s failed_at=%ld pass1_allocations=%ld live=%ld",
                   o.first, &o.failed_at, &o.pass1, &o.live);
        } else {
            snprintf(o.line, sizeof o.line, "%s", line); /* the last complaint */
        }
    }
    if (f) {
        fclose(f);
    }
    int status = 0;
    if (rc == 0 && waitpid(pid, &status, 0) == pid) {
        if (WIFSIGNALED(status)) {
            snprintf(o.line, sizeof o.line, "killed by signal %d\n", WTERMSIG(status));
        } else {
            o.ok = WEXITSTATUS(status) == 0 && o.first[0];
        }
    }
    return o;
}

int main(int argc, char **argv) {
    if (getenv("XGPU_FAULT_CHILD")) {
        return child();
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s SHIM [FIRST LAST]\n", argv[0]);
        return 2;
    }
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        return 2;
    }
    self[len] = '\0';
    /* Counted on the second of two runs: the first fills the kernel caches
     * (a cold cache stores binaries: allocations a warm run skips). */
    outcome base = run_child(self, argv[1], 0);
    if (base.ok) {
        base = run_child(self, argv[1], 0);
    }
    if (!base.ok || strcmp(base.first, "XGPU_SUCCESS")) {
        fprintf(stderr, "the scenario fails without any injected failure: %s %s", base.first,
                base.line);
        return 1;
    }
    long first = argc > 3 ? atol(argv[2]) : 1;
    long last = argc > 3 ? atol(argv[3]) : base.pass1;
    if (last > base.pass1) {
        last = base.pass1;
    }
    printf("%ld allocations by xgpu in the scenario, %ld live xgpu blocks after it; "
           "failing each of %ld..%ld in turn\n",
           base.pass1, base.live, first, last);
    fflush(stdout);
    int failures = 0;
    long oom = 0;
    for (long n = first; n <= last; n++) {
        outcome o = run_child(self, argv[1], n);
        /* The first pass made fewer than n allocations this time, so the
         * failure hit the second pass: not this site's test. */
        if (!strcmp(o.first, "XGPU_SUCCESS") && o.pass1 < n) {
            printf("allocation %ld: skipped: the first pass made %ld allocations this run\n", n,
                   o.pass1);
            continue;
        }
        const char *why = NULL;
        if (!o.ok) {
            why = "failed";
        } else if (o.failed_at != n) {
            why = "the allocation did not fail (the scenario allocates differently per run)";
        } else if (o.live != base.live) {
            why = "leak: live xgpu blocks differ from a run without failure";
        }
        oom += !strcmp(o.first, "XGPU_ERROR_OUT_OF_HOST_MEMORY");
        if (why && (!o.ok || o.failed_at == n)) {
            printf("allocation %ld: %s (first pass %s, live %ld vs %ld): %s", n, why, o.first,
                   o.live, base.live, o.line[0] ? o.line : "\n");
            failures++;
        } else if (why) {
            printf("allocation %ld: skipped: %s\n", n, why);
        }
    }
    printf("%ld allocation sites failed in turn: %ld ended in XGPU_ERROR_OUT_OF_HOST_MEMORY, "
           "%ld recovered inside xgpu; %d problem(s)\n",
           last - first + 1, oom, last - first + 1 - oom, failures);
    return failures ? 1 : 0;
}
