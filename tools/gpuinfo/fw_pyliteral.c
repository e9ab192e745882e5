/* The literals of generated Python files (torch/version.py, TensorFlow's
 * build_info.py, paddle/version/__init__.py), read without Python. The
 * files are trusted for nothing: one pass over the bytes, brackets nested
 * at most MAX_DEPTH deep, strings kept to PL_TEXT bytes of printable
 * ASCII, every loop advancing by at least one byte. */
#include "fw.h"

#include <stdarg.h>
#include <string.h>

#define MAX_DEPTH 32

typedef enum tok_kind { T_EOF, T_NAME, T_STRING, T_NUMBER, T_OP, T_NEWLINE, T_ERROR } tok_kind;

typedef struct lexer {
    const char *p, *start, *end;
    int depth; /* open brackets */
    int line;
    /* The current token. */
    tok_kind kind;
    char op;        /* T_OP */
    bool col0;      /* it starts a physical line */
    bool formatted; /* T_STRING: an f-string, not a literal */
    bool truncated;
    char text[PL_TEXT];
    size_t n;
    char *err;
    size_t errsize;
} lexer;

static void fail(lexer *lx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(lexer *lx, const char *fmt, ...) {
    if (lx->kind == T_ERROR) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int k = snprintf(lx->err, lx->errsize, "line %d: ", lx->line);
    if (k >= 0 && (size_t)k < lx->errsize) {
        vsnprintf(lx->err + k, lx->errsize - (size_t)k, fmt, ap);
    }
    va_end(ap);
    lx->kind = T_ERROR;
}

static void put(lexer *lx, char c) {
    if (lx->n + 1 >= sizeof lx->text) {
        lx->truncated = true;
        return;
    }
    lx->text[lx->n++] = c >= 0x20 && c < 0x7f ? c : '?';
    lx->text[lx->n] = '\0';
}

static bool is_name_char(unsigned char c, bool first) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 ||
           (!first && c >= '0' && c <= '9');
}

/* A string prefix (r, b, u, f and their pairs), and whether it is raw or
 * formatted. */
static bool string_prefix(const char *s, size_t n, bool *raw, bool *formatted) {
    if (n == 0 || n > 2) {
        return false;
    }
    *raw = *formatted = false;
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case 'r':
        case 'R':
            *raw = true;
            break;
        case 'f':
        case 'F':
            *formatted = true;
            break;
        case 'b':
        case 'B':
        case 'u':
        case 'U':
            break;
        default:
            return false;
        }
    }
    return true;
}

/* The string starting at lx->p (a quote). */
static void lex_string(lexer *lx, bool raw) {
    char q = *lx->p;
    bool triple = lx->end - lx->p >= 3 && lx->p[1] == q && lx->p[2] == q;
    lx->p += triple ? 3 : 1;
    int first_line = lx->line;
    for (;;) {
        if (lx->p >= lx->end) {
            fail(lx, "a string opened on line %d is not closed", first_line);
            return;
        }
        char c = *lx->p;
        if (c == q && (!triple || (lx->end - lx->p >= 3 && lx->p[1] == q && lx->p[2] == q))) {
            lx->p += triple ? 3 : 1;
            return;
        }
        if (c == '\n') {
            if (!triple) {
                fail(lx, "a string is not closed at the end of the line");
                return;
            }
            lx->line++;
        }
        if (c == '\\' && lx->p + 1 < lx->end) {
            char e = lx->p[1];
            lx->p += 2;
            if (e == '\n') {
                lx->line++;
                if (raw) {
                    put(lx, '\\');
                }
                continue;
            }
            if (raw || !strchr("\\'\"", e)) {
                put(lx, '\\');
            }
            put(lx, e);
            continue;
        }
        put(lx, c);
        lx->p++;
    }
}

/* The next token into lx; NEWLINE only outside brackets, once per run of
 * blank lines and comments. */
