/* XGPU_TUNE and XGPU_TUNE_BUDGET_S read once, here: by the lookup
 * (lookup.c), by the quick tune at first use (tune/auto.c) and by
 * xgpu_tune_setting_check, which tells a program (gpubench, gpuinfo
 * --doctor) whether the library takes a value as given. One reading of
 * each, so what the tools say and what the library does cannot differ. */
#include "tunedb_int.h"

#include <stdlib.h>
#include <string.h>

#define BUDGET_DEFAULT_S 3.0
#define BUDGET_MAX_S 600.0

static const char mode_refusal[] =
    "is not one of on, off, auto (or 1, 0); the tuning database is used";
static const char budget_refusal[] = "is not a number of seconds in (0, 600]; 3 is used";

bool xgpu__tune_mode_parse(const char *v, xgpu__tune_mode *mode) {
    *mode = XGPU__TUNE_ON;
    if (!v || !*v || !strcmp(v, "on") || !strcmp(v, "1")) {
        return true;
    }
    if (!strcmp(v, "off") || !strcmp(v, "0")) {
        *mode = XGPU__TUNE_OFF;
        return true;
    }
    if (!strcmp(v, "auto")) {
        *mode = XGPU__TUNE_AUTO;
        return true;
    }
    return false;
}

bool xgpu__tune_budget_parse(const char *v, double *seconds) {
    *seconds = BUDGET_DEFAULT_S;
    if (!v || !*v) {
        return true;
    }
    char *end = NULL;
    double s = strtod(v, &end);
    if (end == v || *end || !(s > 0 && s <= BUDGET_MAX_S)) {
        return false;
    }
    *seconds = s;
    return true;
}

const char *xgpu__tune_setting_refusal(const char *name) {
    return !strcmp(name, "XGPU_TUNE_BUDGET_S") ? budget_refusal : mode_refusal;
}

xgpu_status xgpu_tune_setting_check(const char *name, const char *value) {
    if (!name) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "xgpu_tune_setting_check: name is NULL");
    }
    bool ok;
    if (!strcmp(name, "XGPU_TUNE")) {
        xgpu__tune_mode mode;
        ok = xgpu__tune_mode_parse(value, &mode);
    } else if (!strcmp(name, "XGPU_TUNE_BUDGET_S")) {
        double s;
        ok = xgpu__tune_budget_parse(value, &s);
    } else {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "xgpu_tune_setting_check: '%.40s' is not a tuning variable (XGPU_TUNE, "
                          "XGPU_TUNE_BUDGET_S)",
                          name);
    }
    if (!ok) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s='%.40s' %s", name, value,
                          xgpu__tune_setting_refusal(name));
    }
    return XGPU_SUCCESS;
}
