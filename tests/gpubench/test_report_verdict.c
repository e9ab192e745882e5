/* The device table's verdict column, set through the report library as
 * `gpubench check` sets it: absent until a device has a verdict, then in
 * the Markdown, the HTML and the JSON, escaped like any cell; a device out
 * of range is refused. */
#define _POSIX_C_SOURCE 200809L
#include "report.h"
#include "report_gen.h"
#include "report_merge.h"

#include <cjson/cJSON.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* What a writer writes, as text (malloc'ed). */
static char *written(void (*writer)(FILE *, const gb_summary *), const gb_summary *s) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    writer(f, s);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* The verdict column appears once a verdict is set, escaped like any
 * cell, and not before. */
static void verdict_column_only_when_set(void **state) {
    (void)state;
    device d = {.host = "vh",
                .uuid = "GPU-v",
                .name = "V",
                .arch = "a",
                .rank = 0,
                .ncases = 4,
                .throttled_case = -1};
    write_device("gbs-verdict.json", &d);
    gb_table t = {0};
    uint64_t keys[2];
    char why[512];
    assert_int_equal(gb_merge_file(&t, keys, "gbs-verdict.json", why, sizeof why), 0);
    gb_summary s;
    assert_int_equal(gb_summarize(&t, &s), 0);
    assert_int_equal(s.ntable, 1);
    char *md = written(gb_write_report_md, &s), *html = written(gb_write_report_html, &s);
    assert_null(strstr(md, "verdict"));
    assert_null(strstr(html, "verdict"));
    free(md);
    free(html);
    assert_int_equal(gb_report_set_verdict(&s, 1, "x", "y"), -1);
    assert_int_equal(gb_report_set_verdict(&s, 0, "slow", "GEMM <0.5x> | vendor"), 0);
    md = written(gb_write_report_md, &s);
    html = written(gb_write_report_html, &s);
    char *json = written(gb_write_report_json, &s);
    assert_non_null(strstr(md, "| launch | verdict | why |"));
    assert_non_null(strstr(md, "| slow | GEMM &lt;0.5x&gt; \\| vendor |"));
    assert_non_null(strstr(html, "<th>verdict</th>"));
    assert_non_null(strstr(
        html, "<b class=\"v-other\">slow</b><br><span class=\"sub\">GEMM &lt;0.5x&gt; | vendor"));
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    assert_int_equal(array_size(j, "device_table"), 1);
    const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "device_table"), 0);
    assert_string_equal(get_str(row, "verdict"), "slow");
    assert_string_equal(get_str(row, "verdict_why"), "GEMM <0.5x> | vendor");
    cJSON_Delete(j);
    free(md);
    free(html);
    free(json);
    gb_summary_free(&s);
    gb_table_free(&t);
}

int main(int argc, char **argv) {
    if (argc > 1) {
        cmocka_set_test_filter(argv[1]);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(verdict_column_only_when_set),
    };
    return cmocka_run_group_tests_name("gpubench report verdicts", tests, NULL, NULL);
}