static void next(lexer *lx) {
    if (lx->kind == T_ERROR) {
        return;
    }
    lx->n = 0;
    lx->text[0] = '\0';
    lx->truncated = lx->formatted = false;
    for (;;) {
        if (lx->p >= lx->end) {
            lx->kind = T_EOF;
            return;
        }
        char c = *lx->p;
        if (c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\0') {
            lx->p++;
        } else if (c == '\\' && lx->p + 1 < lx->end && lx->p[1] == '\n') {
            lx->p += 2; /* an explicit line continuation */
            lx->line++;
        } else if (c == '#') {
            while (lx->p < lx->end && *lx->p != '\n') {
                lx->p++;
            }
        } else if (c == '\n') {
            lx->p++;
            lx->line++;
            if (lx->depth == 0 && lx->kind != T_NEWLINE) {
                lx->kind = T_NEWLINE;
                return;
            }
        } else {
            break;
        }
    }
    const char *s = lx->p;
    lx->col0 = s == lx->start || s[-1] == '\n';
    unsigned char c = (unsigned char)*s;
    if (is_name_char(c, true)) {
        while (lx->p < lx->end && is_name_char((unsigned char)*lx->p, false)) {
            put(lx, *lx->p++);
        }
        bool raw, formatted;
        if (lx->p < lx->end && (*lx->p == '\'' || *lx->p == '"') &&
            string_prefix(s, (size_t)(lx->p - s), &raw, &formatted)) {
            lx->n = 0;
            lx->text[0] = '\0';
            lx->truncated = false;
            lx->kind = T_STRING;
            lx->formatted = formatted;
            lex_string(lx, raw);
            return;
        }
        lx->kind = T_NAME;
        return;
    }
    if (c == '\'' || c == '"') {
        lx->kind = T_STRING;
        lex_string(lx, false);
        return;
    }
    if ((c >= '0' && c <= '9') ||
        (c == '.' && lx->p + 1 < lx->end && lx->p[1] >= '0' && lx->p[1] <= '9')) {
        while (lx->p < lx->end && (is_name_char((unsigned char)*lx->p, false) || *lx->p == '.')) {
            put(lx, *lx->p++);
        }
        lx->kind = T_NUMBER;
        return;
    }
    lx->p++;
    lx->kind = T_OP;
    lx->op = (char)c;
    if (c == '(' || c == '[' || c == '{') {
        if (++lx->depth > MAX_DEPTH) {
            fail(lx, "brackets nested more than %d deep", MAX_DEPTH);
        }
    } else if (c == ')' || c == ']' || c == '}') {
        if (--lx->depth < 0) {
            fail(lx, "'%c' closes no bracket", c);
        }
    }
}

static bool is_op(const lexer *lx, char op) {
    return lx->kind == T_OP && lx->op == op;
}

/* The end of an expression at the current level. */
static bool at_expr_end(const lexer *lx) {
    return lx->kind == T_EOF || lx->kind == T_ERROR || lx->kind == T_NEWLINE || is_op(lx, ',') ||
           is_op(lx, ':') || is_op(lx, ';') || is_op(lx, ')') || is_op(lx, ']') || is_op(lx, '}');
}

/* Skips what is left of an expression that is not a literal, brackets and
 * all, up to its end at this level. */
static void skip_expr(lexer *lx) {
    int depth = lx->depth;
    while (lx->kind != T_EOF && lx->kind != T_ERROR) {
        if (lx->depth == depth && at_expr_end(lx)) {
            if (!is_op(lx, ')') && !is_op(lx, ']') && !is_op(lx, '}')) {
                return;
            }
        }
        if (lx->depth < depth) {
            return; /* the bracket that closes this level */
        }
        next(lx);
    }
}

typedef struct parse {
    lexer *lx;
    pl_assign_cb cb;
    void *ctx;
    const char *owner; /* the top-level name a dict is assigned to */
} parse;

static void value(parse *ps, pl_value *v, int level);

static void append_item(pl_value *list, const pl_value *item) {
    size_t n = strlen(list->text), add = strlen(item->text);
    list->items++;
    if (n + (n > 0) + add + 1 > sizeof list->text) {
        list->truncated = true;
        return;
    }
    if (n > 0) {
        list->text[n++] = ',';
    }
    memcpy(list->text + n, item->text, add + 1);
    list->truncated |= item->truncated;
}

/* The token closes the bracket opened to reach `depth`. */
static bool closes(const lexer *lx, int depth) {
    return lx->kind == T_OP && strchr(")]}", lx->op) && lx->depth == depth - 1;
}

/* Past the bracket that closes `depth`, whatever comes before it. */
static void leave(lexer *lx, int depth, pl_value *v) {
    while (lx->kind != T_EOF && lx->kind != T_ERROR && !closes(lx, depth)) {
        v->kind = PL_OTHER;
        next(lx);
    }
    if (closes(lx, depth)) {
        next(lx);
    }
}

