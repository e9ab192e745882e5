#define _POSIX_C_SOURCE 200809L
#include "peers.h"

#include <stdio.h>
#include <string.h>

double peer_clpeak_bandwidth(const char *device_name) {
    FILE *p = popen("clpeak --global-bandwidth 2>/dev/null", "r");
    if (!p) {
        return 0;
    }
    char line[512];
    double best = 0;
    int in_device = 0;
    while (fgets(line, sizeof line, p)) {
        if (strstr(line, "Device:")) {
            in_device = strstr(line, device_name) != NULL;
        }
        double v;
        if (in_device && sscanf(line, " float%*[0-9 ] : %lf", &v) == 1 && v > best) {
            best = v;
        }
    }
    pclose(p);
    return best;
}
