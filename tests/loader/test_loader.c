/* Loader: discovery, negotiation and every failure mode, with stub plugins. */
#define _GNU_SOURCE
#include "core_int.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static xgpu__registry reg;

static void load(const char *plugin_path, const char *backends) {
    xgpu__loader_config cfg = {plugin_path, backends, NULL, NULL};
    xgpu__registry_load(&cfg, &reg);
}

static int teardown(void **state) {
    (void)state;
    xgpu__registry_free(&reg);
    return 0;
}

static const xgpu__backend *find(const char *name) {
    for (uint32_t i = 0; i < reg.backend_count; i++) {
        if (!strcmp(reg.backends[i].name, name)) {
            return &reg.backends[i];
        }
    }
    fail_msg("backend %s not listed", name);
    return NULL;
}

static void assert_reason(const char *name, xgpu_status status, const char *fragment) {
    const xgpu__backend *b = find(name);
    assert_false(b->available);
    assert_int_equal(b->status, status);
    if (!strstr(b->reason, fragment)) {
        fail_msg("%s: reason '%s' lacks '%s'", name, b->reason, fragment);
    }
}

static void good_plugin_loads_with_its_device(void **state) {
    (void)state;
    load(STUB_DIR, "stubok");
    const xgpu__backend *b = find("stubok");
    assert_true(b->available);
    assert_int_equal(b->abi_version, 1);
    assert_int_equal(reg.device_count, 1);
    assert_string_equal(reg.devices[0].info.name, "stub device 0");
    assert_string_equal(reg.devices[0].info.backend, "stubok");
    /* Optional hooks were filled with core defaults. */
    assert_non_null(b->ops.host_alloc);
    assert_non_null(b->ops.shutdown);
    /* An optional hook the plugin has is kept. */
    xgpu__clear_error();
    assert_int_equal(b->ops.queue_wait_event(NULL, NULL), XGPU_ERROR_UNSUPPORTED);
    assert_string_equal(xgpu_last_error()->backend, "stubok");
}

/* A plugin built with the older, smaller table: hooks appended after it
 * are NULL (whatever lies past its table) and the core's defaults apply. */
static void older_smaller_table_gets_the_defaults(void **state) {
    (void)state;
    load(STUB_DIR, "stubold");
    const xgpu__backend *b = find("stubold");
    assert_true(b->available);
    assert_int_equal(b->abi_version, 1);
    /* Not the plugin's hook past its table: the core's default, which
     * hands the wait back to the core. */
    xgpu__clear_error();
    assert_int_equal(b->ops.queue_wait_event(NULL, NULL), XGPU_ERROR_UNSUPPORTED);
    assert_int_equal(xgpu_last_error()->status, XGPU_SUCCESS); /* the stub's would set one */
    assert_non_null(b->ops.host_alloc);
    /* Appended later still: the default refuses, naming why. */
    void *native = NULL;
    assert_int_equal(b->ops.kernel_native(NULL, &native), XGPU_ERROR_UNSUPPORTED);
    assert_int_equal(reg.device_count, 1);
}

static int host_waits;
static void *host_waited;
static xgpu_status counting_event_wait(void *event) {
    host_waits++;
    host_waited = event;
    return XGPU_SUCCESS;
}
static int device_waits;
static xgpu_status device_wait(void *queue, void *event) {
    (void)queue, (void)event;
    device_waits++;
    return XGPU_SUCCESS;
}

/* Without queue_wait_event the core waits for the event on the host. */
static void queue_wait_event_defaults_to_a_host_wait(void **state) {
    (void)state;
    xgpu_backend_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.event_wait = counting_event_wait;
    xgpu__ops_fill_defaults(&ops);
    int queue, event;
    host_waits = device_waits = 0;
    assert_int_equal(xgpu__queue_wait_event(&ops, &queue, &event), XGPU_SUCCESS);
    assert_int_equal(host_waits, 1);
    assert_ptr_equal(host_waited, &event);
    ops.queue_wait_event = device_wait; /* a backend's own: no host wait */
    assert_int_equal(xgpu__queue_wait_event(&ops, &queue, &event), XGPU_SUCCESS);
    assert_int_equal(host_waits, 1);
    assert_int_equal(device_waits, 1);
}

static void wrong_abi_version_is_refused(void **state) {
    (void)state;
    load(STUB_DIR, "stubabi");
    assert_reason("stubabi", XGPU_ERROR_ABI_MISMATCH, "answered ABI version 99");
    assert_int_equal(reg.device_count, 0);
}

