/* The rules of gpubench check: each a function over one device's facts
 * and its model's reference, adding reasons (each naming its rule) and
 * figures. The verdict is the worst level a reason sets; a device whose
 * model has no reference is UNKNOWN unless a rule that needs none (wrong
 * results, uncorrectable errors, a link below its own maximum) says
 * worse. Levels: docs/gpubench.md, "gpubench check". */
#include "check.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

const char *gc_verdict_name(gc_verdict v) {
    static const char *const names[] = {"OK", "UNKNOWN", "UNDERPERFORMING", "DEGRADED", "FAULTY"};
    return v <= GC_FAULTY ? names[v] : "?";
}

double gc_pcie_gbs(int gen, int width) {
    /* GB/s per lane each way, after line coding (8b/10b to gen 2,
     * 128b/130b from gen 3; gen 6's FLIT mode taken as gen 5 doubled). */
    static const double lane[] = {0, 0.25, 0.5, 0.9846, 1.9692, 3.9385, 7.877};
    if (gen < 1 || gen > 6 || width < 1 || width > 32) {
        return NAN;
    }
    return lane[gen] * width;
}

static void reason(gc_judgement *j, gc_verdict level, const char *rule, const char *fmt, ...) {
    if (level > j->verdict) {
        j->verdict = level; /* even when the list below is full */
    }
    if (j->nreasons >= GC_MAX_REASONS) {
        return;
    }
    gc_reason *r = &j->reasons[j->nreasons++];
    r->level = level;
    snprintf(r->rule, sizeof r->rule, "%s", rule);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text, sizeof r->text, fmt, ap);
    va_end(ap);
}

static bool is_nvidia(const gc_facts *f, const gc_model *m) {
    return (m && !strcmp(m->vendor, "nvidia")) || !strcmp(f->h.source, "nvml") ||
           !strcmp(f->backend, "cuda");
}

static void rule_results(const gc_facts *f, gc_judgement *j) {
    if (f->failed_rows) {
        reason(j, GC_FAULTY, "results.wrong",
               "%d of %d results failed verification against the host reference (first: %s)",
               f->failed_rows, f->rows, f->failed_first);
    }
    if (f->unrun_rows) {
        reason(j, GC_OK, "results.unrun", "%d case(s) could not run (see the result file's notes)",
               f->unrun_rows);
    }
}

static void rule_stack(const gc_facts *f, gc_judgement *j) {
    if (f->h.driver_match == 0) {
        reason(j, GC_FAULTY, "stack.driver",
               "the kernel module is %s but the user-space driver library is %s (an upgrade "
               "without a reboot or module reload): NVML and CUDA fail or misbehave",
               f->h.module_version[0] ? f->h.module_version : "?",
               f->h.library_version[0] ? f->h.library_version : "?");
    }
}

static void rule_memory_errors(const gc_facts *f, const gc_model *m, gc_judgement *j) {
    if (f->h.ecc_volatile_unc > 0) {
        reason(j, GC_FAULTY, "ecc.volatile",
               "%.0f uncorrectable ECC error(s) since the driver loaded", f->h.ecc_volatile_unc);
    } else if (f->h.ecc_aggregate_unc > 0) {
        reason(j, GC_DEGRADED, "ecc.aggregate",
               "%.0f uncorrectable ECC error(s) over the card's life", f->h.ecc_aggregate_unc);
    }
    if (f->h.ecc_aggregate_corr > 0 || f->h.ecc_volatile_corr > 0) {
        reason(j, GC_OK, "ecc.corrected", "%.0f corrected ECC error(s) over the card's life",
               fmax(f->h.ecc_aggregate_corr, f->h.ecc_volatile_corr));
    }
    if (m && m->ecc == 1 && f->h.ecc_enabled == 0) {
        reason(j, GC_DEGRADED, "ecc.off", "ECC is off; %s ships with it on", m->model);
    }
    if (f->h.remap_failed == 1) {
        reason(j, GC_FAULTY, "remap.failed",
               "a row remapping failed: the memory has no spare rows left for errors");
    } else if (f->h.remap_pending == 1) {
        reason(j, GC_DEGRADED, "remap.pending",
               "a row remapping is pending: the GPU needs a reset to apply it");
    }
    if (f->h.retired_unreservable > 0) {
        reason(j, GC_FAULTY, "retired.unreservable",
               "%.0f bad memory page(s) could not be retired: they stay in use",
               f->h.retired_unreservable);
    }
    if (f->h.retired_pending == 1) {
        reason(j, GC_DEGRADED, "retired.pending",
               "retired pages are pending: the GPU needs a reset to retire them");
    } else if (f->h.retired_dbe > 0 || f->h.retired_sbe > 0) {
        reason(j, GC_OK, "retired.pages", "%.0f page(s) retired (%.0f double-bit)",
               f->h.retired_sbe + f->h.retired_dbe, fmax(f->h.retired_dbe, 0));
    }
}