/* A list or tuple whose opening bracket is current; closes with `close`. */
static void sequence(parse *ps, pl_value *v, char close, int level) {
    lexer *lx = ps->lx;
    int depth = lx->depth;
    bool comma = false;
    pl_value first;
    v->kind = PL_LIST;
    next(lx);
    while (lx->kind != T_EOF && lx->kind != T_ERROR && !closes(lx, depth)) {
        pl_value item;
        value(ps, &item, level + 1);
        if (v->items == 0) {
            first = item;
        }
        if (item.kind == PL_STRING || item.kind == PL_NUMBER) {
            append_item(v, &item);
        } else {
            v->items++;
        }
        if (is_op(lx, ',')) {
            comma = true;
            next(lx);
        } else if (!closes(lx, depth)) {
            v->kind = PL_OTHER; /* a ':' or ';' where an item should end */
            next(lx);
        }
    }
    if (closes(lx, depth) && lx->op != close) {
        v->kind = PL_OTHER;
    }
    /* (x) is x, not a tuple: only a comma makes one. */
    if (close == ')' && !comma && v->items == 1 && v->kind == PL_LIST) {
        *v = first;
    }
    leave(lx, depth, v);
}

/* One dict item: reported when the dict is assigned to a top-level name. */
static void report_item(parse *ps, int level, const pl_value *key, const pl_value *val) {
    if (level == 0 && ps->owner && key->kind == PL_STRING && ps->cb) {
        ps->cb(ps->ctx, ps->owner, key->text, val);
    }
}

/* {key: value, ...}, the brace current. */
static void dict(parse *ps, pl_value *v, int level) {
    lexer *lx = ps->lx;
    int depth = lx->depth;
    v->kind = PL_DICT;
    next(lx);
    while (lx->kind != T_EOF && lx->kind != T_ERROR && !closes(lx, depth)) {
        pl_value key, val;
        value(ps, &key, level + 1);
        if (is_op(lx, ':')) {
            next(lx);
            value(ps, &val, level + 1);
            report_item(ps, level, &key, &val);
        } else {
            v->kind = PL_OTHER;
        }
        if (is_op(lx, ',')) {
            next(lx);
        } else if (!closes(lx, depth)) {
            v->kind = PL_OTHER;
            next(lx);
        }
    }
    if (closes(lx, depth) && lx->op != '}') {
        v->kind = PL_OTHER;
    }
    leave(lx, depth, v);
}

/* One (key, value) of an OrderedDict, its '(' current. */
static void pair(parse *ps, pl_value *v, int level) {
    lexer *lx = ps->lx;
    int depth = lx->depth;
    pl_value key, val;
    next(lx);
    value(ps, &key, level + 1);
    bool ok = is_op(lx, ',');
    if (ok) {
        next(lx);
        value(ps, &val, level + 1);
        ok = closes(lx, depth) && lx->op == ')';
    }
    if (ok) {
        report_item(ps, level, &key, &val);
    } else {
        v->kind = PL_OTHER;
    }
    leave(lx, depth, v);
}

/* OrderedDict([(key, value), ...]): the '(' after the name current. */
static void ordered_dict(parse *ps, pl_value *v, int level) {
    lexer *lx = ps->lx;
    int depth = lx->depth;
    v->kind = PL_OTHER;
    next(lx);
    if (is_op(lx, '[')) {
        int list_depth = lx->depth;
        v->kind = PL_DICT;
        next(lx);
        while (lx->kind != T_EOF && lx->kind != T_ERROR && !closes(lx, list_depth)) {
            if (is_op(lx, '(')) {
                pair(ps, v, level);
            } else {
                pl_value junk;
                v->kind = PL_OTHER;
                value(ps, &junk, level + 1);
            }
            if (is_op(lx, ',')) {
                next(lx);
            } else if (!closes(lx, list_depth)) {
                v->kind = PL_OTHER;
                next(lx);
            }
        }
        leave(lx, list_depth, v);
    }
    leave(lx, depth, v);
}

/* One value at `level` (0: assigned to a top-level name); leaves the
 * token after it current. */
