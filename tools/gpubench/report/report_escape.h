/* The report's escaping, used by every writer: Markdown cells and HTML/SVG
 * text here; JSON strings are tools/common's json_write.h (jw_string), as
 * in every tool's JSON. */
#ifndef XGPU_GPUBENCH_REPORT_ESCAPE_H
#define XGPU_GPUBENCH_REPORT_ESCAPE_H

#include <stdio.h>

/* Text in a Markdown table cell: control characters become blanks, <, >
 * and & entities, and the characters of cells, emphasis, code and links
 * (|\`*_[]~) are backslash-escaped. */
void gb_md_text(FILE *f, const char *s);
/* Text in HTML or SVG, as element content or an attribute value: <, >, &
 * and " become entities. */
void gb_xml_text(FILE *f, const char *s);

#endif