static void rule_xid(const gc_facts *f, gc_judgement *j) {
    if (f->h.xid_count > 0) {
        reason(j, GC_OK, "xid.events",
               "%.0f Xid event(s) in the kernel log since boot (dmesg | grep Xid: some are "
               "application faults, others hardware)",
               f->h.xid_count);
    }
}

static void rule_pcie(const gc_facts *f, const gc_model *m, gc_judgement *j) {
    bool known = f->h.pcie_gen > 0 && f->h.pcie_max_gen > 0 && f->h.pcie_width > 0 &&
                 f->h.pcie_max_width > 0;
    if (known && (f->h.pcie_gen < f->h.pcie_max_gen || f->h.pcie_width < f->h.pcie_max_width)) {
        if (f->h.pcie_under_load == 1) {
            reason(j, GC_DEGRADED, "pcie.link",
                   "PCIe link at Gen%d x%d under load, below its maximum Gen%d x%d (a link "
                   "trained down: reseat, another slot or riser)",
                   f->h.pcie_gen, f->h.pcie_width, f->h.pcie_max_gen, f->h.pcie_max_width);
        } else {
            reason(j, GC_OK, "pcie.idle",
                   "PCIe link read idle at Gen%d x%d (maximum Gen%d x%d); links slow down when "
                   "idle, so this is not judged",
                   f->h.pcie_gen, f->h.pcie_width, f->h.pcie_max_gen, f->h.pcie_max_width);
        }
    }
    if (m && m->pcie_gen > 0 && f->h.pcie_max_gen > 0 &&
        (f->h.pcie_max_gen < m->pcie_gen ||
         (m->pcie_width > 0 && f->h.pcie_max_width > 0 && f->h.pcie_max_width < m->pcie_width))) {
        reason(j, GC_DEGRADED, "pcie.slot",
               "the link can reach only Gen%d x%d, where %s is a Gen%d x%d card (the host's "
               "slot, riser or switch)",
               f->h.pcie_max_gen, f->h.pcie_max_width, m->model, m->pcie_gen, m->pcie_width);
    }
}

