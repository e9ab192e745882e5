/* What a case's samples add up to: ranges, reasons, throttled or not, and
 * the JSON object gpubench writes. */
#define _GNU_SOURCE
#include "telemetry.h"
#include "json_write.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    uint64_t bit;
    const char *name;
} reason_names[] = {
    {GT_REASON_SW_POWER_CAP, "sw_power_cap"},
    {GT_REASON_HW_SLOWDOWN, "hw_slowdown"},
    {GT_REASON_SW_THERMAL, "sw_thermal"},
    {GT_REASON_HW_THERMAL, "hw_thermal"},
    {GT_REASON_HW_POWER_BRAKE, "hw_power_brake"},
    {GT_REASON_SYNC_BOOST, "sync_boost"},
    {GT_REASON_IDLE, "idle"},
    {GT_REASON_APP_CLOCKS, "app_clocks"},
    {GT_REASON_DISPLAY_CLOCKS, "display_clocks"},
};
enum { REASON_COUNT = sizeof reason_names / sizeof reason_names[0] };

const char *gt_reason_name(uint64_t bit) {
    for (size_t i = 0; i < REASON_COUNT; i++) {
        if (reason_names[i].bit == bit) {
            return reason_names[i].name;
        }
    }
    return NULL;
}

void gt_reasons_text(uint64_t reasons, const char *sep, char *buf, size_t size) {
    size_t used = 0;
    if (size) {
        buf[0] = '\0';
    }
    for (size_t i = 0; i < REASON_COUNT && used < size; i++) {
        if (reasons & reason_names[i].bit) {
            int w =
                snprintf(buf + used, size - used, "%s%s", used ? sep : "", reason_names[i].name);
            used += w > 0 ? (size_t)w : 0;
        }
    }
}

static double fraction = GT_DEFAULT_CLOCK_FRACTION;

static void read_fraction(void) {
    const char *v = getenv("XGPU_THROTTLE_CLOCK_FRACTION");
    if (!v || !*v) {
        return;
    }
    char *end;
    double f = strtod(v, &end);
    if (*end || !(f > 0 && f <= 1)) {
        fprintf(stderr,
                "xgpu: XGPU_THROTTLE_CLOCK_FRACTION=%s is not a number in (0, 1]; using %.2f\n", v,
                GT_DEFAULT_CLOCK_FRACTION);
        return;
    }
    fraction = f;
}

double gt_clock_fraction(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_fraction);
    return fraction;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void gt_summarise(const gt_sample *s, size_t n, gt_source source, double max_sm_mhz, double frac,
                  gt_summary *out) {
    memset(out, 0, sizeof *out);
    out->source = source;
    out->samples = (int)n;
    out->sm_clock_max_mhz = max_sm_mhz;
    double *vals = n ? malloc(n * sizeof *vals) : NULL;
    for (int v = 0; v < GT_VALUE_COUNT && vals; v++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (!isnan(s[i].v[v])) {
                vals[k++] = s[i].v[v];
            }
        }
        if (k) {
            qsort(vals, k, sizeof *vals, compare_double);
            gt_range *r = &out->r[v];
            r->known = true;
            r->min = vals[0];
            r->max = vals[k - 1];
            r->median = k % 2 ? vals[k / 2] : 0.5 * (vals[k / 2 - 1] + vals[k / 2]);
        }
    }
    free(vals);
    /* The clock test leaves out idle samples: an idle GPU lowers its
     * clocks without being throttled. */
    double low = NAN;
    for (size_t i = 0; i < n; i++) {
        out->reasons |= s[i].reasons;
        double sm = s[i].v[GT_SM_CLOCK_MHZ];
        if (!isnan(sm) && !(s[i].reasons & GT_REASON_IDLE) && (isnan(low) || sm < low)) {
            low = sm;
        }
    }
    size_t used = 0;
    char *why = out->throttle_why;
    if (out->reasons & GT_REASONS_THROTTLE) {
        gt_reasons_text(out->reasons & GT_REASONS_THROTTLE, ", ", why, sizeof out->throttle_why);
        used = strlen(why);
        out->throttled = true;
    }
    if (!isnan(low) && !isnan(max_sm_mhz) && max_sm_mhz > 0 && low < frac * max_sm_mhz) {
        snprintf(why + used, sizeof out->throttle_why - used,
                 "%sSM clock %.0f MHz < %.2g of max %.0f MHz", used ? "; " : "", low, frac,
                 max_sm_mhz);
        out->throttled = true;
    }
}

static void json_range(FILE *f, const char *key, const gt_range *r) {
    fprintf(f, ", \"%s\": ", key);
    if (!r->known) {
        fputs("null", f);
        return;
    }
    fputs("{\"min\": ", f);
    jw_number(f, r->min);
    fputs(", \"median\": ", f);
    jw_number(f, r->median);
    fputs(", \"max\": ", f);
    jw_number(f, r->max);
    fputc('}', f);
}

void gt_write_json(FILE *f, const gt_summary *s) {
    static const char *const keys[GT_VALUE_COUNT] = {"sm_clock_mhz",  "mem_clock_mhz", "power_w",
                                                     "power_limit_w", "temp_c",        "util_pct",
                                                     "mem_used_mib",  "cpu_mhz"};
    fputs("{\"source\": ", f);
    jw_string(f, gt_source_name(s->source));
    fprintf(f, ", \"samples\": %d", s->samples);
    for (int v = 0; v < GT_VALUE_COUNT; v++) {
        json_range(f, keys[v], &s->r[v]);
    }
    fputs(", \"sm_clock_max_mhz\": ", f);
    jw_number(f, s->sm_clock_max_mhz);
    fputs(", \"reasons\": [", f);
    int k = 0;
    for (size_t i = 0; i < REASON_COUNT; i++) {
        if (s->reasons & reason_names[i].bit) {
            fputs(k++ ? ", " : "", f);
            jw_string(f, reason_names[i].name);
        }
    }
    fprintf(f, "], \"throttled\": %s, \"throttle_why\": ", s->throttled ? "true" : "false");
    jw_string(f, s->throttle_why);
    fputc('}', f);
}
