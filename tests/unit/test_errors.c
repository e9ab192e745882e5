/* The status table and the thread-local last error. */
#include "core_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static void names_and_messages_come_from_one_table(void **state) {
    (void)state;
#define CHECK_ENTRY(name, value, text)                                                             \
    assert_int_equal(XGPU_##name, value);                                                          \
    assert_string_equal(xgpu_status_name(XGPU_##name), "XGPU_" #name);                             \
    assert_string_equal(xgpu_status_message(XGPU_##name), text);
    XGPU_STATUS_MAP(CHECK_ENTRY)
#undef CHECK_ENTRY
    assert_string_equal(xgpu_status_name((xgpu_status)9999), "XGPU_UNKNOWN_STATUS");
}

static void last_error_keeps_native_name_and_backend(void **state) {
    (void)state;
    xgpu_status st = xgpu__error("opencl", XGPU_ERROR_BUILD_FAILED, -11, "CL_BUILD_PROGRAM_FAILURE",
                                 "build of %s failed", "k");
    assert_int_equal(st, XGPU_ERROR_BUILD_FAILED);
    const xgpu_error_info *e = xgpu_last_error();
    assert_int_equal(e->status, XGPU_ERROR_BUILD_FAILED);
    assert_string_equal(e->message, "build of k failed");
    assert_string_equal(e->backend, "opencl");
    assert_string_equal(e->native_name, "CL_BUILD_PROGRAM_FAILURE");
    assert_int_equal(e->native_code, -11);
}

static void *other_thread(void *arg) {
    (void)arg;
    xgpu__error(NULL, XGPU_ERROR_INVALID_SIZE, 0, NULL, "from the other thread");
    return NULL;
}

static void last_error_is_per_thread(void **state) {
    (void)state;
    xgpu__error(NULL, XGPU_ERROR_OUT_OF_RANGE, 0, NULL, "from the main thread");
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, other_thread, NULL), 0);
    pthread_join(t, NULL);
    assert_int_equal(xgpu_last_error()->status, XGPU_ERROR_OUT_OF_RANGE);
    assert_string_equal(xgpu_last_error()->message, "from the main thread");
    assert_null(xgpu_last_error()->backend);
}

/* Handles are looked up in the registry, never read: a made-up pointer,
 * one of another type and a removed one are all refused by name. */
static void handle_checks_name_the_problem(void **state) {
    (void)state;
    assert_int_equal(xgpu__handle_check(NULL, XGPU__MAGIC_QUEUE, "f", "queue"),
                     XGPU_ERROR_INVALID_HANDLE);
    assert_string_equal(xgpu_last_error()->message, "f: queue is NULL");
    /* Never entered, and not even readable memory. */
    void *made_up = (void *)(uintptr_t)0x10;
    assert_int_equal(xgpu__handle_check(made_up, XGPU__MAGIC_QUEUE, "f", "queue"),
                     XGPU_ERROR_INVALID_HANDLE);
    assert_non_null(strstr(xgpu_last_error()->message, "not a live xgpu handle"));
    static char object;
    void *h = NULL, *found = NULL;
    assert_int_equal(xgpu__handle_add(&object, XGPU__MAGIC_BUFFER, "f", &h), XGPU_SUCCESS);
    assert_ptr_not_equal(h, &object); /* a handle is not the object's address */
    assert_int_equal(xgpu__handle_check(&object, XGPU__MAGIC_BUFFER, "f", "buffer"),
                     XGPU_ERROR_INVALID_HANDLE);
    assert_int_equal(xgpu__handle_check(h, XGPU__MAGIC_QUEUE, "f", "queue"),
                     XGPU_ERROR_INVALID_HANDLE);
    assert_non_null(strstr(xgpu_last_error()->message, "another type"));
    assert_int_equal(xgpu__handle_get(h, XGPU__MAGIC_BUFFER, "f", "buffer", &found), XGPU_SUCCESS);
    assert_ptr_equal(found, &object);
    /* Of two takes, one wins. */
    assert_int_equal(xgpu__handle_take(h, XGPU__MAGIC_BUFFER, "f", "buffer", &found), XGPU_SUCCESS);
    assert_ptr_equal(found, &object);
    assert_int_equal(xgpu__handle_take(h, XGPU__MAGIC_BUFFER, "f", "buffer", &found),
                     XGPU_ERROR_INVALID_HANDLE);
    assert_null(found);
    assert_int_equal(xgpu__handle_check(h, XGPU__MAGIC_BUFFER, "f", "buffer"),
                     XGPU_ERROR_INVALID_HANDLE);
    assert_non_null(strstr(xgpu_last_error()->message, "already released"));
}

/* The registry grows and shrinks through many entries without losing any. */
static void handle_registry_holds_thousands(void **state) {
    (void)state;
    enum { N = 5000 };
    static char objects[N];
    static void *handles[N];
    for (int i = 0; i < N; i++) {
        assert_int_equal(xgpu__handle_add(&objects[i], XGPU__MAGIC_EVENT, "f", &handles[i]),
                         XGPU_SUCCESS);
    }
    for (int i = 0; i < N; i += 2) {
        xgpu__handle_remove(handles[i], XGPU__MAGIC_EVENT);
    }
    for (int i = 0; i < N; i++) {
        xgpu_status want = i % 2 ? XGPU_SUCCESS : XGPU_ERROR_INVALID_HANDLE;
        void *found = NULL;
        assert_int_equal(xgpu__handle_get(handles[i], XGPU__MAGIC_EVENT, "f", "e", &found), want);
        assert_ptr_equal(found, i % 2 ? &objects[i] : NULL);
    }
    for (int i = 1; i < N; i += 2) {
        xgpu__handle_remove(handles[i], XGPU__MAGIC_EVENT);
    }
}

/* A slot used again and again never answers to an old handle: each use is
 * a new generation. The ring of 256 released addresses that came before
 * let the 257th object at the same address answer to a stale pointer. */
static void stale_handles_stay_stale(void **state) {
    (void)state;
    static char first, other;
    void *stale = NULL, *h = NULL, *found = NULL;
    assert_int_equal(xgpu__handle_add(&first, XGPU__MAGIC_BUFFER, "f", &stale), XGPU_SUCCESS);
    xgpu__handle_remove(stale, XGPU__MAGIC_BUFFER);
    for (int i = 0; i < 100000; i++) {
        assert_int_equal(xgpu__handle_add(&other, XGPU__MAGIC_BUFFER, "f", &h), XGPU_SUCCESS);
        assert_ptr_not_equal(h, stale);
        if (xgpu__handle_get(stale, XGPU__MAGIC_BUFFER, "f", "buffer", &found) == XGPU_SUCCESS) {
            fail_msg("object %d answers to the stale handle", i);
        }
        assert_int_equal(xgpu__handle_get(h, XGPU__MAGIC_BUFFER, "f", "buffer", &found),
                         XGPU_SUCCESS);
        xgpu__handle_remove(h, XGPU__MAGIC_BUFFER);
    }
    assert_int_equal(xgpu__handle_check(stale, XGPU__MAGIC_BUFFER, "f", "buffer"),
                     XGPU_ERROR_INVALID_HANDLE);
    assert_non_null(strstr(xgpu_last_error()->message, "already released"));
    /* A generation never handed out yet is made up, not released. */
    void *ahead = (void *)((uintptr_t)h + ((uintptr_t)1000000 << 31 << 1));
    if (sizeof(void *) > 4) {
        assert_int_equal(xgpu__handle_check(ahead, XGPU__MAGIC_BUFFER, "f", "buffer"),
                         XGPU_ERROR_INVALID_HANDLE);
        assert_non_null(strstr(xgpu_last_error()->message, "not a live xgpu handle"));
    }
}

static void bytes_are_formatted_with_units(void **state) {
    (void)state;
    char b[64];
    xgpu__format_bytes(b, sizeof b, 512);
    assert_string_equal(b, "512 bytes");
    xgpu__format_bytes(b, sizeof b, 3ull << 30);
    assert_string_equal(b, "3.00 GiB (3221225472 bytes)");
}

static void versions_agree(void **state) {
    (void)state;
    assert_int_equal(xgpu_version(), XGPU_VERSION_HEX);
    assert_string_equal(xgpu_version_string(), "0.6.0");
    assert_int_equal(xgpu_backend_abi_version(), XGPU_BACKEND_ABI_VERSION);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_and_messages_come_from_one_table),
        cmocka_unit_test(last_error_keeps_native_name_and_backend),
        cmocka_unit_test(last_error_is_per_thread),
        cmocka_unit_test(handle_checks_name_the_problem),
        cmocka_unit_test(handle_registry_holds_thousands),
        cmocka_unit_test(stale_handles_stay_stale),
        cmocka_unit_test(bytes_are_formatted_with_units),
        cmocka_unit_test(versions_agree),
    };
    return cmocka_run_group_tests_name("errors", tests, NULL, NULL);
}
