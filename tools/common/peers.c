#define _POSIX_C_SOURCE 200809L
#include "peers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

double peer_clpeak_bandwidth(const char *device_name, char *why, size_t why_size) {
    /* clpeak is whatever PATH finds: its figure is read, not trusted. */
    FILE *p = popen("clpeak --global-bandwidth 2>/dev/null", "r");
    char scratch[1];
    if (!why || !why_size) {
        why = scratch, why_size = sizeof scratch;
    }
    if (!p) {
        snprintf(why, why_size, "clpeak could not be started");
        return 0;
    }
    char line[512];
    double best = 0, bad = 0;
    int in_device = 0, listed = 0, implausible = 0;
    while (fgets(line, sizeof line, p)) {
        if (strstr(line, "Device:")) {
            in_device = strstr(line, device_name) != NULL;
            listed |= in_device;
        }
        double v;
        if (in_device && sscanf(line, " float%*[0-9 ] : %lf", &v) == 1) {
            if (!(isfinite(v) && v > 0 && v <= PEER_MAX_GBS)) {
                implausible = 1;
                bad = v;
            } else if (v > best) {
                best = v;
            }
        }
    }
    int st = pclose(p);
    if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(why, why_size, "clpeak not installed (Debian: clpeak)");
        return 0;
    }
    if (implausible) {
        snprintf(why, why_size, "clpeak's figure dropped: it reported %g GB/s, not in (0, %g] GB/s",
                 bad, PEER_MAX_GBS);
        return 0;
    }
    if (!listed || best <= 0) {
        snprintf(why, why_size, "clpeak gave no float bandwidth for this device");
        return 0;
    }
    return best;
}
