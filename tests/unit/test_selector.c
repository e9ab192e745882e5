/* Parsing device selectors, without a registry: every term kind, lists,
 * blanks, and the errors. Resolution is tested against stub backends in
 * tests/loader and against the real registry in tests/conformance. */
#include "support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* Parses `s`, which must succeed, and returns its one term. */
static xgpu__selector_term one(const char *s) {
    static xgpu__selector sel;
    char err[256] = "";
    if (!xgpu__selector_parse(s, &sel, err, sizeof err)) {
        fail_msg("'%s' does not parse: %s", s, err);
    }
    assert_string_equal(err, "");
    assert_int_equal(sel.count, 1);
    return sel.terms[0];
}

static void indexes_and_backends(void **state) {
    (void)state;
    xgpu__selector_term t = one("0");
    assert_int_equal(t.kind, XGPU__TERM_INDEX);
    assert_int_equal(t.index, 0);
    t = one("4294967295");
    assert_int_equal(t.kind, XGPU__TERM_INDEX);
    assert_int_equal(t.index, UINT32_MAX);
    t = one("007");
    assert_int_equal(t.index, 7);
    t = one("opencl");
    assert_int_equal(t.kind, XGPU__TERM_BACKEND);
    assert_string_equal(t.backend, "opencl");
    assert_int_equal(t.index, 0);
    t = one("cuda:12");
    assert_int_equal(t.kind, XGPU__TERM_PATH);
    assert_string_equal(t.backend, "cuda");
    assert_int_equal(t.index, 12);
    t = one("stub_ok2:1");
    assert_string_equal(t.backend, "stub_ok2");
    /* The longest name a backend can have, 31 bytes. */
    t = one("abcdefghijklmnopqrstuvwxyz01234:1");
    assert_int_equal(strlen(t.backend), 31);
}

static void pci_bus_ids(void **state) {
    (void)state;
    xgpu__selector_term t = one("0000:01:00.0");
    assert_int_equal(t.kind, XGPU__TERM_PCI);
    assert_int_equal(t.pci.domain, 0);
    assert_int_equal(t.pci.bus, 1);
    assert_int_equal(t.pci.device, 0);
    assert_int_equal(t.pci.function, 0);
    t = one("ABCD:C1:1f.7");
    assert_int_equal(t.pci.domain, 0xabcd);
    assert_int_equal(t.pci.bus, 0xc1);
    assert_int_equal(t.pci.device, 0x1f);
    assert_int_equal(t.pci.function, 7);
    /* Domain 0 left out, as lspci prints it. */
    xgpu__selector_term s = one("c1:1f.7");
    assert_int_equal(s.pci.bus, 0xc1);
    assert_int_equal(s.pci.domain, 0);
    /* nvidia-smi's 8-digit domain is the same device as the 4-digit one. */
    s = one("00000000:01:00.0");
    xgpu__selector_term u = one("0000:01:00.0");
    assert_memory_equal(&s, &u, sizeof s);
    /* "ab:00.0" could read as backend "ab": the '.' makes it a PCI id. */
    assert_int_equal(one("ab:00.0").kind, XGPU__TERM_PCI);
}

static void uuids(void **state) {
    (void)state;
    static const uint8_t want[16] = {0x6f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78,
                                     0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0};
    static const char *const spellings[] = {
        "6f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",     /* as gpuinfo prints it */
        "GPU-6f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", /* as nvidia-smi -L does */
        "gpu-6F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", "6f1e2d3c4b5a69788796a5b4c3d2e1f0",
        "GPU-6f1e2d3c4b5a69788796a5b4c3d2e1f0",
    };
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        xgpu__selector_term t = one(spellings[i]);
        assert_int_equal(t.kind, XGPU__TERM_UUID);
        assert_memory_equal(t.uuid, want, sizeof want);
    }
    /* 32 decimal digits: the shape of a UUID, not an index out of range. */
    assert_int_equal(one("12345678901234567890123456789012").kind, XGPU__TERM_UUID);
}