static void plugin_refusing_negotiation_keeps_its_message(void **state) {
    (void)state;
    load(STUB_DIR, "stubrefuse");
    assert_reason("stubrefuse", XGPU_ERROR_ABI_MISMATCH, "needs ABI version 1000");
}

static void missing_entry_symbol(void **state) {
    (void)state;
    load(STUB_DIR, "stubnoentry");
    assert_reason("stubnoentry", XGPU_ERROR_BACKEND_UNAVAILABLE,
                  "does not export xgpu_backend_entry");
}

static void probe_failure_gives_the_backend_reason(void **state) {
    (void)state;
    load(STUB_DIR, "stubprobe");
    assert_reason("stubprobe", XGPU_ERROR_BACKEND_UNAVAILABLE, "libstub.so.1 not found");
}

static void zero_devices_is_available_but_empty(void **state) {
    (void)state;
    load(STUB_DIR, "stubzero");
    const xgpu__backend *b = find("stubzero");
    assert_true(b->available);
    assert_int_equal(b->device_count, 0);
    assert_int_equal(reg.device_count, 0);
}

static void missing_required_hook_is_named(void **state) {
    (void)state;
    load(STUB_DIR, "stubhook");
    assert_reason("stubhook", XGPU_ERROR_ABI_MISMATCH, "lacks the required hook launch");
}

static void plugin_with_wrong_name_is_refused(void **state) {
    (void)state;
    load(STUB_DIR, "stubname");
    assert_reason("stubname", XGPU_ERROR_ABI_MISMATCH, "calls itself 'somethingelse'");
}

static void garbage_file_fails_dlopen_with_reason(void **state) {
    (void)state;
    load(STUB_DIR, "stubgarbage");
    assert_reason("stubgarbage", XGPU_ERROR_BACKEND_UNAVAILABLE, "failed to load");
}

static void unknown_backend_name_is_listed_with_reason(void **state) {
    (void)state;
    load(STUB_DIR, "doesnotexist");
    assert_reason("doesnotexist", XGPU_ERROR_BACKEND_UNAVAILABLE,
                  "no plugin libxgpu-doesnotexist.so found");
    assert_reason("doesnotexist", XGPU_ERROR_BACKEND_UNAVAILABLE, "no such backend is known");
    assert_int_equal(reg.backend_count, 1); /* the filter excludes the known ones */
}

static void known_backends_are_listed_even_without_plugins(void **state) {
    (void)state;
    load(EMPTY_DIR, NULL);
    assert_int_equal(reg.device_count, 0);
    assert_reason("cuda", XGPU_ERROR_BACKEND_UNAVAILABLE, "no plugin libxgpu-cuda.so");
    assert_reason("hip", XGPU_ERROR_BACKEND_UNAVAILABLE, EMPTY_DIR);
    assert_reason("opencl", XGPU_ERROR_BACKEND_UNAVAILABLE, "may not include it");
    /* Device order: cuda, hip, opencl. */
    assert_string_equal(reg.backends[0].name, "cuda");
    assert_string_equal(reg.backends[1].name, "hip");
    assert_string_equal(reg.backends[2].name, "opencl");
}

static void relative_and_empty_directories_are_never_searched(void **state) {
    (void)state;
    /* "." and relative entries would search the current directory. */
    load(".:tests:::" EMPTY_DIR, "stubok");
    assert_reason("stubok", XGPU_ERROR_BACKEND_UNAVAILABLE, "searched: " EMPTY_DIR ")");
}

static void first_directory_wins(void **state) {
    (void)state;
    load(EMPTY_DIR ":" STUB_DIR ":" STUB_DIR, "stubok");
    const xgpu__backend *b = find("stubok");
    assert_true(b->available);
    assert_string_equal(b->path, STUB_DIR "/libxgpu-stubok.so");
}

/* The null backend does no work: found in a searched folder, it is loaded
 * only when XGPU_BACKENDS names it, and then ranked after every other. */
static void null_backend_is_loaded_only_when_named(void **state) {
    (void)state;
    load(NULL_PLUGIN_DIR ":" STUB_DIR, NULL);
    for (uint32_t i = 0; i < reg.backend_count; i++) {
        assert_string_not_equal(reg.backends[i].name, "null");
    }
    xgpu__registry_free(&reg);
    load(NULL_PLUGIN_DIR ":" STUB_DIR, "null,stubok");
    assert_true(find("null")->available);
    assert_int_equal(reg.device_count, 2);
    assert_string_equal(reg.devices[0].info.backend, "stubok");
    assert_string_equal(reg.devices[1].info.backend, "null");
}

