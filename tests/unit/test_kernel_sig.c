/* Reading kernel signatures from dialect source. */
#include "core_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static const char *src =
    "/* XGPU_KERNEL void commented(int a) {} */\n"
    "XGPU_DEVICE_FN float helper(float x) { return x; }\n"
    "XGPU_KERNEL void vadd(XGPU_GLOBAL const float *XGPU_RESTRICT a, // first\n"
    "                      XGPU_GLOBAL float *c,\n"
    "                      const xgpu_u32 n, float alpha, double beta, xgpu_i64 big,\n"
    "                      XGPU_LOCAL_ARG(float, scratch), my_type t) {}\n"
    "XGPU_KERNEL void empty(void) {}\n"
    "XGPU_KERNEL void empty2( ) {}\n"
    "XGPU_KERNEL void vadd_other(int x) {}\n"
    "XGPU_KERNEL XGPU_LAUNCH_BOUNDS(256) void bounded(XGPU_GLOBAL float *x, float a) {}\n"
    "XGPU_KERNEL XGPU_LAUNCH_BOUNDS(GROUP)\n"
    "MY_HINT __attribute__((vec_type_hint(float4))) void hinted(int a, int b, int c) {}\n";

/* Parses into *sig, freeing what it held from an earlier parse. */
static bool parse(const char *source, const char *name, xgpu__kernel_sig *sig) {
    xgpu__kernel_sig_free(sig);
    return xgpu__kernel_sig_parse(source, name, sig, NULL);
}

static void reads_every_kind(void **state) {
    (void)state;
    xgpu__kernel_sig sig;
    assert_true(xgpu__kernel_sig_parse(src, "vadd", &sig, NULL));
    assert_int_equal(sig.count, 8);
    assert_int_equal(sig.params[0].kind, XGPU_ARG_BUFFER);
    assert_string_equal(sig.params[0].name, "a");
    assert_int_equal(sig.params[1].kind, XGPU_ARG_BUFFER);
    assert_string_equal(sig.params[1].name, "c");
    assert_int_equal(sig.params[2].kind, XGPU_ARG_SCALAR);
    assert_string_equal(sig.params[2].type, "xgpu_u32");
    assert_int_equal(sig.params[2].scalar_size, 4);
    assert_int_equal(sig.params[3].scalar_size, 4);
    assert_int_equal(sig.params[4].scalar_size, 8);
    assert_int_equal(sig.params[5].scalar_size, 8);
    assert_int_equal(sig.params[6].kind, XGPU_ARG_LOCAL);
    assert_string_equal(sig.params[6].name, "scratch");
    assert_int_equal(sig.params[7].kind, XGPU_ARG_SCALAR);
    assert_int_equal(sig.params[7].scalar_size, 0); /* unknown type: size unchecked */
    assert_int_equal(sig.params[2].scalar_class, XGPU__CLASS_INTEGER);
    assert_int_equal(sig.params[3].scalar_class, XGPU__CLASS_FLOAT);
    assert_int_equal(sig.params[4].scalar_class, XGPU__CLASS_FLOAT);
    assert_int_equal(sig.params[5].scalar_class, XGPU__CLASS_INTEGER);
    assert_int_equal(sig.params[7].scalar_class, XGPU__CLASS_OTHER);
    xgpu__kernel_sig_free(&sig);
}

/* No limit on the parameter count (there was one at 64). */
static void reads_hundreds_of_params(void **state) {
    (void)state;
    char text[200 * 24 + 64] = "XGPU_KERNEL void many(";
    for (int i = 0; i < 200; i++) {
        char one[32];
        snprintf(one, sizeof one, "%sxgpu_u32 p%d", i ? ", " : "", i);
        strcat(text, one);
    }
    strcat(text, ") {}");
    xgpu__kernel_sig sig;
    bool oom = true;
    assert_true(xgpu__kernel_sig_parse(text, "many", &sig, &oom));
    assert_false(oom);
    assert_int_equal(sig.count, 200);
    assert_string_equal(sig.params[199].name, "p199");
    assert_int_equal(sig.params[199].scalar_size, 4);
    xgpu__kernel_sig_free(&sig);
}

static void empty_lists_have_no_params(void **state) {
    (void)state;
    xgpu__kernel_sig sig = {0};
    assert_true(parse(src, "empty", &sig));
    assert_int_equal(sig.count, 0);
    assert_true(parse(src, "empty2", &sig));
    assert_int_equal(sig.count, 0);
    xgpu__kernel_sig_free(&sig);
}

static void names_match_whole_words_and_skip_comments(void **state) {
    (void)state;
    xgpu__kernel_sig sig = {0};
    assert_true(parse(src, "vadd_other", &sig));
    assert_int_equal(sig.count, 1);
    assert_false(parse(src, "commented", &sig));
    assert_false(sig.known);
    assert_false(parse(src, "helper", &sig));
    assert_false(parse(src, "missing", &sig));
    assert_true(parse(src, "bounded", &sig));
    assert_int_equal(sig.count, 2);
    xgpu__kernel_sig_free(&sig);
}

/* Attribute macros between XGPU_KERNEL and void, with or without an
 * argument list, nested parentheses included. */
static void attributes_before_void_are_skipped(void **state) {
    (void)state;
    xgpu__kernel_sig sig = {0};
    assert_true(parse(src, "hinted", &sig));
    assert_int_equal(sig.count, 3);
    assert_string_equal(sig.params[2].name, "c");
    assert_false(parse("XGPU_KERNEL XGPU_LAUNCH_BOUNDS(4 void k(int a) {}", "k", &sig));
    assert_false(parse("XGPU_KERNEL int k(int a) {}", "k", &sig));
    xgpu__kernel_sig_free(&sig);
}

static void unterminated_source_is_not_a_signature(void **state) {
    (void)state;
    xgpu__kernel_sig sig = {0};
    assert_false(parse("XGPU_KERNEL void k(int a, ", "k", &sig));
    assert_false(parse("XGPU_KERNEL void k(int a,, int b) {}", "k", &sig));
    assert_false(parse("/* unterminated", "k", &sig));
    xgpu__kernel_sig_free(&sig);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_every_kind),
        cmocka_unit_test(reads_hundreds_of_params),
        cmocka_unit_test(empty_lists_have_no_params),
        cmocka_unit_test(names_match_whole_words_and_skip_comments),
        cmocka_unit_test(unterminated_source_is_not_a_signature),
        cmocka_unit_test(attributes_before_void_are_skipped),
    };
    return cmocka_run_group_tests_name("kernel_sig", tests, NULL, NULL);
}
