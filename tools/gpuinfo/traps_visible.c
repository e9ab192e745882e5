/* The visible-devices rules: CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES and
 * ROCR_VISIBLE_DEVICES are applied by the vendor stacks, below xgpu, so an
 * entry that names no GPU silently hides GPUs. Each value is compared with
 * what the machine has: its GPUs' count (NVML's where it loads, else the
 * PCI bus's and xgpu's) and UUIDs (NVML's, amdgpu's unique_id, xgpu's).
 * CUDA stops at the first entry it cannot use, so the first such entry is
 * the one reported. A value is walked once, in place: its length does not
 * matter. */
#define _GNU_SOURCE /* strndup */
#include "traps.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_UUIDS (NI_MAX_GPUS * (NI_MAX_MIG + 1) + TR_MAX_XDEV + TR_MAX_PCI)

/* A UUID as entries are compared: its kind ('G' a GPU, 'M' a MIG
 * device) and its hex digits, lower case, without dashes. */
typedef struct uuid_key {
    char kind;
    char hex[40];
} uuid_key;

/* What one variable is compared with. */
typedef struct family {
    const char *var;    /* "CUDA_VISIBLE_DEVICES" */
    const char *stack;  /* "CUDA", "ROCm" */
    const char *vendor; /* "NVIDIA", "AMD" */
    unsigned count;     /* the GPUs its indexes count */
    const char *has;    /* who has them: "this machine has" */
    const char *lister; /* what prints their UUIDs */
    uuid_key uuids[MAX_UUIDS];
    unsigned uuid_count;
} family;

/* A UUID as written ("GPU-6f1e2d3c-4b5a-...", "MIG-...", a prefix of one,
 * CUDA 11's "MIG-GPU-<uuid>/<gi>/<ci>") into *key: 0, or -1 when `s` is
 * not a UUID; 1 when it has a GPU-/MIG- prefix but no hex digits in it. */
static int uuid_parse(const char *s, size_t n, uuid_key *key) {
    size_t skip = 0;
    if (n >= 8 && !strncasecmp(s, "MIG-GPU-", 8)) {
        key->kind = 'G';
        skip = 8;
        for (size_t i = skip; i < n; i++) {
            if (s[i] == '/') {
                n = i; /* the instance ids that follow are not checked */
            }
        }
    } else if (n >= 4 && (!strncasecmp(s, "GPU-", 4) || !strncasecmp(s, "MIG-", 4))) {
        key->kind = (char)toupper((unsigned char)s[0]);
        skip = 4;
    } else {
        return -1;
    }
    size_t k = 0;
    for (size_t i = skip; i < n; i++) {
        if (s[i] == '-') {
            continue;
        }
        if (!isxdigit((unsigned char)s[i]) || k + 1 >= sizeof key->hex) {
            return 1;
        }
        key->hex[k++] = (char)tolower((unsigned char)s[i]);
    }
    key->hex[k] = '\0';
    return k ? 0 : 1;
}

static void add_uuid(family *fam, const char *text) {
    uuid_key k;
    if (fam->uuid_count < MAX_UUIDS && text[0] && uuid_parse(text, strlen(text), &k) == 0) {
        fam->uuids[fam->uuid_count++] = k;
    }
}

/* An entry's UUID names a known one when it is a prefix of it (CUDA takes
 * the shortest unambiguous prefix). */
static bool uuid_known(const family *fam, const uuid_key *k) {
    for (unsigned i = 0; i < fam->uuid_count; i++) {
        const uuid_key *u = &fam->uuids[i];
        if (u->kind == k->kind && !strncmp(u->hex, k->hex, strlen(k->hex))) {
            return true;
        }
    }
    return false;
}

static void nvidia_family(const tr_facts *f, family *fam) {
    memset(fam, 0, sizeof *fam);
    fam->var = "CUDA_VISIBLE_DEVICES";
    fam->stack = "CUDA";
    fam->vendor = "NVIDIA";
    fam->count = tr_nvidia_gpus(f);
    fam->has = "this machine has";
    fam->lister = "nvidia-smi -L";
    for (unsigned i = 0; f->nvml && i < f->nvml->gpu_count; i++) {
        const ni_gpu *g = &f->nvml->gpus[i];
        add_uuid(fam, g->uuid);
        for (unsigned m = 0; m < g->mig_count; m++) {
            add_uuid(fam, g->mig[m].uuid);
        }
    }
    for (unsigned i = 0; i < f->xdev_count; i++) {
        if (!strcmp(f->xdev[i].backend, "cuda")) {
            add_uuid(fam, f->xdev[i].uuid);
        }
    }
}