/* A vendor stack that installs its own alternate signal stack on the probe
 * thread (pocl's LLVM does) must not leave it there when the thread exits:
 * ASan aborts the process ("unable to unmap") when it finds a stack it did
 * not map itself. */
static void probe_thread_ends_with_its_own_signal_stack(void **state) {
    (void)state;
    stack_t before;
    assert_int_equal(sigaltstack(NULL, &before), 0);
    load(STUB_DIR, "stubsigstack");
    assert_true(find("stubsigstack")->available);
    void *lib = dlopen(STUB_DIR "/libxgpu-stubsigstack.so", RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(lib);
    void **installed = dlsym(lib, "stub_sigstack_installed");
    void **at_exit = dlsym(lib, "stub_sigstack_at_exit");
    int *exits = dlsym(lib, "stub_sigstack_exits");
    assert_non_null(installed);
    assert_non_null(*installed); /* the probe did install one */
    assert_true(*exits >= 1);    /* on a thread that has exited */
    assert_ptr_not_equal(*at_exit, *installed);
    stack_t after;
    assert_int_equal(sigaltstack(NULL, &after), 0);
    assert_ptr_equal(after.ss_sp, before.ss_sp);
    dlclose(lib);
}

static void incredible_device_count_is_refused(void **state) {
    (void)state;
    load(STUB_DIR, "stubhuge,stubok");
    assert_reason("stubhuge", XGPU_ERROR_BACKEND_UNAVAILABLE, "2147483648 devices");
    assert_int_equal(reg.device_count, 1);
}

/* An empty or garbage XGPU_BACKENDS loads nothing and says why, on every
 * known backend. */
static void unreadable_backend_list_gives_a_reason(void **state) {
    (void)state;
    const char *bad[] = {"", ",,", "OpenCL", "cuda;opencl", "\xff"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(
            xgpu__registry_load(&(xgpu__loader_config){STUB_DIR, bad[i], NULL, NULL}, &reg),
            XGPU_SUCCESS);
        assert_int_equal(reg.device_count, 0);
        assert_reason("opencl", XGPU_ERROR_INVALID_ARGUMENT, "is not a list of backend names");
        assert_reason("cuda", XGPU_ERROR_INVALID_ARGUMENT, "XGPU_BACKENDS=");
        xgpu__registry_free(&reg);
    }
}

static void all_stubs_together_never_fatal(void **state) {
    (void)state;
    load(STUB_DIR, NULL);
    uint32_t available = 0;
    for (uint32_t i = 0; i < reg.backend_count; i++) {
        available += reg.backends[i].available;
        if (!reg.backends[i].available) {
            assert_true(reg.backends[i].reason[0] != '\0');
        }
    }
    assert_int_equal(available, 4); /* stubok, stubold, stubsigstack and stubzero */
    assert_int_equal(reg.device_count, 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(good_plugin_loads_with_its_device, teardown),
        cmocka_unit_test_teardown(older_smaller_table_gets_the_defaults, teardown),
        cmocka_unit_test(queue_wait_event_defaults_to_a_host_wait),
        cmocka_unit_test_teardown(wrong_abi_version_is_refused, teardown),
        cmocka_unit_test_teardown(plugin_refusing_negotiation_keeps_its_message, teardown),
        cmocka_unit_test_teardown(missing_entry_symbol, teardown),
        cmocka_unit_test_teardown(probe_failure_gives_the_backend_reason, teardown),
        cmocka_unit_test_teardown(zero_devices_is_available_but_empty, teardown),
        cmocka_unit_test_teardown(missing_required_hook_is_named, teardown),
        cmocka_unit_test_teardown(plugin_with_wrong_name_is_refused, teardown),
        cmocka_unit_test_teardown(garbage_file_fails_dlopen_with_reason, teardown),
        cmocka_unit_test_teardown(unknown_backend_name_is_listed_with_reason, teardown),
        cmocka_unit_test_teardown(known_backends_are_listed_even_without_plugins, teardown),
        cmocka_unit_test_teardown(relative_and_empty_directories_are_never_searched, teardown),
        cmocka_unit_test_teardown(first_directory_wins, teardown),
        cmocka_unit_test_teardown(null_backend_is_loaded_only_when_named, teardown),
        cmocka_unit_test_teardown(probe_thread_ends_with_its_own_signal_stack, teardown),
        cmocka_unit_test_teardown(incredible_device_count_is_refused, teardown),
        cmocka_unit_test_teardown(unreadable_backend_list_gives_a_reason, teardown),
        cmocka_unit_test_teardown(all_stubs_together_never_fatal, teardown),
    };
    return cmocka_run_group_tests_name("loader", tests, NULL, NULL);
}