static void rule_config(const gc_facts *f, const gc_model *m, gc_judgement *j) {
    if (f->h.nvlink_links >= 0 && f->h.nvlink_up >= 0 && f->h.nvlink_up < f->h.nvlink_links) {
        reason(j, GC_DEGRADED, "nvlink.down", "%d of %d NVLink links are down",
               f->h.nvlink_links - f->h.nvlink_up, f->h.nvlink_links);
    } else if (m && m->nvlink_links > 0 && f->h.nvlink_links > 0 &&
               f->h.nvlink_links < m->nvlink_links) {
        reason(j, GC_DEGRADED, "nvlink.missing", "%d NVLink links, where %s has %d",
               f->h.nvlink_links, m->model, m->nvlink_links);
    } else if (m && m->nvlink_links > 0 && f->h.nvlink_links == 0) {
        reason(j, GC_OK, "nvlink.none",
               "no NVLink links, where %s has %d: a one-GPU virtual machine, or NVLink off "
               "(judged only for a device that has some)",
               m->model, m->nvlink_links);
    }
    if (f->h.mig_enabled == 1) {
        reason(j, GC_DEGRADED, "mig.on",
               "MIG mode is on: the GPU is split into instances (nvidia-smi -mig 0 to turn it "
               "off)");
    } else if (f->h.mig_pending == 1) {
        reason(j, GC_OK, "mig.pending", "a MIG mode change is pending a GPU reset");
    }
    if (f->h.persistence == 0 && is_nvidia(f, m)) {
        reason(j, GC_DEGRADED, "persistence.off",
               "persistence mode is off: each process pays the driver's start-up and the "
               "clocks reset between jobs (nvidia-smi -pm 1, or nvidia-persistenced)");
    }
    if (f->thermal_rows) {
        reason(j, GC_DEGRADED, "throttle.thermal",
               "%d timed case(s) ran under a thermal or hardware slowdown (%s)", f->thermal_rows,
               f->throttle_why[0] ? f->throttle_why : "see telemetry");
    } else if (f->throttled_rows) {
        reason(j, GC_OK, "throttle.power", "%d timed case(s) ran power- or clock-limited (%s)",
               f->throttled_rows, f->throttle_why[0] ? f->throttle_why : "see telemetry");
    }
}

static void rule_identity(const gc_facts *f, const gc_model *m, gc_judgement *j) {
    if (m->compute_units > 0 && f->compute_units >= 0 && f->compute_units < m->compute_units) {
        reason(j, GC_DEGRADED, "identity.units",
               "%d compute units, where %s has %d (a MIG instance or a cut-down part)",
               f->compute_units, m->model, m->compute_units);
    }
    double gb = f->mem_bytes / 1e9;
    if (m->memory_gb > 0 && !isnan(gb) && (gb < 0.9 * m->memory_gb || gb > 1.15 * m->memory_gb)) {
        reason(j, GC_DEGRADED, "identity.memory",
               "%.1f GB of memory, where %s has %.0f GB (another model or a partition)", gb,
               m->model, m->memory_gb);
    }
    if (m->max_clock_mhz > 0 && !isnan(f->max_clock_mhz) &&
        f->max_clock_mhz < 0.9 * m->max_clock_mhz) {
        reason(j, GC_DEGRADED, "identity.clock",
               "maximum clock %.0f MHz, where %s boosts to %.0f MHz (clocks capped)",
               f->max_clock_mhz, m->model, m->max_clock_mhz);
    }
}

/* A number as the tables print it: whole from 100 up, three digits below. */
static void num_text(char *buf, size_t size, double v) {
    snprintf(buf, size, v >= 100 ? "%.0f" : "%.3g", v);
}

/* A figure beside its reference; a failing one sets UNDERPERFORMING. The
 * ratio is value / reference: at least `tol` passes, or, for a latency
 * (lower_better), at most `tol`. A value of zero or less against a
 * reference fails. */