/* ROCr's UUIDs are "GPU-" and amdgpu's unique_id. */
static void amd_family(const tr_facts *f, family *fam, const char *var) {
    memset(fam, 0, sizeof *fam);
    fam->var = var;
    fam->stack = "ROCm";
    fam->vendor = "AMD";
    fam->count = tr_amd_gpus(f);
    fam->has = "this machine has";
    fam->lister = "rocminfo";
    char text[48];
    for (unsigned i = 0; i < f->pci_count; i++) {
        if (f->pci[i].unique_id[0]) {
            snprintf(text, sizeof text, "GPU-%s", f->pci[i].unique_id);
            add_uuid(fam, text);
        }
    }
}

/* The machine's GPUs as detail lines: NVML's where it has them. */
static void list_gpus(const tr_facts *f, const family *fam, tr_finding *fi) {
    bool nvidia = !strcmp(fam->vendor, "NVIDIA");
    if (nvidia && f->nvml && f->nvml->gpu_count) {
        for (unsigned i = 0; i < f->nvml->gpu_count; i++) {
            const ni_gpu *g = &f->nvml->gpus[i];
            tr_detail(fi, "%u  %s  %s  %s", i, g->bus_id[0] ? g->bus_id : "-",
                      g->uuid[0] ? g->uuid : "-", g->name);
        }
        return;
    }
    unsigned k = 0;
    for (unsigned i = 0; i < f->pci_count; i++) {
        unsigned v = f->pci[i].vendor;
        if (nvidia ? v == TR_PCI_NVIDIA : (v == TR_PCI_AMD || v == TR_PCI_HYGON)) {
            tr_detail(fi, "%u  %s%s%s (PCI order)", k++, f->pci[i].bus_id,
                      f->pci[i].unique_id[0] ? "  GPU-" : "", f->pci[i].unique_id);
        }
    }
}

static void range_text(unsigned count, char *out, size_t size) {
    if (count == 1) {
        snprintf(out, size, "index 0");
    } else {
        snprintf(out, size, "indexes 0 to %u", count - 1);
    }
}

/* A value that hides every GPU: "", "NoDevFiles", or a negative index
 * first. */
static bool hides_all(const tr_facts *f, const family *fam, const char *value, tr_findings *out) {
    char shown[96], range[48];
    tr_quote(value, 40, shown, sizeof shown);
    range_text(fam->count, range, sizeof range);
    tr_finding *fi = NULL;
    size_t lead = strspn(value, " \t");
    if (!value[lead]) {
        fi = tr_add(out, "visible_devices_hide_all", TR_WARNING,
                    "%s is set but empty: %s sees none of this machine's %u %s GPU(s)", fam->var,
                    fam->stack, fam->count, fam->vendor);
        tr_fix(fi, "unset %s, or list the GPUs to use (%s)", fam->var, range);
    } else if (!strcmp(value + lead, "NoDevFiles")) {
        fi = tr_add(out, "visible_devices_hide_all", TR_WARNING,
                    "%s=NoDevFiles: the batch system (Slurm, Grid Engine) gave this job no GPU, "
                    "so %s sees none of this machine's %u %s GPU(s)",
                    fam->var, fam->stack, fam->count, fam->vendor);
        tr_fix(fi, "ask the batch system for a GPU (Slurm: --gres=gpu:1 or --gpus=1)");
    } else if (value[lead] == '-' && isdigit((unsigned char)value[lead + 1])) {
        fi = tr_add(out, "visible_devices_hide_all", TR_INFO,
                    "%s=\"%s\" starts with a negative index, which hides every GPU: %s sees "
                    "none of this machine's %u %s GPU(s) (a usual way to force the CPU)",
                    fam->var, shown, fam->stack, fam->count, fam->vendor);
        tr_fix(fi, "unset %s to use them (%s)", fam->var, range);
    }
    if (fi) {
        list_gpus(f, fam, fi);
    }
    return fi != NULL;
}

/* Why entry [s, s + n) is no GPU of the family, into why; NULL when it is
 * one, or when it is a UUID and none is known to compare it with. */
static const char *entry_problem(const family *fam, const char *s, size_t n, char *why,
                                 size_t size) {
    char range[48];
    range_text(fam->count, range, sizeof range);
    if (n == 0) {
        snprintf(why, size, "is empty");
        return why;
    }
    if (strspn(s, "0123456789") >= n) {
        unsigned long index = 0;
        for (size_t i = 0; i < n && index < 1000000000UL; i++) {
            index = index * 10 + (unsigned long)(s[i] - '0');
        }
        if (index < fam->count) {
            return NULL;
        }
        snprintf(why, size, "is no GPU: %s %u %s GPU(s), %s", fam->has, fam->count, fam->vendor,
                 range);
        return why;
    }
    if (s[0] == '-' && n > 1 && isdigit((unsigned char)s[1])) {
        snprintf(why, size, "is a negative index, which ends the list");
        return why;
    }
    uuid_key key;
    int u = uuid_parse(s, n, &key);
    if (u < 0) {
        snprintf(why, size, "is neither an index (%s) nor a UUID (GPU-..., MIG-...)", range);
        return why;
    }
    if (u > 0) {
        snprintf(why, size, "is not a UUID: after GPU- or MIG- come hex digits and dashes");
        return why;
    }
    if (fam->uuid_count == 0 || uuid_known(fam, &key)) {
        return NULL;
    }
    snprintf(why, size, "matches no %s of this machine's %u %s GPU(s)",
             key.kind == 'M' ? "MIG device UUID" : "GPU UUID", fam->count, fam->vendor);
    return why;
}

