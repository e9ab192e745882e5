/* gpubench report's verdict column: each device of the opening table
 * judged by gpubench check's rules (check/check.h) from the files its rows
 * came from, so the report and `gpubench check FILE...` agree. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "gpubench.h"
#include "report.h"
#include "report_devices.h"

#include <stdlib.h>
#include <string.h>

/* Every device of every merged file, judged; calloc'ed, *n of them. A
 * file that cannot be read again judges nothing (its rows stay). */
static gc_judgement *judge_files(const gb_table *t, const gc_refs *refs, gc_facts **facts,
                                 size_t *n) {
    *facts = NULL;
    *n = 0;
    for (size_t i = 0; i < t->nfiles; i++) {
        char why[512];
        if (t->files[i].name &&
            gc_facts_add_file(t->files[i].name, facts, n, why, sizeof why) != 0) {
            fprintf(stderr, "gpubench report: %s: no verdict: %s\n", t->files[i].name, why);
        }
    }
    *n = gc_facts_merge_runs(*facts, *n);
    gc_judgement *j = *n ? calloc(*n, sizeof *j) : NULL;
    for (size_t i = 0; j && i < *n; i++) {
        gc_judge(&(*facts)[i], refs, &j[i]);
    }
    return j;
}

/* The reason that set the verdict, as one line. */
static const char *why_of(const gc_judgement *j) {
    for (int i = 0; i < j->nreasons; i++) {
        if (j->reasons[i].level == j->verdict && j->verdict != GC_OK) {
            return j->reasons[i].text;
        }
    }
    return "";
}

void gb_report_add_verdicts(gb_summary *s) {
    gc_refs refs;
    char why[512];
    if (gc_refs_load_shipped(&refs, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench report: no verdicts: %s\n", why);
        return;
    }
    gc_facts *facts = NULL;
    size_t n = 0;
    gc_judgement *j = judge_files(s->t, &refs, &facts, &n);
    for (size_t d = 0; j && d < s->ntable; d++) {
        const gb_row *key = s->table[d].key;
        const gc_judgement *worst = NULL;
        for (size_t i = 0; i < n; i++) {
            if (!strcmp(facts[i].host, key->host) && !strcmp(facts[i].device, key->device) &&
                (!worst || j[i].verdict > worst->verdict)) {
                worst = &j[i];
            }
        }
        if (worst) {
            gb_report_set_verdict(s, d, gc_verdict_name(worst->verdict), why_of(worst));
        }
    }
    free(j);
    free(facts);
    gc_refs_free(&refs);
}
