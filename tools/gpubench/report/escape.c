/* Text escaped for the report's writers: one home for each escaping, so
 * that every writer spells a cell the same way. */
#include "report_escape.h"

#include <string.h>

/* Text in a Markdown table cell: a '|' would end the cell and a newline the
 * row; HTML in Markdown is passed through to the page, so <, > and & become
 * entities; the characters of emphasis, code and links are escaped. */
void gb_md_text(FILE *f, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f) {
            fputc(' ', f);
        } else if (c == '<') {
            fputs("&lt;", f);
        } else if (c == '>') {
            fputs("&gt;", f);
        } else if (c == '&') {
            fputs("&amp;", f);
        } else if (strchr("|\\`*_[]~", c)) {
            fputc('\\', f);
            fputc(c, f);
        } else {
            fputc(c, f);
        }
    }
}

/* Text in HTML or SVG: markup characters as entities, and control
 * characters (which XML does not allow and a terminal would obey) as a
 * space. */
void gb_xml_text(FILE *f, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
            fputc(' ', f);
            continue;
        }
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}
