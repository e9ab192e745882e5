/* Which elements a batched GEMM's matrices share (runtime/src/lib/
 * gemm_batch.c) against brute force: every element of every batch
 * marked in a table, over many small random shapes, strides and offsets,
 * and the shapes the API documents (interleaved heads accepted; stride 0
 * and overlapping strides refused). */
#include "gemm_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define CELLS 4096

static uint32_t next_random(uint32_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static uint32_t pick(uint32_t *s, uint32_t lo, uint32_t hi) {
    return lo + next_random(s) % (hi - lo + 1);
}

/* Marks batch b of `m` with `tag`; returns the first tag already there
 * that `hit` accepts, else 0. */
static int mark(int *cells, const xgpu__gemm_stored *m, size_t stride, size_t b, int tag,
                bool (*hit)(int old, int tag)) {
    int found = 0;
    for (size_t r = 0; r < m->rows; r++) {
        for (size_t c = 0; c < m->cols; c++) {
            size_t e = m->offset + b * stride + r * m->ld + c;
            assert_true(e < CELLS);
            if (cells[e] && hit(cells[e], tag) && !found) {
                found = cells[e];
            }
            cells[e] = tag;
        }
    }
    return found;
}

static bool any(int old, int tag) {
    (void)old;
    (void)tag;
    return true;
}

static bool brute_c(const xgpu__gemm_stored *c, size_t stride, size_t batch) {
    static int cells[CELLS];
    memset(cells, 0, sizeof cells);
    for (size_t b = 0; b < batch; b++) {
        if (mark(cells, c, stride, b, (int)b + 1, any)) {
            return true;
        }
    }
    return false;
}

/* Whether C of batch i meets X of batch j (exactly). */
static bool pair_meets(const xgpu__gemm_stored *c, size_t sc, const xgpu__gemm_stored *x, size_t sx,
                       size_t i, size_t j) {
    static int cells[CELLS];
    memset(cells, 0, sizeof cells);
    mark(cells, c, sc, i, 1, any);
    return mark(cells, x, sx, j, 2, any) != 0;
}

static bool brute_cross(const xgpu__gemm_stored *c, size_t sc, const xgpu__gemm_stored *x,
                        size_t sx, size_t batch) {
    for (size_t i = 0; i < batch; i++) {
        for (size_t j = 0; j < batch; j++) {
            if (pair_meets(c, sc, x, sx, i, j)) {
                return true;
            }
        }
    }
    return false;
}

static xgpu__gemm_stored random_stored(uint32_t *s) {
    xgpu__gemm_stored m;
    m.rows = pick(s, 1, 4);
    m.cols = pick(s, 1, 5);
    m.ld = m.cols + pick(s, 0, 6);
    m.offset = pick(s, 0, 24);
    return m;
}

static void c_against_brute_force(void **state) {
    (void)state;
    uint32_t s = 12345;
    for (int t = 0; t < 200000; t++) {
        xgpu__gemm_stored c = random_stored(&s);
        size_t batch = pick(&s, 1, 6), stride = pick(&s, 0, 40);
        size_t i = 0, j = 0;
        bool got = xgpu__gemm_c_overlap(&c, stride, batch, &i, &j);
        if (got != brute_c(&c, stride, batch)) {
            fail_msg("C %zux%zu ld %zu, stride %zu, batch %zu: said %d", c.rows, c.cols, c.ld,
                     stride, batch, got);
        }
        if (got) {
            assert_true(i < j && j < batch && pair_meets(&c, stride, &c, stride, i, j));
        }
    }
}

static void cross_against_brute_force(void **state) {
    (void)state;
    uint32_t s = 777;
    for (int t = 0; t < 100000; t++) {
        xgpu__gemm_stored c = random_stored(&s), x = random_stored(&s);
        size_t batch = pick(&s, 1, 5), sc = pick(&s, 0, 40), sx = pick(&s, 0, 40);
        size_t i = 0, j = 0;
        bool exact = false;
        bool got = xgpu__gemm_cross_overlap(&c, sc, &x, sx, batch, &i, &j, &exact);
        assert_true(exact);
        if (got != brute_cross(&c, sc, &x, sx, batch)) {
            fail_msg("C %zux%zu ld %zu at %zu stride %zu; X %zux%zu ld %zu at %zu stride %zu; "
                     "batch %zu: said %d",
                     c.rows, c.cols, c.ld, c.offset, sc, x.rows, x.cols, x.ld, x.offset, sx, batch,
                     got);
        }
        if (got) {
            assert_true(i < batch && j < batch && pair_meets(&c, sc, &x, sx, i, j));
        }
    }
}

/* Attention's heads side by side: C of seq x dim per head, ld heads *
 * dim, stride dim. Accepted; stride 0 and dim - 1 are not. */
static void documented_shapes(void **state) {
    (void)state;
    size_t i = 0, j = 0, seq = 7, dim = 8, heads = 12;
    xgpu__gemm_stored c = {0, heads * dim, seq, dim};
    assert_false(xgpu__gemm_c_overlap(&c, dim, heads, &i, &j));
    assert_true(xgpu__gemm_c_overlap(&c, 0, 2, &i, &j));
    assert_true(i == 0 && j == 1);
    assert_true(xgpu__gemm_c_overlap(&c, dim - 1, heads, &i, &j));
    /* One head too many reaches row 1 of head 0: heads + 1 batches of
     * stride dim meet at batch heads. */
    xgpu__gemm_stored c2 = {0, heads * dim, seq, dim};
    assert_true(xgpu__gemm_c_overlap(&c2, dim, heads + 1, &i, &j));
    assert_int_equal(j, heads);
    /* Packed batches one after another never meet. */
    xgpu__gemm_stored p = {5, 9, 4, 9};
    assert_false(xgpu__gemm_c_overlap(&p, 36, 1000, &i, &j));
    assert_true(xgpu__gemm_c_overlap(&p, 35, 1000, &i, &j));
}

/* Past the budget of row walks the answer is conservative: spans that
 * meet count, and it says so. */
static void cross_budget_is_conservative(void **state) {
    (void)state;
    /* C's rows in the gaps of A's (ld 2, one column each), every batch's
     * span meeting every other's: exact for few batches, conservative
     * for many. */
    xgpu__gemm_stored c = {0, 2, 4096, 1}, a = {1, 2, 4096, 1};
    size_t i = 0, j = 0;
    bool exact = false;
    assert_false(xgpu__gemm_cross_overlap(&c, 0, &a, 0, 4, &i, &j, &exact));
    assert_true(exact);
    assert_true(xgpu__gemm_cross_overlap(&c, 0, &a, 0, 8192, &i, &j, &exact));
    assert_false(exact);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(c_against_brute_force),
        cmocka_unit_test(cross_against_brute_force),
        cmocka_unit_test(documented_shapes),
        cmocka_unit_test(cross_budget_is_conservative),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