static void figure(gc_judgement *j, const char *name, const char *what, double value,
                   const char *unit, double ref, const char *kind, double tol, bool lower_better,
                   const char *too_small) {
    if (j->nfigures >= GC_MAX_FIGURES) {
        return;
    }
    gc_figure *g = &j->figures[j->nfigures++];
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(g->what, sizeof g->what, "%s", what);
    snprintf(g->unit, sizeof g->unit, "%s", unit);
    snprintf(g->ref_kind, sizeof g->ref_kind, "%s", kind);
    g->value = value;
    g->reference = ref;
    g->tolerance = tol;
    g->lower_better = lower_better;
    bool judged = !isnan(value) && !isnan(ref) && ref > 0;
    g->ratio = !judged ? NAN : value <= 0 ? 0 : value / ref;
    g->pass = !judged || (value > 0 && (lower_better ? g->ratio <= tol : g->ratio >= tol));
    if (judged && too_small) {
        g->too_small = true;
        g->pass = true;
        char rule[24];
        snprintf(rule, sizeof rule, "size.%s", name);
        reason(j, GC_OK, rule, "%s: %s, so not judged", what, too_small);
    } else if (!g->pass) {
        char rule[24], v[32], r[32];
        snprintf(rule, sizeof rule, "perf.%s", name);
        num_text(v, sizeof v, value);
        num_text(r, sizeof r, ref);
        reason(j, GC_UNDERPERFORMING, rule, "%s %s %s is %.2fx the %s reference %s %s (%s %.2fx)",
               what, v, unit, g->ratio, kind, r, unit, lower_better ? "at most" : "at least", tol);
    }
}

/* The figures beside the model's references; without a model, beside
 * nothing (shown, not judged). */
static void rule_figures(const gc_facts *f, const gc_model *model, const gc_tolerance *t,
                         gc_judgement *j) {
    gc_model none;
    memset(&none, 0, sizeof none);
    none.meas_triad_gbs = none.spec_bandwidth_gbs = none.meas_gemm_vendor_gflops = NAN;
    none.spec_fp32_gflops = none.meas_gemm_xgpu_gflops = none.meas_round_trip_us = NAN;
    none.pcie_gen = none.pcie_width = -1;
    const gc_model *m = model ? model : &none;
    /* Medians measured through one backend (and its vendor library) judge
     * that backend's figures only; the others are judged on the spec sheet. */
    bool same_backend = !m->meas_backend[0] || !strcmp(m->meas_backend, f->backend);
    char what[96], small[96];
    if (isnan(f->stream_mib)) {
        snprintf(what, sizeof what, "stream triad");
    } else {
        snprintf(what, sizeof what, "stream triad, %.0f MiB", f->stream_mib);
    }
    bool meas = same_backend && !isnan(m->meas_triad_gbs);
    double want_mib =
        meas && !isnan(m->meas_stream_mib) ? m->meas_stream_mib : GC_SPEC_MIN_STREAM_MIB;
    snprintf(small, sizeof small, "smaller than the %.0f MiB %s", want_mib,
             meas ? "the reference was measured at" : "a spec-sheet comparison needs");
    figure(j, "bandwidth", what, f->triad_gbs, "GB/s",
           meas ? m->meas_triad_gbs : m->spec_bandwidth_gbs, meas ? "measured" : "spec",
           meas ? t->measured : t->spec_bandwidth, false,
           f->stream_mib < 0.99 * want_mib ? small : NULL);
    bool f32 = !strcmp(f->gemm_vendor_dtype, "f32");
    snprintf(what, sizeof what, "%s %s GEMM, n=%d", f->gemm_vendor_impl, f->gemm_vendor_dtype,
             f->gemm_vendor_n);
    if (isnan(f->gemm_vendor_gflops)) {
        snprintf(what, sizeof what, "vendor f32 GEMM");
    }
    if (isnan(f->gemm_vendor_gflops) || f32) {
        meas = same_backend && !isnan(m->meas_gemm_vendor_gflops);
        int want_n = meas && m->meas_gemm_n > 0 ? m->meas_gemm_n : GC_SPEC_MIN_GEMM_N;
        snprintf(small, sizeof small, "smaller than the n=%d %s", want_n,
                 meas && m->meas_gemm_n > 0 ? "the reference was measured at"
                                            : "a comparison needs");
        figure(j, "gemm", what, f->gemm_vendor_gflops, "GFLOP/s",
               meas ? m->meas_gemm_vendor_gflops : m->spec_fp32_gflops, meas ? "measured" : "spec",
               meas ? t->measured : t->spec_gemm, false, f->gemm_vendor_n < want_n ? small : NULL);
    }
    if (!isnan(f->gemm_xgpu_gflops) && !strcmp(f->gemm_xgpu_dtype, "f32") &&
        (!model || (same_backend && !isnan(m->meas_gemm_xgpu_gflops)))) {
        int want_n = m->meas_gemm_n > 0 ? m->meas_gemm_n : GC_SPEC_MIN_GEMM_N;
        snprintf(small, sizeof small, "smaller than the n=%d the reference was measured at",
                 want_n);
        snprintf(what, sizeof what, "xgpu f32 GEMM, n=%d", f->gemm_xgpu_n);
        figure(j, "gemm.xgpu", what, f->gemm_xgpu_gflops, "GFLOP/s", m->meas_gemm_xgpu_gflops,
               "measured", t->measured, false, f->gemm_xgpu_n < want_n ? small : NULL);
    }
    int gen = f->h.pcie_max_gen > 0 ? f->h.pcie_max_gen : m->pcie_gen;
    int width = f->h.pcie_max_width > 0 ? f->h.pcie_max_width : m->pcie_width;
    double link = model ? gc_pcie_gbs(gen, width) : NAN;
    const char *shape = f->transfer_shape[0] ? f->transfer_shape : "pinned copy";
    if (gen > 0 && width > 0) {
        snprintf(what, sizeof what, "%s vs Gen%d x%d", shape, gen, width);
    } else {
        snprintf(what, sizeof what, "%s", shape);
    }
    if (!isnan(link) || (!model && !isnan(f->transfer_gbs))) {
        snprintf(small, sizeof small, "copies under %d MiB are dominated by their start-up",
                 GC_MIN_TRANSFER_MIB);
        figure(j, "transfer", what, f->transfer_gbs, "GB/s", link, "link", t->link_transfer, false,
               f->transfer_mib < GC_MIN_TRANSFER_MIB ? small : NULL);
    }
    if (!model || (same_backend && !isnan(m->meas_round_trip_us))) {
        figure(j, "launch", "launch round trip", f->round_trip_us, "us", m->meas_round_trip_us,
               "measured", t->launch, true, NULL);
    }
}