static void unmatched(const tr_facts *f, const family *fam, const char *value, unsigned entry,
                      const char *s, size_t len, const char *why, unsigned good, tr_findings *out) {
    char shown[96], range[48], after[96], entry_text[128];
    tr_quote(value, 60, shown, sizeof shown);
    char *copy = strndup(s, len > 40 ? 40 : len);
    tr_quote(copy ? copy : "", 40, entry_text, sizeof entry_text);
    free(copy);
    range_text(fam->count, range, sizeof range);
    if (!good) {
        snprintf(after, sizeof after, "%s sees no GPU", fam->stack);
    } else if (!strcmp(fam->stack, "CUDA")) {
        /* CUDA's documented rule: the entries after it are ignored. */
        snprintf(after, sizeof after, "CUDA uses only the %u entr%s before it", good,
                 good == 1 ? "y" : "ies");
    } else {
        snprintf(after, sizeof after, "the %u entr%s before it name%s GPUs", good,
                 good == 1 ? "y" : "ies", good == 1 ? "s" : "");
    }
    tr_finding *fi = tr_add(out, "visible_devices_unmatched", good ? TR_WARNING : TR_ERROR,
                            "%s=\"%s\": entry %u (\"%s%s\") %s; %s", fam->var, shown, entry + 1,
                            entry_text, len > 40 ? "..." : "", why, after);
    tr_fix(fi, "use %s or UUIDs that %s prints, or unset %s to see every GPU", range, fam->lister,
           fam->var);
    list_gpus(f, fam, fi);
}

/* Walks the entries of `value`; the first that names no GPU is a
 * finding. Returns how many entries before it name GPUs. */
static unsigned check_entries(const tr_facts *f, const family *fam, const char *value,
                              tr_findings *out) {
    unsigned good = 0;
    const char *p = value;
    for (unsigned entry = 0;; entry++) {
        size_t n = strcspn(p, ",");
        const char *s = p + strspn(p, " \t");
        size_t len = s < p + n ? (size_t)(p + n - s) : 0;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) {
            len--;
        }
        bool last = p[n] == '\0';
        char why[256];
        /* A trailing comma leaves an empty last entry that hides nothing. */
        if (!(last && len == 0 && entry > 0) && entry_problem(fam, s, len, why, sizeof why)) {
            unmatched(f, fam, value, entry, s, len, why, good, out);
            return good;
        }
        good += len > 0;
        if (last) {
            return good;
        }
        p += n + 1;
    }
}

/* One variable: returns how many GPUs it leaves visible (all when unset). */
static unsigned check_variable(const tr_facts *f, const family *fam, const char *value,
                               tr_findings *out) {
    if (!value || fam->count == 0) {
        return fam->count; /* no GPU of the family: nothing to hide */
    }
    if (hides_all(f, fam, value, out)) {
        return 0;
    }
    return check_entries(f, fam, value, out);
}

void tr_check_visible(const tr_facts *f, tr_findings *out) {
    family fam; /* about 17 KiB */
    if (tr_nvidia_gpus(f) || !tr_amd_gpus(f)) {
        nvidia_family(f, &fam);
    } else {
        /* HIP applies CUDA_VISIBLE_DEVICES on AMD too. */
        amd_family(f, &fam, "CUDA_VISIBLE_DEVICES");
        fam.stack = "HIP";
    }
    check_variable(f, &fam, f->cuda_visible, out);
    amd_family(f, &fam, "ROCR_VISIBLE_DEVICES");
    unsigned left = check_variable(f, &fam, f->rocr_visible, out);
    if (f->rocr_visible && left == 0) {
        return; /* said already: ROCR_VISIBLE_DEVICES hides them all */
    }
    /* HIP numbers the GPUs ROCr left. */
    amd_family(f, &fam, "HIP_VISIBLE_DEVICES");
    fam.stack = "HIP";
    fam.count = left;
    if (f->rocr_visible) {
        fam.has = "ROCR_VISIBLE_DEVICES leaves";
    }
    check_variable(f, &fam, f->hip_visible, out);
}