static void lists_and_blanks(void **state) {
    (void)state;
    xgpu__selector sel;
    char err[256] = "";
    assert_true(xgpu__selector_parse(
        "opencl:1,0, cuda ,\t0000:01:00.0 ,GPU-6f1e2d3c4b5a69788796a5b4c3d2e1f0", &sel, err,
        sizeof err));
    assert_int_equal(sel.count, 5);
    assert_int_equal(sel.terms[0].kind, XGPU__TERM_PATH);
    assert_int_equal(sel.terms[1].kind, XGPU__TERM_INDEX);
    assert_int_equal(sel.terms[2].kind, XGPU__TERM_BACKEND);
    assert_string_equal(sel.terms[2].backend, "cuda");
    assert_int_equal(sel.terms[3].kind, XGPU__TERM_PCI);
    assert_int_equal(sel.terms[4].kind, XGPU__TERM_UUID);
    /* Duplicates parse; resolving removes them. */
    assert_true(xgpu__selector_parse("0,0", &sel, err, sizeof err));
    assert_int_equal(sel.count, 2);
    assert_true(xgpu__selector_parse("  2  ", &sel, err, sizeof err));
    assert_int_equal(sel.count, 1);
    assert_int_equal(sel.terms[0].index, 2);
    /* The most terms a selector may have. */
    char many[XGPU__SELECTOR_MAX_TERMS * 2 + 8] = "";
    for (int i = 0; i < XGPU__SELECTOR_MAX_TERMS; i++) {
        strcat(many, i ? ",0" : "0");
    }
    assert_true(xgpu__selector_parse(many, &sel, err, sizeof err));
    assert_int_equal(sel.count, XGPU__SELECTOR_MAX_TERMS);
    strcat(many, ",0");
    assert_false(xgpu__selector_parse(many, &sel, err, sizeof err));
    assert_non_null(strstr(err, "more than 64 terms"));
    assert_int_equal(sel.count, 0);
}