void gc_judge(const gc_facts *f, const gc_refs *r, gc_judgement *j) {
    memset(j, 0, sizeof *j);
    j->facts = f;
    j->verdict = GC_OK; /* raised by each reason */
    j->model = gc_refs_match(r, f->name, f->compute_units);
    const gc_model *m = j->model;
    rule_results(f, j);
    rule_stack(f, j);
    rule_memory_errors(f, m, j);
    rule_pcie(f, m, j);
    rule_config(f, m, j);
    rule_xid(f, j);
    if (m) {
        rule_identity(f, m, j);
    } else {
        reason(j, GC_UNKNOWN, "reference.none",
               "no reference for \"%s\"%s: its figures are shown, not judged", f->name,
               f->pci_bus_id[0] ? "" : " (no PCI id: not a discrete GPU)");
    }
    rule_figures(f, m, &r->tol, j);
    int judged = 0;
    for (int i = 0; i < j->nfigures; i++) {
        judged += !isnan(j->figures[i].ratio) && !j->figures[i].too_small;
    }
    bool health = f->h.known && (!strcmp(f->h.source, "nvml") || !strcmp(f->h.source, "rocm_smi") ||
                                 !strcmp(f->h.source, "sysfs"));
    if (m && !judged && !health) {
        reason(j, GC_UNKNOWN, "nothing.judged",
               "nothing to judge: no figure at a reference's size and no health facts in the "
               "file");
    }
    if (f->lacks[0]) {
        reason(j, GC_OK, "file.lacks", "%s", f->lacks);
    } else if (f->h.known && !health) {
        reason(j, GC_OK, "health.none",
               "no health source served this device (no NVML, ROCm SMI or sysfs): ECC, link and "
               "NVLink not judged");
    }
}
