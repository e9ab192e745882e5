/* Which elements a GEMM's batches share: C of one batch with C of
 * another (exact, in O(batch) steps), and C with A or B (exact row by row
 * for the batch pairs whose spans meet, within a budget). Operands come
 * in bytes, and gemm_check.c has bounded every one by 2^32 elements, so
 * no sum here overflows. */
#include "gemm_int.h"

/* Row walks the C-against-A/B check may take before it stops telling
 * pairs apart element by element. */
#define CROSS_BUDGET ((size_t)1 << 24)

static size_t span(const xgpu__gemm_stored *s) {
    return (s->rows - 1) * s->ld + s->cols;
}

bool xgpu__gemm_c_meets_itself(const xgpu__gemm_stored *c, size_t stride, size_t delta) {
    /* Row r' of the later batch starts d + (r' - r) * ld after row r of
     * the earlier one (d = delta * stride): the rows meet when
     * |d - t * ld| < cols for t = r - r' in [0, rows - 1] (a negative t
     * puts them at least ld >= cols apart). Only the t nearest d / ld can
     * meet: floor(d / ld), clamped to the rows, and the one after. */
    size_t d = delta * stride;
    size_t t = d / c->ld;
    if (t > c->rows - 1) {
        t = c->rows - 1;
    }
    if (d - t * c->ld < c->cols) {
        return true;
    }
    return t + 1 <= c->rows - 1 && (t + 1) * c->ld - d < c->cols;
}

bool xgpu__gemm_c_overlap(const xgpu__gemm_stored *c, size_t stride, size_t batch, size_t *i,
                          size_t *j) {
    /* Batches `delta` apart meet for every first batch or for none; past
     * one span apart they never meet again. */
    size_t s = span(c);
    for (size_t delta = 1; delta < batch; delta++) {
        if (delta * stride >= s) {
            return false;
        }
        if (xgpu__gemm_c_meets_itself(c, stride, delta)) {
            *i = 0;
            *j = delta;
            return true;
        }
    }
    return false;
}

/* Whether the elements [s, e) meet one of y's rows. y's rows are disjoint
 * and ascending (ld >= cols), so only two can: the last one starting at or
 * before s, and the one after it. */
static bool meets_rows(size_t s, size_t e, const xgpu__gemm_stored *y) {
    size_t o = y->offset, ld = y->ld, i = 0;
    if (s >= o) {
        i = (s - o) / ld;
        if (i >= y->rows) {
            i = y->rows - 1;
        }
        if (s < o + i * ld + y->cols) {
            return true;
        }
        i++;
    }
    return i < y->rows && o + i * ld < e;
}

/* Whether two operands share an element: the elements they touch, not
 * their spans, so A or B may sit in the gap between C's rows (ld > cols).
 * The loop runs over the rows of the shorter operand. */
static bool rows_overlap(xgpu__gemm_stored x, xgpu__gemm_stored y) {
    if (x.offset >= y.offset + span(&y) || y.offset >= x.offset + span(&x)) {
        return false;
    }
    if (x.rows > y.rows) {
        xgpu__gemm_stored t = x;
        x = y;
        y = t;
    }
    for (size_t r = 0; r < x.rows; r++) {
        size_t s = x.offset + r * x.ld;
        if (meets_rows(s, s + x.cols, &y)) {
            return true;
        }
    }
    return false;
}

/* The batches j of X whose span meets [lo, hi): [*first, *last]; false
 * when none. */
static bool meeting_range(const xgpu__gemm_stored *x, size_t sx, size_t batch, size_t lo, size_t hi,
                          size_t *first, size_t *last) {
    size_t xs = span(x);
    if (sx == 0) { /* every batch reads the same X */
        *first = *last = 0;
        return x->offset < hi && lo < x->offset + xs;
    }
    if (x->offset >= hi) {
        return false;
    }
    /* offset + j * sx + xs > lo and offset + j * sx < hi */
    *first = lo < x->offset + xs ? 0 : (lo - x->offset - xs) / sx + 1;
    *last = (hi - 1 - x->offset) / sx;
    if (*last > batch - 1) {
        *last = batch - 1;
    }
    return *first <= *last;
}

bool xgpu__gemm_cross_overlap(const xgpu__gemm_stored *c, size_t sc, const xgpu__gemm_stored *x,
                              size_t sx, size_t batch, size_t *i, size_t *j, bool *exact) {
    size_t cs = span(c);
    size_t rows = c->rows < x->rows ? c->rows : x->rows, walked = 0;
    *exact = true;
    for (size_t b = 0; b < batch; b++) {
        size_t lo = c->offset + b * sc, first = 0, last = 0;
        if (!meeting_range(x, sx, batch, lo, lo + cs, &first, &last)) {
            continue;
        }
        for (size_t k = first; k <= last; k++) {
            if (walked > CROSS_BUDGET) {
                *exact = false;
                *i = b;
                *j = k;
                return true; /* the spans meet: refused without a closer look */
            }
            walked += rows;
            xgpu__gemm_stored cb = *c, xb = *x;
            cb.offset = lo;
            xb.offset = x->offset + k * sx;
            if (rows_overlap(cb, xb)) {
                *i = b;
                *j = k;
                return true;
            }
        }
    }
    return false;
}
