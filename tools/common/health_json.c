/* A device's health facts as gpubench's "health" object: every group an
 * object of the same members whatever is known, unknown facts null. */
#include "health.h"
#include "json_write.h"

#include <inttypes.h>

static void num(FILE *f, const char *key, gh_num n) {
    fprintf(f, ", \"%s\": ", key);
    n.known ? (void)fprintf(f, "%" PRIu64, n.value) : (void)fputs("null", f);
}

static void flag(FILE *f, const char *key, gh_flag b) {
    fprintf(f, ", \"%s\": %s", key, !b.known ? "null" : (b.value ? "true" : "false"));
}

static void text_or_null(FILE *f, const char *key, const char *s, bool first) {
    fprintf(f, "%s\"%s\": ", first ? "" : ", ", key);
    *s ? jw_string(f, s) : (void)fputs("null", f);
}

/* `"name": {"source": "nvml"` of a group; the caller closes it. */
static void group(FILE *f, const char *name, gh_source s) {
    fprintf(f, ",\n    \"%s\": {\"source\": ", name);
    jw_string(f, gh_source_name(s));
}

void gh_write_json(FILE *f, const gh_facts *h) {
    fputs("{\n    \"device\": ", f);
    jw_string(f, h->device);
    fputs(",\n    ", f);
    text_or_null(f, "pci_bus_id", h->pci_bus_id, true);
    fputs(",\n    \"source\": ", f);
    jw_string(f, gh_source_name(h->source));

    const gh_pcie *p = &h->pcie;
    group(f, "pcie", p->source);
    fprintf(f, ", \"under_load\": %s", p->under_load ? "true" : "false");
    num(f, "current_gen", p->current_gen);
    num(f, "max_gen", p->max_gen);
    num(f, "current_width", p->current_width);
    num(f, "max_width", p->max_width);
    fputc('}', f);

    const gh_ecc *e = &h->ecc;
    group(f, "ecc", e->source);
    flag(f, "enabled", e->enabled);
    num(f, "volatile_corrected", e->volatile_corrected);
    num(f, "volatile_uncorrected", e->volatile_uncorrected);
    num(f, "aggregate_corrected", e->aggregate_corrected);
    num(f, "aggregate_uncorrected", e->aggregate_uncorrected);
    fputc('}', f);

    const gh_retired *r = &h->retired;
    group(f, "retired_pages", r->source);
    num(f, "single_bit", r->single_bit);
    num(f, "double_bit", r->double_bit);
    flag(f, "pending", r->pending);
    num(f, "reserved", r->reserved);
    num(f, "unreservable", r->unreservable);
    fputc('}', f);

    const gh_remapped *m = &h->remapped;
    group(f, "remapped_rows", m->source);
    num(f, "correctable", m->correctable);
    num(f, "uncorrectable", m->uncorrectable);
    flag(f, "pending", m->pending);
    flag(f, "failed", m->failed);
    fputc('}', f);

    group(f, "nvlink", h->nvlink.source);
    num(f, "links", h->nvlink.links);
    num(f, "up", h->nvlink.up);
    fputc('}', f);

    group(f, "mig", h->mig.source);
    flag(f, "enabled", h->mig.enabled);
    flag(f, "pending", h->mig.pending);
    fputc('}', f);

    group(f, "persistence", h->persistence.source);
    flag(f, "enabled", h->persistence.enabled);
    fputc('}', f);

    fputs(",\n    \"temperature_c\": ", f);
    h->temperature_c.known ? (void)fprintf(f, "%" PRIu64, h->temperature_c.value)
                           : (void)fputs("null", f);

    fputs(",\n    \"driver\": {", f);
    text_or_null(f, "kernel_module", h->driver.kernel_module, true);
    text_or_null(f, "library", h->driver.library, false);
    flag(f, "match", h->driver.match);
    fputs(", ", f);
    text_or_null(f, "libcuda", h->driver.libcuda, true);
    fputc('}', f);

    fputs(",\n    \"xid\": {\"readable\": ", f);
    fputs(!h->xid.readable.known ? "null" : (h->xid.readable.value ? "true" : "false"), f);
    num(f, "count", h->xid.count);
    text_or_null(f, "why", h->xid.why, false);
    fputs("}\n  }", f);
}
