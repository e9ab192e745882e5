/* Peer tools measured beside xgpu on the same device. */
#ifndef XGPU_PEERS_H
#define XGPU_PEERS_H

#include <stddef.h>

/* The most global-memory bandwidth a device is believed to have: a figure
 * above it is a broken or fake peer, not a measurement. */
#define PEER_MAX_GBS 100000.0

/* Runs `clpeak --global-bandwidth` (the first clpeak on PATH) and returns
 * the best "float*" figure, in GB/s, for the OpenCL device called
 * `device_name`. 0 when clpeak is not installed, does not list the device,
 * or reports any figure that is not finite and in (0, PEER_MAX_GBS]; then
 * `why` (may be NULL) says which. */
double peer_clpeak_bandwidth(const char *device_name, char *why, size_t why_size);

#endif