static void value(parse *ps, pl_value *v, int level) {
    lexer *lx = ps->lx;
    memset(v, 0, sizeof *v);
    v->kind = PL_OTHER;
    if (lx->kind == T_STRING) {
        v->kind = lx->formatted ? PL_OTHER : PL_STRING;
        memcpy(v->text, lx->text, lx->n + 1);
        v->truncated = lx->truncated;
        next(lx);
        while (lx->kind == T_STRING) { /* 'a' 'b' is 'ab' */
            size_t n = strlen(v->text);
            if (n + lx->n + 1 > sizeof v->text) {
                v->truncated = true;
            } else {
                memcpy(v->text + n, lx->text, lx->n + 1);
            }
            v->truncated |= lx->truncated;
            if (lx->formatted) {
                v->kind = PL_OTHER;
            }
            next(lx);
        }
    } else if (lx->kind == T_NUMBER || (is_op(lx, '-'))) {
        bool minus = is_op(lx, '-');
        if (minus) {
            next(lx);
        }
        if (lx->kind == T_NUMBER) {
            v->kind = PL_NUMBER;
            v->text[0] = '-';
            fw_copy(v->text + minus, sizeof v->text - minus, lx->text);
            next(lx);
        }
    } else if (lx->kind == T_NAME) {
        if (!strcmp(lx->text, "None")) {
            v->kind = PL_NONE;
            next(lx);
        } else if (!strcmp(lx->text, "True") || !strcmp(lx->text, "False")) {
            v->kind = PL_BOOL;
            v->truth = lx->text[0] == 'T';
            next(lx);
        } else {
            /* collections.OrderedDict(...) or OrderedDict(...). */
            bool ordered = !strcmp(lx->text, "OrderedDict");
            if (!strcmp(lx->text, "collections")) {
                next(lx);
                if (is_op(lx, '.')) {
                    next(lx);
                    ordered = lx->kind == T_NAME && !strcmp(lx->text, "OrderedDict");
                }
            }
            if (ordered && lx->kind == T_NAME) {
                next(lx);
                if (is_op(lx, '(')) {
                    ordered_dict(ps, v, level);
                }
            }
        }
    } else if (is_op(lx, '[')) {
        sequence(ps, v, ']', level);
    } else if (is_op(lx, '(')) {
        sequence(ps, v, ')', level);
    } else if (is_op(lx, '{')) {
        dict(ps, v, level);
    }
    /* Anything after it (an operator, a call, a conditional) makes it an
     * expression, not a literal. */
    if (!at_expr_end(lx)) {
        v->kind = PL_OTHER;
        skip_expr(lx);
    }
}

/* Up to the end of the statement: NEWLINE outside brackets, ';' or EOF. */
static void skip_statement(lexer *lx) {
    while (lx->kind != T_EOF && lx->kind != T_ERROR && lx->kind != T_NEWLINE &&
           !(is_op(lx, ';') && lx->depth == 0)) {
        next(lx);
    }
}

int pl_parse(const char *src, size_t len, pl_assign_cb cb, void *ctx, char *err, size_t errsize) {
    lexer lx;
    memset(&lx, 0, sizeof lx);
    lx.p = lx.start = src;
    lx.end = src + len;
    lx.line = 1;
    lx.kind = T_NEWLINE;
    lx.err = err;
    lx.errsize = errsize;
    if (errsize) {
        err[0] = '\0';
    }
    parse ps = {&lx, cb, ctx, NULL};
    /* Only statements of lines that start at the left margin: what is
     * indented belongs to a function or a condition, not to the module's
     * values. `fresh`: the next token starts a logical line. */
    bool fresh = true, top = false;
    next(&lx);
    while (lx.kind != T_EOF && lx.kind != T_ERROR) {
        if (lx.kind == T_NEWLINE || is_op(&lx, ';')) {
            fresh = fresh || lx.kind == T_NEWLINE;
            next(&lx);
            continue;
        }
        if (fresh) {
            top = lx.col0;
            fresh = false;
        }
        if (lx.kind != T_NAME || !top) {
            skip_statement(&lx);
            continue;
        }
        char name[128];
        fw_copy(name, sizeof name, lx.text);
        next(&lx);
        if (is_op(&lx, ':')) { /* an annotation, up to its '=' */
            while (lx.kind != T_EOF && lx.kind != T_ERROR && lx.kind != T_NEWLINE &&
                   !(is_op(&lx, '=') && lx.depth == 0)) {
                next(&lx);
            }
        }
        if (!is_op(&lx, '=')) {
            skip_statement(&lx);
            continue;
        }
        next(&lx);
        pl_value v;
        ps.owner = name;
        value(&ps, &v, 0);
        ps.owner = NULL;
        if (lx.kind != T_EOF && lx.kind != T_NEWLINE && !is_op(&lx, ';') && lx.kind != T_ERROR) {
            v.kind = PL_OTHER; /* a = b = 1, a = 1, 2 */
            skip_statement(&lx);
        }
        if (lx.kind != T_ERROR && cb) {
            cb(ctx, name, NULL, &v);
        }
    }
    if (lx.kind == T_ERROR) {
        return -1;
    }
    if (lx.depth > 0) {
        snprintf(err, errsize, "line %d: the file ends inside brackets", lx.line);
        return -1;
    }
    return 0;
}