/* Written out and read back, every kind is the same term. */
static void terms_format_as_they_parse(void **state) {
    (void)state;
    static const char *const cases[][2] = {
        {"3", "3"},
        {"opencl", "opencl"},
        {"hip:2", "hip:2"},
        {"01:00.0", "0000:01:00.0"},
        {"00000000:C1:00.3", "0000:c1:00.3"},
        {"6F1E2D3C4B5A69788796A5B4C3D2E1F0", "GPU-6f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xgpu__selector_term t = one(cases[i][0]);
        char out[64];
        xgpu__selector_term_format(&t, out, sizeof out);
        assert_string_equal(out, cases[i][1]);
        xgpu__selector_term back = one(out);
        assert_memory_equal(&back, &t, sizeof t);
    }
}

/* All digits but too large for an index: said as such (it used to fall
 * through to "no backend named '4294967296'"). */
static void too_large_an_index_is_out_of_range(void **state) {
    (void)state;
    xgpu__selector sel;
    char err[256];
    assert_false(xgpu__selector_parse("4294967296", &sel, err, sizeof err));
    assert_string_equal(err, "device index 4294967296 is out of range");
    assert_int_equal(sel.count, 0);
    assert_false(xgpu__selector_parse("99999999999999999999999", &sel, err, sizeof err));
}

#define NOT_A_SELECTOR                                                                             \
    "is not a selector (an index, a backend, backend:index, a PCI bus id or a UUID, "              \
    "comma-separated)"
#define EMPTY                                                                                      \
    "selector is empty; use an index, a backend, backend:index, a PCI bus id or a UUID, "          \
    "comma-separated"

static void bad_selectors_say_why(void **state) {
    (void)state;
    static const struct {
        const char *in, *msg;
    } cases[] = {
        {NULL, EMPTY},
        {"", EMPTY},
        {" \t ", EMPTY},
        {":1", "':1' " NOT_A_SELECTOR},
        {"abcdefghijklmnopqrstuvwxyz012345", "'abcdefghijklmnopqrstuvwxyz012345' " NOT_A_SELECTOR},
        {"0x1", "'0x1' " NOT_A_SELECTOR},
        {"open cl", "'open cl' " NOT_A_SELECTOR},
        {"-1", "'-1' " NOT_A_SELECTOR},
        {"opencl:", "'opencl:': '' is not a device index"},
        {"opencl:x", "'opencl:x': 'x' is not a device index"},
        {"opencl:-1", "'opencl:-1': '-1' is not a device index"},
        {"opencl: 1", "'opencl: 1': ' 1' is not a device index"},
        {"opencl:1:2", "'opencl:1:2': '1:2' is not a device index"},
        {"opencl:4294967296", "'opencl:4294967296': '4294967296' is not a device index"},
        /* The bad term is named, not the list. */
        {"0,opencl:x,1", "'opencl:x': 'x' is not a device index"},
        {"0,,1", "'0,,1': term 2 is empty"},
        {"0,", "'0,': term 2 is empty"},
        {",0", "',0': term 1 is empty"},
        {"0, ,1", "'0, ,1': term 2 is empty"},
        {"1:00.0", "'1:00.0' is not a PCI bus id (dddd:bb:dd.f or bb:dd.f, hex)"},
        {"0000:01:20.0", "'0000:01:20.0' is not a PCI bus id (dddd:bb:dd.f or bb:dd.f, hex)"},
        {"0000:01:00.8", "'0000:01:00.8' is not a PCI bus id (dddd:bb:dd.f or bb:dd.f, hex)"},
        {"10000:01:00.0", "'10000:01:00.0' is not a PCI bus id (dddd:bb:dd.f or bb:dd.f, hex)"},
        {"000:01:00.0", "'000:01:00.0' is not a PCI bus id (dddd:bb:dd.f or bb:dd.f, hex)"},
        {"0000-01:00.0", "'0000-01:00.0' is not a PCI bus id (dddd:bb:dd.f or bb:dd.f, hex)"},
        {"opencl.1", "'opencl.1' is not a PCI bus id (dddd:bb:dd.f or bb:dd.f, hex)"},
        {"GPU-1234", "'GPU-1234' is not a UUID (32 hex digits, dashes optional)"},
        {"GPU-6f1e2d3c4b5a69788796a5b4c3d2e1fg",
         "'GPU-6f1e2d3c4b5a69788796a5b4c3d2e1fg' is not a UUID (32 hex digits, dashes optional)"},
        {"GPU-6f1e2d3c4-b5a-6978-8796-a5b4c3d2e1f0",
         "'GPU-6f1e2d3c4-b5a-6978-8796-a5b4c3d2e1f0' is not a UUID (32 hex digits, dashes "
         "optional)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xgpu__selector sel;
        char err[256];
        assert_false(xgpu__selector_parse(cases[i].in, &sel, err, sizeof err));
        assert_string_equal(err, cases[i].msg);
        xgpu__selector zero;
        memset(&zero, 0, sizeof zero);
        assert_memory_equal(&sel, &zero, sizeof sel);
    }
}

static void messages_fit_the_callers_buffer(void **state) {
    (void)state;
    xgpu__selector sel;
    char err[8];
    assert_false(xgpu__selector_parse("opencl:x", &sel, err, sizeof err));
    assert_string_equal(err, "'opencl");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(indexes_and_backends),
        cmocka_unit_test(pci_bus_ids),
        cmocka_unit_test(uuids),
        cmocka_unit_test(lists_and_blanks),
        cmocka_unit_test(terms_format_as_they_parse),
        cmocka_unit_test(too_large_an_index_is_out_of_range),
        cmocka_unit_test(bad_selectors_say_why),
        cmocka_unit_test(messages_fit_the_callers_buffer),
    };
    return cmocka_run_group_tests_name("selector", tests, NULL, NULL);
}
