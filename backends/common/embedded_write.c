/* The embed tools' output: a C file holding a table of built-in kernels. */
#include "embedded.h"

#include <stdio.h>
#include <string.h>

static void write_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') {
            fputc('\\', f);
        }
        fputc(*s, f);
    }
    fputc('"', f);
}

int xgpu__embedded_write(const char *path, const char *table_name, const xgpu_embedded *entries,
                         size_t count, const char *about) {
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        perror(tmp);
        return -1;
    }
    fprintf(f, "/* Generated at build time: library kernels built into the plugin. */\n"
               "#include \"embedded.h\"\n\n");
    for (size_t i = 0; i < count; i++) {
        /* Bytes, not a string literal: ISO C bounds a literal's length. */
        fprintf(f, "static const unsigned char code_%zu[%zu] = {", i, entries[i].size + 1);
        for (size_t b = 0; b <= entries[i].size; b++) {
            fprintf(f, "%s%u,", b % 24 ? "" : "\n    ",
                    b < entries[i].size ? entries[i].data[b] : 0u);
        }
        fprintf(f, "\n};\n");
    }
    fprintf(f, "\nstatic const xgpu_embedded entries[%zu] = {\n", count ? count : 1);
    for (size_t i = 0; i < count; i++) {
        fprintf(f, "    {\"%s\", \"%s\", ", entries[i].key, entries[i].name);
        write_string(f, entries[i].options);
        fprintf(f, ", code_%zu, sizeof code_%zu - 1},\n", i, i);
    }
    if (!count) {
        fprintf(f, "    {0, 0, 0, 0, 0},\n");
    }
    fprintf(f, "};\nconst xgpu_embedded_table %s = {entries, %zu, ", table_name, count);
    write_string(f, about);
    fprintf(f, "};\n");
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        perror(path);
        remove(tmp);
        return -1;
    }
    return 0;
}
