/* gpubench check's verdicts: a summary table and each device's figures
 * and reasons for people; schema xgpu.gpubench-check/1 for machines. */
#include "check.h"
#include "json_write.h"

#include <xgpu.h>

#include <math.h>
#include <stdarg.h>
#include <string.h>

#define GC_TEXT_DETAILS 8 /* up to this many devices, each one's details */

static const char *model_name(const gc_judgement *j) {
    return j->model ? j->model->model : "no reference";
}

/* A figure as people read it: whole numbers from 100 up, three digits
 * below. */
static void fmt_value(char *buf, size_t size, double v, const char *unit) {
    if (isnan(v)) {
        snprintf(buf, size, "-");
    } else if (v >= 100) {
        snprintf(buf, size, "%.0f %s", v, unit);
    } else {
        snprintf(buf, size, "%.3g %s", v, unit);
    }
}

static void print_figure(FILE *f, const gc_figure *g) {
    char value[48], ref[48], ratio[16], need[24];
    fmt_value(value, sizeof value, g->value, g->unit);
    fmt_value(ref, sizeof ref, g->reference, g->unit);
    snprintf(ratio, sizeof ratio, isnan(g->ratio) ? "-" : "%.2fx", g->ratio);
    bool latency = g->lower_better;
    snprintf(need, sizeof need, "%s%.2fx", latency ? "<= " : ">= ", g->tolerance);
    if (isnan(g->reference)) {
        snprintf(need, sizeof need, "-");
    }
    fprintf(f, "  %-10s %-36.36s %15s %15s %-8s %6s %8s  %s\n", g->name, g->what, value, ref,
            isnan(g->reference) ? "-" : g->ref_kind, ratio, need,
            isnan(g->value)       ? "not in the file"
            : isnan(g->reference) ? "no reference"
            : isnan(g->ratio)     ? "not judged"
            : g->too_small        ? "not judged: size"
            : g->pass             ? "ok"
                                  : "LOW");
}

/* Appends to a line being built; stops quietly at its end. */
static void add(char *line, size_t size, const char *fmt, ...) {
    size_t used = strlen(line);
    if (used + 1 >= size) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + used, size - used, fmt, ap);
    va_end(ap);
}

static const char *yes_no(int v, const char *yes, const char *no) {
    return v == 1 ? yes : v == 0 ? no : "?";
}

/* The health facts on one line, "?" where unknown. */
static void print_health(FILE *f, const gc_health *h) {
    if (!h->known) {
        return;
    }
    if (!strcmp(h->source, "none")) {
        fputs("  health: nothing known (no NVML, ROCm SMI or PCI sysfs entry serves it)\n", f);
        return;
    }
    char line[512] = "";
    if (h->pcie_gen > 0 || h->pcie_max_gen > 0) {
        add(line, sizeof line, "PCIe Gen%d x%d %s (max Gen%d x%d)", h->pcie_gen, h->pcie_width,
            h->pcie_under_load == 1 ? "under load" : "idle", h->pcie_max_gen, h->pcie_max_width);
    } else {
        add(line, sizeof line, "PCIe ?");
    }
    add(line, sizeof line, "; ECC %s", yes_no(h->ecc_enabled, "on", "off"));
    if (!isnan(h->ecc_volatile_unc) || !isnan(h->ecc_aggregate_unc)) {
        add(line, sizeof line, ", %.0f uncorrectable",
            fmax(fmax(h->ecc_volatile_unc, 0), fmax(h->ecc_aggregate_unc, 0)));
    }
    if (h->remap_pending >= 0) {
        add(line, sizeof line, "; row remap %s",
            h->remap_failed == 1 ? "FAILED" : yes_no(h->remap_pending, "pending", "none pending"));
    }
    if (h->nvlink_links > 0) {
        add(line, sizeof line, "; NVLink %d/%d up", h->nvlink_up, h->nvlink_links);
    }
    add(line, sizeof line, "; MIG %s; persistence %s", yes_no(h->mig_enabled, "on", "off"),
        yes_no(h->persistence, "on", "off"));
    if (!isnan(h->temperature_c)) {
        add(line, sizeof line, "; %.0f C", h->temperature_c);
    }
    if (h->module_version[0] || h->library_version[0]) {
        add(line, sizeof line, "; driver %s, library %s",
            h->module_version[0] ? h->module_version : "?",
            h->library_version[0] ? h->library_version : "?");
    }
    fprintf(f, "  health (%s): %s\n", h->source[0] ? h->source : "?", line);
}

void gc_print_text(FILE *f, const gc_judgement *j, size_t n, const gc_refs *r) {
    size_t count[GC_FAULTY + 1] = {0};
    for (size_t i = 0; i < n; i++) {
        count[j[i].verdict]++;
    }
    fprintf(f, "gpubench check: %zu device%s", n, n == 1 ? "" : "s");
    const char *sep = ": ";
    for (int v = GC_FAULTY; v >= GC_OK; v--) {
        if (count[v]) {
            fprintf(f, "%s%zu %s", sep, count[v], gc_verdict_name((gc_verdict)v));
            sep = ", ";
        }
    }
    fprintf(f, "\nreferences: %s (%s, %zu models)\n\n", r->source,
            r->updated[0] ? r->updated : "undated", r->count);
    fprintf(f, "%-16s %-10s %-28s %-30s %s\n", "VERDICT", "DEVICE", "NAME", "MODEL", "HOST");
    for (size_t i = 0; i < n; i++) {
        const gc_facts *x = j[i].facts;
        fprintf(f, "%-16s %-10s %-28.28s %-30.30s %s\n", gc_verdict_name(j[i].verdict), x->device,
                x->name, model_name(&j[i]), x->host);
    }
    /* A fleet's OK devices are one line each above; the details are for
     * the others (--json has every device's). */
    bool all = n <= GC_TEXT_DETAILS;
    for (size_t i = 0; i < n; i++) {
        const gc_facts *x = j[i].facts;
        if (!all && j[i].verdict == GC_OK) {
            continue;
        }
        fprintf(f, "\n%s %s (%s) on %s: %s\n", x->device, x->name, model_name(&j[i]), x->host,
                gc_verdict_name(j[i].verdict));
        fprintf(f, "  file %s, xgpu %s%s%s\n", x->file, x->version[0] ? x->version : "?",
                x->started[0] ? ", " : "", x->started);
        print_health(f, &x->h);
        if (j[i].nfigures) {
            fprintf(f, "  %-10s %-36s %15s %15s %-8s %6s %8s\n", "figure", "what", "measured",
                    "reference", "kind", "ratio", "needs");
            for (int k = 0; k < j[i].nfigures; k++) {
                print_figure(f, &j[i].figures[k]);
            }
        }
        for (int k = 0; k < j[i].nreasons; k++) {
            const gc_reason *e = &j[i].reasons[k];
            fprintf(f, "  %-16s %s: %s\n", e->level == GC_OK ? "note" : gc_verdict_name(e->level),
                    e->rule, e->text);
        }
    }
    if (!all && count[GC_OK]) {
        fprintf(f, "\n(%zu OK device%s: one line each above; --json has their figures)\n",
                count[GC_OK], count[GC_OK] == 1 ? "" : "s");
    }
}

static void json_num(FILE *f, double v) {
    if (!isfinite(v)) {
        fputs("null", f);
    } else {
        jw_number(f, v);
    }
}

static void json_device(FILE *f, const gc_judgement *j) {
    const gc_facts *x = j->facts;
    fputs("\n    {\"file\": ", f);
    jw_string(f, x->file);
    fputs(", \"host\": ", f);
    jw_string(f, x->host);
    fputs(", \"device\": ", f);
    jw_string(f, x->device);
    fputs(", \"name\": ", f);
    jw_string(f, x->name);
    fputs(", \"pci_bus_id\": ", f);
    x->pci_bus_id[0] ? jw_string(f, x->pci_bus_id) : (void)fputs("null", f);
    fputs(", \"xgpu_version\": ", f);
    x->version[0] ? jw_string(f, x->version) : (void)fputs("null", f);
    fputs(", \"model\": ", f);
    j->model ? jw_string(f, j->model->model) : (void)fputs("null", f);
    fputs(", \"verdict\": ", f);
    jw_string(f, gc_verdict_name(j->verdict));
    fputs(",\n     \"figures\": [", f);
    for (int k = 0; k < j->nfigures; k++) {
        const gc_figure *g = &j->figures[k];
        fputs(k ? ", {\"name\": " : "{\"name\": ", f);
        jw_string(f, g->name);
        fputs(", \"what\": ", f);
        jw_string(f, g->what);
        fputs(", \"value\": ", f);
        json_num(f, g->value);
        fputs(", \"unit\": ", f);
        jw_string(f, g->unit);
        fputs(", \"reference\": ", f);
        json_num(f, g->reference);
        fputs(", \"reference_kind\": ", f);
        jw_string(f, g->ref_kind);
        fputs(", \"ratio\": ", f);
        json_num(f, g->ratio);
        fputs(", \"tolerance\": ", f);
        json_num(f, g->tolerance);
        fprintf(f, ", \"better\": \"%s\"", g->lower_better ? "lower" : "higher");
        fprintf(f, ", \"pass\": %s}",
                isnan(g->ratio) || g->too_small ? "null"
                : g->pass                       ? "true"
                                                : "false");
    }
    fputs("],\n     \"reasons\": [", f);
    for (int k = 0; k < j->nreasons; k++) {
        const gc_reason *e = &j->reasons[k];
        fputs(k ? ", {\"level\": " : "{\"level\": ", f);
        jw_string(f, e->level == GC_OK ? "note" : gc_verdict_name(e->level));
        fputs(", \"rule\": ", f);
        jw_string(f, e->rule);
        fputs(", \"text\": ", f);
        jw_string(f, e->text);
        fputs("}", f);
    }
    fputs("]}", f);
}

void gc_print_json(FILE *f, const gc_judgement *j, size_t n, const gc_refs *r) {
    size_t count[GC_FAULTY + 1] = {0};
    fputs("{\n  \"schema\": \"xgpu.gpubench-check/1\",\n  \"xgpu_version\": ", f);
    jw_string(f, xgpu_version_string());
    fputs(",\n  \"references\": {\"source\": ", f);
    jw_string(f, r->source);
    fputs(", \"updated\": ", f);
    r->updated[0] ? jw_string(f, r->updated) : (void)fputs("null", f);
    fprintf(f, ", \"models\": %zu},\n  \"devices\": [", r->count);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? "," : "", f);
        json_device(f, &j[i]);
        count[j[i].verdict]++;
    }
    fputs("\n  ],\n  \"summary\": {", f);
    for (int v = GC_OK; v <= GC_FAULTY; v++) {
        fprintf(f, "%s\"%s\": %zu", v ? ", " : "", gc_verdict_name((gc_verdict)v), count[v]);
    }
    fputs("}\n}\n", f);
}
